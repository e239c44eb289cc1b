"""Conformance: loops, branches, calls, constants and run-time scalars.

`for` over constant and run-time bounds, `htp.static_range`, loop-carried
tiles and scalars, constant and run-time `if`, kernels calling kernels,
`@htp.func` helpers (tuples, constants, ragged tiles), `htp.Const`
specialisation, and integer scalar arithmetic with Python's floor
semantics. Expected outcomes: conformance.MATRIX."""

import ast
import math

import numpy as np
import pytest

import conformance as c
import htp
from conformance import check, parts, random, rng

LOOPS = {
    "static_range unrolled": """
@htp.kernel
def unrolled(x: htp.Tensor[f32, "N", 256], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        acc = htp.zeros((16, 64), f32)
        for j in htp.static_range(0, 256, 64):
            acc = acc + htp.pad(x[i:i + 16, j:j + 64], 0.0) * (j // 64 + 1)
        y[i:i + 16, :] = acc
""",
    "loop-carried tile": """
@htp.kernel
def carried_tile(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, 16, 64]):
    acc = htp.zeros((16, 64), f32)
    for i in range(0, x.shape[0], 16):
        acc = htp.maximum(acc, htp.pad(x[i:i + 16, :], 0.0)) + 1.0
    y[:, :] = acc
""",
    "loop-carried scalar": """
@htp.kernel
def carried_scalar(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    s = 0.0
    for i in range(0, x.shape[0], 16):
        s = s + 0.5
        y[i:i + 16, :] = x[i:i + 16, :] * s
""",
    "run-time bounds and step": """
@htp.kernel
def runtime_bounds(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], lo: i32, hi: i32, step: i32):
    for i in range(0, lo, 16):
        y[i:i + 16, :] = x[i:i + 16, :]
    for i in range(lo, hi, step):
        y[i:i + 16, :] = x[i:i + 16, :] * 2.0
    for i in range(hi, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] - 1.0
""",
    "nested, 2-D tiling": """
@htp.kernel
def nested(x: htp.Tensor[f32, "N", "M"], y: htp.Out[f32, "N", "M"]):
    for i in range(0, x.shape[0], 16):
        for j in range(0, x.shape[1], 64):
            y[i:i + 16, j:j + 64] = x[i:i + 16, j:j + 64] * htp.f32(i // 16 + 2 * (j // 64))
""",
}


