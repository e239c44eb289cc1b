"""Conformance: how tiles meet tensors.

`htp.pad` with several values, ragged tails in either dimension and both,
constant slices past the end, 1-D tensors, tiles of 1, 2 and 4 rows,
broadcasts, loads and stores of every element type, 3-D tensors, `InOut`,
tiles made from scalars, transposes, tile layouts (`htp.relayout`), and
what does not fit on chip.
Expected outcomes: conformance.MATRIX."""

import numpy as np
import pytest

import conformance as c
from conformance import check, parts, random, rng

PAD = """
@htp.kernel
def pad(x: htp.Tensor[{T}, "N", "M"], y: htp.Out[{T}, "R", "C"]):
    for i in range(0, x.shape[0], 16):
        for j in range(0, x.shape[1], 64):
            y[i:i + 16, j:j + 64] = htp.pad(x[i:i + 16, j:j + 64], {V})
"""
PAD_VALUE = {"0.0": 0.0, "htp.inf": np.inf, "-htp.inf": -np.inf, "1.5": 1.5, "-3.0": -3.0, "0": 0, "-3": -3}


@pytest.mark.parametrize("case, mode", c.params("pad/"))
def test_pad(case, mode):
    construct, dtype = parts(case)
    if construct == "-inf padding before row_max":
        return check_pad_then_max(case, mode)
    if construct == "htp.pad of a full tile":
        return check_pad_of_full_tile(case, mode)
    if construct.startswith("one column, "):
        return check_column_pad(case, mode, construct[len("one column, htp.pad(t, "):-1], dtype)
    spelling = construct[len("htp.pad(t, "):-1]  # integer tiles take integer values
    x = random(rng(case), dtype, (37, 100))  # ragged in both dimensions
    expected = np.full((48, 128), PAD_VALUE[spelling])
    expected[:37, :100] = c.as_float64(x)
    y = np.zeros((48, 128), dtype=x.dtype)
    check(case, mode, c.template(PAD, T=dtype, V=spelling), (x, y), expected, at="htp.pad(")


PAD_THEN_MAX = """
@htp.kernel
def pad_then_max(x: htp.Tensor[f32, "N", "M"], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        m = htp.full((16, 1), -htp.inf, f32)
        for j in range(0, x.shape[1], 64):
            m = htp.maximum(m, htp.row_max(htp.pad(x[i:i + 16, j:j + 64], -htp.inf)))
        y[i:i + 16, :] = htp.pad(x[i:i + 16, 0:64], 0.0) - m
"""
PAD_FULL = """
@htp.kernel
def pad_full(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    y[:, :] = htp.pad(x[0:32, :], 1.5) + 1.0
"""


COLUMN_PAD = """
@htp.kernel
def column_pad(x: htp.Tensor[{T}, "N", 1], y: htp.Out[{T}, "R", 1]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.pad(x[i:i + 16, :], {V})
"""


def check_column_pad(case, mode, value, dtype):
    x = random(rng(case), dtype, (37, 1))  # a ragged last block of 5 rows
    expected = np.full((48, 1), float(value))
    expected[:37] = c.as_float64(x)
    y = np.zeros((48, 1), dtype=x.dtype)
    check(case, mode, c.template(COLUMN_PAD, T=dtype, V=value), (x, y), expected, at="htp.pad(")


def check_pad_then_max(case, mode):
    x = random(rng(case), "f32", (37, 150)) - np.float32(5.0)  # all rows negative-ish: 0-padding would win
    t = x.astype(np.float64)
    check(case, mode, c.template(PAD_THEN_MAX), (x,), t[:, :64] - t.max(axis=1, keepdims=True))


def check_pad_of_full_tile(case, mode):
    x = random(rng(case), "f32", (32, 64))
    check(case, mode, c.template(PAD_FULL), (x,), x.astype(np.float64) + 1.0)


