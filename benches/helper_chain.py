"""Compile time against the length of a chain of `@htp.func` helpers (issue
21): helper i calls helper i - 1, the kernel calls the last one. Near-linear
compile time means 15000 helpers take about 15x what 1000 take. Prints, per
size, the seconds of the first call (import excluded) and of a second call
(the cache hit: the dependency walk of the cache key).

Run: python3 benches/helper_chain.py [--sizes 1000,3000,15000] [--target cpu]
"""

import argparse
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def chain_source(helpers: int) -> str:
    lines = ["import htp", "from htp import f32", "", "@htp.func", "def h0(t):", "    return t + 1.0", ""]
    for i in range(1, helpers):
        lines += ["@htp.func", f"def h{i}(t):", f"    return h{i - 1}(t)", ""]
    lines += ["@htp.kernel", "def k(x: htp.Tensor[f32, 16, 16], y: htp.Out[f32, 16, 16]):",
              f"    y[:, :] = h{helpers - 1}(x[:, :])", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,3000,15000")
    parser.add_argument("--target", default="cpu")
    options = parser.parse_args()
    sys.setrecursionlimit(100_000)
    with tempfile.TemporaryDirectory() as folder:
        for size in map(int, options.sizes.split(",")):
            path = Path(folder) / f"chain{size}.py"
            path.write_text(chain_source(size))
            spec = importlib.util.spec_from_file_location(f"chain{size}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            x = np.zeros((16, 16), np.float32)
            start = time.perf_counter()
            compiled = module.k.compile(options.target)
            first = time.perf_counter() - start
            start = time.perf_counter()
            y = module.k(x) if options.target == "cpu" else module.k.compile(options.target)
            again = time.perf_counter() - start
            if options.target == "cpu":
                assert (y == 1.0).all()
            print(f"{size:6d} helpers: compile {first:8.2f} s, cached call {again * 1000:8.2f} ms", flush=True)


if __name__ == "__main__":
    main()
