"""The serving decode step's cost on the cpu, against its targets and references.

The routine is `examples/python/serving/`'s (docs/serving.md): `decode.routine(moe)`, a session
started from `decode.initial_state` (2 layers, 4 slots, a pool of 32 pages so that every slot can
hold 128 positions). For each model (dense, MoE) and case (1 or 4 live slots, every live slot at
position 16 or 100), the sessions are filled by running positions 0 .. P-1 (random prompt tokens,
the same for every implementation), then the step at position P is timed, again and again (it
rewrites the same cache row with the same values: a steady state), after warm-up; medians, the
implementations interleaved in rounds so that the machine's load falls on all of them alike.

1. **Step time**: `session.decode(tokens, positions, lens, block_table)` on the routine as served
   (default schedule: one worker per core), and on the same workload scheduled with one worker
   (`wsp.schedule(model.decode_step, workers=1)`); steps per second.
2. **Host overhead per step** = the one-worker step (untraced) minus the sum of its tasks' times,
   taken from traced steps (`wsp.schedule(..., workers=1, trace=path)`, the Chrome trace's `dur`,
   µs; "barrier" events are not tasks). With one worker the tasks run one after another, so what
   the step takes beyond them is the host's (argument checks in Python, the workload's own code,
   task issue and dependency inference; with the caller lane the one worker is the calling
   thread). Target: 50 µs + 1 µs per task.
   Traced steps are slower (the trace is written each step): their time is shown apart. (The
   tasks are those of the one-worker plan: the split-KV planner cuts per core, `wsp.cores()`, so
   the served two-worker step may split a long request's attention in two pieces and a merge.)
3. **References**, same run, same inputs: `reference.batched_step` (numpy, the same paged cache and
   math), and the dense step as an ONNX graph run by onnxruntime on the cpu (embedding gather, per
   layer RMSNorm, QKV matmul, RoPE, attention over the cache gathered through the block table,
   padded to the longest live length and masked, output projection, SwiGLU, final norm, logits,
   ArgMax; the step's new keys and values are outputs the host writes into the paged cache, as
   ONNX decoders return their "present" KV). Every implementation's sampled tokens of the live
   slots must equal the routine's, at every step of the fill and at the measured one (the bench
   exits with status 1 if one does not).
4. **Where a step goes** (4 live slots at position 100): the one-worker step split into the Python
   side of `session.decode` (its time minus a prepared call of the same compiled workload, which
   is `Compiled.run` alone), the Rust host side of `Compiled.run` (minus the tasks), and the tasks,
   by kernel; then the top of a cProfile of `session.decode`.

Usage: python3 benches/serving.py [--steps N] [--rounds R]   (markdown tables)
onnxruntime is optional (`pip install onnxruntime onnx`): without it its columns say so.
"""

import argparse
import cProfile
import json
import os
import pathlib
import pstats
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples" / "python" / "serving"))

import htp  # noqa: E402

import decode  # noqa: E402
import model  # noqa: E402
import reference  # noqa: E402
import weights  # noqa: E402

serving = htp.model("serving")
wsp = htp.model("wsp")

LAYERS = 2
SLOTS = decode.SLOTS
POOL = SLOTS * model.MAXPAGES          # every slot can hold MAXPAGES pages
CASES = [(1, 16), (4, 16), (1, 100), (4, 100)]   # (live slots, position of the measured step)
PROFILED = (4, 100)
TARGET_FIXED_US = 50.0
TARGET_PER_TASK_US = 1.0
INSTALL_ORT = "pip install onnxruntime onnx"


def load():
    try:
        one, five, _ = os.getloadavg()
        return f"{one:.1f} (5 min: {five:.1f})"
    except OSError:
        return "unknown"


# --------------------------------------------------------------------------- the ONNX graph

