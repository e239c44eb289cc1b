"""WSP workloads as users write them from docs/wsp.md, beyond the basic
constructs: element types, scalar conversions, nesting of loop
constructors, tiers by `if`, helpers computing indices, outputs returned,
concurrent calls, and what a workload cannot do."""

import threading

import numpy as np
from conftest import run_and_interrupt
import pytest

import htp
from htp import bf16, f16, f32, i32, i64

wsp = htp.model("wsp")


@htp.kernel
def half_axpy(x: htp.Tensor[f16, 16, 64], y: htp.Out[f16, 16, 64], a: f32):
    y[:, :] = htp.cast(htp.cast(x[:, :], f32) * a + htp.cast(y[:, :], f32), f16)


@htp.kernel
def bf16_double(x: htp.Tensor[bf16, 8, 32], y: htp.Out[bf16, 8, 32]):
    y[:, :] = x[:, :] + x[:, :]


@htp.kernel
def int_fill(y: htp.Out[i32, 1, 8], v: i32, flag: bool):
    if flag:
        y[:, :] = htp.full((1, 8), v, i32)
    else:
        y[:, :] = htp.full((1, 8), -v, i32)


@htp.kernel
def add_scalar(y: htp.Out[f32, "R", 64], v: f32):
    for r in range(0, y.shape[0], 16):
        y[r:r + 16, :] = y[r:r + 16, :] + v


@htp.kernel
def short_tier(x: htp.Tensor[f32, "R", 64], y: htp.Out[f32, "R", 64]):
    y[0:64, :] = x[0:64, :] * 2.0


@htp.kernel
def long_tier(x: htp.Tensor[f32, "R", 64], y: htp.Out[f32, "R", 64]):
    for r in range(0, x.shape[0], 64):
        y[r:r + 64, :] = x[r:r + 64, :] * 2.0


@htp.func
def block_of(b, width):
    return b * width


