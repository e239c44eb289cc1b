"""Layer normalisation for the AIE targets over an [N x 256] f32 matrix in
8-row blocks, with a separate 1-D weight and bias (each [256], read whole by
every core: one broadcast FIFO carries both). The row statistics are row
sums on the vector unit; the normalised rows are scaled and shifted on it.

Runs on the CPU target and in HTP's functional AIE simulator (aie-sim, the
design's cores and FIFOs) against numpy, and writes the AIE package
(docs/targets/aie.md).
"""

import sys

import numpy as np

import htp
from htp import f32


@htp.kernel
def layernorm(x: htp.Tensor[f32, "N", 256], w: htp.Tensor[f32, 256], b: htp.Tensor[f32, 256], y: htp.Out[f32, "N", 256],
              N: htp.Const[int] = 128):
    for i in range(0, N, 8):
        t = x[i:i + 8, :]
        mean = htp.row_sum(t) * (1.0 / 256)
        d = t - mean
        rstd = htp.rsqrt(htp.row_sum(d * d) * (1.0 / 256) + 1e-5)
        y[i:i + 8, :] = d * rstd * w[:] + b[:]


def operands(rows=128, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((rows, 256), dtype=np.float32) * 3 + 1, rng.standard_normal(256, dtype=np.float32),
            rng.standard_normal(256, dtype=np.float32))


def reference(x, w, b):
    t = x.astype(np.float64)
    d = t - t.mean(axis=1, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5) * w + b


def main(package=None):
    x, w, b = operands()
    expected = reference(x, w, b)
    print(f"layernorm [128 x 256] f32 on cpu: max abs error vs numpy = {np.abs(layernorm(x, w, b) - expected).max():.3e}")
    simulated = layernorm.compile(target="aie-sim")(x, w, b)
    print(f"layernorm on aie-sim: max abs error vs numpy = {np.abs(simulated - expected).max():.3e}")
    compiled = layernorm.compile(target="aie-npu1")
    print(f"aie-npu1 design: {compiled.ir['aie'].count('aie.core(')} cores")
    if package:
        print("package:", compiled.write_package(package))


if __name__ == "__main__":
    main(*sys.argv[1:])
