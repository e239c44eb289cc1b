"""Matmuls on the CPU run a register-blocked micro-kernel
(cpu-vectorize-matmul): blocks of 4 rows x 64 columns, then single 16-wide
vectors, then the plain contraction for the rows and columns left over. Every
split of the shape must agree with numpy: shapes below, at and past each
block size, f16/bf16/f32 operands, B read transposed, accumulation into C."""


import ml_dtypes
import numpy as np
import pytest

import htp
from htp import bf16, f16, f32

from sources import kernel_from

TYPES = {"f32": (f32, np.float32), "f16": (f16, np.float16), "bf16": (bf16, ml_dtypes.bfloat16)}


def product_kernel(name, m, k, n, transposed=False):
    """`c = a @ b` (or `a @ transpose(b)`) over whole tensors of static
    shapes, so the micro-kernel sees exactly (m, k, n)."""
    b_shape = f"{n}, {k}" if transposed else f"{k}, {n}"
    product = "a[:, :] @ htp.transpose(b[:, :])" if transposed else "a[:, :] @ b[:, :]"
    text = (
        "import htp\n"
        "from htp import bf16, f16, f32\n\n"
        "@htp.kernel\n"
        f"def mm(a: htp.Tensor[{name}, {m}, {k}], b: htp.Tensor[{name}, {b_shape}], c: htp.Out[f32, {m}, {n}]):\n"
        f"    c[:, :] = {product}\n"
    )
    return kernel_from(text, "mm")


@htp.kernel
def mm_acc(a: htp.Tensor[f16, 64, 48], b: htp.Tensor[f16, 48, 80], c: htp.Out[f32, 64, 80]):
    acc = htp.zeros((64, 80), f32)
    for k in range(0, 48, 16):
        acc = htp.matmul(a[:, k:k + 16], b[k:k + 16, :], acc)
    c[:, :] = acc


SHAPES = [(1, 1, 1), (3, 5, 15), (4, 8, 16), (5, 7, 17), (8, 3, 64), (9, 33, 65), (13, 16, 80), (64, 32, 128), (67, 19, 130)]


@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("name", ["f32", "f16", "bf16"])
def test_every_block_split_matches_numpy(name, m, k, n):
    kernel = product_kernel(name, m, k, n)
    dtype = TYPES[name][1]
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c = np.full((m, n), np.nan, np.float32)
    kernel(a, b, c)
    expected = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("m,k,n", SHAPES)
def test_a_transposed_b_matches_numpy(m, k, n):
    mm_bt = product_kernel("f32", m, k, n, transposed=True)
    rng = np.random.default_rng(n)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((n, k)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    mm_bt(a, b, c)
    np.testing.assert_allclose(c, a @ b.T, rtol=1e-5, atol=1e-5)


def test_accumulating_matmuls_add_into_the_accumulator():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((64, 48)).astype(np.float16)
    b = rng.standard_normal((48, 80)).astype(np.float16)
    c = np.zeros((64, 80), np.float32)
    mm_acc(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-5)


def test_special_values_propagate_like_numpy():
    mm_f32 = product_kernel("f32", 8, 4, 64)
    a = np.ones((8, 4), np.float32)
    b = np.ones((4, 64), np.float32)
    a[1, 2] = np.inf
    b[3, 5] = np.nan
    c = np.zeros((8, 64), np.float32)
    mm_f32(a, b, c)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(c, a @ b)
