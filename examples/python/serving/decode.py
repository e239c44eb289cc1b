"""Serves requests with the decode routine (docs/serving.md) and checks
every generated token against the numpy reference.

    python decode.py [--target cpu|pto-a2a3sim] [--moe] [--layers N] [--chips N] [--requests N]

The routine: `decode_step` (model.py) with everything but the per-step
inputs as state. A session places the weights, the paged KV cache and the
workspaces on the target once; each step hands it only the tokens,
positions, lengths and block tables, and gets the sampled tokens back.

`--chips N` (a PTO target): the step of parallel.py on a group of N chips,
tensor parallel (dense) or tensor and expert parallel (--moe): each chip
its shard of the weights and of the KV cache, placed once; one run of the
package on every chip per step; every chip samples the same tokens.
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import htp  # noqa: E402

import model  # noqa: E402
import parallel  # noqa: E402
import reference  # noqa: E402
import weights  # noqa: E402
from server import Request, Server  # noqa: E402

serving = htp.model("serving")

SLOTS = 4        # the batch: requests decoded together
POOL = 24        # KV pages per layer in the pool

WEIGHTS = ("embedding", "attn_norm", "wqkv", "wo", "ffn_norm", "w_gate", "w_up", "w_down", "final_norm", "w_out",
           "cos", "sin")
CACHE = ("k_cache", "v_cache")
WORKSPACES = ("x", "h", "q", "k_new", "v_new", "attn", "po", "plse", "logits")   # model.empty_state makes them
MOE_WORKSPACES = ("gates", "counts")


def routine(moe=False, chips=None):
    """The decode routine; with `chips`, parallel.py's step of one chip of a group."""
    step = model.decode_step_moe if moe else model.decode_step
    state = WEIGHTS + CACHE + WORKSPACES
    if moe:
        state += ("w_router",) + MOE_WORKSPACES
    if chips is not None:
        step = parallel.step(moe)
        state += ("part",) + (("experts",) if moe else ())
    return serving.routine(state=state, decode=step)


def initial_state(w, layers, slots=SLOTS, pool=POOL):
    """The weights, an empty cache of `pool` pages per layer, workspaces for `slots`."""
    return model.empty_state(w, layers, slots, pool)


def requests_for(seed=1, count=10, steps=64):
    """Requests of assorted prompt lengths arriving over the first steps
    (a length-1 prompt, prompts longer than a page, one arriving after the
    batch emptied), each generating a few tokens."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        prompt = [int(t) for t in rng.integers(0, model.VOCAB, size=int(rng.integers(1, 30)))]
        out.append(Request(prompt=prompt, new_tokens=int(rng.integers(1, 24)), arrival=int(rng.integers(0, steps // 2))))
    out[0].prompt = out[0].prompt[:1]
    return out


def expected_tokens(w, request):
    ref = reference.Request(w)
    tokens, fed = [], list(request.prompt)
    for i in range(len(request.prompt) + request.new_tokens - 1):
        token, _ = ref.step(fed[i])
        if i >= len(request.prompt) - 1:
            tokens.append(token)
            fed.append(token)
    return tokens


def agreed(per_chip):
    """The tokens every chip of a group sampled (they compute the same floats)."""
    for chip, tokens in enumerate(per_chip[1:], 1):
        if not np.array_equal(tokens, per_chip[0]):
            raise AssertionError(f"chip {chip} sampled {tokens.ravel().tolist()}, chip 0 {per_chip[0].ravel().tolist()}")
    return per_chip[0]


def serve(session, requests, slots=SLOTS, pool=POOL):
    if session.chips is None:
        server = Server(lambda *inputs: session.decode(*inputs), slots, pool)
    else:
        server = Server(lambda *inputs: agreed(session.decode(*inputs)), slots, pool)
    steps = server.run(requests)
    return server, steps


def start(w, layers, target="cpu", moe=False, chips=None, slots=SLOTS, pool=POOL):
    """A session of the routine on `target` (with `chips`: on a group of
    chips, each with its shard of the weights and of the cache)."""
    if chips is None:
        return routine(moe).compile(target=target).start(**initial_state(w, layers, slots, pool))
    program = routine(moe, chips).compile(target=target, **parallel.constants(chips, moe))
    return program.start(chips=chips, **parallel.initial_state(w, layers, chips, slots, pool))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--moe", action="store_true")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--chips", type=int, default=None, help="a group of N chips (tensor / expert parallel)")
    parser.add_argument("--requests", type=int, default=10)
    args = parser.parse_args()
    if args.chips is not None and args.target == "cpu":
        parser.error("--chips runs the step on a group of chips: give a PTO target (--target pto-a2a3sim)")
    w = weights.make(layers=args.layers, moe=args.moe)
    requests = requests_for(count=args.requests)
    start_time = time.perf_counter()
    with start(w, args.layers, args.target, args.moe, args.chips) as session:
        opened = time.perf_counter()
        server, steps = serve(session, requests)
        served = time.perf_counter()
        stats = session.stats()
    wrong = [i for i, r in enumerate(requests) if r.generated != expected_tokens(w, r)]
    checks = [f"every token equal to numpy" if not wrong else f"requests {wrong} differ from numpy"]
    if args.chips is not None:
        # The same requests served by the one-chip routine (on the cpu: the same model, one chip).
        alone = requests_for(count=args.requests)
        with start(w, args.layers, "cpu", args.moe) as session:
            serve(session, alone)
        differ = [i for i, (r, a) in enumerate(zip(requests, alone)) if r.generated != a.generated]
        checks.append("to the one-chip routine's" if not differ else f"requests {differ} differ from one chip")
        wrong += differ
    where = args.target if args.chips is None else f"{args.chips} {args.target} chips"
    print(f"{'MoE' if args.moe else 'dense'} decode on {where}: {len(requests)} requests, {steps} steps "
          f"({len(server.batch_sizes)} run, {(served - opened) / max(len(server.batch_sizes), 1) * 1e3:.1f} ms each; "
          f"session start {opened - start_time:.1f} s), "
          f"batch sizes {min(server.batch_sizes)}..{max(server.batch_sizes)}, "
          f"{sum(len(r.generated) for r in requests)} tokens generated; state uploads "
          f"{sum(stats['uploads'].values())} (once per tensor{'' if args.chips is None else ' and chip'}), downloads "
          f"{sum(stats['downloads'].values())}; {' and '.join(checks)}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