RAGGED = """
@htp.kernel
def ragged(x: htp.Tensor[{T}, {DIMS}], z: htp.Tensor[{T}, {DIMS}], y: htp.Out[{T}, {DIMS}]):
    for i in range(0, x.shape[0], 16):
        for j in range(0, x.shape[1], 64):
            a = x[i:i + 16, j:j + 64]
            y[i:i + 16, j:j + 64] = a * z[i:i + 16, j:j + 64] + a
"""
RAGGED_SHAPES = {"static, exact": (32, 128), "symbolic, exact": (32, 128), "ragged rows": (37, 128),
                 "ragged cols": (32, 100), "ragged both": (37, 100)}
CONST_START = """
@htp.kernel
def const_start(x: htp.Tensor[f32, 100, 64], y: htp.Out[f32, 100, 64]):
    for i in range(0, 96, 32):
        y[i:i + 32, :] = x[i:i + 32, :] * 2.0
    y[96:128, :] = x[96:128, :] * 2.0
"""
MISMATCHED = """
@htp.kernel
def mismatched(x: htp.Tensor[f32, 100, 64], y: htp.Out[f32, 100, 64]):
    y[96:128, :] = x[96:128, :] + x[64:96, :]
"""
RAGGED_BROADCAST = """
@htp.kernel
def ragged_broadcast(x: htp.Tensor[f32, "N", 64], w: htp.Tensor[f32, 1, 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * w[0:1, :]
"""
RAGGED_COLUMN_BROADCAST = """
@htp.kernel
def ragged_column_broadcast(x: htp.Tensor[f32, 16, "M"], m: htp.Tensor[f32, 16, 1], y: htp.Out[f32, 16, "M"]):
    for j in range(0, x.shape[1], 64):
        y[:, j:j + 64] = htp.exp(x[:, j:j + 64] - m[:, :])
"""
CARRIED_BROADCAST = """
@htp.kernel
def carried_broadcast(x: htp.Tensor[f32, "N", 64], w: htp.Tensor[f32, 1, 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        for k in range(3):
            t = t * 0.5
        y[i:i + 16, :] = t * w[0:1, :]
"""


@pytest.mark.parametrize("case, mode", c.params("ragged/"))
def test_ragged_tails(case, mode):
    shape, dtype = parts(case)
    gen = rng(case)
    if shape == "constant start past the end":
        x = random(gen, "f32", (100, 64))
        return check(case, mode, c.template(CONST_START), (x,), x.astype(np.float64) * 2)
    if shape == "mismatched valid regions":
        return check(case, mode, c.template(MISMATCHED), at="x[96:128, :] + x")
    if shape == "1xC broadcast along ragged rows":
        x, w = random(gen, "f32", (37, 64)), random(gen, "f32", (1, 64))
        return check(case, mode, c.template(RAGGED_BROADCAST), (x, w), x.astype(np.float64) * w)
    if shape == "Rx1 broadcast along ragged columns":
        x, m = random(gen, "f32", (16, 100)), random(gen, "f32", (16, 1))
        return check(case, mode, c.template(RAGGED_COLUMN_BROADCAST), (x, m), np.exp(x.astype(np.float64) - m))
    if shape == "1xC broadcast along a loop-carried ragged tile":
        return check(case, mode, c.template(CARRIED_BROADCAST), at="t * w")
    rows, cols = RAGGED_SHAPES[shape]
    dims = f"{rows}, {cols}" if shape == "static, exact" else '"N", "M"'
    x, z = random(gen, dtype, (rows, cols)), random(gen, dtype, (rows, cols))
    a, b = c.as_float64(x), c.as_float64(z)
    check(case, mode, c.template(RAGGED, T=dtype, DIMS=dims), (x, z), a * b + a, scale=2)


ROWS = """
@htp.kernel
def few_rows(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64], B: htp.Const[int] = 1):
    for i in range(0, x.shape[0], B):
        t = x[i:i + B, :]
        y[i:i + B, :] = htp.exp(t - htp.row_max(t)) * 0.5
"""


