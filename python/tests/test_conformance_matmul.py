"""Conformance: matrix products.

Every operand/result type pair the language allows (f16 -> f32, f32, bf16 ->
f32, i8 -> i32, f16 -> f16), tiled GEMMs with ragged M, N and K, `x @ w.T`,
operands of few rows, the four spellings of accumulation, epilogues in the
same loop (bias + ReLU, SwiGLU gating, scaling) and batched products over
3-D tensors. Case ids are `theme/<operands -> result>/<shape or form>`
rearranged as `theme/construct/types`; expected outcomes: conformance.MATRIX."""

import numpy as np
import pytest

import conformance as c
from conformance import check, parts, random, rng


def operand_types(types):
    """'f16->f32' -> ('f16', 'f32')."""
    a, result = types.split("->")
    return a.split(" ")[0], result.split(" ")[0]


def operands(case, dtype, *shapes):
    gen = rng(case)
    return [random(gen, dtype, shape, scale=0.5) for shape in shapes]


GEMM = """
@htp.kernel
def gemm(a: htp.Tensor[{A}, "M", "K"], b: htp.Tensor[{A}, "K", "N"], c: htp.Out[{C}, "M", "N"]):
    for i in range(0, a.shape[0], 32):
        for j in range(0, b.shape[1], 32):
            acc = htp.zeros((32, 32), {C})
            for k in range(0, a.shape[1], 32):
                acc += htp.pad(a[i:i + 32, k:k + 32], 0) @ htp.pad(b[k:k + 32, j:j + 32], 0)
            c[i:i + 32, j:j + 32] = acc
"""


@pytest.mark.parametrize("case, mode", c.params("matmul/"))
def test_tiled_gemm(case, mode):
    types, shape = parts(case)
    m, n, k = (int(v) for v in shape.split("x"))  # M x N x K
    a_type, c_type = operand_types(types)
    a, b = operands(case, a_type, (m, k), (k, n))
    expected = c.as_float64(a) @ c.as_float64(b)
    if types == "f16->f16 (dtype=f16)":
        kernel = c.template(SINGLE, A="f16", EXPR="htp.matmul(a[:, :], b[:, :], dtype=f16)", C="f16")
        return check(case, mode, kernel, (a, b), expected, scale=4)
    if types == "f16->f32, cast to f16":
        kernel = c.template(SINGLE, A="f16", EXPR="htp.cast(a[:, :] @ b[:, :], f16)", C="f16")
        return check(case, mode, kernel, (a, b), expected)
    if types == "i16->i16":
        kernel = c.template(SINGLE, A="i16", EXPR="a[:, :] @ b[:, :]", C="i16")
        return check(case, mode, kernel, at="a[:, :] @ b")
    check(case, mode, c.template(GEMM, A=a_type, C=c_type), (a, b), expected, scale=k)


# One product of whole static tensors (`:` needs a static dimension).
SINGLE = """
@htp.kernel
def single(a: htp.Tensor[{A}, 32, 64], b: htp.Tensor[{A}, 64, 32], c: htp.Out[{C}, 32, 32]):
    c[:, :] = {EXPR}
"""


NT = """
@htp.kernel
def nt(x: htp.Tensor[{A}, "M", 64], w: htp.Tensor[{A}, "N", 64], y: htp.Out[f32, "M", "N"]):
    for i in range(0, x.shape[0], 16):
        for j in range(0, w.shape[0], 32):
            y[i:i + 16, j:j + 32] = htp.pad(x[i:i + 16, :], 0.0) @ htp.pad(w[j:j + 32, :], 0.0).T
"""


@pytest.mark.parametrize("case, mode", c.params("matmul_nt/"))
def test_x_times_w_transposed(case, mode):
    types, _ = parts(case)
    a_type, _ = operand_types(types)
    x, w = operands(case, a_type, (40, 64), (50, 64))
    check(case, mode, c.template(NT, A=a_type), (x, w), c.as_float64(x) @ c.as_float64(w).T, scale=64)


