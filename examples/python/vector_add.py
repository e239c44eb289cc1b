"""Vector add, c = a + b, over a [N x 256] matrix in 16x256 tiles.

N is bound from the arguments at call time; when N is not a multiple of 16
the last tile is ragged (a run-time valid region) and no element past the
end is read or written.
"""

import numpy as np

import htp
from htp import f32


@htp.kernel
def vector_add(a: htp.Tensor[f32, "N", 256], b: htp.Tensor[f32, "N", 256], c: htp.Out[f32, "N", 256]):
    for i in range(0, a.shape[0], 16):
        c[i:i + 16, :] = a[i:i + 16, :] + b[i:i + 16, :]


def main():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1000, 256), dtype=np.float32)
    b = rng.standard_normal((1000, 256), dtype=np.float32)
    c = vector_add(a, b)
    print(f"vector_add [1000 x 256] f32: max abs error vs numpy = {np.abs(c - (a + b)).max():.3e}")


if __name__ == "__main__":
    main()