@pytest.mark.parametrize("case, mode", c.params("rows/"))
def test_few_row_tiles(case, mode):
    construct, dtype = parts(case)
    rows = int(construct.split("-")[0])
    x = random(rng(case), dtype, (37, 64))  # ragged for 2 and 4 rows
    t = c.as_float64(x)
    expected = np.exp(t - t.max(axis=1, keepdims=True)) * 0.5
    check(case, mode, c.template(ROWS, T=dtype), (x,), expected, scale=2, constants={"B": rows})


VECTOR1D = {
    "exp(x) - 1, ragged": """
@htp.kernel
def vector_exp(x: htp.Tensor[f32, "N"], y: htp.Out[f32, "N"]):
    for i in range(0, x.shape[0], 128):
        y[i:i + 128] = htp.exp(x[i:i + 128]) - 1.0
""",
    "x * w + 1, 1-D weight": """
@htp.kernel
def vector_weight(x: htp.Tensor[f32, "N"], w: htp.Tensor[f32, 64], y: htp.Out[f32, "N"]):
    for i in range(0, x.shape[0], 64):
        y[i:i + 64] = htp.pad(x[i:i + 64], 0.0) * w[:] + 1.0
""",
    "1-D weight over 2-D rows": """
@htp.kernel
def row_weight(x: htp.Tensor[f32, "N", 64], w: htp.Tensor[f32, 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.pad(x[i:i + 16, :], 0.0) * w[:]
""",
    "i32 + 1": """
@htp.kernel
def vector_int(x: htp.Tensor[i32, "N"], y: htp.Out[i32, "N"]):
    for i in range(0, x.shape[0], 256):
        y[i:i + 256] = x[i:i + 256] + 1
""",
}


@pytest.mark.parametrize("case, mode", c.params("vector1d/"))
def test_one_dimensional_tensors(case, mode):
    construct, dtype = parts(case)
    gen = rng(case)
    kernel = c.template(VECTOR1D[construct])
    if construct == "exp(x) - 1, ragged":
        x = random(gen, "f32", (300,))
        return check(case, mode, kernel, (x,), np.exp(x.astype(np.float64)) - 1.0, scale=2)
    if construct == "x * w + 1, 1-D weight":
        x, w = random(gen, "f32", (300,)), random(gen, "f32", (64,))
        expected = x.astype(np.float64) * np.resize(w.astype(np.float64), 300) + 1.0
        return check(case, mode, kernel, (x, w), expected, scale=2)
    if construct == "1-D weight over 2-D rows":
        x, w = random(gen, "f32", (40, 64)), random(gen, "f32", (64,))
        return check(case, mode, kernel, (x, w), x.astype(np.float64) * w)
    x = random(gen, "i32", (1000,), low=-1000, high=1000)
    check(case, mode, kernel, (x,), x.astype(np.int64) + 1)


BROADCAST = {
    "[1,C] row vector": """
@htp.kernel
def row_vector(x: htp.Tensor[{T}, "N", 64], w: htp.Tensor[{T}, 1, 64], b: htp.Tensor[{T}, 1, 64],
               y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.pad(x[i:i + 16, :], 0) * w[0:1, :] + b[0:1, :]
""",
    "[R,1] column from a tensor": """
@htp.kernel
def column_vector(x: htp.Tensor[{T}, "N", 64], s: htp.Tensor[{T}, "N", 1], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * s[i:i + 16, :]
""",
    "[R,1] op [1,C] outer": """
@htp.kernel
def outer(x: htp.Tensor[{T}, 16, 64], y: htp.Out[{T}, 16, 64]):
    t = x[:, :]
    y[:, :] = htp.row_sum(t) * htp.col_max(t)
""",
    "htp.broadcast explicit": """
@htp.kernel
def explicit(x: htp.Tensor[{T}, "N", 64], w: htp.Tensor[{T}, 1, 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.pad(x[i:i + 16, :], 0) - htp.broadcast(w[0:1, :], (16, 64))
""",
}


