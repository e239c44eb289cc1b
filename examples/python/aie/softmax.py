"""Row softmax for the AIE targets over an [N x 256] f32 matrix in 8-row
blocks: one input and one output, so the blocks spread over the 4 compute
tiles of a column. exp(t - max) is a temporary on each core's stack.

Runs on the CPU target and in HTP's functional AIE simulator (aie-sim, the
design's cores and FIFOs) against numpy, and writes the AIE package
(docs/targets/aie.md).
"""

import sys

import numpy as np

import htp
from htp import f32


@htp.kernel
def softmax(x: htp.Tensor[f32, "N", 256], y: htp.Out[f32, "N", 256], N: htp.Const[int] = 128):
    for i in range(0, N, 8):
        t = x[i:i + 8, :]
        e = htp.exp(t - htp.row_max(t))
        y[i:i + 8, :] = e / htp.row_sum(e)


def reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main(package=None):
    x = np.random.default_rng(0).standard_normal((128, 256), dtype=np.float32) * 4
    y = softmax(x)
    print(f"softmax [128 x 256] f32 on cpu: max abs error vs numpy = {np.abs(y - reference(x)).max():.3e}")
    simulated = softmax.compile(target="aie-sim")(x)
    print(f"softmax on aie-sim: max abs error vs numpy = {np.abs(simulated - reference(x)).max():.3e}")
    compiled = softmax.compile(target="aie-npu1")
    print(f"aie-npu1 design: {compiled.ir['aie'].count('aie.core(')} cores")
    if package:
        print("package:", compiled.write_package(package))


if __name__ == "__main__":
    main(*sys.argv[1:])
