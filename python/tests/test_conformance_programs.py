"""Conformance: whole programs a user writes from docs/language.md.

Row softmax, log-softmax, layernorm and rmsnorm over many columns in
64-column tiles (ragged in rows and columns), decode attention over a KV
cache with a run-time length (grouped queries), an MLP block, and an
embedding gather. Expected outcomes: conformance.MATRIX."""

import numpy as np
import pytest

import conformance as c
from conformance import check, parts, random, rng

SOFTMAX = """
@htp.kernel
def softmax(x: htp.Tensor[{T}, "N", "M"], y: htp.Out[{T}, "N", "M"]):
    for i in range(0, x.shape[0], 16):
        m = htp.full((16, 1), -htp.inf, {T})
        s = htp.zeros((16, 1), {T})
        for j in range(0, x.shape[1], 64):          # online: rescale the running sum as the max grows
            t = htp.pad(x[i:i + 16, j:j + 64], -htp.inf)
            m_new = htp.maximum(m, htp.row_max(t))
            s = s * htp.exp(m - m_new) + htp.row_sum(htp.exp(t - m_new))
            m = m_new
        for j in range(0, x.shape[1], 64):
            y[i:i + 16, j:j + 64] = htp.exp(htp.pad(x[i:i + 16, j:j + 64], -htp.inf) - m) / s
"""
LOG_SOFTMAX = """
@htp.kernel
def log_softmax(x: htp.Tensor[f32, "N", "M"], y: htp.Out[f32, "N", "M"]):
    for i in range(0, x.shape[0], 16):
        m = htp.full((16, 1), -htp.inf, f32)
        for j in range(0, x.shape[1], 64):
            m = htp.maximum(m, htp.row_max(htp.pad(x[i:i + 16, j:j + 64], -htp.inf)))
        s = htp.zeros((16, 1), f32)
        for j in range(0, x.shape[1], 64):
            s = s + htp.row_sum(htp.exp(htp.pad(x[i:i + 16, j:j + 64], -htp.inf) - m))
        shift = m + htp.log(s)
        for j in range(0, x.shape[1], 64):
            y[i:i + 16, j:j + 64] = htp.pad(x[i:i + 16, j:j + 64], 0.0) - shift
"""
LAYERNORM = """
@htp.kernel
def layernorm(x: htp.Tensor[f32, "N", "H"], w: htp.Tensor[f32, "H"], b: htp.Tensor[f32, "H"],
              y: htp.Out[f32, "N", "H"], eps: f32):
    inv = 1.0 / htp.f32(x.shape[1])
    for i in range(0, x.shape[0], 16):
        total = htp.zeros((16, 1), f32)
        squares = htp.zeros((16, 1), f32)
        for j in range(0, x.shape[1], 64):
            t = htp.pad(x[i:i + 16, j:j + 64], 0.0)
            total = total + htp.row_sum(t)
            squares = squares + htp.row_sum(t * t)
        mean = total * inv
        rstd = htp.rsqrt(squares * inv - mean * mean + eps)
        for j in range(0, x.shape[1], 64):
            t = (htp.pad(x[i:i + 16, j:j + 64], 0.0) - mean) * rstd
            y[i:i + 16, j:j + 64] = t * htp.pad(w[j:j + 64], 0.0) + htp.pad(b[j:j + 64], 0.0)
"""
RMSNORM = """
@htp.kernel
def rmsnorm(x: htp.Tensor[f32, "N", "H"], w: htp.Tensor[f32, "H"], y: htp.Out[f32, "N", "H"], eps: f32,
            H: htp.Const[int] = 320):
    for i in range(0, x.shape[0], 16):
        squares = htp.zeros((16, 1), f32)
        for j in range(0, H, 64):
            t = htp.pad(x[i:i + 16, j:j + 64], 0.0)
            squares = squares + htp.row_sum(t * t)
        scale = htp.rsqrt(squares * (1.0 / H) + eps)
        for j in range(0, H, 64):
            y[i:i + 16, j:j + 64] = htp.pad(x[i:i + 16, j:j + 64], 0.0) * scale * w[j:j + 64]
"""


