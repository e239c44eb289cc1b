"""Serves requests with the decode routine (docs/serving.md) and checks
every generated token against the numpy reference.

    python decode.py [--target cpu|pto-a2a3sim] [--moe] [--steps N]

The routine: `decode_step` (model.py) with everything but the per-step
inputs as state. A session places the weights, the paged KV cache and the
workspaces on the target once; each step hands it only the tokens,
positions, lengths and block tables, and gets the sampled tokens back.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import htp  # noqa: E402

import model  # noqa: E402
import reference  # noqa: E402
import weights  # noqa: E402
from server import Request, Server  # noqa: E402

serving = htp.model("serving")

SLOTS = 4        # the batch: requests decoded together
POOL = 24        # KV pages per layer in the pool

WEIGHTS = ("embedding", "attn_norm", "wqkv", "wo", "ffn_norm", "w_gate", "w_up", "w_down", "final_norm", "w_out",
           "cos", "sin")
CACHE = ("k_cache", "v_cache")
WORKSPACES = {"x": (model.D,), "h": (model.D,), "q": (model.D,), "k_new": (model.D,), "v_new": (model.D,),
              "attn": (model.D,), "po": (8, model.D), "plse": (8, model.HEADS), "logits": (model.VOCAB,)}


MOE_WORKSPACES = {"gates": np.float32, "counts": np.int32}


def routine(moe=False):
    step = model.decode_step_moe if moe else model.decode_step
    state = WEIGHTS + CACHE + tuple(WORKSPACES)
    if moe:
        state += ("w_router",) + tuple(MOE_WORKSPACES)
    return serving.routine(state=state, decode=step)


def initial_state(w, layers, slots=SLOTS, pool=POOL):
    """The weights, an empty cache of `pool` pages per layer, workspaces for `slots`."""
    state = dict(w)
    for name in CACHE:
        state[name] = np.zeros((layers, pool * model.PAGE, model.D), np.float32)
    for name, shape in WORKSPACES.items():
        state[name] = np.zeros((slots, *shape), np.float32)
    if "w_router" in w:
        state["gates"] = np.zeros((slots, model.EXPERTS), np.float32)
        state["counts"] = np.zeros((model.EXPERTS, 1), np.int32)
    return state


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


def serve(session, requests, slots=SLOTS, pool=POOL):
    server = Server(lambda *inputs: session.decode(*inputs), slots, pool)
    steps = server.run(requests)
    return server, steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--moe", action="store_true")
    parser.add_argument("--layers", type=int, default=2)
    args = parser.parse_args()
    w = weights.make(layers=args.layers, moe=args.moe)
    program = routine(args.moe).compile(target=args.target)
    requests = requests_for()
    with program.start(**initial_state(w, args.layers)) as session:
        server, steps = serve(session, requests)
        stats = session.stats()
    wrong = [i for i, r in enumerate(requests) if r.generated != expected_tokens(w, r)]
    print(f"{'MoE' if args.moe else 'dense'} decode on {args.target}: {len(requests)} requests, {steps} steps, "
          f"batch sizes {min(server.batch_sizes)}..{max(server.batch_sizes)}, "
          f"{sum(len(r.generated) for r in requests)} tokens generated; state uploads "
          f"{sum(stats['uploads'].values())} (once per tensor), downloads {sum(stats['downloads'].values())}; "
          f"{'every token equal to numpy' if not wrong else f'requests {wrong} differ from numpy'}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
