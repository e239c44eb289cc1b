"""A kernel compiles from its own source plus the kernels and @htp.func
helpers it calls (inlined); a broken kernel elsewhere in the file does not
matter to it."""

import numpy as np
import pytest

import htp
from htp import f32


@htp.func
def gelu_tanh(t):
    inner = (t + t * t * t * 0.044715) * 0.7978845608
    e = htp.exp(inner * 2.0)
    return t * 0.5 * (1.0 + (e - 1.0) / (e + 1.0))


@htp.kernel
def scale_rows(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], k: f32):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * k


@htp.kernel
def gelu_then_scale(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = gelu_tanh(x[i:i + 16, :])
    scale_rows(y, y, 2.0)


@htp.kernel
def broken_neighbour(x: htp.Tensor[f32, 16, 16], y: htp.Out[f32, 16, 16]):
    y[:, :] = htp.no_such_function(x[:, :])  # noqa


def reference_gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def test_helpers_and_kernel_calls_are_inlined():
    x = np.random.default_rng(0).standard_normal((40, 64), dtype=np.float32)
    np.testing.assert_allclose(gelu_then_scale(x), 2 * reference_gelu(x), rtol=1e-5, atol=1e-6)
    assert "func.call" not in htp.compile(gelu_then_scale).ir["tile"]


def test_helpers_cannot_be_called_from_python():
    with pytest.raises(TypeError, match="inside kernels only"):
        gelu_tanh(np.ones(4))


def test_a_broken_kernel_does_not_break_its_neighbours():
    with pytest.raises(htp.CompileError, match="no_such_function"):
        broken_neighbour(np.ones((16, 16), dtype=np.float32))
    x = np.ones((16, 64), dtype=np.float32)
    np.testing.assert_array_equal(scale_rows(x, k=3.0), 3 * x)
