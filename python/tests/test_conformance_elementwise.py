"""Conformance: elementwise arithmetic on every target, per element type.

Tile op tile (`+ - * /`, maximum/minimum), unary functions, tile op Python
number and tile op run-time scalar. Inputs are 40 x 64 so the last 16-row
block is ragged (valid for 8 rows). Expected outcomes: conformance.MATRIX."""

import math

import numpy as np
import pytest

import conformance as c
from conformance import check, parts, random, rng

BINARY = """
@htp.kernel
def binary(x: htp.Tensor[{T}, "N", 64], z: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        a = x[i:i + 16, :]
        b = z[i:i + 16, :]
        y[i:i + 16, :] = {EXPR}
"""
BINARY_REFERENCE = {
    "a + b": np.add,
    "a - b": np.subtract,
    "a * b": np.multiply,
    "a / b": np.divide,
    "htp.maximum(a, b)": np.maximum,
    "htp.minimum(a, b)": np.minimum,
}


@pytest.mark.parametrize("case, mode", c.params("binary/"))
def test_tile_op_tile(case, mode):
    expr, dtype = parts(case)
    if expr not in BINARY_REFERENCE:
        return check_spellings(case, mode)
    kernel = c.template(BINARY, T=dtype, EXPR=expr)
    gen = rng(case)
    x, z = random(gen, dtype, (40, 64)), random(gen, dtype, (40, 64))
    if expr == "a / b":
        z = np.where(np.abs(c.as_float64(z)) < 0.25, 1.0, c.as_float64(z)).astype(z.dtype)  # no near-zero divisors
    expected = BINARY_REFERENCE[expr](c.as_float64(x), c.as_float64(z))
    check(case, mode, kernel, (x, z), expected, at=expr)


SPELLINGS = """
@htp.kernel
def spellings(x: htp.Tensor[f32, "N", 64], z: htp.Tensor[f32, "N", 64], s: htp.Out[f32, "N", 64],
              d: htp.Out[f32, "N", 64], p: htp.Out[f32, "N", 64], q: htp.Out[f32, "N", 64],
              hi: htp.Out[f32, "N", 64], lo: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        a = x[i:i + 16, :]
        b = z[i:i + 16, :]
        s[i:i + 16, :] = htp.add(a, b)
        d[i:i + 16, :] = htp.sub(a, b)
        p[i:i + 16, :] = htp.mul(a, b)
        q[i:i + 16, :] = htp.div(a, b)
        hi[i:i + 16, :] = max(a, b)
        lo[i:i + 16, :] = min(a, b)
"""


def check_spellings(case, mode):
    gen = rng(case)
    x = random(gen, "f32", (40, 64))
    z = random(gen, "f32", (40, 64)) + np.float32(8.0)
    expected = (x + z, x - z, x * z, x / z, np.maximum(x, z), np.minimum(x, z))
    check(case, mode, c.template(SPELLINGS), (x, z), tuple(e.astype(np.float64) for e in expected))


UNARY = """
@htp.kernel
def unary(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = {EXPR}
"""
UNARY_REFERENCE = {
    # expression: (numpy, where a diagnostic points: the first instruction that may be missing)
    "htp.exp(t)": (np.exp, "htp.exp("),
    "htp.log(htp.abs(t) + 1.0)": (lambda x: np.log(np.abs(x) + 1.0), "htp.abs("),
    "htp.sqrt(htp.abs(t))": (lambda x: np.sqrt(np.abs(x)), "htp.abs("),
    "htp.rsqrt(htp.abs(t) + 0.5)": (lambda x: 1.0 / np.sqrt(np.abs(x) + 0.5), "htp.abs("),
    "htp.recip(t)": (lambda x: 1.0 / x, "htp.recip("),
    "htp.abs(t)": (np.abs, "htp.abs("),
    "-t": (np.negative, "-t"),
    "htp.relu(t)": (lambda x: np.maximum(x, 0), "htp.relu("),
}


@pytest.mark.parametrize("case, mode", c.params("unary/"))
def test_unary(case, mode):
    expr, dtype = parts(case)
    reference, at = UNARY_REFERENCE[expr]
    kernel = c.template(UNARY, T=dtype, EXPR=expr)
    x = random(rng(case), dtype, (40, 64))
    if expr == "htp.recip(t)":
        x = np.where(np.abs(c.as_float64(x)) < 0.25, 2.0, c.as_float64(x)).astype(x.dtype)
    scale = 2.0 if "+" in expr else 1.0  # two roundings: the + and the function
    check(case, mode, kernel, (x,), reference(c.as_float64(x)), scale=scale, at=at)


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x)


