"""Split-KV decode attention over ragged KV lengths, FlashInfer style, as a
WSP workload.

Each request b has one query per head and lens[b] keys/values. A planner
written in the workload (it runs where the lengths are known: on the host
at call time on the cpu) picks the chunk size, in whole KV blocks of BLK
rows, from the lengths and the cores: the smallest chunk that keeps the
number of chunks near the number of cores, as FlashInfer's
``PartitionPagedKVCacheBinarySearchMinNumPagePerBatch`` does, and never
more than MAXC chunks per request. Chunk tasks write a partial output and
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
    log-sum-exps."""
    rows = htp.iota((32, 1), 0, i32)
    lse = htp.where(rows >= chunks, -1.0e30, plse[0:32, :])
    w = htp.exp(lse - htp.col_max(lse))
    # Rows past `chunks` hold whatever the workspace held: never read them.
    acc = htp.col_sum(htp.where(rows >= chunks, 0.0, po[0:32, :]) * w)
    o[:, :] = acc / htp.col_sum(w)


@htp.func
def ceil_div(a, b):
    return (a + b - 1) // b


@wsp.workload
def split_kv_decode(q: htp.Tensor[f32, "B", "H", 64], k: htp.Tensor[f32, "B", "H", "L", 64],
                    v: htp.Tensor[f32, "B", "H", "L", 64], lens: htp.Tensor[i32, "B"],
                    po: htp.Out[f32, "B", "H", 32, 64], plse: htp.Out[f32, "B", "H", 32, 1],
                    o: htp.Out[f32, "B", "H", 64], scale: f32):
    batch = q.shape[0]
    heads = q.shape[1]
    # The planner: KV blocks in all, then the chunk (in blocks) that gives
    # every core about one chunk, at least what MAXC chunks per request need.
    total = 0
    longest = 0
    for b in range(batch):
        blocks = ceil_div(wsp.read(lens, b), 64)
        total = total + blocks
        longest = max(longest, blocks)
    chunk = max(max(ceil_div(total * heads, wsp.cores()), ceil_div(longest, 32)), 1)
    for b in wsp.parallel(batch):
        n = wsp.read(lens, b)
        chunks = ceil_div(ceil_div(n, 64), chunk)
        for h, c in wsp.parallel(heads, chunks):
            start = c * chunk * 64
            count = min(chunk * 64, n - start)
            wsp.task(decode_chunk, q[b, h:h + 1, :], k[b, h, start:start + 4096, :], v[b, h, start:start + 4096, :],
                     po[b, h, c:c + 1, :], plse[b, h, c:c + 1, :], count, scale)
        for h in wsp.parallel(heads):
            wsp.task(decode_merge, po[b, h, 0:32, :], plse[b, h, 0:32, :], o[b, h:h + 1, :], chunks)


def run(q, k, v, lens, scale):
    """Decode attention of q over the first lens[b] keys/values of each
    request (the workspaces allocated here, as a serving wrapper would)."""
    batch, heads = q.shape[0], q.shape[1]
    po = np.empty((batch, heads, MAXC, D), np.float32)
    plse = np.empty((batch, heads, MAXC, 1), np.float32)
    o = np.empty((batch, heads, D), np.float32)
    split_kv_decode(q, k, v, lens, po, plse, o, np.float32(scale))
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
