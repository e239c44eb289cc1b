"""Mixture of experts with top-2 routing, as a WSP workload.

A router task scores every token against the E experts, keeps each token's
two best (their softmax weights renormalised over the two), and builds the
routing on the device: per expert, the tokens routed to it in order
(`ids`, a slot per token at most), how many (`counts`), and per token the
slot each of its two choices landed in (`pos1`, `pos2`). Expert tasks run
over a maximum-sized grid (expert x tile of slots), each guarded by
`counts[e] > first slot of its tile` — read when the task runs, after the
router wrote it: the predicated dispatch production pto-runtime MoE code
uses, never a blocking read while issuing. A combine task per tile of
tokens gathers the two expert outputs of each token and weights them.
"""

import numpy as np

import htp
from htp import f32, i32

wsp = htp.model("wsp")

T = 64      # tokens
E = 8       # experts
D = 64      # model dimension
F = 64      # expert hidden dimension
TILE = 16   # slots per expert task


@htp.kernel
def router(x: htp.Tensor[f32, 64, 64], wg: htp.Tensor[f32, 64, 8], ids: htp.Out[i32, 512, 1], counts: htp.Out[i32, 8, 1],
           pos1: htp.Out[i32, 64, 1], pos2: htp.Out[i32, 64, 1], gate1: htp.Out[f32, 64, 1], gate2: htp.Out[f32, 64, 1]):
    s = x[:, :] @ wg[:, :]                                   # 64 tokens x 8 experts
    cols = htp.iota((64, 8), 1, f32)
    m1 = htp.row_max(s)
    e1 = htp.row_min(htp.where(s == m1, cols, 8.0))          # the first best expert
    s2 = htp.where(cols == e1, -1.0e30, s)
    m2 = htp.row_max(s2)
    e2 = htp.row_min(htp.where(s2 == m2, cols, 8.0))         # the second
    g1 = htp.recip(htp.exp(m2 - m1) + 1.0)
    gate1[:, :] = g1
    gate2[:, :] = 1.0 - g1
    # Exclusive prefix counts of each expert's tokens through a strictly
    # upper-triangular matmul (row vectors: token t at column t).
    upper = htp.where(htp.iota((64, 64), 0, f32) < htp.iota((64, 64), 1, f32), 1.0, 0.0)
    slots = htp.iota((64, 64), 0, f32)                       # slot j at row j
    tokens = htp.iota((1, 64), 1, f32)
    first = htp.transpose(e1)                                # 1 x 64
    second = htp.transpose(e2)
    p1 = htp.zeros((64, 1), f32)
    p2 = htp.zeros((64, 1), f32)
    for e in htp.static_range(0, 8, 1):
        chosen = htp.maximum(htp.where(first == float(e), 1.0, 0.0), htp.where(second == float(e), 1.0, 0.0))
        prefix = chosen @ upper                              # 1 x 64: the slot of each chosen token
        onehot = htp.where(chosen > 0.0, htp.where(prefix == slots, 1.0, 0.0), 0.0)   # slot x token
        ids[e * 64:e * 64 + 64, :] = htp.cast(htp.row_sum(onehot * tokens), i32)
        counts[e:e + 1, :] = htp.cast(htp.row_sum(chosen), i32)
        column = htp.transpose(prefix) + float(e * 64)       # 64 x 1
        p1 = htp.where(e1 == float(e), column, p1)
        p2 = htp.where(e2 == float(e), column, p2)
    pos1[:, :] = htp.cast(p1, i32)
    pos2[:, :] = htp.cast(p2, i32)


@htp.kernel
def expert(x: htp.Tensor[f32, 64, 64], ids: htp.Tensor[i32, 16, 1], w: htp.Tensor[f32, 64, 64], y: htp.Out[f32, 16, 64]):
    """One tile of an expert's slots: gathers its tokens, y = relu(x w)."""
    rows = htp.gather(x, ids[:, :], 0, 64)
    y[:, :] = htp.maximum(rows @ w[:, :], 0.0)


@htp.kernel
def combine(y: htp.Tensor[f32, 512, 64], pos1: htp.Tensor[i32, 16, 1], pos2: htp.Tensor[i32, 16, 1],
            gate1: htp.Tensor[f32, 16, 1], gate2: htp.Tensor[f32, 16, 1], out: htp.Out[f32, 16, 64]):
    out[:, :] = htp.gather(y, pos1[:, :], 0, 64) * gate1[:, :] + htp.gather(y, pos2[:, :], 0, 64) * gate2[:, :]


@wsp.workload
def moe(x: htp.Tensor[f32, 64, 64], wg: htp.Tensor[f32, 64, 8], w: htp.Tensor[f32, 8, 64, 64], out: htp.Out[f32, 64, 64],
        ids: htp.Out[i32, 512, 1], counts: htp.Out[i32, 8, 1], pos1: htp.Out[i32, 64, 1], pos2: htp.Out[i32, 64, 1],
        gate1: htp.Out[f32, 64, 1], gate2: htp.Out[f32, 64, 1], y: htp.Out[f32, 512, 64]):
    wsp.task(router, x, wg, ids, counts, pos1, pos2, gate1, gate2)
    for e, t in wsp.parallel(8, 4):
        with wsp.when(wsp.element(counts, e, 0) > t * 16):
            slot = e * 64 + t * 16
            wsp.task(expert, x, ids[slot:slot + 16, :], w[e, :, :], y[slot:slot + 16, :])
    for t in wsp.parallel(4):
        r = t * 16
        wsp.task(combine, y, pos1[r:r + 16, :], pos2[r:r + 16, :], gate1[r:r + 16, :], gate2[r:r + 16, :], out[r:r + 16, :])


def run(x, wg, w):
    """The MoE layer on x (workspaces allocated here, as a serving wrapper would)."""
    out = np.empty((T, F), np.float32)
    ids = np.zeros((E * T, 1), np.int32)
    counts = np.empty((E, 1), np.int32)
    pos1, pos2 = np.empty((T, 1), np.int32), np.empty((T, 1), np.int32)
    gate1, gate2 = np.empty((T, 1), np.float32), np.empty((T, 1), np.float32)
    y = np.zeros((E * T, F), np.float32)
    moe(x, wg, w, out, ids, counts, pos1, pos2, gate1, gate2, y)
    return out, counts


def reference(x, wg, w):
    s = x.astype(np.float64) @ wg
    order = np.argsort(-s, axis=1, kind="stable")[:, :2]
    top = np.take_along_axis(s, order, axis=1)
    g1 = 1.0 / (1.0 + np.exp(top[:, 1] - top[:, 0]))
    out = np.zeros((x.shape[0], w.shape[2]))
    for t in range(x.shape[0]):
        for k, g in ((0, g1[t]), (1, 1.0 - g1[t])):
            out[t] += g * np.maximum(x[t].astype(np.float64) @ w[order[t, k]], 0.0)
    return out, np.bincount(order.ravel(), minlength=wg.shape[1])


def main():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((T, D), dtype=np.float32)
    wg = rng.standard_normal((D, E), dtype=np.float32)
    w = rng.standard_normal((E, D, F), dtype=np.float32) / 8
    out, counts = run(x, wg, w)
    expected, expected_counts = reference(x, wg, w)
    print(f"moe top-2 of {E} experts, {T} tokens: tokens per expert {counts.ravel().tolist()} "
          f"(numpy {expected_counts.tolist()}), max abs error vs numpy = {np.abs(out - expected).max():.3e}")


if __name__ == "__main__":
    main()
