"""Conformance: row and column reductions (sum, max, min) per element type.

`row_*` turns an RxC tile into Rx1, `col_*` into 1xC; the result
broadcasts back against its input (docs/language.md). Reductions of ragged
tiles reduce only the valid region. Expected outcomes: conformance.MATRIX."""

import numpy as np
import pytest

import conformance as c
from conformance import check, parts, random, rng

NUMPY_REDUCE = {"sum": np.sum, "max": np.max, "min": np.min}


def inputs(case, dtype, shape):
    """Small integers (sums of 64 stay inside i8) or normal floats."""
    if dtype in c.INTS:
        return random(rng(case), dtype, shape, low=-2, high=2)
    return random(rng(case), dtype, shape)


def scale_of(kind, dtype, terms):
    """Sums round once per term (f16/bf16 sums are done in the element type:
    pto-contract.md 2.5); max/min are exact."""
    return float(np.sqrt(terms)) * 2 if kind == "sum" else 0.0


ROW_THEN_BROADCAST = """
@htp.kernel
def row_then_broadcast(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = t - htp.row_{KIND}(t)
"""


@pytest.mark.parametrize("case, mode", c.params("reduce/t - htp.row_"))
def test_row_reduction_broadcast_back(case, mode):
    construct, dtype = parts(case)
    kind = construct[len("t - htp.row_"):-len("(t)")]
    x = inputs(case, dtype, (40, 64))
    t = c.as_float64(x)
    reduced = c.rounded(NUMPY_REDUCE[kind](t, axis=1, keepdims=True), dtype) if dtype in c.FLOATS else \
        NUMPY_REDUCE[kind](t, axis=1, keepdims=True)
    scale = scale_of(kind, dtype, 64) + 1
    check(case, mode, c.template(ROW_THEN_BROADCAST, T=dtype, KIND=kind), (x,), t - reduced, scale=scale,
          at=f"htp.row_{kind}(")


COL_STORE = """
@htp.kernel
def col_store(x: htp.Tensor[{T}, 48, 64], y: htp.Out[{T}, 3, 64]):
    for b in range(3):
        y[b:b + 1, :] = htp.col_{KIND}(x[b * 16:b * 16 + 16, :])
"""


@pytest.mark.parametrize("case, mode", c.params("reduce/y[b:b + 1, :] = htp.col_"))
def test_column_reduction(case, mode):
    construct, dtype = parts(case)
    kind = construct[len("y[b:b + 1, :] = htp.col_"):-len("(t)")]
    x = inputs(case, dtype, (48, 64))
    expected = NUMPY_REDUCE[kind](c.as_float64(x).reshape(3, 16, 64), axis=1)
    check(case, mode, c.template(COL_STORE, T=dtype, KIND=kind), (x,), expected, scale=scale_of(kind, dtype, 16),
          at=f"htp.col_{kind}(")


ROW_STORE = """
@htp.kernel
def row_store(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 1]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.row_{KIND}(x[i:i + 16, :])
"""


@pytest.mark.parametrize("case, mode", c.params("reduce/y[i:i + 16, :] = htp.row_"))
def test_row_reduction_stored(case, mode):
    construct, dtype = parts(case)
    kind = construct[len("y[i:i + 16, :] = htp.row_"):].split("(")[0]
    x = inputs(case, dtype, (40, 64))
    expected = NUMPY_REDUCE[kind](c.as_float64(x), axis=1, keepdims=True)
    check(case, mode, c.template(ROW_STORE, T=dtype, KIND=kind), (x,), expected, scale=scale_of(kind, dtype, 64))


