"""WSP split-KV decode (examples/python/wsp/split_kv_decode.py), measured.

1. The planner's modelled makespan: the plan the workload makes for a
   length distribution and a core count (its tasks, their KV blocks and
   cores, read from the trace of a run: the keys name each piece's
   blocks), each core running its own tasks, ready ones in issue order —
   a merge once its chunks are done — with a chunk costing its KV blocks
   and a merge a fixed MERGE_COST blocks; against the load-balance lower
   bound max(total KV blocks x heads / cores, 1 block).
2. The same plans run on htp-runtime (2 workers, every policy): the
   measured makespan (first task start to last task end, from the trace)
   against the measured work divided by the workers.
3. Split-KV decode end to end on the cpu against the same attention in
   numpy (per request and head: scores, softmax, weighted sum), same run.

Usage: python3 benches/wsp_decode.py [--pictures DIR]   (markdown tables;
with --pictures, one timeline PNG per policy, htp.trace_plot)
"""

import argparse
import importlib.util
import json
import os
import pathlib
import tempfile
import time

import numpy as np

import htp

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "python" / "wsp" / "split_kv_decode.py"
MERGE_COST = 1.0       # a merge, in KV blocks of work
HEADS = 2
POLICIES = ["round_robin", "affinity", "work_stealing", "dynamic"]


