"""`htp.zeros_like`, `htp.ones_like`, `htp.full_like` (docs/language.md, "Making tiles"): a
constant tile with another tile's shape and valid region — what a ragged block combines with —
against numpy on the cpu and on pto-a2a3sim (skipped, visibly, without the simulator); and
run-time scalars' defaults at a call ("Parameters")."""

import numpy as np
import pytest
from unittest import mock

import conformance as c
import htp
from htp import f16, f32, i32
from htp.pto import runtime as pto_runtime
from simulators import on_a2a3sim
from sources import kernel_from
from test_errors import refused

SIM = "pto-a2a3sim"


def targets():
    return ["cpu", pytest.param(SIM, marks=on_a2a3sim)]


def run(kernel, target, *args, **keywords):
    compiled = kernel.compile(target)
    if target == SIM:
        with mock.patch.object(pto_runtime, "run_package", c.run_package_in_a_child):
            return compiled(*args, **keywords)
    return compiled(*args, **keywords)


@htp.kernel
def top2_gates(logits: htp.Tensor[f32, "T", 64], gates: htp.Out[f32, "T", 64]):
    # A ragged 16-row tail: the zeros the scatter writes into must be as ragged as the block.
    for i in range(0, logits.shape[0], 16):
        p = logits[i:i + 16, :]
        v, j = htp.topk(p, 2)
        gates[i:i + 16, :] = htp.scatter(htp.zeros_like(p), j, v / htp.row_sum(v), axis=1)


@pytest.mark.parametrize("target", targets())
@pytest.mark.parametrize("rows", [16, 37, 5])
def test_zeros_like_of_a_ragged_block_is_what_a_scatter_writes_into(target, rows):
    x = np.random.default_rng(rows).standard_normal((rows, 64)).astype(np.float32)
    index = np.argsort(-x, axis=1, kind="stable")[:, :2]
    values = np.take_along_axis(x, index, 1)
    expected = np.zeros_like(x)
    np.put_along_axis(expected, index, values / values.sum(1, keepdims=True), 1)
    np.testing.assert_allclose(run(top2_gates, target, x), expected, rtol=1e-6, atol=1e-6)


@htp.kernel
def like_forms(x: htp.Tensor[f16, "N", 32], y: htp.Out[f32, "N", 32], z: htp.Out[i32, "N", 32], s: f32):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        # ones_like keeps f16; full_like of a run-time scalar in f32; zeros_like in i32.
        y[i:i + 16, :] = htp.cast(t * htp.ones_like(t), f32) + htp.full_like(t, s, dtype=f32)
        z[i:i + 16, :] = htp.zeros_like(t, dtype=i32) + 7


@pytest.mark.parametrize("target", targets())
def test_ones_full_and_zeros_like_with_and_without_a_dtype(target):
    x = np.random.default_rng(3).standard_normal((21, 32)).astype(np.float16)
    y, z = run(like_forms, target, x, s=2.5)
    np.testing.assert_allclose(y, x.astype(np.float32) + 2.5, rtol=1e-3)
    assert z.dtype == np.int32 and (z == 7).all()


@htp.kernel
def accumulate_ragged(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        acc = htp.full_like(t, 1.0)
        for k in range(3):
            acc = acc + t
        y[i:i + 16, :] = acc


@pytest.mark.parametrize("target", targets())
def test_an_accumulator_like_a_ragged_block(target):
    x = np.random.default_rng(4).standard_normal((37, 64)).astype(np.float32)
    np.testing.assert_array_equal(run(accumulate_ragged, target, x), ((np.float32(1.0) + x) + x) + x)


ERRORS = """import htp
from htp import f32

@htp.kernel
def k(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], s: f32):
    t = x[0:16, :]
    {STMT}
"""


@pytest.mark.parametrize("statement, at, text", [
    ("y[0:16, :] = htp.zeros_like(s)", "s)", "htp.zeros_like() takes a tile first, got a f32 scalar"),
    ("y[0:16, :] = htp.full_like(t)", "htp.full_like", "full_like() is missing the argument 'value'"),
    ("y[0:16, :] = htp.ones_like(t, dtype=7)", "dtype=7", "expected an element type (htp.f32, ...), got the integer constant 7"),
])
def test_user_errors_at_their_line(statement, at, text):
    refused(kernel_from(ERRORS.replace("{STMT}", statement), "k"), "cpu", text, at)


@htp.kernel
def scaled(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], scale: f32 = 0.5, shift: i32 = 3):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * scale + htp.f32(shift)


def test_a_run_time_scalar_left_out_takes_its_default():
    x = np.random.default_rng(5).standard_normal((20, 64)).astype(np.float32)
    np.testing.assert_allclose(scaled(x), x * 0.5 + 3, rtol=1e-6)
    np.testing.assert_allclose(scaled(x, scale=2.0), x * 2.0 + 3, rtol=1e-6)
    np.testing.assert_allclose(scaled.compile("cpu")(x, shift=-1), x * 0.5 - 1, rtol=1e-6)
    with pytest.raises(htp.ArgumentError, match="missing argument 'x'"):
        scaled()
