"""A MoE workload of any shape (top-K of E experts over T tokens: router kernel with a
matmul, expert tasks, combine), written as a module and loaded (test_pto_cube_results.py)."""
import importlib.util
import os
import sys
import tempfile
import textwrap

def make(T, E, K, D=64, F=64, TILE=16, path=None):
    S = ((T + TILE - 1) // TILE) * TILE     # slot stride per expert (padded)
    NT = S // TILE
    lines = []
    A = lines.append
    A("import numpy as np\nimport htp\nfrom htp import f32, i32\nwsp = htp.model('wsp')")
    A(f"T, E, K, D, F, S = {T}, {E}, {K}, {D}, {F}, {S}")
    outs = ", ".join([f"pos{k}: htp.Out[i32, {T}, 1], gate{k}: htp.Out[f32, {T}, 1]" for k in range(K)])
    A("@htp.kernel")
    A(f"def router(x: htp.Tensor[f32, {T}, {D}], wg: htp.Tensor[f32, {D}, {E}], ids: htp.Out[i32, {E*S}, 1], counts: htp.Out[i32, {E}, 1], {outs}):")
    A(f"    s = x[:, :] @ wg[:, :]")
    A(f"    cols = htp.iota(({T}, {E}), 1, f32)")
    for k in range(K):
        A(f"    m{k} = htp.row_max(s)")
        A(f"    e{k} = htp.row_min(htp.where(s == m{k}, cols, {float(E)}))")
        A(f"    s = htp.where(cols == e{k}, -1.0e30, s)")
    A("    den = " + " + ".join(["1.0"] + [f"htp.exp(m{k} - m0)" for k in range(1, K)]))
    A("    inv = htp.recip(den)")
    A("    gate0[:, :] = inv")
    for k in range(1, K):
        A(f"    gate{k}[:, :] = htp.exp(m{k} - m0) * inv")
    A(f"    upper = htp.where(htp.iota(({T}, {T}), 0, f32) < htp.iota(({T}, {T}), 1, f32), 1.0, 0.0)")
    A(f"    slots = htp.iota(({S}, {T}), 0, f32)")
    A(f"    tokens = htp.iota((1, {T}), 1, f32)")
    for k in range(K):
        A(f"    r{k} = htp.transpose(e{k})")
        A(f"    p{k} = htp.zeros(({T}, 1), f32)")
    A(f"    for e in htp.static_range(0, {E}, 1):")
    ch = "htp.where(r0 == float(e), 1.0, 0.0)"
    for k in range(1, K):
        ch = f"htp.maximum({ch}, htp.where(r{k} == float(e), 1.0, 0.0))"
    A(f"        chosen = {ch}")
    A(f"        prefix = chosen @ upper")
    A(f"        onehot = htp.where(chosen > 0.0, htp.where(prefix == slots, 1.0, 0.0), 0.0)")
    A(f"        ids[e * {S}:e * {S} + {S}, :] = htp.cast(htp.row_sum(onehot * tokens), i32)")
    A(f"        counts[e:e + 1, :] = htp.cast(htp.row_sum(chosen), i32)")
    A(f"        column = htp.transpose(prefix) + float(e * {S})")
    for k in range(K):
        A(f"        p{k} = htp.where(e{k} == float(e), column, p{k})")
    for k in range(K):
        A(f"    pos{k}[:, :] = htp.cast(p{k}, i32)")
    A("")
    A("@htp.kernel")
    A(f"def expert(x: htp.Tensor[f32, {T}, {D}], ids: htp.Tensor[i32, {TILE}, 1], w: htp.Tensor[f32, {D}, {F}], y: htp.Out[f32, {TILE}, {F}]):")
    A(f"    rows = htp.gather(x, ids[:, :], 0, {D})")
    A(f"    y[:, :] = htp.maximum(rows @ w[:, :], 0.0)")
    A("")
    pa = ", ".join([f"pos{k}: htp.Tensor[i32, {T}, 1], gate{k}: htp.Tensor[f32, {T}, 1]" for k in range(K)])
    A("@htp.kernel")
    A(f"def combine(y: htp.Tensor[f32, {E*S}, {F}], {pa}, out: htp.Out[f32, {T}, {F}]):")
    A(f"    for r in range(0, {T}, {TILE}):")
    A(f"        out[r:r + {TILE}, :] = " + " + ".join([f"htp.gather(y, pos{k}[r:r + {TILE}, :], 0, {F}) * gate{k}[r:r + {TILE}, :]" for k in range(K)]))
    A("")
    pw = ", ".join([f"pos{k}: htp.Out[i32, {T}, 1], gate{k}: htp.Out[f32, {T}, 1]" for k in range(K)])
    pargs = ", ".join([f"pos{k}, gate{k}" for k in range(K)])
    A("@wsp.workload")
    A(f"def moe(x: htp.Tensor[f32, {T}, {D}], wg: htp.Tensor[f32, {D}, {E}], w: htp.Tensor[f32, {E}, {D}, {F}], out: htp.Out[f32, {T}, {F}], ids: htp.Out[i32, {E*S}, 1], counts: htp.Out[i32, {E}, 1], y: htp.Out[f32, {E*S}, {F}], {pw}):")
    A(f"    wsp.task(router, x, wg, ids, counts, {pargs})")
    A(f"    for e, t in wsp.parallel({E}, {NT}):")
    A(f"        with wsp.when(wsp.element(counts, e, 0) > t * {TILE}):")
    A(f"            slot = e * {S} + t * {TILE}")
    A(f"            wsp.task(expert, x, ids[slot:slot + {TILE}, :], w[e, :, :], y[slot:slot + {TILE}, :])")
    A(f"    wsp.task(combine, y, {pargs}, out)")
    src = "\n".join(lines) + "\n"
    path = path or os.path.join(tempfile.mkdtemp(prefix="htp-moe-"), f"moe_T{T}_E{E}_K{K}.py")
    open(path, "w").write(src)
    spec = importlib.util.spec_from_file_location(f"moe_T{T}_E{E}_K{K}", path)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    return m

def buffers(m):
    T, E, K, F, S = m.T, m.E, m.K, m.F, m.S
    b = dict(out=np.zeros((T, F), np.float32), ids=np.zeros((E * S, 1), np.int32), counts=np.zeros((E, 1), np.int32),
             y=np.zeros((E * S, F), np.float32))
    rest = []
    for k in range(K):
        rest += [np.zeros((T, 1), np.int32), np.zeros((T, 1), np.float32)]
    return b, rest

def reference(x, wg, w, K):
    s = x.astype(np.float64) @ wg
    order = np.argsort(-s, axis=1, kind="stable")[:, :K]
    top = np.take_along_axis(s, order, axis=1)
    g = np.exp(top - top[:, :1]); g /= g.sum(1, keepdims=True)
    out = np.zeros((x.shape[0], w.shape[2]))
    for t in range(x.shape[0]):
        for k in range(K):
            out[t] += g[t, k] * np.maximum(x[t].astype(np.float64) @ w[order[t, k]], 0.0)
    return out, np.bincount(order.ravel(), minlength=wg.shape[1]), order

import numpy as np

def run(T, E, K, target, seed=0):
    m = make(T, E, K)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((T, m.D), dtype=np.float32)
    wg = rng.standard_normal((m.D, E), dtype=np.float32)
    w = rng.standard_normal((E, m.D, m.F), dtype=np.float32) / 8
    b, rest = buffers(m)
    prog = m.moe if target == "cpu" else m.moe.compile(target=target)
    prog(x, wg, w, b["out"], b["ids"], b["counts"], b["y"], *rest)
    exp, ec, order = reference(x, wg, w, K)
    return b, rest, exp, ec

if __name__ == "__main__":
    T, E, K = map(int, sys.argv[1:4])
    for target in sys.argv[4:]:
        b, rest, exp, ec = run(T, E, K, target)
        print(f"T={T} E={E} K={K} {target}: counts {b['counts'].ravel().tolist()} numpy {ec.tolist()} maxerr {np.abs(b['out']-exp).max():.3e}", flush=True)
