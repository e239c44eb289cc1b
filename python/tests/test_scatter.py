"""htp.scatter (docs/language.md, "Scatter"; D76), against numpy on the cpu and on pto-a2a3sim
(skipped, visibly, without the simulator):

- `htp.scatter(t, index, src, axis=1)`: `t` with `t[r, index[r, j]] = src[r, j]`, the inverse of
  `htp.gather(t, index, axis=1)` (numpy's `put_along_axis`, `torch.Tensor.scatter(1, index, src)`);
- `htp.scatter(y, rows, col, t)`: row `r` of `t` into row `rows[r, 0]` of the tensor `y` at
  columns `col..`, the inverse of `htp.gather(x, rows, col, cols)`.

Duplicate indices: the last one wins (the last `j` of a row; the last row written, across the
kernel's blocks too), on every target. Every element type each target scatters, i32 and i64
indices, ragged row blocks and ragged columns, one-column tiles, scalar values, a loop-carried
tile, a WSP workload whose tasks read what a scatter wrote; the user's errors at their line; the
cpu's IndexError; PTO's and AIE's refusals."""

import numpy as np
import pytest
from unittest import mock

import conformance as c
import htp
from conformance import template
from htp.pto import runtime as pto_runtime
from simulators import on_a2a3sim
from sources import kernel_from
from test_errors import refused

SIM = "pto-a2a3sim"
ROWS = 37  # two 16-row blocks and a ragged 5-row tail

wsp = htp.model("wsp")


run = c.run_on


def cases(combinations, on_the_simulator):
    """pytest params `(target, *combination)`: each combination on the cpu, and those
    `on_the_simulator` accepts on the simulator too."""
    found = []
    for combination in combinations:
        found.append(pytest.param("cpu", *combination))
        if on_the_simulator(*combination):
            found.append(pytest.param(SIM, *combination, marks=on_a2a3sim))
    return found


def targets():
    return ["cpu", pytest.param(SIM, marks=on_a2a3sim)]


def data(dtype: str, shape, seed: int):
    gen = np.random.default_rng(seed)
    if dtype in c.FLOATS:
        return (gen.standard_normal(shape) * 4).astype(c.NUMPY[dtype])
    high = {"i8": 100, "i16": 20000, "i32": 1 << 30, "i64": 1 << 40}[dtype]
    return gen.integers(-high, high, size=shape).astype(c.NUMPY[dtype])


