"""WSP on the cpu keeps the call rules of kernels (issue 26): a task receives
exactly the elements of its view at their strides — nothing around a view
is read or written, checked byte for byte around every view shape the
language allows —, a workload never writes its caller's inputs, the arrays
that shape ragged and sparse axes are checked at the call, and a block past
the end of a tensor is empty, as a Python slice is."""

import itertools

import numpy as np
import pytest

import htp
from htp import f32, i32, i64

wsp = htp.model("wsp")


@htp.kernel
def fill(y: htp.Out[f32, 16, 32], v: f32):
    y[:, :] = htp.full((16, 32), v, f32)


@htp.kernel
def add_one(x: htp.Tensor[f32, 16, 32], y: htp.Out[f32, 16, 32]):
    y[:, :] = x[:, :] + 1.0


@htp.kernel
def double_in_place(y: htp.InOut[f32, 16, 32]):
    y[:, :] = y[:, :] * 2.0


@htp.kernel
def add_one_column(x: htp.Tensor[f32, 16, 1], y: htp.Out[f32, 16, 1]):
    y[:, :] = x[:, :] + 1.0


@wsp.workload
def fill_block(y: htp.Out[f32, "N", "M"], r0: i64, c0: i64, v: f32):
    for _ in wsp.parallel(1):
        wsp.task(fill, y[r0:r0 + 16, c0:c0 + 32], v)


@wsp.workload
def add_one_block(x: htp.Tensor[f32, "N", "M"], y: htp.Out[f32, "N", "M"], r0: i64, c0: i64):
    for _ in wsp.parallel(1):
        wsp.task(add_one, x[r0:r0 + 16, c0:c0 + 32], y[r0:r0 + 16, c0:c0 + 32])


@wsp.workload
def double_block(y: htp.InOut[f32, "N", "M"], r0: i64, c0: i64):
    for _ in wsp.parallel(1):
        wsp.task(double_in_place, y[r0:r0 + 16, c0:c0 + 32])


@wsp.workload
def add_one_to_columns(x: htp.Tensor[f32, 16, "M"], y: htp.Out[f32, 16, "M"]):
    # Each column its own task: a view whose elements are a whole row apart.
    for j in wsp.parallel(x.shape[1]):
        wsp.task(add_one_column, x[:, j:j + 1], y[:, j:j + 1])


