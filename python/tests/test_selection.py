"""Selection along each row (docs/language.md, "Selection"): htp.argmax / htp.argmin
(htp.row_argmax / htp.row_argmin), htp.sort / htp.argsort, htp.topk and
htp.gather(t, index, axis=1), against numpy on the cpu and on pto-a2a3sim (skipped,
visibly, without the simulator): every element type each target sorts, ragged row
blocks, ragged columns (arg reductions), ties, k = 1 and k = columns, the NaN rule
(cpu), and the user's errors at their line, on every target."""

import os
import re

import numpy as np
import pytest

import conformance as c
import htp
from conformance import template
from htp.pto import runtime as pto_runtime
from sources import kernel_from
from test_errors import assert_points_at, refused

on_sim = pytest.mark.skipif(
    not os.environ.get("HTP_PTO_ISA_ROOT") or pto_runtime.find_runtime() is not None,
    reason="pto-runtime a2a3sim not available (set HTP_PTO_ISA_ROOT, install simpler, g++-15 on PATH)",
)
SIM = "pto-a2a3sim"

ROWS = 37  # two 16-row blocks and a ragged 5-row tail


def targets(sim: bool):
    """`cpu`, and the simulator when this case is one it runs."""
    return ["cpu"] + ([pytest.param(SIM, marks=on_sim)] if sim else [])


run = c.run_on


def data(dtype: str, shape, seed: int, ties: bool = False):
    """Random values of `dtype`; with `ties`, from a handful of values (many equal)."""
    gen = np.random.default_rng(seed)
    if ties:
        pool = np.array([-2.0, -0.5, 0.0, 0.5, 1.0, 3.0] if dtype in c.FLOATS else [-3, -1, 0, 1, 2])
        return pool[gen.integers(0, len(pool), size=shape)].astype(c.NUMPY[dtype])
    if dtype in c.FLOATS:
        return (gen.standard_normal(shape) * 4).astype(c.NUMPY[dtype])
    high = {"i8": 100, "i16": 20000, "i32": 1 << 30, "i64": 1 << 40}[dtype]
    return gen.integers(-high, high, size=shape).astype(c.NUMPY[dtype])


def order(row, descending: bool):
    """The columns of `row` in sorted order as docs/language.md defines it: NaN above every
    number, equal values (-0.0 and +0.0 too) in column order."""
    row = c.as_float64(row)

    def key(j):
        nan = bool(np.isnan(row[j]))
        value = 0.0 if nan else float(row[j])
        return (0 if nan else 1, -value, j) if descending else (1 if nan else 0, value, j)

    return np.array(sorted(range(len(row)), key=key), dtype=np.int32)


def orders(x, descending: bool):
    return np.stack([order(row, descending) for row in x])


