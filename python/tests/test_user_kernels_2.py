"""More kernels as a user writes them (see test_user_kernels.py): causal
prefill attention with a mask from htp.iota, a K-looped GEMM with ragged K
and a transposed weight, integer arithmetic with run-time scalars, a
top-1 MoE router with htp.where, a 3-D batched residual add with an
htp.InOut accumulator, helpers (@htp.func) returning tuples, column
statistics, a cross-entropy loss with an ignore label, and f16 reductions."""

import numpy as np
import pytest

import htp
from htp import bf16, f16, f32, i16, i32
from targets import RUN_TARGETS


@htp.kernel
def causal_prefill(q: htp.Tensor[f16, "S", 64], k: htp.Tensor[f16, "S", 64], v: htp.Tensor[f16, "S", 64],
                   o: htp.Out[f32, "S", 64], scale: f32):
    for i in range(0, q.shape[0], 16):
        qi = htp.pad(q[i:i + 16, :], 0.0)
        m = htp.full((16, 1), -1.0e30, f32)
        l = htp.zeros((16, 1), f32)
        acc = htp.zeros((16, 64), f32)
        for j in range(0, i + 16, 16):
            s = (qi @ htp.pad(k[j:j + 16, :], 0.0).T) * scale
            rows = htp.iota((16, 16), 0) + i
            cols = htp.iota((16, 16), 1) + j
            s = htp.where(cols > rows, -1.0e30, s)
            m_new = htp.maximum(m, htp.row_max(s))
            p = htp.exp(s - m_new)
            alpha = htp.exp(m - m_new)
            l = l * alpha + htp.row_sum(p)
            acc = acc * alpha + htp.cast(p, f16) @ htp.pad(v[j:j + 16, :], 0.0)
            m = m_new
        o[i:i + 16, :] = acc / l


@htp.kernel
def gemm_nt(x: htp.Tensor[f16, "M", "K"], w: htp.Tensor[f16, "N", "K"], y: htp.Out[f32, "M", "N"]):
    for i in range(0, x.shape[0], 32):
        for j in range(0, w.shape[0], 32):
            acc = htp.zeros((32, 32), f32)
            for kk in range(0, x.shape[1], 64):
                acc += htp.pad(x[i:i + 32, kk:kk + 64], 0.0) @ htp.pad(w[j:j + 32, kk:kk + 64], 0.0).T
            y[i:i + 32, j:j + 32] = acc


@htp.kernel
def int_affine(x: htp.Tensor[i32, "N", 64], y: htp.Out[i32, "N", 64], a: i32, b: i32):
    for i in range(0, x.shape[0], 16):
        t = htp.pad(x[i:i + 16, :], 0)
        y[i:i + 16, :] = t * a + htp.full((16, 64), b) - htp.maximum(t, 0)


@htp.kernel
def int16_clamp(x: htp.Tensor[i16, "N", 64], y: htp.Out[i16, "N", 64], lo: i16, hi: i16):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.minimum(htp.maximum(x[i:i + 16, :], lo), hi)


@htp.kernel
def router_top1(logits: htp.Tensor[f32, "T", 8], expert: htp.Out[i32, "T", 1], weight: htp.Out[f32, "T", 1]):
    for t in range(0, logits.shape[0], 16):
        s = htp.pad(logits[t:t + 16, :], -htp.inf)
        best = htp.row_max(s)
        e = htp.exp(s - best)
        idx = htp.where(s == best, htp.iota((16, 8), 1, i32), 99)
        expert[t:t + 16, :] = htp.row_min(idx)
        weight[t:t + 16, :] = 1.0 / htp.row_sum(e)


@htp.kernel
def residual_3d(x: htp.Tensor[f32, "B", "S", 32], h: htp.InOut[f32, "B", "S", 32], gate: f32):
    for b in range(x.shape[0]):
        for s in range(0, x.shape[1], 8):
            h[b, s:s + 8, :] = h[b, s:s + 8, :] + x[b, s:s + 8, :] * gate


@htp.func
def mean_and_rstd(t):
    mean = htp.row_sum(t) / 64.0
    c = t - mean
    return mean, htp.rsqrt(htp.row_sum(c * c) / 64.0 + 1e-5)


