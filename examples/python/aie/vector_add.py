"""Vector add for the AIE targets: c = a + b over an [N x 256] f32 matrix in
8-row blocks, N a compile-time constant (an mlir-aie design needs static
shapes). On aie-npu1 the blocks go to 2 compute tiles in each of its 4
columns (two inputs and an output fill a memtile's DMA channels at 2 cores).

Runs on the CPU target and in HTP's functional AIE simulator (aie-sim, the
design's cores and FIFOs) against numpy, and writes the AIE package
(docs/targets/aie.md).
"""

import sys

import numpy as np

import htp
from htp import f32


@htp.kernel
def vector_add(a: htp.Tensor[f32, "N", 256], b: htp.Tensor[f32, "N", 256], c: htp.Out[f32, "N", 256],
               N: htp.Const[int] = 1024):
    for i in range(0, N, 8):
        c[i:i + 8, :] = a[i:i + 8, :] + b[i:i + 8, :]


def main(package=None):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1024, 256), dtype=np.float32)
    b = rng.standard_normal((1024, 256), dtype=np.float32)
    c = vector_add(a, b)
    print(f"vector_add [1024 x 256] f32 on cpu: max abs error vs numpy = {np.abs(c - (a + b)).max():.3e}")
    simulated = vector_add.compile(target="aie-sim")(a, b)
    print(f"vector_add on aie-sim: max abs error vs numpy = {np.abs(simulated - (a + b)).max():.3e}")
    compiled = vector_add.compile(target="aie-npu1")
    print(f"aie-npu1 design: {compiled.ir['aie'].count('aie.core(')} cores")
    if package:
        print("package:", compiled.write_package(package))


if __name__ == "__main__":
    main(*sys.argv[1:])