def assert_same(actual, expected, what=""):
    """Equal element by element (NaN equal to NaN), in the same dtype."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, what
    a, e = c.as_float64(actual), c.as_float64(expected)
    assert np.array_equal(a, e, equal_nan=True), f"{what}\n{actual}\nexpected\n{expected}"


# ---------------------------------------------------------------------------
# argmax / argmin

ARG = """
@htp.kernel
def arg(x: htp.Tensor[{T}, "N", {C}], hi: htp.Out[i32, "N", 1], lo: htp.Out[i32, "N", 1]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        hi[i:i + 16, :] = htp.argmax(t, axis=1)
        lo[i:i + 16, :] = htp.row_argmin(t)
"""

ARG_TYPES = ["f32", "f16", "bf16", "i32", "i16"]


def cases(combinations, on_the_simulator):
    """pytest params `(target, *combination)`: each combination on the cpu, and those
    `on_the_simulator` accepts on the simulator too (each run there compiles a package)."""
    found = []
    for combination in combinations:
        found.append(pytest.param("cpu", *combination))
        if on_the_simulator(*combination):
            found.append(pytest.param(SIM, *combination, marks=on_sim))
    return found


ARG_CASES = cases([(t, cols, ties) for t in ARG_TYPES for cols in [1, 8, 64, 200] for ties in [False, True]],
                  lambda t, cols, ties: (cols, ties) in {(64, True), (200, False), (1, False)})


@pytest.mark.parametrize("target, dtype, cols, ties", ARG_CASES)
def test_argmax_argmin(target, dtype, cols, ties):
    x = data(dtype, (ROWS, cols), seed=cols, ties=ties)
    hi, lo = run(template(ARG, T=dtype, C=cols), target, x)
    reference = c.as_float64(x)
    np.testing.assert_array_equal(hi[:, 0], np.argmax(reference, axis=1))
    np.testing.assert_array_equal(lo[:, 0], np.argmin(reference, axis=1))


ARG_BLOCKS = """
@htp.kernel
def arg_blocks(x: htp.Tensor[{T}, 16, "M"], y: htp.Out[i32, 16, "B"]):
    for b in range(0, y.shape[1]):
        y[:, b:b + 1] = htp.argmax(x[:, b * 64:b * 64 + 64], axis=1)
"""


@pytest.mark.parametrize("target", targets(sim=True))
def test_argmax_of_ragged_columns_looks_at_the_valid_ones(target):
    # 150 columns in blocks of 64: the last block holds 22; its argmax is among them.
    x = data("f32", (16, 150), seed=3)
    x[:, 140] = 100.0  # the max of the last block, well inside it
    x[:, 128:] -= 1000.0
    y = run(template(ARG_BLOCKS, T="f32"), target, x, np.zeros((16, 3), np.int32))
    expected = np.stack([np.argmax(x[:, b * 64:b * 64 + 64], axis=1) for b in range(3)], axis=1)
    np.testing.assert_array_equal(y, expected)


def test_argmax_nan_rule_cpu():
    """A NaN is the max and the min: the first NaN's column, as numpy (and as htp.row_max lets
    NaN win). PTO compares ordered: there a NaN's column is not specified."""
    x = data("f32", (ROWS, 64), seed=5)
    x[3, 10] = x[3, 20] = np.nan
    x[7, 0] = np.nan
    x[9, 63] = np.nan
    x[11, :] = -np.inf
    x[12, :] = 0.0
    x[12, 5] = -0.0
    hi, lo = run(template(ARG, T="f32", C=64), "cpu", x)
    np.testing.assert_array_equal(hi[:, 0], np.argmax(x, axis=1))
    np.testing.assert_array_equal(lo[:, 0], np.argmin(x, axis=1))


# ---------------------------------------------------------------------------
# sort / argsort

SORT = """
@htp.kernel
def sort(x: htp.Tensor[{T}, "N", {C}], v: htp.Out[{T}, "N", {C}], ix: htp.Out[i32, "N", {C}]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        v[i:i + 16, :] = htp.sort(t, descending={D})
        ix[i:i + 16, :] = htp.argsort(t, descending={D})
"""

SORT_TYPES = ["f32", "f16", "bf16", "i32", "i16", "i8"]
#: What the simulator runs (each run compiles a package).
SORT_SIM = {("f32", 40, True, False), ("f32", 200, False, True), ("f16", 128, True, True), ("bf16", 8, False, False),
            ("i16", 32, True, True), ("i8", 64, False, True), ("f32", 1, True, False)}


SORT_CASES = cases([(t, cols, descending, ties) for t in SORT_TYPES for cols in [1, 8, 32, 40, 64, 128, 200]
                    for descending in [False, True] for ties in [False, True]],
                   lambda *combination: combination in SORT_SIM)


@pytest.mark.parametrize("target, dtype, cols, descending, ties", SORT_CASES)
def test_sort_and_argsort(target, dtype, cols, descending, ties):
    x = data(dtype, (ROWS, cols), seed=cols + descending, ties=ties)
    v, ix = run(template(SORT, T=dtype, C=cols, D=descending), target, x)
    expected = orders(x, descending)
    np.testing.assert_array_equal(ix, expected)
    assert_same(v, np.take_along_axis(x, expected, axis=1))
    if dtype in ("f32", "i32", "i16", "i8"):
        # numpy's stable argsort agrees where it defines the same order.
        key = c.as_float64(x) if not descending else -c.as_float64(x)
        np.testing.assert_array_equal(ix, np.argsort(key, axis=1, kind="stable"))


def test_sort_nan_and_zero_rules_cpu():
    """NaN sorts above +inf (last ascending, as numpy; first descending, as torch); -0.0 and
    +0.0 are equal and keep their order."""
    x = data("f32", (ROWS, 40), seed=11)
    x[0, [3, 9]] = np.nan
    x[1, :] = np.nan
    x[2, [0, 1, 2]] = [np.inf, np.nan, -np.inf]
    x[4, :] = 0.0
    x[4, ::3] = -0.0
    for descending in (False, True):
        v, ix = run(template(SORT, T="f32", C=40, D=descending), "cpu", x)
        expected = orders(x, descending)
        np.testing.assert_array_equal(ix, expected)
        assert_same(v, np.take_along_axis(x, expected, axis=1))
        np.testing.assert_array_equal(np.signbit(v[4]), np.signbit(x[4, expected[4]]))
    ascending, _ = run(template(SORT, T="f32", C=40, D=False), "cpu", x)
    assert_same(ascending, np.sort(x, axis=1))


