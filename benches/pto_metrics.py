"""PTO code quality, measured statically: for each kernel, the GM traffic of
one call against a stated minimum, the synchronisation it executes and the
peak bytes placed in each on-chip memory (CompiledKernel.metrics on the
pto-a2a3sim target: the lowered program is interpreted for the call's shapes,
nothing runs; 24 clusters of one cube and two vector cores).

Minimums (bytes):
  streaming (vector add, softmax, RMSNorm, layernorm): every input element
    read once, every output element written once;
  blocked GEMM M x N x K with tiles tm x tn (over K in steps of tk): A read
    ceil(N/tn) times, B read ceil(M/tm) times, C written once; an epilogue
    operand of one tile row (bias) read once;
  flash attention H x S x D with query blocks of bq: Q read once, K and V
    read ceil(S/bq) times (once per query block), O written once.
Cross-core hand-overs of cluster tasks (cube <-> vector, through GM on
A2/A3) are listed separately as "ring B" and not counted in the ratio.

Usage: python3 benches/pto_metrics.py   (prints a markdown table)
"""

import importlib.util
import math
import os
import sys
import time

import numpy as np

import htp
from htp import f16, f32

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def example(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "examples", "python", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


# Conformance-style kernels (python/tests/test_conformance_programs.py,
# test_conformance_matmul.py), written here so the bench stands alone.
@htp.kernel
def layernorm(x: htp.Tensor[f32, "N", "H"], w: htp.Tensor[f32, "H"], b: htp.Tensor[f32, "H"],
              y: htp.Out[f32, "N", "H"], eps: f32):
    inv = 1.0 / htp.f32(x.shape[1])
    for i in range(0, x.shape[0], 16):
        total = htp.zeros((16, 1), f32)
        squares = htp.zeros((16, 1), f32)
        for j in range(0, x.shape[1], 64):
            t = htp.pad(x[i:i + 16, j:j + 64], 0.0)
            total = total + htp.row_sum(t)
            squares = squares + htp.row_sum(t * t)
        mean = total * inv
        rstd = htp.rsqrt(squares * inv - mean * mean + eps)
        for j in range(0, x.shape[1], 64):
            t = (htp.pad(x[i:i + 16, j:j + 64], 0.0) - mean) * rstd
            y[i:i + 16, j:j + 64] = t * htp.pad(w[j:j + 64], 0.0) + htp.pad(b[j:j + 64], 0.0)


# The same layernorm with H a compile-time constant and 256-column tiles
# (as the rmsnorm example is written): its column loops have constant trips.
@htp.kernel
def layernorm_const_h(x: htp.Tensor[f32, "N", "H"], w: htp.Tensor[f32, "H"], b: htp.Tensor[f32, "H"],
                      y: htp.Out[f32, "N", "H"], eps: f32, H: htp.Const[int] = 1024):
    inv = 1.0 / htp.f32(H)
    for i in range(0, x.shape[0], 8):
        total = htp.zeros((8, 1), f32)
        squares = htp.zeros((8, 1), f32)
        for j in range(0, H, 256):
            t = htp.pad(x[i:i + 8, j:j + 256], 0.0)
            total = total + htp.row_sum(t)
            squares = squares + htp.row_sum(t * t)
        mean = total * inv
        rstd = htp.rsqrt(squares * inv - mean * mean + eps)
        for j in range(0, H, 256):
            t = (htp.pad(x[i:i + 8, j:j + 256], 0.0) - mean) * rstd
            y[i:i + 8, j:j + 256] = t * w[j:j + 256] + b[j:j + 256]


@htp.kernel
def gemm_bias_relu(x: htp.Tensor[f16, "M", "K"], w: htp.Tensor[f16, "K", 64], b: htp.Tensor[f32, 1, 64],
                   y: htp.Out[f32, "M", 64]):
    for i in range(0, x.shape[0], 16):
        acc = htp.zeros((16, 64), f32)
        for k in range(0, x.shape[1], 32):
            acc += htp.pad(x[i:i + 16, k:k + 32], 0.0) @ htp.pad(w[k:k + 32, :], 0.0)
        y[i:i + 16, :] = htp.relu(acc + b[0:1, :])


def nbytes(*arrays):
    return sum(a.nbytes for a in arrays)


def cases():
    """(name, kernel, constants, arguments, minimum read bytes, minimum write bytes, minimum's formula)."""
    z = np.zeros
    a, b = z((4096, 256), np.float32), z((4096, 256), np.float32)
    yield "vector_add 4096x256 f32", example("vector_add"), {}, (a, b), nbytes(a, b), a.nbytes, "streaming"
    yield "softmax 4096x256 f32", example("softmax"), {}, (a,), a.nbytes, a.nbytes, "streaming"
    x, w = z((4096, 1024), np.float32), z((1, 1024), np.float32)
    yield ("rmsnorm 4096x1024 f32", example("rmsnorm"), {}, (x, w, None, 1e-6), nbytes(x, w), x.nbytes,
           "streaming")
    w1, b1 = z(1024, np.float32), z(1024, np.float32)
    yield ("layernorm 4096x1024 f32 (conformance)", layernorm, {}, (x, w1, b1, None, 1e-5), nbytes(x, w1, b1),
           x.nbytes, "streaming")
    yield ("layernorm 4096x1024 f32, H constant, 256-column tiles", layernorm_const_h, {}, (x, w1, b1, None, 1e-5),
           nbytes(x, w1, b1), x.nbytes, "streaming")
    m, n, k = 1024, 1024, 1024
    ga, gb = z((m, k), np.float16), z((k, n), np.float16)
    yield ("gemm 1024^3 f16->f32, 64x64x32", example("gemm"), {}, (ga, gb),
           ga.nbytes * math.ceil(n / 64) + gb.nbytes * math.ceil(m / 64), m * n * 4, "blocked")
    xa, wb, bias = z((1024, 1024), np.float16), z((1024, 64), np.float16), z((1, 64), np.float32)
    blocks = math.ceil(1024 / 16)
    yield ("gemm+bias+relu 1024x64x1024 (conformance), 16x64x32", gemm_bias_relu, {}, (xa, wb, bias),
           xa.nbytes + wb.nbytes * blocks + bias.nbytes, 1024 * 64 * 4, "blocked")
    h, s = 4, 512
    q = z((h, s, 64), np.float32)
    for causal in (False,):
        yield (f"flash_attention {h}x{s}x64 f32, bq=bk=32", example("flash_attention"), {"CAUSAL": causal},
               (q, q, q, None, 0.125), q.nbytes + 2 * q.nbytes * math.ceil(s / 32), q.nbytes, "blocked")


def kib(value):
    return f"{value / 1024:.0f}K" if value else "0"


def main():
    print("| kernel | GM read B | min read B | read ratio | GM write B | min write B | write ratio "
          "| set/wait flags | barriers | ring B | peak UB | L1 | L0A | L0B | L0C | min |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    seconds = 0.0
    for name, kernel, constants, arguments, min_read, min_write, formula in cases():
        compiled = kernel.compile("pto-a2a3sim", **constants)
        start = time.perf_counter()
        m = compiled.metrics(*arguments)
        seconds += time.perf_counter() - start
        read, write = m["gm_read_bytes"], m["gm_write_bytes"]
        assert m["set_flags"] == m["wait_flags"], (name, m["set_flags"], m["wait_flags"])
        print(f"| {name} | {read:.0f} | {min_read} | {read / min_read:.3f} | {write:.0f} | {min_write} "
              f"| {write / min_write:.3f} | {m['set_flags']:.0f} | {m['barriers']:.0f} | {m['ring_bytes']:.0f} "
              f"| {kib(m['peak_bytes.vec'])} | {kib(m['peak_bytes.mat'])} | {kib(m['peak_bytes.left'])} "
              f"| {kib(m['peak_bytes.right'])} | {kib(m['peak_bytes.acc'])} | {formula} |")
    print(f"\n(evaluated in {seconds:.1f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
