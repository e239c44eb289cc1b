"""The decode step of model.py on a group of chips (docs/serving.md, "Several
chips"): one WSP workload per chip per step, the same package on every
chip, each chip with its own shard of the weights and of the KV cache, and
the collectives inside the step as tasks.

**Tensor parallelism** (Megatron-LM's split of a transformer layer): chip
`c` of `n` holds HEADS / n heads — their q, k and v columns of `wqkv`,
their columns of every KV-cache page (the block table is the same on every
chip: a page holds the chip's heads of its positions), their rows of the
output projection `wo` — and F / n of the FFN's hidden columns (its
columns of `w_gate` and `w_up`, its rows of `w_down`). Each chip computes
its heads' attention and its share of the FFN: a partial sum of the
layer's output, which an **allreduce** (`allreduce_add` of
examples/python/collectives/, added into the residual) makes whole on every
chip: one after the attention output projection, one after the FFN's down
projection. Everything else (embedding, norms, sampling) is replicated:
each chip computes the same floats, so every chip samples the same tokens.

**Expert parallelism** (the MoE variant): chip `c` holds EXPERTS / n of
the experts (`experts`: their ids). The router is replicated (every chip
has every token after the attention's allreduce, so each computes the same
gates); each chip applies its experts to the tokens that chose them and the
allreduce that follows the FFN combines the experts' contributions (the
tokens are already on every chip, so a dispatch would move nothing:
docs/decisions.md, "Tensor and expert parallelism of the decode step").

A collective is an `@htp.kernel` with communication windows
(`comm.Window[...]`); the workload declares the windows (one mailbox per
exchange of the step: `[layer, 0 | 1]`) and hands them to each collective
task with the mailbox it uses, so no exchange reuses memory a slower chip
may still read.
"""

import os
import sys

import numpy as np

import htp
from htp import bf16, comm, f32, i32

sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "collectives")))

import model  # noqa: E402
from collectives import allreduce_add  # noqa: E402
from model import (  # noqa: E402
    append_kv, attention, embed, expert_add, qkv_rope, rmsnorm, route, sample, swiglu)

wsp = htp.model("wsp")


# ----------------------------------------------------------------------------
# The kernels a chip's share adds: partial sums (an allreduce adds them into x)
# ----------------------------------------------------------------------------


@htp.kernel
def project(a: htp.Tensor[f32, "B", "QD"], w: htp.Tensor[bf16, "QD", 64], y: htp.Out[f32, "B", 64],
            QD: htp.Const[int] = 64):
    """y = a @ w: this chip's heads' share of the output projection."""
    for r in range(0, y.shape[0], 8):
        y[r:r + 8, :] = htp.cast(htp.pad(a[r:r + 8, :], 0.0), bf16) @ w[:, :]


@htp.kernel
def ffn(h: htp.Tensor[f32, "B", 64], wg: htp.Tensor[bf16, 64, "FC"], wu: htp.Tensor[bf16, 64, "FC"],
        wd: htp.Tensor[bf16, "FC", 64], y: htp.Out[f32, "B", 64], FC: htp.Const[int] = 128):
    """y = SwiGLU(h) over this chip's FC hidden columns: its share of the FFN."""
    for r in range(0, y.shape[0], 8):
        y[r:r + 8, :] = swiglu(htp.pad(h[r:r + 8, :], 0.0), wg[:, :], wu[:, :], wd[:, :])


@htp.kernel
def zero(y: htp.Out[f32, "B", 64]):
    for r in range(0, y.shape[0], 8):
        y[r:r + 8, :] = htp.zeros((8, 64), f32)


# ----------------------------------------------------------------------------
# The step of one chip
# ----------------------------------------------------------------------------


@htp.func
def attention_share(l, x, h, q, k_new, v_new, attn, po, plse, part, positions, lens, block_table, attn_norm, wqkv, wo,
                    cos, sin, k_cache, v_cache, boxes, done):
    """x += attention(RMSNorm(x)) for layer l: this chip's heads (their K/V
    appended to its cache first), their share of the projection, then the
    allreduce of the shares into x."""
    wsp.task(rmsnorm, x, attn_norm[l:l + 1, :], h, 1.0e-5)
    wsp.task(qkv_rope, h, wqkv[l, :, :], cos, sin, positions, q, k_new, v_new)
    wsp.task(append_kv, k_new, v_new, positions, lens, block_table, k_cache[l, :, :], v_cache[l, :, :])
    attention(l, q, k_cache, v_cache, block_table, lens, po, plse, attn, 0.25)   # 1 / sqrt(DH)
    wsp.task(project, attn, wo[l, :, :], part)
    wsp.task(allreduce_add, part, x, boxes, done, l, 0)


