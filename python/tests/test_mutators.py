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


def where(kernel, text):
    """(file name, line, column) of `text` in `kernel`'s source file."""
    import inspect
    lines, first = inspect.getsourcelines(kernel.function)
    for offset, line in enumerate(lines):
        if text in line:
            return __file__, first + offset, line.index(text) + 1
    raise AssertionError(text)


@htp.kernel(mutators=[SquareToMultiply])
def squares_then_an_error(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = square(x[i:i + 16, :])  # noqa: F821 (rewritten)
        y[i:i + 16, :] = t + undefined_name  # noqa: F821 (the error)


def test_an_error_after_a_mutation_points_at_the_users_line_and_column():
    with pytest.raises(htp.CompileError) as info:
        squares_then_an_error(np.ones((16, 64), np.float32))
    path, line, column = where(squares_then_an_error, "undefined_name")
    assert f"{path}:{line}:{column}: error:" in str(info.value), str(info.value)
    assert "after AST mutators" not in str(info.value)


@htp.kernel(mutators=[SquareToMultiply])
def error_in_a_mutated_statement(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = square(x[i:i + 16, :]) + unknown_too  # noqa: F821


def test_an_error_in_a_mutated_statement_points_at_its_line():
    with pytest.raises(htp.CompileError) as info:
        error_in_a_mutated_statement(np.ones((16, 64), np.float32))
    path, line, _ = where(error_in_a_mutated_statement, "unknown_too")
    assert f"{path}:{line}:" in str(info.value), str(info.value)


class InsertScale(ast.NodeTransformer):
    """Adds `y[0:16, :] = y[0:16, :] * 1.0` style statements: here, before
    every store `y[...] = v`, a store of `v` itself (a new statement with
    the position of the one it precedes)."""

    def visit_Assign(self, node):
        if isinstance(node.targets[0], ast.Subscript):
            twin = ast.copy_location(ast.Assign(targets=node.targets, value=node.value), node)
            return [twin, node]
        return node


@htp.kernel(mutators=[InsertScale])
def inserted(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * 2.0

    z = missing  # noqa: F841, F821 (the error, after the insertion)


def test_inserted_statements_keep_the_lines_after_them():
    with pytest.raises(htp.CompileError) as info:
        inserted(np.ones((16, 64), np.float32))
    path, line, column = where(inserted, "missing")
    assert f"{path}:{line}:{column}: error:" in str(info.value), str(info.value)


class Rename(ast.NodeTransformer):
    def visit_FunctionDef(self, node):
        node.name = node.name + "_renamed"
        return node


@htp.kernel(mutators=[Rename])
def renamed(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = x[:, :]


def test_a_mutator_that_renames_the_kernel_is_a_located_error():
    with pytest.raises(htp.CompileError, match=r"must keep the kernel a function named 'renamed'") as info:
        renamed(np.ones((16, 64), np.float32))
    path, line, _ = where(renamed, "def renamed")
    assert f"{path}:{line}:1: error:" in str(info.value), str(info.value)
