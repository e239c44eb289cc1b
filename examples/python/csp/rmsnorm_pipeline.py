"""A Loader -> Computer -> Storer megakernel: RMSNorm over a long [N x H]
f32 tensor as three CSP processes joined by channels of depth 2.

    y[i, :] = x[i, :] / sqrt(mean(x[i, :]^2) + eps) * w

The loader reads 8-row blocks and sends them; the computer normalises each
block as it arrives and sends it on; the storer writes it. `csp.consume`
reads a block where it lies in the channel (no copy) and frees its slot when
the block ends; a send writes straight into the next slot. With depth 2 the
loader reads block i + 2 while block i is normalised and block i - 1 is
stored: the stages overlap, and each channel holds at most two blocks. N is
bound at call time: the last block is cut by the tensor's edge, so the
channel is declared with pad=0.0 (the cut block travels padded with zeros;
the storer's write stops at the edge).
"""

import numpy as np

import htp
from htp import f32

csp = htp.model("csp")


@csp.program
def rmsnorm_pipeline(x: htp.Tensor[f32, "N", "H"], w: htp.Tensor[f32, 1, "H"], y: htp.Out[f32, "N", "H"],
                     eps: f32, H: htp.Const[int] = 512):
    loaded = csp.channel(f32, (8, H), depth=2, name="loaded", pad=0.0)
    normed = csp.channel(f32, (8, H), depth=2, name="normed")
    rows = x.shape[0]
    with csp.process(name="loader"):
        for i in range(0, rows, 8):
            csp.send(loaded, x[i:i + 8, :])
    with csp.process(name="computer"):
        weight = w[0:1, :]
        for i in range(0, rows, 8):
            with csp.consume(loaded) as t:      # read in place; the slot is freed after the block
                scale = htp.rsqrt(htp.row_sum(t * t) * (1.0 / H) + eps)
                csp.send(normed, t * scale * weight)
    with csp.process(name="storer"):
        for i in range(0, rows, 8):
            with csp.consume(normed) as t:
                y[i:i + 8, :] = t


def reference(x, w, eps):
    return x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + eps) * w


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1000, 512), dtype=np.float32)
    w = rng.standard_normal((1, 512), dtype=np.float32)
    y = rmsnorm_pipeline(x, w, eps=1e-6)
    print(f"rmsnorm_pipeline [1000 x 512] f32: max abs error vs numpy = {np.abs(y - reference(x, w, 1e-6)).max():.3e}")


if __name__ == "__main__":
    main()