@wsp.workload
def decode_step_tp(tokens: htp.Tensor[i32, "B", 1], positions: htp.Tensor[i32, "B", 1],
                   lens: htp.Tensor[i32, "B", 1], block_table: htp.Tensor[i32, "B", 8],
                   embedding: htp.Tensor[f32, "V", 64], attn_norm: htp.Tensor[f32, "L", 64],
                   wqkv: htp.Tensor[bf16, "L", 64, "QKV"], wo: htp.Tensor[bf16, "L", "QD", 64],
                   ffn_norm: htp.Tensor[f32, "L", 64], w_gate: htp.Tensor[bf16, "L", 64, "FC"],
                   w_up: htp.Tensor[bf16, "L", 64, "FC"], w_down: htp.Tensor[bf16, "L", "FC", 64],
                   final_norm: htp.Tensor[f32, 1, 64], w_out: htp.Tensor[bf16, 64, 128],
                   cos: htp.Tensor[f32, "M", 8], sin: htp.Tensor[f32, "M", 8],
                   k_cache: htp.InOut[f32, "L", "S", "QD"], v_cache: htp.InOut[f32, "L", "S", "QD"],
                   x: htp.Out[f32, "B", 64], h: htp.Out[f32, "B", 64], q: htp.Out[f32, "B", "QD"],
                   k_new: htp.Out[f32, "B", "QD"], v_new: htp.Out[f32, "B", "QD"], attn: htp.Out[f32, "B", "QD"],
                   po: htp.Out[f32, "B", 8, "QD"], plse: htp.Out[f32, "B", 8, 8], part: htp.Out[f32, "B", 64],
                   logits: htp.Out[f32, "B", 128], next_tokens: htp.Out[i32, "B", 1],
                   boxes: comm.Window[f32, "L", 2, 8, "B", 64], done: comm.Window[i32, "L", 2, 8],
                   QD: htp.Const[int] = 64, QKV: htp.Const[int] = 192, FC: htp.Const[int] = 128):
    """One decode step of the dense model on one chip of a tensor-parallel
    group: its QD // 16 heads and FC hidden columns, two allreduces a layer."""
    wsp.task(embed, tokens, embedding, x)
    for l in range(attn_norm.shape[0]):
        attention_share(l, x, h, q, k_new, v_new, attn, po, plse, part, positions, lens, block_table, attn_norm, wqkv,
                        wo, cos, sin, k_cache, v_cache, boxes, done)
        wsp.task(rmsnorm, x, ffn_norm[l:l + 1, :], h, 1.0e-5)
        wsp.task(ffn, h, w_gate[l, :, :], w_up[l, :, :], w_down[l, :, :], part)
        wsp.task(allreduce_add, part, x, boxes, done, l, 1)
    wsp.task(rmsnorm, x, final_norm, h, 1.0e-5)
    wsp.task(sample, h, w_out, logits, next_tokens)


