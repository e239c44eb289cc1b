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

The kernels' widths are compile-time constants with the whole model's
sizes as defaults: `QD` the attention columns (heads x DH), `QKV` the q, k
and v columns together (3 x QD) and `FC` the FFN's hidden columns a kernel
sees. One chip takes the defaults;
parallel.py compiles the same kernels with a chip's share of the heads and
of the FFN (tensor parallelism over a group of chips).
"""

import numpy as np

import htp
from htp import bf16, f32, i32

wsp = htp.model("wsp")

D = 64         # model dimension
HEADS = 4      # attention heads
DH = 16        # head dimension (HEADS * DH == D)
F = 128        # FFN hidden dimension
VOCAB = 128    # vocabulary
PAGE = 16      # KV rows per page
MAXPAGES = 8   # pages per request at most (MAXPAGES * PAGE positions)
EXPERTS = 8    # MoE variant: experts, each token uses TOPK of them
TOPK = 2
EPS = 1.0e-5
ROWS = 8       # the kernels' row block over the batch
LSE = 8        # a request piece's log-sum-exps: one column per head (HEADS at most)


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
    """GPT-NeoX rotary embedding of one head's 16 columns: rotate_half."""
    x1 = t[:, 0:8]
    x2 = t[:, 8:16]
    return htp.concat([x1 * c - x2 * s, x2 * c + x1 * s], axis=1)


