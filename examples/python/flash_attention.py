"""Flash-attention forward for H heads of S x 64, f32, causal or not.

For each block of 32 query rows, KV blocks of 32 are visited once with an
online softmax: the running row max `m`, row sum `l` and output `acc` are
rescaled by exp(m_old - m_new) as each block arrives, so the S x S score
matrix never exists. S is bound at call time and need not be a multiple of
32: the last blocks are zero-padded (`htp.pad`), scores of padded keys are
masked out by comparing an iota with S, and the store writes only valid
rows. With CAUSAL, scores above the diagonal are masked too and KV blocks
past the query block are skipped.
"""

import numpy as np

import htp
from htp import f32


@htp.kernel
def flash_attention(q: htp.Tensor[f32, "H", "S", 64], k: htp.Tensor[f32, "H", "S", 64],
                    v: htp.Tensor[f32, "H", "S", 64], o: htp.Out[f32, "H", "S", 64], scale: f32,
                    CAUSAL: htp.Const[bool] = False):
    seq = q.shape[1]
    for h in range(q.shape[0]):
        for i in range(0, seq, 32):
            qi = htp.pad(q[h, i:i + 32, :], 0.0)
            m = htp.full((32, 1), -1.0e30, f32)
            l = htp.zeros((32, 1), f32)
            acc = htp.zeros((32, 64), f32)
            kv_end = seq
            if CAUSAL:
                kv_end = min(i + 32, seq)
            for j in range(0, kv_end, 32):
                s = (qi @ htp.transpose(htp.pad(k[h, j:j + 32, :], 0.0))) * scale
                cols = htp.iota((32, 32), 1, htp.i32) + j
                s = htp.where(cols >= seq, -1.0e30, s)       # padded keys
                if CAUSAL:
                    rows = htp.iota((32, 32), 0, htp.i32) + i
                    s = htp.where(cols > rows, -1.0e30, s)   # future keys
                m_new = htp.maximum(m, htp.row_max(s))
                p = htp.exp(s - m_new)
                alpha = htp.exp(m - m_new)
                l = l * alpha + htp.row_sum(p)
                acc = acc * alpha + p @ htp.pad(v[h, j:j + 32, :], 0.0)
                m = m_new
            o[h, i:i + 32, :] = acc / l


def reference(q, k, v, scale, causal):
    s = np.einsum("hqd,hkd->hqk", q.astype(np.float64), k.astype(np.float64)) * scale
    if causal:
        s = np.where(np.triu(np.ones(s.shape[1:], dtype=bool), 1), -np.inf, s)
    p = np.exp(s - s.max(axis=2, keepdims=True))
    return np.einsum("hqk,hkd->hqd", p / p.sum(axis=2, keepdims=True), v)


def main():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 100, 64), dtype=np.float32) for _ in range(3))
    scale = 1.0 / np.sqrt(64)
    for causal in (False, True):
        o = flash_attention(q, k, v, scale=scale, CAUSAL=causal)
        error = np.abs(o - reference(q, k, v, scale, causal)).max()
        print(f"flash_attention 2 heads x [100 x 64] f32 causal={causal}: max abs error vs numpy = {error:.3e}")


if __name__ == "__main__":
    main()