@pytest.mark.parametrize("case, mode", c.params("broadcast/"))
def test_broadcasts(case, mode):
    construct, dtype = parts(case)
    gen = rng(case)
    kernel = c.template(BROADCAST[construct], T=dtype)
    if construct == "[R,1] op [1,C] outer":
        x = random(gen, dtype, (16, 64))
        t = c.as_float64(x)
        return check(case, mode, kernel, (x,), t.sum(1, keepdims=True) * t.max(0, keepdims=True), scale=16,
                     at="htp.row_sum(t) *")
    x, w, b = random(gen, dtype, (40, 64)), random(gen, dtype, (1, 64)), random(gen, dtype, (1, 64))
    t, v, u = c.as_float64(x), c.as_float64(w), c.as_float64(b)
    if construct == "[1,C] row vector":
        return check(case, mode, kernel, (x, w, b), t * v + u, scale=2)
    if construct == "[R,1] column from a tensor":
        s = random(gen, dtype, (40, 1))
        return check(case, mode, kernel, (x, s), t * c.as_float64(s))
    check(case, mode, kernel, (x, w), t - v)


COPY = """
@htp.kernel
def copy(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :]
"""
COPY_OTHER = {
    "3-D tensor, one index": """
@htp.kernel
def copy3d(x: htp.Tensor[f32, "B", "N", 64], y: htp.Out[f32, "B", "N", 64]):
    for b in range(x.shape[0]):
        for i in range(0, x.shape[1], 16):
            y[b, i:i + 16, :] = x[b, i:i + 16, :] + 1.0
""",
    "InOut in place": """
@htp.kernel
def in_place(x: htp.InOut[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        x[i:i + 16, :] = x[i:i + 16, :] * 2.0 + 1.0
""",
    "InOut written in part, never read": """
@htp.kernel
def in_part(x: htp.Tensor[f32, "N", 64], y: htp.InOut[f32, "N", 64]):
    y[0:16, :] = x[0:16, :] * 2.0
""",
    "store a run-time scalar": """
@htp.kernel
def fill(y: htp.Out[f32, "N", 64], s: f32):
    for i in range(0, y.shape[0], 16):
        y[i:i + 16, :] = s
""",
    "strided and transposed views in and out": """
@htp.kernel
def views(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * 3.0
""",
    "store one element": """
@htp.kernel
def one_element(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 1, 64]):
    y[0:1, :] = x[0:1, :]
    y[0:1, 5:6] = -1.0
""",
}


@pytest.mark.parametrize("case, mode", c.params("copy/"))
def test_loads_and_stores(case, mode):
    construct, dtype = parts(case)
    gen = rng(case)
    if construct == "load + store":
        x = random(gen, dtype, (40, 64), low=-100, high=100)
        return check(case, mode, c.template(COPY, T=dtype), (x,), c.as_float64(x), scale=0.0)
    kernel = c.template(COPY_OTHER[construct])
    if construct == "3-D tensor, one index":
        x = random(gen, "f32", (3, 37, 64))
        return check(case, mode, kernel, (x,), x.astype(np.float64) + 1.0)
    if construct == "InOut in place":
        x = random(gen, "f32", (40, 64))
        expected = x.astype(np.float64) * 2.0 + 1.0
        return check(case, mode, kernel, (x,), expected)
    if construct == "InOut written in part, never read":
        x = random(gen, "f32", (40, 64))
        y = np.full((40, 64), 7.0, np.float32)
        expected = y.astype(np.float64)
        expected[:16] = x[:16] * 2.0
        return check(case, mode, kernel, (x, y), expected)
    if construct == "strided and transposed views in and out":
        # Views are copied to contiguous arrays for the call and the output copied back (docs/language.md).
        base = random(gen, "f32", (70, 80))
        x = base.T[::2, 3:67]  # 40 x 64, neither C-contiguous nor aligned to the original rows
        out = np.full((40, 130), -5.0, np.float32)
        y = out[:, ::2][:, :64]  # a strided output view
        check(case, mode, kernel, (x, y), x.astype(np.float64) * 3.0)
        untouched = out.copy()
        untouched[:, :128:2] = 0.0
        assert (untouched[:, 1::2] == -5.0).all(), "elements around the output view were written"
        return None
    if construct == "store a run-time scalar":
        y = np.full((40, 64), np.nan, np.float32)
        return check(case, mode, kernel, (y, 2.5), np.full((40, 64), 2.5))
    x = random(gen, "f32", (16, 64))
    expected = x[0:1].astype(np.float64)
    expected[0, 5] = -1.0
    check(case, mode, kernel, (x,), expected)


