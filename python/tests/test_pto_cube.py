"""Matmuls whose operands are not whole cube fractals: one-row and few-row
left operands, narrow right operands, a contraction shorter than 16 and a
GEMV carried over K. On a cube-only kernel HTP rounds the L1/L0 tiles up to
16-row (and 16- or 32-column) fractals, zero-fills the extra part and keeps
the valid region the tile's own; the numbers equal the CPU target's."""

import numpy as np
import pytest

import htp
from htp import f16, f32
from targets import PACKAGE_TARGETS, RUN_TARGETS


@htp.kernel
def one_row(a: htp.Tensor[f32, 1, 16], b: htp.Tensor[f32, 16, 16], c: htp.Out[f32, 1, 16]):
    c[:, :] = a[:, :] @ b[:, :]


@htp.kernel
def four_rows_narrow(a: htp.Tensor[f16, 4, 64], b: htp.Tensor[f16, 64, 8], c: htp.Out[f32, 4, 8]):
    c[:, :] = a[:, :] @ b[:, :]


@htp.kernel
def short_contraction(a: htp.Tensor[f16, 16, 8], b: htp.Tensor[f16, 8, 16], c: htp.Out[f32, 16, 16]):
    c[:, :] = a[:, :] @ b[:, :]


@htp.kernel
def gemv(x: htp.Tensor[f16, 1, "K"], w: htp.Tensor[f16, "K", 64], y: htp.Out[f32, 1, 64]):
    acc = htp.zeros((1, 64), f32)
    for k in range(0, x.shape[1], 32):
        acc += htp.pad(x[:, k:k + 32], 0.0) @ htp.pad(w[k:k + 32, :], 0.0)
    y[:, :] = acc


@htp.kernel
def f16_result(a: htp.Tensor[f16, 16, 32], b: htp.Tensor[f16, 32, 16], c: htp.Out[f16, 16, 16]):
    c[:, :] = htp.matmul(a[:, :], b[:, :], dtype=f16)


@htp.kernel
def int8_product(a: htp.Tensor[htp.i8, 16, 32], b: htp.Tensor[htp.i8, 32, 16], c: htp.Out[htp.i32, 16, 16]):
    c[:, :] = htp.matmul(a[:, :], b[:, :], dtype=htp.i32)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_an_f16_result_accumulates_in_f32_on_the_cube(target):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((16, 32)).astype(np.float16)
    b = rng.standard_normal((32, 16)).astype(np.float16)
    expected = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    # f16 has 11 significant bits; the CPU target accumulates in f16.
    np.testing.assert_allclose(f16_result.compile(target)(a, b).astype(np.float32), expected.astype(np.float32), rtol=2e-2, atol=5e-2)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_int8_products_are_exact(target):
    rng = np.random.default_rng(5)
    a = rng.integers(-128, 128, (16, 32)).astype(np.int8)
    b = rng.integers(-128, 128, (32, 16)).astype(np.int8)
    np.testing.assert_array_equal(int8_product.compile(target)(a, b), a.astype(np.int32) @ b.astype(np.int32))


CASES = [
    (one_row, (1, 16), (16, 16), np.float32),
    (four_rows_narrow, (4, 64), (64, 8), np.float16),
    (short_contraction, (16, 8), (8, 16), np.float16),
    (gemv, (1, 100), (100, 64), np.float16),
]


@pytest.mark.parametrize("target", RUN_TARGETS)
@pytest.mark.parametrize("kernel,a_shape,b_shape,dtype", CASES, ids=[c[0].name for c in CASES])
def test_small_operands_match_numpy(target, kernel, a_shape, b_shape, dtype):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(a_shape).astype(dtype)
    b = rng.standard_normal(b_shape).astype(dtype)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(kernel.compile(target)(a, b), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target", PACKAGE_TARGETS)
@pytest.mark.parametrize("kernel", [c[0] for c in CASES], ids=[c[0].name for c in CASES])
def test_small_operands_are_whole_fractals_on_the_cube(target, kernel):
    source = "".join(t for p, t in kernel.compile(target).files.items() if p.startswith("kernels/aic"))
    assert "TMATMUL" in source
    # L1 operands are zero-filled before their valid part is loaded.
    assert "TFILLPAD" in source
