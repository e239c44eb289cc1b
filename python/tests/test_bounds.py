"""No index, slice or loop a user writes makes a CPU kernel read or write
outside the numpy arrays it was given: an out-of-bounds tile access raises
an IndexError naming the kernel's line, and nothing outside the array
changes."""

import inspect
import traceback

import numpy as np
import pytest

import htp
from htp import f32


@htp.kernel
def past_end(x: htp.Tensor[f32, 16, 16], out: htp.Out[f32, 16, 16]):
    for i in range(0, 64, 8):
        out[i:i + 8, :] = x[0:8, :]


@htp.kernel
def before_start(x: htp.Tensor[f32, "N", 16], out: htp.Out[f32, "N", 16]):
    for i in range(-8, x.shape[0], 8):
        out[i:i + 8, :] = x[0:8, :]


@htp.kernel
def constant_row(x: htp.Tensor[f32, 16, 16], out: htp.Out[f32, 16, 16]):
    out[20, :] = x[0, :]


@htp.kernel
def read_past_end(x: htp.Tensor[f32, "N", 16], out: htp.Out[f32, 8, 16], k: htp.i64):
    out[0:8, :] = x[k:k + 8, :]


@htp.kernel
def ragged_copy(x: htp.Tensor[f32, "N", 16], y: htp.Out[f32, "M", 16]):
    for i in range(0, x.shape[0], 8):
        y[i:i + 8, :] = x[i:i + 8, :]


@htp.kernel
def in_place(x: htp.InOut[f32, 8, 16]):
    x[0:4, :] = x[0:4, :] * 2.0


def guarded(rows, cols):
    """An output view with canaries before and after it."""
    buffer = np.full(rows * cols + 512, 7.0, np.float32)
    return buffer, buffer[256:256 + rows * cols].reshape(rows, cols)


def line_of(kernel, text):
    lines, first = inspect.getsourcelines(kernel.function)
    return first + next(i for i, l in enumerate(lines) if text in l)


@pytest.mark.parametrize(
    "kernel,args,line",
    [
        (past_end, lambda out: (np.ones((16, 16), np.float32), out), "out[i:i + 8, :]"),
        (before_start, lambda out: (np.ones((16, 16), np.float32), out), "out[i:i + 8, :]"),
        (constant_row, lambda out: (np.ones((16, 16), np.float32), out), "out[20, :]"),
    ],
)
def test_out_of_bounds_stores_raise_and_write_nothing_outside(kernel, args, line):
    buffer, out = guarded(16, 16)
    with pytest.raises(IndexError) as error:
        kernel(*args(out))
    assert f"test_bounds.py:{line_of(kernel, line)}:" in str(error.value)
    assert "index out of bounds" in str(error.value)
    assert np.all(buffer[:256] == 7.0) and np.all(buffer[256 + 256:] == 7.0)
    frames = [f for f in traceback.extract_tb(error.value.__traceback__) if "/htp/" in f.filename]
    assert len(frames) <= 1


def test_out_of_bounds_loads_raise():
    x = np.ones((20, 16), np.float32)
    np.testing.assert_array_equal(read_past_end(x, k=12), x[12:20])
    # A slice of a symbolic dimension is ragged at the end (7 rows here), as
    # the language defines; starting past the end is out of bounds.
    np.testing.assert_array_equal(read_past_end(x, k=13)[:7], x[13:20])
    with pytest.raises(IndexError, match="index out of bounds"):
        read_past_end(x, k=21)
    with pytest.raises(IndexError, match="index out of bounds"):
        read_past_end(x, k=-1)


def test_a_shorter_output_is_caught_for_ragged_tiles():
    x = np.arange(20 * 16, dtype=np.float32).reshape(20, 16)
    buffer, y = guarded(12, 16)
    with pytest.raises(IndexError):
        ragged_copy(x, y)
    assert np.all(buffer[:256] == 7.0) and np.all(buffer[256 + 12 * 16:] == 7.0)


def test_legal_ragged_accesses_are_not_flagged():
    x = np.arange(21 * 16, dtype=np.float32).reshape(21, 16)
    y = np.zeros((21, 16), np.float32)
    ragged_copy(x, y)
    np.testing.assert_array_equal(y, x)


def test_a_region_copied_onto_itself():
    x = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    expected = x.copy()
    expected[0:4] *= 2
    in_place(x)
    np.testing.assert_array_equal(x, expected)


@htp.kernel
def divide_rows(x: htp.Tensor[f32, "N", 16], out: htp.Out[f32, "N", 16], d: htp.i64):
    for j in range(0, x.shape[0], 8):
        q = x.shape[0] // d + j % d
        out[j:j + 8, :] = x[j:j + 8, :] * htp.f32(q)