# expression: (numpy, where a diagnostic points, tolerance scale: the roundings of the composition)
ACTIVATION_REFERENCE = {
    "htp.sigmoid(t)": (lambda x: 1.0 / (1.0 + np.exp(-x)), "htp.sigmoid(", 3.0),
    "htp.silu(t)": (lambda x: x / (1.0 + np.exp(-x)), "htp.silu(", 4.0),
    "htp.tanh(t)": (np.tanh, "htp.tanh(", 4.0),
    "htp.erf(t)": (_erf, "htp.erf(", 8.0),
    "htp.gelu(t)": (lambda x: 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0))), "htp.gelu(", 8.0),
    "htp.gelu(t, approximate=\"tanh\")": (lambda x: 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3))), "htp.gelu(", 8.0),
    "htp.softplus(t)": (lambda x: np.logaddexp(x, 0.0), "htp.softplus(", 4.0),
}


@pytest.mark.parametrize("case, mode", c.params("activation/"))
def test_activation(case, mode):
    expr, dtype = parts(case)
    reference, at, scale = ACTIVATION_REFERENCE[expr]
    kernel = c.template(UNARY, T=dtype, EXPR=expr)
    x = random(rng(case), dtype, (40, 64), scale=3.0)  # |x| up to ~12: the tails where naive forms overflow
    check(case, mode, kernel, (x,), reference(c.as_float64(x)), scale=scale, at=at)


NUMBER = """
@htp.kernel
def number(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = {EXPR}
"""
NUMBER_REFERENCE = {
    "t + 2": lambda t: t + 2,
    "3 - t": lambda t: 3 - t,
    "t * 3": lambda t: t * 3,
    "max(t, 1)": lambda t: np.maximum(t, 1),
    "t ** 2": lambda t: t * t,
    "t * 0.5": lambda t: t * 0.5,
    "t / 4.0": lambda t: t / 4.0,
    "2.0 / t": lambda t: 2.0 / t,
}


@pytest.mark.parametrize("case, mode", c.params("number/"))
def test_tile_op_python_number(case, mode):
    expr, dtype = parts(case)
    kernel = c.template(NUMBER, T=dtype, EXPR=expr)
    x = random(rng(case), dtype, (40, 64))
    if expr == "2.0 / t":
        x = np.where(np.abs(c.as_float64(x)) < 0.25, 2.0, c.as_float64(x)).astype(x.dtype)
    scale = 2.0 if expr == "2.0 / t" else 1.0  # recip, then a product
    check(case, mode, kernel, (x,), NUMBER_REFERENCE[expr](c.as_float64(x)), scale=scale, at=expr)


SCALAR = """
@htp.kernel
def scalar(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64], s: {T}):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = {EXPR}
"""
SCALAR_REFERENCE = {"t * s": lambda t, s: t * s, "s - t": lambda t, s: s - t, "t / s": lambda t, s: t / s}


@pytest.mark.parametrize("case, mode", c.params("scalar/"))
def test_tile_op_runtime_scalar(case, mode):
    expr, dtype = parts(case)
    kernel = c.template(SCALAR, T=dtype, EXPR=expr)
    x = random(rng(case), dtype, (40, 64))
    s = -3 if dtype in c.INTS else -1.25  # exact in every type
    expected = SCALAR_REFERENCE[expr](c.as_float64(x), s)
    check(case, mode, kernel, (x, None, s), expected, at=expr)


MIXED = """
@htp.kernel
def mixed(x: htp.Tensor[{T}, "N", 64], z: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64], s: {T}):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        u = z[i:i + 16, :]
        y[i:i + 16, :] = {EXPR}
"""
MIXED_REFERENCE = {
    "htp.pad(t, 0) + htp.full((16, 64), 2, DT) * s": lambda t, u, s: t + 2 * s,
    "htp.pad(t, 0) + htp.pad(u, 0) * s": lambda t, u, s: t + u * s,
    "htp.pad(u, 0) * s - htp.pad(t, 0)": lambda t, u, s: u * s - t,
    "htp.abs(htp.pad(t, 0)) + htp.pad(u, 0)": lambda t, u, s: np.abs(t) + u,
    "t + htp.pad(u, 0)": lambda t, u, s: t + u,
}


@pytest.mark.parametrize("case, mode", c.params("mixed/"))
def test_padded_and_unpadded_operands(case, mode):
    """A padded tile (its type says what fills the pad) meets unpadded ones
    and run-time scalars: the 40-row inputs make the last block ragged."""
    expr, dtype = parts(case)
    source = expr.replace("DT", dtype)
    kernel = c.template(MIXED, T=dtype, EXPR=source)
    gen = rng(case)
    x, z = random(gen, dtype, (40, 64)), random(gen, dtype, (40, 64))
    s = -3 if dtype in c.INTS else -1.25  # exact in every type
    expected = MIXED_REFERENCE[expr](c.as_float64(x), c.as_float64(z), s)
    at = "htp.abs(" if "htp.abs(" in source else source  # a limit of TABS; the language's rule
    check(case, mode, kernel, (x, z, None, s), expected, at=at)