# ---------------------------------------------------------------------------
# topk

TOPK = """
@htp.kernel
def topk(x: htp.Tensor[{T}, "N", {C}], v: htp.Out[{T}, "N", {K}], ix: htp.Out[i32, "N", {K}]):
    for i in range(0, x.shape[0], 16):
        values, indices = htp.topk(x[i:i + 16, :], {K}, largest={L})
        v[i:i + 16, :] = values
        ix[i:i + 16, :] = indices
"""

TOPK_CASES = [
    # dtype, cols, k, largest, ties, on the simulator
    ("f32", 64, 8, True, False, True),
    ("f32", 64, 1, True, True, True),
    ("f32", 64, 64, True, True, False),
    ("f32", 200, 3, False, False, True),
    ("f16", 128, 16, True, True, True),
    ("bf16", 40, 5, True, False, True),
    ("bf16", 40, 1, False, True, False),
    ("i16", 100, 10, True, True, True),
    ("i16", 8, 8, False, False, True),
    ("i32", 64, 4, True, True, False),
    ("i8", 33, 2, True, True, False),
    ("f32", 512, 20, True, False, True),
]


@pytest.mark.parametrize("target, dtype, cols, k, largest, ties", cases([case[:-1] for case in TOPK_CASES],
                                                                         lambda *case: (*case, True) in TOPK_CASES))
def test_topk(target, dtype, cols, k, largest, ties):
    x = data(dtype, (ROWS, cols), seed=cols * k, ties=ties)
    v, ix = run(template(TOPK, T=dtype, C=cols, K=k, L=largest), target, x)
    expected = orders(x, largest)[:, :k]
    np.testing.assert_array_equal(ix, expected)
    assert_same(v, np.take_along_axis(x, expected, axis=1))


# ---------------------------------------------------------------------------
# gather along rows: htp.gather(t, index, axis=1)

GATHER = """
@htp.kernel
def take(x: htp.Tensor[{T}, "N", {C}], index: htp.Tensor[{I}, "N", {K}], y: htp.Out[{T}, "N", {K}]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.gather(x[i:i + 16, :], index[i:i + 16, :], axis=1)
"""

GATHER_CASES = [
    # dtype, index dtype, cols, k, on the simulator too
    ("f32", "i32", 64, 8, True),
    ("f32", "i64", 64, 1, True),
    ("f16", "i32", 40, 16, True),
    ("bf16", "i32", 200, 24, True),
    ("i32", "i32", 8, 8, True),
    ("i16", "i64", 100, 3, True),
    ("i8", "i32", 64, 8, False),
    ("i64", "i32", 64, 8, False),
    ("f32", "i32", 1, 4, True),
]


@pytest.mark.parametrize("target, dtype, index_dtype, cols, k", cases([case[:-1] for case in GATHER_CASES],
                                                                        lambda *case: (*case, True) in GATHER_CASES))
def test_gather_along_rows(target, dtype, index_dtype, cols, k):
    """i8 and i64 elements: the cpu only (PTO's refusal is test_pto_refuses_what_a2a3_cannot_do's)."""
    x = data(dtype, (ROWS, cols), seed=cols + k)
    index = np.random.default_rng(k).integers(0, cols, size=(ROWS, k)).astype(c.NUMPY[index_dtype])
    y = run(template(GATHER, T=dtype, I=index_dtype, C=cols, K=k), target, x, index)
    assert_same(y, np.take_along_axis(x, index.astype(np.int64), axis=1))


SORT_BY_GATHER = """
@htp.kernel
def by_columns(x: htp.Tensor[f32, "N", 48], y: htp.Out[f32, "N", 48], z: htp.Out[f32, "N", 48]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.gather(t, htp.argsort(t, descending=True), axis=1)
        z[i:i + 16, :] = htp.gather(t, htp.argmax(t, axis=1), axis=1) - t
"""


