"""Activations (docs/language.md, "Activations"): their tails and special values on the cpu, and the
user's errors at the line. Accuracy over ordinary inputs, per element type and target, is the
conformance suite's (`activation/` cases of docs/support-matrix.md)."""

import math

import numpy as np
import pytest

import htp
from sources import kernel_from

PRELUDE = "import htp\nfrom htp import f32\n"
KERNEL = PRELUDE + '''
@htp.kernel
def k(x: htp.Tensor[f32, 8, 8], y: htp.Out[f32, 8, 8]):
    y[0:8, 0:8] = {EXPR}
'''
TAILS = np.array([-1e4, -100.0, -30.0, -10.0, -1e-6, 0.0, 1e-6, 10.0, 30.0, 100.0, 1e4, -0.5, 0.5, -2.0, 2.0, 3.0] * 4, np.float64).reshape(8, 8)
ERF = np.vectorize(math.erf, otypes=[np.float64])
REFERENCE = {
    "htp.sigmoid(x[0:8, 0:8])": lambda x: 0.5 * (1.0 + np.tanh(0.5 * x)),
    "htp.silu(x[0:8, 0:8])": lambda x: x * 0.5 * (1.0 + np.tanh(0.5 * x)),
    "htp.tanh(x[0:8, 0:8])": np.tanh,
    "htp.erf(x[0:8, 0:8])": ERF,
    "htp.gelu(x[0:8, 0:8])": lambda x: 0.5 * x * (1.0 + ERF(x / math.sqrt(2.0))),
    "htp.gelu(x[0:8, 0:8], approximate='tanh')": lambda x: 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3))),
    "htp.softplus(x[0:8, 0:8])": lambda x: np.logaddexp(x, 0.0),
}


@pytest.mark.parametrize("expr", sorted(REFERENCE))
def test_tails_stay_finite_and_right(expr):
    kernel = kernel_from(KERNEL.replace("{EXPR}", expr), "k")
    x = TAILS.astype(np.float32)
    y = kernel(x)
    assert np.all(np.isfinite(y)), y
    np.testing.assert_allclose(y, REFERENCE[expr](x.astype(np.float64)), rtol=1e-5, atol=1e-6)


def test_nan_stays_nan():
    kernel = kernel_from(KERNEL.replace("{EXPR}", "htp.gelu(x[0:8, 0:8]) + htp.softplus(x[0:8, 0:8])"), "k")
    x = np.full((8, 8), np.nan, np.float32)
    assert np.all(np.isnan(kernel(x)))


@pytest.mark.parametrize("expr, text", [
    ("htp.gelu(x[0:8, 0:8], approximate='fast')", "gelu()'s approximate is \"none\" (the erf form) or \"tanh\", got the string \"fast\""),
    ("htp.tanh(1.0) + x[0:8, 0:8]", "htp.tanh needs a tile, got"),
    ("htp.sigmoid(htp.cast(x[0:8, 0:8], htp.i32))", "htp.sigmoid needs a floating-point tile, got a tile[8x8, i32"),
])
def test_errors_at_the_line(expr, text):
    kernel = kernel_from(KERNEL.replace("{EXPR}", expr), "k")
    with pytest.raises(htp.CompileError) as info:
        kernel.compile()
    message = str(info.value)
    assert text in message, message
    assert ".py:6:" in message, message
