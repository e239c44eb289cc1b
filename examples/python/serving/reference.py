"""The same model in numpy, one request at a time and without pages: what
the served tokens must equal (docs/serving.md). Float32 like the kernels,
and like them each product with a bf16 weight takes its left side rounded
to bf16 (`mm`); attention over the request's whole history at once.

`batched_step` is the other numpy form: the routine's decode step itself
(every slot of the batch at once, the same paged KV cache, the same
inputs), the reference `benches/serving.py` times the routine against."""

import ml_dtypes
import numpy as np

from model import DH, EPS, HEADS, PAGE, TOPK


def rmsnorm(x, w):
    return x * (1.0 / np.sqrt((x * x).mean(axis=-1, keepdims=True) + np.float32(EPS))) * w


def rope(t, c, s):
    """GPT-NeoX rotary embedding of every head of t (rows x HEADS*DH)."""
    out = np.empty_like(t)
    half = DH // 2
    for head in range(HEADS):
        x1 = t[:, head * DH:head * DH + half]
        x2 = t[:, head * DH + half:(head + 1) * DH]
        out[:, head * DH:head * DH + half] = x1 * c - x2 * s
        out[:, head * DH + half:(head + 1) * DH] = x2 * c + x1 * s
    return out


def widened(w):
    """The weights with the bf16 ones as f32 arrays of the same values,
    converted once: `mm` then converts no weight per product."""
    return {name: a.astype(np.float32) if a.dtype == ml_dtypes.bfloat16 else a for name, a in w.items()}


def mm(a, w):
    """a @ w as the kernels compute a product with a bf16 weight: a rounded
    to bf16, products and sums in f32. w holds bf16 values, as bf16 or as f32
    (`widened`)."""
    return a.astype(ml_dtypes.bfloat16).astype(np.float32) @ w.astype(np.float32, copy=False)


def silu(t):
    return t / (1.0 + np.exp(-t))


def swiglu(t, wg, wu, wd):
    return mm(silu(mm(t, wg)) * mm(t, wu), wd)


def moe(t, wr, wg, wu, wd):
    scores = t @ wr
    out = np.zeros_like(t)
    for i in range(t.shape[0]):
        order = np.argsort(-scores[i], kind="stable")[:TOPK]
        g0 = 1.0 / (np.exp(scores[i, order[1]] - scores[i, order[0]]) + 1.0)
        for e, g in zip(order, (g0, 1.0 - g0)):
            out[i] += np.float32(g) * swiglu(t[i:i + 1], wg[e], wu[e], wd[e])[0]
    return out


class Request:
    """One request's decoding in numpy: its own K/V history, no batch."""

    def __init__(self, weights):
        self.w = widened(weights)
        layers = weights["attn_norm"].shape[0]
        self.keys = [[] for _ in range(layers)]
        self.values = [[] for _ in range(layers)]

    def step(self, token):
        """Feeds one token at the next position; returns the greedy next token."""
        w = self.w
        position = len(self.keys[0])
        x = w["embedding"][token][None, :].astype(np.float32)
        c, s = w["cos"][position][None, :], w["sin"][position][None, :]
        for l in range(w["attn_norm"].shape[0]):
            h = rmsnorm(x, w["attn_norm"][l])
            qkv = mm(h, w["wqkv"][l])
            q, k, v = rope(qkv[:, :64], c, s), rope(qkv[:, 64:128], c, s), qkv[:, 128:]
            self.keys[l].append(k[0])
            self.values[l].append(v[0])
            keys, values = np.array(self.keys[l]), np.array(self.values[l])
            heads = []
            for head in range(HEADS):
                cols = slice(head * DH, (head + 1) * DH)
                scores = (keys[:, cols] @ q[0, cols]) / np.float32(np.sqrt(DH))
                p = np.exp(scores - scores.max())
                heads.append((p / p.sum()) @ values[:, cols])
            x = x + mm(np.concatenate(heads)[None, :], w["wo"][l])
            h = rmsnorm(x, w["ffn_norm"][l])
            if "w_router" in w:
                x = x + moe(h, w["w_router"][l], w["w_gate"][l], w["w_up"][l], w["w_down"][l])
            else:
                x = x + swiglu(h, w["w_gate"][l], w["w_up"][l], w["w_down"][l])
        logits = mm(rmsnorm(x, w["final_norm"][0]), w["w_out"])
        return int(np.argmax(logits[0])), logits[0]


