"""DeepSeek's lightning indexer as a WSP workload: index scores over
ragged sequence lengths, with the scoring kernel's tier picked by length,
then top-k selection per request.

Request b's query has 4 index heads; its score for key s < lens[b] is
sum_h w[h] * relu(q[b, h] . k[b, s]). Short requests (<= 256 keys) use a
one-tile kernel, longer ones a kernel looping over blocks of 128 — the
tier is chosen in the workload from the length, which the workload reads
where it runs. A top-k task per request then picks the 16 best keys
(ties: the lower index first; -1 where a request has fewer keys).
"""

import numpy as np

import htp
from htp import f32, i32

wsp = htp.model("wsp")

K = 16        # keys selected per request


@htp.kernel
def score_short(q: htp.Tensor[f32, 4, 64], k: htp.Tensor[f32, "S", 64], w: htp.Tensor[f32, 4, 1],
                scores: htp.Out[f32, 1, "S"], n: htp.i32):
    """Tier 1: up to 256 keys in one tile."""
    logits = q[:, :] @ htp.transpose(htp.pad(k[0:256, :], 0.0))
    s = htp.col_sum(htp.maximum(logits, 0.0) * w[:, :])
    scores[0:1, 0:256] = htp.where(htp.iota((1, 256), 1, i32) >= n, -1.0e30, s)


@htp.kernel
def score_long(q: htp.Tensor[f32, 4, 64], k: htp.Tensor[f32, "S", 64], w: htp.Tensor[f32, 4, 1],
               scores: htp.Out[f32, 1, "S"], n: htp.i32):
    """Tier 2: any length, blocks of 128 keys (what the cube's operand
    buffers hold on A2/A3)."""
    for j in range(0, n, 128):
        logits = q[:, :] @ htp.transpose(htp.pad(k[j:j + 128, :], 0.0))
        s = htp.col_sum(htp.maximum(logits, 0.0) * w[:, :])
        scores[0:1, j:j + 128] = htp.where(htp.iota((1, 128), 1, i32) + j >= n, -1.0e30, s)


@htp.kernel
def select_topk(scores: htp.Tensor[f32, 1, "S"], top: htp.Out[i32, 1, 16], n: htp.i32):
    """The 16 best of the first n scores, best first (ties: lower index)."""
    previous = htp.full((1, 1), 3.0e38, f32)
    previous_index = htp.full((1, 1), -1.0, f32)
    for r in htp.static_range(0, 16, 1):
        best = htp.full((1, 1), -1.0e30, f32)
        best_index = htp.full((1, 1), 1.0e9, f32)
        for j in range(0, n, 256):
            s = htp.pad(scores[0:1, j:j + 256], -1.0e30)
            index = htp.iota((1, 256), 1, f32) + htp.cast(j, f32)
            # Only what ranks after the previous pick (value, then index).
            after = htp.maximum(htp.where(s < previous, 1.0, 0.0),
                                htp.where(s == previous, htp.where(index > previous_index, 1.0, 0.0), 0.0))
            valid = htp.where(index < htp.cast(n, f32), after, 0.0)
            candidates = htp.where(valid > 0.0, s, -1.0e30)
            block_best = htp.row_max(candidates)
            block_index = htp.row_min(htp.where(valid > 0.0, htp.where(candidates == block_best, index, 1.0e9), 1.0e9))
            better = htp.maximum(htp.where(block_best > best, 1.0, 0.0),
                                 htp.where(block_best == best, htp.where(block_index < best_index, 1.0, 0.0), 0.0))
            best = htp.where(better > 0.0, block_best, best)
            best_index = htp.where(better > 0.0, block_index, best_index)
        found = htp.where(best_index < 1.0e9, best_index, -1.0)
        top[0:1, r:r + 1] = htp.cast(found, i32)
        previous = best
        previous_index = best_index


@wsp.workload
def lightning_indexer(q: htp.Tensor[f32, "B", 4, 64], k: htp.Tensor[f32, "B", "L", 64], w: htp.Tensor[f32, 4, 1],
                      lens: htp.Tensor[i32, "B"], scores: htp.Out[f32, "B", "L"], top: htp.Out[i32, "B", 16]):
    for b in wsp.parallel(q.shape[0]):
        n = wsp.read(lens, b)
        if n <= 256:
            wsp.task(score_short, q[b, :, :], k[b, 0:256, :], w, scores[b:b + 1, 0:256], n)
        else:
            wsp.task(score_long, q[b, :, :], k[b, 0:65536, :], w, scores[b:b + 1, 0:65536], n)
        wsp.task(select_topk, scores[b:b + 1, 0:65536], top[b:b + 1, :], n)


def reference(q, k, w, lens):
    top = np.full((q.shape[0], K), -1, np.int32)
    for b, n in enumerate(lens):
        logits = np.einsum("hd,sd->hs", q[b].astype(np.float64), k[b, :n].astype(np.float64))
        s = (np.maximum(logits, 0.0) * w).sum(axis=0).astype(np.float32)
        order = np.argsort(-s, kind="stable")[:K]
        top[b, :len(order)] = order
    return top


def main():
    rng = np.random.default_rng(0)
    lens = np.array([7, 300, 512, 1500, 4000], np.int32)
    q = rng.standard_normal((len(lens), 4, 64), dtype=np.float32)
    k = rng.standard_normal((len(lens), int(lens.max()), 64), dtype=np.float32)
    w = rng.random((4, 1), dtype=np.float32)
    scores = np.empty((len(lens), k.shape[1]), np.float32)
    top = np.empty((len(lens), K), np.int32)
    lightning_indexer(q, k, w, lens, scores, top)
    expected = reference(q, k, w, lens)
    print(f"lightning indexer, lengths {lens.tolist()}: top-{K} equal to numpy for "
          f"{int((top == expected).all(axis=1).sum())} of {len(lens)} requests")


if __name__ == "__main__":
    main()
