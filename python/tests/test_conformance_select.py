"""Conformance: comparisons, `htp.where`/`htp.select`, NaN rules and `htp.iota`.

A comparison gives a bool mask tile (floats compare ordered: NaN is false
except for `!=`); `htp.where(mask, a, b)` picks elements; `htp.iota`
numbers rows or columns (docs/language.md). Expected outcomes:
conformance.MATRIX."""

import numpy as np
import pytest

import conformance as c
from conformance import check, parts, random, rng

COMPARE = """
@htp.kernel
def compare(x: htp.Tensor[{T}, "N", 64], z: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        a = x[i:i + 16, :]
        b = z[i:i + 16, :]
        y[i:i + 16, :] = htp.where(a {OP} b, a, b)
"""
NUMPY_COMPARE = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
                 "==": np.equal, "!=": np.not_equal}


def operands(case, dtype):
    gen = rng(case)
    x, z = random(gen, dtype, (40, 64)), random(gen, dtype, (40, 64))
    # Equal elements in a quarter of the places, so ==, <= and >= see ties.
    z = np.where(gen.random((40, 64)) < 0.25, x, z).astype(x.dtype)
    return x, z


@pytest.mark.parametrize("case, mode", c.params("compare/"))
def test_compare(case, mode):
    expr, dtype = parts(case)
    x, z = operands(case, dtype)
    a, b = c.as_float64(x), c.as_float64(z)
    if expr == "t > 1":
        return check(case, mode, c.template(COMPARE_NUMBER, T=dtype), (x, z), np.where(a > 1, a, b))
    if expr == "t <= s":
        return check(case, mode, c.template(COMPARE_SCALAR, T=dtype), (x, z, None, -1), np.where(a <= -1, a, b))
    op = expr.split(" ")[1]
    kernel = c.template(COMPARE, T=dtype, OP=op)
    check(case, mode, kernel, (x, z), np.where(NUMPY_COMPARE[op](a, b), a, b), at=expr)


COMPARE_NUMBER = """
@htp.kernel
def compare_number(x: htp.Tensor[{T}, "N", 64], z: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.where(t > 1, t, z[i:i + 16, :])
"""


COMPARE_SCALAR = """
@htp.kernel
def compare_scalar(x: htp.Tensor[{T}, "N", 64], z: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64], s: {T}):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.where(t <= s, t, z[i:i + 16, :])
"""


WHERE = {
    "scalar branches, full tile": """
@htp.kernel
def where_full(x: htp.Tensor[f32, 48, 64], y: htp.Out[f32, 48, 64]):
    for i in range(0, 48, 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.where(t > 0.5, 1.0, htp.where(t < -0.5, -1.0, t))
""",
    "scalar branches, ragged tile": """
@htp.kernel
def where_ragged(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.where(t > 0.5, 1.0, htp.where(t < -0.5, -1.0, t))
""",
    "broadcast branches": """
@htp.kernel
def where_broadcast(x: htp.Tensor[f32, "N", 64], w: htp.Tensor[f32, 1, 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = htp.pad(x[i:i + 16, :], 0.0)
        y[i:i + 16, :] = htp.where(t > 0.0, w[0:1, :], htp.row_max(t))
""",
    "column mask over whole rows, ragged": """
@htp.kernel
def where_rows(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.where(x[i:i + 16, 0:1] > 0, t, -t)
""",
    "row mask over whole columns": """
@htp.kernel
def where_cols(x: htp.Tensor[{T}, "N", 64], w: htp.Tensor[{T}, 1, 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = htp.pad(x[i:i + 16, :], 0)
        y[i:i + 16, :] = htp.where(w[0:1, :] < 0, -t, t)
""",
}


@pytest.mark.parametrize("case, mode", c.params("where/"))
def test_where(case, mode):
    construct, dtype = parts(case)
    gen = rng(case)
    if construct == "select spelling":
        return check_select_spelling(case, mode)
    if construct.startswith("bool tensor"):
        return check_bool_tensors(case, mode, construct)
    if construct.startswith(("column mask", "row mask")):
        x, w = random(gen, dtype, (40, 64)), random(gen, dtype, (1, 64))
        t = c.as_float64(x)
        kernel = c.template(WHERE[construct], T=dtype)
        if construct.startswith("column"):
            return check(case, mode, kernel, (x,), np.where(t[:, 0:1] > 0, t, -t))
        return check(case, mode, kernel, (x, w), np.where(c.as_float64(w) < 0, -t, t))
    rows = 48 if construct.endswith("full tile") else 40
    x = random(gen, "f32", (rows, 64))
    kernel = c.template(WHERE[construct])
    t = x.astype(np.float64)
    if construct == "broadcast branches":
        w = random(gen, "f32", (1, 64))
        expected = np.where(t > 0.0, w, t.max(axis=1, keepdims=True))
        return check(case, mode, kernel, (x, w), expected)
    expected = np.where(t > 0.5, 1.0, np.where(t < -0.5, -1.0, t))
    check(case, mode, kernel, (x,), expected, at="htp.where(")