FEW_ROWS_PADDED = """
@htp.kernel
def few_rows_padded(x: htp.Tensor[f16, "M", 64], w: htp.Tensor[f16, 64, 64], y: htp.Out[f32, "M", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.pad(x[i:i + 16, :], 0.0) @ w[:, :]
"""
FEW_ROW_TILES = """
@htp.kernel
def few_row_tiles(x: htp.Tensor[f16, "M", 64], w: htp.Tensor[f16, 64, 64], y: htp.Out[f32, "M", 64],
                  B: htp.Const[int] = 1):
    for i in range(0, x.shape[0], B):
        y[i:i + B, :] = x[i:i + B, :] @ w[:, :]
"""
ONE_ROW_NT = """
@htp.kernel
def one_row_nt(x: htp.Tensor[f32, 1, 64], w: htp.Tensor[f32, "N", 64], y: htp.Out[f32, 1, "N"]):
    for j in range(0, w.shape[0], 32):
        y[0:1, j:j + 32] = x[0:1, :] @ htp.pad(w[j:j + 32, :], 0.0).T
"""


@pytest.mark.parametrize("case, mode", c.params("few_rows/"))
def test_few_row_operands(case, mode):
    construct, types = parts(case)
    rows = int(construct.split(" ")[0].split("-")[0])
    a_type, _ = operand_types(types)
    if construct == "1-row tile, x @ w.T":
        x, w = operands(case, a_type, (1, 64), (50, 64))
        return check(case, mode, c.template(ONE_ROW_NT), (x, w), c.as_float64(x) @ c.as_float64(w).T, scale=64)
    if construct.endswith("in a 16-row tile"):
        x, w = operands(case, a_type, (rows, 64), (64, 64))  # one ragged row block
        return check(case, mode, c.template(FEW_ROWS_PADDED), (x, w), c.as_float64(x) @ c.as_float64(w), scale=64)
    x, w = operands(case, a_type, (8, 64), (64, 64))
    check(case, mode, c.template(FEW_ROW_TILES), (x, w), c.as_float64(x) @ c.as_float64(w), scale=64,
          constants={"B": rows})


ACCUMULATE = """
@htp.kernel
def accumulate(a: htp.Tensor[f16, "M", "K"], b: htp.Tensor[f16, "K", 64], c: htp.Out[f32, "M", 64]):
    for i in range(0, a.shape[0], 32):
        acc = htp.zeros((32, 64), f32)
        for k in range(0, a.shape[1], 32):
            x = htp.pad(a[i:i + 32, k:k + 32], 0.0)
            w = htp.pad(b[k:k + 32, :], 0.0)
            {STATEMENT}
        c[i:i + 32, :] = acc
"""
ACCUMULATE_STATEMENT = {
    "acc += a @ b": "acc += x @ w",
    "acc = acc + a @ b": "acc = acc + x @ w",
    "acc = a @ b + acc": "acc = x @ w + acc",
    "htp.dot(a, b, acc)": "acc = htp.dot(x, w, acc)",
    "htp.matmul(a, b, acc=acc)": "acc = htp.matmul(x, w, acc=acc)",
}


@pytest.mark.parametrize("case, mode", c.params("accumulate/"))
def test_accumulation_spellings(case, mode):
    form, _ = parts(case)
    a, b = operands(case, "f16", (40, 100), (100, 64))
    kernel = c.template(ACCUMULATE, STATEMENT=ACCUMULATE_STATEMENT[form])
    check(case, mode, kernel, (a, b), c.as_float64(a) @ c.as_float64(b), scale=100)


