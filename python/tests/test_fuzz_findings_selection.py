"""What the fuzzer's reference programs (python/fuzz/gen_ref.py: tile slices, steps, joins,
reshapes, selection, scatter, activations and scalar reads, with numpy's values) found on
2026-11-28 (docs/validation.md, "Fuzzing issue 30's constructs"), each minimised, against
numpy on the cpu and on pto-a2a3sim (skipped, visibly, without the simulator), or the
refusal at the user's line where PTO cannot do it:

- every other row of a rank-3 tensor whose last dimension is 1 (`x[b, i:i + 8:2, :]` of a
  `[B, N, 1]` tensor): MLIR's canonicalizer turned the CPU's rank-reducing strided subview into
  an invalid `memref.cast`;
- every other row of a 16-row tensor in a loop of one trip (`y[i + 1:i + 16:2, :] = ...`):
  the CPU's store-in-place rewrite typed the view as the static stored tile (a verifier error);
- constant tiles of a tile whose valid rows come from a reduction or a selection
  (`htp.full_like(htp.argmax(t, axis=1), 3)`, `htp.scatter(v, j, 0.5, axis=1)` with `j` from
  `htp.topk`): "cannot make a tile from a scalar", as the run-time valid rows were traced through
  elementwise ops only;
- a mask stored into a bool tensor of rank 3 with a run-time dimension: PTO's C++ named the
  tensor's shape descriptor after the byte pointer it was seen as, and did not compile;
- one column at an unaligned column of a tile of fewer rows than a 32-byte block, or ragged
  (`t[:, 5:6]` of a 4-row f16 tile): PTO extracted a whole block of rows from the tile;
- a mask cast to numbers (`(t != -2).astype(f16)`) on PTO: a TCVT of its packed bits, which
  did not verify; now a TSEL of ones and zeros, then the TCVTs (as a mask is stored);
- `htp.pad` of a mask on PTO: an internal error (an invalid packed-mask type), now the refusal
  at the line, as for the other shape operations of masks; and PTO's refusal to store a
  one-column mask into a bool tensor, at the store."""

import os
import sys
from unittest import mock

import numpy as np
import pytest

import conformance as c
import htp
from htp import f16, f32, i16, i32
from htp.pto import runtime as pto_runtime
from simulators import on_a2a3sim
from sources import kernel_from
from test_errors import refused

SIM = "pto-a2a3sim"
TARGETS = ["cpu", pytest.param(SIM, marks=on_a2a3sim)]
PRELUDE = "import htp\nfrom htp import f32, f16, i32, i16\n"


run = c.run_on


# ---------------------------------------------------------------------------
# every other row of a [B, N, 1] tensor

@htp.kernel
def every_other_row(x: htp.Tensor[f32, "B", "N", 1], y: htp.Out[f32, "B", "N", 1]):
    for b in range(x.shape[0]):
        for i in range(0, x.shape[1], 8):
            y[b, i:i + 8:2, :] = x[b, i + 1:i + 8:2, :] * 2.0


@pytest.mark.parametrize("target", TARGETS)
def test_every_other_row_of_a_tensor_of_one_column(target):
    x = np.random.default_rng(0).standard_normal((2, 21, 1)).astype(np.float32)
    y = np.full_like(x, 7.0)
    expected = y.copy()
    for i in range(0, 21, 8):
        got = x[:, i + 1:i + 8:2] * 2.0  # rows i+1, i+3, ... that exist
        expected[:, i:i + 8:2][:, :got.shape[1]] = got
    run(every_other_row, target, x, y)
    np.testing.assert_array_equal(y, expected)


@htp.kernel
def odd_rows_of_one_block(x: htp.Tensor[f32, 16, 16], y: htp.Out[f32, 16, 16]):
    for i in range(0, x.shape[0], 16):
        y[i + 1:i + 16:2, :] = htp.tanh(x[i + 1:i + 16:2, :])


@pytest.mark.parametrize("target", TARGETS)
def test_every_other_row_of_a_block_a_loop_of_one_trip_stores(target):
    # One trip: the canonicalizer made the stored tile static (8x16) and left the view dynamic
    # (?x16); the cpu's store-in-place rewrite gave bufferization.to_tensor mismatched types.
    x = np.random.default_rng(6).standard_normal((16, 16)).astype(np.float32)
    y = np.full_like(x, 3.0)
    expected = y.copy()
    expected[1::2] = np.tanh(x[1::2])
    run(odd_rows_of_one_block, target, x, y)
    np.testing.assert_allclose(y, expected, rtol=4e-5, atol=4e-5)


# ---------------------------------------------------------------------------
# constant tiles of the valid rows of a reduction or a selection

