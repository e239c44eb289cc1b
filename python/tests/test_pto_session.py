"""Sessions on pto-runtime (htp.pto.runtime.open_session): one worker kept up across runs of one
package, some tensor arguments resident in device memory (weights, a cache, an accumulator), the
others staged per run as run_package stages them. On a2a3sim: every run matches numpy, placed
tensors are copied once (the session's counters, and the runtime's own log, which names each
tensor it passes through unstaged), and misuse is a PtoRuntimeError naming the tensor."""

import gc
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import htp
from htp import f32, i32
from htp.pto import runtime as pto_runtime
from htp.pto.runtime import DeviceTensor, PtoRuntimeError, open_session
from simulators import on_a2a3sim

wsp = htp.model("wsp")
rng = np.random.default_rng(23)

pytestmark = on_a2a3sim


@htp.kernel
def add_scaled(x: htp.Tensor[f32, 16, 64], acc: htp.InOut[f32, 16, 64], s: f32):
    acc[:, :] = acc[:, :] + x[:, :] * s


@wsp.workload
def accumulate(x: htp.Tensor[f32, "N", 64], acc: htp.InOut[f32, "N", 64], s: f32):
    for i in wsp.parallel(x.shape[0] // 16):
        wsp.task(add_scaled, x[i * 16:i * 16 + 16, :], acc[i * 16:i * 16 + 16, :], s)


@htp.kernel
def mul_rows(x: htp.Tensor[f32, 16, 64], w: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = x[:, :] * w[:, :]


@wsp.workload
def weighted(x: htp.Tensor[f32, "N", 64], w: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in wsp.parallel(x.shape[0] // 16):
        wsp.task(mul_rows, x[i * 16:i * 16 + 16, :], w[i * 16:i * 16 + 16, :], y[i * 16:i * 16 + 16, :])


@htp.kernel
def scale_block(x: htp.Tensor[f32, 16, 64], y: htp.InOut[f32, 16, 64]):
    y[:, :] = x[:, :] * 3.0


@wsp.workload
def paged(x: htp.Tensor[f32, "N", 64], lens: htp.Tensor[i32, "B"], y: htp.InOut[f32, "N", 64]):
    # The lengths are read by the orchestration (on AICPU), not by a kernel: a block table.
    for b, c in wsp.parallel(wsp.ragged(lens.shape[0], lens)):
        r = b * 64 + c * 16
        wsp.task(scale_block, x[r:r + 16, :], y[r:r + 16, :])


_packages = {}


def package_of(workload) -> str:
    if workload.name not in _packages:
        _packages[workload.name] = workload.compile(target="pto-a2a3sim")._package_directory()
    return _packages[workload.name]


def f32s(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_state_stays_on_the_device_across_steps_on_a2a3sim():
    acc0, xs = f32s(64, 64), [f32s(64, 64) for _ in range(5)]
    with open_session(package_of(accumulate)) as session:
        acc = session.place("acc", acc0)
        assert isinstance(acc, DeviceTensor) and acc.shape == (64, 64) and acc.dtype == np.float32
        for step, x in enumerate(xs):
            session.run([x, acc], [step + 1.0])
        assert session.copies["downloads"]["acc"] == 0  # nothing came back while stepping
        got = session.read(acc)
        copies = session.copies
    want = acc0.copy()
    for step, x in enumerate(xs):
        want += x * (step + 1.0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert copies["uploads"] == {"acc": 1, "x": 5}  # the state once, the input every step
    assert copies["downloads"] == {"acc": 1}  # only at read; an `in` array is not copied back


def test_the_runtime_passes_a_placed_tensor_through_unstaged_on_a2a3sim(capfd, monkeypatch):
    # The runtime's own account (its debug log, runtime_maker.cpp `stage_device_args`): each run
    # stages `x` (a host array) and passes `acc` (device memory) through.
    monkeypatch.setenv("HTP_PTO_LOG_LEVEL", "debug")
    directory = package_of(accumulate)
    x = f32s(32, 64)
    try:
        with open_session(directory) as session:
            acc = session.place("acc", np.zeros((32, 64), np.float32))
            capfd.readouterr()
            for _ in range(3):
                session.run([x, acc], [1.0])
            log = capfd.readouterr().err
            np.testing.assert_allclose(session.read(acc), 3 * x, rtol=1e-6)
    finally:
        monkeypatch.setenv("HTP_PTO_LOG_LEVEL", "warn")
        pto_runtime._set_log_level()
    assert len(re.findall(r"ChipTensor 1: child memory, pass-through", log)) == 3, log[-3000:]
    assert len(re.findall(r"ChipTensor 0: \d+ bytes at", log)) == 3, log[-3000:]
    assert not re.search(r"ChipTensor 1: \d+ bytes at", log)  # acc was never staged


def test_read_only_weights_and_plain_outputs_on_a2a3sim():
    w0 = f32s(48, 64)
    with open_session(package_of(weighted)) as session:
        w = session.place(1, w0)  # by position among the tensor arguments
        assert w.name == "w"
        for _ in range(3):
            x, y = f32s(48, 64), np.zeros((48, 64), np.float32)
            session.run([x, w, y], [])
            np.testing.assert_allclose(y, x * w0, rtol=1e-6)
        # The weights were never written: reading them gives what was placed.
        np.testing.assert_array_equal(session.read(w), w0)
        copies = session.copies
    assert copies["uploads"] == {"w": 1, "x": 3, "y": 3}  # an `out` array is staged as inout
    assert copies["downloads"] == {"w": 1, "y": 3}


def test_write_replaces_state_and_arrays_still_run_on_a2a3sim():
    with open_session(package_of(accumulate)) as session:
        acc = session.place("acc", np.zeros((16, 64), np.float32))
        x = f32s(16, 64)
        session.run([x, acc], [2.0])
        session.write(acc, np.ones((16, 64), np.float32))
        session.run([x, acc], [1.0])
        np.testing.assert_allclose(session.read(acc), 1.0 + x, rtol=1e-6)
        # The same session runs with every tensor a numpy array, as run_package does.
        plain = np.full((16, 64), 5.0, np.float32)
        session.run([x, plain], [1.0])
        np.testing.assert_allclose(plain, 5.0 + x, rtol=1e-6)
        # A second allocation for the same argument (double buffering) is its own memory.
        other = session.place("acc", np.zeros((16, 64), np.float32))
        session.run([x, other], [1.0])
        np.testing.assert_allclose(session.read(other), x, rtol=1e-6)
        np.testing.assert_allclose(session.read(acc), 1.0 + x, rtol=1e-6)
        session.free(other)
        with pytest.raises(PtoRuntimeError, match="'acc'.*freed"):
            session.run([x, other], [1.0])
        assert session.copies["uploads"]["acc"] == 3 + 1  # place, write, place; and the plain run


def test_the_orchestration_reads_a_placed_index_tensor_on_a2a3sim():
    lens0 = np.array([2, 4, 1], np.int32)
    x = f32s(192, 64)
    with open_session(package_of(paged)) as session:
        lens = session.place("lens", lens0)
        y = np.zeros((192, 64), np.float32)
        session.run([x, lens, y], [])
    want = np.zeros((192, 64), np.float32)
    for b, n in enumerate(lens0):
        want[b * 64:b * 64 + n * 16] = x[b * 64:b * 64 + n * 16] * 3.0
    np.testing.assert_allclose(y, want, rtol=1e-6)


def test_misuse_names_the_tensor_on_a2a3sim():
    session = open_session(package_of(accumulate))
    other = open_session(package_of(accumulate))
    try:
        with pytest.raises(PtoRuntimeError, match=r"tensor 'acc': dim 1 is 32, manifest says 64"):
            session.place("acc", np.zeros((16, 32), np.float32))
        with pytest.raises(PtoRuntimeError, match=r"tensor 'acc': dtype float64 does not match manifest dtype float32"):
            session.place("acc", np.zeros((16, 64)))
        with pytest.raises(PtoRuntimeError, match=r"tensor 'acc': rank 1"):
            session.place("acc", np.zeros(64, np.float32))
        with pytest.raises(PtoRuntimeError, match=r"no tensor argument 'accumulator' \(it has x, acc\)"):
            session.place("accumulator", np.zeros((16, 64), np.float32))
        with pytest.raises(PtoRuntimeError, match=r"tensor argument 2 out of range"):
            session.place(2, np.zeros((16, 64), np.float32))
        acc = session.place("acc", np.zeros((32, 64), np.float32))
        with pytest.raises(PtoRuntimeError, match=r"tensor 'acc': cannot write a float32 array of shape \(16, 64\)"):
            session.write(acc, np.zeros((16, 64), np.float32))
        # The placed acc is 32 rows, so N = 32: a 16-row x disagrees.
        with pytest.raises(PtoRuntimeError, match=r"tensor 'acc': dim 0 is 32, but N = 16 elsewhere"):
            session.run([np.zeros((16, 64), np.float32), acc], [1.0])
        with pytest.raises(PtoRuntimeError, match=r"tensor 'x': got the device tensor placed for 'acc'"):
            session.run([acc, acc], [1.0])
        with pytest.raises(PtoRuntimeError, match=r"tensor 'acc': it was placed by another session"):
            other.run([np.zeros((32, 64), np.float32), acc], [1.0])
        with pytest.raises(PtoRuntimeError, match=r"expected 1 scalars, got 0"):
            session.run([np.zeros((32, 64), np.float32), acc], [])
        assert session.copies["uploads"] == {"acc": 1}  # nothing was staged by the refused calls
    finally:
        session.close()
        other.close()
    assert session.closed
    session.close()  # a second close does nothing
    for call in (lambda: session.run([np.zeros((32, 64), np.float32), acc], [1.0]),
                 lambda: session.read(acc), lambda: session.write(acc, np.zeros((32, 64), np.float32)),
                 lambda: session.place("acc", np.zeros((32, 64), np.float32))):
        with pytest.raises(PtoRuntimeError, match="session of .* is closed"):
            call()


def test_sessions_and_run_package_interleave_on_a2a3sim():
    acc0, w0, x, x2 = f32s(64, 64), f32s(32, 64), f32s(64, 64), f32s(32, 64)
    first = open_session(package_of(accumulate))
    acc = first.place("acc", acc0)
    first.run([x, acc], [1.0])
    # Another package runs (its own worker, then gone) while the session's worker is up.
    y = np.zeros((32, 64), np.float32)
    pto_runtime.run_package(package_of(weighted), [x2, w0, y], [])
    np.testing.assert_allclose(y, x2 * w0, rtol=1e-6)
    # And a second session, open at the same time.
    with open_session(package_of(weighted)) as second:
        w = second.place("w", w0)
        first.run([x, acc], [1.0])
        second.run([x2, w, y], [])
        np.testing.assert_allclose(y, x2 * w0, rtol=1e-6)
    first.run([x, acc], [1.0])
    np.testing.assert_allclose(first.read(acc), acc0 + 3 * x, rtol=1e-5, atol=1e-5)
    # A session dropped without close() is closed on the device thread by its finalizer.
    state = first._state
    del first, acc
    gc.collect()
    pto_runtime._DEVICE.call(lambda: None)  # the finalizer's close ran before this
    assert state.worker is None and state.buffers == {}


def test_a_session_left_open_is_closed_at_exit_on_a2a3sim(tmp_path):
    script = tmp_path / "left_open.py"
    script.write_text(textwrap.dedent(f"""
        import numpy as np
        from htp.pto.runtime import open_session
        session = open_session({package_of(accumulate)!r})
        acc = session.place("acc", np.zeros((16, 64), np.float32))
        session.run([np.ones((16, 64), np.float32), acc], [1.0])
        print(session.read(acc).sum())
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["1024.0"]


def test_running_out_of_the_simulators_thread_keys_is_an_error_on_a2a3sim(tmp_path):
    # a2a3sim leaves 5 pthread keys behind per run (glibc has 1024): with too few left, a run is
    # refused with an error instead of hanging or crashing in the simulated cores.
    script = tmp_path / "keys.py"
    script.write_text(textwrap.dedent(f"""
        import ctypes
        import numpy as np
        from htp.pto.runtime import PtoRuntimeError, open_session
        libc = ctypes.CDLL(None)
        session = open_session({package_of(accumulate)!r})
        acc = session.place("acc", np.zeros((16, 64), np.float32))
        x = np.ones((16, 64), np.float32)
        session.run([x, acc], [1.0])
        held = []
        while True:  # leave 8 keys: one more run, not two
            key = ctypes.c_uint()
            if libc.pthread_key_create(ctypes.byref(key), None) != 0:
                break
            held.append(key)
        for key in held[-8:]:
            libc.pthread_key_delete(key)
        session.run([x, acc], [1.0])
        try:
            session.run([x, acc], [1.0])
        except PtoRuntimeError as e:
            print("refused:", e)
        print(session.read(acc)[0, 0])
        session.close()
    """))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "refused: pto-runtime's a2a3sim cannot run again in this process" in done.stdout
    assert done.stdout.split()[-1] == "2.0"