@wsp.workload
def half_workload(x: htp.Tensor[f16, "N", 64], y: htp.Out[f16, "N", 64], a: f32):
    for i in wsp.parallel(x.shape[0] // 16):
        wsp.task(half_axpy, x[i * 16:i * 16 + 16, :], y[i * 16:i * 16 + 16, :], a)


@wsp.workload
def bf16_workload(x: htp.Tensor[bf16, 16, 32], y: htp.Out[bf16, 16, 32]):
    for i in wsp.parallel(2):
        wsp.task(bf16_double, x[i * 8:i * 8 + 8, :], y[i * 8:i * 8 + 8, :])


@wsp.workload
def converted_scalars(y: htp.Out[i32, 4, 8]):
    for i in wsp.parallel(4):
        wsp.task(int_fill, y[i:i + 1, :], i * 3, i % 2 == 0)


@wsp.workload
def nested(y: htp.Out[f32, "B", 64], steps: i64):
    # Per row block: a chain of `steps` additions, rows blocks independent.
    for b in wsp.parallel(y.shape[0] // 16):
        for s in wsp.seq(steps):
            wsp.task(add_scalar, y[block_of(b, 16):block_of(b, 16) + 16, :], htp.f32(s + 1))


@wsp.workload
def tiers(x: htp.Tensor[f32, "B", "L", 64], lens: htp.Tensor[i32, "B"], y: htp.Out[f32, "B", "L", 64]):
    for b in wsp.parallel(x.shape[0]):
        if wsp.read(lens, b) <= 64:
            wsp.task(short_tier, x[b, 0:64, :], y[b, 0:64, :])
        else:
            wsp.task(long_tier, x[b, 0:4096, :], y[b, 0:4096, :])


@wsp.workload
def explicit_keys(y: htp.Out[f32, 32, 64]):
    for i in range(2):
        wsp.task(add_scalar, y[i * 16:i * 16 + 16, :], 1.0, keys=(i, 7))


@wsp.workload
def nothing_to_do(y: htp.Out[f32, 16, 64], lens: htp.Tensor[i32, 3]):
    for b, c in wsp.parallel(wsp.ragged(3, lens)):
        wsp.task(add_scalar, y[:, :], 1.0)
    for i in wsp.parallel(0):
        wsp.task(add_scalar, y[:, :], 1.0)


def test_f16_views_and_an_f32_scalar():
    x = np.random.default_rng(0).standard_normal((48, 64)).astype(np.float16)
    y = np.ones((48, 64), np.float16)
    half_workload(x, y, np.float32(0.5))
    np.testing.assert_allclose(y.astype(np.float32), (x.astype(np.float32) * 0.5 + 1).astype(np.float16).astype(np.float32),
                               rtol=2e-3, atol=2e-3)


def test_bf16_views():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.random.default_rng(1).standard_normal((16, 32)).astype(ml_dtypes.bfloat16)
    y = bf16_workload(x)
    np.testing.assert_array_equal(y.astype(np.float32), (x.astype(np.float32) * 2))


def test_index_values_become_the_kernels_int_and_bool_scalars():
    y = converted_scalars()
    np.testing.assert_array_equal(y[:, 0], [0, -3, 6, -9])


@pytest.mark.parametrize("policy", ["round_robin", "work_stealing", "dynamic"])
def test_a_sequential_loop_inside_a_parallel_one_orders_only_its_own_iterations(policy):
    y = np.zeros((64, 64), np.float32)
    wsp.schedule(nested, dispatch=policy, workers=2)(y, 5)
    np.testing.assert_array_equal(y, np.full_like(y, 15.0))


def test_kernel_tiers_chosen_by_length():
    lens = np.array([10, 64, 65, 200], np.int32)
    x = np.random.default_rng(2).standard_normal((4, 256, 64), dtype=np.float32)
    y = np.zeros_like(x)
    tiers(x, lens, y)
    expected = np.zeros_like(x)
    expected[:2, :64] = 2 * x[:2, :64]
    expected[2:] = 2 * x[2:]
    np.testing.assert_array_equal(y, expected)


def test_explicit_keys_name_tasks_in_the_trace(tmp_path):
    import json
    trace = tmp_path / "keys.json"
    y = np.zeros((32, 64), np.float32)
    wsp.schedule(explicit_keys, trace=str(trace))(y)
    names = sorted(e["name"] for e in json.loads(trace.read_text())["traceEvents"])
    assert names == ["add_scalar[0,7]", "add_scalar[1,7]"]
    np.testing.assert_array_equal(y, np.ones_like(y))


def test_empty_iteration_spaces_issue_nothing():
    y = np.zeros((16, 64), np.float32)
    nothing_to_do(y, np.array([0, 0, 0], np.int32))
    np.testing.assert_array_equal(y, np.zeros_like(y))


def test_concurrent_calls_from_python_threads():
    ys = [np.zeros((64, 64), np.float32) for _ in range(4)]
    threads = [threading.Thread(target=nested, args=(y, i + 1)) for i, y in enumerate(ys)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, y in enumerate(ys):
        n = i + 1
        np.testing.assert_array_equal(y, np.full_like(y, n * (n + 1) / 2))


@wsp.workload
def calls_a_kernel(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    short_tier(x, y)


@wsp.workload
def task_of_a_helper(y: htp.Out[f32, 16, 64]):
    wsp.task(block_of, y[:, :], 1.0)


@pytest.mark.parametrize("workload, message", [
    (calls_a_kernel, r"test_wsp_programs.py:\d+:\d+: error: a workload issues tasks; 'tile\.\w+' computes"),
    (task_of_a_helper, r"test_wsp_programs.py:\d+:\d+: error: wsp.task\(\): 'block_of' is not a compiled @htp.kernel"),
])
def test_what_a_workload_cannot_do(workload, message):
    with pytest.raises(htp.CompileError, match=message):
        workload.compile("cpu")


@htp.kernel
def gather_rows(x: htp.Tensor[f32, 16, 64], idx: htp.Tensor[i32, 16, 1], y: htp.Out[f32, 16, 64]):
    y[:, :] = htp.gather(x, idx[:, :], 0, 64)


@wsp.workload
def many_gathers(x: htp.Tensor[f32, 16, 64], idx: htp.Tensor[i32, "T", 1], y: htp.Out[f32, "T", 64]):
    for t in wsp.parallel(idx.shape[0] // 16):
        wsp.task(gather_rows, x, idx[t * 16:t * 16 + 16, :], y[t * 16:t * 16 + 16, :])


def test_a_failed_check_in_one_task_among_many_is_reported_and_only_by_its_call():
    x = np.random.default_rng(3).standard_normal((16, 64), dtype=np.float32)
    good = np.tile(np.arange(16, dtype=np.int32)[:, None], (64, 1))
    bad = good.copy()
    bad[37 * 16 + 5, 0] = 99
    # Many tasks on every worker: the one bad row is still an IndexError.
    for _ in range(5):
        with pytest.raises(IndexError):
            wsp.schedule(many_gathers, workers=4)(x, bad, np.zeros((64 * 16, 64), np.float32))
    # Calls running at once keep their own errors: the good ones succeed.
    failures = []

    def call(indices):
        try:
            many_gathers(x, indices, np.zeros((64 * 16, 64), np.float32))
        except IndexError:
            failures.append(indices is bad)

    threads = [threading.Thread(target=call, args=(bad if i % 2 else good,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [True] * 4


LONG_WORKLOAD = """
import sys
import numpy as np
import htp
from htp import f32

wsp = htp.model("wsp")

@htp.kernel
def spin(y: htp.Out[f32, 16, 64]):
    t = y[:, :]
    for r in range(20000):
        t = htp.exp(t * 0.5) - 1.0
    y[:, :] = t

@wsp.workload
def long(y: htp.Out[f32, 16, 64], n: htp.i64):
    for i in wsp.seq(n):
        wsp.task(spin, y[:, :])

y = np.zeros((16, 64), np.float32)
long(y, 2)
print("ready", flush=True)
try:
    long(y, 100000)   # hours uninterrupted
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(3)
print("finished", flush=True)
"""


def test_ctrl_c_stops_a_long_workload_with_keyboard_interrupt(tmp_path):
    returncode, out, seconds = run_and_interrupt(tmp_path, LONG_WORKLOAD)
    assert returncode == 3, out
    assert "interrupted" in out
    assert seconds < 15


@wsp.workload
def loops_inside_branches(y: htp.Out[f32, "N", 64], lens: htp.Tensor[i32, "B"]):
    # wsp loops inside `if` branches inside wsp loops (their regions are
    # built before the branch op exists).
    for b in wsp.parallel(lens.shape[0]):
        n = wsp.read(lens, b)
        if n > 0:
            for c in wsp.parallel(n):
                wsp.task(add_scalar, y[b * 16:b * 16 + 16, :], 1.0)
        else:
            for s in wsp.seq(2):
                wsp.task(add_scalar, y[b * 16:b * 16 + 16, :], -1.0)


def test_wsp_loops_inside_branches():
    lens = np.array([2, 0, 3], np.int32)
    y = np.zeros((48, 64), np.float32)
    loops_inside_branches(y, lens)
    np.testing.assert_array_equal(y[::16, 0], [2.0, -2.0, 3.0])
