"""User AST mutators (ast.NodeTransformer) rewrite a kernel's source before
HTP's Rust front end reads it."""

import ast

import numpy as np
import pytest

import htp
from htp import f32


class SquareToMultiply(ast.NodeTransformer):
    """Rewrites `square(x)` (a function HTP does not know) into `x * x`."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "square":
            return ast.BinOp(left=node.args[0], op=ast.Mult(), right=node.args[0])
        return node


@htp.kernel(mutators=[SquareToMultiply])
def squares(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = square(x[i:i + 16, :])  # noqa: F821 (rewritten before compiling)


@htp.kernel
def squares_unmutated(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = square(x[i:i + 16, :])  # noqa: F821


def test_a_kernel_mutator_rewrites_before_compiling():
    x = np.random.default_rng(0).standard_normal((40, 64), dtype=np.float32)
    np.testing.assert_array_equal(squares(x), x * x)


def test_without_the_mutator_the_name_is_unknown():
    with pytest.raises(htp.CompileError, match="square"):
        squares_unmutated(np.ones((16, 64), dtype=np.float32))


def test_registered_mutators_apply_to_every_kernel():
    htp.mutators.register(SquareToMultiply)
    try:
        compiled = htp.compile(squares_unmutated)
        x = np.full((16, 64), 3.0, dtype=np.float32)
        np.testing.assert_array_equal(compiled(x), x * x)
    finally:
        htp.mutators.unregister(SquareToMultiply)


def test_only_node_transformers_register():
    with pytest.raises(TypeError):
        htp.mutators.register(object)
