"""Shape operations (docs/language.md, "Tile shapes"; issue 30): subscripts of tiles (`t[0:8, 32:64]`,
`t[:, 3]`, `t[:, 1::2]`: tile.slice), `htp.concat`, `htp.reshape` / `t.reshape`, and slices of tensors
with a step (`x[:, 0::2]`, `x[i:i + 32:2, :]`: strided tile.load / tile.store), against numpy on the
cpu and on pto-a2a3sim (skipped, visibly, without the simulator): f32, f16, bf16 and i32, ragged row
tails, RoPE's rotate_half written with slices and a concat, de-interleaving with `0::2` / `1::2`; the
shape ops in AIE cores on aie-sim; PTO-ISA's rules and the AIE targets' refusals at the user's line; the
user's errors at their line."""

import os
from unittest import mock

import numpy as np
import pytest

import conformance as c
import htp
from conformance import SHAPES_RAGGED as RAGGED, SHAPES_STATIC as STATIC, template
from htp.pto import runtime as pto_runtime
from simulators import on_a2a3sim
from test_errors import refused

SIM = "pto-a2a3sim"
TARGETS = ["cpu", pytest.param(SIM, marks=on_a2a3sim)]
DTYPES = ["f32", "f16", "bf16", "i32"]
ROWS = 37  # two 16-row blocks and a ragged tail of 5


def run(kernel, target, *args):
    compiled = kernel.compile(target)
    if target == SIM:
        # A crash of the simulator fails this case only.
        with mock.patch.object(pto_runtime, "run_package", c.run_package_in_a_child):
            return compiled(*args)
    return compiled(*args)


def data(dtype, shape, seed, scale=3.0):
    gen = np.random.default_rng(seed)
    if dtype == "bf16" and c.NUMPY["bf16"] is None:
        pytest.skip("ml_dtypes is not installed")
    if dtype.startswith("i"):
        return gen.integers(-1000, 1000, size=shape).astype(c.NUMPY[dtype])
    return (gen.standard_normal(shape) * scale).astype(c.NUMPY[dtype])


