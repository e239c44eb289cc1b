"""Kernels as a user writes them from docs/language.md — the small programs of
LLM inference and training (RoPE, GELU, RMSNorm, layernorm backward, a
projection with an int8-dequantised weight, greedy argmax, a causal
convolution, a two-pass softmax over a split row, a prefix sum, a MoE
gather, a grouped-query projection, a swiglu MLP block) — run on every
target that runs here and compared with numpy, and packaged for the chip.
They are not written around HTP's tests: each found or guards a fault."""

import json
import math
import os

import numpy as np
import pytest

import htp
from htp import f16, f32, i8, i32
from targets import PACKAGE_TARGETS, RUN_TARGETS


@htp.kernel
def rope(x: htp.Tensor[f32, "T", 64], cos: htp.Tensor[f32, "T", 32], sin: htp.Tensor[f32, "T", 32],
         y: htp.Out[f32, "T", 64]):
    for t in range(0, x.shape[0], 16):
        a = x[t:t + 16, 0:32]
        b = x[t:t + 16, 32:64]
        c = cos[t:t + 16, :]
        s = sin[t:t + 16, :]
        y[t:t + 16, 0:32] = a * c - b * s
        y[t:t + 16, 32:64] = b * c + a * s


@htp.kernel
def gelu_tanh(x: htp.Tensor[f16, "N", 128], y: htp.Out[f16, "N", 128]):
    for i in range(0, x.shape[0], 16):
        v = htp.cast(x[i:i + 16, :], f32)
        inner = (v + v * v * v * 0.044715) * 0.7978845608
        # tanh(u) = 1 - 2 / (exp(2u) + 1)
        t = 1.0 - 2.0 / (htp.exp(inner * 2.0) + 1.0)
        y[i:i + 16, :] = htp.cast(v * 0.5 * (t + 1.0), f16)


@htp.kernel
def rmsnorm(x: htp.Tensor[f32, "N", 256], w: htp.Tensor[f32, 256], y: htp.Out[f32, "N", 256], eps: f32):
    for i in range(0, x.shape[0], 8):
        t = x[i:i + 8, :]  # the last block is ragged: w broadcasts to its valid rows
        ms = htp.row_sum(t * t) * (1.0 / 256)
        y[i:i + 8, :] = t * htp.rsqrt(ms + eps) * w[:]


