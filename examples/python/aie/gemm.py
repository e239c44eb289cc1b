"""Multi-core GEMM for the AIE targets, in two precisions:

    C[M x N] = A[M x K] @ B[K x N]   bf16 in / f32 accumulate, i8 in / i32 accumulate

Each 16-row block of C is one core's work, the blocks dealt over up to 4
cores per column and the device's columns (16 cores over 4 columns at the
default shapes): each column's rows of A arrive in one shim transfer and are
split in its memtile into one FIFO per core, B is broadcast whole to every
core, and the inner loop over K accumulates `acc += a @ b` in 32-wide steps
(one matmul-with-accumulator per step, the accumulator on the core's stack);
each column's blocks of C are joined in its memtile into one shim transfer.
`gemm_tiled_bf16` is the 256 x 256 x 256 form whose B a core cannot hold: B
streams over K through each column's memtile instead.
M, K and N are compile-time constants (htp.Const): give other shapes with
`kernel.compile(target=..., M=..., ...)` or by calling with other arrays.

Runs on the CPU target and in HTP's functional AIE simulator (aie-sim, the
design's cores and FIFOs) against numpy, and writes the AIE package
(docs/targets/aie.md).
"""

import sys

import numpy as np

import htp
from htp import bf16, f32, i8, i32


@htp.kernel
def gemm_bf16(a: htp.Tensor[bf16, "M", "K"], b: htp.Tensor[bf16, "K", "N"], c: htp.Out[f32, "M", "N"],
              M: htp.Const[int] = 256, K: htp.Const[int] = 128, N: htp.Const[int] = 64):
    for i in range(0, M, 16):
        acc = htp.zeros((16, N), f32)
        for k in range(0, K, 32):
            acc += a[i:i + 16, k:k + 32] @ b[k:k + 32, :]
        c[i:i + 16, :] = acc


@htp.kernel
def gemm_i8(a: htp.Tensor[i8, "M", "K"], b: htp.Tensor[i8, "K", "N"], c: htp.Out[i32, "M", "N"],
            M: htp.Const[int] = 256, K: htp.Const[int] = 128, N: htp.Const[int] = 64):
    for i in range(0, M, 16):
        acc = htp.zeros((16, N), i32)
        for k in range(0, K, 32):
            acc += a[i:i + 16, k:k + 32] @ b[k:k + 32, :]
        c[i:i + 16, :] = acc


@htp.kernel
def gemm_tiled_bf16(a: htp.Tensor[bf16, "M", "K"], b: htp.Tensor[bf16, "K", "N"], c: htp.Out[f32, "M", "N"],
                    M: htp.Const[int] = 256, K: htp.Const[int] = 256, N: htp.Const[int] = 256):
    # B (K x N) is more than a core holds: it streams through each column's memtile to the
    # column's cores, a 32 x 64 window per trip of the K loop, for each 64-column window of C (D87).
    for i in range(0, M, 16):
        for j in range(0, N, 64):
            acc = htp.zeros((16, 64), f32)
            for k in range(0, K, 32):
                acc += a[i:i + 16, k:k + 32] @ b[k:k + 32, j:j + 64]
            c[i:i + 16, j:j + 64] = acc


def operands(dtype, m=256, k=128, n=64, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "i8":
        return rng.integers(-128, 128, (m, k)).astype(np.int8), rng.integers(-128, 128, (k, n)).astype(np.int8)
    import ml_dtypes
    return (rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16), rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16))


def reference(a, b):
    if a.dtype == np.int8:
        return a.astype(np.int64) @ b.astype(np.int64)
    return a.astype(np.float64) @ b.astype(np.float64)


def main(package=None):
    for name, kernel in (("bf16", gemm_bf16), ("i8", gemm_i8)):
        a, b = operands(name)
        simulated = kernel.compile(target="aie-sim")(a, b)
        error = np.abs(simulated.astype(np.float64) - reference(a, b)).max()
        print(f"gemm {name} [256 x 128] @ [128 x 64] on aie-sim: max abs error vs numpy = {error:.3e}")
        compiled = kernel.compile(target="aie-npu2")
        print(f"aie-npu2 design: {compiled.ir['aie'].count('aie.core(')} cores")
        if package:
            print("package:", compiled.write_package(f"{package}/gemm_{name}"))
    a, b = operands("bf16", 256, 256, 256)
    simulated = gemm_tiled_bf16.compile(target="aie-sim")(a, b)
    error = np.abs(simulated.astype(np.float64) - reference(a, b)).max()
    print(f"gemm bf16 [256 x 256] @ [256 x 256], B streamed over K, on aie-sim: max abs error vs numpy = {error:.3e}")


if __name__ == "__main__":
    main(*sys.argv[1:])