SPELLED = """
@htp.kernel
def spelled(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    t = x[:, :]
    u = (t - htp.row_reduce(t, "max")) * htp.col_reduce(t, "min") + htp.col_reduce(t, "sum")
    y[:, :] = u - htp.row_reduce(t, "min") + htp.row_reduce(t, "sum") - htp.col_reduce(t, "max")
"""
RAGGED = {
    "col_sum over ragged rows, carried": """
@htp.kernel
def col_sum_ragged(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, 1, 64]):
    acc = htp.zeros((1, 64), {T})
    for i in range(0, x.shape[0], 16):
        acc = acc + htp.col_sum(x[i:i + 16, :])
    y[0:1, :] = acc
""",
    "col_max over ragged rows, carried": """
@htp.kernel
def col_max_ragged(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, 1, 64]):
    acc = htp.full((1, 64), -htp.inf, {T})
    for i in range(0, x.shape[0], 16):
        acc = htp.maximum(acc, htp.col_max(x[i:i + 16, :]))
    y[0:1, :] = acc
""",
    "row_max over ragged columns, carried": """
@htp.kernel
def row_max_ragged(x: htp.Tensor[{T}, 32, "M"], y: htp.Out[{T}, 32, "M"]):
    for i in range(0, 32, 16):
        m = htp.full((16, 1), -htp.inf, {T})
        for j in range(0, x.shape[1], 64):
            m = htp.maximum(m, htp.row_max(x[i:i + 16, j:j + 64]))
        for j in range(0, x.shape[1], 64):
            y[i:i + 16, j:j + 64] = htp.pad(x[i:i + 16, j:j + 64], 0.0) - m
""",
}


@pytest.mark.parametrize("case, mode", c.params("reduce/htp.row_reduce") + c.params("reduce/col_")
                         + c.params("reduce/row_max"))
def test_spelled_and_ragged_reductions(case, mode):
    construct, dtype = parts(case)
    if construct.startswith("htp.row_reduce"):
        t = c.random(rng(case), "f32", (16, 64)).astype(np.float64)
        u = (t - t.max(1, keepdims=True)) * t.min(0, keepdims=True) + t.sum(0, keepdims=True)
        expected = u - t.min(1, keepdims=True) + t.sum(1, keepdims=True) - t.max(0, keepdims=True)
        return check(case, mode, c.template(SPELLED), (t.astype(np.float32),), expected, scale=16)
    kernel = c.template(RAGGED[construct], T=dtype)
    if construct == "row_max over ragged columns, carried":
        x = random(rng(case), dtype, (32, 150))  # three column blocks, the last valid for 22
        t = c.as_float64(x)
        return check(case, mode, kernel, (x,), t - t.max(axis=1, keepdims=True))
    x = random(rng(case), dtype, (37, 64))  # three row blocks, the last valid for 5
    t = c.as_float64(x)
    if construct == "col_sum over ragged rows, carried":
        return check(case, mode, kernel, (x,), t.sum(axis=0, keepdims=True), scale=8)
    check(case, mode, kernel, (x,), t.max(axis=0, keepdims=True))


FEW_ROWS = """
@htp.kernel
def few_rows(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], {B}):
        t = x[i:i + {B}, :]
        y[i:i + {B}, :] = t - htp.row_{KIND}(t)
"""


@pytest.mark.parametrize("case, mode", c.params("reduce/few rows: "))
def test_row_reductions_of_few_rows(case, mode):
    """Blocks of 1, 3 or 5 rows: fewer than the [R,1] result's 32-byte block
    (pto-isa's CPU model wants one row count for TROW*'s source and result)."""
    construct, dtype = parts(case)
    kind = construct.split("htp.row_")[1].split("(")[0]
    rows = int(construct.split(", ")[1].split("-")[0])
    x = inputs(case, dtype, (10, 64))
    t = c.as_float64(x)
    reduced = c.rounded(NUMPY_REDUCE[kind](t, axis=1, keepdims=True), dtype) if dtype in c.FLOATS else \
        NUMPY_REDUCE[kind](t, axis=1, keepdims=True)
    kernel = c.template(FEW_ROWS, T=dtype, KIND=kind, B=rows)
    check(case, mode, kernel, (x,), t - reduced, scale=scale_of(kind, dtype, 64) + 1, at=f"htp.row_{kind}(")


# ---------------------------------------------------------------------------
# Selection along rows (docs/language.md, "Selection"): the cases of every element type; the
# shapes, ties, NaN and k are test_selection.py's, scatter's shapes and duplicates test_scatter.py's.