def test_integer_division_by_zero_raises_instead_of_killing_the_process():
    x = np.ones((16, 16), np.float32)
    np.testing.assert_array_equal(divide_rows(x, d=4)[0], np.full(16, 4.0, np.float32))
    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero") as error:
        divide_rows(x, d=0)
    assert f"test_bounds.py:{line_of(divide_rows, 'q = x.shape[0] // d')}:" in str(error.value)


@htp.kernel
def to_ints(x: htp.Tensor[f32, 1, 8], a: htp.Out[htp.i32, 1, 8], c: htp.Out[htp.i8, 1, 8]):
    t = x[:, :]
    a[:, :] = htp.cast(t, htp.i32)
    c[:, :] = htp.cast(t, htp.i8)


def test_float_to_int_casts_saturate_and_are_deterministic():
    x = np.array([[np.inf, -np.inf, np.nan, 1e30, -1e30, 3.7, -3.7, 200.0]], np.float32)
    a, c = to_ints(x)
    # Out of range saturates (the largest f32 below 2^31 for i32), NaN is 0, the rest truncates.
    assert a.tolist() == [[2147483520, -2147483648, 0, 2147483520, -2147483648, 3, -3, 200]]
    assert c.tolist() == [[127, -128, 0, 127, -128, 3, -3, 127]]
    assert [r.tolist() for r in to_ints(x)] == [a.tolist(), c.tolist()]


@htp.kernel
def gather_rows(x: htp.Tensor[f32, 16, 16], rows: htp.Tensor[htp.i32, 16, 1], out: htp.Out[f32, 16, 16]):
    out[:, :] = htp.gather(x, rows[:, :], 0, 16)


def test_gather_indices_outside_the_source_raise():
    x = np.arange(256, dtype=np.float32).reshape(16, 16)
    rows = np.arange(16, dtype=np.int32)[::-1].copy().reshape(16, 1)
    np.testing.assert_array_equal(gather_rows(x, rows), x[::-1])
    rows[3, 0] = 1000000
    with pytest.raises(IndexError, match="index out of bounds"):
        gather_rows(x, rows)


@htp.kernel
def tile_quotient(x: htp.Tensor[htp.i32, 16, 8], y: htp.Tensor[htp.i32, 16, 8], z: htp.Out[htp.i32, 16, 8]):
    z[:, :] = x[:, :] / y[:, :]


def test_integer_tile_division_never_traps():
    # A zero divisor and INT_MIN / -1 trap x86's idiv (SIGFPE, the fuzz found it): defined instead.
    x = np.array([[7, -7, 0, 5, -2147483648, 9, 3, -3]] * 16, np.int32)
    y = np.array([[2, 2, 0, 0, -1, -2, 1, 0]] * 16, np.int32)
    expected = np.array([3, -3, 0, 0, -2147483648, -4, 3, 0], np.int32)
    np.testing.assert_array_equal(tile_quotient(x, y), np.broadcast_to(expected, (16, 8)))


@htp.kernel
def stepped(x: htp.Tensor[htp.f32, "N", 64], y: htp.Out[htp.f32, "N", 64], step: htp.i32):
    for i in range(0, x.shape[0], step):
        y[i:i + 1, :] = x[i:i + 1, :] + 1.0


def test_a_run_time_step_that_is_not_positive_raises_instead_of_looping_forever():
    x = np.zeros((8, 64), np.float32)
    np.testing.assert_array_equal(stepped(x, None, 1), x + 1.0)
    for step in (0, -2):
        with pytest.raises(ValueError, match=r"test_bounds.py:\d+:\d+: error: range\(\) step must be positive"):
            stepped(x, None, step)


@htp.kernel
def row_by_row(q: htp.Tensor[f32, "B", 64], y: htp.Out[f32, "B", 64], first: htp.i32):
    for b in range(first, q.shape[0]):
        # A block of one row of a symbolic dimension is that row, full (as q[b, :] is): it
        # meets a full mask without padding.
        t = q[b:b + 1, :]
        y[b:b + 1, :] = htp.where(htp.iota((1, 64), 1) < 32, t, t * 2.0)


def test_a_block_of_one_along_a_symbolic_dimension_is_full_and_checked():
    q = np.random.default_rng(0).standard_normal((5, 64)).astype(np.float32)
    expected = np.concatenate([q[:, :32], q[:, 32:] * 2], axis=1)
    np.testing.assert_array_equal(row_by_row(q, first=0), expected)
    # Its start is assumed inside the dimension, as an index's is; the cpu checks it.
    with pytest.raises(IndexError, match="index out of bounds"):
        row_by_row.compile("cpu")(q, np.zeros_like(q), first=-1)
