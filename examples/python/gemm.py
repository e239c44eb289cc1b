"""Tiled GEMM with mixed precision: C[M x N] (f32) = A[M x K] (f16) @ B[K x N] (f16).

Each 64x64 output tile accumulates in f32 over K in steps of 32;
`acc += a @ b` becomes one matmul-with-accumulator (HTP's
fuse-matmul-accumulate AST mutator). M, N and K are bound at call time and
need not be multiples of the tile sizes: ragged operand tiles are padded
with zeros (which add nothing to the products) and the store of the last
row/column blocks writes only their valid part.
"""

import numpy as np

import htp
from htp import f16, f32


@htp.kernel
def gemm(a: htp.Tensor[f16, "M", "K"], b: htp.Tensor[f16, "K", "N"], c: htp.Out[f32, "M", "N"]):
    for i in range(0, a.shape[0], 64):
        for j in range(0, b.shape[1], 64):
            acc = htp.zeros((64, 64), f32)
            for k in range(0, a.shape[1], 32):
                acc += htp.pad(a[i:i + 64, k:k + 32], 0.0) @ htp.pad(b[k:k + 32, j:j + 64], 0.0)
            c[i:i + 64, j:j + 64] = acc


def main():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((200, 500)).astype(np.float16)
    b = rng.standard_normal((500, 130)).astype(np.float16)
    c = gemm(a, b)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    print(f"gemm [200 x 500] @ [500 x 130] f16 -> f32: max abs error vs numpy = {np.abs(c - expected).max():.3e}")


if __name__ == "__main__":
    main()