SELECTION = {
    "htp.argmax(t, axis=1), htp.row_argmin(t)": """
@htp.kernel
def arg(x: htp.Tensor[{T}, "N", 64], hi: htp.Out[i32, "N", 1], lo: htp.Out[i32, "N", 1]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        hi[i:i + 16, :] = htp.argmax(t, axis=1)
        lo[i:i + 16, :] = htp.row_argmin(t)
""",
    "htp.topk(t, 8)": """
@htp.kernel
def topk(x: htp.Tensor[{T}, "N", 64], v: htp.Out[{T}, "N", 8], ix: htp.Out[i32, "N", 8]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        values, indices = htp.topk(t, 8)
        v[i:i + 16, :] = values
        ix[i:i + 16, :] = indices
""",
    "htp.sort(t), htp.argsort(t)": """
@htp.kernel
def sort(x: htp.Tensor[{T}, "N", 64], v: htp.Out[{T}, "N", 64], ix: htp.Out[i32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        v[i:i + 16, :] = htp.sort(t)
        ix[i:i + 16, :] = htp.argsort(t)
""",
    "htp.sort(t, descending=True)": """
@htp.kernel
def sort_down(x: htp.Tensor[{T}, "N", 64], v: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        v[i:i + 16, :] = htp.sort(t, descending=True)
""",
    "htp.gather(t, index, axis=1)": """
@htp.kernel
def take(x: htp.Tensor[{T}, "N", 64], index: htp.Tensor[i32, "N", 8], y: htp.Out[{T}, "N", 8]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.gather(t, index[i:i + 16, :], axis=1)
""",
    "htp.scatter(t, index, src, axis=1)": """
@htp.kernel
def put(x: htp.Tensor[{T}, "N", 64], index: htp.Tensor[i32, "N", 8], src: htp.Tensor[{T}, "N", 8], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.scatter(t, index[i:i + 16, :], src[i:i + 16, :], axis=1)
""",
    "htp.scatter(y, rows, col, t)": """
@htp.kernel
def scatter_rows(x: htp.Tensor[{T}, "N", 64], rows: htp.Tensor[i32, "N", 1], y: htp.InOut[{T}, "M", 64]):
    for i in range(0, x.shape[0], 16):
        htp.scatter(y, rows[i:i + 16, :], 0, x[i:i + 16, :])
""",
}


@pytest.mark.parametrize("case, mode", c.params("selection/"))
def test_selection(case, mode):
    construct, dtype = parts(case)
    x = inputs(case, dtype, (37, 64))  # three row blocks, the last valid for 5; integers with ties
    t = c.as_float64(x)
    # Stable orders: ties keep their column order, both ways.
    up = np.argsort(t, axis=1, kind="stable")
    down = np.argsort(-t, axis=1, kind="stable")
    kernel = c.template(SELECTION[construct], T=dtype)
    at = construct.split("(")[0] + "("
    if construct.startswith("htp.argmax"):
        return check(case, mode, kernel, (x,), (np.argmax(t, axis=1)[:, None], np.argmin(t, axis=1)[:, None]), at=at)
    if construct == "htp.topk(t, 8)":
        return check(case, mode, kernel, (x,), (np.take_along_axis(t, down[:, :8], 1), down[:, :8]), at=at)
    if construct.startswith("htp.sort(t),"):
        return check(case, mode, kernel, (x,), (np.take_along_axis(t, up, 1), up), at=at)
    if construct.startswith("htp.sort(t, descending"):
        return check(case, mode, kernel, (x,), np.take_along_axis(t, down, 1), at=at)
    if construct.startswith("htp.scatter(t,"):
        # Indices of a few columns each: many repeat, the last of a row's equal ones wins.
        index = rng(case).integers(0, 12, size=(37, 8)).astype(np.int32)
        src = inputs(case + "/src", dtype, (37, 8))
        expected = t.copy()
        for r in range(37):
            for j in range(8):
                expected[r, index[r, j]] = c.as_float64(src)[r, j]
        return check(case, mode, kernel, (x, index, src), expected, at=at)
    if construct.startswith("htp.scatter(y,"):
        # 37 rows into 20: rows repeat, across blocks too; the last written wins, the others keep y's.
        rows = rng(case).integers(0, 20, size=(37, 1)).astype(np.int32)
        y = inputs(case + "/y", dtype, (20, 64))
        expected = c.as_float64(y).copy()
        for r in range(37):
            expected[rows[r, 0]] = t[r]
        return check(case, mode, kernel, (x, rows, y), expected, at=at)
    index = rng(case).integers(0, 64, size=(37, 8)).astype(np.int32)
    check(case, mode, kernel, (x, index), np.take_along_axis(t, index, 1), at=at)
