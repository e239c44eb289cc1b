"""The model's weights (random, seeded) and RoPE tables, shared by the
served routine and the numpy reference. The projections' weights (QKV,
output, FFN or experts, logits) are bf16, as served models hold them
(`ml_dtypes.bfloat16` arrays); the kernels round each product's left side
to bf16 and accumulate in f32. Embedding, norms, the RoPE tables and the
MoE router stay f32 (a router's top-2 choice is the one place a bf16
rounding would decide a discrete outcome)."""

import ml_dtypes
import numpy as np

from model import D, DH, EXPERTS, F, MAXPAGES, PAGE, VOCAB


def rope_tables(positions=MAXPAGES * PAGE, base=10000.0):
    half = DH // 2
    angles = np.arange(positions)[:, None] * base ** (-np.arange(half) / half)[None, :]
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


# The weights held in bf16.
BF16 = ("wqkv", "wo", "w_gate", "w_up", "w_down", "w_out")


def make(layers=2, moe=False, seed=0):
    """Weights of a LAYERS-deep model; `moe` gives each layer EXPERTS SwiGLU
    experts and a router instead of one SwiGLU FFN."""
    rng = np.random.default_rng(seed)

    def normal(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    ffn = (layers, EXPERTS) if moe else (layers,)
    cos, sin = rope_tables()
    w = {
        "embedding": normal(VOCAB, D),
        "attn_norm": (1.0 + normal(layers, D, scale=0.1)),
        "wqkv": normal(layers, D, 3 * D, scale=D ** -0.5),
        "wo": normal(layers, D, D, scale=D ** -0.5),
        "ffn_norm": (1.0 + normal(layers, D, scale=0.1)),
        "w_gate": normal(*ffn, D, F, scale=D ** -0.5),
        "w_up": normal(*ffn, D, F, scale=D ** -0.5),
        "w_down": normal(*ffn, F, D, scale=F ** -0.5),
        "final_norm": (1.0 + normal(1, D, scale=0.1)),
        "w_out": normal(D, VOCAB, scale=D ** -0.5 * 4.0),
        "cos": cos,
        "sin": sin,
    }
    for name in BF16:
        w[name] = w[name].astype(ml_dtypes.bfloat16)
    if moe:
        w["w_router"] = normal(layers, D, EXPERTS, scale=D ** -0.5)
    return w