def assert_same(actual, expected, what=""):
    """Equal element by element (the scatter moves values: no rounding), in the same dtype."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, what
    assert actual.dtype == expected.dtype, (what, actual.dtype, expected.dtype)
    assert np.array_equal(c.as_float64(actual), c.as_float64(expected), equal_nan=True), \
        f"{what}\n{actual}\nexpected\n{expected}"


def put_reference(t, index, src):
    """docs/language.md's rule, written out: in each row, in order of j; the last of equal
    indices wins. (numpy's put_along_axis does the same today, without promising it.)"""
    out = t.copy()
    for r in range(index.shape[0]):
        for j in range(index.shape[1]):
            out[r, index[r, j]] = src[r, j] if np.ndim(src) else src
    return out


def rows_reference(y, rows, col, t):
    """Row by row, in order: the last row written to a row of y wins."""
    out = y.copy()
    for r in range(rows.shape[0]):
        out[rows[r, 0], col:col + t.shape[1]] = t[r]
    return out


# ---------------------------------------------------------------------------
# Elements into each row: htp.scatter(t, index, src, axis=1)

ELEMENTS = """
@htp.kernel
def put(x: htp.Tensor[{T}, "N", {C}], index: htp.Tensor[{I}, "N", {K}], src: htp.Tensor[{T}, "N", {K}],
        y: htp.Out[{T}, "N", {C}]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.scatter(x[i:i + 16, :], index[i:i + 16, :], src[i:i + 16, :], axis=1)
"""

ELEMENT_CASES = [
    # dtype, index dtype, cols, k, indices drawn from [0, span) (small: many duplicates), on the simulator too
    ("f32", "i32", 64, 8, 64, True),
    ("f32", "i32", 64, 16, 4, True),     # every row writes 4 columns 4 times over
    ("f32", "i64", 64, 1, 64, True),     # one-column index and values
    ("f16", "i32", 40, 16, 40, True),
    ("f16", "i64", 40, 16, 3, True),
    ("bf16", "i32", 200, 24, 200, True),
    ("i32", "i32", 8, 8, 8, True),
    ("i32", "i32", 8, 24, 8, True),      # more indices than columns
    ("i16", "i64", 100, 3, 100, True),
    ("i8", "i32", 64, 8, 64, True),
    ("i8", "i32", 64, 32, 5, True),
    ("i64", "i32", 64, 8, 64, False),    # cpu only: PTO's refusal is test_pto_refuses_what_a2a3_cannot_do's
    ("i64", "i64", 16, 8, 2, False),
    ("f32", "i32", 1, 4, 1, True),       # a one-column tile: every index is 0, the last value wins
]


@pytest.mark.parametrize("target, dtype, index_dtype, cols, k, span",
                         cases([case[:-1] for case in ELEMENT_CASES], lambda *case: (*case, True) in ELEMENT_CASES))
def test_scatter_into_rows(target, dtype, index_dtype, cols, k, span):
    x = data(dtype, (ROWS, cols), seed=cols + k)
    src = data(dtype, (ROWS, k), seed=cols * k + 1)
    index = np.random.default_rng(k + span).integers(0, span, size=(ROWS, k)).astype(c.NUMPY[index_dtype])
    y = run(template(ELEMENTS, T=dtype, I=index_dtype, C=cols, K=k), target, x, index, src)
    assert_same(y, put_reference(x, index, src))


def test_the_rule_for_duplicates_is_the_last_index_of_a_row():
    """The case the docs give: a row writing column 2 three times keeps the third value."""
    x = np.zeros((16, 8), np.float32)
    index = np.zeros((16, 3), np.int32) + 2
    src = np.tile(np.array([[1.0, 2.0, 3.0]], np.float32), (16, 1))
    y = template(ELEMENTS, T="f32", I="i32", C=8, K=3)(x, index, src)
    assert (y[:, 2] == 3.0).all() and (np.delete(y, 2, axis=1) == 0.0).all(), y


@pytest.mark.parametrize("target", targets())
def test_the_last_index_wins_on_the_simulator_too(target):
    """Columns 0..7 of each row, each written four times in a row: the fourth value stays."""
    x = np.zeros((ROWS, 16), np.float32)
    index = np.repeat(np.arange(8, dtype=np.int32), 4)[None, :].repeat(ROWS, 0)
    src = np.arange(ROWS * 32, dtype=np.float32).reshape(ROWS, 32)
    y = run(template(ELEMENTS, T="f32", I="i32", C=16, K=32), target, x, index, src)
    assert_same(y[:, :8], src[:, 3::4])
    assert_same(y[:, 8:], x[:, 8:])


SCALAR_INTO_RAGGED = """
@htp.kernel
def mark(x: htp.Tensor[{T}, "N", 40], index: htp.Tensor[i32, "N", 4], y: htp.Out[{T}, "N", 40]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, 0:64] = htp.scatter(x[i:i + 16, 0:64], index[i:i + 16, :], -1, axis=1)
"""


@pytest.mark.parametrize("target, dtype", cases([("f32",), ("i16",), ("i8",)], lambda t: True))
def test_a_scalar_into_a_tile_ragged_in_rows_and_columns(target, dtype):
    """A 16x64 block of a 40-column tensor holds 40 valid columns: indices address those."""
    x = data(dtype, (ROWS, 40), seed=5)
    index = np.random.default_rng(6).integers(0, 40, size=(ROWS, 4)).astype(np.int32)
    y = run(template(SCALAR_INTO_RAGGED, T=dtype), target, x, index)
    assert_same(y, put_reference(x, index, np.array(-1, x.dtype)))


RUN_TIME_COLUMNS = """
@htp.kernel
def mark_some(x: htp.Tensor[f32, 16, "C"], index: htp.Tensor[i32, 16, 4], y: htp.Out[f32, 16, "C"]):
    y[:, 0:64] = htp.scatter(x[:, 0:64], index[:, :], -1.0, axis=1)
"""


@pytest.mark.parametrize("target", targets())
def test_a_tile_whose_valid_columns_are_known_at_run_time(target):
    """50 of the block's 64 columns are valid, a size the call gives: indices address those."""
    x = data("f32", (16, 50), seed=16)
    index = np.random.default_rng(17).integers(0, 50, size=(16, 4)).astype(np.int32)
    y = run(template(RUN_TIME_COLUMNS), target, x, index)
    assert_same(y, put_reference(x, index, np.float32(-1.0)))


GATHER_THEN_SCATTER = """
@htp.kernel
def double_picked(x: htp.Tensor[f32, "N", 48], index: htp.Tensor[i32, "N", 6], y: htp.Out[f32, "N", 48]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        j = index[i:i + 16, :]
        y[i:i + 16, :] = htp.scatter(t, j, htp.gather(t, j, axis=1) * 2.0, axis=1)
"""


@pytest.mark.parametrize("target", targets())
def test_scatter_inverts_gather(target):
    x = data("f32", (ROWS, 48), seed=8)
    index = np.random.default_rng(9).integers(0, 48, size=(ROWS, 6)).astype(np.int32)
    y = run(template(GATHER_THEN_SCATTER), target, x, index)
    expected = x.copy()
    np.put_along_axis(expected, index, np.take_along_axis(x, index, 1) * 2.0, 1)
    assert_same(y, expected)


CARRIED = """
@htp.kernel
def latest(index: htp.Tensor[i32, 16, 64], y: htp.Out[f32, 16, 32]):
    acc = htp.zeros((16, 32), f32)
    for k in range(0, 64, 8):
        acc = htp.scatter(acc, index[:, k:k + 8], float(k), axis=1)
    y[:, :] = acc
"""


@pytest.mark.parametrize("target", targets())
def test_a_loop_carried_tile_updated_in_place(target):
    """Each column ends holding the start of the last block of indices that named it."""
    index = np.random.default_rng(10).integers(0, 32, size=(16, 64)).astype(np.int32)
    y = run(template(CARRIED), target, index)
    expected = np.zeros((16, 32), np.float32)
    for k in range(0, 64, 8):
        expected = put_reference(expected, index[:, k:k + 8], np.float32(k))
    assert_same(y, expected)


def test_an_index_outside_the_row_is_an_index_error_on_cpu():
    kernel = template(ELEMENTS, T="f32", I="i32", C=8, K=2)
    index = np.zeros((ROWS, 2), np.int32)
    index[30, 1] = 8
    with pytest.raises(IndexError) as info:
        kernel(data("f32", (ROWS, 8), seed=1), index, data("f32", (ROWS, 2), seed=2))
    assert "put.py:" in str(info.value), str(info.value)


# ---------------------------------------------------------------------------
# Rows into a tensor: htp.scatter(y, rows, col, t)

ROWS_KERNEL = """
@htp.kernel
def scatter_rows(x: htp.Tensor[{T}, "N", {C}], rows: htp.Tensor[{I}, "N", 1], y: htp.InOut[{T}, "M", {W}]):
    for i in range(0, x.shape[0], 16):
        htp.scatter(y, rows[i:i + 16, :], {COL}, x[i:i + 16, :])
"""

ROW_CASES = [
    # dtype, index dtype, columns, tensor columns, first column, tensor rows, on the simulator too
    ("f32", "i32", 64, 64, 0, 20, True),     # 37 rows into 20: duplicates within and across blocks
    ("f32", "i64", 64, 64, 0, 64, True),
    ("f16", "i32", 40, 64, 8, 20, True),
    ("bf16", "i32", 64, 96, 32, 50, True),
    ("i32", "i32", 8, 8, 0, 4, True),
    ("i16", "i64", 16, 48, 16, 37, True),
    ("i8", "i32", 32, 32, 0, 10, True),
    ("i64", "i32", 16, 16, 0, 20, False),     # cpu only: PTO's refusal is test_pto_refuses_what_a2a3_cannot_do's
    ("f32", "i32", 1, 4, 2, 20, True),        # one column of the tensor
]


@pytest.mark.parametrize("target, dtype, index_dtype, cols, width, col, tensor_rows",
                         cases([case[:-1] for case in ROW_CASES], lambda *case: (*case, True) in ROW_CASES))
def test_scatter_rows_into_a_tensor(target, dtype, index_dtype, cols, width, col, tensor_rows):
    x = data(dtype, (ROWS, cols), seed=cols + width)
    rows = np.random.default_rng(tensor_rows).integers(0, tensor_rows, size=(ROWS, 1)).astype(c.NUMPY[index_dtype])
    y = data(dtype, (tensor_rows, width), seed=tensor_rows + col)
    kernel = template(ROWS_KERNEL, T=dtype, I=index_dtype, C=cols, W=width, COL=col)
    out = run(kernel, target, x, rows, y.copy())
    assert_same(out, rows_reference(y, rows, col, x))


UNPERMUTE = """
@htp.kernel
def unpermute(x: htp.Tensor[f32, "N", 64], rows: htp.Tensor[i32, "N", 1], col: i64, y: htp.Out[f32, "M", 128]):
    for i in range(0, x.shape[0], 16):
        htp.scatter(y, rows[i:i + 16, :], col, x[i:i + 16, :])
"""


@pytest.mark.parametrize("target", targets())
def test_an_output_scattered_into_keeps_its_other_rows(target):
    """MoE's un-permute: a permutation of 37 rows into 45, at a run-time column; the 8 rows no
    index names keep the output's values (zeros when the call allocates it)."""
    x = data("f32", (ROWS, 64), seed=11)
    rows = np.random.default_rng(12).permutation(45)[:ROWS].astype(np.int32)[:, None]
    y = run(template(UNPERMUTE), target, x, rows, 32, np.zeros((45, 128), np.float32))
    assert_same(y, rows_reference(np.zeros((45, 128), np.float32), rows, 32, x))


@pytest.mark.parametrize("rows_value, col, text", [
    (45, 0, "index out of bounds"),
    (-1, 0, "index out of bounds"),
    (3, 100, "index out of bounds"),   # the column window 100..164 of 128
])
def test_a_row_or_window_outside_the_tensor_is_an_index_error_on_cpu(rows_value, col, text):
    x = data("f32", (ROWS, 64), seed=13)
    rows = np.arange(ROWS, dtype=np.int32)[:, None]
    rows[20, 0] = rows_value
    with pytest.raises(IndexError) as info:
        template(UNPERMUTE)(x, rows, col, np.zeros((45, 128), np.float32))
    assert "unpermute.py:" in str(info.value) and text in str(info.value), str(info.value)


GRAIN = """
@htp.kernel
def spread(x: htp.Tensor[f32, "N", 64], rows: htp.Tensor[i32, "N", 1], y: htp.Out[f32, "N", 64]):
    for i in htp.range(0, x.shape[0], 16, grain=2):
        htp.scatter(y, rows[i:i + 16, :], 0, x[i:i + 16, :])
"""


def test_a_loop_that_scatters_is_not_spread_over_cores():
    """Two iterations may write one row, and the later must win: the loop stays in order."""
    with pytest.raises(htp.CompileError) as info:
        template(GRAIN).compile("cpu")
    assert "no htp.scatter may write rows its data chooses" in str(info.value), str(info.value)


# ---------------------------------------------------------------------------
# WSP: a task's scatter writes its tensor; the tasks reading it wait for it

SCATTER_THEN_READ = """
@htp.kernel
def scatter_block(x: htp.Tensor[f32, 16, 64], rows: htp.Tensor[i32, 16, 1], y: htp.Out[f32, "M", 64]):
    htp.scatter(y, rows[:, :], 0, x[:, :])


@htp.kernel
def double_block(y: htp.Tensor[f32, 16, 64], z: htp.Out[f32, 16, 64]):
    z[:, :] = y[:, :] * 2.0


@wsp.workload
def permute_then_double(x: htp.Tensor[f32, "N", 64], rows: htp.Tensor[i32, "N", 1], y: htp.Out[f32, "N", 64],
                        z: htp.Out[f32, "N", 64]):
    for b in wsp.parallel(x.shape[0] // 16):
        wsp.task(scatter_block, x[b * 16:b * 16 + 16, :], rows[b * 16:b * 16 + 16, :], y[:, :])
    for b in wsp.parallel(x.shape[0] // 16):
        wsp.task(double_block, y[b * 16:b * 16 + 16, :], z[b * 16:b * 16 + 16, :])
"""


@pytest.mark.parametrize("target", targets())
def test_wsp_tasks_read_what_a_scatter_wrote(target):
    source = "import htp\nfrom htp import f32, i32\nwsp = htp.model(\"wsp\")\n" + SCATTER_THEN_READ
    workload = kernel_from(source, "permute_then_double")
    x = data("f32", (128, 64), seed=14)
    rows = np.random.default_rng(15).permutation(128).astype(np.int32)[:, None]
    y, z = np.zeros_like(x), np.zeros_like(x)
    if target == SIM:
        with mock.patch.object(pto_runtime, "run_package", c.run_package_in_a_child):
            workload.compile(target)(x, rows, y, z)
    else:
        wsp.schedule(workload, workers=4)(x, rows, y, z)
    expected = rows_reference(np.zeros_like(x), rows, 0, x)
    assert_same(y, expected)
    assert_same(z, expected * 2.0)


# ---------------------------------------------------------------------------
# The user's errors, at their line, on every target

ERROR_KERNEL = """import htp
from htp import f32, i32

@htp.kernel
def k(x: htp.Tensor[f32, 16, 64], r: htp.Tensor[i32, 16, 1], y: htp.Out[f32, 16, 64], n: i32):
    t = x[0:16, :]
    {STMT}
"""


@pytest.mark.parametrize("statement, at, text", [
    ("y[:, :] = htp.scatter(t, htp.zeros((16, 8), f32), t[:, 0:8], axis=1)", "htp.zeros",
     "htp.scatter(t, index, src, axis=1) needs a tile of i32 or i64 column indices, got a tile[16x8, f32]"),
    ("y[:, :] = htp.scatter(t, htp.zeros((8, 8), i32), 1.0, axis=1)", "htp.zeros", "must have the same rows (and valid rows)"),
    ("y[:, :] = htp.scatter(t, htp.zeros((16, 8), i32), t, axis=1)", "t, axis",
     "htp.scatter(t, index, src, axis=1) writes src[r, j] at index[r, j]: src must have the index's shape and valid region"),
    ("y[:, :] = htp.scatter(t, htp.zeros((16, 8), i32), htp.zeros((16, 8), i32), axis=1)", "htp.zeros((16, 8), i32), axis",
     "src must have t's element type f32, got a tile[16x8, i32] (convert with htp.cast(src, htp.f32))"),
    ("y[:, :] = htp.scatter(t, htp.zeros((16, 8), i32), 1.0)", "htp.scatter", "htp.scatter(t, index, src, axis=1) needs axis=1"),
    ("y[:, :] = htp.scatter(t, htp.zeros((16, 8), i32), 1.0, axis=0)", "axis=0",
     "htp.scatter(t, index, src, axis=1) works along each row: axis=1 (or -1), got axis=0"),
    ("y[:, :] = htp.scatter(t > 0.0, htp.zeros((16, 8), i32), True, axis=1)", "htp.scatter",
     "htp.scatter() needs a numeric tile, got a tile[16x64, bool]"),
    ("htp.scatter(x, r[:, :], 0, t)", "htp.scatter", "cannot scatter into 'x': it is an input (the kernel's htp.Tensor parameter 'x'), which a kernel only reads"),
    ("htp.scatter(y, r[:, :] > 0, 0, t)", "r[:, :] > 0", "htp.scatter(y, rows, col, t) needs an Rx1 tile of i32 or i64 row indices, got a tile[16x1, bool]"),
    ("htp.scatter(y, r[:, :], 0, htp.cast(t, i32))", "htp.cast",
     "element type mismatch: scattering a tile[16x64, i32] into the f32 tensor 'y' (convert with htp.cast(t, htp.f32))"),
    ("htp.scatter(y, r[0:8, :], 0, t)", "t)", "htp.scatter(y, rows, col, t) writes row r of t to row rows[r, 0]: the tile[16x64, f32] and the row indices tile[8x1, i32] must have the same rows"),
    ("htp.scatter(y, r[:, :], 8, t)", "8, t", "scatters into columns 8..72 of 'y', which has 64: the window must lie inside the tensor"),
    ("htp.scatter(y, r[:, :], 0, 1.0)", "1.0", "htp.scatter(y, rows, col, t) stores the rows of a tile, got the float constant 1"),
    ("htp.scatter(y, r[:, :], 0)", "htp.scatter", "scatter() is missing the argument 'src'"),
    ("y[:, :] = htp.scatter(n, r[:, :], 1.0, axis=1)", "n, r",
     "htp.scatter takes a tile first (htp.scatter(t, index, src, axis=1): elements into each row) or a tensor"),
])
@pytest.mark.parametrize("target", ["cpu", SIM, "pto-a2a3"])
def test_user_errors_at_their_line(target, statement, at, text):
    kernel = kernel_from(ERROR_KERNEL.replace("{STMT}", statement), "k")
    refused(kernel, target, text, at)


PTO_LIMITS = """import htp
from htp import f16, f32, i32, i64

@htp.kernel
def k(x: htp.Tensor[{T}, {R}, {C}], r: htp.Tensor[i32, {R}, 1], y: htp.Out[{T}, {R}, {C}]):
    t = x[:, :]
    {STMT}
"""


@pytest.mark.parametrize("dtype, rows, cols, statement, text", [
    ("i64", 16, 64, "y[:, :] = htp.scatter(t, htp.zeros((16, 8), i32), t[:, 0:8], axis=1)",
     "PTO scatters 8-, 16- and 32-bit elements (A2/A3's TSCATTER), not i64"),
    ("i64", 16, 64, "htp.scatter(y, r[:, :], 0, t)", "PTO scatters rows of 8-, 16- and 32-bit elements (A2/A3's MSCATTER), not i64"),
    ("f16", 128, 264, "y[:, :] = htp.scatter(t, htp.zeros((128, 8), i32), t[:, 0:8], axis=1)",
     "PTO scatters f16 elements by 16-bit offsets (A2/A3's TSCATTER): into a tile of at most 32768 elements, got 34816 (128x272 in UB)"),
])
@pytest.mark.parametrize("target", [SIM, "pto-a2a3"])
def test_pto_refuses_what_a2a3_cannot_do(target, dtype, rows, cols, statement, text):
    """A2/A3's rules, at the user's line; the cpu runs the same kernels."""
    source = PTO_LIMITS
    for name, value in (("{T}", dtype), ("{R}", rows), ("{C}", cols), ("{STMT}", statement)):
        source = source.replace(name, str(value))
    kernel = kernel_from(source, "k")
    refused(kernel, target, text, "htp.scatter")
    kernel.compile("cpu")


ROWS_BY_DATA = """import htp
from htp import f32, i32

@htp.kernel
def k(x: htp.Tensor[f32, "N", 64], r: htp.Tensor[i32, "N", 1], y: htp.InOut[f32, "M", 64]):
    for i in range(0, x.shape[0], 16):
        htp.scatter(y, r[i:i + 16, :], 0, x[i:i + 16, :] * 2.0)
"""


@pytest.mark.parametrize("rows, into", [(37, 20), (16, 64), (64, 5)])
def test_rows_chosen_at_run_time_are_scattered_on_one_core_on_aie_sim(rows, into):
    # Any block may write any row of y (the last write wins, in block order): the blocks are not
    # dealt to cores, the kernel runs whole on one core, y in and out whole. A row index outside y
    # is the cpu's IndexError, from the core's status word (D96).
    kernel = kernel_from(ROWS_BY_DATA, "k")
    gen = np.random.default_rng(30)
    x = gen.standard_normal((rows, 64)).astype(np.float32)
    r = gen.integers(0, into, size=(rows, 1)).astype(np.int32)
    y0 = gen.standard_normal((into, 64)).astype(np.float32)
    expected = y0.copy()
    for row in range(rows):
        expected[r[row, 0]] = x[row] * 2.0
    y = y0.copy()
    compiled = kernel.compile("aie-sim")
    compiled(x, r, y)
    np.testing.assert_array_equal(y, expected)
    assert compiled.metrics(x, r, y0)["cores"] == 1
    bad = r.copy()
    bad[rows // 2, 0] = into
    with pytest.raises(IndexError) as on_aie:
        compiled(x, bad, y0.copy())
    with pytest.raises(IndexError) as on_cpu:
        kernel.compile("cpu")(x, bad, y0.copy())
    assert str(on_aie.value) == str(on_cpu.value) and ":7:" in str(on_aie.value)


EMBEDDING = """import htp
from htp import f32, i32

@htp.kernel
def k(table: htp.Tensor[f32, "V", 32], ids: htp.Tensor[i32, "N", 1], y: htp.Out[f32, "N", 32]):
    for i in range(0, ids.shape[0], 8):
        y[i:i + 8, :] = htp.gather(table, ids[i:i + 8, :], 0, 32) + 1.0
"""


def test_rows_gathered_at_run_time_read_a_table_every_core_holds_on_aie_sim():
    # The table travels whole to every core (a broadcast), the ids and rows by block: the blocks
    # are still dealt to cores. A bad id is the cpu's IndexError.
    kernel = kernel_from(EMBEDDING, "k")
    gen = np.random.default_rng(31)
    table = gen.standard_normal((50, 32)).astype(np.float32)
    ids = gen.integers(0, 50, size=(61, 1)).astype(np.int32)
    compiled = kernel.compile("aie-sim")
    np.testing.assert_array_equal(compiled(table, ids), table[ids[:, 0]] + 1.0)
    assert compiled.metrics(table, ids)["cores"] > 1
    bad = ids.copy()
    bad[60, 0] = -3
    with pytest.raises(IndexError) as on_aie:
        compiled(table, bad)
    with pytest.raises(IndexError) as on_cpu:
        kernel.compile("cpu")(table, bad)
    assert str(on_aie.value) == str(on_cpu.value)


def test_rows_gathered_from_a_tensor_also_read_by_block_run_on_one_core_on_aie_sim():
    # A tensor streamed by row block holds only the block's rows in a core, so one also read at rows
    # chosen at run time keeps the blocks on one core, every tensor whole.
    source = EMBEDDING.replace("htp.gather(table, ids[i:i + 8, :], 0, 32) + 1.0",
                               "htp.gather(table, ids[i:i + 8, :], 0, 32) + table[i:i + 8, :]")
    kernel = kernel_from(source, "k")
    gen = np.random.default_rng(32)
    table = gen.standard_normal((40, 32)).astype(np.float32)
    ids = gen.integers(0, 40, size=(40, 1)).astype(np.int32)
    compiled = kernel.compile("aie-sim")
    np.testing.assert_array_equal(compiled(table, ids), table[ids[:, 0]] + table)
    assert compiled.metrics(table, ids)["cores"] == 1