EPILOGUE = {
    "bias + relu": """
@htp.kernel
def bias_relu(x: htp.Tensor[f16, "M", 64], w: htp.Tensor[f16, 64, 64], b: htp.Tensor[f32, 1, 64],
              y: htp.Out[f32, "M", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.relu(htp.pad(x[i:i + 16, :], 0.0) @ w[:, :] + b[0:1, :])
""",
    "swiglu gate": """
@htp.kernel
def swiglu(x: htp.Tensor[f16, "M", 64], wg: htp.Tensor[f16, 64, 64], wu: htp.Tensor[f16, 64, 64],
           y: htp.Out[f32, "M", 64]):
    for i in range(0, x.shape[0], 16):
        t = htp.pad(x[i:i + 16, :], 0.0)
        g = t @ wg[:, :]
        u = t @ wu[:, :]
        y[i:i + 16, :] = g * htp.recip(htp.exp(-g) + 1.0) * u
""",
    "scale by a run-time scalar": """
@htp.kernel
def scaled(x: htp.Tensor[f32, "M", 64], w: htp.Tensor[f32, 64, 64], y: htp.Out[f32, "M", 64], s: f32):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = (x[i:i + 16, :] @ w[:, :]) * s
""",
    "bias + relu after a K loop": """
@htp.kernel
def gemm_bias_relu(x: htp.Tensor[f16, "M", "K"], w: htp.Tensor[f16, "K", 64], b: htp.Tensor[f32, 1, 64],
                   y: htp.Out[f32, "M", 64]):
    for i in range(0, x.shape[0], 16):
        acc = htp.zeros((16, 64), f32)
        for k in range(0, x.shape[1], 32):
            acc += htp.pad(x[i:i + 16, k:k + 32], 0.0) @ htp.pad(w[k:k + 32, :], 0.0)
        y[i:i + 16, :] = htp.relu(acc + b[0:1, :])
""",
    "f16 result, then vector work": """
@htp.kernel
def half_result(x: htp.Tensor[f16, "N", 64], w: htp.Tensor[f16, 64, 64], y: htp.Out[f16, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.relu(htp.matmul(x[i:i + 16, :], w[:, :], dtype=f16))
""",
    "operand made by vector work, 4 rows": """
@htp.kernel
def vector_made(x: htp.Tensor[f16, "N", 64], w: htp.Tensor[f16, 64, 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 4):
        y[i:i + 4, :] = htp.relu((x[i:i + 4, :] * 2.0) @ w[:, :])
""",
    "relu, operands not whole fractals": """
@htp.kernel
def narrow_cluster(x: htp.Tensor[f16, "N", 40], w: htp.Tensor[f16, 40, 32], y: htp.Out[f32, "N", 32]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.relu(x[i:i + 16, :] @ w[:, :])
""",
    "swiglu after a K loop, two accumulators": """
@htp.kernel
def swiglu_k(x: htp.Tensor[f16, "M", "K"], wg: htp.Tensor[f16, "K", 64], wu: htp.Tensor[f16, "K", 64],
             y: htp.Out[f16, "M", 64]):
    for i in range(0, x.shape[0], 16):
        gate = htp.zeros((16, 64), f32)
        up = htp.zeros((16, 64), f32)
        for k in range(0, x.shape[1], 32):
            a = htp.pad(x[i:i + 16, k:k + 32], 0.0)
            gate += a @ htp.pad(wg[k:k + 32, :], 0.0)
            up += a @ htp.pad(wu[k:k + 32, :], 0.0)
        y[i:i + 16, :] = htp.cast(gate / (1.0 + htp.exp(-gate)) * up, f16)
""",
}