@htp.kernel
def layernorm(x: htp.Tensor[f32, "N", 64], g: htp.Tensor[f32, 64], b: htp.Tensor[f32, 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = htp.pad(x[i:i + 16, :], 0.0)
        mean, rstd = mean_and_rstd(t)
        y[i:i + 16, :] = (t - mean) * rstd * g[:] + b[:]


@htp.kernel
def column_stats(x: htp.Tensor[f32, "N", 64], mx: htp.Out[f32, 1, 64], total: htp.Out[f32, 1, 64]):
    m = htp.full((1, 64), -htp.inf, f32)
    s = htp.zeros((1, 64), f32)
    for i in range(0, x.shape[0], 16):
        m = htp.maximum(m, htp.col_max(htp.pad(x[i:i + 16, :], -htp.inf)))
        s = s + htp.col_sum(htp.pad(x[i:i + 16, :], 0.0))
    mx[:, :] = m
    total[:, :] = s


@htp.kernel
def cross_entropy(logits: htp.Tensor[f32, "T", 32], labels: htp.Tensor[i32, "T", 1], loss: htp.Out[f32, "T", 1]):
    for t in range(0, logits.shape[0], 8):
        s = htp.pad(logits[t:t + 8, :], -htp.inf)
        lab = htp.pad(labels[t:t + 8, :], -100)
        m = htp.row_max(s)
        lse = htp.log(htp.row_sum(htp.exp(s - m))) + m
        picked = htp.row_sum(htp.where(htp.iota((8, 32), 1, i32) == lab, s, 0.0))
        loss[t:t + 8, :] = htp.where(lab == -100, 0.0, lse - picked)


@htp.kernel
def half_row_norms(x: htp.Tensor[f16, "N", 128], y: htp.Out[f16, "N", 1]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.sqrt(htp.row_sum(t * t))


@htp.kernel
def bf16_softmax_rmsnorm(x: htp.Tensor[bf16, "N", 64], w: htp.Tensor[bf16, 64], p: htp.Out[bf16, "N", 64],
                         y: htp.Out[bf16, "N", 64], eps: bf16):
    for i in range(0, x.shape[0], 16):
        t = htp.pad(x[i:i + 16, :], 0.0)
        e = htp.exp(t - htp.row_max(t))
        p[i:i + 16, :] = e / htp.row_sum(e)
        y[i:i + 16, :] = t * htp.rsqrt(htp.row_sum(t * t) * 0.015625 + eps) * w[:]


def close(got, expected, tol):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_causal_prefill_attention(target):
    rng = np.random.default_rng(1)
    q, k, v = ((rng.standard_normal((40, 64)) * 0.5).astype(np.float16) for _ in range(3))
    s = (q.astype(np.float64) @ k.astype(np.float64).T) * 0.125
    s[np.triu_indices(40, 1)] = -np.inf
    p = np.exp(s - s.max(axis=1, keepdims=True))
    expected = (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)
    close(causal_prefill.compile(target)(q, k, v, scale=0.125), expected, 2e-2)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_gemm_with_a_transposed_weight_and_ragged_k(target):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((40, 100)) * 0.3).astype(np.float16)
    w = (rng.standard_normal((48, 100)) * 0.3).astype(np.float16)
    close(gemm_nt.compile(target)(x, w), x.astype(np.float64) @ w.astype(np.float64).T, 2e-2)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_integer_arithmetic_with_run_time_scalars(target):
    rng = np.random.default_rng(3)
    x = rng.integers(-1000, 1000, (37, 64)).astype(np.int32)
    got = int_affine.compile(target)(x, a=3, b=-7)
    np.testing.assert_array_equal(got, x * 3 - 7 - np.maximum(x, 0))


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_int16_clamp_with_run_time_bounds(target):
    rng = np.random.default_rng(4)
    x = rng.integers(-3000, 3000, (32, 64)).astype(np.int16)
    np.testing.assert_array_equal(int16_clamp.compile(target)(x, lo=-100, hi=250), np.clip(x, -100, 250))


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_top1_router(target):
    rng = np.random.default_rng(5)
    logits = rng.standard_normal((29, 8)).astype(np.float32)
    expert, weight = router_top1.compile(target)(logits)
    np.testing.assert_array_equal(expert[:, 0], logits.argmax(axis=1))
    e = np.exp(logits.astype(np.float64) - logits.max(axis=1, keepdims=True))
    close(weight[:, 0], 1.0 / e.sum(axis=1), 1e-5)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_batched_residual_into_an_inout(target):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 20, 32)).astype(np.float32)
    h = rng.standard_normal((3, 20, 32)).astype(np.float32)
    expected = h.astype(np.float64) + x * 0.5
    residual_3d.compile(target)(x, h, gate=0.5)
    close(h, expected, 1e-6)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_layernorm_through_a_helper_returning_a_tuple(target):
    rng = np.random.default_rng(7)
    x = rng.standard_normal((30, 64)).astype(np.float32)
    g, b = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    v = x.astype(np.float64)
    expected = (v - v.mean(1, keepdims=True)) / np.sqrt(v.var(1, keepdims=True) + 1e-5) * g + b
    close(layernorm.compile(target)(x, g, b), expected, 1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_column_statistics_over_ragged_blocks(target):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((45, 64)).astype(np.float32)
    mx, total = column_stats.compile(target)(x)
    close(mx, x.max(axis=0, keepdims=True), 1e-6)
    close(total, x.astype(np.float64).sum(axis=0, keepdims=True), 1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_cross_entropy_with_an_ignore_label(target):
    rng = np.random.default_rng(9)
    logits = rng.standard_normal((21, 32)).astype(np.float32)
    labels = rng.integers(0, 32, (21, 1)).astype(np.int32)
    labels[[2, 11], 0] = -100
    v = logits.astype(np.float64)
    lse = np.log(np.exp(v - v.max(1, keepdims=True)).sum(1)) + v.max(1)
    picked = v[np.arange(21), np.clip(labels[:, 0], 0, 31)]
    expected = np.where(labels[:, 0] == -100, 0.0, lse - picked)
    close(cross_entropy.compile(target)(logits, labels)[:, 0], expected, 1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_f16_row_norms(target):
    rng = np.random.default_rng(10)
    x = (rng.standard_normal((32, 128)) * 0.2).astype(np.float16)
    close(half_row_norms.compile(target)(x)[:, 0], np.sqrt((x.astype(np.float64) ** 2).sum(1)), 2e-2)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_bf16_softmax_and_rmsnorm(target):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(11)
    x = rng.standard_normal((20, 64)).astype(ml_dtypes.bfloat16)
    w = rng.standard_normal(64).astype(ml_dtypes.bfloat16)
    p, y = bf16_softmax_rmsnorm.compile(target)(x, w, eps=1e-5)
    v = x.astype(np.float64)
    e = np.exp(v - v.max(1, keepdims=True))
    close(p.astype(np.float64), e / e.sum(1, keepdims=True), 2e-2)
    expected = v / np.sqrt((v * v).mean(1, keepdims=True) + 1e-5) * w.astype(np.float64)
    close(y.astype(np.float64), expected, 5e-2)