@pytest.mark.parametrize("target", targets(sim=True))
def test_argsort_then_gather_is_the_sort(target):
    x = data("f32", (ROWS, 48), seed=21, ties=True)
    y, z = run(template(SORT_BY_GATHER), target, x)
    assert_same(y, -np.sort(-x, axis=1))
    np.testing.assert_array_equal(z, x.max(axis=1, keepdims=True) - x)


ROUTER = """
@htp.kernel
def router(x: htp.Tensor[f16, "N", 64], w: htp.Tensor[f16, 64, 16], gate: htp.Out[f32, "N", 2],
           expert: htp.Out[i32, "N", 2], first: htp.Out[f32, "N", 16]):
    for i in range(0, x.shape[0], 16):
        scores = x[i:i + 16, :] @ w[:, :]
        values, indices = htp.topk(scores, 2)
        gate[i:i + 16, :] = values
        expert[i:i + 16, :] = indices
        first[i:i + 16, :] = htp.cast(htp.cast(htp.argsort(scores), f16) @ htp.cast(htp.iota((16, 16), 0, i32), f16), f32)
"""


@pytest.mark.parametrize("target", targets(sim=True))
def test_top2_router_after_a_matmul(target):
    """A MoE router: the scores a matmul makes on the cube, the top 2 and their experts on the
    vector core (a cluster task on PTO); the argsort crosses back to the cube for a matmul."""
    gen = np.random.default_rng(7)
    x = gen.integers(-3, 4, size=(ROWS, 64)).astype(np.float16)  # exact products and sums: ties are real
    w = gen.integers(-3, 4, size=(64, 16)).astype(np.float16)
    gate, expert, first = run(template(ROUTER), target, x, w)
    scores = x.astype(np.float64) @ w.astype(np.float64)
    down = orders(scores, True)
    np.testing.assert_array_equal(expert, down[:, :2])
    np.testing.assert_array_equal(gate, np.take_along_axis(scores, down[:, :2], 1))
    up = orders(scores, False).astype(np.float64)
    np.testing.assert_array_equal(first, up @ np.arange(16, dtype=np.float64)[:, None].repeat(16, 1))


def test_gather_index_outside_the_row_is_an_index_error_on_cpu():
    kernel = template(GATHER, T="f32", I="i32", C=8, K=2)
    index = np.zeros((ROWS, 2), np.int32)
    index[30, 1] = 8
    with pytest.raises(IndexError) as info:
        kernel(data("f32", (ROWS, 8), seed=1), index)
    assert "take.py" in str(info.value) or ".py:" in str(info.value), str(info.value)


# ---------------------------------------------------------------------------
# The user's errors, at their line, on every target

ERROR_KERNEL = """import htp
from htp import f32, i32

@htp.kernel
def k(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64], n: i32):
    t = x[0:16, :]
    y[0:16, 0:8] = {EXPR}
"""


@pytest.mark.parametrize("expr, at, text", [
    ("htp.cast(htp.argmax(t), f32)", "htp.argmax", "htp.argmax needs axis=1 (along each row; a whole-tile, flattened selection is not in the language)"),
    ("htp.cast(htp.argmax(t, axis=0), f32)", "axis=0", "htp.argmax works along each row: axis=1 (or -1), got axis=0"),
    ("htp.cast(htp.argmin(t, axis=n), f32)", "axis=n", "htp.argmin's axis must be the compile-time integer 1 (or -1), got a i32 scalar"),
    ("htp.cast(htp.row_argmax(2.0), f32)", "htp.row_argmax", "htp.row_argmax() needs a tile, got the float constant 2"),
    ("htp.cast(htp.row_argmin(t > 0.0), f32)", "htp.row_argmin", "htp.row_argmin() needs a numeric tile, got a tile[16x64, bool]"),
    ("htp.topk(t, -3)", "-3", "htp.topk()'s k must be between 1 and the tile's 64 columns, got -3"),
    ("htp.topk(t, 65)", "65", "htp.topk()'s k must be between 1 and the tile's 64 columns, got 65"),
    ("htp.topk(t, n)", "n)", "htp.topk()'s k must be a compile-time integer (a literal or an htp.Const[int]), got a i32 scalar"),
    ("htp.topk(t, 8, largest=1)", "largest=1", "htp.topk()'s largest must be the compile-time constant True or False, got the integer constant 1"),
    ("htp.sort(t, descending=n)", "descending=n", "htp.sort()'s descending must be the compile-time constant True or False, got a i32 scalar"),
    ("htp.sort(x[0:16, 60:68])", "htp.sort", "htp.sort() sorts whole rows, but the tile[16x8, f32, valid 16x4] has 4 valid columns of 8"),
    ("htp.argsort(t, True, 3)", "htp.argsort", "argsort() takes at most 2 arguments, got 3"),
    ("htp.gather(t, htp.zeros((16, 8), f32), axis=1)", "htp.zeros", "htp.gather(t, index, axis=1) needs a tile of i32 or i64 column indices, got a tile[16x8, f32]"),
    ("htp.gather(t, htp.zeros((8, 8), i32), axis=1)", "htp.zeros", "must have the same rows (and valid rows)"),
    ("htp.gather(t, htp.zeros((16, 8), i32))", "htp.gather", "htp.gather(t, index, axis=1) needs axis=1"),
    ("htp.gather(t, htp.zeros((16, 8), i32), axis=0)", "axis=0", "htp.gather(t, index, axis=1) works along each row: axis=1 (or -1), got axis=0"),
])
@pytest.mark.parametrize("target", ["cpu", SIM, "pto-a2a3"])
def test_user_errors_at_their_line(target, expr, at, text):
    kernel = kernel_from(ERROR_KERNEL.replace("{EXPR}", expr), "k")
    refused(kernel, target, text, at)