def onnx_decode_model(w):
    """The dense decode step as an ONNX model (onnx's helper API), with `w`'s
    weights as initializers. Inputs as the routine's per-step inputs (B x 1
    int32 tokens, positions, lens; B x MAXPAGES int32 block table) and the
    paged cache [L, S, 64] (before this step's append); outputs the next
    tokens (B x 1 int64) and this step's keys and values [L, B, 64]."""
    from onnx import TensorProto, checker, helper, numpy_helper

    nodes, initializers = [], []
    counter = iter(range(1 << 30))

    def const(array):
        name = f"c{next(counter)}"
        initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(kind, *inputs, outputs=1, **attributes):
        names = [f"t{next(counter)}" for _ in range(outputs)]
        nodes.append(helper.make_node(kind, list(inputs), names, **attributes))
        return names[0] if outputs == 1 else names

    def i64(*values):
        return const(np.array(values, np.int64))

    def mm(a, weight):
        """a @ weight as the routine computes it with a bf16 weight: a rounded
        to bf16 (Cast there and back), the weight's bf16 values as f32."""
        rounded = op("Cast", op("Cast", a, to=TensorProto.BFLOAT16), to=TensorProto.FLOAT)
        return op("MatMul", rounded, const(np.asarray(weight, np.float32)))

    def rmsnorm(x, weight):
        mean = op("ReduceMean", op("Mul", x, x), i64(-1), keepdims=1)
        inv = op("Reciprocal", op("Sqrt", op("Add", mean, const(np.float32(model.EPS)))))
        return op("Mul", op("Mul", x, inv), const(weight.reshape(1, -1)))

    def rope(t, c, s):
        heads = op("Reshape", t, i64(0, model.HEADS, model.DH))                  # B x H x 32
        x1, x2 = op("Split", heads, i64(model.DH // 2, model.DH // 2), axis=2, outputs=2)
        rotated = op("Concat", op("Sub", op("Mul", x1, c), op("Mul", x2, s)),
                     op("Add", op("Mul", x2, c), op("Mul", x1, s)), axis=2)
        return op("Reshape", rotated, i64(0, model.D))

    layers = w["attn_norm"].shape[0]
    tokens = op("Reshape", "tokens", i64(-1))
    positions = op("Reshape", "positions", i64(-1))
    x = op("Gather", const(w["embedding"]), tokens, axis=0)                     # B x 64
    c = op("Unsqueeze", op("Gather", const(w["cos"]), positions, axis=0), i64(1))   # B x 1 x 16
    s = op("Unsqueeze", op("Gather", const(w["sin"]), positions, axis=0), i64(1))
    # The padded KV: positions 0 .. T-1, T the longest live length; each slot's rows through its block table.
    longest = op("ReduceMax", "lens", keepdims=0)
    t = op("Range", const(np.int32(0)), longest, const(np.int32(1)))            # T
    pages = op("Gather", "block_table", op("Div", t, const(np.int32(model.PAGE))), axis=1)   # B x T
    rows = op("Add", op("Mul", pages, const(np.int32(model.PAGE))), op("Mod", t, const(np.int32(model.PAGE))))
    row_t = op("Unsqueeze", t, i64(0))                                          # 1 x T
    valid = op("Unsqueeze", op("Less", row_t, "lens"), i64(1, 2))               # B x 1 x 1 x T
    new = op("Unsqueeze", op("Equal", row_t, "positions"), i64(2))              # B x T x 1: this step's row
    scale = const(np.float32(1.0 / np.sqrt(model.DH)))
    k_new, v_new = [], []
    for l in range(layers):
        h = rmsnorm(x, w["attn_norm"][l])
        q, k, v = op("Split", mm(h, w["wqkv"][l]), i64(model.D, model.D, model.D), axis=1, outputs=3)
        q, k = rope(q, c, s), rope(k, c, s)
        k_new.append(op("Unsqueeze", k, i64(0)))
        v_new.append(op("Unsqueeze", v, i64(0)))
        layer = const(np.int64(l))
        # B x T x 64: the cache's rows through the block table, this step's row from k / v.
        keys = op("Where", new, op("Unsqueeze", k, i64(1)),
                  op("Gather", op("Gather", "k_cache", layer, axis=0), rows, axis=0))
        values = op("Where", new, op("Unsqueeze", v, i64(1)),
                    op("Gather", op("Gather", "v_cache", layer, axis=0), rows, axis=0))
        heads = i64(0, 0, model.HEADS, model.DH)
        keys = op("Transpose", op("Reshape", keys, heads), perm=[0, 2, 3, 1])          # B x H x 32 x T
        values = op("Transpose", op("Reshape", values, heads), perm=[0, 2, 1, 3])      # B x H x T x 32
        query = op("Reshape", op("Mul", q, scale), i64(0, model.HEADS, 1, model.DH))   # B x H x 1 x 32
        scores = op("MatMul", query, keys)                                            # B x H x 1 x T
        p = op("Softmax", op("Where", valid, scores, const(np.float32(-1.0e30))), axis=-1)
        attn = op("Reshape", op("MatMul", p, values), i64(0, model.D))
        x = op("Add", x, mm(attn, w["wo"][l]))
        h = rmsnorm(x, w["ffn_norm"][l])
        gate = mm(h, w["w_gate"][l])
        up = mm(h, w["w_up"][l])
        x = op("Add", x, mm(op("Mul", op("Mul", gate, op("Sigmoid", gate)), up), w["w_down"][l]))
    logits = mm(rmsnorm(x, w["final_norm"][0]), w["w_out"])
    nodes.append(helper.make_node("ArgMax", [logits], ["next_tokens"], axis=1, keepdims=1))
    nodes.append(helper.make_node("Concat", k_new, ["k_new"], axis=0))
    nodes.append(helper.make_node("Concat", v_new, ["v_new"], axis=0))
    i32, f32 = TensorProto.INT32, TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "decode_step",
        [helper.make_tensor_value_info("tokens", i32, ["B", 1]),
         helper.make_tensor_value_info("positions", i32, ["B", 1]),
         helper.make_tensor_value_info("lens", i32, ["B", 1]),
         helper.make_tensor_value_info("block_table", i32, ["B", model.MAXPAGES]),
         helper.make_tensor_value_info("k_cache", f32, [layers, "S", model.D]),
         helper.make_tensor_value_info("v_cache", f32, [layers, "S", model.D])],
        [helper.make_tensor_value_info("next_tokens", TensorProto.INT64, ["B", 1]),
         helper.make_tensor_value_info("k_new", f32, [layers, "B", model.D]),
         helper.make_tensor_value_info("v_new", f32, [layers, "B", model.D])],
        initializers)
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx_model.ir_version = 9
    checker.check_model(onnx_model)
    return onnx_model


class OrtStep:
    """The dense step on onnxruntime (cpu), its paged cache in numpy: each
    step runs the graph, then writes the step's keys and values into the
    live slots' pages."""

    def __init__(self, ort, w, k_cache, v_cache):
        self.session = ort.InferenceSession(onnx_decode_model(w).SerializeToString(),
                                            providers=["CPUExecutionProvider"])
        self.k_cache, self.v_cache = k_cache, v_cache

    def __call__(self, tokens, positions, lens, table):
        next_tokens, k_new, v_new = self.session.run(None, {
            "tokens": tokens, "positions": positions, "lens": lens, "block_table": table,
            "k_cache": self.k_cache, "v_cache": self.v_cache})
        live = lens[:, 0] > 0
        at = positions[live, 0]
        rows = table[live, at // model.PAGE] * model.PAGE + at % model.PAGE
        self.k_cache[:, rows] = k_new[:, live]
        self.v_cache[:, rows] = v_new[:, live]
        return next_tokens


# --------------------------------------------------------------------------- the measured case

def inputs_for(live, position, fed):
    """The per-step inputs of position `position` (as server.py builds them:
    empty slots all zeros); slot b's page j is page j * SLOTS + b."""
    tokens = np.zeros((SLOTS, 1), np.int32)
    positions = np.zeros((SLOTS, 1), np.int32)
    lens = np.zeros((SLOTS, 1), np.int32)
    table = np.zeros((SLOTS, model.MAXPAGES), np.int32)
    for b in range(live):
        tokens[b, 0] = fed[b, position]
        positions[b, 0] = position
        lens[b, 0] = position + 1
        table[b, :position // model.PAGE + 1] = np.arange(position // model.PAGE + 1) * SLOTS + b
    return tokens, positions, lens, table


def trace_tasks(path):
    """(task count, sum of task durations in µs, {kernel: µs}) of the last traced step."""
    events = [e for e in json.loads(pathlib.Path(path).read_text())["traceEvents"]
              if e.get("ph") == "X" and e["name"] != "barrier"]
    by_kernel = {}
    for e in events:
        kernel = e["name"].split("[")[0]
        count, total = by_kernel.get(kernel, (0, 0.0))
        by_kernel[kernel] = (count + 1, total + e["dur"])
    return len(events), sum(e["dur"] for e in events), by_kernel


def timed(call, times, count):
    for _ in range(count):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e6)


def measure_case(moe, live, position, programs, w, ort, args, trace_path):
    """Fills every implementation's cache up to `position`, checks their
    tokens, and times the step at `position`. Returns a dict of figures."""
    rng = np.random.default_rng(100 * live + position)
    fed = rng.integers(0, model.VOCAB, size=(SLOTS, position + 1)).astype(np.int32)
    sessions = {name: program.start(**decode.initial_state(w, LAYERS, SLOTS, POOL))
                for name, program in programs.items()}
    try:
        steps = {name: session.decode for name, session in sessions.items()}
        k_np = np.zeros((LAYERS, POOL * model.PAGE, model.D), np.float32)
        v_np = np.zeros_like(k_np)
        wide = reference.widened(w)          # the bf16 weights as f32 once, not per step
        steps["numpy"] = lambda *inputs: reference.batched_step(wide, k_np, v_np, *inputs)
        if ort is not None and not moe:
            steps["onnxruntime"] = OrtStep(ort, w, np.zeros_like(k_np), np.zeros_like(v_np))
        mismatches = {name: 0 for name in steps}
        for p in range(position + 1):          # the fill, then the measured step once
            inputs = inputs_for(live, p, fed)
            out = {name: step(*inputs) for name, step in steps.items()}
            for name, tokens in out.items():
                mismatches[name] += int(np.count_nonzero(tokens[:live, 0] != out["served"][:live, 0]))
        inputs = inputs_for(live, position, fed)
        calls = {name: (lambda step=step: step(*inputs)) for name, step in steps.items() if name != "traced"}
        times = {name: [] for name in calls}
        per_round = max(1, args.steps // args.rounds)
        for call in calls.values():            # warm-up
            for _ in range(args.warmup):
                call()
        for _ in range(args.rounds):
            for name, call in calls.items():
                timed(call, times[name], per_round)
        # Traced steps: the trace read after each (not timed).
        traced_times, task_sums, task_counts, kernels = [], [], [], {}
        for _ in range(args.warmup):
            steps["traced"](*inputs)
        for _ in range(max(10, args.steps // 4)):
            timed(lambda: steps["traced"](*inputs), traced_times, 1)
            count, total, by_kernel = trace_tasks(trace_path)
            task_counts.append(count)
            task_sums.append(total)
            for kernel, (n, us) in by_kernel.items():
                kernels.setdefault(kernel, []).append((n, us))
        # The tokens of the measured step, once more.
        final = {name: step(*inputs) for name, step in steps.items()}
        for name, tokens in final.items():
            mismatches[name] += int(np.count_nonzero(tokens[:live, 0] != final["served"][:live, 0]))
        result = {
            "step": {name: statistics.median(t) for name, t in times.items()},
            "traced": statistics.median(traced_times),
            "tasks": statistics.median(task_counts),
            "task_us": statistics.median(task_sums),
            "kernels": {k: (statistics.median(n for n, _ in v), statistics.median(us for _, us in v))
                        for k, v in kernels.items()},
            "mismatches": mismatches,
            "compared": live * (position + 2),
        }
        if (live, position) == PROFILED:
            result["profile"] = profile_step(moe, sessions["one worker"], programs["one worker"], inputs, args)
        return result
    finally:
        for session in sessions.values():
            session.close()


def profile_step(moe, session, program, inputs, args):
    """The one-worker step's Python side against `Compiled.run` alone (a
    prepared call of the same compiled workload on the session's arrays),
    and a cProfile of `session.decode`."""
    compiled = program.steps["decode"]
    state = {name: session._host[name] for name in program.routine.state}   # the session's own arrays
    tokens, positions, lens, table = inputs
    prepared = compiled.prepare(tokens, positions, lens, table, **state)
    # The argument checks a session step makes (`CompiledKernel._arguments`: each tensor's checks, the
    # pairwise overlap test), alone; an internal, so skipped if it changed.
    bound = dict(zip(("tokens", "positions", "lens", "block_table"), inputs), **state)
    check = getattr(compiled, "_arguments", None)
    try:
        check(bound, None)
    except Exception:
        check = None
    step_times, run_times, check_times = [], [], []
    for _ in range(args.warmup):
        session.decode(*inputs)
        prepared()
    for _ in range(args.rounds):
        timed(lambda: session.decode(*inputs), step_times, max(1, args.steps // args.rounds))
        timed(prepared, run_times, max(1, args.steps // args.rounds))
        if check is not None:
            timed(lambda: check(bound, None), check_times, max(1, args.steps // args.rounds))
    profiler = cProfile.Profile()
    calls = max(50, args.steps // 2)
    profiler.enable()
    for _ in range(calls):
        session.decode(*inputs)
    profiler.disable()
    stats = pstats.Stats(profiler)
    rows = []
    total = 0.0
    for (file, line, function), (_, ncalls, tottime, cumtime, _) in stats.stats.items():
        total += tottime
        where = function if file == "~" else f"{pathlib.Path(file).name}:{line}({function})"
        rows.append((tottime / calls * 1e6, ncalls / calls, where))
    rows.sort(reverse=True)
    return {"step": statistics.median(step_times), "run": statistics.median(run_times),
            "checks": statistics.median(check_times) if check_times else None,
            "profiled": total / calls * 1e6, "top": rows[:args.profile_rows]}


# --------------------------------------------------------------------------- output

def fmt(us):
    return f"{us:.0f}" if us >= 100 else f"{us:.1f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600, help="timed steps per implementation and case (median)")
    parser.add_argument("--rounds", type=int, default=6, help="rounds the implementations alternate in")
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--profile-rows", type=int, default=12)
    args = parser.parse_args()
    try:
        import onnxruntime as ort
    except ImportError:
        ort = None
    # The trace is rewritten every traced step: on tmpfs when there is one, since on ext4 opening
    # the file again with O_TRUNC flushes the previous contents (auto_da_alloc), milliseconds under
    # the disk traffic of other builds, which would be counted in the traced step.
    shm = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    directory = tempfile.mkdtemp(prefix="htp-serving-bench-", dir=shm)
    trace_path = os.path.join(directory, "trace.json")
    print(f"{len(os.sched_getaffinity(0))} cores; htp {pathlib.Path(htp.__file__).parent}; {LAYERS} layers, "
          f"{SLOTS} slots, pool {POOL} pages; median of {args.steps} steps per implementation "
          f"({args.rounds} alternating rounds, {args.warmup} warm-up steps); trace file in {directory}; "
          f"load average before: {load()}")
    if ort is None:
        print(f"\nonnxruntime is not installed: its columns are empty (install it with `{INSTALL_ORT}`)")
    else:
        print(f"onnxruntime {ort.__version__} (CPUExecutionProvider, default session options)")
    results = {}
    started = time.perf_counter()
    for moe in (False, True):
        w = weights.make(layers=LAYERS, moe=moe)
        step = model.decode_step_moe if moe else model.decode_step
        state = decode.routine(moe).state
        programs = {
            "served": decode.routine(moe).compile("cpu"),
            "one worker": serving.routine(state=state, decode=wsp.schedule(step, workers=1)).compile("cpu"),
            "traced": serving.routine(state=state,
                                      decode=wsp.schedule(step, workers=1, trace=trace_path)).compile("cpu"),
        }
        for live, position in CASES:
            results[moe, live, position] = measure_case(moe, live, position, programs, w, ort, args, trace_path)
    elapsed = time.perf_counter() - started
    name = {False: "dense", True: "MoE"}
    keys = [(moe, live, position) for moe in (False, True) for live, position in CASES]

    print("\n### Step time (untraced), and steps per second\n")
    print("| model | live slots | position | routine as served (2 workers) | steps/s | routine, 1 worker | steps/s |")
    print("|---|---|---|---|---|---|---|")
    for key in keys:
        r = results[key]["step"]
        print(f"| {name[key[0]]} | {key[1]} | {key[2]} | {fmt(r['served'])} µs | {1e6 / r['served']:.0f} "
              f"| {fmt(r['one worker'])} µs | {1e6 / r['one worker']:.0f} |")

    print(f"\n### Host overhead per step (target {TARGET_FIXED_US:.0f} µs + {TARGET_PER_TASK_US:.0f} µs per task)\n")
    print("| model | live slots | position | tasks/step | Σ task µs (traced) | step µs (1 worker, untraced) "
          "| overhead µs | target µs | met | traced step µs | traced step − Σ tasks |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in keys:
        r = results[key]
        step = r["step"]["one worker"]
        overhead = step - r["task_us"]
        target = TARGET_FIXED_US + TARGET_PER_TASK_US * r["tasks"]
        print(f"| {name[key[0]]} | {key[1]} | {key[2]} | {r['tasks']:.0f} | {fmt(r['task_us'])} | {fmt(step)} "
              f"| {fmt(overhead)} | {target:.0f} | {'met' if overhead <= target else 'missed'} "
              f"| {fmt(r['traced'])} | {fmt(r['traced'] - r['task_us'])} |")

    print("\n### Against numpy (`reference.batched_step`) and onnxruntime, same inputs, same run\n")
    print("| model | live slots | position | routine steps/s | numpy µs | numpy steps/s | routine ÷ numpy "
          "| onnxruntime µs | onnxruntime steps/s | routine ÷ onnxruntime | tokens equal (numpy / onnxruntime) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in keys:
        r = results[key]
        served, numpy_us = r["step"]["served"], r["step"]["numpy"]
        bad = r["mismatches"]
        equal = lambda n: ("n/a" if n not in bad else "yes" if bad[n] == 0 else f"NO ({bad[n]} of {r['compared']})")
        if "onnxruntime" in r["step"]:
            ort_us = r["step"]["onnxruntime"]
            ort_cells = f"{fmt(ort_us)} | {1e6 / ort_us:.0f} | {ort_us / served:.2f}"
        elif ort is None:
            ort_cells = "not installed | — | —"
        else:
            ort_cells = "— (dense only) | — | —"
        print(f"| {name[key[0]]} | {key[1]} | {key[2]} | {1e6 / served:.0f} | {fmt(numpy_us)} | {1e6 / numpy_us:.0f} "
              f"| {numpy_us / served:.2f} | {ort_cells} | {equal('numpy')} / {equal('onnxruntime')} |")
    wrong = {key: {n: c for n, c in r["mismatches"].items() if c} for key, r in results.items()}
    wrong = {key: v for key, v in wrong.items() if v}
    print(f"\nTokens compared per case: every live slot's, at every fill step and at the measured step "
          f"(the 1-worker and traced sessions too): {'all equal' if not wrong else f'DIFFERENT: {wrong}'}.")

    for moe in (False, True):
        r = results[(moe, *PROFILED)]
        p = r["profile"]
        live, position = PROFILED
        print(f"\n### Where the step goes: {name[moe]}, {live} live slots at position {position}, 1 worker\n")
        python_side = p["step"] - p["run"]
        rust_host = p["run"] - r["task_us"]
        print("| part | µs | share |")
        print("|---|---|---|")
        python_part = f"Python side of session.decode (its {fmt(p['step'])} µs − a prepared call's {fmt(p['run'])} µs)"
        for part, us in ((python_part, python_side),
                         ("Rust host side of Compiled.run (prepared call − Σ tasks)", rust_host),
                         (f"tasks ({r['tasks']:.0f}, from the trace)", r["task_us"])):
            print(f"| {part} | {fmt(us)} | {us / p['step']:.0%} |")
            if part.startswith("Python") and p["checks"] is not None:
                print(f"| … of which the argument checks (`_arguments`: per-tensor checks, pairwise overlap test), "
                      f"timed alone | {fmt(p['checks'])} | {p['checks'] / p['step']:.0%} |")
        print("\n| kernel | tasks | Σ µs | share of task time |")
        print("|---|---|---|---|")
        for kernel, (n, us) in sorted(r["kernels"].items(), key=lambda kv: -kv[1][1]):
            print(f"| {kernel} | {n:.0f} | {fmt(us)} | {us / r['task_us']:.0%} |")
        print(f"\ncProfile of session.decode (own time per step; profiled step {fmt(p['profiled'])} µs, "
              f"cProfile inflates the Python side):\n")
        print("| own µs/step | calls/step | function |")
        print("|---|---|---|")
        for us, ncalls, where in p["top"]:
            print(f"| {fmt(us)} | {ncalls:g} | `{where}` |")
    shutil.rmtree(directory, ignore_errors=True)
    print(f"\nload average after: {load()}; {elapsed:.0f} s")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
