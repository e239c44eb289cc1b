"""`CompiledKernel.prepare`: a call checked once, run many times (a serving loop's step), and the
task runtime a workload keeps between calls."""

import numpy as np
import pytest

import htp
from htp import f32

wsp = htp.model("wsp")


@htp.kernel
def add1(x: htp.Tensor[f32, 16, 16], y: htp.Out[f32, 16, 16]):
    y[:, :] = x[:, :] + 1.0


@wsp.workload
def tiles(x: htp.Tensor[f32, "N", 16], y: htp.Out[f32, "N", 16]):
    for i in wsp.parallel(wsp.dense(x.shape[0] // 16)):
        wsp.task(add1, x[i * 16:i * 16 + 16, :], y[i * 16:i * 16 + 16, :])


@htp.kernel
def scale(x: htp.Tensor[f32, "N", 16], y: htp.Out[f32, "N", 16], s: f32):
    for r in range(0, x.shape[0], 16):
        y[r:r + 16, :] = x[r:r + 16, :] * s


def test_a_prepared_workload_runs_on_the_arrays_as_they_are_at_each_call():
    x = np.arange(64 * 16, dtype=np.float32).reshape(64, 16)
    y = np.zeros_like(x)
    step = tiles.compile("cpu").prepare(x, y)
    for k in range(5):
        x[...] = k  # a serving loop writes its inputs in place between steps
        assert step() is y
        np.testing.assert_array_equal(y, k + 1)


def test_an_omitted_output_is_allocated_once_and_returned_by_every_call():
    x = np.ones((32, 16), np.float32)
    step = scale.compile("cpu").prepare(x, s=2.0)
    first = step()
    np.testing.assert_array_equal(first, 2.0)
    x[...] = 3
    assert step() is first
    np.testing.assert_array_equal(first, 6.0)


def test_prepare_checks_the_arguments_at_the_callers_line():
    compiled = tiles.compile("cpu")
    with pytest.raises(htp.ArgumentError, match=r"test_wsp_prepared.py:\d+:\d+: error: tiles\(\): 'x' must have dtype"):
        compiled.prepare(np.ones((32, 16), np.float64), np.ones((32, 16), np.float32))
    with pytest.raises(htp.ArgumentError, match="dimension 0 is 16, but 'N' is 32"):
        compiled.prepare(np.ones((32, 16), np.float32), np.ones((16, 16), np.float32))


def test_an_array_reshaped_in_place_after_prepare_is_an_error_not_a_wrong_call():
    x = np.ones((32, 16), np.float32)
    y = np.zeros_like(x)
    step = tiles.compile("cpu").prepare(x, y)
    y.shape = (16, 32)
    with pytest.raises(htp.ArgumentError, match="changed its shape or strides since prepare"):
        step()


def test_strided_and_overlapping_arguments_are_copied_again_at_every_call():
    base = np.zeros((32, 32), np.float32)
    x = base[:, ::2]  # strided: handed over as a copy
    y = np.zeros((32, 16), np.float32)
    step = tiles.compile("cpu").prepare(x, y)
    for k in range(3):
        base[...] = k
        step()
        np.testing.assert_array_equal(y, k + 1)
    # In place: x is y, so the input is a copy made before the kernel writes.
    z = np.full((32, 16), 5, np.float32)
    in_place = tiles.compile("cpu").prepare(z, z)
    in_place()
    in_place()
    np.testing.assert_array_equal(z, 7)


def test_a_workload_called_many_times_and_from_threads_gives_numpys_result():
    # The task runtime of a call is kept for the next ones (and one per concurrent call).
    import threading

    policies = ["dynamic", "work_stealing", "round_robin", "affinity"]
    programs = [wsp.schedule(tiles, dispatch=p, workers=w) for p in policies for w in (1, 2, 3)]
    failures = []

    def calls(program, seed):
        rng = np.random.default_rng(seed)
        for _ in range(20):
            n = int(rng.integers(1, 40))
            x = rng.standard_normal((16 * n, 16), dtype=np.float32)
            y = np.zeros_like(x)
            program(x, y)
            if not np.array_equal(y, x + 1):
                failures.append((program, n))

    for program in programs:
        calls(program, 0)
        threads = [threading.Thread(target=calls, args=(program, seed)) for seed in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not failures


def test_a_call_may_change_some_arguments_for_itself_checked_against_the_prepared_ones():
    x = np.ones((32, 16), np.float32)
    y = np.zeros_like(x)
    step = scale.compile("cpu").prepare(x, y, s=2.0)
    other = np.full((32, 16), 5, np.float32)
    assert step(x=other, s=3.0) is y
    np.testing.assert_array_equal(y, 15.0)
    step()  # the prepared arguments again
    np.testing.assert_array_equal(y, 2.0)
    out = np.zeros_like(x)
    assert step(y=out) is out
    np.testing.assert_array_equal(out, 2.0)
    # In place (overlapping the output): handed over as numpy's rule says, by the full call.
    step(x=y)
    np.testing.assert_array_equal(y, 4.0)
    with pytest.raises(htp.ArgumentError, match="dimension 0 is 16, but 'N' is 32"):
        step(x=np.ones((16, 16), np.float32))
    with pytest.raises(htp.ArgumentError, match="'x' must have dtype"):
        step(x=np.ones((32, 16), np.float64))
    with pytest.raises(htp.ArgumentError, match="no run-time argument 'z' to change"):
        step(z=1)
    with pytest.raises(htp.ArgumentError, match=r"'s' \(htp.f32\) must be a float or an int"):
        step(s="2")
