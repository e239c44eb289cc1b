"""CSP on the cpu: a pipeline's throughput against its slowest stage run
alone, measured in the same run (not a test: nothing here asserts speed).

The pipeline is examples/python/csp/rmsnorm_pipeline.py (loader -> computer
-> storer, depth 2) over [N x 512] f32. "The slowest stage alone" is the
computer's work with nothing to overlap: one process that loads each block,
normalises it and stores it (the same tiles, the same code, no channel).
A pipeline within 10% of it hides the loader's and the storer's work behind
the computer's. The serial program is also the pipeline's stages one after
another in one process, so the ratio is the overlap's gain too.

With --trace PNG the pipeline runs once more with HTP_CSP_TRACE set and its
timeline (one lane per process, a bar while it computes, a gap while it
waits) is drawn to PNG (docs/csp.md shows one).

Run: python3 benches/csp.py [--rows N] [--runs R] [--trace docs/images/csp-rmsnorm-pipeline.png]
The channel hand-over against crossbeam: cargo bench -p htp-runtime --bench csp_channel
"""

import argparse
import importlib.util
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

import htp
from htp import f32

csp = htp.model("csp")
ROOT = Path(__file__).resolve().parents[1]


@csp.program
def rmsnorm_serial(x: htp.Tensor[f32, "N", "H"], w: htp.Tensor[f32, 1, "H"], y: htp.Out[f32, "N", "H"],
                   eps: f32, H: htp.Const[int] = 512):
    with csp.process(name="alone"):
        weight = w[0:1, :]
        for i in range(0, x.shape[0], 8):
            t = htp.pad(x[i:i + 8, :], 0.0)
            scale = htp.rsqrt(htp.row_sum(t * t) * (1.0 / H) + eps)
            y[i:i + 8, :] = t * scale * weight


def load_example():
    path = ROOT / "examples" / "python" / "csp" / "rmsnorm_pipeline.py"
    spec = importlib.util.spec_from_file_location("csp_rmsnorm_pipeline", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def median_seconds(call, runs):
    call()  # compile and warm
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=65536)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--trace", default=None, help="draw the pipeline's timeline to this PNG")
    args = parser.parse_args()
    m = load_example()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.rows, 512), dtype=np.float32)
    w = rng.standard_normal((1, 512), dtype=np.float32)
    y = np.empty_like(x)
    pipeline = median_seconds(lambda: m.rmsnorm_pipeline(x, w, y, eps=1e-6), args.runs)
    serial = median_seconds(lambda: rmsnorm_serial(x, w, y, eps=1e-6), args.runs)
    error = np.abs(m.rmsnorm_pipeline(x, w, y, eps=1e-6) - m.reference(x, w, 1e-6)).max()
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; [{args.rows} x 512] f32, "
          f"median of {args.runs}; max abs error vs numpy {error:.1e}\n")
    print("| program | ms | GB/s (x read + y written) | vs the slowest stage alone |")
    print("|---|---|---|---|")
    moved = 2 * x.nbytes
    for name, seconds in [("pipeline: loader -> computer -> storer, depth 2", pipeline),
                          ("the computer's work alone (one process, no channels)", serial)]:
        print(f"| {name} | {seconds * 1e3:.2f} | {moved / seconds / 1e9:.2f} | {seconds / serial:.2f}x |")
    if args.trace:
        with tempfile.TemporaryDirectory() as scratch:
            trace = os.path.join(scratch, "trace.json")
            small = x[:2048]
            os.environ["HTP_CSP_TRACE"] = trace
            try:
                m.rmsnorm_pipeline(small, w, np.empty_like(small), eps=1e-6)
            finally:
                del os.environ["HTP_CSP_TRACE"]
            from htp.trace_plot import draw_timeline

            png = draw_timeline(trace, args.trace, title="rmsnorm_pipeline [2048 x 512]: busy spans per process (gaps: waiting on a channel)")
            print(f"\ntimeline: {png}")


if __name__ == "__main__":
    main()
