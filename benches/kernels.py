"""HTP's CPU kernels against numpy, side by side in one process: the
examples at sizes where time is dominated by the kernel, outputs
preallocated, median of RUNS calls each (HTP's and numpy's alternating),
with the ratio HTP / numpy (time; below 1 means HTP is faster) and HTP's
rate. The numpy references are numpy's own vectorised code (and its BLAS
for matmul: f32, as numpy has no f16 GEMM), run with the same inputs.

Run: python3 benches/kernels.py [--runs R] [--small] [--record]   (after scripts/install-python)

Then each figure against its goal (issue 31) and against the value last recorded
(`benches/kernels-recorded.json`, with the commit and load it was measured at): a figure worse than
the recorded one by more than 25% is flagged for a second run (two runs in a row on a quiet machine
differ by up to 50% on a ratio to numpy's multithreaded BLAS, by ~5% on one-thread figures); on a
machine with other work running (load above half the cores) the flag says so, since a loaded
machine halves a one-thread figure by itself.
`--record` stores this run's figures as the new reference (do it on a quiet machine).
"""

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import time
from pathlib import Path

# OpenBLAS's threads spin for up to 2^28 cycles after each call (its default thread timeout);
# alternating with numpy, HTP's pool would share the second core with a spinning thread (HTP's
# 2-thread GEMM: 19 ms alone, 34 ms right after numpy's). 2^4 cycles: they sleep at once. Read
# when OpenBLAS loads, so set before numpy is imported; a caller's own setting wins.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

import numpy as np  # noqa: E402

import htp  # noqa: E402
from htp import f32

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "python"
RECORDED = Path(__file__).resolve().with_name("kernels-recorded.json")

#: How much worse than recorded a figure must be to be flagged (see the docstring).
MARGIN = 1.25

#: figure -> (goal, whether higher is better): issue 31's goals for the cpu kernels.
GOALS = {
    "gemm 1024^3 f16->f32 (numpy: f32): one thread, of OpenBLAS's throughput": (0.80, True),
    "gemm 1024^3 f16->f32 (numpy: f32): speed-up, all cores / 1": (1.9, True),
    "attention 4x1024x64 f32: time / numpy's": (0.5, False),
}


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def timed(htp_call, numpy_call, runs):
    """Median seconds of `runs` calls of each, the two alternating (and
    which goes first too), so that a burst of other work on the machine
    cannot fall on one side of the ratio only (issue 31's 26% of OpenBLAS,
    from a run at load 3.5, was the machine: docs/performance.md, "CPU GEMM")."""
    calls = (htp_call, numpy_call)
    for call in calls:
        call()  # compile, warm caches
    samples = ([], [])
    for run in range(runs):
        for side in (0, 1) if run % 2 == 0 else (1, 0):
            start = time.perf_counter()
            calls[side]()
            samples[side].append(time.perf_counter() - start)
    return statistics.median(samples[0]), statistics.median(samples[1])


@htp.kernel
def softmax_1024(x: htp.Tensor[f32, "N", 1024], y: htp.Out[f32, "N", 1024]):
    """The softmax example's kernel over 1024 columns."""
    for i in range(0, x.shape[0], 8):
        t = x[i:i + 8, :]
        e = htp.exp(t - htp.row_max(t))
        y[i:i + 8, :] = e / htp.row_sum(e)


