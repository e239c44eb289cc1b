"""Flash attention for the AIE targets: O = softmax(Q K^T * scale) V over
[S x 64] bf16 Q, K, V (f32 out), a 16-row query block per core. K and V do
not fit a core (S = 512: 128 KiB of them): the KV loop walks them 32 rows a
trip, streamed through each column's memtile, and the online softmax keeps a
running max `m`, sum `l` and accumulator `acc` per query row in the core's
stack. Both matmuls run on the AIE2 MAC unit (`q @ k.T` with K's tiles
transposed in registers, `cast(p) @ v` with the cast a vector op of its
own), the exp and the rescaling on the vector unit.

Runs on the CPU target and in HTP's functional AIE simulator (aie-sim, the
design's cores and FIFOs) against numpy, and writes the AIE package
(docs/targets/aie.md).
"""

import sys

import numpy as np

import htp
from htp import bf16, f32

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - bf16 inputs need ml_dtypes
    ml_dtypes = None


@htp.kernel
def flash_attention(q: htp.Tensor[bf16, "S", 64], k: htp.Tensor[bf16, "S", 64], v: htp.Tensor[bf16, "S", 64],
                    o: htp.Out[f32, "S", 64], S: htp.Const[int] = 512):
    for i in range(0, S, 16):
        qi = q[i:i + 16, :]
        m = htp.full((16, 1), -1.0e30, f32)
        l = htp.zeros((16, 1), f32)
        acc = htp.zeros((16, 64), f32)
        for j in range(0, S, 32):
            s = (qi @ htp.transpose(k[j:j + 32, :])) * 0.125
            m_new = htp.maximum(m, htp.row_max(s))
            p = htp.exp(s - m_new)
            alpha = htp.exp(m - m_new)
            l = l * alpha + htp.row_sum(p)
            acc = acc * alpha + htp.cast(p, bf16) @ v[j:j + 32, :]
            m = m_new
        o[i:i + 16, :] = acc / l


def operands(rows=512, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal((rows, 64)).astype(ml_dtypes.bfloat16) for _ in range(3))


def reference(q, k, v):
    s = q.astype(np.float64) @ k.astype(np.float64).T * 0.125
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return (p / p.sum(axis=1, keepdims=True)) @ v.astype(np.float64)


def main(package=None):
    if ml_dtypes is None:
        print("flash_attention on AIE: skipped (bf16 inputs need ml_dtypes: pip install ml_dtypes)")
        return
    q, k, v = operands()
    expected = reference(q, k, v)
    print(f"flash attention [512 x 64] bf16 on cpu: max abs error vs numpy = {np.abs(flash_attention(q, k, v) - expected).max():.3e}")
    simulated = flash_attention.compile(target="aie-sim")(q, k, v)
    print(f"flash attention on aie-sim: max abs error vs numpy = {np.abs(simulated - expected).max():.3e}")
    compiled = flash_attention.compile(target="aie-npu1")
    metrics = compiled.metrics(q, k, v)
    cores = int(metrics["cores"])
    print(f"aie-npu1 design: {cores} cores, {compiled.ir['aie'].count('vector.contract') // cores} MAC tiles per core per KV trip")
    if package:
        print("package:", compiled.write_package(package))


if __name__ == "__main__":
    main(*sys.argv[1:])