MAKE = {
    "zeros + ones + full": """
@htp.kernel
def make(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        base = htp.zeros((16, 64), {T}) + htp.ones((16, 64), {T})
        y[i:i + 16, :] = htp.pad(x[i:i + 16, :], 0) * htp.full((16, 64), 3, {T}) + base
""",
    "full of a run-time scalar": """
@htp.kernel
def make_scalar(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64], s: {T}):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.pad(x[i:i + 16, :], 0) - htp.full((16, 64), s)
""",
    "zeros_like + ones_like + full_like of a ragged block": """
@htp.kernel
def make_like(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = t * htp.full_like(t, 3) + htp.ones_like(t) + htp.zeros_like(t)
""",
    "full": """
@htp.kernel
def make_full(y: htp.Out[{T}, 16, 64]):
    y[:, :] = htp.full((16, 64), 3, {T})
""",
}


@pytest.mark.parametrize("case, mode", c.params("make/"))
def test_tiles_from_scalars(case, mode):
    construct, dtype = parts(case)
    kernel = c.template(MAKE[construct], T=dtype)
    if construct == "full":
        return check(case, mode, kernel, (), np.full((16, 64), 3), at="htp.full(")
    x = random(rng(case), dtype, (40, 64))
    t = c.as_float64(x)
    if construct == "full of a run-time scalar":
        return check(case, mode, kernel, (x, None, 7), t - 7)
    if construct.startswith("zeros_like"):
        return check(case, mode, kernel, (x,), t * 3 + 1, scale=2, at="t * htp.full_like(")
    check(case, mode, kernel, (x,), t * 3 + 1, scale=2, at="htp.zeros(")


TRANSPOSE = {
    "of a loaded tile": """
@htp.kernel
def transpose_load(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 64, 32]):
    y[:, :] = htp.transpose(x[:, :])
""",
    "of a computed tile": """
@htp.kernel
def transpose_computed(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 64, 32]):
    y[:, :] = (x[:, :] * 2.0).T
""",
}


TRANSPOSE_RAGGED = """
@htp.kernel
def transpose_ragged(x: htp.Tensor[{T}, "N", "M"], y: htp.Out[{T}, "M", "N"]):
    for i in range(0, x.shape[0], 16):
        for j in range(0, x.shape[1], 32):
            y[j:j + 32, i:i + 16] = htp.transpose(x[i:i + 16, j:j + 32])
"""
TRANSPOSE_VECTORS = """
@htp.kernel
def transpose_vectors(x: htp.Tensor[{T}, "N", 64], rows: htp.Out[{T}, 1, "N"], cols: htp.Out[{T}, 64, 1]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        rows[0:1, i:i + 16] = htp.transpose(htp.row_max(t))    # [16,1] -> [1,16]
    cols[:, :] = htp.transpose(x[0:1, :])                        # [1,64] -> [64,1]
"""


