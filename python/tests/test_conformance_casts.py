"""Conformance: `htp.cast` between every pair of element types.

float -> int truncates toward zero, float -> float rounds to nearest even
(docs/language.md). Inputs stay inside the destination's range (the
language does not define out-of-range conversions). Case ids are
`cast/to_<dest>/<source>`; expected outcomes: conformance.MATRIX."""

import numpy as np
import pytest

import conformance as c
from conformance import check, parts, rng

CAST = """
@htp.kernel
def cast(x: htp.Tensor[{A}, "N", 64], y: htp.Out[{B}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.cast(x[i:i + 16, :], {B})
"""

#: A range every type holds exactly enough for the test: i8 bounds it.
LOW, HIGH = -100, 100


def source_values(case, dtype):
    gen = rng(case)
    if dtype in c.INTS:
        return gen.integers(LOW, HIGH, size=(40, 64)).astype(c.NUMPY[dtype])
    values = gen.uniform(LOW, HIGH, size=(40, 64))
    values[0, :8] = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 99.75, -99.75]  # ties and truncation toward zero
    return values.astype(c.NUMPY[dtype])


@pytest.mark.parametrize("case, mode", c.params("cast/htp.cast("))
def test_cast(case, mode):
    construct, source = parts(case)
    dest = construct[len("htp.cast(t, "):-1]
    x = source_values(case, source)
    wide = c.as_float64(x)
    if dest in c.INTS:
        expected = np.trunc(wide)  # toward zero
    else:
        expected = c.rounded(wide, dest)  # nearest even, as numpy rounds
    check(case, mode, c.template(CAST, A=source, B=dest), (x,), expected, scale=0.0, at="htp.cast(")


ASTYPE = """
@htp.kernel
def astype(x: htp.Tensor[f32, "N", 64], y: htp.Out[f16, "N", 64], z: htp.Out[i32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = t.astype(f16)
        z[i:i + 16, :] = (t * 10.0).astype(htp.i32)
"""


@pytest.mark.parametrize("case, mode", c.params("cast/t.astype("))
def test_astype_spelling(case, mode):
    x = c.random(rng(case), "f32", (40, 64))
    expected = (c.rounded(x, "f16"), np.trunc(x.astype(np.float64) * np.float32(10.0)))
    check(case, mode, c.template(ASTYPE), (x,), expected, scale=0.0)


COLUMN_CAST = """
@htp.kernel
def column_cast(x: htp.Tensor[{A}, "N", 1], y: htp.Out[{B}, "N", 1]):
    for i in range(0, x.shape[0], 8):
        y[i:i + 8, :] = htp.cast(x[i:i + 8, :], {B})
"""


@pytest.mark.parametrize("case, mode", c.params("cast/[N,1] blocks of 8, "))
def test_cast_of_a_column(case, mode):
    construct, source = parts(case)
    dest = construct[len("[N,1] blocks of 8, htp.cast(t, "):-1]
    x = source_values(case, source)[:, :1].copy()
    wide = c.as_float64(x)
    expected = np.trunc(wide) if dest in c.INTS else c.rounded(wide, dest)
    check(case, mode, c.template(COLUMN_CAST, A=source, B=dest), (x,), expected, scale=0.0, at="htp.cast(")


ROW_MAX_CAST = """
@htp.kernel
def row_max_cast(x: htp.Tensor[{A}, "N", 32], y: htp.Out[{B}, "N", 1]):
    for i in range(0, x.shape[0], 8):
        y[i:i + 8, :] = htp.cast(htp.row_max(x[i:i + 8, :]), {B})
"""


@pytest.mark.parametrize("case, mode", c.params("cast/row_max of 8 rows, "))
def test_cast_of_a_row_max(case, mode):
    construct, source = parts(case)
    dest = construct[len("row_max of 8 rows, htp.cast(t, "):-1]
    x = source_values(case, source)[:, :32].copy()
    expected = c.rounded(c.as_float64(x).max(axis=1, keepdims=True), dest)
    check(case, mode, c.template(ROW_MAX_CAST, A=source, B=dest), (x,), expected, scale=0.0, at="htp.cast(")
