"""Tiled GEMM with mixed precision: C[M x N] (f32) = A[M x K] (f16) @ B[K x N] (f16).

Each 64x64 output tile accumulates in f32 over K in steps of 32;
`acc += a @ b` becomes one matmul-with-accumulator (HTP's
fuse-matmul-accumulate AST mutator). M, N and K are compile-time constants
(multiples of the tile sizes).
"""

import numpy as np

import htp
from htp import f16, f32


@htp.kernel
def gemm(a: htp.Tensor[f16, "M", "K"], b: htp.Tensor[f16, "K", "N"], c: htp.Out[f32, "M", "N"],
         M: htp.Const[int] = 256, N: htp.Const[int] = 128, K: htp.Const[int] = 512):
    for i in range(0, M, 64):
        for j in range(0, N, 64):
            acc = htp.zeros((64, 64), f32)
            for k in range(0, K, 32):
                acc += a[i:i + 64, k:k + 32] @ b[k:k + 32, j:j + 64]
            c[i:i + 64, j:j + 64] = acc


def main():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 512)).astype(np.float16)
    b = rng.standard_normal((512, 128)).astype(np.float16)
    c = gemm(a, b)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    print(f"gemm [256 x 512] @ [512 x 128] f16 -> f32: max abs error vs numpy = {np.abs(c - expected).max():.3e}")


if __name__ == "__main__":
    main()