PTO_LIMITS = """import htp
from htp import f32, i32, i8, i64

@htp.kernel
def k(x: htp.Tensor[{T}, {R}, {C}], y: htp.Out[{O}, {R}, {K}]):
    t = x[:, :]
    {STMT}
"""


@pytest.mark.parametrize("dtype, rows, cols, k, out, statement, text", [
    ("i32", 16, 64, 64, "i32", "y[:, :] = htp.sort(t)",
     "PTO sorts f32, f16, bf16, i16 and i8 tiles, not i32: A2/A3's TSORT32 and TMRGSORT sort f16 and f32"),
    ("i64", 16, 64, 4, "i64", "v, i = htp.topk(t, 4); y[:, :] = v", "PTO sorts f32, f16, bf16, i16 and i8 tiles, not i64"),
    ("f32", 1, 4096, 4, "f32", "v, i = htp.topk(t, 4); y[:, :] = v", "PTO sorts rows of at most 2048 elements (TSORT32's blocks of 32 and three TMRGSORT passes), got 4096"),
    ("f32", 32, 400, 4, "f32", "v, i = htp.topk(t, 4); y[:, :] = v",
     "'pto.tmrgsort' op 'src' and 'dst' take 262144 bytes together; A2/A3's TMRGSORT needs them in 196608 (its UB)"),
    ("i8", 16, 64, 1, "i32", "y[:, :] = htp.argmax(t, axis=1)",
     "'pto.trowargmax' op element type 'i8' is not supported on A2/A3 (supported: f16, f32, i32, i16)"),
    ("i64", 16, 64, 1, "i32", "y[:, :] = htp.row_argmin(t)", "'pto.trowargmin' op element type 'i64' is not supported on A2/A3"),
    ("i8", 16, 64, 8, "i8", "y[:, :] = htp.gather(t, htp.zeros((16, 8), i32), axis=1)",
     "PTO gathers 16- and 32-bit elements (A2/A3's TGATHER), not i8"),
])
@pytest.mark.parametrize("target", [SIM, "pto-a2a3"])
def test_pto_refuses_what_a2a3_cannot_do(target, dtype, rows, cols, k, out, statement, text):
    """A2/A3's rules, at the user's line; the cpu runs the same kernels."""
    source = PTO_LIMITS
    for name, value in (("{T}", dtype), ("{R}", rows), ("{C}", cols), ("{K}", k), ("{O}", out), ("{STMT}", statement)):
        source = source.replace(name, str(value))
    kernel = kernel_from(source, "k")
    with pytest.raises(htp.CompileError) as info:
        kernel.compile(target)
    message = str(info.value)
    assert text in message, message
    assert_points_at(info.value, ".py", 7)
    kernel.compile("cpu")