def same(actual, expected):
    """Shape ops move elements: the result is exactly numpy's."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    np.testing.assert_array_equal(c.as_float64(actual), c.as_float64(expected))


# ---------------------------------------------------------------------------
# Blocks of tiles ragged in rows, joins of columns, strided column loads: one 16-row block at a time
# over 37 rows (RAGGED). Each reference is numpy's on the whole tensor (every row is independent).

ROW_WISE = {
    # tile.slice: aligned and unaligned column starts, one column, a step
    "t[:, 32:64]": (32, lambda x: x[:, 32:64]),
    "t[:, 8:24]": (16, lambda x: x[:, 8:24]),
    "t[:, 5:25]": (20, lambda x: x[:, 5:25]),
    "t[:, 3]": (1, lambda x: x[:, 3:4]),
    "t[:, -1]": (1, lambda x: x[:, 63:64]),
    "t[:, 1::2]": (32, lambda x: x[:, 1::2]),
    "t[:, 2::4]": (16, lambda x: x[:, 2::4]),
    # tile.concat along the columns: RoPE's rotate_half, three parts, one-column parts, a part of 12
    "htp.concat([-t[:, 32:64], t[:, 0:32]], axis=1)": (64, lambda x: np.concatenate([-x[:, 32:], x[:, :32]], axis=1)),
    "htp.concat([t[:, 48:64], t[:, 0:16], t[:, 16:48]], axis=1)": (64, lambda x: np.concatenate([x[:, 48:], x[:, :48]], axis=1)),
    "htp.concat([t[:, 0], t[:, 63], t[:, 1]], axis=-1)": (3, lambda x: x[:, [0, 63, 1]]),
    "htp.concat((t[:, 0:8], t[:, 20:32]), axis=1)": (20, lambda x: np.concatenate([x[:, 0:8], x[:, 20:32]], axis=1)),
    # strided tile.load: every 2nd or 4th column, from the first or a later one
    "x[i:i + 16, 0::2]": (32, lambda x: x[:, 0::2]),
    "x[i:i + 16, 1::2]": (32, lambda x: x[:, 1::2]),
    "x[i:i + 16, 3::4]": (16, lambda x: x[:, 3::4]),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("expr", list(ROW_WISE))
def test_row_blocks(target, dtype, expr):
    cols, reference = ROW_WISE[expr]
    kernel = template(RAGGED, T=dtype, C=cols, EXPR=expr)
    x = data(dtype, (ROWS, 64), len(expr))
    same(run(kernel, target, x), reference(x).astype(x.dtype))


# ---------------------------------------------------------------------------
# Rows stacked and tiles reshaped: fully valid blocks (48 rows of 16), per block (STATIC).

BLOCK_WISE = {
    # rows stacked (axis 0 is numpy's default)
    "htp.concat([t[8:16, :], t[0:8, :]])": (16, 64, lambda b: np.concatenate([b[8:], b[:8]])),
    "htp.concat([t[12:16, 0:32], t[0:12, 32:64]], axis=0)": (16, 32, lambda b: np.concatenate([b[12:, :32], b[:12, 32:]])),
    "htp.concat([t[0:8, 3], t[8:16, 60]])": (16, 1, lambda b: np.concatenate([b[:8, 3:4], b[8:, 60:61]])),
    "htp.concatenate([t[0, :], t[15, :], t[7, :]])": (3, 64, lambda b: b[[0, 15, 7]]),
    # reshapes (row-major), -1 inferred, a reshape of a slice
    "t.reshape(32, 32)": (32, 32, lambda b: b.reshape(32, 32)),
    "htp.reshape(t, (-1, 16))": (64, 16, lambda b: b.reshape(64, 16)),
    "t.reshape((1, 1024))": (1, 1024, lambda b: b.reshape(1, 1024)),
    "t.reshape(-1, 1)": (1024, 1, lambda b: b.reshape(1024, 1)),
    "t.reshape(32, 32)[:, 0:16].reshape(16, 32)": (16, 32, lambda b: b.reshape(32, 32)[:, :16].reshape(16, 32)),
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("expr", list(BLOCK_WISE))
def test_whole_blocks(target, dtype, expr):
    rows, cols, reference = BLOCK_WISE[expr]
    kernel = template(STATIC, T=dtype, R=3 * rows, C=cols, B=rows, EXPR=expr)
    x = data(dtype, (48, 64), len(expr) + 1)
    expected = np.concatenate([reference(x[i:i + 16]) for i in range(0, 48, 16)])
    same(run(kernel, target, x), expected.astype(x.dtype))


# ---------------------------------------------------------------------------
# Every n-th row of a tensor: loads and stores with a row step, ragged tails included.

ROW_STEP_LOAD = '''
@htp.kernel
def k(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "M", 64]):
    for i in range(0, x.shape[0], 32):
        y[i // 2:i // 2 + 16, :] = x[i + {FIRST}:i + 32:2, :]
'''

ROW_STEP_STORE = '''
@htp.kernel
def k(x: htp.Tensor[{T}, "N", 64], y: htp.InOut[{T}, "M", 64]):
    for i in range(0, x.shape[0], 16):
        y[2 * i:2 * i + 32:2, :] = x[i:i + 16, :]
'''


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("first", [0, 1])
def test_every_other_row_loaded(target, dtype, first):
    x = data(dtype, (ROWS, 64), 11 + first)
    expected = x[first::2]
    y = np.zeros_like(expected)
    run(template(ROW_STEP_LOAD, T=dtype, FIRST=first), target, x, y)
    same(y, expected)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_other_row_stored(target, dtype):
    x = data(dtype, (ROWS, 64), 13)
    y = data(dtype, (2 * ROWS, 64), 14)
    expected = y.copy()
    expected[0::2] = x
    run(template(ROW_STEP_STORE, T=dtype), target, x, y)
    same(y, expected)


COLUMN_STEP_STORE = '''
@htp.kernel
def k(x: htp.Tensor[{T}, "N", 32], y: htp.InOut[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, 1::2] = x[i:i + 16, :]
'''


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_other_column_stored_on_the_cpu(dtype):
    x = data(dtype, (ROWS, 32), 15)
    y = data(dtype, (ROWS, 64), 16)
    expected = y.copy()
    expected[:, 1::2] = x
    run(template(COLUMN_STEP_STORE, T=dtype), "cpu", x, y)
    same(y, expected)


def test_every_other_column_stored_is_refused_on_pto_at_the_store():
    kernel = template(COLUMN_STEP_STORE, T="f32")
    refused(kernel, SIM, "PTO stores tiles to GM with TSTORE, which writes each row as one contiguous burst (A2/A3)",
            "y[i:i + 16, 1::2] = x[i:i + 16, :]")


STRIDED_1D = '''
@htp.kernel
def k(x: htp.Tensor[{T}, 200], y: htp.Out[{T}, 64]):
    y[0:64] = x[{START}:{START} + 128:2]
'''


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("start", [0, 5])
def test_every_other_element_of_a_vector(target, start):
    x = data("f32", (200,), 17)
    same(run(template(STRIDED_1D, T="f32", START=start), target, x), x[start:start + 128:2])


# ---------------------------------------------------------------------------
# RoPE: rotate_half with slices and a concat (GPT-NeoX style), and the interleaved form (GPT-J style)
# de-interleaved with 0::2 and 1::2.

ROPE = '''
@htp.kernel
def rope(x: htp.Tensor[{T}, "N", {D}], cos: htp.Tensor[{T}, "N", {D}], sin: htp.Tensor[{T}, "N", {D}],
         y: htp.Out[{T}, "N", {D}], HALF: htp.Const[int] = {H}):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        rotated = htp.concat([-t[:, HALF:], t[:, :HALF]], axis=1)
        y[i:i + 16, :] = t * cos[i:i + 16, :] + rotated * sin[i:i + 16, :]
'''

ROPE_INTERLEAVED = '''
@htp.kernel
def rope(x: htp.Tensor[{T}, "N", {D}], cos: htp.Tensor[{T}, "N", {H}], sin: htp.Tensor[{T}, "N", {H}],
         even: htp.Out[{T}, "N", {H}], odd: htp.Out[{T}, "N", {H}]):
    for i in range(0, x.shape[0], 16):
        x1 = x[i:i + 16, 0::2]
        x2 = x[i:i + 16, 1::2]
        c = cos[i:i + 16, :]
        s = sin[i:i + 16, :]
        even[i:i + 16, :] = x1 * c - x2 * s
        odd[i:i + 16, :] = x2 * c + x1 * s
'''


def rope_reference(x, cos, sin):
    x, cos, sin = c.as_float64(x), c.as_float64(cos), c.as_float64(sin)
    half = x.shape[1] // 2
    rotated = np.concatenate([-x[:, half:], x[:, :half]], axis=1)
    return x * cos + rotated * sin


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("dim", [64, 128])
def test_rope_rotate_half(target, dtype, dim):
    x, cos, sin = (data(dtype, (ROWS, dim), seed, scale=1.0) for seed in (20, 21, 22))
    y = run(template(ROPE, T=dtype, D=dim, H=dim // 2), target, x, cos, sin)
    c.assert_close(y, rope_reference(x, cos, sin), scale=4)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
def test_rope_interleaved_pairs(target, dtype):
    x = data(dtype, (ROWS, 128), 23, scale=1.0)
    cos, sin = data(dtype, (ROWS, 64), 24, scale=1.0), data(dtype, (ROWS, 64), 25, scale=1.0)
    even, odd = run(template(ROPE_INTERLEAVED, T=dtype, D=128, H=64), target, x, cos, sin)
    x1, x2, cw, sw = (c.as_float64(a) for a in (x[:, 0::2], x[:, 1::2], cos, sin))
    c.assert_close(even, x1 * cw - x2 * sw, scale=4)
    c.assert_close(odd, x2 * cw + x1 * sw, scale=4)


# ---------------------------------------------------------------------------
# The same shape ops in AIE cores (the block's function is lowered by the cpu's passes): aie-sim
# against numpy. A step of a tensor slice is refused by the AIE targets' capabilities.

AIE = '''
@htp.kernel
def k(x: htp.Tensor[{T}, 64, 32], y: htp.Out[{T}, 64, 32]):
    for i in range(0, 64, 8):
        t = x[i:i + 8, :]
        y[i:i + 8, :] = {EXPR}
'''

AIE_EXPRS = {
    "htp.concat([t[:, 16:32], -t[:, 0:16]], axis=1)": lambda b: np.concatenate([b[:, 16:], -b[:, :16]], axis=1),
    "htp.concat([t[:, 0::2], t[:, 1::2]], axis=1)": lambda b: np.concatenate([b[:, 0::2], b[:, 1::2]], axis=1),
    "htp.concat([t[4:8, :], t[0:4, :]])": lambda b: np.concatenate([b[4:], b[:4]]),
    "(t.reshape(16, 16) * 2.0).reshape(8, 32)": lambda b: b * 2.0,
}


@pytest.mark.parametrize("expr", list(AIE_EXPRS))
def test_shape_ops_on_aie_sim(expr):
    kernel = template(AIE, T="f32", EXPR=expr)
    x = data("f32", (64, 32), 30)
    expected = np.concatenate([AIE_EXPRS[expr](x[i:i + 8]) for i in range(0, 64, 8)])
    same(kernel.compile(target="aie-sim")(x), expected.astype(np.float32))
    assert {"aie-sim", "aie-npu1", "aie-npu2"} <= set(kernel.targets())


@pytest.mark.parametrize("expr, columns", [("x[i:i + 16, 1::2]", 32), ("x[i:i + 16, 0::3]", 22)])
def test_strided_loads_read_the_block_in_an_aie_core(expr, columns):
    # The DMA moves the block's whole rows; a slice with a step reads them in the core's memory.
    kernel = template(RAGGED, T="f32", C=columns, EXPR=expr)
    x = data("f32", (ROWS, 64), 41)
    same(run(kernel, "aie-sim", x), run(kernel, "cpu", x))
    assert "aie-sim" in kernel.targets()  # (symbolic rows: the NPU targets need htp.Const)


# ---------------------------------------------------------------------------
# PTO-ISA's rules: what A2/A3 has no instruction for is refused at the user's line, with the rule.

def test_pto_picks_every_2nd_or_4th_column_only():
    kernel = template(RAGGED, T="f32", C=22, EXPR="x[i:i + 16, 0::3]")
    refused(kernel, SIM, "PTO picks every 2nd or every 4th column of a tensor (TGATHER's mask patterns on A2/A3), not every 3rd",
            "x[i:i + 16, 0::3]")
    same(run(kernel, "cpu", data("f32", (ROWS, 64), 40)), data("f32", (ROWS, 64), 40)[:, 0::3])


def test_pto_picks_columns_that_fill_whole_32_byte_rows():
    kernel = template(RAGGED, T="f32", C=12, EXPR="t[:, 0:24:2]")
    refused(kernel, SIM, "so the 12 picked f32 columns must fill whole 32-byte rows (a multiple of 8)", "t[:, 0:24:2]")


def test_pto_reshapes_only_what_its_bytes_hold_in_order():
    kernel = template('''
@htp.kernel
def k(x: htp.Tensor[{T}, 16, 4], y: htp.Out[{T}, 8, 8]):
    t = x[:, :]
    y[:, :] = t.reshape(8, 8)
''', T="f32")
    refused(kernel, SIM, "a tile of 4 f32 columns holds its rows padded to 32 bytes (8 columns)", "t.reshape(8, 8)")
    x = data("f32", (16, 4), 41)
    same(run(kernel, "cpu", x), x.reshape(8, 8))


BLOCKS = '''
@htp.kernel
def k(x: htp.Tensor[{T}, 16, 64], y: htp.Out[{T}, {R}, {C}]):
    t = x[:, :]
    y[:, :] = {EXPR}
'''


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["f32", "f16"])
@pytest.mark.parametrize("expr, rows, cols, reference", [
    # a block whose first row and column are both off 32-byte boundaries (through the transpose of its rows)
    ("t[3:8, 5:20]", 5, 15, lambda x: x[3:8, 5:20]),
    # part of a column (its rows first), one element, rows of a one-column tile off a boundary
    ("t[8:16, 60]", 8, 1, lambda x: x[8:16, 60:61]),
    ("t[5, 7]", 1, 1, lambda x: x[5:6, 7:8]),
    ("t[:, 9][3:11, :]", 8, 1, lambda x: x[3:11, 9:10]),
])
def test_blocks_at_any_offset(target, dtype, expr, rows, cols, reference):
    kernel = template(BLOCKS, T=dtype, R=rows, C=cols, EXPR=expr)
    x = data(dtype, (16, 64), 42)
    same(run(kernel, target, x), reference(x))


def test_pto_picks_column_groups_at_32_byte_boundaries():
    kernel = template(BLOCKS, T="f32", R=16, C=16, EXPR="t[:, 5:37:2]")
    refused(kernel, SIM, "this slice's column group starts at column 4 (16 bytes)", "t[:, 5:37:2]")
    x = data("f32", (16, 64), 44)
    same(run(kernel, "cpu", x), x[:, 5:37:2])


def test_pto_takes_every_nth_row_of_a_tensor_not_of_a_tile():
    kernel = template(STATIC, T="f32", R=48, C=64, B=16, EXPR="htp.concat([t[0:16:2, :], t[1:16:2, :]])")
    refused(kernel, SIM, "PTO takes every n-th row of a tile only as it loads it: TLOAD reads a tensor's rows at any stride",
            "t[0:16:2, :]")
    x = data("f32", (48, 64), 43)
    same(run(kernel, "cpu", x), np.concatenate([np.concatenate([x[i:i + 16:2], x[i + 1:i + 16:2]]) for i in range(0, 48, 16)]))


# ---------------------------------------------------------------------------
# The user's errors, at their line and column (every target: the front end's).

ERRORS = [
    # (expression in RAGGED (C=16), message, text the caret is under)
    ("t[:, i:i + 16]", "a tile's subscript bound must be a compile-time integer (tiles have static shapes)", "i:i + 16]"),
    ("t[:, 0:100]", "the slice 0:100 of the tile's 64 columns is outside them", "0:100"),
    ("t[:, 40:20]", "the slice 40:20 of the tile's 64 columns is empty", "40:20"),
    ("t[0:8, 0:16]", "has ragged rows (how many are valid is known only at run time", "0:8"),
    ("t[:, 0:32:0]", "a slice's step must be positive, got 0", ("0:32:0", 5)),
    ("t[1, 2, 3]", "3 indices for a tile, which has 2 dimensions", "1, 2, 3"),
    ("t[:, 70]", "index 70 is outside the tile's 64 columns", "70"),
    ("x[i:i + 16, 32::-2]", "a slice's step must be positive, got -2", "-2"),
    ("x[i:i + 16, ::i]", "the step of a slice must be a compile-time integer", "i]"),
    ("htp.concat([t[:, 0:8], htp.cast(t[:, 8:16], htp.f16)], axis=1)", "htp.concat(): tile 1 is a tile[16x8, f16, valid ?x8], tile 0 a tile[16x8, f32, valid ?x8]: the element types must be equal",
     "[t[:, 0:8]"),
    ("htp.concat([t[:, 0:8], htp.pad(t, 0.0)[:, 0:8]], axis=1)", "their rows must agree (and their valid rows)", "[t[:, 0:8]"),
    ("htp.concat([t[:, 0:8], t[:, 8:16]])[:, 0:16]", "htp.concat() along axis 0: tile 0 is a tile[16x8, f32, valid ?x8], whose rows are not all valid", "[t[:, 0:8]"),
    ("htp.concat([t[:, 0:8], t[:, 8:16]], axis=2)", "htp.concat()'s axis is 0 (stack rows) or 1 (join columns), or -2 / -1; got 2", "axis=2"),
    ("htp.concat(t, axis=1)", "htp.concat() takes a list or tuple of tiles, got a tile[16x64, f32, valid ?x64]", "t, axis"),
    ("htp.pad(t, 0.0).reshape(20, 50)[:, 0:16]", "cannot reshape the tile[16x64, f32] (1024 elements) into 20x50 (1000 elements)", "20, 50"),
    ("htp.reshape(t, (64, 16))", "htp.reshape() moves elements between rows, so it needs a fully valid tile", "htp.reshape(t, (64, 16))"),
    ("htp.pad(t, 0.0).reshape(-1, 48)", "cannot reshape the tile[16x64, f32] (1024 elements) into (-1, 48): 1024 is not a multiple of 48", "-1, 48"),
]


@pytest.mark.parametrize("expr, message, at", ERRORS)
def test_user_errors_at_their_line(expr, message, at):
    kernel = template(RAGGED, T="f32", C=16, EXPR=expr)
    at, skip = at if isinstance(at, tuple) else (at, 0)
    refused(kernel, "cpu", message, at, skip)
