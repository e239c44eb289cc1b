"""WSP workloads on the PTO targets (issue 19 part 4, docs/wsp.md, "WSP on PTO"): each
workload compiles to a pto-runtime package for pto-a2a3sim and pto-a2a3 whose
orchestration runs the workload's loops and submits its tasks; on a2a3sim
(when pto-runtime is installed and HTP_PTO_ISA_ROOT points at pto-isa) each
run matches numpy. What pto-runtime cannot realise (placement) is refused at
the user's line."""

import inspect
import json
import os
import pathlib

import numpy as np
import pytest

import htp
from htp import f32, i32
from htp.pto import runtime as pto_runtime
from simulators import on_a2a3sim
from test_errors import assert_points_at

wsp = htp.model("wsp")
TARGETS = ["pto-a2a3sim", "pto-a2a3"]
rng = np.random.default_rng(19)

needs_runtime = on_a2a3sim


@htp.kernel
def scale_rows(x: htp.Tensor[f32, "R", 64], y: htp.Out[f32, "R", 64], s: f32):
    # A loop over the rows: the PTO backend splits it into tasks (chunks) over the cores.
    for r in range(0, x.shape[0], 8):
        y[r:r + 8, :] = x[r:r + 8, :] * s


@htp.kernel
def add_one(y: htp.InOut[f32, 16, 64]):
    y[:, :] = y[:, :] + 1.0


@htp.kernel
def add_rows(a: htp.Tensor[f32, 16, 64], b: htp.Tensor[f32, 16, 64], c: htp.Out[f32, 16, 64]):
    c[:, :] = a[:, :] + b[:, :]