def softmax_reference(t):
    e = np.exp(t - t.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("case, mode", c.params("program/softmax") + c.params("program/log_softmax")
                         + c.params("program/layernorm") + c.params("program/rmsnorm"))
def test_row_normalisations(case, mode):
    construct, dtype = parts(case)
    gen = rng(case)
    name = construct.split(",")[0]
    x = random(gen, dtype, (37, 200), scale=2.0)  # ragged in rows (16-row blocks) and columns (64)
    t = c.as_float64(x)
    if name == "softmax":
        return check(case, mode, c.template(SOFTMAX, T=dtype), (x,), softmax_reference(t), scale=8)
    if name == "log_softmax":
        return check(case, mode, c.template(LOG_SOFTMAX), (x,), np.log(softmax_reference(t)), scale=8)
    if name == "layernorm":
        w, b = random(gen, "f32", (200,)), random(gen, "f32", (200,))
        normed = (t - t.mean(axis=1, keepdims=True)) / np.sqrt(t.var(axis=1, keepdims=True) + 1e-5)
        return check(case, mode, c.template(LAYERNORM), (x, w, b, None, 1e-5), normed * w + b, scale=16)
    x = random(gen, "f32", (37, 320))
    t = x.astype(np.float64)
    w = random(gen, "f32", (320,))
    expected = t / np.sqrt((t * t).mean(axis=1, keepdims=True) + 1e-6) * w
    check(case, mode, c.template(RMSNORM), (x, w, None, 1e-6), expected, scale=8)


DECODE = """
@htp.kernel
def decode(q: htp.Tensor[{T}, "B", 16, 64], k: htp.Tensor[{T}, "B", "S", 64], v: htp.Tensor[{T}, "B", "S", 64],
           o: htp.Out[f32, "B", 16, 64], kv_len: i32, scale: f32):
    for b in range(q.shape[0]):                    # one KV head, 16 query heads sharing it
        qb = q[b, :, :]
        m = htp.full((16, 1), -1.0e30, f32)
        l = htp.zeros((16, 1), f32)
        acc = htp.zeros((16, 64), f32)
        for j in range(0, kv_len, 32):             # the cache holds S slots, kv_len of them in use
            s = (qb @ htp.transpose(htp.pad(k[b, j:j + 32, :], 0.0))) * scale
            cols = htp.iota((16, 32), 1, i32) + j
            s = htp.where(cols >= kv_len, -1.0e30, s)
            m_new = htp.maximum(m, htp.row_max(s))
            p = htp.exp(s - m_new)
            alpha = htp.exp(m - m_new)
            l = l * alpha + htp.row_sum(p)
            acc = acc * alpha + {P} @ htp.pad(v[b, j:j + 32, :], 0.0)
            m = m_new
        o[b, :, :] = acc / l
"""


@pytest.mark.parametrize("case, mode", c.params("program/decode"))
def test_decode_attention(case, mode):
    _, types = parts(case)
    dtype = types.split("->")[0]
    kernel = c.template(DECODE, T=dtype, P="htp.cast(p, f16)" if dtype == "f16" else "p")
    gen = rng(case)
    q, k, v = (random(gen, dtype, shape) for shape in ((2, 16, 64), (2, 128, 64), (2, 128, 64)))
    scale = 1.0 / np.sqrt(64)
    for kv_len in c.fewer(mode, (70, 128, 1), 2):
        s = np.einsum("bqd,bkd->bqk", c.as_float64(q), c.as_float64(k[:, :kv_len])) * scale
        p = softmax_reference(s.reshape(-1, kv_len)).reshape(s.shape)
        if dtype == "f16":
            p = c.rounded(p * 1.0, "f16")  # p is rounded to f16 before the product (scale below covers it)
        expected = np.einsum("bqk,bkd->bqd", p, c.as_float64(v[:, :kv_len]))
        check(case, mode, kernel, (q, k, v, None, kv_len, scale), expected, scale=100 if dtype == "f16" else 8)


MLP = """
@htp.kernel
def mlp(x: htp.Tensor[f16, "M", 64], w1: htp.Tensor[f16, 64, 128], b1: htp.Tensor[f32, 1, 128],
        w2: htp.Tensor[f16, 128, 64], y: htp.Out[f32, "M", 64]):
    for i in range(0, x.shape[0], 16):
        h = htp.relu(htp.pad(x[i:i + 16, :], 0.0) @ w1[:, :] + b1[0:1, :])
        y[i:i + 16, :] = htp.cast(h, f16) @ w2[:, :] + htp.pad(x[i:i + 16, :], 0.0).astype(f32)
"""
EMBEDDING = """
@htp.kernel
def embedding(table: htp.Tensor[f32, "V", 64], ids: htp.Tensor[i32, "N", 1], w: htp.Tensor[f32, 64],
              y: htp.Out[f32, "N", 64], eps: f32):
    for i in range(0, ids.shape[0], 16):
        t = htp.pad(htp.gather(table, ids[i:i + 16, :], 0, 64), 0.0)
        scale = htp.rsqrt(htp.row_sum(t * t) * (1.0 / 64) + eps)
        y[i:i + 16, :] = t * scale * w[:]
"""


@pytest.mark.parametrize("case, mode", c.params("program/mlp") + c.params("program/embedding"))
def test_layers(case, mode):
    construct, _ = parts(case)
    gen = rng(case)
    if construct == "mlp block":
        x = random(gen, "f16", (40, 64))
        w1, b1, w2 = random(gen, "f16", (64, 128), scale=0.2), random(gen, "f32", (1, 128)), \
            random(gen, "f16", (128, 64), scale=0.2)
        h = c.rounded(np.maximum(c.as_float64(x) @ c.as_float64(w1) + b1, 0.0), "f16")
        expected = h @ c.as_float64(w2) + c.as_float64(x)
        return check(case, mode, c.template(MLP), (x, w1, b1, w2), expected, scale=64)
    table, w = random(gen, "f32", (50, 64)), random(gen, "f32", (64,))
    ids = gen.integers(0, 50, size=(37, 1)).astype(np.int32)
    t = table[ids[:, 0]].astype(np.float64)
    expected = t / np.sqrt((t * t).mean(axis=1, keepdims=True) + 1e-6) * w
    check(case, mode, c.template(EMBEDDING), (table, ids, w, None, 1e-6), expected, scale=8)
