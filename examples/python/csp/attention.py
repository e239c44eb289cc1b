"""Attention as two processes, the split a PTO cluster makes between its
cube and vector cores: a `cube` process computes the scores S = Q K^T of
each key block and the products P V; a `vector` process runs the online
softmax. Channels go both ways:

    cube --scores--> vector --probs--> cube --pv--> vector

For each block of 16 query rows and each block of 32 keys, the cube sends
the scores, receives the probabilities, and sends P V; the vector process
keeps the running row max m, row sum l and output acc, rescaling them by
exp(m_old - m_new) as each block arrives, and writes acc / l. One head of
S x 64, f32; S is bound at call time (cut blocks travel padded with zeros,
padded keys are masked).
"""

import numpy as np

import htp
from htp import f32, i32

csp = htp.model("csp")


@csp.program
def attention(q: htp.Tensor[f32, "S", 64], k: htp.Tensor[f32, "S", 64], v: htp.Tensor[f32, "S", 64],
              o: htp.Out[f32, "S", 64], scale: f32):
    scores = csp.channel(f32, (16, 32), depth=2, name="scores")
    probs = csp.channel(f32, (16, 32), depth=2, name="probs")
    pv = csp.channel(f32, (16, 64), depth=2, name="pv")
    seq = q.shape[0]
    with csp.process(name="cube"):
        for i in range(0, seq, 16):
            qi = htp.pad(q[i:i + 16, :], 0.0)
            for j in range(0, seq, 32):
                csp.send(scores, qi @ htp.transpose(htp.pad(k[j:j + 32, :], 0.0)))
                p = csp.recv(probs)
                csp.send(pv, p @ htp.pad(v[j:j + 32, :], 0.0))
    with csp.process(name="vector"):
        for i in range(0, seq, 16):
            m = htp.full((16, 1), -1.0e30, f32)
            l = htp.zeros((16, 1), f32)
            acc = htp.zeros((16, 64), f32)
            for j in range(0, seq, 32):
                s = csp.recv(scores) * scale
                cols = htp.iota((16, 32), 1, i32) + j
                s = htp.where(cols >= seq, -1.0e30, s)       # padded keys
                m_new = htp.maximum(m, htp.row_max(s))
                p = htp.exp(s - m_new)
                alpha = htp.exp(m - m_new)
                csp.send(probs, p)
                l = l * alpha + htp.row_sum(p)
                acc = acc * alpha + csp.recv(pv)
                m = m_new
            o[i:i + 16, :] = acc / l


def reference(q, k, v, scale):
    s = (q.astype(np.float64) @ k.astype(np.float64).T) * scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v


def main():
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((100, 64), dtype=np.float32) for _ in range(3))
    scale = 1.0 / np.sqrt(64)
    o = attention(q, k, v, scale=scale)
    print(f"attention [100 x 64] f32 as cube + vector processes: max abs error vs numpy = {np.abs(o - reference(q, k, v, scale)).max():.3e}")


if __name__ == "__main__":
    main()
