"""CSP programs as AIE dataflow designs (docs/csp.md, "CSP on AIE"): each
process that computes runs on a compute tile of its own (a core per
replica), each channel is an object FIFO of its depth between two tiles,
and a process that only loads or stores is the shim's DMA. Shapes are
htp.Const: an AIE design is static.

`gemm_silu`: a loader streams 16-row blocks of A to a GEMM tile, which
holds B whole (broadcast once) and hands each product block to a SiLU tile
through a core-to-core FIFO of depth 2 (the two tiles are neighbours, so
the FIFO lies in memory both reach); a storer drains the results.

`gelu_workers`: a scatter deals 16-row blocks of x round-robin to four
replicated GELU workers (an array of channels, one each) and a gather
collects their results in order: one shim transfer per worker's channel,
each visiting every fourth block.

Both run on the cpu (processes as threads) and in HTP's AIE simulator
(`aie-sim`: the design's cores as threads on its FIFOs), against numpy;
`aie-npu1` / `aie-npu2` write the design for mlir-aie.
"""

import sys

import numpy as np

import htp
from htp import f32

csp = htp.model("csp")


@csp.program
def gemm_silu(a: htp.Tensor[f32, "M", "K"], b: htp.Tensor[f32, "K", "N"], y: htp.Out[f32, "M", "N"],
              M: htp.Const[int] = 256, K: htp.Const[int] = 64, N: htp.Const[int] = 64):
    rows = csp.channel(f32, (16, K), depth=2, name="rows")
    products = csp.channel(f32, (16, N), depth=2, name="products")
    results = csp.channel(f32, (16, N), depth=2, name="results")
    with csp.process(name="loader"):
        for i in range(0, M, 16):
            csp.send(rows, a[i:i + 16, :])
    with csp.process(name="gemm"):
        for i in range(0, M, 16):
            csp.send(products, csp.recv(rows) @ b[0:K, :])
    with csp.process(name="silu"):
        for i in range(0, M, 16):
            with csp.consume(products) as p:
                csp.send(results, p / (1.0 + htp.exp(-p)))
    with csp.process(name="storer"):
        for i in range(0, M, 16):
            y[i:i + 16, :] = csp.recv(results)


@csp.program
def gelu_workers(x: htp.Tensor[f32, "R", 128], y: htp.Out[f32, "R", 128], R: htp.Const[int] = 512,
                 WORKERS: htp.Const[int] = 4):
    work = csp.channel(f32, (16, 128), depth=2, count=WORKERS, name="work")
    done = csp.channel(f32, (16, 128), depth=2, count=WORKERS, name="done")
    blocks = R // 16
    with csp.process(name="scatter"):
        for k in range(blocks):
            csp.send(work, x[k * 16:k * 16 + 16, :], at=k % WORKERS)
    for w in csp.processes(WORKERS, name="worker"):
        for k in range(w, blocks, WORKERS):
            t = csp.recv(work, at=w)
            inner = (t + t * t * t * 0.044715) * 0.7978845608
            tanh = 1.0 - 2.0 / (htp.exp(inner * 2.0) + 1.0)   # tanh(u) = 1 - 2 / (exp(2u) + 1)
            csp.send(done, t * 0.5 * (tanh + 1.0), at=w)
    with csp.process(name="gather"):
        for k in range(blocks):
            y[k * 16:k * 16 + 16, :] = csp.recv(done, at=k % WORKERS)


def gemm_silu_reference(a, b):
    p = a.astype(np.float64) @ b
    return p / (1.0 + np.exp(-p))


def gelu_reference(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def main(package=None):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 64), dtype=np.float32) * 0.2
    b = rng.standard_normal((64, 64), dtype=np.float32) * 0.2
    x = rng.standard_normal((512, 128), dtype=np.float32)
    for target in ("cpu", "aie-sim"):
        y = gemm_silu.compile(target=target)(a, b)
        print(f"gemm_silu [256 x 64] @ [64 x 64] f32 on {target}: max abs error vs numpy = {np.abs(y - gemm_silu_reference(a, b)).max():.3e}")
        y = gelu_workers.compile(target=target)(x)
        print(f"gelu_workers [512 x 128] f32 over 4 workers on {target}: max abs error vs numpy = {np.abs(y - gelu_reference(x)).max():.3e}")
    for name, program, arguments in (("gemm_silu", gemm_silu, (a, b)), ("gelu_workers", gelu_workers, (x,))):
        design = program.compile(target="aie-npu1")
        metrics = design.metrics(*arguments)
        print(f"{name} on aie-npu1: {metrics['cores']:.0f} cores, {metrics['fifos']:.0f} FIFOs "
              f"({metrics['core_to_core_fifos']:.0f} core to core, {metrics['shared_memory_fifos']:.0f} in shared memory), "
              f"{metrics['fifo_objects']:.0f} objects, core memory {metrics['core_memory_bytes']:.0f} of {metrics['core_memory_capacity']:.0f} bytes")
        if package:
            print("package:", design.write_package(f"{package}/{name}"))


if __name__ == "__main__":
    main(*sys.argv[1:])