@wsp.workload
def fill_column_blocks(y: htp.Out[f32, 16, "M"]):
    # Every 32-column block of a 16-row array, each its own task.
    for j in wsp.parallel(y.shape[1] // 32):
        wsp.task(fill, y[:, j * 32:j * 32 + 32], htp.cast(j, f32) + 1.0)


# (rows, columns) of the array, (r0, c0) of the 16 x 32 view: blocks of columns, of rows, whole rows, the whole array.
BLOCKS = [((16, 64), (0, 32)), ((16, 64), (0, 0)), ((32, 64), (16, 8)), ((40, 33), (3, 1)), ((16, 32), (0, 0)),
          ((32, 32), (16, 0)), ((20, 96), (4, 64))]
IDS = [f"{n}x{m}@{r},{c}" for (n, m), (r, c) in BLOCKS]


@pytest.mark.parametrize("shape, at", BLOCKS, ids=IDS)
def test_a_task_writes_exactly_its_view(shape, at):
    (r0, c0) = at
    y = np.full(shape, -7.0, np.float32)
    expected = y.copy()
    expected[r0:r0 + 16, c0:c0 + 32] = 2.0
    fill_block(y, r0, c0, 2.0)
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize("shape, at", BLOCKS, ids=IDS)
def test_a_task_reads_exactly_its_view(shape, at):
    (r0, c0) = at
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    y = np.full_like(x, -7.0)
    expected = y.copy()
    expected[r0:r0 + 16, c0:c0 + 32] = x[r0:r0 + 16, c0:c0 + 32] + 1.0
    add_one_block(x, y, r0, c0)
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize("shape, at", BLOCKS, ids=IDS)
def test_an_in_place_task_updates_exactly_its_view(shape, at):
    (r0, c0) = at
    y = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    expected = y.copy()
    expected[r0:r0 + 16, c0:c0 + 32] *= 2.0
    double_block(y, r0, c0)
    np.testing.assert_array_equal(y, expected)


def test_column_views():
    x = np.arange(16 * 24, dtype=np.float32).reshape(16, 24)
    y = np.full_like(x, -1.0)
    add_one_to_columns(x, y)
    np.testing.assert_array_equal(y, x + 1.0)


@pytest.mark.parametrize("policy", ["round_robin", "work_stealing", "dynamic"])
def test_column_blocks_side_by_side_under_every_policy(policy):
    y = np.zeros((16, 256), np.float32)
    wsp.schedule(fill_column_blocks, dispatch=policy, workers=2)(y)
    expected = np.repeat(np.arange(1, 9, dtype=np.float32), 32)[None, :].repeat(16, axis=0)
    np.testing.assert_array_equal(y, expected)


@htp.kernel
def add_one_8x16(x: htp.Tensor[f32, 8, 16], y: htp.Out[f32, 8, 16]):
    y[:, :] = x[:, :] + 1.0


@wsp.workload
def add_one_3d_block(x: htp.Tensor[f32, 4, 16, 32], y: htp.Out[f32, 4, 16, 32], a0: i64, r0: i64, c0: i64):
    # A 2-D view of each of two 16 x 32 planes: the leading index dropped.
    for a in wsp.parallel(2):
        wsp.task(add_one_8x16, x[a0 + a, r0:r0 + 8, c0:c0 + 16], y[a0 + a, r0:r0 + 8, c0:c0 + 16])


@pytest.mark.parametrize("at", [(0, 0, 0), (1, 0, 0), (2, 8, 0), (0, 4, 16), (1, 3, 5)], ids=lambda b: ",".join(map(str, b)))
def test_three_dimensional_views(at):
    a0, r0, c0 = at
    x = np.arange(4 * 16 * 32, dtype=np.float32).reshape(4, 16, 32)
    y = np.full_like(x, -1.0)
    expected = y.copy()
    expected[a0:a0 + 2, r0:r0 + 8, c0:c0 + 16] = x[a0:a0 + 2, r0:r0 + 8, c0:c0 + 16] + 1.0
    add_one_3d_block(x, y, a0, r0, c0)
    np.testing.assert_array_equal(y, expected)


# ------------------------------------------------------------------ call rules

def test_a_task_writing_a_workload_input_is_a_compile_error():
    @wsp.workload
    def writes_its_input(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
        for i in wsp.parallel(x.shape[0] // 16):
            wsp.task(fill, x[i * 16:i * 16 + 16, 0:32], 1.0)  # the input x, as an output
    x = np.zeros((32, 64), np.float32)
    with pytest.raises(htp.CompileError) as info:
        writes_its_input(x, np.zeros_like(x))
    message = str(info.value)
    assert "a workload never writes its caller's inputs" in message and "htp.InOut" in message, message
    assert "test_wsp_call_rules.py:" in message and "wsp.task(fill, x" in message, message
    assert not x.any()


def test_a_task_writing_an_in_out_parameter_is_fine():
    y = np.ones((32, 64), np.float32)
    double_block(y, 16, 32)
    assert (y[16:, 32:] == 2.0).all() and (y[:16] == 1.0).all() and (y[:, :32] == 1.0).all()


@htp.kernel
def copy_rows(x: htp.Tensor[f32, "R", 64], y: htp.Out[f32, "R", 64]):
    for r in range(0, x.shape[0], 16):
        y[r:r + 16, :] = x[r:r + 16, :]


@wsp.workload
def ragged_copy(x: htp.Tensor[f32, "N", 64], lens: htp.Tensor[i32, "L"], y: htp.Out[f32, "N", 64], b: i64):
    for r, j in wsp.parallel(wsp.ragged(b, lens)):
        wsp.task(copy_rows, x[(r * 4 + j) * 16:(r * 4 + j) * 16 + 16, :], y[(r * 4 + j) * 16:(r * 4 + j) * 16 + 16, :])


@wsp.workload
def csr_copy(x: htp.Tensor[f32, "N", 64], indptr: htp.Tensor[i32, "P"], indices: htp.Tensor[i32, "Z"], y: htp.Out[f32, "N", 64], rows: i64):
    for r, col in wsp.parallel(wsp.sparse(rows, indptr, indices)):
        wsp.task(copy_rows, x[col * 16:col * 16 + 16, :], y[(r * 4 + col) * 16:(r * 4 + col) * 16 + 16, :])


def test_ragged_lengths_shorter_than_the_axis_are_an_error_naming_the_array():
    x = np.zeros((16 * 16, 64), np.float32)
    with pytest.raises(IndexError) as info:
        ragged_copy(x, np.array([1, 2], np.int32), np.zeros_like(x), 3)
    message = str(info.value)
    assert "'lens'" in message and "3 rows" in message and "row 2" in message, message
    assert "test_wsp_call_rules.py:" in message


def test_a_negative_ragged_length_is_an_error_naming_the_array_and_index():
    x = np.zeros((16 * 16, 64), np.float32)
    with pytest.raises(IndexError) as info:
        ragged_copy(x, np.array([1, -2, 1], np.int32), np.zeros_like(x), 3)
    message = str(info.value)
    assert "'lens'" in message and "-2 at index 1" in message, message


def test_a_ragged_length_past_the_tensor_is_an_error_at_the_view():
    x = np.zeros((16 * 16, 64), np.float32)
    with pytest.raises(IndexError) as info:
        ragged_copy(x, np.array([1, 20, 1], np.int32), np.zeros_like(x), 3)
    assert "outside it" in str(info.value), str(info.value)


@pytest.mark.parametrize("indptr, indices, want", [
    ([0, 1], [0], "needs 3 entries: no entry 2"),
    ([0, 2, 1], [0, 1], "less than the entry before it"),
    ([0, 1, 5], [0, 1], "past the end of the indices 'indices'"),
    ([0, 1, 2], [0, -1], "-1 at index 1"),
])
def test_bad_csr_arrays_are_errors_naming_the_array(indptr, indices, want):
    x = np.zeros((16 * 16, 64), np.float32)
    with pytest.raises(IndexError) as info:
        csr_copy(x, np.array(indptr, np.int32), np.array(indices, np.int32), np.zeros_like(x), 2)
    assert want in str(info.value), str(info.value)


def test_valid_ragged_and_csr_axes_still_run():
    x = np.arange(16 * 16 * 64, dtype=np.float32).reshape(256, 64)
    y = np.zeros_like(x)
    ragged_copy(x, np.array([1, 0, 3], np.int32), y, 3)
    for r, n in enumerate([1, 0, 3]):
        for j in range(n):
            s = (r * 4 + j) * 16
            np.testing.assert_array_equal(y[s:s + 16], x[s:s + 16])
    assert not y[16:32].any()


@htp.kernel
def add_one_rows(x: htp.Tensor[f32, "R", 64], y: htp.Out[f32, "R", 64]):
    for r in range(0, x.shape[0], 16):
        y[r:r + 16, :] = x[r:r + 16, :] + 1.0


@wsp.workload
def blocks_of_sixteen(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], blocks: i64):
    for i in wsp.parallel(blocks):
        wsp.task(add_one_rows, x[i * 16:i * 16 + 16, :], y[i * 16:i * 16 + 16, :])


def test_a_ragged_last_block_is_clipped_and_a_block_at_the_end_is_empty():
    # 48 rows in blocks of 16 with one block too many: block 3 starts at the end (as a Python slice: empty).
    x = np.arange(48 * 64, dtype=np.float32).reshape(48, 64)
    y = np.full_like(x, -1.0)
    blocks_of_sixteen(x, y, 4)
    np.testing.assert_array_equal(y, x + 1.0)
    # 40 rows: block 2 has 8 rows.
    x = x[:40].copy()
    y = np.full_like(x, -1.0)
    blocks_of_sixteen(x, y, 3)
    np.testing.assert_array_equal(y, x + 1.0)


def test_a_block_starting_past_the_end_is_an_error_naming_the_tensor():
    x = np.zeros((40, 64), np.float32)
    with pytest.raises(IndexError) as info:
        blocks_of_sixteen(x, np.zeros_like(x), 4)
    message = str(info.value)
    assert "starts at 48 in dimension 0 of 'x', which has 40" in message and "test_wsp_call_rules.py:" in message, message


@wsp.workload
def reads_one(y: htp.Out[f32, 16, 32], lens: htp.Tensor[i32, "B"], b: i64):
    for _ in wsp.parallel(wsp.read(lens, b)):
        wsp.task(fill, y[:, :], 1.0)


def test_a_read_past_a_one_dimensional_tensor_names_its_only_dimension():
    with pytest.raises(IndexError) as info:
        reads_one(np.zeros((16, 32), np.float32), np.array([1, 2], np.int32), 5)
    message = str(info.value)
    assert "index 5 is outside dimension 0 of 'lens' (size 2)" in message and "test_wsp_call_rules.py:" in message, message


# --- a failing task names itself (D45) ----------------------------------------------------------

@htp.kernel
def pick_rows(x: htp.Tensor[f32, "N", 32], idx: htp.Tensor[i32, 16, 1], y: htp.Out[f32, 16, 32]):
    y[:, :] = htp.gather(x, idx[:, :], 0, 32)


@wsp.workload
def pick_blocks(x: htp.Tensor[f32, "N", 32], idx: htp.Tensor[i32, "B", 16, 1], y: htp.Out[f32, "B", 16, 32]):
    for b in wsp.parallel(idx.shape[0]):
        wsp.task(pick_rows, x, idx[b, :, :], y[b, :, :])


def test_a_failing_task_is_named_with_its_line_and_keys():
    # Issue 26: the error named the kernel's line only, not which task (of many) failed.
    import inspect
    x = np.ones((32, 32), np.float32)
    idx = np.zeros((4, 16, 1), np.int32)
    idx[2, 5, 0] = 99  # past the 32 rows of x, in the task of b = 2
    with pytest.raises(IndexError) as info:
        pick_blocks(x, idx, np.zeros((4, 16, 32), np.float32))
    source, first = inspect.getsourcelines(pick_blocks.function)
    task_line = first + next(i for i, line in enumerate(source) if "wsp.task(" in line)
    message = str(info.value)
    assert "index out of bounds" in message, message
    assert f"test_wsp_call_rules.py:{task_line}:9: note: in the task pick_rows[2]" in message, message
