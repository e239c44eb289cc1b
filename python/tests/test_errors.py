"""Errors a user makes raise htp.CompileError (or htp.ArgumentError) whose
message has the user's file:line:col and an excerpt with a caret; HTP stays
usable afterwards."""

import inspect
import os
import re

import numpy as np
import pytest

import htp
from htp import _htp, f32

LOCATION = re.compile(r"^(?P<file>[^\n]+):(?P<line>\d+):(?P<col>\d+): error: ")


def assert_points_at(error: Exception, file_suffix: str, line: int, col: int = None):
    message = str(error)
    match = LOCATION.match(message)
    assert match, message
    assert match["file"].endswith(file_suffix), message
    assert int(match["line"]) == line, message
    if col is not None:
        assert int(match["col"]) == col, message
    # The excerpt: the source line, then a caret under the column.
    lines = message.splitlines()
    assert any(l.strip() == "^" for l in lines[1:]), message


def refused(kernel, target, message, at, skip=0):
    """Compiling for `target` is a CompileError containing `message` at the first `at` of the
    kernel's source, `skip` characters in (file:line:col, with the excerpt and caret)."""
    with pytest.raises(htp.CompileError) as info:
        kernel.compile(target)
    assert message in str(info.value), str(info.value)
    from conformance import location_of  # conformance imports this module

    path, line, column = location_of(kernel, at)
    assert_points_at(info.value, os.path.basename(path), line, column + skip)
    return info.value


def compile_source(source: str, kernel: str = "k"):
    return _htp.compile([(source, "user.py", 1)], kernel, {}, "cpu")


def test_syntax_error():
    with pytest.raises(htp.CompileError) as info:
        compile_source("import htp\n@htp.kernel\ndef k(x: htp.Tensor[htp.f32, 4, 4]):\n    y = x + * 2\n    return\n")
    assert_points_at(info.value, "user.py", 4)
    assert "syntax" in str(info.value)


def test_unsupported_construct():
    source = "import htp\n@htp.kernel\ndef k(x: htp.Tensor[htp.f32, 16, 16]):\n    while True:\n        pass\n"
    with pytest.raises(htp.CompileError) as info:
        compile_source(source)
    assert_points_at(info.value, "user.py", 4, 5)
    assert "while" in str(info.value)


def test_unknown_function():
    source = (
        "import htp\n@htp.kernel\ndef k(x: htp.Tensor[htp.f32, 16, 16], y: htp.Out[htp.f32, 16, 16]):\n"
        "    y[:, :] = htp.frobnicate(x[:, :])\n"
    )
    with pytest.raises(htp.CompileError) as info:
        compile_source(source)
    assert_points_at(info.value, "user.py", 4)
    assert "frobnicate" in str(info.value)


def test_shape_mismatch():
    source = (
        "import htp\n@htp.kernel\ndef k(x: htp.Tensor[htp.f32, 32, 32], y: htp.Out[htp.f32, 16, 16]):\n"
        "    y[:, :] = x[0:16, 0:16] + x[0:8, 0:16]\n"
    )
    with pytest.raises(htp.CompileError) as info:
        compile_source(source)
    assert_points_at(info.value, "user.py", 4)


def test_element_type_mismatch():
    source = (
        "import htp\n@htp.kernel\n"
        "def k(x: htp.Tensor[htp.f32, 16, 16], z: htp.Tensor[htp.f16, 16, 16], y: htp.Out[htp.f32, 16, 16]):\n"
        "    y[:, :] = x[:, :] * z[:, :]\n"
    )
    with pytest.raises(htp.CompileError) as info:
        compile_source(source)
    assert_points_at(info.value, "user.py", 4)


def test_unknown_target():
    with pytest.raises(htp.TargetError, match="unknown target 'tpu'"):
        _htp.compile([("import htp\n", "user.py", 1)], "k", {}, "tpu")