@pytest.mark.parametrize("case, mode", c.params("transpose/"))
def test_vector_transpose(case, mode):
    construct, dtype = parts(case)
    gen = rng(case)
    if construct == "ragged, in tiles":
        x = random(gen, dtype, (37, 70))
        return check(case, mode, c.template(TRANSPOSE_RAGGED, T=dtype), (x,), c.as_float64(x).T, scale=0.0)
    if construct == "row and column vectors":
        x = random(gen, dtype, (40, 64))
        t = c.as_float64(x)
        return check(case, mode, c.template(TRANSPOSE_VECTORS, T=dtype), (x,),
                     (t.max(axis=1)[None, :], t[0][:, None]), scale=0.0, at="htp.row_max(t)")
    x = random(gen, "f32", (32, 64))
    expected = x.T.astype(np.float64) * (2.0 if construct == "of a computed tile" else 1.0)
    check(case, mode, c.template(TRANSPOSE[construct]), (x,), expected)


COLUMNS = """
@htp.kernel
def columns(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 8]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, 0:1] = htp.row_sum(t)              # a column into a row-major [N, 8] tensor
        y[i:i + 16, 3:4] = htp.row_max(t)
        y[i:i + 16, 5:6] = x[i:i + 16, 7:8] + x[i:i + 16, 2:3]   # columns loaded from a row-major [N, 64]
        y[i:i + 16, 1:2] = htp.zeros((16, 1), {T})
        y[i:i + 16, 2:3] = htp.zeros((16, 1), {T})
        y[i:i + 16, 4:5] = htp.zeros((16, 1), {T})
        y[i:i + 16, 6:8] = x[i:i + 16, 0:2]
"""


@pytest.mark.parametrize("case, mode", c.params("column/"))
def test_columns_of_row_major_tensors(case, mode):
    _, dtype = parts(case)
    x = random(rng(case), dtype, (37, 64))
    t = c.as_float64(x)
    y = np.zeros((37, 8))
    y[:, 0], y[:, 3], y[:, 5], y[:, 6:8] = t.sum(1), t.max(1), t[:, 7] + t[:, 2], t[:, 0:2]
    check(case, mode, c.template(COLUMNS, T=dtype), (x,), y, scale=8)


CAPACITY = {
    # a 64 x 1024 f32 tile is 256 KiB: more than the whole UB
    "one tile larger than UB": """
@htp.kernel
def big_tile(x: htp.Tensor[f32, "N", 1024], y: htp.Out[f32, "N", 1024]):
    for i in range(0, x.shape[0], 64):
        t = x[i:i + 64, :]
        y[i:i + 64, :] = t + t
""",
    # two live 32 x 1024 f32 tiles (128 KiB each) do not fit together
    "live tiles exceed UB": """
@htp.kernel
def live_tiles(x: htp.Tensor[f32, "N", 1024], z: htp.Tensor[f32, "N", 1024], y: htp.Out[f32, "N", 1024]):
    for i in range(0, x.shape[0], 32):
        t = x[i:i + 32, :]
        u = z[i:i + 32, :]
        y[i:i + 32, :] = t * u
""",
}


@pytest.mark.parametrize("case, mode", c.params("capacity/"))
def test_on_chip_capacity(case, mode):
    construct, _ = parts(case)
    gen = rng(case)
    x, z = random(gen, "f32", (70, 1024)), random(gen, "f32", (70, 1024))
    if construct == "one tile larger than UB":
        return check(case, mode, c.template(CAPACITY[construct]), (x,), x.astype(np.float64) * 2, at="x[i:i + 64, :]")
    check(case, mode, c.template(CAPACITY[construct]), (x, z), x.astype(np.float64) * z, at="z[i:i + 32, :]")