SELECT = """
@htp.kernel
def select_spelling(x: htp.Tensor[f16, "N", 64], z: htp.Tensor[f16, "N", 64], y: htp.Out[f16, "N", 64]):
    for i in range(0, x.shape[0], 16):
        a = x[i:i + 16, :]
        b = z[i:i + 16, :]
        y[i:i + 16, :] = htp.select(a != b, a - b, b)
"""


def check_select_spelling(case, mode):
    x, z = operands(case, "f16")
    a, b = c.as_float64(x), c.as_float64(z)
    check(case, mode, c.template(SELECT), (x, z), np.where(a != b, a - b, b))


BOOL_MASK = """
@htp.kernel
def bool_mask(m: htp.Tensor[bool, "N", 64], x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.where(m[i:i + 16, :], t, -t)
"""
BOOL_OUTPUT = """
@htp.kernel
def bool_output(x: htp.Tensor[f32, "N", 64], m: htp.Out[bool, "N", 64]):
    for i in range(0, x.shape[0], 16):
        m[i:i + 16, :] = x[i:i + 16, :] > 0.0
"""


def check_bool_tensors(case, mode, construct):
    x = random(rng(case), "f32", (40, 64))
    if construct == "bool tensor mask":
        m = x > 0.3
        return check(case, mode, c.template(BOOL_MASK), (m, x), np.where(m, x, -x).astype(np.float64))
    check(case, mode, c.template(BOOL_OUTPUT), (x,), x > 0)


NAN_MAXIMUM = """
@htp.kernel
def nan_maximum(x: htp.Tensor[{T}, 16, 64], z: htp.Tensor[{T}, 16, 64], hi: htp.Out[{T}, 16, 64],
                lo: htp.Out[{T}, 16, 64]):
    hi[:, :] = htp.maximum(x[:, :], z[:, :])
    lo[:, :] = htp.minimum(x[:, :], z[:, :])
"""
NAN_COMPARE = """
@htp.kernel
def nan_compare(x: htp.Tensor[f32, 16, 64], z: htp.Tensor[f32, 16, 64], lt: htp.Out[f32, 16, 64],
                ne: htp.Out[f32, 16, 64], eq: htp.Out[f32, 16, 64]):
    a = x[:, :]
    b = z[:, :]
    lt[:, :] = htp.where(a < b, 1.0, 0.0)
    ne[:, :] = htp.where(a != b, 1.0, 0.0)
    eq[:, :] = htp.where(a == b, 1.0, 0.0)
"""


@pytest.mark.parametrize("case, mode", c.params("nan/"))
def test_nan_rules(case, mode):
    construct, dtype = parts(case)
    gen = rng(case)
    x, z = random(gen, dtype, (16, 64)), random(gen, dtype, (16, 64))
    x[::3, ::2] = np.nan  # NaN on the left, the right and both
    z[::2, ::3] = np.nan
    z[1, :4] = x[1, :4]
    if construct == "maximum propagates NaN":
        # IEEE maximum/minimum: NaN wins (numpy's maximum/minimum do the same)
        expected = (np.maximum(x, z).astype(np.float64), np.minimum(x, z).astype(np.float64))
        return check(case, mode, c.template(NAN_MAXIMUM, T=dtype), (x, z), expected)
    expected = tuple(f(x, z).astype(np.float64) for f in (np.less, np.not_equal, np.equal))
    check(case, mode, c.template(NAN_COMPARE), (x, z), expected)


IOTA = """
@htp.kernel
def iota(y: htp.Out[{T}, 16, 64]):
    y[:, :] = htp.iota((16, 64), {DIM}, {T})
"""


@pytest.mark.parametrize("case, mode", c.params("iota/"))
def test_iota(case, mode):
    construct, dtype = parts(case)
    if not construct.startswith("htp.iota("):
        return check_iota_programs(case, mode, construct)
    dim = int(construct.split(", ")[2])
    expected = np.indices((16, 64))[dim]
    check(case, mode, c.template(IOTA, T=dtype, DIM=dim), (), expected, at="htp.iota(")


IOTA_OFFSET = """
@htp.kernel
def iota_offset(y: htp.Out[i32, "N", 64], start: i32):
    for i in range(0, y.shape[0], 16):
        y[i:i + 16, :] = htp.iota((16, 64), 0, i32) * 64 + htp.iota((16, 64), 1, i32) + (i * 64 + start)
"""
CAUSAL = """
@htp.kernel
def causal(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = htp.pad(x[i:i + 16, :], 0.0)
        rows = htp.iota((16, 64), 0, i32) + i
        cols = htp.iota((16, 64), 1, i32)
        y[i:i + 16, :] = htp.where(cols > rows, -1.0e30, t)
"""


def check_iota_programs(case, mode, construct):
    if construct == "row * 64 + col + run-time offset":
        expected = np.arange(40 * 64).reshape(40, 64) - 7
        y = np.zeros((40, 64), np.int32)
        return check(case, mode, c.template(IOTA_OFFSET), (y, -7), expected)
    x = random(rng(case), "f32", (40, 64))
    rows, cols = np.indices((40, 64))
    check(case, mode, c.template(CAUSAL), (x,), np.where(cols > rows, np.float32(-1.0e30), x).astype(np.float64))