def batched_step(w, k_cache, v_cache, tokens, positions, lens, block_table):
    """One decode step of every slot, as `model.decode_step` (or
    `decode_step_moe` when `w` has a router) computes it, in numpy: the
    same inputs (B x 1 tokens, positions and lengths, B x MAXPAGES block
    table; a slot of length 0 is empty) and the same paged cache
    (`k_cache`/`v_cache` [L, pages * PAGE, D], position p of slot b in row
    p % PAGE of page table[b, p // PAGE]), into which this step's keys and
    values are appended in place. Attention is batched over the slots with
    their keys gathered through the block table, padded to the longest
    live length and masked. Returns the greedy next tokens (B x 1 int32;
    an empty slot's is meaningless). `w` as `weights.make` gives it, or
    `widened` once for steps that convert no weight."""
    tokens, positions, lens = tokens[:, 0], positions[:, 0], lens[:, 0]
    batch = tokens.shape[0]
    live = lens > 0
    x = w["embedding"][tokens]
    c, s = w["cos"][positions], w["sin"][positions]
    t = np.arange(int(lens.max(initial=0)))
    rows = block_table[:, t // PAGE] * PAGE + t % PAGE                       # B x T: each slot's cache rows
    masked = t[None, :] >= lens[:, None]                                    # B x T: past the slot's length
    new_rows = block_table[live, positions[live] // PAGE] * PAGE + positions[live] % PAGE
    scale = np.float32(1.0 / np.sqrt(DH))
    for l in range(w["attn_norm"].shape[0]):
        h = rmsnorm(x, w["attn_norm"][l])
        qkv = mm(h, w["wqkv"][l])
        q, k, v = rope(qkv[:, :64], c, s), rope(qkv[:, 64:128], c, s), qkv[:, 128:]
        k_cache[l, new_rows] = k[live]
        v_cache[l, new_rows] = v[live]
        keys = k_cache[l][rows].reshape(batch, -1, HEADS, DH)               # B x T x H x DH
        values = v_cache[l][rows].reshape(batch, -1, HEADS, DH)
        scores = (q.reshape(batch, HEADS, 1, DH) * scale) @ keys.transpose(0, 2, 3, 1)   # B x H x 1 x T
        scores = np.where(masked[:, None, None, :], np.float32(-1.0e30), scores)
        p = np.exp(scores - scores.max(axis=-1, keepdims=True))
        p /= p.sum(axis=-1, keepdims=True)
        attn = (p @ values.transpose(0, 2, 1, 3)).reshape(batch, HEADS * DH)  # B x D
        x = x + mm(attn, w["wo"][l])
        h = rmsnorm(x, w["ffn_norm"][l])
        if "w_router" in w:
            scores = h @ w["w_router"][l]                                    # B x EXPERTS
            order = np.argsort(-scores, axis=1, kind="stable")[:, :TOPK]
            best = np.take_along_axis(scores, order, axis=1)
            g0 = 1.0 / (np.exp(best[:, 1] - best[:, 0]) + 1.0)
            gates = np.zeros_like(scores)
            every = np.arange(batch)
            gates[every, order[:, 0]] = g0
            gates[every, order[:, 1]] = 1.0 - g0
            gates[~live] = 0.0
            for e in range(scores.shape[1]):
                chose = np.flatnonzero(gates[:, e] > 0.0)                    # an expert no live token chose is skipped
                if chose.size:
                    x[chose] += gates[chose, e:e + 1] * swiglu(h[chose], w["w_gate"][l, e], w["w_up"][l, e],
                                                               w["w_down"][l, e])
        else:
            x = x + swiglu(h, w["w_gate"][l], w["w_up"][l], w["w_down"][l])
    logits = mm(rmsnorm(x, w["final_norm"][0]), w["w_out"])
    return np.argmax(logits, axis=1).astype(np.int32)[:, None]