@wsp.workload
def blocks(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in wsp.parallel(x.shape[0] // 16):
        wsp.task(scale_rows, x[i * 16:i * 16 + 16, :], y[i * 16:i * 16 + 16, :], 2.0)


@wsp.workload
def steps(y: htp.InOut[f32, "N", 64]):
    for s in wsp.seq(3):
        for b in wsp.parallel(y.shape[0] // 16):
            wsp.task(add_one, y[b * 16:b * 16 + 16, :])


@wsp.workload
def ragged(x: htp.Tensor[f32, "N", 64], lens: htp.Tensor[i32, "B"], y: htp.InOut[f32, "N", 64]):
    for b, c in wsp.parallel(wsp.ragged(lens.shape[0], lens)):
        r = b * 64 + c * 16
        wsp.task(scale_rows, x[r:r + 16, :], y[r:r + 16, :], 3.0)


@wsp.workload
def selected(x: htp.Tensor[f32, "N", 64], counts: htp.Tensor[i32, "E"], y: htp.InOut[f32, "N", 64]):
    for e in wsp.select(counts.shape[0], counts):
        wsp.task(scale_rows, x[e * 16:e * 16 + 16, :], y[e * 16:e * 16 + 16, :], 5.0)


@wsp.workload
def guarded(x: htp.Tensor[f32, "N", 64], counts: htp.Tensor[i32, "E"], y: htp.InOut[f32, "N", 64]):
    for e in wsp.parallel(counts.shape[0]):
        with wsp.when(wsp.element(counts, 0, e) > 16):
            wsp.task(scale_rows, x[e * 16:e * 16 + 16, :], y[e * 16:e * 16 + 16, :], 7.0)


@wsp.workload
def sparse(x: htp.Tensor[f32, "N", 64], indptr: htp.Tensor[i32, "P"], indices: htp.Tensor[i32, "K"],
           y: htp.InOut[f32, "N", 64]):
    for row, col in wsp.parallel(wsp.sparse(indptr.shape[0] - 1, indptr, indices)):
        wsp.task(scale_rows, x[row * 16:row * 16 + 16, :], y[col * 16:col * 16 + 16, :], 2.0)


@wsp.workload
def counted(x: htp.Tensor[f32, "N", 64], lens: htp.Tensor[i32, "B"], y: htp.InOut[f32, "N", 64]):
    for b in wsp.parallel(lens.shape[0]):
        for c in wsp.parallel(wsp.read(lens, 0, b)):
            wsp.task(scale_rows, x[b * 64 + c * 16:b * 64 + c * 16 + 16, :], y[b * 64 + c * 16:b * 64 + c * 16 + 16, :], 4.0)


@htp.kernel
def less_one(c: htp.Tensor[i32, 1, 8], d: htp.Out[i32, 1, 8]):
    d[:, :] = c[:, :] - 1


@wsp.workload
def produced(x: htp.Tensor[f32, "N", 64], given: htp.Tensor[i32, 1, 8], counts: htp.InOut[i32, 1, 8],
             y: htp.InOut[f32, "N", 64]):
    # The predicate is computed by a task: each guarded task depends on it (its producer),
    # and the scheduler reads counts[0, e] only then.
    wsp.task(less_one, given, counts)
    for e in wsp.select(8, counts):
        wsp.task(scale_rows, x[e * 16:e * 16 + 16, :], y[e * 16:e * 16 + 16, :], 5.0)


@wsp.workload
def war(a: htp.InOut[f32, "N", 64], b: htp.Out[f32, "N", 64]):
    # b = a + a is read from a before a is scaled in place: the later writer
    # of a waits for the earlier reader (a WAR edge HTP adds).
    for i in wsp.parallel(a.shape[0] // 16):
        wsp.task(add_rows, a[i * 16:i * 16 + 16, :], a[i * 16:i * 16 + 16, :], b[i * 16:i * 16 + 16, :])
        wsp.task(add_one, a[i * 16:i * 16 + 16, :])


@wsp.workload
def waw(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    # Two tasks write the same rows as pure outputs, which pto-runtime's TensorMap does not
    # order: the second waits for the first (a WAW edge HTP adds).
    for i in wsp.parallel(x.shape[0] // 16):
        wsp.task(scale_rows, x[i * 16:i * 16 + 16, :], y[i * 16:i * 16 + 16, :], 2.0)
        wsp.task(scale_rows, x[i * 16:i * 16 + 16, :], y[i * 16:i * 16 + 16, :], 3.0)


@htp.func
def by_block(i: int) -> int:
    return i % 2


@wsp.workload
def streamed(y: htp.InOut[f32, "N", 64]):
    for i in wsp.parallel(y.shape[0] // 16):
        wsp.task(add_one, y[i * 16:i * 16 + 16, :])


@wsp.workload
def pinned(y: htp.InOut[f32, "N", 64]):
    for i in wsp.parallel(y.shape[0] // 16):
        wsp.task(add_one, y[i * 16:i * 16 + 16, :])


@wsp.workload
def too_many(y: htp.InOut[f32, "N", 64]):
    for s in wsp.parallel(2):
        for i in wsp.parallel(8):
            wsp.task(add_one, y[i * 16:i * 16 + 16, :])


@wsp.workload
def columns(x: htp.Tensor[f32, "N", 128], y: htp.Out[f32, "N", 64]):
    for i in wsp.parallel(x.shape[0] // 16):
        wsp.task(scale_rows, x[i * 16:i * 16 + 16, 0:64], y[i * 16:i * 16 + 16, :], 2.0)


streams = wsp.schedule(streamed, stream_by=by_block, window=64)
lanes = wsp.schedule(streamed, dispatch="round_robin", workers=2)
stolen = wsp.schedule(blocks, dispatch="work_stealing", window=16)
affine = wsp.schedule(pinned, dispatch="affinity")
placed = wsp.schedule(pinned, dispatch="dynamic", dispatch_by=by_block)
small_window = wsp.schedule(too_many, window=8)


def line_of(function, text):
    source, first = inspect.getsourcelines(function.function if hasattr(function, "function") else function)
    return first + next(i for i, line in enumerate(source) if text in line)


def package(program, target, tmp_path):
    root = program.compile(target=target).write_package(tmp_path / program.name)
    manifest = json.loads(open(os.path.join(root, "manifest.json")).read())
    orchestration = open(os.path.join(root, manifest["orchestration"]["source"])).read()
    return manifest, orchestration


PROGRAMS = {"blocks": blocks, "steps": steps, "ragged": ragged, "sparse": sparse, "counted": counted, "produced": produced, "waw": waw, "selected": selected, "guarded": guarded, "war": war,
            "streams": streams, "lanes": lanes, "stolen": stolen}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_workload_compiles_to_a_package(tmp_path, target, name):
    manifest, orchestration = package(PROGRAMS[name], target, tmp_path)
    assert manifest["target"] == target and manifest["runtime"] == "tensormap_and_ringbuffer"
    assert all(a["direction"] in ("in", "out", "inout") for a in manifest["arguments"] if a["kind"] == "tensor")
    assert "aicpu_orchestration_entry" in orchestration and "htp_schedule::Schedule htp_schedule(" in orchestration
    # Each task calls its kernel's orchestration, on views, through the workload's submitter.
    assert "static void htp_orchestration_" in orchestration and ".view(" in orchestration
    assert "htp_submitter.submit(" in orchestration and "htp_schedule.open_scope(" in orchestration


@wsp.workload
def named_like_the_runtime(htp_schedule: htp.InOut[f32, "N", 64]):
    for i in wsp.parallel(htp_schedule.shape[0] // 16):
        wsp.task(add_one, htp_schedule[i * 16:i * 16 + 16, :])


def test_a_parameter_named_like_generated_cpp_is_renamed(tmp_path):
    manifest, orchestration = package(named_like_the_runtime, "pto-a2a3sim", tmp_path)
    assert manifest["arguments"][0]["name"] == "htp_schedule"
    assert "const ChipTensor &p_htp_schedule = orch_args.tensor(0).ref();" in orchestration


def test_directions_come_from_the_tasks(tmp_path):
    manifest, _ = package(ragged, "pto-a2a3sim", tmp_path)
    assert [(a["name"], a.get("direction")) for a in manifest["arguments"]] == [("x", "in"), ("lens", "in"), ("y", "inout")]


def test_seq_orders_iterations_by_barriers(tmp_path):
    _, orchestration = package(steps, "pto-a2a3sim", tmp_path)
    assert "htp_schedule.begin_order();" in orchestration and "htp_schedule.next_iteration();" in orchestration
    assert "rt_submit_dummy_task(barrier)" in orchestration


def test_ragged_lengths_are_read_in_the_orchestration(tmp_path):
    _, orchestration = package(ragged, "pto-a2a3sim", tmp_path)
    # The 1-D lengths as the IR sees them (1 x B), then each length read where its loop runs.
    assert "lens.reshape(" in orchestration and "get_tensor_data<int32_t>(reshaped, 2," in orchestration


def test_select_and_when_become_dispatch_predicates(tmp_path):
    _, selected_cpp = package(selected, "pto-a2a3sim", tmp_path)
    assert "PredicateOp::NE, static_cast<int64_t>(0));" in selected_cpp and "args.set_predicate(guards.back().predicate)" in selected_cpp
    _, guarded_cpp = package(guarded, "pto-a2a3sim", tmp_path)
    assert "PredicateOp::GT" in guarded_cpp and "args.set_predicate(guards.back().predicate)" in guarded_cpp
    # No blocking read of the guard.
    assert "get_tensor_data" not in selected_cpp and "get_tensor_data" not in guarded_cpp


def test_the_window_travels_in_the_run_configuration(tmp_path):
    manifest, orchestration = package(streams, "pto-a2a3sim", tmp_path)
    assert manifest["runtime_env"] == {"ring_task_window": 64}
    assert "htp_schedule::Schedule htp_schedule(64, 0);" in orchestration and "htp_schedule.stream = " in orchestration
    manifest, _ = package(blocks, "pto-a2a3sim", tmp_path)
    assert "runtime_env" not in manifest


def test_the_runner_checks_and_applies_the_run_configuration(tmp_path):
    root = streams.compile(target="pto-a2a3sim").write_package(tmp_path / "streams")
    manifest = pto_runtime._load_manifest(pathlib.Path(root))
    if pto_runtime.find_runtime() is None:
        # One value for every scope depth's ring.
        assert list(pto_runtime._call_config(manifest).runtime_env.ring_task_window) == [64] * 4
    path = os.path.join(root, "manifest.json")
    for bad in ({"ring_task_windw": 64}, {"ring_task_window": "64"}):
        broken = dict(json.loads(open(path).read()), runtime_env=bad)
        open(path, "w").write(json.dumps(broken))
        with pytest.raises(pto_runtime.PtoRuntimeError, match="runtime_env must map ring_task_window"):
            pto_runtime._load_manifest(pathlib.Path(root))


def test_round_robin_is_lanes_of_dependencies(tmp_path):
    _, orchestration = package(lanes, "pto-a2a3sim", tmp_path)
    assert "htp_schedule::Schedule htp_schedule(16384, 2);" in orchestration


def test_affinity_is_refused_at_the_workload(tmp_path):
    with pytest.raises(htp.CompileError) as error:
        affine.compile(target="pto-a2a3sim")
    assert "no placement" in str(error.value)
    assert_points_at(error.value, "test_wsp_pto.py", line_of(pinned, "@wsp.workload"))


def test_dispatch_by_is_refused_at_the_task(tmp_path):
    with pytest.raises(htp.CompileError) as error:
        placed.compile(target="pto-a2a3")
    assert "no placement" in str(error.value)
    assert_points_at(error.value, "test_wsp_pto.py", line_of(pinned, "wsp.task("))


def test_a_static_scope_larger_than_the_window_is_refused_at_its_loop():
    with pytest.raises(htp.CompileError) as error:
        small_window.compile(target="pto-a2a3sim")
    assert "scope of 8 tasks" in str(error.value) and "window=8" in str(error.value)
    assert_points_at(error.value, "test_wsp_pto.py", line_of(too_many, "for s in"))


def test_a_view_of_part_of_the_rows_is_refused_at_the_task():
    with pytest.raises(htp.CompileError) as error:
        columns.compile(target="pto-a2a3sim")
    assert "whole rows" in str(error.value)
    assert_points_at(error.value, "test_wsp_pto.py", line_of(columns, "wsp.task("))


def test_the_cpu_still_runs_the_workloads():
    x = rng.standard_normal((64, 64)).astype(np.float32)
    y = np.zeros_like(x)
    blocks.compile(target="cpu")(x, y)
    np.testing.assert_allclose(y, 2 * x, rtol=1e-6)


# --- a2a3sim: each workload matches numpy ---------------------------------------------------------

def sim(program):
    return program.compile(target="pto-a2a3sim")


@needs_runtime
def test_parallel_on_a2a3sim():
    x = rng.standard_normal((64, 64)).astype(np.float32)
    y = np.zeros_like(x)
    sim(blocks)(x, y)
    np.testing.assert_allclose(y, 2 * x, rtol=1e-6)


@needs_runtime
def test_seq_on_a2a3sim():
    y = rng.standard_normal((128, 64)).astype(np.float32)
    expected = y + 3
    sim(steps)(y)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


@needs_runtime
def test_ragged_on_a2a3sim():
    lens = np.array([4, 0, 2, 3], dtype=np.int32)
    x = rng.standard_normal((256, 64)).astype(np.float32)
    y = np.full_like(x, -1.0)
    expected = y.copy()
    for b, n in enumerate(lens):
        expected[b * 64:b * 64 + n * 16] = 3 * x[b * 64:b * 64 + n * 16]
    sim(ragged)(x, lens, y)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


@needs_runtime
def test_sparse_on_a2a3sim():
    indptr = np.array([0, 2, 2, 3, 5], dtype=np.int32)
    indices = np.array([5, 0, 3, 1, 7], dtype=np.int32)
    x = rng.standard_normal((128, 64)).astype(np.float32)
    y = np.full_like(x, -1.0)
    expected = y.copy()
    for row in range(4):
        for col in indices[indptr[row]:indptr[row + 1]]:
            expected[col * 16:col * 16 + 16] = 2 * x[row * 16:row * 16 + 16]
    sim(sparse)(x, indptr, indices, y)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


@needs_runtime
def test_read_on_a2a3sim():
    lens = np.array([1, 0, 4, 2], dtype=np.int32)
    x = rng.standard_normal((256, 64)).astype(np.float32)
    y = np.full_like(x, 9.0)
    expected = y.copy()
    for b, n in enumerate(lens):
        expected[b * 64:b * 64 + n * 16] = 4 * x[b * 64:b * 64 + n * 16]
    sim(counted)(x, lens, y)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


@needs_runtime
def test_select_on_a2a3sim():
    counts = np.array([3, 0, 0, 9, 1, 0], dtype=np.int32)
    x = rng.standard_normal((96, 64)).astype(np.float32)
    y = np.full_like(x, -2.0)
    expected = y.copy()
    for e, n in enumerate(counts):
        if n:
            expected[e * 16:e * 16 + 16] = 5 * x[e * 16:e * 16 + 16]
    sim(selected)(x, counts, y)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


@needs_runtime
def test_select_on_a_computed_predicate_on_a2a3sim():
    given = np.array([[1, 3, 1, 2, 1, 1, 5, 1]], dtype=np.int32)
    counts = np.full_like(given, 7)  # stale values: were the predicate read before its producer ran, every block would be scaled
    x = rng.standard_normal((128, 64)).astype(np.float32)
    y = np.full_like(x, -3.0)
    expected = y.copy()
    for e, n in enumerate(given[0] - 1):
        if n:
            expected[e * 16:e * 16 + 16] = 5 * x[e * 16:e * 16 + 16]
    sim(produced)(x, given, counts, y)
    np.testing.assert_array_equal(counts, given - 1)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


@needs_runtime
def test_when_on_a2a3sim():
    counts = np.array([17, 16, 40, 0], dtype=np.int32)
    x = rng.standard_normal((64, 64)).astype(np.float32)
    y = np.zeros_like(x)
    expected = y.copy()
    for e, n in enumerate(counts):
        if n > 16:
            expected[e * 16:e * 16 + 16] = 7 * x[e * 16:e * 16 + 16]
    sim(guarded)(x, counts, y)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


@needs_runtime
def test_war_on_a2a3sim():
    a = rng.standard_normal((64, 64)).astype(np.float32)
    b = np.zeros_like(a)
    expected_b, expected_a = a + a, a + 1
    sim(war)(a, b)
    np.testing.assert_allclose(b, expected_b, rtol=1e-6)
    np.testing.assert_allclose(a, expected_a, rtol=1e-6)


@needs_runtime
def test_waw_on_a2a3sim():
    x = rng.standard_normal((128, 64)).astype(np.float32)
    y = np.zeros_like(x)
    sim(waw)(x, y)
    np.testing.assert_allclose(y, 3 * x, rtol=1e-6)


@needs_runtime
@pytest.mark.parametrize("program", [streams, lanes], ids=["streams", "round_robin"])
def test_schedules_on_a2a3sim(program):
    y = rng.standard_normal((64, 64)).astype(np.float32)
    expected = y + 1
    sim(program)(y)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


@wsp.workload
def crowded(x: htp.Tensor[f32, "N", 64], lens: htp.Tensor[i32, "B"], y: htp.InOut[f32, "N", 64]):
    for s in wsp.seq(1):
        for b, c in wsp.parallel(wsp.ragged(lens.shape[0], lens)):
            wsp.task(add_rows, x[b * 64 + c * 16:b * 64 + c * 16 + 16, :], x[b * 64 + c * 16:b * 64 + c * 16 + 16, :],
                     y[b * 64 + c * 16:b * 64 + c * 16 + 16, :])


crowded_window = wsp.schedule(crowded, window=8)


@needs_runtime
def test_a_run_time_scope_larger_than_the_window_stops_with_a_message(capfd):
    x = rng.standard_normal((256, 64)).astype(np.float32)
    y = np.zeros_like(x)
    # Few enough tasks: runs.
    sim(crowded_window)(x, np.array([2, 1, 3, 0], dtype=np.int32), y)
    np.testing.assert_allclose(y[:32], 2 * x[:32], rtol=1e-6)
    # 16 tasks in the scope of one iteration of the seq loop, the window holds 7: a message, not a deadlock.
    capfd.readouterr()
    with pytest.raises(pto_runtime.PtoRuntimeError) as error:
        sim(crowded_window)(x, np.array([4, 4, 4, 4], dtype=np.int32), y)
    # The orchestration reports a fatal error (pto-runtime's code 5, invalid arguments) with the
    # loop's line in pto-runtime's log, and the run fails instead of spinning on a full ring.
    assert "failed with code -5" in str(error.value), error.value
    log = capfd.readouterr().err
    assert f"test_wsp_pto.py:{line_of(crowded, 'for s in')}:14 submits more than 7 tasks" in log, log


@wsp.workload
def edges(y: htp.InOut[f32, "N", 64]):
    for i in wsp.parallel((y.shape[0] + 15) // 16):
        wsp.task(add_one, y[i * 16:i * 16 + 16, :])


@needs_runtime
def test_a_block_the_kernel_does_not_take_stops_with_the_tasks_line(capfd):
    y = np.zeros((64, 64), dtype=np.float32)
    sim(edges)(y)
    np.testing.assert_array_equal(y, 1)
    # 72 rows: the last block has 8, and add_one takes 16.
    y = np.zeros((72, 64), dtype=np.float32)
    capfd.readouterr()
    with pytest.raises(pto_runtime.PtoRuntimeError):
        sim(edges)(y)
    log = capfd.readouterr().err
    assert f"the task at {__file__}:{line_of(edges, 'wsp.task(')}:9 gives add_one a block of extent 8 in dimension 0, where its parameter takes 16" in log, log


def test_static_extents_of_kernel_parameters_are_checked_in_the_orchestration(tmp_path):
    _, orchestration = package(streamed, "pto-a2a3sim", tmp_path)
    assert 'htp_schedule.fits(view, 0, 16, "add_one");' in orchestration


# --- The three WSP examples (examples/python/wsp) on a2a3sim ------------------------------

def load_wsp_example(name):
    import importlib.util
    path = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "wsp" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"htp_wsp_example_pto_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name, workload", [("split_kv_decode", "split_kv_decode"), ("moe", "moe"),
                                            ("lightning_indexer", "lightning_indexer")])
def test_the_wsp_examples_package_for_pto(name, workload, target, tmp_path):
    program = getattr(load_wsp_example(name), workload)
    package = pathlib.Path(program.compile(target=target).write_package(str(tmp_path / name)))
    orchestration = list(package.glob("orchestration/*.cpp"))
    assert len(orchestration) == 1 and "htp_schedule::Schedule" in orchestration[0].read_text()
    assert json.loads((package / "manifest.json").read_text())


@needs_runtime
def test_split_kv_decode_on_a2a3sim():
    decode = load_wsp_example("split_kv_decode")
    lens = np.array([17, 600, 130, 64, 1, 300], np.int32)
    B, H, L = len(lens), 2, int(lens.max())
    q = rng.standard_normal((B, H, 64)).astype(np.float32)
    k = rng.standard_normal((B, H, L, 64)).astype(np.float32)
    v = rng.standard_normal((B, H, L, 64)).astype(np.float32)
    po = np.zeros((B, H, 32, 64), np.float32)
    plse = np.zeros((B, H, 32, 1), np.float32)
    o = np.zeros((B, H, 64), np.float32)
    plan = np.zeros((1, 1), np.int32)
    sim(decode.split_kv_decode)(q, k, v, lens, po, plse, o, plan, np.float32(0.125))
    np.testing.assert_allclose(o, decode.reference(q, k, v, lens, 0.125), atol=2e-5)
    # The planner ran in the orchestration: one segment per available cluster.
    assert plan[0, 0] >= 1


@needs_runtime
def test_moe_on_a2a3sim():
    moe = load_wsp_example("moe")
    x = rng.standard_normal((moe.T, moe.D)).astype(np.float32)
    wg = rng.standard_normal((moe.D, moe.E)).astype(np.float32)
    w = (rng.standard_normal((moe.E, moe.D, moe.F)) / 8).astype(np.float32)
    out = np.zeros((moe.T, moe.F), np.float32)
    ids = np.zeros((moe.E * moe.T, 1), np.int32)
    counts = np.zeros((moe.E, 1), np.int32)
    pos1, pos2 = np.zeros((moe.T, 1), np.int32), np.zeros((moe.T, 1), np.int32)
    gate1, gate2 = np.zeros((moe.T, 1), np.float32), np.zeros((moe.T, 1), np.float32)
    y = np.zeros((moe.E * moe.T, moe.F), np.float32)
    sim(moe.moe)(x, wg, w, out, ids, counts, pos1, pos2, gate1, gate2, y)
    expected, expected_counts = moe.reference(x, wg, w)
    np.testing.assert_array_equal(counts.ravel(), expected_counts)
    np.testing.assert_allclose(out, expected, atol=1e-4)


@needs_runtime
def test_lightning_indexer_on_a2a3sim():
    indexer = load_wsp_example("lightning_indexer")
    lens = np.array([7, 256, 257, 700, 1500], np.int32)
    q = rng.standard_normal((len(lens), 4, 64)).astype(np.float32)
    k = rng.standard_normal((len(lens), int(lens.max()), 64)).astype(np.float32)
    w = rng.random((4, 1)).astype(np.float32)
    scores = np.zeros((len(lens), k.shape[1]), np.float32)
    top = np.zeros((len(lens), indexer.K), np.int32)
    sim(indexer.lightning_indexer)(q, k, w, lens, scores, top)
    np.testing.assert_array_equal(top, indexer.reference(q, k, w, lens))


# ---------------------------------------------------------------- issue 26: the cpu's rules on PTO

@needs_runtime
def test_an_empty_batch_returns_an_empty_output_as_on_the_cpu():
    x = np.zeros((0, 64), np.float32)
    y = np.zeros_like(x)
    sim(blocks)(x, y)
    blocks(x, y)
    assert y.shape == (0, 64)


@wsp.workload
def one_block_at(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], start: htp.i64):
    for _ in wsp.parallel(1):
        wsp.task(scale_rows, x[start:start + 16, :], y[start:start + 16, :], 2.0)


def test_a_view_starting_past_the_end_stops_the_orchestration_at_its_line(tmp_path):
    # The check is in the package on both targets; on a2a3sim it stops the run (below).
    package = one_block_at.compile(target="pto-a2a3sim").files
    orchestration = next(text for path, text in package.items() if path.endswith(".cpp") and "starts_within" in text)
    assert "test_wsp_pto.py:" in orchestration


@needs_runtime
def test_a_view_starting_past_the_end_is_an_error_on_a2a3sim_as_on_the_cpu():
    x = rng.standard_normal((32, 64)).astype(np.float32)
    with pytest.raises(IndexError, match="starts at 48 in dimension 0 of 'x', which has 32"):
        one_block_at(x, np.zeros_like(x), 48)
    # The orchestration stops the run (the message, with the view's line, is in pto-runtime's log;
    # its Python error carries only the code), never an empty result.
    with pytest.raises(Exception, match="failed with code -5"):
        sim(one_block_at)(x, np.zeros_like(x), 48)
    y = np.zeros_like(x)
    sim(one_block_at)(x, y, 16)
    np.testing.assert_allclose(y[16:], 2 * x[16:], rtol=1e-6)


# --- issue 26: long sequential loops, repeated and concurrent calls, unwritten outputs -------------

@wsp.workload
def chain(y: htp.InOut[f32, "N", 64]):
    for s in wsp.seq(y.shape[0] // 16):
        wsp.task(add_one, y[s * 16:s * 16 + 16, :])


@wsp.workload
def rounds(y: htp.InOut[f32, "N", 64], n: htp.i32):
    for s in wsp.seq(n):
        for b in wsp.parallel(y.shape[0] // 16):
            wsp.task(add_one, y[b * 16:b * 16 + 16, :])


@wsp.workload
def loose(y: htp.InOut[f32, "N", 64]):
    # Tasks outside every wsp loop: the orchestration's own scope, which ends only with the run.
    for b in range(y.shape[0] // 16):
        wsp.task(add_one, y[b * 16:b * 16 + 16, :])


def test_an_outermost_seq_loop_counts_its_barrier_in_the_scope():
    # 7 tasks and the order barrier: 8, more than window=8 holds (7).
    @wsp.workload
    def seven(y: htp.InOut[f32, "N", 64]):
        for s in wsp.seq(2):
            for i in wsp.parallel(7):
                wsp.task(add_one, y[i * 16:i * 16 + 16, :])

    with pytest.raises(htp.CompileError) as error:
        wsp.schedule(seven, window=8).compile(target="pto-a2a3sim")
    assert "scope of 8 tasks" in str(error.value), error.value


def test_the_order_barrier_is_submitted_inside_the_iterations_scope(tmp_path):
    _, orchestration = package(wsp.schedule(chain, window=8), "pto-a2a3sim", tmp_path)
    body = orchestration[orchestration.index("htp_schedule.open_scope("):]
    assert body.index("htp_schedule.next_iteration();") < body.index("htp_schedule.close_scope();"), body


@needs_runtime
@pytest.mark.parametrize("window", [4, 8, 16])
def test_a_long_seq_loop_runs_through_a_small_window_on_a2a3sim(window):
    # 40 iterations of one task each, and 30 rounds of two: before, each iteration's order barrier
    # stayed in the orchestration's own scope and the run failed once window - 1 had piled up.
    y = rng.standard_normal((16 * 40, 64)).astype(np.float32)
    expected = y + 1
    sim(wsp.schedule(chain, window=window))(y)
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    y = rng.standard_normal((32, 64)).astype(np.float32)
    expected = y + 30
    sim(wsp.schedule(rounds, window=window))(y, 30)
    np.testing.assert_allclose(y, expected, rtol=1e-6)


@needs_runtime
def test_tasks_outside_the_loops_beyond_the_window_stop_with_a_message(capfd):
    y = rng.standard_normal((16 * 6, 64)).astype(np.float32)
    expected = y + 1
    sim(wsp.schedule(loose, window=8))(y)
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    capfd.readouterr()
    with pytest.raises(pto_runtime.PtoRuntimeError, match="code -5"):
        sim(wsp.schedule(loose, window=8))(rng.standard_normal((16 * 9, 64)).astype(np.float32))
    assert "submits more than 7 tasks outside its loops' scopes" in capfd.readouterr().err


CALLS = r'''
import sys, threading
import numpy as np
sys.path.insert(0, {here!r})
import test_wsp_pto as t
program = t.sim(t.blocks)
failures = []
def call(k):
    x = np.full((16 * (k % 3 + 1), 64), float(k), np.float32)
    y = np.zeros_like(x)
    program(x, y)
    if not np.array_equal(y, 2 * x):
        failures.append(k)
for k in range(4):
    call(k)
threads = [threading.Thread(target=lambda j=j: [call(10 * j + k) for k in range(3)]) for j in range(3)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
call(99)
print("failures", failures)
'''


@needs_runtime
def test_repeated_and_concurrent_calls_on_a2a3sim():
    # In a child process: before, a thread that had run a workload crashed the process as it
    # exited (SIGSEGV), and two threads running at once corrupted each other's run.
    import subprocess
    import sys

    here = os.path.dirname(__file__)
    result = subprocess.run([sys.executable, "-c", CALLS.format(here=here)], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, (result.returncode, result.stdout[-2000:], result.stderr[-4000:])
    assert "failures []" in result.stdout, result.stdout[-2000:]


@htp.kernel
def first_rows(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 32, 64]):
    y[0:16, :] = x[:, :] + 1.0


@wsp.workload
def some_blocks(x: htp.Tensor[f32, "N", 64], lens: htp.Tensor[i32, "B"], y: htp.Out[f32, "N", 64]):
    for b, c in wsp.parallel(wsp.ragged(lens.shape[0], lens)):
        wsp.task(scale_rows, x[b * 64 + c * 16:b * 64 + c * 16 + 16, :], y[b * 64 + c * 16:b * 64 + c * 16 + 16, :], 3.0)


@needs_runtime
def test_elements_an_out_does_not_get_keep_their_values_as_on_the_cpu():
    # One rule on every target (docs/language.md, "Outputs"): before, a2a3sim returned whatever its
    # device memory held in the rows the program did not write.
    x = rng.standard_normal((16, 64)).astype(np.float32)
    for target in ["cpu", "pto-a2a3sim"]:
        y = np.full((32, 64), 7.0, np.float32)
        first_rows.compile(target)(x, y)
        np.testing.assert_allclose(y[:16], x + 1, rtol=1e-6)
        assert (y[16:] == 7.0).all(), target
    x = rng.standard_normal((256, 64)).astype(np.float32)
    lens = np.array([2, 0, 4, 1], np.int32)
    results = {}
    for target in ["cpu", "pto-a2a3sim"]:
        y = np.full_like(x, -5.0)
        some_blocks.compile(target=target)(x, lens, y)
        results[target] = y
    np.testing.assert_allclose(results["pto-a2a3sim"], results["cpu"], rtol=1e-6)
    assert (results["cpu"][64:128] == -5.0).all()


# --- paged decode attention with GQA (ported from PyPTO's example; issue 26) ----------------------

@htp.kernel
def paged_group(q: htp.Tensor[f32, 4, 64], kc: htp.Tensor[f32, "P", 64], vc: htp.Tensor[f32, "P", 64],
                slots: htp.Tensor[i32, "S", 1], o: htp.Out[f32, 4, 64], n: htp.i32, scale: f32):
    # One KV head's group of 4 query heads over the request's pages (a block table as slot rows).
    m = htp.full((4, 1), -1.0e30, f32)
    l = htp.zeros((4, 1), f32)
    acc = htp.zeros((4, 64), f32)
    for j in range(0, n, 16):
        rows = slots[j:j + 16, :]
        s = (q[:, :] @ htp.transpose(htp.pad(htp.gather(kc, rows, 0, 64), 0.0))) * scale
        s = htp.where(htp.iota((4, 16), 1, i32) + j >= n, -1.0e30, s)
        m_new = htp.maximum(m, htp.row_max(s))
        p = htp.exp(s - m_new)
        alpha = htp.exp(m - m_new)
        l = l * alpha + htp.row_sum(p)
        acc = acc * alpha + p @ htp.pad(htp.gather(vc, rows, 0, 64), 0.0)
        m = m_new
    o[:, :] = acc / l


@wsp.workload
def paged_decode(q: htp.Tensor[f32, "B", "HQ", 64], kc: htp.Tensor[f32, "KV", "P", 64], vc: htp.Tensor[f32, "KV", "P", 64],
                 slots: htp.Tensor[i32, "B", "S", 1], lens: htp.Tensor[i32, "B"], o: htp.Out[f32, "B", "HQ", 64], scale: f32):
    for b, h in wsp.parallel(q.shape[0], kc.shape[0]):
        n = wsp.read(lens, b)
        wsp.task(paged_group, q[b, h * 4:h * 4 + 4, :], kc[h, 0:192, :], vc[h, 0:192, :], slots[b, 0:64, :],
                 o[b, h * 4:h * 4 + 4, :], n, scale)


@needs_runtime
def test_paged_decode_with_gqa_on_a2a3sim_as_on_the_cpu():
    # Lengths that are not multiples of the 16-slot block: 37, 5, 64, 50 (before the fix of a narrow
    # cube result's crossing, a2a3sim was off by up to 2.97).
    gen = np.random.default_rng(4)
    page, pages, heads = 16, 12, 2
    lens = np.array([37, 5, 64, 50], np.int32)
    kc = gen.standard_normal((heads, pages * page, 64), dtype=np.float32)
    vc = gen.standard_normal((heads, pages * page, 64), dtype=np.float32)
    table = np.stack([gen.permutation(pages)[:4] for _ in lens])
    slots = (table[:, :, None] * page + np.arange(page)).reshape(len(lens), 64, 1).astype(np.int32)
    q = gen.standard_normal((len(lens), heads * 4, 64), dtype=np.float32)
    expected = np.zeros(q.shape)
    for b, n in enumerate(lens):
        for h in range(heads):
            keys, values = kc[h][slots[b, :n, 0]].astype(np.float64), vc[h][slots[b, :n, 0]]
            s = q[b, h * 4:h * 4 + 4] @ keys.T * 0.125
            p = np.exp(s - s.max(1, keepdims=True))
            expected[b, h * 4:h * 4 + 4] = (p / p.sum(1, keepdims=True)) @ values
    outputs = {}
    for target in ["cpu", "pto-a2a3sim"]:
        o = np.zeros(q.shape, np.float32)
        paged_decode.compile(target=target)(q, kc, vc, slots, lens, o, np.float32(0.125))
        outputs[target] = o
        np.testing.assert_allclose(o, expected, rtol=1e-4, atol=1e-4, err_msg=target)
    np.testing.assert_allclose(outputs["pto-a2a3sim"], outputs["cpu"], rtol=1e-5, atol=1e-5)


@wsp.workload
def heads_by_ragged(x: htp.Tensor[f32, "H", "N", 64], lens: htp.Tensor[i32, "B"], y: htp.InOut[f32, "H", "N", 64]):
    # A dense axis times a ragged one: (h, b, c) for every head, request and block of the request.
    for h, b, c in wsp.parallel(x.shape[0], wsp.ragged(lens.shape[0], lens)):
        r = b * 64 + c * 16
        wsp.task(scale_rows, x[h, r:r + 16, :], y[h, r:r + 16, :], 3.0 + float(h))


@needs_runtime
@pytest.mark.parametrize("lens", [[4, 0, 2, 3], [1, 1, 1, 1], [0, 0, 4, 0]], ids=["mixed", "ones", "one request"])
def test_a_dense_by_ragged_loop_on_a2a3sim_as_on_the_cpu(lens):
    lens = np.array(lens, np.int32)
    x = rng.standard_normal((3, 256, 64)).astype(np.float32)
    outputs = {}
    for target in ["cpu", "pto-a2a3sim"]:
        y = np.full_like(x, -1.0)
        heads_by_ragged.compile(target=target)(x, lens, y)
        outputs[target] = y
    expected = np.full_like(x, -1.0)
    for h in range(3):
        for b, n in enumerate(lens):
            expected[h, b * 64:b * 64 + 16 * n] = (3.0 + h) * x[h, b * 64:b * 64 + 16 * n]
    np.testing.assert_allclose(outputs["cpu"], expected, rtol=1e-6)
    np.testing.assert_allclose(outputs["pto-a2a3sim"], expected, rtol=1e-6)


def test_static_metrics_of_a_workload_count_its_tasks_and_barriers():
    # steps: three ordered iterations of N / 16 tasks, each iteration ending with a barrier task.
    compiled = steps.compile(target="pto-a2a3sim")
    y = np.zeros((64, 64), np.float32)
    metrics = compiled.metrics(y)
    assert metrics["tasks"] == 3 * 4 + 3, metrics
    assert metrics["read_bytes.y"] == metrics["write_bytes.y"] == 3 * y.nbytes, metrics


def test_static_metrics_refuse_a_workload_whose_tasks_depend_on_data():
    compiled = ragged.compile(target="pto-a2a3sim")
    with pytest.raises(Exception) as info:
        compiled.metrics(np.zeros((64, 64), np.float32), np.zeros(4, np.int32), np.zeros((64, 64), np.float32))
    assert "its tasks depend on the data, which static metrics do not have" in str(info.value), str(info.value)