@wsp.workload
def decode_step_moe_ep(tokens: htp.Tensor[i32, "B", 1], positions: htp.Tensor[i32, "B", 1],
                       lens: htp.Tensor[i32, "B", 1], block_table: htp.Tensor[i32, "B", 8],
                       embedding: htp.Tensor[f32, "V", 64], attn_norm: htp.Tensor[f32, "L", 64],
                       wqkv: htp.Tensor[bf16, "L", 64, "QKV"], wo: htp.Tensor[bf16, "L", "QD", 64],
                       ffn_norm: htp.Tensor[f32, "L", 64], w_router: htp.Tensor[f32, "L", 64, 8],
                       experts: htp.Tensor[i32, "E", 1], w_gate: htp.Tensor[bf16, "L", "E", 64, 128],
                       w_up: htp.Tensor[bf16, "L", "E", 64, 128], w_down: htp.Tensor[bf16, "L", "E", 128, 64],
                       final_norm: htp.Tensor[f32, 1, 64], w_out: htp.Tensor[bf16, 64, 128],
                       cos: htp.Tensor[f32, "M", 8], sin: htp.Tensor[f32, "M", 8],
                       k_cache: htp.InOut[f32, "L", "S", "QD"], v_cache: htp.InOut[f32, "L", "S", "QD"],
                       x: htp.Out[f32, "B", 64], h: htp.Out[f32, "B", 64], q: htp.Out[f32, "B", "QD"],
                       k_new: htp.Out[f32, "B", "QD"], v_new: htp.Out[f32, "B", "QD"],
                       attn: htp.Out[f32, "B", "QD"], po: htp.Out[f32, "B", 8, "QD"], plse: htp.Out[f32, "B", 8, 8],
                       part: htp.Out[f32, "B", 64], gates: htp.Out[f32, "B", 8], counts: htp.Out[i32, 8, 1],
                       logits: htp.Out[f32, "B", 128], next_tokens: htp.Out[i32, "B", 1],
                       boxes: comm.Window[f32, "L", 2, 8, "B", 64], done: comm.Window[i32, "L", 2, 8],
                       QD: htp.Const[int] = 64, QKV: htp.Const[int] = 192):
    """One decode step of the MoE model on one chip of a group: attention
    split by heads as decode_step_tp's; the experts `experts` lists (this
    chip's; `w_gate` etc. hold theirs), each skipped when no live token
    chose it, their contributions combined with the other chips' by the
    allreduce after the FFN."""
    wsp.task(embed, tokens, embedding, x)
    for l in range(attn_norm.shape[0]):
        attention_share(l, x, h, q, k_new, v_new, attn, po, plse, part, positions, lens, block_table, attn_norm, wqkv,
                        wo, cos, sin, k_cache, v_cache, boxes, done)
        wsp.task(rmsnorm, x, ffn_norm[l:l + 1, :], h, 1.0e-5)
        wsp.task(route, h, lens, w_router[l, :, :], gates, counts)
        wsp.task(zero, part)
        for e in wsp.parallel(experts.shape[0]):
            expert = wsp.read(experts, e, 0)
            with wsp.when(wsp.element(counts, expert, 0) > 0):
                wsp.task(expert_add, h, gates, w_gate[l, e, :, :], w_up[l, e, :, :], w_down[l, e, :, :], part, expert)
        wsp.task(allreduce_add, part, x, boxes, done, l, 1)
    wsp.task(rmsnorm, x, final_norm, h, 1.0e-5)
    wsp.task(sample, h, w_out, logits, next_tokens)


# ----------------------------------------------------------------------------
# The host side: the routine, the constants of a chip's share, the shards
# ----------------------------------------------------------------------------


def step(moe=False):
    return decode_step_moe_ep if moe else decode_step_tp


def constants(chips, moe=False):
    """The compile-time widths of one chip's share of a group of `chips`."""
    if model.HEADS % chips or model.F % chips or model.EXPERTS % chips:
        raise ValueError(f"{chips} chips do not divide the model's {model.HEADS} heads, {model.F} FFN columns and "
                         f"{model.EXPERTS} experts")
    qd = model.HEADS // chips * model.DH
    share = {"QD": qd, "QKV": 3 * qd}
    if not moe:
        share["FC"] = model.F // chips
    return share


def shard(w, chips):
    """Each chip's weights: a list of `chips` arrays for a split tensor (chip
    c's heads' wqkv columns and wo rows, its FFN columns / rows or its
    experts), one array for a replicated one."""
    qd = model.HEADS // chips * model.DH
    out = {}
    for name, array in w.items():
        if name == "wqkv":      # [L, D, 3D]: q | k | v columns, each HEADS x DH
            out[name] = [np.concatenate([array[:, :, part * model.D + c * qd:part * model.D + (c + 1) * qd]
                                         for part in range(3)], axis=2) for c in range(chips)]
        elif name == "wo":      # [L, D, D]: a head's rows
            out[name] = [array[:, c * qd:(c + 1) * qd, :] for c in range(chips)]
        elif name in ("w_gate", "w_up", "w_down") and "w_router" in w:   # [L, EXPERTS, ...]: a chip's experts
            ec = model.EXPERTS // chips
            out[name] = [array[:, c * ec:(c + 1) * ec] for c in range(chips)]
        elif name in ("w_gate", "w_up"):                                  # [L, D, F]: hidden columns
            fc = model.F // chips
            out[name] = [array[:, :, c * fc:(c + 1) * fc] for c in range(chips)]
        elif name == "w_down":                                            # [L, F, D]: hidden rows
            fc = model.F // chips
            out[name] = [array[:, c * fc:(c + 1) * fc, :] for c in range(chips)]
        else:
            out[name] = array
    if "w_router" in w:
        ec = model.EXPERTS // chips
        out["experts"] = [np.arange(c * ec, (c + 1) * ec, dtype=np.int32)[:, None] for c in range(chips)]
    return {name: [np.ascontiguousarray(a) for a in v] if isinstance(v, list) else v for name, v in out.items()}


def initial_state(w, layers, chips, slots, pool):
    """Each chip's state: its shard of the weights, an empty cache of `pool`
    pages per layer for its heads, workspaces for `slots`."""
    return model.empty_state(shard(w, chips), layers, slots, pool, width=model.HEADS // chips * model.DH,
                             shared=("part",))