@htp.kernel
def layernorm_backward(x: htp.Tensor[f32, "N", 64], dy: htp.Tensor[f32, "N", 64], w: htp.Tensor[f32, 1, 64],
                       dx: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = htp.pad(x[i:i + 16, :], 0.0)
        mean = htp.row_sum(t) / 64.0
        xc = t - mean
        rstd = htp.rsqrt(htp.row_sum(xc * xc) / 64.0 + 1e-5)
        xhat = xc * rstd
        g = htp.pad(dy[i:i + 16, :], 0.0) * w[:, :]
        dx[i:i + 16, :] = (g - htp.row_sum(g) / 64.0 - xhat * (htp.row_sum(g * xhat) / 64.0)) * rstd


@htp.kernel
def dequant_gemm(x: htp.Tensor[f16, "M", 64], wq: htp.Tensor[i8, 64, 64], scale: htp.Tensor[f32, 1, 64],
                 y: htp.Out[f32, "M", 64]):
    w = htp.cast(wq[:, :], f16)
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = (htp.pad(x[i:i + 16, :], 0.0) @ w) * scale[:, :]


@htp.kernel
def greedy_argmax(logits: htp.Tensor[f32, "B", 128], ids: htp.Out[i32, "B", 1]):
    for b in range(0, logits.shape[0], 8):
        t = htp.pad(logits[b:b + 8, :], -htp.inf)
        best = htp.row_max(t)
        col = htp.iota((8, 128), 1, i32)
        # the first column holding the maximum
        first = htp.where(t == best, col, 1000)
        ids[b:b + 8, :] = htp.row_min(first)


@htp.kernel
def causal_conv(x: htp.Tensor[f32, "T", 64], w: htp.Tensor[f32, 4, 64], y: htp.Out[f32, "T", 64]):
    for t in range(x.shape[0]):
        acc = htp.zeros((1, 64), f32)
        for k in htp.static_range(4):
            if t - k >= 0:
                acc = acc + htp.pad(x[t - k:t - k + 1, :], 0.0) * w[k:k + 1, :]
        y[t:t + 1, :] = acc


@htp.kernel
def split_softmax(x: htp.Tensor[f32, "N", 512], y: htp.Out[f32, "N", 512]):
    for i in range(0, x.shape[0], 8):
        m = htp.full((8, 1), -htp.inf, f32)
        l = htp.zeros((8, 1), f32)
        for j in range(0, 512, 128):
            t = htp.pad(x[i:i + 8, j:j + 128], -htp.inf)
            m_new = htp.maximum(m, htp.row_max(t))
            l = l * htp.exp(m - m_new) + htp.row_sum(htp.exp(t - m_new))
            m = m_new
        for j in range(0, 512, 128):
            y[i:i + 8, j:j + 128] = htp.exp(htp.pad(x[i:i + 8, j:j + 128], 0.0) - m) / l


@htp.kernel
def prefix_sum(x: htp.Tensor[f32, "N", 16], y: htp.Out[f32, "N", 16]):
    upper = htp.where(htp.iota((16, 16), 0) <= htp.iota((16, 16), 1), 1.0, 0.0)
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.pad(x[i:i + 16, :], 0.0) @ upper


@htp.kernel
def moe_gather(tokens: htp.Tensor[f16, "T", 64], order: htp.Tensor[i32, "R", 1], w: htp.Tensor[f16, 64, 32],
               y: htp.Out[f32, "R", 32]):
    for r in range(0, order.shape[0], 16):
        rows = htp.gather(tokens, order[r:r + 16, :], 0, 64)
        y[r:r + 16, :] = htp.pad(rows, 0.0) @ w[:, :]


@htp.kernel
def gqa_projection(x: htp.Tensor[f16, "T", 128], wq: htp.Tensor[f16, 128, 128], wk: htp.Tensor[f16, 128, 32],
                   q: htp.Out[f16, "T", 128], k: htp.Out[f16, "T", 32]):
    for t in range(0, x.shape[0], 16):
        xt = htp.pad(x[t:t + 16, :], 0.0)
        q[t:t + 16, :] = htp.cast(xt @ wq[:, :], f16)
        k[t:t + 16, :] = htp.cast(xt @ wk[:, :], f16)


@htp.kernel
def swiglu_block(x: htp.Tensor[f16, 16, 64], wg: htp.Tensor[f16, 64, 64], wu: htp.Tensor[f16, 64, 64],
                 wd: htp.Tensor[f16, 64, 64], y: htp.Out[f32, 16, 64]):
    g = x[:, :] @ wg[:, :]
    u = x[:, :] @ wu[:, :]
    h = htp.cast(g / (1.0 + htp.exp(-g)) * u, f16)
    y[:, :] = h @ wd[:, :]


def close(got, expected, tol):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_rope(target):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((40, 64)).astype(np.float32)
    angle = rng.uniform(0, 6, (40, 32))
    cos, sin = np.cos(angle).astype(np.float32), np.sin(angle).astype(np.float32)
    a, b = x[:, :32].astype(np.float64), x[:, 32:].astype(np.float64)
    expected = np.concatenate([a * cos - b * sin, b * cos + a * sin], axis=1)
    close(rope.compile(target)(x, cos, sin), expected, 1e-5)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_gelu(target):
    x = np.linspace(-6, 6, 48 * 128).reshape(48, 128).astype(np.float16)
    v = x.astype(np.float64)
    expected = 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))
    close(gelu_tanh.compile(target)(x), expected, 1e-2)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_rmsnorm(target):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((21, 256)).astype(np.float32)
    w = rng.standard_normal(256).astype(np.float32)
    v = x.astype(np.float64)
    expected = v / np.sqrt((v * v).mean(axis=1, keepdims=True) + 1e-6) * w
    close(rmsnorm.compile(target)(x, w, eps=1e-6), expected, 1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_layernorm_backward(target):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((32, 64)).astype(np.float32)
    dy = rng.standard_normal((32, 64)).astype(np.float32)
    w = rng.standard_normal((1, 64)).astype(np.float32)
    v = x.astype(np.float64)
    xc = v - v.mean(axis=1, keepdims=True)
    rstd = 1 / np.sqrt((xc * xc).mean(axis=1, keepdims=True) + 1e-5)
    xhat = xc * rstd
    g = dy * w.astype(np.float64)
    expected = (g - g.mean(axis=1, keepdims=True) - xhat * (g * xhat).mean(axis=1, keepdims=True)) * rstd
    close(layernorm_backward.compile(target)(x, dy, w), expected, 1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_int8_dequantised_projection(target):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((20, 64)).astype(np.float16)
    wq = rng.integers(-127, 128, (64, 64)).astype(np.int8)
    scale = rng.uniform(0.001, 0.02, (1, 64)).astype(np.float32)
    expected = (x.astype(np.float64) @ wq.astype(np.float64)) * scale
    close(dequant_gemm.compile(target)(x, wq, scale), expected, 2e-2)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_greedy_argmax(target):
    rng = np.random.default_rng(5)
    logits = rng.standard_normal((13, 128)).astype(np.float32)
    logits[3, 7] = logits[3, 90] = 50.0  # a tie: the first wins, as numpy's argmax
    got = greedy_argmax.compile(target)(logits)
    np.testing.assert_array_equal(got[:, 0], logits.argmax(axis=1))


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_causal_convolution(target):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((10, 64)).astype(np.float32)
    w = rng.standard_normal((4, 64)).astype(np.float32)
    expected = np.zeros((10, 64))
    for t in range(10):
        for k in range(4):
            if t - k >= 0:
                expected[t] += x[t - k].astype(np.float64) * w[k]
    close(causal_conv.compile(target)(x, w), expected, 1e-5)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_softmax_over_a_split_row(target):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((24, 512)) * 4).astype(np.float32)
    v = x.astype(np.float64)
    e = np.exp(v - v.max(axis=1, keepdims=True))
    close(split_softmax.compile(target)(x), e / e.sum(axis=1, keepdims=True), 1e-5)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_prefix_sum_by_a_triangular_matmul(target):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((37, 16)).astype(np.float32)
    close(prefix_sum.compile(target)(x), np.cumsum(x.astype(np.float64), axis=1), 1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_moe_gather_then_expert_matmul(target):
    rng = np.random.default_rng(9)
    tokens = rng.standard_normal((30, 64)).astype(np.float16)
    order = rng.permutation(30)[:24].reshape(24, 1).astype(np.int32)
    w = rng.standard_normal((64, 32)).astype(np.float16)
    expected = tokens[order[:, 0]].astype(np.float64) @ w.astype(np.float64)
    close(moe_gather.compile(target)(tokens, order, w), expected, 2e-2)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_grouped_query_projections(target):
    rng = np.random.default_rng(10)
    x = (rng.standard_normal((20, 128)) * 0.3).astype(np.float16)
    wq = (rng.standard_normal((128, 128)) * 0.3).astype(np.float16)
    wk = (rng.standard_normal((128, 32)) * 0.3).astype(np.float16)
    q, k = gqa_projection.compile(target)(x, wq, wk)
    close(q, x.astype(np.float64) @ wq.astype(np.float64), 2e-2)
    close(k, x.astype(np.float64) @ wk.astype(np.float64), 2e-2)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_swiglu_block(target):
    rng = np.random.default_rng(11)
    x, wg, wu, wd = ((rng.standard_normal(s) * 0.3).astype(np.float16) for s in [(16, 64), (64, 64), (64, 64), (64, 64)])
    g = x.astype(np.float64) @ wg.astype(np.float64)
    u = x.astype(np.float64) @ wu.astype(np.float64)
    h = (g / (1 + np.exp(-g)) * u).astype(np.float16).astype(np.float64)
    close(swiglu_block.compile(target)(x, wg, wu, wd), h @ wd.astype(np.float64), 3e-2)


KERNELS = [rope, gelu_tanh, rmsnorm, layernorm_backward, dequant_gemm, greedy_argmax, causal_conv, split_softmax,
           prefix_sum, moe_gather, gqa_projection, swiglu_block]


@pytest.mark.parametrize("target", PACKAGE_TARGETS)
@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
def test_each_packages(tmp_path, target, kernel):
    root = kernel.compile(target=target).write_package(tmp_path / kernel.name)
    manifest = json.loads(open(os.path.join(root, "manifest.json")).read())
    assert manifest["kernels"]