@htp.kernel
def qkv_rope(h: htp.Tensor[f32, "B", 64], w: htp.Tensor[bf16, 64, "QKV"], cos: htp.Tensor[f32, "M", 8],
             sin: htp.Tensor[f32, "M", 8], positions: htp.Tensor[i32, "B", 1], q: htp.Out[f32, "B", "QD"],
             k: htp.Out[f32, "B", "QD"], v: htp.Out[f32, "B", "QD"], QD: htp.Const[int] = 64,
             QKV: htp.Const[int] = 192):
    """q, k, v = h @ w (w: the q, k and v columns of QD // 16 heads, in that
    order), with RoPE at each row's position applied to each head of q and k."""
    for r in range(0, h.shape[0], 8):
        t = htp.pad(h[r:r + 8, :], 0.0)
        at = htp.pad(positions[r:r + 8, :], 0)
        c = htp.gather(cos, at, 0, 8)                                 # 8 x 8: each row's position
        s = htp.gather(sin, at, 0, 8)
        tb = htp.cast(t, bf16)                                        # bf16 x bf16 -> f32 products
        tq = tb @ w[:, 0:QD]
        tk = tb @ w[:, QD:2 * QD]
        for hd in htp.static_range(0, QD // 16, 1):
            q[r:r + 8, hd * 16:hd * 16 + 16] = rope_head(tq[:, hd * 16:hd * 16 + 16], c, s)
            k[r:r + 8, hd * 16:hd * 16 + 16] = rope_head(tk[:, hd * 16:hd * 16 + 16], c, s)
        v[r:r + 8, :] = tb @ w[:, 2 * QD:QKV]


@htp.kernel
def append_kv(k: htp.Tensor[f32, "B", "QD"], v: htp.Tensor[f32, "B", "QD"], positions: htp.Tensor[i32, "B", 1],
              lens: htp.Tensor[i32, "B", 1], table: htp.Tensor[i32, "B", 8], kc: htp.InOut[f32, "S", "QD"],
              vc: htp.InOut[f32, "S", "QD"], QD: htp.Const[int] = 64):
    """Writes each live request's new key and value into its page: the
    row of position p is row p % 16 of page table[b, p // 16]."""
    for b in range(k.shape[0]):
        if lens[b, 0] > 0:
            p = positions[b, 0]
            row = table[b, p // 16] * 16 + p % 16
            kc[row:row + 1, :] = k[b:b + 1, :]
            vc[row:row + 1, :] = v[b:b + 1, :]


@htp.kernel
def attend_pages(q: htp.Tensor[f32, 1, "QD"], kc: htp.Tensor[f32, "S", "QD"], vc: htp.Tensor[f32, "S", "QD"],
                 table: htp.Tensor[i32, 1, 8], o: htp.Out[f32, 1, "QD"], lse: htp.Out[f32, 1, 8],
                 start: htp.i32, count: htp.i32, scale: f32, QD: htp.Const[int] = 64):
    """Attention of one request's query (each of its QD // 16 heads) over
    its positions start .. start + count - 1, page by page through its block
    table (online softmax): the normalised partial output and each head's
    log-sum-exp (lse column hd)."""
    logsums = htp.zeros((1, 8), f32)
    heads = htp.iota((1, 8), 1, i32)
    for hd in htp.static_range(0, QD // 16, 1):
        m = htp.full((1, 1), -1.0e30, f32)
        l = htp.zeros((1, 1), f32)
        a = htp.zeros((1, 16), f32)
        qh = q[0:1, hd * 16:hd * 16 + 16] * scale
        for j in range(0, count, 16):
            page = table[0, (start + j) // 16]
            keys = htp.pad(kc[page * 16:page * 16 + 16, hd * 16:hd * 16 + 16], 0.0)
            values = htp.pad(vc[page * 16:page * 16 + 16, hd * 16:hd * 16 + 16], 0.0)
            past = htp.iota((1, 16), 1, i32) + j >= count
            s = htp.where(past, -1.0e30, qh @ htp.transpose(keys))
            n = htp.maximum(m, htp.row_max(s))
            p = htp.exp(s - n)
            c = htp.exp(m - n)
            l = l * c + htp.row_sum(p)
            a = a * c + p @ values
            m = n
        o[:, hd * 16:hd * 16 + 16] = a / l
        logsums = htp.where(heads == hd, m + htp.log(l), logsums)
    lse[:, :] = logsums


@htp.kernel
def merge_chunks(po: htp.Tensor[f32, 8, "QD"], plse: htp.Tensor[f32, 8, 8], o: htp.Out[f32, 1, "QD"], chunks: htp.i32,
                 QD: htp.Const[int] = 64):
    """Combines a request's first `chunks` partial outputs by their
    log-sum-exps, per head."""
    unused = htp.iota((1, 8), 1, i32) >= chunks
    rows = htp.iota((8, 16), 0, i32) >= chunks
    for hd in htp.static_range(0, QD // 16, 1):
        lse = htp.where(unused, -1.0e30, htp.transpose(plse[0:8, hd:hd + 1]))
        w = htp.exp(lse - htp.row_max(lse))
        o[:, hd * 16:hd * 16 + 16] = (w @ htp.where(rows, 0.0, po[0:8, hd * 16:hd * 16 + 16])) / htp.row_sum(w)


@htp.kernel
def project_add(a: htp.Tensor[f32, "B", "QD"], w: htp.Tensor[bf16, "QD", 64], x: htp.InOut[f32, "B", 64],
                QD: htp.Const[int] = 64):
    """x += a @ w (the attention output projection and its residual)."""
    for r in range(0, x.shape[0], 8):
        x[r:r + 8, :] = htp.pad(x[r:r + 8, :], 0.0) + htp.cast(htp.pad(a[r:r + 8, :], 0.0), bf16) @ w[:, :]


@htp.func
def swiglu(t, wg, wu, wd):
    """SwiGLU of the f32 rows t with bf16 weights: each product's left side rounded to bf16."""
    tb = htp.cast(t, bf16)
    return htp.cast(htp.silu(tb @ wg) * (tb @ wu), bf16) @ wd


@htp.kernel
def ffn_add(h: htp.Tensor[f32, "B", 64], wg: htp.Tensor[bf16, 64, "FC"], wu: htp.Tensor[bf16, 64, "FC"],
            wd: htp.Tensor[bf16, "FC", 64], x: htp.InOut[f32, "B", 64], FC: htp.Const[int] = 128):
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
def expert_add(h: htp.Tensor[f32, "B", 64], gates: htp.Tensor[f32, "B", 8], wg: htp.Tensor[bf16, 64, 128],
               wu: htp.Tensor[bf16, 64, 128], wd: htp.Tensor[bf16, 128, 64], x: htp.InOut[f32, "B", 64], e: htp.i32):
    """x += gates[:, e] * SwiGLU_e(h): expert e's share of every token."""
    for r in range(0, x.shape[0], 8):
        t = htp.pad(h[r:r + 8, :], 0.0)
        g = htp.pad(gates[r:r + 8, e:e + 1], 0.0)
        x[r:r + 8, :] = htp.pad(x[r:r + 8, :], 0.0) + g * swiglu(t, wg[:, :], wu[:, :], wd[:, :])


@htp.kernel
def sample(h: htp.Tensor[f32, "B", 64], w: htp.Tensor[bf16, 64, 128], logits: htp.Out[f32, "B", 128],
           tokens: htp.Out[i32, "B", 1]):
    """Logits and greedy sampling (the first of equal maxima)."""
    for r in range(0, h.shape[0], 8):
        z = htp.cast(htp.pad(h[r:r + 8, :], 0.0), bf16) @ w[:, :]
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
    attention(l, q, k_cache, v_cache, block_table, lens, po, plse, attn, 0.25)   # 1 / sqrt(DH)
    wsp.task(project_add, attn, wo[l, :, :], x)


@wsp.workload
def decode_step(tokens: htp.Tensor[i32, "B", 1], positions: htp.Tensor[i32, "B", 1], lens: htp.Tensor[i32, "B", 1],
                block_table: htp.Tensor[i32, "B", 8],
                embedding: htp.Tensor[f32, "V", 64], attn_norm: htp.Tensor[f32, "L", 64],
                wqkv: htp.Tensor[bf16, "L", 64, 192], wo: htp.Tensor[bf16, "L", 64, 64],
                ffn_norm: htp.Tensor[f32, "L", 64], w_gate: htp.Tensor[bf16, "L", 64, 128],
                w_up: htp.Tensor[bf16, "L", 64, 128], w_down: htp.Tensor[bf16, "L", 128, 64],
                final_norm: htp.Tensor[f32, 1, 64], w_out: htp.Tensor[bf16, 64, 128],
                cos: htp.Tensor[f32, "M", 8], sin: htp.Tensor[f32, "M", 8],
                k_cache: htp.InOut[f32, "L", "S", 64], v_cache: htp.InOut[f32, "L", "S", 64],
                x: htp.Out[f32, "B", 64], h: htp.Out[f32, "B", 64], q: htp.Out[f32, "B", 64],
                k_new: htp.Out[f32, "B", 64], v_new: htp.Out[f32, "B", 64], attn: htp.Out[f32, "B", 64],
                po: htp.Out[f32, "B", 8, 64], plse: htp.Out[f32, "B", 8, 8],
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
                    wqkv: htp.Tensor[bf16, "L", 64, 192], wo: htp.Tensor[bf16, "L", 64, 64],
                    ffn_norm: htp.Tensor[f32, "L", 64], w_router: htp.Tensor[f32, "L", 64, 8],
                    w_gate: htp.Tensor[bf16, "L", 8, 64, 128], w_up: htp.Tensor[bf16, "L", 8, 64, 128],
                    w_down: htp.Tensor[bf16, "L", 8, 128, 64],
                    final_norm: htp.Tensor[f32, 1, 64], w_out: htp.Tensor[bf16, 64, 128],
                    cos: htp.Tensor[f32, "M", 8], sin: htp.Tensor[f32, "M", 8],
                    k_cache: htp.InOut[f32, "L", "S", 64], v_cache: htp.InOut[f32, "L", "S", 64],
                    x: htp.Out[f32, "B", 64], h: htp.Out[f32, "B", 64], q: htp.Out[f32, "B", 64],
                    k_new: htp.Out[f32, "B", 64], v_new: htp.Out[f32, "B", 64], attn: htp.Out[f32, "B", 64],
                    po: htp.Out[f32, "B", 8, 64], plse: htp.Out[f32, "B", 8, 8],
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


def empty_state(weights, layers, slots, pool, width=D, shared=()):
    """The weights, an empty cache of `pool` pages per layer, zeroed workspaces
    for `slots` requests. `width` is the attention columns a chip holds (its
    heads x DH); `shared` names extra D-wide workspaces (parallel.py's `part`)."""
    state = dict(weights)
    for name in ("k_cache", "v_cache"):
        state[name] = np.zeros((layers, pool * PAGE, width), np.float32)
    shapes = {"x": (D,), "h": (D,), "q": (width,), "k_new": (width,), "v_new": (width,), "attn": (width,),
              "po": (8, width), "plse": (8, LSE), "logits": (VOCAB,), **{name: (D,) for name in shared}}
    for name, shape in shapes.items():
        state[name] = np.zeros((slots, *shape), np.float32)
    if "w_router" in weights:
        state["gates"] = np.zeros((slots, EXPERTS), np.float32)
        state["counts"] = np.zeros((EXPERTS, 1), np.int32)
    return state
