"""The host loop of a server: continuous batching over the routine's slots.

Requests arrive at given steps with prompts of any length and a number of
tokens to generate. Each step, every live request feeds one token (its
next prompt token, then its last sampled one) at its next position; a
request's pages are taken from the pool as its positions reach them and
given back when it finishes, so a later request reuses them. A request is
admitted when a slot is free and the pool can hold all its positions.
This is ordinary Python around one call of the routine per step.
"""

from dataclasses import dataclass, field

import numpy as np

from model import MAXPAGES, PAGE


@dataclass
class Request:
    prompt: list
    new_tokens: int
    arrival: int = 0
    generated: list = field(default_factory=list)
    fed: int = 0
    pages: list = field(default_factory=list)
    slot: int = -1

    def length(self):
        """Positions the request needs in all."""
        return len(self.prompt) + self.new_tokens - 1

    def next_token(self):
        return self.prompt[self.fed] if self.fed < len(self.prompt) else self.generated[-1]

    def done(self):
        return len(self.generated) >= self.new_tokens


class Server:
    """Runs `step(tokens, positions, lens, block_table) -> next tokens`
    (B x 1 each, B = slots) over requests, continuous batching."""

    def __init__(self, step, slots, pages):
        self.step = step
        self.slots = [None] * slots
        self.free_pages = list(range(pages))
        self.reserved = 0          # pages promised to admitted requests, not yet taken
        self.steps = 0
        self.batch_sizes = []

    def _pages_for(self, request):
        return -(-request.length() // PAGE)

    def _admit(self, waiting):
        for request in list(waiting):
            if request.arrival > self.steps:
                continue
            need = self._pages_for(request)
            if need > MAXPAGES:
                raise ValueError(f"a request of {request.length()} positions needs {need} pages, more than {MAXPAGES}")
            free = [i for i, r in enumerate(self.slots) if r is None]
            if not free or len(self.free_pages) - self.reserved < need:
                continue
            request.slot = free[0]
            self.slots[free[0]] = request
            self.reserved += need
            waiting.remove(request)

    def run(self, requests, max_steps=10000):
        """Serves every request; returns the steps taken."""
        waiting = sorted(requests, key=lambda r: r.arrival)
        n = len(self.slots)
        while waiting or any(self.slots):
            if self.steps >= max_steps:
                raise RuntimeError(f"not done after {max_steps} steps")
            self._admit(waiting)
            if not any(self.slots):
                # Nothing live (the next request has not arrived): no step runs.
                self.steps += 1
                continue
            tokens = np.zeros((n, 1), np.int32)
            positions = np.zeros((n, 1), np.int32)
            lens = np.zeros((n, 1), np.int32)
            table = np.zeros((n, MAXPAGES), np.int32)
            for b, request in enumerate(self.slots):
                if request is None:
                    continue
                position = request.fed
                if position // PAGE == len(request.pages):
                    request.pages.append(self.free_pages.pop())
                    self.reserved -= 1
                tokens[b, 0] = request.next_token()
                positions[b, 0] = position
                lens[b, 0] = position + 1
                table[b, :len(request.pages)] = request.pages
            self.batch_sizes.append(sum(r is not None for r in self.slots))
            sampled = self.step(tokens, positions, lens, table)
            for b, request in enumerate(self.slots):
                if request is None:
                    continue
                request.fed += 1
                if request.fed >= len(request.prompt):
                    request.generated.append(int(sampled[b, 0]))
                if request.done():
                    self.free_pages.extend(request.pages)
                    self.reserved -= self._pages_for(request) - len(request.pages)
                    request.pages = []
                    self.slots[b] = None
            self.steps += 1
        return self.steps