@pytest.mark.parametrize("case, mode", c.params("loop/"))
def test_loops(case, mode):
    construct, _ = parts(case)
    gen = rng(case)
    kernel = c.template(LOOPS[construct])
    if construct == "static_range unrolled":
        x = random(gen, "f32", (40, 256))
        expected = sum(x[:, j * 64:(j + 1) * 64].astype(np.float64) * (j + 1) for j in range(4))
        return check(case, mode, kernel, (x,), expected, scale=4)
    if construct == "loop-carried tile":
        x = random(gen, "f32", (70, 64))  # 5 blocks, the last valid for 6 rows (padded with 0)
        padded = np.zeros((80, 64))
        padded[:70] = x
        acc = np.zeros((16, 64))
        for block in padded.reshape(5, 16, 64):
            acc = np.maximum(acc, block) + 1.0
        return check(case, mode, kernel, (x,), acc)
    if construct == "loop-carried scalar":
        x = random(gen, "f32", (40, 64))
        factor = 0.5 * (np.arange(40) // 16 + 1)[:, None]
        return check(case, mode, kernel, (x,), x.astype(np.float64) * factor)
    if construct == "run-time bounds and step":
        x = random(gen, "f32", (90, 64))
        expected = x.astype(np.float64)
        expected[16:80] *= 2.0
        expected[80:] -= 1.0
        return check(case, mode, kernel, (x, None, 16, 80, 16), expected)
    x = random(gen, "f32", (37, 150))
    rows, cols = np.indices(x.shape)
    check(case, mode, kernel, (x,), x * (rows // 16 + 2 * (cols // 64)).astype(np.float64))


BRANCHES = {
    "constant condition": """
@htp.kernel
def constant_if(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], NEGATE: htp.Const[bool] = False):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        if NEGATE:
            t = -t
        else:
            t = t + htp.not_a_function_and_never_compiled(t) if NEGATE else t * 3.0
        y[i:i + 16, :] = t
""",
    "run-time, static valid size": """
@htp.kernel
def runtime_if(x: htp.Tensor[f32, 64, 64], y: htp.Out[f32, 64, 64], threshold: i32):
    for i in range(0, 64, 16):
        t = x[i:i + 16, :]
        u = t
        if i >= threshold:
            u = htp.exp(t) * 2.0
        elif i == 0:
            u = t - 1.0
        y[i:i + 16, :] = u
""",
    "run-time, ragged tile": """
@htp.kernel
def runtime_if_ragged(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], flag: i32):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        if flag > 0:
            u = t * 2.0
        else:
            u = t + 100.0
        y[i:i + 16, :] = u
""",
    "run-time, ragged, a tile and a column": """
@htp.kernel
def runtime_if_ragged2(x: htp.Tensor[f32, "N", 128], y: htp.Out[f32, "N", 128], flag: i32):
    for i in range(0, x.shape[0], 16):
        for j in range(0, x.shape[1], 64):
            t = x[i:i + 16, j:j + 64]
            if flag > 0:
                u = t * 2.0
                s = htp.row_max(t)
            else:
                u = t + 100.0
                s = htp.row_sum(t)
            y[i:i + 16, j:j + 64] = u - s
""",
    "run-time scalar result": """
@htp.kernel
def runtime_scalar_if(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], limit: f32):
    for i in range(0, x.shape[0], 16):
        s = 1.0
        if limit > 0.0 and i > 0:
            s = limit
        elif not limit > -1.0:
            s = -1.0
        y[i:i + 16, :] = x[i:i + 16, :] * s
""",
}


DISTRIBUTED = """
@htp.kernel
def distributed(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in htp.range(0, x.shape[0], 8, {KEYWORD}):
        t = x[i:i + 8, :]
        y[i:i + 8, :] = t * t + t
"""
DEPENDENT_GRAIN = """
@htp.kernel
def dependent_grain(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, 8, 64]):
    for i in htp.range(0, x.shape[0], 8, grain=2):
        y[0:8, :] = x[i:i + 8, :]
"""


@pytest.mark.parametrize("case, mode", c.params("distribute/"))
def test_distribution(case, mode):
    construct, dtype = parts(case)
    if construct == "grain on a dependent loop":
        return check(case, mode, c.template(DEPENDENT_GRAIN), at="for i in htp.range")
    x = random(rng(case), dtype, (77, 64), scale=0.5)
    t = c.as_float64(x)
    return check(case, mode, c.template(DISTRIBUTED, T=dtype, KEYWORD=construct), (x,), t * t + t)


@pytest.mark.parametrize("case, mode", c.params("if/"))
def test_branches(case, mode):
    construct, _ = parts(case)
    gen = rng(case)
    kernel = c.template(BRANCHES[construct])
    if construct == "constant condition":
        x = random(gen, "f32", (40, 64))
        check(case, mode, kernel, (x,), -x.astype(np.float64), constants={"NEGATE": True})
        return check(case, mode, kernel, (x,), x.astype(np.float64) * 3.0, constants={"NEGATE": False})
    if construct == "run-time, static valid size":
        x = random(gen, "f32", (64, 64))
        for threshold in c.fewer(mode, (32, 0, 100), 1):
            expected = x.astype(np.float64).copy()
            for i in range(0, 64, 16):
                block = x[i:i + 16].astype(np.float64)
                expected[i:i + 16] = np.exp(block) * 2.0 if i >= threshold else block - 1.0 if i == 0 else block
            check(case, mode, kernel, (x, None, threshold), expected)
        return None
    if construct == "run-time, ragged, a tile and a column":
        x = random(gen, "f32", (40, 128))
        t = x.astype(np.float64)
        expected = np.empty_like(t)
        for j in range(0, 128, 64):
            block = t[:, j:j + 64]
            expected[:, j:j + 64] = block * 2.0 - block.max(axis=1, keepdims=True)
        check(case, mode, kernel, (x, None, 1), expected)
        for j in range(0, 128, 64):
            block = t[:, j:j + 64]
            expected[:, j:j + 64] = block + 100.0 - block.sum(axis=1, keepdims=True)
        return check(case, mode, kernel, (x, None, 0), expected, scale=64)
    if construct == "run-time, ragged tile":
        x = random(gen, "f32", (40, 64))
        check(case, mode, kernel, (x, None, 1), x.astype(np.float64) * 2.0)
        return check(case, mode, kernel, (x, None, 0), x.astype(np.float64) + 100.0)
    x = random(gen, "f32", (40, 64))
    for limit in c.fewer(mode, (2.5, 0.0, -3.0), 2):
        factor = np.ones((40, 1))
        if limit > 0.0:
            factor[16:] = limit
        elif not limit > -1.0:
            factor[:] = -1.0
        check(case, mode, kernel, (x, None, limit), x.astype(np.float64) * factor)


CALLS = {
    "kernel calls kernel": """
@htp.kernel
def scale_rows(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], k: f32):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * k


@htp.kernel
def calls_kernel(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], z: htp.Out[f32, "N", 64]):
    scale_rows(x, y, 2.0)
    scale_rows(x=x, y=z, k=-0.5)
""",
    "helper returns a tuple": """
@htp.func
def row_stats(t):
    m = htp.row_max(t)
    e = htp.exp(t - m)
    return m, htp.row_sum(e)


@htp.kernel
def tuple_helper(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        m, s = row_stats(t)
        y[i:i + 16, :] = htp.exp(t - m) / s
""",
    "helper with a constant parameter": """
@htp.func
def power(t, P: htp.Const[int]):
    r = t
    for _ in htp.static_range(1, P):
        r = r * t
    return r


@htp.kernel
def const_helper(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = power(t, 3) - power(t, P=2)
""",
    "helper on ragged tiles": """
@htp.func
def gelu(t: htp.Tile):
    inner = (t + t * t * t * 0.044715) * 0.7978846
    e = htp.exp(inner * 2.0)
    return t * 0.5 * (1.0 + (e - 1.0) / (e + 1.0))


@htp.kernel
def ragged_helper(x: htp.Tensor[f16, "N", 64], y: htp.Out[f16, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = gelu(x[i:i + 16, :])
""",
}


class Relu6(ast.NodeTransformer):
    """A user mutator: `relu6(t)` -> `htp.minimum(htp.relu(t), 6.0)`."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "relu6":
            relu = ast.Call(ast.Attribute(ast.Name("htp", ast.Load()), "relu", ast.Load()), node.args, [])
            return ast.copy_location(ast.Call(ast.Attribute(ast.Name("htp", ast.Load()), "minimum", ast.Load()),
                                              [relu, ast.Constant(6.0)], []), node)
        return node


def relu6_kernel():
    @htp.kernel(mutators=[Relu6])
    def relu6_scaled(x: htp.Tensor[htp.f32, "N", 64], y: htp.Out[htp.f32, "N", 64]):
        for i in range(0, x.shape[0], 16):
            y[i:i + 16, :] = relu6(x[i:i + 16, :] * 4.0)  # noqa: F821 (rewritten by Relu6)

    return relu6_scaled


RELU6 = relu6_kernel()


@pytest.mark.parametrize("case, mode", c.params("call/"))
def test_calls(case, mode):
    construct, dtype = parts(case)
    if construct == "user AST mutator":
        x = random(rng(case), dtype, (40, 64))
        return check(case, mode, RELU6, (x,), np.minimum(np.maximum(x.astype(np.float64) * 4.0, 0.0), 6.0))
    kernel = c.template(CALLS[construct])
    x = random(rng(case), dtype, (40, 64))
    t = c.as_float64(x)
    if construct == "kernel calls kernel":
        return check(case, mode, kernel, (x,), (t * 2.0, t * -0.5))
    if construct == "helper returns a tuple":
        e = np.exp(t - t.max(axis=1, keepdims=True))
        return check(case, mode, kernel, (x,), e / e.sum(axis=1, keepdims=True), scale=4)
    if construct == "helper with a constant parameter":
        return check(case, mode, kernel, (x,), t ** 3 - t ** 2, scale=4)
    gelu = 0.5 * t * (1.0 + np.tanh(0.7978846 * (t + 0.044715 * t ** 3)))
    check(case, mode, kernel, (x,), gelu, scale=8)


CONSTANTS = """
@htp.kernel
def constants(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], BLOCK: htp.Const[int] = 16,
              ALPHA: htp.Const[float] = 0.5, CLAMP: htp.Const[bool] = False, OFFSET: htp.Const = 1):
    for i in range(0, x.shape[0], BLOCK):
        t = x[i:i + BLOCK, :] * ALPHA + OFFSET
        if CLAMP:
            t = htp.minimum(htp.maximum(t, -1.0), 1.0)
        y[i:i + BLOCK, :] = t
"""


@pytest.mark.parametrize("case, mode", c.params("const/"))
def test_compile_time_constants(case, mode):
    x = random(rng(case), "f32", (40, 64))
    t = x.astype(np.float64)
    kernel = c.template(CONSTANTS)
    check(case, mode, kernel, (x,), t * 0.5 + 1)
    check(case, mode, kernel, (x,), np.clip(t * -2.0 + 3, -1.0, 1.0),
          constants={"BLOCK": 8, "ALPHA": -2.0, "CLAMP": True, "OFFSET": 3})


INT_SCALARS = {
    "floordiv and mod, negatives": """
@htp.kernel
def int_ops(a: {T}, b: {T}, out: htp.Out[i32, 4, 8]):
    out[0:1, :] = htp.full((1, 8), htp.i32(a // b))
    out[1:2, :] = htp.full((1, 8), htp.i32(a % b))
    out[2:3, :] = htp.full((1, 8), htp.i32((a * 3 - b) // (b + b)))
    out[3:4, :] = htp.full((1, 8), htp.i32((a - 100) % 7 + a // -3))
""",
    "constant folding, negatives": """
@htp.kernel
def folded(out: htp.Out[i32, 4, 8]):
    out[0:1, :] = htp.full((1, 8), -7 // 2)
    out[1:2, :] = htp.full((1, 8), -7 % 3)
    out[2:3, :] = htp.full((1, 8), 7 // -2 + 7 % -3)
    out[3:4, :] = htp.full((1, 8), (2 ** 5 - 100) // 9)
""",
    "loop index arithmetic": """
@htp.kernel
def index_math(out: htp.Out[i32, "N", 8], shift: i32):
    for i in range(0, out.shape[0], 1):
        out[i:i + 1, :] = htp.full((1, 8), htp.i32((i - 5) // 3 - (i * 7) % 4) + shift)
""",
}
PAIRS = [(7, 3), (-7, 3), (7, -3), (-7, -3), (0, 5), (-1, 7), (13, -1)]
WIDE_PAIRS = [(-(2 ** 40) - 1, 2 ** 20), (2 ** 40 + 1, -(2 ** 21))]


def python_int_ops(a, b):
    return [a // b, a % b, (a * 3 - b) // (b + b), (a - 100) % 7 + a // -3]


@pytest.mark.parametrize("case, mode", c.params("int_scalar/"))
def test_integer_scalar_arithmetic(case, mode):
    construct, dtype = parts(case)
    kernel = c.template(INT_SCALARS[construct], T=dtype)
    if construct == "floordiv and mod, negatives":
        for a, b in c.fewer(mode, PAIRS + (WIDE_PAIRS if dtype == "i64" else []), 3):
            expected = np.repeat(np.array(python_int_ops(a, b))[:, None], 8, axis=1)
            check(case, mode, kernel, (a, b), expected)
        return None
    if construct == "constant folding, negatives":
        values = [-7 // 2, -7 % 3, 7 // -2 + 7 % -3, (2 ** 5 - 100) // 9]
        return check(case, mode, kernel, (), np.repeat(np.array(values)[:, None], 8, axis=1))
    rows = np.arange(12)
    values = (rows - 5) // 3 - (rows * 7) % 4 + 11
    check(case, mode, kernel, (np.zeros((12, 8), np.int32), 11), np.repeat(values[:, None], 8, axis=1))


SCALAR_VALUES = {
    "conversions and builtins": """
@htp.kernel
def conversions(y: htp.Out[f32, 8, 8], a: i32, b: f32):
    y[0:1, :] = htp.full((1, 8), htp.f32(a) * 0.5)
    y[1:2, :] = htp.full((1, 8), float(a // 2))
    y[2:3, :] = htp.full((1, 8), htp.f32(int(b)))
    y[3:4, :] = htp.full((1, 8), math.pi + math.e)
    y[4:5, :] = htp.full((1, 8), b ** 2)
    y[5:6, :] = htp.full((1, 8), max(b, 1.0) + min(htp.f32(a), b))
    y[6:7, :] = htp.full((1, 8), -b)
    y[7:8, :] = htp.full((1, 8), htp.f32(htp.i32(b * 3.0)))
""",
    "f32 arithmetic": """
@htp.kernel
def float_scalars(y: htp.Out[f32, 4, 8], a: f32, b: f32):
    y[0:1, :] = htp.full((1, 8), a * b - a / b)
    y[1:2, :] = htp.full((1, 8), (a + 1.0) * (b - 2.0))
    r = 0.0
    if a < b:
        r = b - a
    y[2:3, :] = htp.full((1, 8), r)
    y[3:4, :] = htp.full((1, 8), 1.0 / b + 2.0)
""",
}


@pytest.mark.parametrize("case, mode", c.params("scalar_values/"))
def test_scalar_values(case, mode):
    construct, _ = parts(case)
    kernel = c.template(SCALAR_VALUES[construct])
    if construct == "conversions and builtins":
        for a, b in c.fewer(mode, [(-7, 2.75), (9, -3.5)], 1):
            rows = [a * 0.5, float(a // 2), float(int(b)), math.pi + math.e, b ** 2, max(b, 1.0) + min(float(a), b),
                    -b, float(int(b * 3.0))]
            check(case, mode, kernel, (None, a, b), np.repeat(np.array(rows)[:, None], 8, axis=1))
        return None
    for a, b in c.fewer(mode, [(1.5, 4.0), (3.0, -2.0)], 1):
        rows = [a * b - a / b, (a + 1.0) * (b - 2.0), b - a if a < b else 0.0, 1.0 / b + 2.0]
        check(case, mode, kernel, (None, a, b), np.repeat(np.array(rows)[:, None], 8, axis=1))


CONTINUED = {
    "backslash": r"""
@htp.kernel
def continued(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :] * 2 + \
            1
        y[i:i + 16, :] = \
            t
""",
    "parentheses": """
@htp.kernel
def continued(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = (x[i:i + 16, :] * 2
             + 1)
        y[i:i + 16, :] = (
            t)
""",
    "comment ending in a backslash": r"""
@htp.kernel
def continued(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :] * 2 + 1  # a path: C:\
        y[i:i + 16, :] = t
""",
    "parameters named new, Tile, args": """
@htp.kernel
def continued(new: htp.Tensor[{T}, "N", 64], Tile: htp.Out[{T}, "N", 64], args: {T}):
    for i in range(0, new.shape[0], 16):
        Tile[i:i + 16, :] = new[i:i + 16, :] * 2 + args
""",
}


@pytest.mark.parametrize("case, mode", c.params("source/"))
def test_statements_continued_over_lines(case, mode):
    """Every source line reaches the kernel C++ as a comment: one ending in
    a backslash must not splice the next C++ line into it; a parameter's
    name becomes a C++ identifier only when C++ and the kernel leave it free."""
    construct, dtype = parts(case)
    x = c.random(rng(case), dtype, (40, 64))
    args = (x, None, 1) if construct.startswith("parameters") else (x,)
    check(case, mode, c.template(CONTINUED[construct], T=dtype), args, c.as_float64(x) * 2 + 1)
