"""Compile time against program size: a kernel that is a chain of N
elementwise statements, compiled fresh (a new kernel each time, so nothing
is cached) for each target; the median of RUNS compiles per size. Linear
compile time means the 1000-statement time is about 10x the 100-statement
one.

Run: python3 benches/compile_curve.py [--runs R] [--sizes 10,100,1000]
"""

import argparse
import importlib.util
import statistics
import tempfile
import time
from pathlib import Path

TARGETS = ["cpu", "pto-a2a3sim"]


def chain_source(name: str, statements: int) -> str:
    lines = [
        "import htp",
        "from htp import f32",
        "",
        "@htp.kernel",
        f"def {name}(x: htp.Tensor[f32, 'N', 64], y: htp.Out[f32, 'N', 64]):",
        "    for i in range(0, x.shape[0], 16):",
        "        t = x[i:i + 16, :]",
    ]
    ops = ["t = t * 1.5", "t = t + 0.25", "t = htp.exp(t)", "t = t - 1.0"]
    lines += [f"        {ops[k % len(ops)]}" for k in range(statements)]
    lines.append("        y[i:i + 16, :] = t")
    return "\n".join(lines) + "\n"


def load_kernel(directory: Path, name: str, statements: int):
    path = directory / f"{name}.py"
    path.write_text(chain_source(name, statements))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def measure(sizes, runs):
    """{(target, size): median seconds}"""
    results = {}
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        serial = 0
        for target in TARGETS:
            for size in sizes:
                samples = []
                for _ in range(runs):
                    serial += 1
                    kernel = load_kernel(directory, f"chain_{serial}", size)
                    start = time.perf_counter()
                    kernel.compile(target)
                    samples.append(time.perf_counter() - start)
                results[(target, size)] = statistics.median(samples)
    return results


def table(results, sizes):
    lines = ["| target | " + " | ".join(f"{n} stmts" for n in sizes) + " | ratio last/previous |", "|---" * (len(sizes) + 2) + "|"]
    for target in TARGETS:
        times = [results[(target, n)] for n in sizes]
        ratio = times[-1] / times[-2] if len(times) > 1 else float("nan")
        lines.append(f"| {target} | " + " | ".join(f"{t * 1e3:.1f} ms" for t in times) + f" | {ratio:.1f}x |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="10,100,1000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(table(measure(sizes, args.runs), sizes))


if __name__ == "__main__":
    main()
