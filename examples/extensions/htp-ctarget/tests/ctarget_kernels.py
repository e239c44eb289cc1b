"""Conformance-style kernels for the c target (compared with numpy and cpu)."""

import htp
from htp import f32, i8, i16, i32, i64

from htp_ctarget import nn


@htp.kernel
def add2d(x: htp.Tensor[f32, "N", "M"], y: htp.Tensor[f32, "N", "M"], z: htp.Out[f32, "N", "M"]):
    for i in range(0, x.shape[0], 8):
        for j in range(0, x.shape[1], 32):
            z[i:i + 8, j:j + 32] = x[i:i + 8, j:j + 32] + y[i:i + 8, j:j + 32]


@htp.kernel
def arith_f32(x: htp.Tensor[f32, "N", 64], y: htp.Tensor[f32, "N", 64], z: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        a = x[i:i + 16, :]
        b = y[i:i + 16, :]
        z[i:i + 16, :] = (a - b) * a / b + htp.maximum(a, b) - htp.minimum(a, b)


@htp.kernel
def unary_f32(x: htp.Tensor[f32, "N", 32], e: htp.Out[f32, "N", 32], l: htp.Out[f32, "N", 32],
              s: htp.Out[f32, "N", 32], m: htp.Out[f32, "N", 32]):
    for i in range(0, x.shape[0], 8):
        t = x[i:i + 8, :]
        e[i:i + 8, :] = htp.exp(t)
        p = htp.abs(t) + 0.5
        l[i:i + 8, :] = htp.log(p) + htp.sqrt(p)
        s[i:i + 8, :] = htp.rsqrt(p) + htp.recip(p)
        m[i:i + 8, :] = htp.relu(t) - t


@htp.kernel
def ints(x: htp.Tensor[i32, "N", 16], y: htp.Tensor[i32, "N", 16], z: htp.Out[i32, "N", 16], q: htp.Out[i32, "N", 16]):
    for i in range(0, x.shape[0], 4):
        a = x[i:i + 4, :]
        b = y[i:i + 4, :]
        z[i:i + 4, :] = a * b - htp.abs(a) + max(a, b) + htp.relu(-b)
        q[i:i + 4, :] = a / b


@htp.kernel
def small_ints(x: htp.Tensor[i16, 8, 16], y: htp.Out[i16, 8, 16], u: htp.Tensor[i8, 8, 16], v: htp.Out[i8, 8, 16],
               w: htp.Tensor[i64, 8, 16], o: htp.Out[i64, 8, 16]):
    y[:, :] = x[:, :] * x[:, :] + 3
    v[:, :] = u[:, :] + u[:, :] - min(u[:, :], 2)
    o[:, :] = w[:, :] * 7 - htp.row_max(w[:, :])


@htp.kernel
def vadd(x: htp.Tensor[f32, "N"], y: htp.Tensor[f32, "N"], z: htp.Out[f32, "N"], BLOCK: htp.Const[int] = 64):
    for i in range(0, x.shape[0], BLOCK):
        z[i:i + BLOCK] = x[i:i + BLOCK] + y[i:i + BLOCK]


@htp.kernel
def scale_bias(x: htp.Tensor[f32, "N", 64], w: htp.Tensor[f32, 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.pad(x[i:i + 16, :], 0.0) * w[:]


@htp.kernel
def softmax(x: htp.Tensor[f32, "N", 128], y: htp.Out[f32, "N", 128]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        e = htp.exp(t - htp.row_max(t))
        y[i:i + 16, :] = e / htp.row_sum(e)


@htp.kernel
def rmsnorm(x: htp.Tensor[f32, "N", "H"], w: htp.Tensor[f32, 1, "H"], y: htp.Out[f32, "N", "H"],
            eps: f32, H: htp.Const[int] = 96):
    for i in range(0, x.shape[0], 8):
        squares = htp.zeros((8, 1), f32)
        for j in range(0, H, 32):
            t = htp.pad(x[i:i + 8, j:j + 32], 0.0)
            squares = squares + htp.row_sum(t * t)
        scale = htp.rsqrt(squares * (1.0 / H) + eps)
        for j in range(0, H, 32):
            y[i:i + 8, j:j + 32] = htp.pad(x[i:i + 8, j:j + 32], 0.0) * scale * htp.pad(w[0:1, j:j + 32], 0.0)


@htp.kernel
def reductions(x: htp.Tensor[f32, "N", "M"], rs: htp.Out[f32, "N", 3], cs: htp.Out[f32, 3, "M"]):
    for i in range(0, x.shape[0], 8):
        for j in range(0, x.shape[1], 16):
            t = x[i:i + 8, j:j + 16]
            rs[i:i + 8, 0:1] = htp.row_sum(t)
            rs[i:i + 8, 1:2] = htp.row_max(t)
            rs[i:i + 8, 2:3] = htp.row_min(t)
            cs[0:1, j:j + 16] = htp.col_sum(t)
            cs[1:2, j:j + 16] = htp.col_max(t)
            cs[2:3, j:j + 16] = htp.col_min(t)


@htp.kernel
def masks(x: htp.Tensor[f32, "N", 32], y: htp.Out[f32, "N", 32], m: htp.Out[bool, "N", 32], lo: f32):
    for i in range(0, x.shape[0], 8):
        t = x[i:i + 8, :]
        keep = t >= lo
        m[i:i + 8, :] = keep
        rows = htp.iota((8, 32), 0) + htp.i32(i)
        cols = htp.iota((8, 32), 1)
        u = htp.where(keep, t, 0.0)
        v = htp.where(cols > rows, -1.0, htp.pad(u, 0.0))
        y[i:i + 8, :] = v


@htp.kernel
def gemm(a: htp.Tensor[f32, "M", "K"], b: htp.Tensor[f32, "K", "N"], bias: htp.Tensor[f32, 1, "N"],
         c: htp.Out[f32, "M", "N"], alpha: f32):
    for i in range(0, a.shape[0], 16):
        for j in range(0, b.shape[1], 16):
            acc = htp.zeros((16, 16), f32)
            for k in range(0, a.shape[1], 8):
                acc += htp.pad(a[i:i + 16, k:k + 8], 0.0) @ htp.pad(b[k:k + 8, j:j + 16], 0.0)
            c[i:i + 16, j:j + 16] = htp.relu(acc * alpha + htp.pad(bias[0:1, j:j + 16], 0.0))


@htp.kernel
def gemm_i8(a: htp.Tensor[i8, 16, 32], b: htp.Tensor[i8, 32, 16], c: htp.Out[i32, 16, 16]):
    c[:, :] = a[:, :] @ b[:, :]


@htp.kernel
def transpose_cast(x: htp.Tensor[f32, "N", 16], y: htp.Out[i32, 16, "N"], z: htp.Out[f32, "N", 16]):
    for i in range(0, x.shape[0], 8):
        t = x[i:i + 8, :]
        y[:, i:i + 8] = htp.cast(htp.transpose(t) * 10.0, i32)
        z[i:i + 8, :] = htp.cast(htp.cast(t * 3.0, i16), f32)


@htp.kernel
def scalars(x: htp.Tensor[f32, 4, 16], y: htp.Out[f32, 4, 16], s: f32, k: int, h: htp.i16):
    a = float(k) * s
    j = int(s)
    t = x[:, :] + a + float(j) + htp.f32(h)
    if s > 1.0 and k < 3:
        t = t * 2.0
    y[:, :] = t + htp.f32(k // -2) + htp.f32(k % -3) + htp.f32(k // 3) + htp.f32(k % 3) + max(s, 1.0) + min(s, 0.0)


@htp.kernel
def carried(x: htp.Tensor[f32, "N", 16], y: htp.Out[f32, 2, 16], n: htp.Out[i64, 1, 16]):
    total = htp.zeros((1, 16), f32)
    biggest = htp.full((1, 16), -htp.inf, f32)
    count = 0
    for i in range(0, x.shape[0], 4):
        t = htp.pad(x[i:i + 4, :], 0.0)
        total, biggest = total + htp.col_sum(t), max(biggest, htp.col_max(htp.pad(x[i:i + 4, :], -1.0e30)))
        count = count + 1
    y[0:1, :] = total
    y[1:2, :] = biggest
    n[:, :] = htp.full((1, 16), htp.i64(count), i64)


@htp.kernel
def swap(x: htp.Tensor[f32, 4, 8], y: htp.Out[f32, 8, 8], steps: int):
    a = x[:, :]
    b = x[:, :] * 10.0
    for _ in range(0, steps, 1):
        a, b = b, a
    y[0:4, :] = a
    y[4:8, :] = b


@htp.kernel
def branches(x: htp.Tensor[f32, "N", 16], y: htp.Out[f32, "N", 16], flag: bool, t0: f32):
    for i in range(0, x.shape[0], 4):
        t = x[i:i + 4, :]
        if flag:
            t = t + t0
        elif t0 > 1.0:
            t = t * t0
        else:
            t = -t
        y[i:i + 4, :] = t


@htp.kernel
def batched(x: htp.Tensor[f32, 3, "N", 8], y: htp.Out[f32, 3, "N", 8]):
    for b in range(0, 3, 1):
        for i in range(0, x.shape[1], 4):
            y[b, i:i + 4, :] = x[b, i:i + 4, :] * htp.f32(b + 1)


@htp.kernel
def gather_rows(x: htp.Tensor[f32, "N", 16], idx: htp.Tensor[i32, 8, 1], y: htp.Out[f32, 8, 16]):
    y[:, :] = htp.gather(x, idx[:, :], 0, 16)


@htp.kernel
def activations(x: htp.Tensor[f32, "N", 32], a: htp.Out[f32, "N", 32], b: htp.Out[f32, "N", 32],
                c: htp.Out[f32, "N", 32]):
    for i in range(0, x.shape[0], 8):
        t = x[i:i + 8, :]
        a[i:i + 8, :] = nn.silu(t)
        b[i:i + 8, :] = nn.gelu_tanh(t)
        c[i:i + 8, :] = nn.softplus(t)


@htp.kernel
def past_end(x: htp.Tensor[f32, 16, 16], out: htp.Out[f32, 16, 16]):
    for i in range(0, 64, 8):
        out[i:i + 8, :] = x[0:8, :]


@htp.kernel
def divide_rows(x: htp.Tensor[f32, "N", 16], out: htp.Out[f32, "N", 16], d: htp.i64):
    for j in range(0, x.shape[0], 8):
        q = x.shape[0] // d + j % d
        out[j:j + 8, :] = x[j:j + 8, :] * htp.f32(q)


@htp.kernel
def halves(x: htp.Tensor[htp.f16, 16, 16], y: htp.Out[htp.f16, 16, 16]):
    y[:, :] = x[:, :] + x[:, :]


@htp.kernel
def big_tiles(x: htp.Tensor[f32, "N", 256], y: htp.Out[f32, "N", 256]):
    for i in range(0, x.shape[0], 256):
        t = x[i:i + 256, :]
        y[i:i + 256, :] = htp.exp(t) * t - t * t


@htp.kernel
def panels(x: htp.Tensor[f32, "N", 64], y: htp.Tensor[f32, "N", 64], z: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 8):
        a = htp.relayout(x[i:i + 8, :], "panels16")
        z[i:i + 8, :] = a * 2.0 + y[i:i + 8, :]


@htp.kernel
def columns(x: htp.Tensor[f32, 16, 64], z: htp.Out[f32, 16, 64]):
    z[:, :] = htp.relayout(x[:, :], "col_major") + 1.0