@pytest.mark.parametrize("case, mode", c.params("epilogue/"))
def test_epilogues_in_the_same_loop(case, mode):
    form, types = parts(case)
    a_type, _ = operand_types(types)
    gen = rng(case)
    kernel = c.template(EPILOGUE[form])
    if form == "f16 result, then vector work":
        x, w = random(gen, "f16", (48, 64), scale=0.5), random(gen, "f16", (64, 64), scale=0.5)
        expected = np.maximum(c.rounded(c.as_float64(x) @ c.as_float64(w), "f16"), 0.0)
        return check(case, mode, kernel, (x, w), expected, scale=64, at="htp.matmul(x[i:i + 16, :]")
    if form == "operand made by vector work, 4 rows":
        x, w = random(gen, "f16", (40, 64), scale=0.5), random(gen, "f16", (64, 64), scale=0.5)
        expected = np.maximum((c.as_float64(x) * 2.0) @ c.as_float64(w), 0.0)
        return check(case, mode, kernel, (x, w), expected, scale=64, at="(x[i:i + 4, :] * 2.0) @")
    if form == "relu, operands not whole fractals":
        x, w = random(gen, "f16", (40, 40), scale=0.5), random(gen, "f16", (40, 32), scale=0.5)
        expected = np.maximum(c.as_float64(x) @ c.as_float64(w), 0.0)
        return check(case, mode, kernel, (x, w), expected, scale=40, at="x[i:i + 16, :] @")
    if form == "swiglu after a K loop, two accumulators":
        x = random(gen, "f16", (40, 100), scale=0.5)
        wg, wu = random(gen, "f16", (100, 64), scale=0.3), random(gen, "f16", (100, 64), scale=0.3)
        g, u = c.as_float64(x) @ c.as_float64(wg), c.as_float64(x) @ c.as_float64(wu)
        return check(case, mode, kernel, (x, wg, wu), g / (1.0 + np.exp(-g)) * u, scale=100)
    if form == "bias + relu after a K loop":
        x, w = random(gen, "f16", (40, 100), scale=0.5), random(gen, "f16", (100, 64), scale=0.5)
    else:
        x, w = random(gen, a_type, (40, 64), scale=0.5), random(gen, a_type, (64, 64), scale=0.5)
    product = c.as_float64(x) @ c.as_float64(w)
    if form in ("bias + relu", "bias + relu after a K loop"):
        b = random(gen, "f32", (1, 64))
        return check(case, mode, kernel, (x, w, b), np.maximum(product + b, 0.0), scale=x.shape[1])
    if form == "swiglu gate":
        wu = random(gen, "f16", (64, 64), scale=0.5)
        up = c.as_float64(x) @ c.as_float64(wu)
        return check(case, mode, kernel, (x, w, wu), product / (1.0 + np.exp(-product)) * up, scale=64)
    check(case, mode, kernel, (x, w, None, -0.75), product * -0.75, scale=64)


BATCHED = {
    "3-D operands": """
@htp.kernel
def batched(a: htp.Tensor[{A}, "B", "M", 64], b: htp.Tensor[{A}, "B", 64, 32], c: htp.Out[f32, "B", "M", 32]):
    for h in range(a.shape[0]):
        for i in range(0, a.shape[1], 16):
            c[h, i:i + 16, :] = htp.pad(a[h, i:i + 16, :], 0.0) @ b[h, :, :]
""",
    "3-D, shared weight": """
@htp.kernel
def shared_weight(a: htp.Tensor[{A}, "B", "M", 64], b: htp.Tensor[{A}, 64, 32], c: htp.Out[f32, "B", "M", 32]):
    for h in range(a.shape[0]):
        for i in range(0, a.shape[1], 16):
            c[h, i:i + 16, :] = htp.pad(a[h, i:i + 16, :], 0.0) @ b[:, :]
""",
}


@pytest.mark.parametrize("case, mode", c.params("batched/"))
def test_batched_products(case, mode):
    form, types = parts(case)
    a_type, _ = operand_types(types)
    gen = rng(case)
    a = random(gen, a_type, (3, 37, 64), scale=0.5)
    b = random(gen, a_type, (3, 64, 32) if form == "3-D operands" else (64, 32), scale=0.5)
    expected = np.matmul(c.as_float64(a), c.as_float64(b))
    check(case, mode, c.template(BATCHED[form], A=a_type), (a, b), expected, scale=64)
