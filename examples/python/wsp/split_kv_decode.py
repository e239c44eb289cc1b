"""Split-KV decode attention over ragged KV lengths, FlashInfer style, as a
WSP workload.

Each request b has one query per head and lens[b] keys/values. A planner
written in the workload (it runs where the lengths are known: on the host
at call time on the cpu) picks the chunk size, in whole KV blocks of BLK
rows, from the lengths and the cores: all (request, head) KV blocks laid
end to end are cut into one equal segment per core, as FlashInfer's
persistent ``MLAPlan`` balances clusters, never more than MAXC pieces per
request. The segment is written to `plan` (what FlashInfer's plan()
returns). Chunk tasks write a partial output and
its log-sum-exp; a merge task per (request, head) combines them. The merge
depends on its chunks through the data (RAW on the partial buffers): no
explicit edge is written.
"""

import numpy as np

import htp
from htp import f32, i32

wsp = htp.model("wsp")

BLK = 64      # KV rows per block (the planner's unit)
MAXC = 32     # chunks per request at most (the merge's tile)
D = 64        # head dimension


@htp.kernel
def decode_chunk(q: htp.Tensor[f32, 1, 64], k: htp.Tensor[f32, "L", 64], v: htp.Tensor[f32, "L", 64],
                 o: htp.Out[f32, 1, 64], lse: htp.Out[f32, 1, 1], count: htp.i32, scale: f32):
    """Attention of one query over the first `count` rows of k/v (online
    softmax over blocks of 64): the normalised partial output and its
    log-sum-exp."""
    qi = q[0:1, :]
    m = htp.full((1, 1), -1.0e30, f32)
    l = htp.zeros((1, 1), f32)
    acc = htp.zeros((1, 64), f32)
    for j in range(0, count, 64):
        s = (qi @ htp.transpose(htp.pad(k[j:j + 64, :], 0.0))) * scale
        cols = htp.iota((1, 64), 1, i32) + j
        s = htp.where(cols >= count, -1.0e30, s)
        m_new = htp.maximum(m, htp.row_max(s))
        p = htp.exp(s - m_new)
        alpha = htp.exp(m - m_new)
        l = l * alpha + htp.row_sum(p)
        acc = acc * alpha + p @ htp.pad(v[j:j + 64, :], 0.0)
        m = m_new
    o[:, :] = acc / l
    lse[:, :] = m + htp.log(l)


@htp.kernel
def decode_merge(po: htp.Tensor[f32, 32, 64], plse: htp.Tensor[f32, 32, 1], o: htp.Out[f32, 1, 64], chunks: htp.i32):
    """Combines the first `chunks` partial outputs of a request by their
    log-sum-exps: o = sum_c w_c po_c / sum_c w_c, w_c = exp(lse_c - max)."""
    cols = htp.iota((1, 32), 1, i32)
    lse = htp.where(cols >= chunks, -1.0e30, htp.transpose(plse[0:32, :]))   # 1 x 32
    w = htp.exp(lse - htp.row_max(lse))
    # Rows past `chunks` hold whatever the workspace held: never read them.
    rows = htp.iota((32, 64), 0, i32)
    acc = w @ htp.where(rows >= chunks, 0.0, po[0:32, :])
    o[:, :] = acc / htp.row_sum(w)


@htp.kernel
def record_plan(plan: htp.Out[i32, 1, 1], chunk: htp.i32):
    """Writes the planner's segment (KV blocks per core) where the caller can read it."""
    plan[:, :] = htp.full((1, 1), chunk, i32)


@htp.func
def ceil_div(a, b):
    return (a + b - 1) // b