@htp.kernel
def double(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * 2.0


def test_wrong_argument_count_points_at_the_call():
    x = np.ones((16, 64), dtype=np.float32)
    call_line = inspect.currentframe().f_lineno + 2
    with pytest.raises(htp.ArgumentError) as info:
        double(x, x, x)
    assert_points_at(info.value, "test_errors.py", call_line, 9)


def test_wrong_dtype_points_at_the_call():
    x = np.ones((16, 64), dtype=np.float64)
    call_line = inspect.currentframe().f_lineno + 2
    with pytest.raises(htp.ArgumentError) as info:
        double(x)
    assert "dtype float32" in str(info.value)
    assert_points_at(info.value, "test_errors.py", call_line, 9)


def test_inconsistent_symbolic_sizes():
    x = np.ones((16, 64), dtype=np.float32)
    y = np.ones((32, 64), dtype=np.float32)
    with pytest.raises(htp.ArgumentError, match="'N' is 16"):
        double(x, y)


def test_htp_stays_usable_after_errors():
    for _ in range(3):
        with pytest.raises(htp.CompileError):
            compile_source("import htp\n@htp.kernel\ndef k(x: htp.Tensor[htp.f32, 4, 4]):\n    return nope\n")
    x = np.arange(32 * 64, dtype=np.float32).reshape(32, 64)
    np.testing.assert_array_equal(double(x), x * 2)


@htp.kernel
def broken(x: htp.Tensor[f32, 16, 16], y: htp.Out[f32, 16, 16]):
    y[:, :] = htp.frobnicate(x[:, :])  # noqa


def test_compile_errors_carry_no_traceback_from_inside_htp():
    import traceback

    with pytest.raises(htp.CompileError) as info:
        broken(np.ones((16, 16), dtype=np.float32))
    frames = traceback.extract_tb(info.value.__traceback__)
    inside = [f for f in frames if "/htp/" in f.filename.replace("\\", "/")]
    # Only the public entry point that re-raised it, never the machinery.
    assert len(inside) <= 1, frames
    assert "test_errors.py" in str(info.value)


def test_a_constant_of_the_wrong_kind_is_an_argument_error_at_the_call():
    @htp.kernel
    def blocks(x: htp.Tensor[htp.f32, 16, 16], out: htp.Out[htp.f32, 16, 16], B: htp.Const[int] = 16):
        out[0:B, :] = x[0:B, :]

    with pytest.raises(htp.ArgumentError, match="compile-time constant 'B' must be an int, float or bool, got NoneType") as error:
        blocks.compile("cpu", B=None)
    assert "test_errors.py" in str(error.value).splitlines()[0]


def test_decorating_twice_or_a_non_function_is_refused():
    def k(x: htp.Tensor[htp.f32, 16, 16], out: htp.Out[htp.f32, 16, 16]):
        out[:, :] = x[:, :]

    with pytest.raises(TypeError, match="applied twice"):
        htp.kernel(htp.kernel(k))
    with pytest.raises(TypeError, match="decorates a Python function"):
        htp.kernel(42)
    with pytest.raises(TypeError, match="applied twice"):
        htp.func(htp.func(k))
    with pytest.raises(TypeError, match="decorated with both @htp.kernel and @htp.func"):
        htp.func(htp.kernel(k))
    with pytest.raises(TypeError, match="decorated with both @htp.kernel and @htp.func"):
        htp.kernel(htp.func(k))


def test_an_unknown_constant_name_is_an_argument_error():
    @htp.kernel
    def blocks(x: htp.Tensor[htp.f32, 16, 16], out: htp.Out[htp.f32, 16, 16], B: htp.Const[int] = 16):
        out[0:B, :] = x[0:B, :]

    with pytest.raises(htp.ArgumentError, match=r"'BLOKC' is not a compile-time constant of this kernel \(its constants: B\)"):
        blocks.compile("cpu", BLOKC=8)
    with pytest.raises(htp.ArgumentError, match="'x' is not a compile-time constant"):
        blocks.compile("cpu", x=3)
    assert blocks.compile("cpu", B=8).constants == {"B": 8}


EXEC_SOURCE = '''
import htp
from htp import f32
@htp.kernel
def doubled(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = x[:, :] * 2.0
'''


def test_a_kernel_defined_with_exec_says_its_source_is_missing():
    namespace = {}
    exec(EXEC_SOURCE, namespace)
    with pytest.raises(htp.CompileError, match=r"<string>:4:1: error: the source of 'doubled' is not available"):
        namespace["doubled"](np.ones((16, 64), np.float32))


def test_a_kernel_defined_with_exec_of_named_text_compiles():
    import linecache
    name = "<test_errors generated kernel>"
    linecache.cache[name] = (len(EXEC_SOURCE), None, EXEC_SOURCE.splitlines(True), name)
    namespace = {}
    exec(compile(EXEC_SOURCE, name, "exec"), namespace)
    x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    np.testing.assert_array_equal(namespace["doubled"](x), x * 2.0)


def test_an_error_inside_a_helper_notes_the_call_in_the_kernel():
    from sources import kernel_from

    source = '''
import htp
from htp import f32

@htp.func
def inner(t):
    return t + undefined_name

@htp.func
def outer(t):
    return inner(t) * 2.0

@htp.kernel
def k(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = outer(x[:, :])
'''
    with pytest.raises(htp.CompileError) as info:
        kernel_from(source, "k").compile("cpu")
    lines = str(info.value).splitlines()
    assert lines[0].endswith(".py:7:16: error: unknown name 'undefined_name'"), lines
    assert lines[1:3] == ["    return t + undefined_name", "               ^"], lines
    file = lines[0].split(":7:16:")[0]
    # the helper's call in the helper that called it, then the kernel's call
    assert lines[3:] == [f"note: called from {file}:11:12", f"note: called from {file}:15:15"], lines
