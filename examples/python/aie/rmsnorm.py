"""RMSNorm for the AIE targets over an [N x H] f32 matrix in 4-row blocks,
each block's rows whole (H = 512): the weights `w` are read whole by every
block, so the design broadcasts them once to every core.

    y[i, :] = x[i, :] / sqrt(mean(x[i, :]^2) + 1e-6) * w

Runs on the CPU target and in HTP's functional AIE simulator (aie-sim, the
design's cores and FIFOs) against numpy, and writes the AIE package
(docs/targets/aie.md).
"""

import sys

import numpy as np

import htp
from htp import f32


@htp.kernel
def rmsnorm(x: htp.Tensor[f32, "N", "H"], w: htp.Tensor[f32, 1, "H"], y: htp.Out[f32, "N", "H"],
            N: htp.Const[int] = 256, H: htp.Const[int] = 512):
    for i in range(0, N, 4):
        t = x[i:i + 4, :]
        scale = htp.rsqrt(htp.row_sum(t * t) * (1.0 / H) + 1e-6)
        y[i:i + 4, :] = t * scale * w[0:1, :]


def reference(x, w):
    return x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + 1e-6) * w


def main(package=None):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 512), dtype=np.float32)
    w = rng.standard_normal((1, 512), dtype=np.float32)
    y = rmsnorm(x, w)
    print(f"rmsnorm [256 x 512] f32 on cpu: max abs error vs numpy = {np.abs(y - reference(x, w)).max():.3e}")
    simulated = rmsnorm.compile(target="aie-sim")(x, w)
    print(f"rmsnorm on aie-sim: max abs error vs numpy = {np.abs(simulated - reference(x, w)).max():.3e}")
    compiled = rmsnorm.compile(target="aie-npu2")
    print(f"aie-npu2 design: {compiled.ir['aie'].count('aie.core(')} cores")
    if package:
        print("package:", compiled.write_package(package))


if __name__ == "__main__":
    main(*sys.argv[1:])