@htp.kernel
def fills(x: htp.Tensor[f32, "N", 64], m: htp.Out[f32, "N", 1], a: htp.Out[i32, "N", 1],
          s: htp.Out[f32, "N", 8], v: htp.Out[f32, "N", 4]):
    for i in range(0, x.shape[0], 8):
        t = x[i:i + 8, :]
        m[i:i + 8, :] = htp.full_like(htp.row_max(t), 2.0) * htp.row_max(t)
        j = htp.argmax(t, axis=1)
        a[i:i + 8, :] = htp.full_like(j, 3) + j
        u = t[:, 0:8]
        s[i:i + 8, :] = htp.scatter(u, htp.argmin(u, axis=1), -1.0, axis=1)
        top, where = htp.topk(t, 4)
        v[i:i + 8, :] = htp.scatter(htp.zeros_like(top), htp.zeros_like(where), 0.5, axis=1) + top


@pytest.mark.parametrize("target", TARGETS)
def test_constant_tiles_of_the_valid_rows_of_a_reduction_or_selection(target):
    x = np.random.default_rng(1).standard_normal((21, 64)).astype(np.float32)  # a ragged block of 5 rows
    m, a, s, v = run(fills, target, x)
    np.testing.assert_allclose(m[:, 0], 2.0 * x.max(axis=1), rtol=1e-6)
    np.testing.assert_array_equal(a[:, 0], np.argmax(x, axis=1) + 3)
    expected = x[:, 0:8].copy()
    expected[np.arange(21), np.argmin(expected, axis=1)] = -1.0
    np.testing.assert_array_equal(s, expected)
    top = -np.sort(-x, axis=1)[:, :4]
    top[:, 0] += 0.5
    np.testing.assert_allclose(v, top, rtol=1e-6)


# ---------------------------------------------------------------------------
# a mask into a bool tensor of rank 3

@htp.kernel
def mask_rank_3(x: htp.Tensor[i16, "B", "N", 32], y: htp.Out[htp.bool_, "B", "N", 32]):
    for b in range(x.shape[0]):
        for i in range(0, x.shape[1], 8):
            y[b, i:i + 8, :] = x[b, i:i + 8, :] >= 1


@pytest.mark.parametrize("target", TARGETS)
def test_a_mask_into_a_bool_tensor_of_rank_3(target):
    x = np.random.default_rng(2).integers(-3, 4, (2, 21, 32)).astype(np.int16)
    np.testing.assert_array_equal(run(mask_rank_3, target, x), x >= 1)


# ---------------------------------------------------------------------------
# one column of a few-row (or ragged) tile at an unaligned column

COLUMN = PRELUDE + '''
@htp.kernel
def column(x: htp.Tensor[{T}, "N", {C}], y: htp.Out[{T}, "N", 1]):
    for i in range(0, x.shape[0], {R}):
        t = x[i:i + {R}, :]
        y[i:i + {R}, :] = t[:, {A}:{A} + 1] + t[:, {A}:{A} + 1]
'''

COLUMN_CASES = [("f32", 3, 2, 1), ("f32", 16, 4, 5), ("f32", 20, 8, 2), ("f16", 16, 4, 5), ("f16", 20, 8, 1),
                ("f16", 16, 16, 3), ("f32", 16, 1, 7)]
#: The ones the simulator runs too (each compiles a package).
COLUMN_SIM = [("f32", 3, 2, 1), ("f16", 16, 4, 5), ("f16", 20, 8, 1)]


@pytest.mark.parametrize("target, dtype, cols, rows, col", [("cpu", *case) for case in COLUMN_CASES]
                         + [pytest.param(SIM, *case, marks=on_a2a3sim) for case in COLUMN_SIM])
def test_one_column_of_a_few_row_tile(target, dtype, cols, rows, col):
    x = (np.random.default_rng(cols + rows).standard_normal((19, cols)) * 4).astype(c.NUMPY[dtype])
    kernel = kernel_from(COLUMN.format(T=dtype, C=cols, R=rows, A=col), "column")
    np.testing.assert_array_equal(run(kernel, target, x)[:, 0], x[:, col] + x[:, col])


# ---------------------------------------------------------------------------
# a mask as numbers

MASK_CAST = PRELUDE + '''
@htp.kernel
def as_numbers(w: htp.Tensor[i32, "N", 32], y: htp.Out[{T}, "N", 32]):
    for i in range(0, w.shape[0], 16):
        y[i:i + 16, :] = (w[i:i + 16, :] != -2).astype({T}) + htp.cast(w[i:i + 16, :] > 0, {T})
'''


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", ["f32", "i16"])
def test_a_mask_as_numbers(target, dtype):
    w = np.random.default_rng(5).integers(-3, 3, (37, 32)).astype(np.int32)
    kernel = kernel_from(MASK_CAST.format(T=dtype), "as_numbers")
    expected = (w != -2).astype(c.NUMPY[dtype]) + (w > 0).astype(c.NUMPY[dtype])
    np.testing.assert_array_equal(run(kernel, target, w), expected)


# ---------------------------------------------------------------------------
# masks PTO holds as packed bits: a pad, a one-column store

PAD_MASK = PRELUDE + '''
@htp.kernel
def pad_mask(x: htp.Tensor[f32, "N", 16], y: htp.Out[f32, "N", 16]):
    for i in range(0, x.shape[0], 8):
        m = htp.pad(x[i:i + 8, :] > 0.0, True)
        y[i:i + 8, :] = htp.where(m, 1.0, -1.0)
'''