@wsp.workload
def split_kv_decode(q: htp.Tensor[f32, "B", "H", 64], k: htp.Tensor[f32, "B", "H", "L", 64],
                    v: htp.Tensor[f32, "B", "H", "L", 64], lens: htp.Tensor[i32, "B"],
                    po: htp.Out[f32, "B", "H", 32, 64], plse: htp.Out[f32, "B", "H", 32, 1],
                    o: htp.Out[f32, "B", "H", 64], plan: htp.Out[i32, 1, 1], scale: f32):
    batch = q.shape[0]
    heads = q.shape[1]
    # The planner. Every (request, head)'s KV blocks laid end to end make
    # one line of work; the line is cut into one equal segment per core (at
    # least what keeps a request under MAXC pieces). A request's piece in
    # segment c is a chunk task whose first key is c: under the affinity
    # schedule (a task on the worker its first key names) every core gets
    # the same number of KV blocks, to one block; the default dynamic queue
    # balances the equal-sized pieces by itself (and PTO's ready queues do,
    # which have no placement).
    total = 0
    longest = 0
    for b in range(batch):
        blocks = ceil_div(wsp.read(lens, b), 64)
        total = total + blocks
        longest = max(longest, blocks)
    segment = max(max(ceil_div(total * heads, wsp.cores()), ceil_div(longest, 31)), 1)
    wsp.task(record_plan, plan, segment)
    position = 0
    for b in range(batch):
        n = wsp.read(lens, b)
        blocks = ceil_div(n, 64)
        for h in range(heads):
            if blocks > 0:
                first = position // segment
                last = (position + blocks - 1) // segment
                if first == last:
                    # One piece: its output is the answer, no merge.
                    wsp.task(decode_chunk, q[b, h:h + 1, :], k[b, h, 0:1048576, :], v[b, h, 0:1048576, :],
                             o[b, h:h + 1, :], plse[b, h, 0:1, :], n, scale, keys=(first, b, h, 0, blocks))
                pieces = last + 1
                if first == last:
                    pieces = first
                for c in range(first, pieces):
                    lo = max(position, c * segment) - position         # in blocks
                    hi = min(position + blocks, (c + 1) * segment) - position
                    count = min(hi * 64, n) - lo * 64
                    piece = c - first
                    # The view runs to the end of the cache (2^20 rows at
                    # most); the kernel reads its `count` rows of it. The
                    # keys name the piece's core and blocks (traces, benches).
                    wsp.task(decode_chunk, q[b, h:h + 1, :], k[b, h, lo * 64:lo * 64 + 1048576, :],
                             v[b, h, lo * 64:lo * 64 + 1048576, :], po[b, h, piece:piece + 1, :],
                             plse[b, h, piece:piece + 1, :], count, scale, keys=(c, b, h, lo, hi))
                if first < last:
                    wsp.task(decode_merge, po[b, h, 0:32, :], plse[b, h, 0:32, :], o[b, h:h + 1, :], last - first + 1,
                             keys=(last, b, h))
                position = position + blocks


def run(q, k, v, lens, scale):
    """Decode attention of q over the first lens[b] keys/values of each
    request (the workspaces allocated here, as a serving wrapper would)."""
    batch, heads = q.shape[0], q.shape[1]
    po = np.empty((batch, heads, MAXC, D), np.float32)
    plse = np.empty((batch, heads, MAXC, 1), np.float32)
    o = np.empty((batch, heads, D), np.float32)
    plan = np.empty((1, 1), np.int32)
    split_kv_decode(q, k, v, lens, po, plse, o, plan, np.float32(scale))
    return o


def reference(q, k, v, lens, scale):
    o = np.zeros(q.shape, np.float64)
    for b, n in enumerate(lens):
        for h in range(q.shape[1]):
            s = (k[b, h, :n].astype(np.float64) @ q[b, h]) * scale
            p = np.exp(s - s.max())
            o[b, h] = (p / p.sum()) @ v[b, h, :n]
    return o


def main():
    rng = np.random.default_rng(0)
    lens = np.array([17, 600, 130, 4000, 64, 1, 2048, 333], np.int32)
    batch, heads = len(lens), 2
    q = rng.standard_normal((batch, heads, D), dtype=np.float32)
    k = rng.standard_normal((batch, heads, int(lens.max()), D), dtype=np.float32)
    v = rng.standard_normal((batch, heads, int(lens.max()), D), dtype=np.float32)
    o = run(q, k, v, lens, 0.125)
    error = np.abs(o - reference(q, k, v, lens, 0.125)).max()
    print(f"split-KV decode, {batch} requests x {heads} heads, KV lengths {lens.tolist()}: "
          f"max abs error vs numpy = {error:.3e}")


if __name__ == "__main__":
    main()
