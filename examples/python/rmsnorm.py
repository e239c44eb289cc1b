"""RMSNorm over rows of an [N x H] f32 matrix, tiled in both dimensions.

    y[i, :] = x[i, :] / sqrt(mean(x[i, :]^2) + eps) * w

Each 8-row block takes two passes over H in 256-column tiles: one sums the
squares, one scales. N is bound at call time and need not be a multiple of
8: the last row block is ragged, so it is padded with zeros (`htp.pad`) to
join the full 8x1 sum of squares, and the store writes only its valid rows.
H is a compile-time constant (a multiple of 256).
"""

import numpy as np

import htp
from htp import f32


@htp.kernel
def rmsnorm(x: htp.Tensor[f32, "N", "H"], w: htp.Tensor[f32, 1, "H"], y: htp.Out[f32, "N", "H"],
            eps: f32, H: htp.Const[int] = 1024):
    for i in range(0, x.shape[0], 8):
        squares = htp.zeros((8, 1), f32)
        for j in range(0, H, 256):
            t = htp.pad(x[i:i + 8, j:j + 256], 0.0)
            squares = squares + htp.row_sum(t * t)
        scale = htp.rsqrt(squares * (1.0 / H) + eps)
        for j in range(0, H, 256):
            y[i:i + 8, j:j + 256] = htp.pad(x[i:i + 8, j:j + 256], 0.0) * scale * w[0:1, j:j + 256]


def reference(x, w, eps):
    return x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + eps) * w


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((100, 1024), dtype=np.float32)
    w = rng.standard_normal((1, 1024), dtype=np.float32)
    y = rmsnorm(x, w, eps=1e-6)
    print(f"rmsnorm [100 x 1024] f32: max abs error vs numpy = {np.abs(y - reference(x, w, 1e-6)).max():.3e}")


if __name__ == "__main__":
    main()
