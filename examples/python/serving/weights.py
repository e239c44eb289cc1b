"""The model's weights (random, seeded) and RoPE tables, shared by the
served routine and the numpy reference."""

import numpy as np

from model import D, DH, EXPERTS, F, MAXPAGES, PAGE, VOCAB


def rope_tables(positions=MAXPAGES * PAGE, base=10000.0):
    half = DH // 2
    angles = np.arange(positions)[:, None] * base ** (-np.arange(half) / half)[None, :]
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


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
    if moe:
        w["w_router"] = normal(layers, D, EXPERTS, scale=D ** -0.5)
    return w