RELAYOUT = """
@htp.kernel
def relayout(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = htp.relayout(x[i:i + 16, :], "{F}")
        y[i:i + 16, :] = t + t * t
"""
NZ_OPERANDS = """
@htp.kernel
def nz_operands(a: htp.Tensor[f16, 32, 64], b: htp.Tensor[f16, 64, 32], c: htp.Out[f32, 32, 32]):
    x = htp.relayout(a[:, 0:32], "nz")
    acc = htp.matmul(x, htp.relayout(b[0:32, :], "nz"), dtype=f32)
    acc = htp.matmul(a[:, 32:64], b[32:64, :], acc)
    c[:, :] = acc + htp.cast(htp.relayout(x, "row_major"), f32)
"""
NZ_VECTOR = """
@htp.kernel
def nz_vector(a: htp.Tensor[f16, 32, 32], c: htp.Out[f16, 32, 32]):
    c[:, :] = htp.relayout(a[:, :], "nz") * 2.0
"""


@pytest.mark.parametrize("case, mode", c.params("layout/"))
def test_relayout(case, mode):
    construct, dtype = parts(case)
    gen = rng(case)
    if construct.startswith("nz matmul"):
        a, b = random(gen, "f16", (32, 64), scale=0.5), random(gen, "f16", (64, 32), scale=0.5)
        a64, b64 = c.as_float64(a), c.as_float64(b)
        return check(case, mode, c.template(NZ_OPERANDS), (a, b), a64 @ b64 + a64[:, 0:32])
    if construct == "nz tile in vector work":
        a = random(gen, "f16", (32, 32))
        return check(case, mode, c.template(NZ_VECTOR), (a,), c.as_float64(a) * 2.0, at='htp.relayout(a[:, :], "nz")')
    facet = construct.split(",")[0]
    x = random(gen, dtype, (37, 64), scale=0.5)
    t = c.as_float64(x)
    # A target's element-type limits are said at the arithmetic; a layout it does not hold, at the relayout.
    at = "t * t" if facet == "row_major" else f'htp.relayout(x[i:i + 16, :], "{facet}")'
    return check(case, mode, c.template(RELAYOUT, T=dtype, F=facet), (x,), t + t * t, at=at)


COL_MAJOR = """
@htp.kernel
def col_major(x: htp.Tensor[{T}, "M", "N", htp.layout("col_major")],
              y: htp.Out[{T}, "M", "N", htp.layout("col_major")]):
    for i in range(0, x.shape[0], 16):
        for j in range(0, x.shape[1], 32):
            t = x[i:i + 16, j:j + 32]
            y[i:i + 16, j:j + 32] = t * t + t
"""
COL_MAJOR_MATMUL = """
@htp.kernel
def col_major_matmul(a: htp.Tensor[f32, "M", "K", htp.layout("col_major")], b: htp.Tensor[f32, "K", "N"],
                     c: htp.Out[f32, "M", "N"]):
    for i in range(0, a.shape[0], 16):
        for j in range(0, b.shape[1], 32):
            acc = htp.zeros((16, 32), f32)
            for k in range(0, a.shape[1], 16):
                acc += htp.pad(a[i:i + 16, k:k + 16], 0.0) @ htp.pad(b[k:k + 16, j:j + 32], 0.0)
            c[i:i + 16, j:j + 32] = acc
"""


@pytest.mark.parametrize("case, mode", c.params("tensor_layout/"))
def test_tensor_layouts(case, mode):
    construct, dtype = parts(case)
    gen = rng(case)
    if construct == "col_major matmul operand":
        a = np.asfortranarray(random(gen, "f32", (37, 40), scale=0.5))
        b = random(gen, "f32", (40, 45), scale=0.5)
        return check(case, mode, c.template(COL_MAJOR_MATMUL), (a, b), c.as_float64(a) @ c.as_float64(b), at="a:")
    x = np.asfortranarray(random(gen, dtype, (37, 70), scale=0.5))
    t = c.as_float64(x)
    return check(case, mode, c.template(COL_MAJOR, T=dtype), (x,), t * t + t, at="x:")
