"""First-call latency of each example kernel from Python, in a warm process:
the time of `kernel(*arrays)` when it is not compiled yet (front end, HTP
and MLIR passes, LLVM code generation, argument checks, one run), then the
time of a second call (already compiled: checks and run only).

Run: python3 benches/first_call.py   (after scripts/install-python)
"""

import importlib.util
import pathlib
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


def main():
    rng = np.random.default_rng(0)
    warm = load("vector_add")  # make the process warm: imports, MLIR registration
    args, kwargs = inputs("vector_add", rng)
    warm.vector_add(*args, **kwargs)
    print(f"{'example':<16} {'first call':>11} {'second call':>12}")
    for name in ["vector_add", "softmax", "rmsnorm", "gemm", "flash_attention"]:
        kernel = getattr(load(name), name)  # a fresh Kernel: nothing cached
        args, kwargs = inputs(name, rng)
        start = time.perf_counter()
        kernel(*args, **kwargs)
        first = time.perf_counter() - start
        start = time.perf_counter()
        kernel(*args, **kwargs)
        second = time.perf_counter() - start
        print(f"{name:<16} {first * 1e3:>8.1f} ms {second * 1e3:>9.2f} ms")


if __name__ == "__main__":
    main()
