"""WSP workloads on the cpu (lib/htp-model-wsp): every construct, axis
kind, loop constructor and dispatch policy, run on htp-runtime's task
runtime and compared with numpy; the three workload examples; user
mistakes as diagnostics at their lines."""

import importlib.util
import json
import pathlib

import numpy as np
import pytest

import htp
from htp import f32, i32, i64

wsp = htp.model("wsp")

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "wsp"
POLICIES = ["round_robin", "affinity", "work_stealing", "dynamic"]


def load(name):
    spec = importlib.util.spec_from_file_location(f"htp_wsp_example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------- kernels

@htp.kernel
def scale_rows(x: htp.Tensor[f32, "R", 64], y: htp.Out[f32, "R", 64], s: f32):
    for r in range(0, x.shape[0], 16):
        y[r:r + 16, :] = x[r:r + 16, :] * s


@htp.kernel
def add_into(y: htp.Out[f32, "R", 64], v: f32):
    for r in range(0, y.shape[0], 16):
        y[r:r + 16, :] = y[r:r + 16, :] + v


@htp.kernel
def times_then_add(y: htp.Out[f32, 16, 64], m: f32, a: f32):
    y[:, :] = y[:, :] * m + a


@htp.kernel
def copy_block(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = x[:, :]


@htp.kernel
def put_index(y: htp.Out[f32, 1, 64], i: i64, j: i32):
    y[:, :] = htp.cast(i, f32) * 100.0 + htp.cast(j, f32)


@htp.kernel
def count_rows(flags: htp.Tensor[i32, 1, 64], counts: htp.Out[i32, 1, 1]):
    counts[:, :] = htp.cast(htp.row_sum(htp.cast(flags[:, :], f32)), i32)


@htp.func
def parity(i: i64) -> i64:
    return i % 2


# ---------------------------------------------------------------- workloads

@wsp.workload
def rows_scaled(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], s: f32):
    for i in wsp.parallel(wsp.dense((x.shape[0] + 15) // 16)):
        wsp.task(scale_rows, x[i * 16:i * 16 + 16, :], y[i * 16:i * 16 + 16, :], s)


@wsp.workload
def grid_of_indices(y: htp.Out[f32, "B", "H", 64]):
    for b, h in wsp.parallel(y.shape[0], y.shape[1]):
        wsp.task(put_index, y[b, h:h + 1, :], b, h)


@wsp.workload
def ragged_then_sequential(x: htp.Tensor[f32, "N", 64], lens: htp.Tensor[i32, "B"], y: htp.Out[f32, "N", 64]):
    for b, c in wsp.parallel(wsp.ragged(lens.shape[0], lens)):
        r = b * 64 + c * 16
        wsp.task(scale_rows, x[r:r + 16, :], y[r:r + 16, :], 3.0)
    for step in wsp.seq(4):
        for b in wsp.parallel(lens.shape[0]):
            wsp.task(times_then_add, y[b * 64:b * 64 + 16, :], 2.0, htp.f32(step))


@wsp.workload
def csr_copy(x: htp.Tensor[f32, "N", 64], indptr: htp.Tensor[i32, "P"], indices: htp.Tensor[i32, "Z"],
             y: htp.Out[f32, "M", 64]):
    # Row r of the CSR matrix copies block `col` of x to block (r * 4 + col) of y.
    for r, col in wsp.parallel(wsp.sparse(indptr.shape[0] - 1, indptr, indices)):
        wsp.task(copy_block, x[col * 16:col * 16 + 16, :], y[(r * 4 + col) * 16:(r * 4 + col) * 16 + 16, :])


@wsp.workload
def selected_and_guarded(flags: htp.Tensor[i32, "E", 64], counts: htp.Out[i32, "E", 1], y: htp.Out[f32, "E", 64]):
    for e in wsp.parallel(flags.shape[0]):
        wsp.task(count_rows, flags[e:e + 1, :], counts[e:e + 1, :])
    for e in wsp.select(flags.shape[0], counts):
        with wsp.when(wsp.element(counts, e, 0) > 2):
            wsp.task(add_into, y[e:e + 1, :], 1.0)


@wsp.workload
def sequential_chain(y: htp.Out[f32, 16, 64], n: i64):
    for step in wsp.seq(n):
        wsp.task(times_then_add, y[:, :], 2.0, 1.0)


@wsp.workload
def tasks_per_core(y: htp.Out[f32, "N", 64]):
    for i in wsp.parallel(wsp.cores()):
        wsp.task(put_index, y[i:i + 1, :], i, 0)


# ---------------------------------------------------------------- runs

@pytest.mark.parametrize("rows", [16, 40, 200])
def test_parallel_tasks_over_blocks_of_a_tensor(rows):
    x = np.random.default_rng(rows).standard_normal((rows, 64), dtype=np.float32)
    np.testing.assert_allclose(rows_scaled(x, s=np.float32(1.5)), 1.5 * x, rtol=1e-6)


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_runs_a_product_of_axes(policy):
    y = np.zeros((3, 5, 64), np.float32)
    wsp.schedule(grid_of_indices, dispatch=policy)(y)
    expected = np.arange(3)[:, None, None] * 100.0 + np.arange(5)[None, :, None]
    np.testing.assert_array_equal(y, np.broadcast_to(expected, y.shape))


def expected_ragged(x, lens):
    y = np.zeros_like(x)
    for b, n in enumerate(lens):
        y[b * 64:b * 64 + 16 * n] = 3 * x[b * 64:b * 64 + 16 * n]
    for step in range(4):
        for b in range(len(lens)):
            y[b * 64:b * 64 + 16] = y[b * 64:b * 64 + 16] * 2 + step
    return y


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("window", [0, 1, 3])
def test_ragged_axes_and_sequential_order_under_every_policy_and_window(policy, window):
    lens = np.array([1, 4, 0, 2, 3], np.int32)
    x = np.random.default_rng(1).standard_normal((64 * len(lens), 64), dtype=np.float32)
    y = np.zeros_like(x)
    wsp.schedule(ragged_then_sequential, dispatch=policy, window=window, workers=2)(x, lens, y)
    np.testing.assert_allclose(y, expected_ragged(x, lens), rtol=1e-6)


def test_sparse_axes_visit_each_stored_column():
    indptr = np.array([0, 2, 2, 5], np.int32)
    indices = np.array([1, 3, 0, 2, 3], np.int32)
    x = np.random.default_rng(2).standard_normal((64, 64), dtype=np.float32)
    y = np.zeros((3 * 4 * 16, 64), np.float32)
    csr_copy(x, indptr, indices, y)
    expected = np.zeros_like(y)
    for r in range(3):
        for col in indices[indptr[r]:indptr[r + 1]]:
            expected[(r * 4 + col) * 16:(r * 4 + col) * 16 + 16] = x[col * 16:col * 16 + 16]
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize("policy", POLICIES)
def test_select_and_when_read_what_earlier_tasks_computed(policy):
    flags = np.zeros((6, 64), np.int32)
    for e, n in enumerate([0, 1, 3, 0, 5, 64]):
        flags[e, :n] = 1
    counts = np.full((6, 1), -7, np.int32)
    y = np.zeros((6, 64), np.float32)
    wsp.schedule(selected_and_guarded, dispatch=policy)(flags, counts, y)
    np.testing.assert_array_equal(counts.ravel(), [0, 1, 3, 0, 5, 64])
    np.testing.assert_array_equal(y[:, 0], [0, 0, 1, 0, 1, 1])


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("timing", ["immediate", "batch:3", "batch:1000"])
def test_sequential_iterations_run_in_order(policy, timing):
    y = np.zeros((16, 64), np.float32)
    wsp.schedule(sequential_chain, dispatch=policy, workers=3, timing=timing)(y, 10)
    np.testing.assert_array_equal(y, np.full_like(y, 2.0 ** 10 - 1))


@pytest.mark.parametrize("timing", ["batch:2", "batch:64"])
def test_batched_timing_runs_every_task(timing):
    lens = np.array([3, 0, 4, 1], np.int32)
    x = np.random.default_rng(4).standard_normal((64 * 4, 64), dtype=np.float32)
    y = np.zeros_like(x)
    wsp.schedule(ragged_then_sequential, timing=timing, window=2)(x, lens, y)
    np.testing.assert_allclose(y, expected_ragged(x, lens), rtol=1e-6)


def test_cores_is_the_schedules_workers():
    y = np.full((8, 64), -1.0, np.float32)
    wsp.schedule(tasks_per_core, workers=3)(y)
    np.testing.assert_array_equal(y[:, 0], [0, 100, 200, -1, -1, -1, -1, -1])


@pytest.mark.parametrize("policy", POLICIES)
def test_streams_and_placement_from_key_functions_and_the_trace(policy, tmp_path):
    trace = tmp_path / f"{policy}.json"
    lens = np.array([2, 1, 3], np.int32)
    x = np.random.default_rng(3).standard_normal((64 * 3, 64), dtype=np.float32)
    y = np.zeros_like(x)
    program = wsp.schedule(ragged_then_sequential, dispatch=policy, workers=2, stream_by=parity, dispatch_by=parity,
                           trace=str(trace))
    program(x, lens, y)
    np.testing.assert_allclose(y, expected_ragged(x, lens), rtol=1e-6)
    events = json.loads(trace.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    tasks = [e for e in events if e.get("ph") == "X" and e.get("name", "").startswith(("scale_rows", "times_then_add"))]
    assert len(tasks) == sum(lens) + 4 * 3
    assert {e["tid"] for e in events} <= {0, 1}
    if policy in ("round_robin", "affinity"):
        # Placed, and never moved, by the parity of the first key.
        for event in tasks:
            first_key = int(event["name"].split("[")[1].split(",")[0].rstrip("]"))
            assert event["tid"] == first_key % 2, event


def test_the_split_kv_decode_example_matches_numpy():
    decode = load("split_kv_decode")
    rng = np.random.default_rng(0)
    lens = np.array([17, 600, 130, 64, 1, 4000], np.int32)
    B, H, L = len(lens), 2, int(lens.max())
    q = rng.standard_normal((B, H, 64), dtype=np.float32)
    k = rng.standard_normal((B, H, L, 64), dtype=np.float32)
    v = rng.standard_normal((B, H, L, 64), dtype=np.float32)
    po = np.full((B, H, 32, 64), np.nan, np.float32)
    plse = np.full((B, H, 32, 1), np.nan, np.float32)
    for policy in POLICIES:
        o = np.zeros((B, H, 64), np.float32)
        plan = np.zeros((1, 1), np.int32)
        wsp.schedule(decode.split_kv_decode, dispatch=policy, workers=2)(q, k, v, lens, po, plse, o, plan, np.float32(0.125))
        np.testing.assert_allclose(o, decode.reference(q, k, v, lens, 0.125), atol=2e-5)
        blocks = -(-lens // 64)
        # One segment per worker, under 32 pieces per request.
        assert plan[0, 0] == max(-(-int(blocks.sum()) * H // 2), -(-int(blocks.max()) // 31), 1)


def test_the_moe_example_matches_numpy():
    moe = load("moe")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((moe.T, moe.D), dtype=np.float32)
    wg = rng.standard_normal((moe.D, moe.E), dtype=np.float32)
    w = rng.standard_normal((moe.E, moe.D, moe.F), dtype=np.float32) / 8
    out, counts = moe.run(x, wg, w)
    expected, expected_counts = moe.reference(x, wg, w)
    np.testing.assert_array_equal(counts.ravel(), expected_counts)
    np.testing.assert_allclose(out, expected, atol=1e-4)


def test_the_lightning_indexer_example_matches_numpy():
    indexer = load("lightning_indexer")
    rng = np.random.default_rng(6)
    lens = np.array([7, 300, 512, 513, 1500, 2049], np.int32)
    q = rng.standard_normal((len(lens), 4, 64), dtype=np.float32)
    k = rng.standard_normal((len(lens), int(lens.max()), 64), dtype=np.float32)
    w = rng.random((4, 1), dtype=np.float32)
    scores = np.empty((len(lens), k.shape[1]), np.float32)
    top = np.empty((len(lens), indexer.K), np.int32)
    indexer.lightning_indexer(q, k, w, lens, scores, top)
    np.testing.assert_array_equal(top, indexer.reference(q, k, w, lens))


# ---------------------------------------------------------------- mistakes

def compile_error(source_function, match):
    with pytest.raises(htp.CompileError, match=match) as error:
        source_function.compile("cpu")
    return str(error.value)


@wsp.workload
def too_few_arguments(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    wsp.task(copy_block, x[:, :])


@wsp.workload
def wrong_extent(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    wsp.task(copy_block, x[0:8, :], y[0:16, :])


@wsp.workload
def wrong_scalar(y: htp.Out[f32, 16, 64]):
    wsp.task(times_then_add, y[:, :], 2, "a")


@wsp.workload
def computes_in_the_workload(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = x[:, :] + 1.0


@wsp.workload
def reads_what_a_task_writes(counts: htp.Out[i32, 1, 64], y: htp.Out[f32, 16, 64]):
    wsp.task(count_rows, counts, counts[0:1, 0:1])
    for i in wsp.parallel(wsp.ragged(8, counts)):
        wsp.task(add_into, y[:, :], 1.0)


@wsp.workload
def carries_a_variable(y: htp.Out[f32, 16, 64]):
    total = 0
    for i in wsp.parallel(4):
        total = total + i
    wsp.task(put_index, y[0:1, :], total, 0)


@wsp.workload
def when_without_element(y: htp.Out[f32, 16, 64], n: i64):
    with wsp.when(n > 2):
        wsp.task(add_into, y[:, :], 1.0)


@wsp.workload
def view_outside(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], at: i64):
    wsp.task(copy_block, x[at:at + 16, :], y[0:16, :])


@wsp.workload
def kernel_index_error(x: htp.Tensor[f32, 16, 64], idx: htp.Tensor[i32, 16, 1], y: htp.Out[f32, 16, 64]):
    wsp.task(gather_rows, x, idx, y)


@htp.kernel
def gather_rows(x: htp.Tensor[f32, 16, 64], idx: htp.Tensor[i32, 16, 1], y: htp.Out[f32, 16, 64]):
    y[:, :] = htp.gather(x, idx[:, :], 0, 64)


@pytest.mark.parametrize("workload, message", [
    (too_few_arguments, r"test_wsp.py:\d+:\d+: error: wsp.task\(\): passes 1 arguments to 'copy_block', which takes 2"),
    (wrong_extent, r"test_wsp.py:\d+:\d+: error: wsp.task\(\): argument #0 of 'copy_block' has 16 elements in dimension 0, the view 8"),
    (wrong_scalar, r"test_wsp.py:\d+:\d+: error: .*"),
    (computes_in_the_workload, r"test_wsp.py:\d+:\d+: error: a workload issues tasks; 'tile\.\w+' computes, which belongs in a kernel"),
    (reads_what_a_task_writes, r"test_wsp.py:\d+:\d+: error: reads, as the workload issues tasks, a tensor one of its tasks writes"),
    (carries_a_variable, r"test_wsp.py:\d+:\d+: error: wsp.parallel\(\): a wsp loop cannot change variables of the workload"),
    (when_without_element, r"test_wsp.py:\d+:\d+: error: wsp.when\(\): takes a comparison of a wsp.element"),
])
def test_mistakes_are_errors_at_the_users_line(workload, message):
    compile_error(workload, message)


def test_a_view_outside_its_tensor_is_an_index_error_at_the_task():
    x = np.zeros((32, 64), np.float32)
    with pytest.raises(IndexError, match=r"test_wsp.py:\d+:\d+: error: a task's view starts at 40 in dimension 0 of 'x', which has 32: outside it"):
        view_outside(x, np.zeros_like(x), 40)
    # A view cut short by the tensor's end does not fill a static parameter.
    with pytest.raises(ValueError, match=r"test_wsp.py:\d+:\d+: error: task 'copy_block': argument #0 holds 8 elements in "
                                         r"dimension 0, the kernel takes 16"):
        view_outside(x, np.zeros_like(x), 24)


def test_a_kernels_index_error_keeps_its_kind():
    idx = np.full((16, 1), 99, np.int32)
    with pytest.raises(IndexError):
        kernel_index_error(np.zeros((16, 64), np.float32), idx, np.zeros((16, 64), np.float32))


def test_schedule_controls_are_checked_in_python():
    with pytest.raises(ValueError, match="unknown dispatch policy 'fastest'"):
        wsp.schedule(rows_scaled, dispatch="fastest")
    with pytest.raises(ValueError, match="window must be an int >= 0"):
        wsp.schedule(rows_scaled, window=-1)
    with pytest.raises(TypeError, match="stream_by takes an @htp.func helper"):
        wsp.schedule(rows_scaled, stream_by=lambda i: i)
    with pytest.raises(ValueError, match="trace path"):
        wsp.schedule(rows_scaled, trace="a b.json")
    with pytest.raises(TypeError, match="takes an @wsp.workload"):
        wsp.schedule(object())
    with pytest.raises(ValueError, match="timing must be 'immediate' or 'batch:N'"):
        wsp.schedule(rows_scaled, timing="batch:0")


def test_a_workload_on_a_target_without_wsp_is_refused_at_its_line():
    error = str(pytest.raises(htp.CompileError, rows_scaled.compile, "sample").value)
    assert "test_wsp.py:" in error and "wsp" in error


@htp.kernel
def sum_rows_of(pages: htp.Tensor[f32, "S", 16], out: htp.Out[f32, 1, 16]):
    acc = htp.zeros((1, 16), f32)
    for r in range(0, pages.shape[0], 8):
        acc = acc + htp.col_sum(htp.pad(pages[r:r + 8, :], 0.0))
    out[:, :] = acc


@wsp.workload
def per_layer_sums(cache: htp.Tensor[f32, "L", "S", 16], out: htp.Out[f32, "L", 16]):
    for l in wsp.parallel(cache.shape[0]):
        wsp.task(sum_rows_of, cache[l, :, :], out[l:l + 1, :])        # ':' over the symbolic S
    wsp.task(sum_rows_of, cache[0], out[0:1, :])                       # missing items: whole dimensions


@pytest.mark.parametrize("rows", [8, 13, 40])
def test_a_task_view_takes_a_symbolic_dimension_whole(rows):
    cache = np.random.default_rng(rows).standard_normal((3, rows, 16)).astype(np.float32)
    out = per_layer_sums(cache)
    np.testing.assert_allclose(out, cache.sum(axis=1), rtol=1e-5, atol=1e-5)
