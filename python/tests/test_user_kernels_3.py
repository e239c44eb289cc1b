"""Cluster kernels as a user writes them (see test_user_kernels.py): a weight
dequantised by vector work inside a K loop that the cube accumulates over,
an int8 GEMM dequantised after the cube, f16 single-query decode with the
probabilities cast to f16, a running sum down the rows, and a softmax over
a row of run-time length."""

import numpy as np
import pytest

import htp
from htp import f16, f32, i8, i32
from targets import RUN_TARGETS


@htp.kernel
def dequant_in_k_loop(x: htp.Tensor[f16, "M", "K"], wq: htp.Tensor[i8, "K", 64], ws: htp.Tensor[f16, "K", 1],
                      y: htp.Out[f32, "M", 64]):
    for i in range(0, x.shape[0], 16):
        acc = htp.zeros((16, 64), f32)
        for k in range(0, x.shape[1], 32):
            w = htp.pad(htp.cast(wq[k:k + 32, :], f16) * ws[k:k + 32, :], 0.0)
            acc += htp.pad(x[i:i + 16, k:k + 32], 0.0) @ w
        y[i:i + 16, :] = acc


@htp.kernel
def int8_gemm_dequant(a: htp.Tensor[i8, "M", 64], b: htp.Tensor[i8, 64, 32], sa: htp.Tensor[f32, "M", 1],
                      sb: htp.Tensor[f32, 1, 32], y: htp.Out[f32, "M", 32]):
    for i in range(0, a.shape[0], 32):
        c = htp.matmul(htp.pad(a[i:i + 32, :], 0), b[:, :], dtype=i32)
        y[i:i + 32, :] = htp.cast(c, f32) * htp.pad(sa[i:i + 32, :], 0.0) * sb[:, :]


@htp.kernel
def decode_f16(q: htp.Tensor[f16, "B", 64], k: htp.Tensor[f16, "B", "S", 64], v: htp.Tensor[f16, "B", "S", 64],
               o: htp.Out[f16, "B", 64]):
    for b in range(q.shape[0]):
        qi = q[b:b + 1, :]
        m = htp.full((1, 1), -1.0e30, f32)
        l = htp.zeros((1, 1), f32)
        acc = htp.zeros((1, 64), f32)
        for j in range(0, k.shape[1], 64):
            s = htp.pad((qi @ k[b, j:j + 64, :].T) * 0.125, -1.0e30)
            m_new = htp.maximum(m, htp.row_max(s))
            p = htp.exp(s - m_new)
            l = l * htp.exp(m - m_new) + htp.row_sum(p)
            acc = acc * htp.exp(m - m_new) + htp.cast(p, f16) @ htp.pad(v[b, j:j + 64, :], 0.0)
            m = m_new
        o[b:b + 1, :] = htp.cast(acc / l, f16)


@htp.kernel
def running_sum(x: htp.Tensor[f32, "T", 32], y: htp.Out[f32, "T", 32]):
    carry = htp.zeros((1, 32), f32)
    for t in range(x.shape[0]):
        carry = carry + htp.pad(x[t:t + 1, :], 0.0)
        y[t:t + 1, :] = carry


@htp.kernel
def softmax_runtime_row(x: htp.Tensor[f32, 8, "C"], y: htp.Out[f32, 8, "C"]):
    m = htp.full((8, 1), -htp.inf, f32)
    for j in range(0, x.shape[1], 64):
        m = htp.maximum(m, htp.row_max(htp.pad(x[:, j:j + 64], -htp.inf)))
    l = htp.zeros((8, 1), f32)
    for j in range(0, x.shape[1], 64):
        l = l + htp.row_sum(htp.exp(htp.pad(x[:, j:j + 64], -htp.inf) - m))
    for j in range(0, x.shape[1], 64):
        y[:, j:j + 64] = htp.exp(x[:, j:j + 64] - m) / l


def close(got, expected, tol):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_dequantised_weight_inside_a_k_loop(target):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((20, 80)) * 0.5).astype(np.float16)
    wq = rng.integers(-127, 128, (80, 64)).astype(np.int8)
    ws = rng.uniform(0.002, 0.01, (80, 1)).astype(np.float16)
    w = (wq.astype(np.float16) * ws).astype(np.float64)
    close(dequant_in_k_loop.compile(target)(x, wq, ws), x.astype(np.float64) @ w, 2e-2)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_int8_gemm_dequantised_after_the_cube(target):
    rng = np.random.default_rng(2)
    a = rng.integers(-127, 128, (40, 64)).astype(np.int8)
    b = rng.integers(-127, 128, (64, 32)).astype(np.int8)
    sa = rng.uniform(0.01, 0.02, (40, 1)).astype(np.float32)
    sb = rng.uniform(0.01, 0.02, (1, 32)).astype(np.float32)
    expected = (a.astype(np.float64) @ b.astype(np.float64)) * sa * sb
    close(int8_gemm_dequant.compile(target)(a, b, sa, sb), expected, 1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_f16_single_query_decode(target):
    rng = np.random.default_rng(3)
    q = rng.standard_normal((3, 64)).astype(np.float16)
    k = rng.standard_normal((3, 100, 64)).astype(np.float16)
    v = rng.standard_normal((3, 100, 64)).astype(np.float16)
    s = np.einsum("bd,bsd->bs", q.astype(np.float64), k.astype(np.float64)) * 0.125
    p = np.exp(s - s.max(1, keepdims=True))
    expected = np.einsum("bs,bsd->bd", p / p.sum(1, keepdims=True), v.astype(np.float64))
    close(decode_f16.compile(target)(q, k, v), expected, 2e-2)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_running_sum_down_the_rows(target):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((19, 32)).astype(np.float32)
    close(running_sum.compile(target)(x), np.cumsum(x.astype(np.float64), axis=0), 1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_softmax_over_a_row_of_run_time_length(target):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((8, 150)).astype(np.float32)
    v = x.astype(np.float64)
    e = np.exp(v - v.max(1, keepdims=True))
    close(softmax_runtime_row.compile(target)(x), e / e.sum(1, keepdims=True), 1e-5)
