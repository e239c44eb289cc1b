"""First-call latency of each example kernel from Python on the cpu: the
time of `kernel(*arrays)` when it is not compiled yet (front end, HTP and
MLIR passes, LLVM code generation, argument checks, one run), in a warm
process (imports done, another kernel compiled before) and in a cold one (a
new process per run, only the imports before; the CPU's JIT code is not
cached across processes), then the time of a second call (already
compiled: checks and run only). The cold figure is issue 31's, printed
against its goal where it has one.

Run: python3 benches/first_call.py   (after scripts/install-python)
"""

import importlib.util
import pathlib
import statistics
import subprocess
import sys
import time

import numpy as np

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples" / "python"


def load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def inputs(name, rng):
    f32 = np.float32
    if name == "vector_add":
        return (rng.standard_normal((1000, 256), dtype=f32),) * 2, {}
    if name == "softmax":
        return (rng.standard_normal((1000, 256), dtype=f32),), {}
    if name == "rmsnorm":
        return (rng.standard_normal((96, 1024), dtype=f32), rng.standard_normal((1, 1024), dtype=f32)), {"eps": 1e-6}
    if name == "gemm":
        return (rng.standard_normal((256, 512)).astype(np.float16), rng.standard_normal((512, 128)).astype(np.float16)), {}
    q = rng.standard_normal((2, 128, 64), dtype=f32)
    return (q, q, q), {"scale": 0.125}


EXAMPLE_NAMES = ["vector_add", "softmax", "rmsnorm", "gemm", "flash_attention"]
# Issue 31's goals for the cold first call, in ms.
GOALS = {"vector_add": 30.0, "flash_attention": 120.0}
COLD_RUNS = 3


def first_and_second(name, rng):
    """The first and second call of a fresh Kernel of example `name`, in s."""
    kernel = getattr(load(name), name)  # a fresh Kernel: nothing cached
    args, kwargs = inputs(name, rng)
    start = time.perf_counter()
    kernel(*args, **kwargs)
    first = time.perf_counter() - start
    start = time.perf_counter()
    kernel(*args, **kwargs)
    return first, time.perf_counter() - start


def cold_first_call(name):
    """The first call of `name` in a new process, in s (the median of COLD_RUNS)."""
    runs = [float(subprocess.run([sys.executable, __file__, "--cold", name], check=True, capture_output=True, text=True).stdout.split()[-1])
            for _ in range(COLD_RUNS)]
    return statistics.median(runs)


def main():
    if sys.argv[1:2] == ["--cold"]:
        print(first_and_second(sys.argv[2], np.random.default_rng(0))[0])
        return
    rng = np.random.default_rng(0)
    first_and_second("vector_add", rng)  # make the process warm: MLIR registration, a compile
    print(f"{'example':<16} {'first call, warm':>16} {'first call, cold':>16} {'goal (cold)':>12} {'second call':>12}")
    for name in EXAMPLE_NAMES:
        first, second = first_and_second(name, rng)
        cold = cold_first_call(name)
        goal = f"{GOALS[name]:.0f} ms" if name in GOALS else "-"
        missed = " (missed)" if name in GOALS and cold * 1e3 > GOALS[name] else ""
        print(f"{name:<16} {first * 1e3:>13.1f} ms {cold * 1e3:>13.1f} ms {goal:>12} {second * 1e3:>9.2f} ms{missed}")


if __name__ == "__main__":
    main()
