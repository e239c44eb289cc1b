"""A small transformer's decode step as one WSP workload: what a serving
routine runs every step (docs/serving.md).

    token embedding
    -> LAYERS x [RMSNorm -> QKV projection -> RoPE -> append K/V to the paged cache
                 -> split-KV paged decode attention (planned per step) -> output projection -> residual
                 -> RMSNorm -> SwiGLU FFN (or a top-2 MoE of SwiGLU experts) -> residual]
    -> final RMSNorm -> logits -> greedy sampling

The batch is a fixed number of **slots** (the shape class: one compile
serves every step); a slot whose length is 0 is empty and costs no
attention task. The KV cache is a pool of pages of PAGE rows per layer;
each request's block table row names its pages (page j holds positions
j*PAGE .. j*PAGE + PAGE - 1). Everything but the per-step inputs (tokens,
positions, lengths, block tables) and the sampled tokens is state the
routine keeps on the target between steps (weights, the cache, and the
step's workspaces).
"""

import htp
from htp import f32, i32

wsp = htp.model("wsp")

D = 64         # model dimension
HEADS = 2      # attention heads
DH = 32        # head dimension (HEADS * DH == D)
F = 128        # FFN hidden dimension
VOCAB = 128    # vocabulary
PAGE = 16      # KV rows per page
MAXPAGES = 8   # pages per request at most (MAXPAGES * PAGE positions)
EXPERTS = 8    # MoE variant: experts, each token uses TOPK of them
TOPK = 2
EPS = 1.0e-5
ROWS = 8       # the kernels' row block over the batch


@htp.kernel
def embed(tokens: htp.Tensor[i32, "B", 1], table: htp.Tensor[f32, "V", 64], x: htp.Out[f32, "B", 64]):
    """x[b] = table[tokens[b]]."""
    for r in range(0, x.shape[0], 8):
        x[r:r + 8, :] = htp.gather(table, tokens[r:r + 8, :], 0, 64)


@htp.kernel
def rmsnorm(x: htp.Tensor[f32, "B", 64], w: htp.Tensor[f32, 1, 64], y: htp.Out[f32, "B", 64], eps: f32):
    for r in range(0, x.shape[0], 8):
        t = x[r:r + 8, :]
        y[r:r + 8, :] = t * htp.rsqrt(htp.row_sum(t * t) * (1.0 / 64) + eps) * w[:, :]


@htp.func
def rope_head(t, c, s):
    """GPT-NeoX rotary embedding of one head's 32 columns: rotate_half."""
    x1 = t[:, 0:16]
    x2 = t[:, 16:32]
    return htp.concat([x1 * c - x2 * s, x2 * c + x1 * s], axis=1)


@htp.kernel
def qkv_rope(h: htp.Tensor[f32, "B", 64], w: htp.Tensor[f32, 64, 192], cos: htp.Tensor[f32, "M", 16],
             sin: htp.Tensor[f32, "M", 16], positions: htp.Tensor[i32, "B", 1], q: htp.Out[f32, "B", 64],
             k: htp.Out[f32, "B", 64], v: htp.Out[f32, "B", 64]):
    """q, k, v = h @ w, with RoPE at each row's position applied to q and k."""
    for r in range(0, h.shape[0], 8):
        qkv = htp.pad(h[r:r + 8, :], 0.0) @ w[:, :]                   # 8 x 192
        at = htp.pad(positions[r:r + 8, :], 0)
        c = htp.gather(cos, at, 0, 16)                                # 8 x 16: each row's position
        s = htp.gather(sin, at, 0, 16)
        q[r:r + 8, :] = htp.concat([rope_head(qkv[:, 0:32], c, s), rope_head(qkv[:, 32:64], c, s)], axis=1)
        k[r:r + 8, :] = htp.concat([rope_head(qkv[:, 64:96], c, s), rope_head(qkv[:, 96:128], c, s)], axis=1)
        v[r:r + 8, :] = qkv[:, 128:192]