def load_example():
    spec = importlib.util.spec_from_file_location("split_kv_decode", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def distributions(rng):
    """(name, lengths): request KV lengths from 512 to 32K."""
    return [
        ("8 x uniform 512-32K", rng.integers(512, 32769, 8)),
        ("32 x uniform 512-32K", rng.integers(512, 32769, 32)),
        ("8 x 32K", np.full(8, 32768)),
        ("1 x 32K + 15 x 512", np.array([32768] + [512] * 15)),
        ("16 x long tail", np.minimum(32768, (512 * rng.pareto(1.2, 16) + 512).astype(int))),
        ("4 x 512", np.full(4, 512)),
    ]


def plan_of(trace):
    """The tasks of a run, in issue order: (kind, b, h, cost in blocks, worker)."""
    tasks = []
    for event in json.loads(pathlib.Path(trace).read_text())["traceEvents"]:
        name, keys = event["name"].rstrip("]").split("[")
        keys = [int(k) for k in keys.split(",")] if keys else []
        if name == "decode_chunk":
            _, b, h, lo, hi = keys
            tasks.append(((b, h, 0, lo), ("chunk", b, h, hi - lo, event["tid"])))
        elif name == "decode_merge":
            _, b, h = keys
            tasks.append(((b, h, 1, 0), ("merge", b, h, MERGE_COST, event["tid"])))
    return [task for _, task in sorted(tasks)]


def modelled_makespan(tasks, cores):
    """Makespan of the plan's tasks on `cores`, each on its worker, taking
    the first ready task of its own in issue order (a merge is ready when
    its request's chunks for that head are done): the affinity schedule."""
    end = {}
    chunk_ends = {}
    free = [0.0] * cores
    queues = [[t for t in range(len(tasks)) if tasks[t][4] == w] for w in range(cores)]
    def ready_at(t):
        kind, b, h, _, _ = tasks[t]
        return max(chunk_ends.get((b, h), [0.0])) if kind == "merge" else 0.0
    def runnable(t):
        kind, b, h, _, _ = tasks[t]
        return kind == "chunk" or all(
            u in end for u in range(len(tasks)) if tasks[u][0] == "chunk" and tasks[u][1:3] == (b, h))
    while any(queues):
        # The worker that can start something soonest.
        best = None
        for w in range(cores):
            candidates = [t for t in queues[w] if runnable(t)]
            if candidates:
                t = next((t for t in candidates if ready_at(t) <= free[w]), min(candidates, key=ready_at))
                start = max(free[w], ready_at(t))
                if best is None or start < best[0]:
                    best = (start, w, t)
        start, w, t = best
        end[t] = free[w] = start + tasks[t][3]
        queues[w].remove(t)
        if tasks[t][0] == "chunk":
            chunk_ends.setdefault(tasks[t][1:3], []).append(end[t])
    return max(end.values())


def plan_and_run(lens, cores, policy="dynamic", trace=None, workers=None):
    """Runs the decode for `lens` with wsp.cores() = cores; (plan, output, seconds)."""
    rng = np.random.default_rng(int(lens.sum()) % 1000)
    batch, longest = len(lens), int(lens.max())
    q = rng.standard_normal((batch, HEADS, decode.D), dtype=np.float32)
    k = rng.standard_normal((batch, HEADS, longest, decode.D), dtype=np.float32)
    v = rng.standard_normal((batch, HEADS, longest, decode.D), dtype=np.float32)
    po = np.empty((batch, HEADS, decode.MAXC, decode.D), np.float32)
    plse = np.empty((batch, HEADS, decode.MAXC, 1), np.float32)
    o = np.empty((batch, HEADS, decode.D), np.float32)
    plan = np.empty((1, 1), np.int32)
    program = wsp.schedule(decode.split_kv_decode, dispatch=policy, workers=workers or cores,
                           **({"trace": trace} if trace else {}))
    lens32 = lens.astype(np.int32)
    program(q, k, v, lens32, po, plse, o, plan, np.float32(0.125))   # compile and warm up
    start = time.perf_counter()
    program(q, k, v, lens32, po, plse, o, plan, np.float32(0.125))
    seconds = time.perf_counter() - start
    return int(plan[0, 0]), (q, k, v, o), seconds


def numpy_decode(q, k, v, lens):
    o = np.empty(q.shape, np.float32)
    for b, n in enumerate(lens):
        for h in range(q.shape[1]):
            s = (k[b, h, :n] @ q[b, h]) * np.float32(0.125)
            p = np.exp(s - s.max())
            o[b, h] = (p / p.sum()) @ v[b, h, :n]
    return o


def trace_spans(path):
    events = json.loads(pathlib.Path(path).read_text())["traceEvents"]
    tasks = [e for e in events if not e["name"].startswith("barrier")]
    start = min(e["ts"] for e in tasks)
    end = max(e["ts"] + e["dur"] for e in tasks)
    return end - start, sum(e["dur"] for e in tasks)


def main():
    global decode, wsp
    parser = argparse.ArgumentParser()
    parser.add_argument("--pictures", help="write one timeline PNG per policy here")
    args = parser.parse_args()
    decode = load_example()
    wsp = decode.wsp
    rng = np.random.default_rng(7)
    cases = distributions(rng)

    print("### Planner: modelled makespan against the load-balance lower bound\n")
    print(f"Chunk cost = its KV blocks (of {decode.BLK} rows), merge = {MERGE_COST:g} block; {HEADS} heads; "
          "each task on the core the plan places it on, ready tasks in issue order (the affinity schedule).\n")
    print("| lengths | cores | segment (blocks) | tasks | lower bound | modelled | ratio |")
    print("|---|---|---|---|---|---|---|")
    worst = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for name, lens in cases:
            for cores in (2, 8, 24):
                trace = os.path.join(folder, "plan.json")
                segment, _, _ = plan_and_run(lens, cores, policy="affinity", trace=trace, workers=cores)
                tasks = plan_of(trace)
                blocks = -(-lens // decode.BLK)
                bound = max(int(blocks.sum()) * HEADS / cores, 1.0)
                modelled = modelled_makespan(tasks, cores)
                worst = max(worst, modelled / bound)
                print(f"| {name} | {cores} | {segment} | {len(tasks)} | {bound:.1f} | {modelled:.1f} | {modelled / bound:.3f} |")
    print(f"\nWorst ratio: {worst:.3f} (target: within 1.05).\n")

    print("### The same plans on htp-runtime (2 workers)\n")
    print("Measured makespan (first task start to last end) against the measured task time / 2.\n")
    print("| lengths | policy | makespan (ms) | work / 2 (ms) | ratio |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for name, lens in cases[:2]:
            for policy in POLICIES:
                trace = os.path.join(folder, f"{policy}.json")
                plan_and_run(lens, 2, policy=policy, trace=trace)
                makespan, work = trace_spans(trace)
                print(f"| {name} | {policy} | {makespan / 1e3:.2f} | {work / 2e3:.2f} | {makespan / (work / 2):.3f} |")
                if args.pictures and name == cases[0][0]:
                    from htp import trace_plot
                    os.makedirs(args.pictures, exist_ok=True)
                    trace_plot.draw_timeline(trace, os.path.join(args.pictures, f"wsp-decode-{policy}.png"),
                                             title=f"split-KV decode, {name}, {policy}, 2 workers")

    print("\n### Split-KV decode end to end on the cpu against numpy (same run)\n")
    print("| lengths | HTP (ms) | numpy (ms) | numpy / HTP | max abs error |")
    print("|---|---|---|---|---|")
    for name, lens in cases:
        _, (q, k, v, o), seconds = plan_and_run(lens, htp_cores())
        start = time.perf_counter()
        expected = numpy_decode(q, k, v, lens)
        numpy_seconds = time.perf_counter() - start
        print(f"| {name} | {seconds * 1e3:.2f} | {numpy_seconds * 1e3:.2f} | {numpy_seconds / seconds:.2f} | "
              f"{np.abs(o - expected).max():.1e} |")


def htp_cores():
    return os.cpu_count() or 1


if __name__ == "__main__":
    main()