@pytest.mark.parametrize("out, k, statement", [
    ("i32", 1, "y[:, :] = htp.argmax(t, axis=1)"),
    ("f32", 64, "y[:, :] = htp.sort(t)"),
    ("f32", 8, "v, i = htp.topk(t, 8); y[:, :] = v"),
])
def test_selection_runs_in_an_aie_core(out, k, statement):
    # Sorts and arg reductions are computed in a core's memory by the cpu's lowering of the block
    # (issue 28): the same numbers as the cpu, on aie-sim; the design builds for the NPUs.
    source = PTO_LIMITS
    for name, value in (("{T}", "f32"), ("{R}", 16), ("{C}", 64), ("{K}", k), ("{O}", out), ("{STMT}", statement)):
        source = source.replace(name, str(value))
    kernel = kernel_from(source, "k")
    x = np.random.default_rng(k).standard_normal((16, 64)).astype(np.float32)
    np.testing.assert_array_equal(kernel.compile("aie-sim")(x), kernel.compile("cpu")(x))
    assert {"aie-sim", "aie-npu1", "aie-npu2"} <= set(kernel.targets())


CHECKED_GATHER = """import htp
from htp import f32, i32

@htp.kernel
def k(x: htp.Tensor[f32, 16, 64], j: htp.Tensor[i32, 16, 8], y: htp.Out[f32, 16, 8]):
    t = x[:, :]
    y[:, :] = htp.gather(t, j[:, :], axis=1)
"""


CHECKED_GATHER_BLOCKS = """import htp
from htp import f32, i32

@htp.kernel
def k(x: htp.Tensor[f32, "N", 64], j: htp.Tensor[i32, "N", 8], y: htp.Out[f32, "N", 8]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.gather(x[i:i + 16, :], j[i:i + 16, :], axis=1)
"""


@pytest.mark.parametrize("source, rows, line", [(CHECKED_GATHER, 16, 7), (CHECKED_GATHER_BLOCKS, 16 * 13 + 5, 7)])
def test_a_checked_gather_on_aie_sim_reports_a_bad_index_as_the_cpu_does(source, rows, line):
    # Indices known only at run time are checked in the core; a failed check is stored in the
    # block's status word (D96), which the host reads after the run: the same IndexError at the
    # user's line as on the cpu, whichever block (and core) saw it. Good indices match numpy.
    kernel = kernel_from(source, "k")
    gen = np.random.default_rng(96)
    x = gen.standard_normal((rows, 64)).astype(np.float32)
    index = gen.integers(0, 64, size=(rows, 8)).astype(np.int32)
    sim = kernel.compile("aie-sim")
    np.testing.assert_array_equal(sim(x, index), np.take_along_axis(x, index, 1))
    for row, value in ((rows - 1, 64), (rows // 2, -1), (0, 1 << 20)):
        bad = index.copy()
        bad[row, 3] = value
        with pytest.raises(IndexError) as on_aie:
            sim(x, bad)
        with pytest.raises(IndexError) as on_cpu:
            kernel.compile("cpu")(x, bad)
        assert str(on_aie.value) == str(on_cpu.value)
        assert re.match(rf".*\.py:{line}:\d+: error: index out of bounds", str(on_aie.value)), str(on_aie.value)
    # The status is cleared for every block: a good call after a bad one is clean.
    np.testing.assert_array_equal(sim(x, index), np.take_along_axis(x, index, 1))


def test_a_checked_gather_design_has_a_status_output_the_host_program_reads(tmp_path):
    from test_aie import assert_host_compiles
    import json
    # (the NPU targets take sizes as compile-time constants)
    source = CHECKED_GATHER_BLOCKS.replace('y: htp.Out[f32, "N", 8]):', 'y: htp.Out[f32, "N", 8], N: htp.Const[int] = 64):')
    kernel = kernel_from(source, "k")
    compiled = kernel.compile("aie-npu1", N=16 * 13 + 5)
    design = compiled.ir["aie"]
    # One i32 a block, joined in the memtile and sent back as the outputs are; no call of the
    # cpu's runtime is left in the cores.
    assert "aie.objectfifo @htp_status" in design and "htpRuntimeError" not in design, design
    root = compiled.write_package(str(tmp_path / "k"))
    manifest = json.load(open(os.path.join(root, "manifest.json")))
    assert manifest["status"]["words"] >= 14 and len(manifest["status"]["sites"]) == 1
    assert "index out of bounds" in manifest["status"]["sites"][0] and ".py:7:" in manifest["status"]["sites"][0]
    host = open(os.path.join(root, "test.cpp")).read()
    assert "htp_status_sites[]" in host and "index out of bounds" in host
    assert_host_compiles(tmp_path, os.path.join(root, "test.cpp"))
