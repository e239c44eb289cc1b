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

With --pto it prints, instead, what the PTO realisations cost per item
(static, from the compiled packages; no simulator needed): for the CSP
programs that run as one cluster task (attention, GEMM + epilogue) the
tasks, the pipe's ring (its footprint, and the bytes that go through it)
and the GM bytes; for the task-level pipe (examples/python/wsp/megakernel.py)
the tasks per block and its channels' rings.

With --aie it prints the static metrics of the AIE designs of
examples/python/csp/dataflow_on_aie.py (cores, FIFOs core to core and in
shared memory, FIFO objects, the worst core's memory, locks and DMA buffer
descriptors) for aie-npu1 and aie-npu2.

Run: python3 benches/csp.py [--rows N] [--runs R] [--trace docs/images/csp-rmsnorm-pipeline.png] [--pto] [--aie]
The channel hand-over against crossbeam: cargo bench -p htp-runtime --bench csp_channel
"""

import argparse
import importlib.util
import os
import re
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


def load(folder, name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "examples" / "python" / folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ring_footprint(package):
    """Bytes of a cluster task's GM ring: its kernels' pto.fifo (slot bytes x slots per direction)."""
    text = (Path(package) / "ir" / "pto.mlir").read_text()
    match = re.search(r"pto\.fifo = array<i64: (\d+), (\d+), (\d+)(?:, (\d+), (\d+))?>", text)
    if not match:
        return 0
    _, c2v, v2c, c2v_slots, v2c_slots = (int(g) if g else 2 for g in match.groups())
    return c2v * c2v_slots + v2c * v2c_slots


def pto_numbers():
    print("| program (PTO) | items | tasks per item | ring footprint (bytes) | ring bytes per item | GM bytes per item |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        attention = load("csp", "attention")
        q = np.zeros((1024, 64), np.float32)
        gemm = load("csp", "gemm_epilogue")
        a, b, bias = np.zeros((512, 256), np.float32), np.zeros((256, 512), np.float32), np.zeros((1, 512), np.float32)
        y = np.zeros((512, 512), np.float32)
        for label, program, arguments, items in [
            ("CSP attention [1024 x 64], one cluster; item: a (16-query, 32-key) block pair", attention.attention, (q, q, q, q, 0.125), (1024 // 16) * (1024 // 32)),
            ("CSP gemm_epilogue [512 x 256] @ [256 x 512]; item: a 32 x 64 block", gemm.gemm_epilogue, (a, b, bias, y), (512 // 32) * (512 // 64)),
        ]:
            compiled = program.compile(target="pto-a2a3sim")
            metrics = compiled.metrics(*arguments)
            package = compiled.write_package(os.path.join(scratch, program.name))
            gm = metrics["gm_read_bytes"] + metrics["gm_write_bytes"]
            print(f"| {label} | {items} | {metrics['tasks'] / items:.4f} | {ring_footprint(package)} | {metrics['ring_bytes'] / items:.0f} | {gm / items:.0f} |")
        mega = load("wsp", "megakernel")
        package = mega.megakernel.compile(target="pto-a2a3sim").write_package(os.path.join(scratch, "megakernel"))
        text = (Path(package) / "ir" / "tile.mlir").read_text()
        rings = re.findall(r'wsp\.channel "[^"]*" : memref<([0-9x]+)x(f32|f16|bf16|i32)>', text)
        width = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4}
        sizes = [([int(d) for d in dims.split("x")], width[t]) for dims, t in rings]
        footprint = sum(int(np.prod(dims)) * bytes_ for dims, bytes_ in sizes)
        # Each block goes into and out of every ring once: twice a slot's bytes per channel.
        through = sum(2 * int(np.prod(dims[1:])) * bytes_ for dims, bytes_ in sizes)
        block = int(np.prod(sizes[0][0][1:])) * sizes[0][1]
        tasks = text.count("wsp.task @")
        print(f"| WSP pipe megakernel [N x 128]; item: a 16-row block | N / 16 | {tasks} (one per process) | {footprint} ({len(rings)} channels) | "
              f"{through} | {3 * block} (x and r read, out written) |")


def aie_numbers():
    print("| design | target | cores | FIFOs (core to core, shared memory) | FIFO objects | worst core's memory (bytes of 65536) | locks | DMA descriptors | shim bytes in / out |")
    print("|---|---|---|---|---|---|---|---|---|")
    dataflow = load("csp", "dataflow_on_aie")
    a, b = np.zeros((256, 64), np.float32), np.zeros((64, 64), np.float32)
    x = np.zeros((512, 128), np.float32)
    for label, program, arguments in [
        ("gemm_silu [256 x 64] @ [64 x 64]: loader -> GEMM tile -> SiLU tile -> storer", dataflow.gemm_silu, (a, b)),
        ("gelu_workers [512 x 128]: scatter -> 4 workers -> gather", dataflow.gelu_workers, (x,)),
    ]:
        for target in ("aie-npu1", "aie-npu2"):
            m = program.compile(target=target).metrics(*arguments)
            print(f"| {label} | {target} | {m['cores']:.0f} | {m['fifos']:.0f} ({m['core_to_core_fifos']:.0f}, {m['shared_memory_fifos']:.0f}) | "
                  f"{m['fifo_objects']:.0f} | {m['core_memory_bytes']:.0f} | {m['core_locks']:.0f} | {m['core_dma_descriptors']:.0f} | "
                  f"{m['shim_bytes_in']:.0f} / {m['shim_bytes_out']:.0f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=65536)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--trace", default=None, help="draw the pipeline's timeline to this PNG")
    parser.add_argument("--pto", action="store_true", help="print what the PTO realisations cost per item instead")
    parser.add_argument("--aie", action="store_true", help="print the static metrics of the AIE designs instead")
    args = parser.parse_args()
    if args.pto:
        pto_numbers()
        return
    if args.aie:
        aie_numbers()
        return
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