@htp.kernel
def append_kv(k: htp.Tensor[f32, "B", 64], v: htp.Tensor[f32, "B", 64], positions: htp.Tensor[i32, "B", 1],
              lens: htp.Tensor[i32, "B", 1], table: htp.Tensor[i32, "B", 8], kc: htp.InOut[f32, "S", 64],
              vc: htp.InOut[f32, "S", 64]):
    """Writes each live request's new key and value into its page: the
    row of position p is row p % 16 of page table[b, p // 16]."""
    for b in range(k.shape[0]):
        if lens[b, 0] > 0:
            p = positions[b, 0]
            row = table[b, p // 16] * 16 + p % 16
            kc[row:row + 1, :] = k[b:b + 1, :]
            vc[row:row + 1, :] = v[b:b + 1, :]


@htp.kernel
def attend_pages(q: htp.Tensor[f32, 1, 64], kc: htp.Tensor[f32, "S", 64], vc: htp.Tensor[f32, "S", 64],
                 table: htp.Tensor[i32, 1, 8], o: htp.Out[f32, 1, 64], lse: htp.Out[f32, 1, 2],
                 start: htp.i32, count: htp.i32, scale: f32):
    """Attention of one request's query (both heads) over its positions
    start .. start + count - 1, page by page through its block table
    (online softmax): the normalised partial output and each head's
    log-sum-exp."""
    m0 = htp.full((1, 1), -1.0e30, f32)
    m1 = htp.full((1, 1), -1.0e30, f32)
    l0 = htp.zeros((1, 1), f32)
    l1 = htp.zeros((1, 1), f32)
    a0 = htp.zeros((1, 32), f32)
    a1 = htp.zeros((1, 32), f32)
    q0 = q[0:1, 0:32] * scale
    q1 = q[0:1, 32:64] * scale
    for j in range(0, count, 16):
        page = table[0, (start + j) // 16]
        keys = htp.pad(kc[page * 16:page * 16 + 16, :], 0.0)
        values = htp.pad(vc[page * 16:page * 16 + 16, :], 0.0)
        past = htp.iota((1, 16), 1, i32) + j >= count
        s0 = htp.where(past, -1.0e30, q0 @ htp.transpose(keys[:, 0:32]))
        s1 = htp.where(past, -1.0e30, q1 @ htp.transpose(keys[:, 32:64]))
        n0 = htp.maximum(m0, htp.row_max(s0))
        n1 = htp.maximum(m1, htp.row_max(s1))
        p0 = htp.exp(s0 - n0)
        p1 = htp.exp(s1 - n1)
        c0 = htp.exp(m0 - n0)
        c1 = htp.exp(m1 - n1)
        l0 = l0 * c0 + htp.row_sum(p0)
        l1 = l1 * c1 + htp.row_sum(p1)
        a0 = a0 * c0 + p0 @ values[:, 0:32]
        a1 = a1 * c1 + p1 @ values[:, 32:64]
        m0 = n0
        m1 = n1
    o[:, :] = htp.concat([a0 / l0, a1 / l1], axis=1)
    lse[:, :] = htp.concat([m0 + htp.log(l0), m1 + htp.log(l1)], axis=1)


@htp.kernel
def merge_chunks(po: htp.Tensor[f32, 8, 64], plse: htp.Tensor[f32, 8, 2], o: htp.Out[f32, 1, 64], chunks: htp.i32):
    """Combines a request's first `chunks` partial outputs by their
    log-sum-exps, per head."""
    unused = htp.iota((1, 8), 1, i32) >= chunks
    rows = htp.iota((8, 32), 0, i32) >= chunks
    lse0 = htp.where(unused, -1.0e30, htp.transpose(plse[0:8, 0:1]))
    lse1 = htp.where(unused, -1.0e30, htp.transpose(plse[0:8, 1:2]))
    w0 = htp.exp(lse0 - htp.row_max(lse0))
    w1 = htp.exp(lse1 - htp.row_max(lse1))
    o0 = (w0 @ htp.where(rows, 0.0, po[0:8, 0:32])) / htp.row_sum(w0)
    o1 = (w1 @ htp.where(rows, 0.0, po[0:8, 32:64])) / htp.row_sum(w1)
    o[:, :] = htp.concat([o0, o1], axis=1)


@htp.kernel
def project_add(a: htp.Tensor[f32, "B", 64], w: htp.Tensor[f32, 64, 64], x: htp.InOut[f32, "B", 64]):
    """x += a @ w (the attention output projection and its residual)."""
    for r in range(0, x.shape[0], 8):
        x[r:r + 8, :] = htp.pad(x[r:r + 8, :], 0.0) + htp.pad(a[r:r + 8, :], 0.0) @ w[:, :]


@htp.func
def swiglu(t, wg, wu, wd):
    return (htp.silu(t @ wg) * (t @ wu)) @ wd


@htp.kernel
def ffn_add(h: htp.Tensor[f32, "B", 64], wg: htp.Tensor[f32, 64, 128], wu: htp.Tensor[f32, 64, 128],
            wd: htp.Tensor[f32, 128, 64], x: htp.InOut[f32, "B", 64]):
    """x += SwiGLU(h)."""
    for r in range(0, x.shape[0], 8):
        t = htp.pad(h[r:r + 8, :], 0.0)
        x[r:r + 8, :] = htp.pad(x[r:r + 8, :], 0.0) + swiglu(t, wg[:, :], wu[:, :], wd[:, :])


@htp.kernel
def route(h: htp.Tensor[f32, "B", 64], lens: htp.Tensor[i32, "B", 1], wr: htp.Tensor[f32, 64, 8],
          gates: htp.Out[f32, "B", 8], counts: htp.Out[i32, 8, 1]):
    """Top-2 routing: each live token's two best experts weighted by the
    softmax of their two scores (gates: a token's weight per expert, 0 for
    the others), and how many live tokens each expert has."""
    total = htp.zeros((1, 8), f32)
    for r in range(0, h.shape[0], 8):
        scores = htp.pad(h[r:r + 8, :], 0.0) @ wr[:, :]               # 8 x 8
        best, expert = htp.topk(scores, 2)
        g0 = htp.recip(htp.exp(best[:, 1:2] - best[:, 0:1]) + 1.0)
        cols = htp.iota((8, 8), 1, i32)
        live = htp.where(htp.pad(lens[r:r + 8, :], 0) > 0, 1.0, 0.0)   # 8 x 1
        g = htp.where(cols == expert[:, 0:1], g0, htp.where(cols == expert[:, 1:2], 1.0 - g0, 0.0)) * live
        gates[r:r + 8, :] = g
        total = total + htp.col_sum(htp.where(g > 0.0, 1.0, 0.0))
    counts[:, :] = htp.cast(htp.transpose(total), i32)


@htp.kernel
def expert_add(h: htp.Tensor[f32, "B", 64], gates: htp.Tensor[f32, "B", 8], wg: htp.Tensor[f32, 64, 128],
               wu: htp.Tensor[f32, 64, 128], wd: htp.Tensor[f32, 128, 64], x: htp.InOut[f32, "B", 64], e: htp.i32):
    """x += gates[:, e] * SwiGLU_e(h): expert e's share of every token."""
    for r in range(0, x.shape[0], 8):
        t = htp.pad(h[r:r + 8, :], 0.0)
        g = htp.pad(gates[r:r + 8, e:e + 1], 0.0)
        x[r:r + 8, :] = htp.pad(x[r:r + 8, :], 0.0) + g * swiglu(t, wg[:, :], wu[:, :], wd[:, :])


@htp.kernel
def sample(h: htp.Tensor[f32, "B", 64], w: htp.Tensor[f32, 64, 128], logits: htp.Out[f32, "B", 128],
           tokens: htp.Out[i32, "B", 1]):
    """Logits and greedy sampling (the first of equal maxima)."""
    for r in range(0, h.shape[0], 8):
        z = htp.pad(h[r:r + 8, :], 0.0) @ w[:, :]
        logits[r:r + 8, :] = z
        tokens[r:r + 8, :] = htp.argmax(z, axis=1)


@htp.func
def ceil_div(a, b):
    return (a + b - 1) // b


@htp.func
def attention(l, q, k_cache, v_cache, block_table, lens, po, plse, attn, scale):
    """Split-KV paged decode attention of layer l, planned for this step:
    every live request's pages laid end to end are cut into one segment
    per core (never more than 8 pieces per request), as FlashInfer's
    planner does; a request cut in pieces gets a merge task."""
    batch = lens.shape[0]
    total = 0
    for b in range(batch):
        total = total + ceil_div(wsp.read(lens, b, 0), 16)
    segment = max(ceil_div(total, wsp.cores()), 1)
    for b in range(batch):
        n = wsp.read(lens, b, 0)
        pages = ceil_div(n, 16)
        if pages > 0:
            step = max(segment, ceil_div(pages, 8))
            chunks = ceil_div(pages, step)
            if chunks == 1:
                wsp.task(attend_pages, q[b:b + 1, :], k_cache[l, :, :], v_cache[l, :, :], block_table[b:b + 1, :],
                         attn[b:b + 1, :], plse[b, 0:1, :], 0, n, scale, keys=(l, b, 0))
            else:
                for c in range(chunks):
                    first = c * step * 16
                    wsp.task(attend_pages, q[b:b + 1, :], k_cache[l, :, :], v_cache[l, :, :],
                             block_table[b:b + 1, :], po[b, c:c + 1, :], plse[b, c:c + 1, :], first,
                             min(n - first, step * 16), scale, keys=(l, b, c))
                wsp.task(merge_chunks, po[b, :, :], plse[b, :, :], attn[b:b + 1, :], chunks, keys=(l, b, chunks))


@htp.func
def attention_half(l, x, h, q, k_new, v_new, attn, po, plse, positions, lens, block_table, attn_norm, wqkv, wo, cos,
                   sin, k_cache, v_cache):
    """x += attention(RMSNorm(x)) for layer l, the new K/V appended first."""
    wsp.task(rmsnorm, x, attn_norm[l:l + 1, :], h, 1.0e-5)
    wsp.task(qkv_rope, h, wqkv[l, :, :], cos, sin, positions, q, k_new, v_new)
    wsp.task(append_kv, k_new, v_new, positions, lens, block_table, k_cache[l, :, :], v_cache[l, :, :])
    attention(l, q, k_cache, v_cache, block_table, lens, po, plse, attn, 0.17677669529663687)   # 1 / sqrt(DH)
    wsp.task(project_add, attn, wo[l, :, :], x)


@wsp.workload
def decode_step(tokens: htp.Tensor[i32, "B", 1], positions: htp.Tensor[i32, "B", 1], lens: htp.Tensor[i32, "B", 1],
                block_table: htp.Tensor[i32, "B", 8],
                embedding: htp.Tensor[f32, "V", 64], attn_norm: htp.Tensor[f32, "L", 64],
                wqkv: htp.Tensor[f32, "L", 64, 192], wo: htp.Tensor[f32, "L", 64, 64],
                ffn_norm: htp.Tensor[f32, "L", 64], w_gate: htp.Tensor[f32, "L", 64, 128],
                w_up: htp.Tensor[f32, "L", 64, 128], w_down: htp.Tensor[f32, "L", 128, 64],
                final_norm: htp.Tensor[f32, 1, 64], w_out: htp.Tensor[f32, 64, 128],
                cos: htp.Tensor[f32, "M", 16], sin: htp.Tensor[f32, "M", 16],
                k_cache: htp.InOut[f32, "L", "S", 64], v_cache: htp.InOut[f32, "L", "S", 64],
                x: htp.Out[f32, "B", 64], h: htp.Out[f32, "B", 64], q: htp.Out[f32, "B", 64],
                k_new: htp.Out[f32, "B", 64], v_new: htp.Out[f32, "B", 64], attn: htp.Out[f32, "B", 64],
                po: htp.Out[f32, "B", 8, 64], plse: htp.Out[f32, "B", 8, 2],
                logits: htp.Out[f32, "B", 128], next_tokens: htp.Out[i32, "B", 1]):
    """One decode step of the dense model for every slot of the batch."""
    wsp.task(embed, tokens, embedding, x)
    for l in range(attn_norm.shape[0]):
        attention_half(l, x, h, q, k_new, v_new, attn, po, plse, positions, lens, block_table, attn_norm, wqkv, wo,
                       cos, sin, k_cache, v_cache)
        wsp.task(rmsnorm, x, ffn_norm[l:l + 1, :], h, 1.0e-5)
        wsp.task(ffn_add, h, w_gate[l, :, :], w_up[l, :, :], w_down[l, :, :], x)
    wsp.task(rmsnorm, x, final_norm, h, 1.0e-5)
    wsp.task(sample, h, w_out, logits, next_tokens)


@wsp.workload
def decode_step_moe(tokens: htp.Tensor[i32, "B", 1], positions: htp.Tensor[i32, "B", 1],
                    lens: htp.Tensor[i32, "B", 1], block_table: htp.Tensor[i32, "B", 8],
                    embedding: htp.Tensor[f32, "V", 64], attn_norm: htp.Tensor[f32, "L", 64],
                    wqkv: htp.Tensor[f32, "L", 64, 192], wo: htp.Tensor[f32, "L", 64, 64],
                    ffn_norm: htp.Tensor[f32, "L", 64], w_router: htp.Tensor[f32, "L", 64, 8],
                    w_gate: htp.Tensor[f32, "L", 8, 64, 128], w_up: htp.Tensor[f32, "L", 8, 64, 128],
                    w_down: htp.Tensor[f32, "L", 8, 128, 64],
                    final_norm: htp.Tensor[f32, 1, 64], w_out: htp.Tensor[f32, 64, 128],
                    cos: htp.Tensor[f32, "M", 16], sin: htp.Tensor[f32, "M", 16],
                    k_cache: htp.InOut[f32, "L", "S", 64], v_cache: htp.InOut[f32, "L", "S", 64],
                    x: htp.Out[f32, "B", 64], h: htp.Out[f32, "B", 64], q: htp.Out[f32, "B", 64],
                    k_new: htp.Out[f32, "B", 64], v_new: htp.Out[f32, "B", 64], attn: htp.Out[f32, "B", 64],
                    po: htp.Out[f32, "B", 8, 64], plse: htp.Out[f32, "B", 8, 2],
                    gates: htp.Out[f32, "B", 8], counts: htp.Out[i32, 8, 1],
                    logits: htp.Out[f32, "B", 128], next_tokens: htp.Out[i32, "B", 1]):
    """One decode step of the MoE model: each layer's FFN is a top-2 mixture
    of 8 SwiGLU experts; an expert no live token chose is skipped when its
    task would run (a guard on the router's count, read then)."""
    wsp.task(embed, tokens, embedding, x)
    for l in range(attn_norm.shape[0]):
        attention_half(l, x, h, q, k_new, v_new, attn, po, plse, positions, lens, block_table, attn_norm, wqkv, wo,
                       cos, sin, k_cache, v_cache)
        wsp.task(rmsnorm, x, ffn_norm[l:l + 1, :], h, 1.0e-5)
        wsp.task(route, h, lens, w_router[l, :, :], gates, counts)
        for e in wsp.parallel(8):
            with wsp.when(wsp.element(counts, e, 0) > 0):
                wsp.task(expert_add, h, gates, w_gate[l, e, :, :], w_up[l, e, :, :], w_down[l, e, :, :], x, e)
    wsp.task(rmsnorm, x, final_norm, h, 1.0e-5)
    wsp.task(sample, h, w_out, logits, next_tokens)