COLUMN_MASK = PRELUDE + '''
@htp.kernel
def column_mask(x: htp.Tensor[f32, "N", 16], y: htp.Out[htp.bool_, "N", 1]):
    for i in range(0, x.shape[0], 8):
        m = htp.row_max(x[i:i + 8, :]) > 1.0
        y[i:i + 8, :] = m
'''


def test_a_padded_mask_on_the_cpu():
    x = np.random.default_rng(3).standard_normal((21, 16)).astype(np.float32)
    y = kernel_from(PAD_MASK, "pad_mask")(x)
    np.testing.assert_array_equal(y, np.where(x > 0.0, 1.0, -1.0).astype(np.float32))


def test_a_one_column_mask_stored_on_the_cpu():
    x = np.random.default_rng(4).standard_normal((21, 16)).astype(np.float32)
    np.testing.assert_array_equal(kernel_from(COLUMN_MASK, "column_mask")(x)[:, 0], x.max(axis=1) > 1.0)


@pytest.mark.parametrize("target", ["pto-a2a3sim", "pto-a2a3"])
def test_pto_refuses_to_pad_a_mask_at_the_line(target):
    refused(kernel_from(PAD_MASK, "pad_mask"), target,
            "PTO holds a bool tile (a mask) as packed bits, which it cannot pad", "htp.pad")


@pytest.mark.parametrize("target", ["pto-a2a3sim", "pto-a2a3"])
def test_pto_refuses_to_store_a_one_column_mask_at_the_store(target):
    refused(kernel_from(COLUMN_MASK, "column_mask"), target,
            "PTO stores a mask to a bool tensor only from a tile of several columns", "y[i:i + 8, :] = m")


# ---------------------------------------------------------------------------
# the generator's own programs: numpy's values on the cpu, the documented refusals on PTO

FUZZ = os.path.join(os.path.dirname(__file__), "..", "fuzz")
sys.path.insert(0, os.path.abspath(FUZZ))
import gen_ref  # noqa: E402
import refops  # noqa: E402

sys.path.pop(0)


def program(seed, profile):
    """The module of a generated reference program."""
    import importlib.util
    import tempfile

    source, _ = gen_ref.generate(seed, profile)
    path = os.path.join(tempfile.mkdtemp(), f"ref_{profile}_{seed}.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location(f"ref_{profile}_{seed}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def outcome(module, target):
    """None when the compile for `target` does what the program's `__fuzz_expect__` says, else why not."""
    expect = module.__fuzz_expect__.get(target, [])
    try:
        compiled = module.__fuzz_compile__(target)
    except htp.CompileError as error:
        text = str(error)
        line = int(text.split(":")[1]) if text.startswith(module.__file__) else None
        if any(fragment in text and line == at for fragment, at in expect):
            return None, None
        if any(fragment in text for fragment in module.__fuzz_always_ok__.get(target, [])):
            return None, None
        return f"refused, not as documented: {text}", None
    if expect:
        return f"compiled, but the docs say it refuses: {expect}", None
    return None, compiled


def check_values(module, compiled, seed):
    given = module.__fuzz_inputs__(np.random.default_rng(seed))
    args = {name: np.array(array, copy=True) for name, array in given.items()}
    if compiled.target == SIM:
        with mock.patch.object(pto_runtime, "run_package", c.run_package_in_a_child):
            module.__fuzz_call__(compiled, args)
    else:
        module.__fuzz_call__(compiled, args)
    expected = module.__fuzz_reference__({name: array.copy() for name, array in given.items()})
    return refops.compare_outputs({name: args[name] for name in expected}, expected, module.__fuzz_tolerance__)


@pytest.mark.parametrize("seed", range(1, 41))
def test_generated_reference_programs_on_the_cpu(seed):
    module = program(seed, "any")
    problem, compiled = outcome(module, "cpu")
    assert problem is None, problem
    assert check_values(module, compiled, seed) is None


@pytest.mark.parametrize("seed", range(1, 41))
def test_generated_reference_programs_compile_for_pto_as_documented(seed):
    for profile in ("pto", "any"):
        module = program(seed, profile)
        for target in ("pto-a2a3sim", "pto-a2a3"):
            problem, _ = outcome(module, target)
            assert problem is None, f"{profile} profile, seed {seed}: {problem}"


@on_a2a3sim
def test_generated_reference_programs_on_the_simulator():
    """The first four pto-profile programs PTO packages (from seed 1), run on a2a3sim."""
    ran = 0
    for seed in range(1, 200):
        module = program(seed, "pto")
        problem, compiled = outcome(module, SIM)
        assert problem is None, f"seed {seed}: {problem}"
        if compiled is None:
            continue  # refused as documented
        assert check_values(module, compiled, seed) is None, f"seed {seed}"
        ran += 1
        if ran == 4:
            return
    pytest.fail("fewer than four of 200 pto-profile programs compile for a2a3sim")
