"""Row softmax over an [N x 256] f32 matrix, 16 rows per tile.

    y[i, :] = exp(x[i, :] - max(x[i, :])) / sum(exp(x[i, :] - max(x[i, :])))

`htp.row_max(t)` is 16x1; subtracting it from a 16x256 tile broadcasts it
along each row, as in numpy. N need not be a multiple of 16.
"""

import numpy as np

import htp
from htp import f32


@htp.kernel
def softmax(x: htp.Tensor[f32, "N", 256], y: htp.Out[f32, "N", 256]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        e = htp.exp(t - htp.row_max(t))
        y[i:i + 16, :] = e / htp.row_sum(e)


def reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main():
    x = np.random.default_rng(0).standard_normal((1000, 256), dtype=np.float32) * 4
    y = softmax(x)
    print(f"softmax [1000 x 256] f32: max abs error vs numpy = {np.abs(y - reference(x)).max():.3e}")


if __name__ == "__main__":
    main()