def cases(small):
    rng = np.random.default_rng(0)
    scale = 4 if small else 1

    rows = 65536 // scale
    a, b = rng.standard_normal((rows, 256), dtype=np.float32), rng.standard_normal((rows, 256), dtype=np.float32)
    c = np.empty_like(a)
    vector_add = load("vector_add").vector_add
    yield ("vector add %dx256 f32" % rows, lambda: vector_add(a, b, c), lambda: np.add(a, b, out=c), 3 * a.nbytes, "GB/s")

    x = rng.standard_normal((4096 // scale, 1024), dtype=np.float32)
    y = np.empty_like(x)
    def numpy_softmax():
        np.subtract(x, x.max(axis=1, keepdims=True), out=y)
        np.exp(y, out=y)
        np.divide(y, y.sum(axis=1, keepdims=True), out=y)

    yield ("softmax %dx1024 f32" % x.shape[0], lambda: softmax_1024(x, y), numpy_softmax, 2 * x.nbytes, "GB/s")

    n = 4096 // scale
    x = rng.standard_normal((n, 4096), dtype=np.float32)
    w = rng.standard_normal((1, 4096), dtype=np.float32)
    y = np.empty_like(x)
    rmsnorm = load("rmsnorm").rmsnorm

    def numpy_rmsnorm():
        np.multiply(x, 1.0 / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6), out=y)
        np.multiply(y, w, out=y)

    yield ("rmsnorm %dx4096 f32" % n, lambda: rmsnorm(x, w, y, eps=1e-6, H=4096), numpy_rmsnorm, 2 * x.nbytes, "GB/s")

    n = 1024 // (2 if small else 1)
    a16, b16 = rng.standard_normal((n, n)).astype(np.float16), rng.standard_normal((n, n)).astype(np.float16)
    a32, b32 = a16.astype(np.float32), b16.astype(np.float32)
    c = np.empty((n, n), np.float32)
    gemm = load("gemm").gemm
    yield ("gemm %d^3 f16->f32 (numpy: f32)" % n, lambda: gemm(a16, b16, c), lambda: np.matmul(a32, b32, out=c), 2 * n ** 3, "GFLOP/s")

    heads, seq = 4, 1024 // scale
    q, k, v = (rng.standard_normal((heads, seq, 64), dtype=np.float32) for _ in range(3))
    o = np.empty_like(q)
    flash = load("flash_attention").flash_attention

    def numpy_attention():
        s = np.matmul(q, k.transpose(0, 2, 1)) * 0.125
        np.subtract(s, s.max(axis=2, keepdims=True), out=s)
        np.exp(s, out=s)
        np.divide(s, s.sum(axis=2, keepdims=True), out=s)
        np.matmul(s, v, out=o)

    yield ("attention %dx%dx64 f32" % (heads, seq), lambda: flash(q, k, v, o, scale=0.125), numpy_attention, 4 * heads * seq * seq * 64, "GFLOP/s")


def one_thread(runs, small):
    """{kernel: (HTP seconds, numpy seconds)} for the matmul kernels with one
    thread each (HTP's pool and OpenBLAS), measured in a child process: both
    read their thread counts when they start."""
    import json
    import subprocess
    import sys

    env = dict(os.environ, HTP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    command = [sys.executable, __file__, "--child", "--runs", str(runs)] + (["--small"] if small else [])
    output = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


MATMUL_KERNELS = ("gemm", "attention")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--small", action="store_true", help="quarter-size inputs (a quick check)")
    parser.add_argument("--record", action="store_true", help="store this run's figures as the reference (a quiet machine)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        import json

        times = {}
        for name, htp_call, numpy_call, work, unit in cases(args.small):
            if name.startswith(MATMUL_KERNELS):
                times[name] = (*timed(htp_call, numpy_call, args.runs), work)
        print(json.dumps(times))
        return
    load = os.getloadavg()[0]
    figures = {}
    print(f"threads: HTP_NUM_THREADS={os.environ.get('HTP_NUM_THREADS', '(all cores)')}, load average {load:.2f}")
    print("| kernel | HTP | numpy | HTP / numpy (time) | HTP rate |")
    print("|---|---|---|---|---|")
    all_threads = {}
    for name, htp_call, numpy_call, work, unit in cases(args.small):
        t_htp, t_numpy = timed(htp_call, numpy_call, args.runs)
        all_threads[name] = t_htp
        figures[f"{name}: time / numpy's"] = t_htp / t_numpy
        rate = work / t_htp / 1e9
        print(f"| {name} | {t_htp * 1e3:.2f} ms | {t_numpy * 1e3:.2f} ms | {t_htp / t_numpy:.2f} | {rate:.1f} {unit} |")
    cores = os.cpu_count()
    print()
    print(f"Per core (one thread each: HTP_NUM_THREADS=1, OPENBLAS_NUM_THREADS=1; the speed-up is HTP's on {cores} cores):")
    print()
    print("| kernel | HTP, 1 thread | numpy (OpenBLAS), 1 thread | HTP throughput / OpenBLAS's | HTP speed-up, all cores / 1 |")
    print("|---|---|---|---|---|")
    for name, (t_htp, t_numpy, work) in one_thread(args.runs, args.small).items():
        print(f"| {name} | {t_htp * 1e3:.2f} ms ({work / t_htp / 1e9:.1f} GFLOP/s) | {t_numpy * 1e3:.2f} ms "
              f"({work / t_numpy / 1e9:.1f} GFLOP/s) | {t_numpy / t_htp:.0%} | {t_htp / all_threads[name]:.2f}x |")
        figures[f"{name}: one thread, of OpenBLAS's throughput"] = t_numpy / t_htp
        figures[f"{name}: speed-up, all cores / 1"] = t_htp / all_threads[name]
    compare(figures, load, cores, record=args.record)


def compare(figures, load, cores, record):
    """Each figure against its goal and the recorded one; `record`: store these as the reference."""
    recorded = json.loads(RECORDED.read_text()) if RECORDED.exists() else {"figures": {}}
    print()
    where = f"recorded at {recorded.get('commit', '?')[:10]}, load {recorded.get('load', '?')}" if recorded["figures"] else "none recorded"
    print(f"Figures against their goals and the last recorded ones ({where}; this run's load {load:.2f} on {cores} cores):")
    print()
    print("| figure | now | goal | recorded | |")
    print("|---|---|---|---|---|")
    loaded = load > cores / 2
    for name, value in figures.items():
        goal, higher = GOALS.get(name, (None, name.endswith(("throughput", "/ 1"))))
        before = recorded["figures"].get(name)
        notes = []
        if goal is not None:
            notes.append("goal met" if (value >= goal if higher else value <= goal) else "goal open")
        if before:
            worse = value < before / MARGIN if higher else value > before * MARGIN
            if worse:
                notes.append("**worse than recorded by > 25%: run again**" + (" (the machine is loaded: on a quiet one)" if loaded else ""))
        text = lambda v: "-" if v is None else f"{v:.2f}"
        print(f"| {name} | {value:.2f} | {text(goal)} | {text(before)} | {'; '.join(notes)} |")
    if record:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True).stdout.strip()
        RECORDED.write_text(json.dumps({"commit": commit, "date": time.strftime("%Y-%m-%d"), "load": round(load, 2),
                                        "figures": {k: round(v, 4) for k, v in figures.items()}}, indent=2) + "\n")
        print(f"\nrecorded in {RECORDED}")


if __name__ == "__main__":
    main()
