"""Tensor layouts: ``htp.Tensor[..., htp.layout("col_major")]`` declares a
tensor in Fortran order (``memref<..., strided<[1, ?]>>``). Such arrays are
handed over without a copy, outputs are allocated in that order, other
arrays are copied into it; targets that do not hold the layout refuse it at
the parameter (the capability ``layout:col_major``)."""

import inspect

import numpy as np
import pytest

import htp
from htp import f32, i32

from sources import kernel_from

rng = np.random.default_rng(20261124)


@htp.kernel
def scale(x: htp.Tensor[f32, "M", "N", htp.layout("col_major")], y: htp.Out[f32, "M", "N", htp.layout("col_major")], k: f32):
    for i in range(0, x.shape[0], 8):
        for j in range(0, x.shape[1], 16):
            y[i:i + 8, j:j + 16] = x[i:i + 8, j:j + 16] * k + 1.0


@htp.kernel
def mixed(a: htp.Tensor[f32, "M", "K", htp.layout("col_major")], b: htp.Tensor[f32, "K", "N"],
          c: htp.Out[f32, "M", "N"]):
    for i in range(0, a.shape[0], 16):
        for j in range(0, b.shape[1], 32):
            acc = htp.zeros((16, 32), htp.f32)
            for k in range(0, a.shape[1], 8):
                acc += htp.pad(a[i:i + 16, k:k + 8], 0.0) @ htp.pad(b[k:k + 8, j:j + 32], 0.0)
            c[i:i + 16, j:j + 32] = acc


@htp.kernel
def batched(x: htp.Tensor[i32, "B", "M", 16, htp.layout("col_major")], y: htp.Out[i32, "B", "M", 16]):
    for b in range(0, x.shape[0]):
        for i in range(0, x.shape[1], 4):
            y[b, i:i + 4, :] = x[b, i:i + 4, :] * 3


@htp.kernel
def vector(x: htp.Tensor[f32, "N", htp.layout("col_major")], y: htp.Out[f32, "N"]):
    for i in range(0, x.shape[0], 64):
        y[i:i + 64] = x[i:i + 64] + 2.0


def test_the_memref_type_carries_the_layout():
    tile = scale.compile("cpu").ir["tile"]
    assert "memref<?x?xf32, strided<[1, ?]>>" in tile, tile
    assert "memref<?x?x16xi32, strided<[1, ?, ?]>>" in batched.compile("cpu").ir["tile"]
    # One dimension is contiguous either way.
    assert "strided" not in vector.compile("cpu").ir["tile"]
    assert 'htp.layout("col_major")' in repr(scale.compile("cpu").parameters)


@pytest.mark.parametrize("rows,cols", [(8, 16), (19, 45), (1, 1), (64, 3)])
def test_fortran_arrays_go_in_and_come_out_without_copies(rows, cols):
    x = np.asfortranarray(rng.standard_normal((rows, cols), dtype=np.float32))
    y = scale(x, k=0.5)
    assert y.flags.f_contiguous
    np.testing.assert_allclose(y, x * np.float32(0.5) + 1, rtol=1e-6)
    out = np.zeros((rows, cols), np.float32, order="F")
    scale(x, out, 0.5)
    np.testing.assert_allclose(out, x * np.float32(0.5) + 1, rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda a: np.ascontiguousarray(a),           # C order: copied into F order
    lambda a: np.asfortranarray(a)[::2, :],     # strided: copied
    lambda a: np.ascontiguousarray(a.T).T,       # a transposed view is F-contiguous: no copy
], ids=["c-order", "strided", "transposed-view"])
def test_any_array_gives_numpys_numbers(make):
    x = make(rng.standard_normal((33, 20), dtype=np.float32))
    out = np.zeros(x.shape, np.float32)          # a C-order output: written through a copy
    scale(x, out, 2.0)
    np.testing.assert_allclose(out, x * np.float32(2.0) + 1, rtol=1e-6)


@pytest.mark.parametrize("m,k,n", [(16, 8, 32), (37, 19, 45), (5, 70, 9)])
def test_a_column_major_matmul_operand(m, k, n):
    a = np.asfortranarray(rng.standard_normal((m, k), dtype=np.float32))
    b = rng.standard_normal((k, n), dtype=np.float32)
    np.testing.assert_allclose(mixed(a, b), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_batched_and_one_dimensional_tensors():
    x = np.asfortranarray(rng.integers(-1000, 1000, (3, 10, 16), dtype=np.int32))
    np.testing.assert_array_equal(batched(x), x * 3)
    v = rng.standard_normal(130, dtype=np.float32)
    np.testing.assert_allclose(vector(v), v + 2, rtol=1e-6)


def _line(kernel):
    return inspect.getsourcelines(kernel.function)[1] + 1


@pytest.mark.parametrize("target", ["pto-a2a3sim", "pto-a2a3"])
def test_pto_refuses_a_column_major_tensor_at_the_parameter(target):
    with pytest.raises(htp.CompileError) as info:
        scale.compile(target)
    message = str(info.value)
    assert f"test_tensor_layouts.py:{_line(scale)}:" in message, message
    assert f"the layout 'col_major' is not available on target '{target}' (targets that provide it: cpu" in message, message


def test_a_column_major_tensor_is_a_capability_need():
    assert "cpu" in scale.targets() and "pto-a2a3sim" not in scale.targets()
    assert "pto-a2a3sim" in vector.targets()


@pytest.mark.parametrize("layout,message", [
    ('htp.layout("nz")', 'unknown tensor layout "nz"'),
    ("htp.layout()", 'a tensor\'s layout is htp.layout("row_major") or htp.layout("col_major")'),
    ("htp.layout(3)", 'a tensor\'s layout is htp.layout("row_major") or htp.layout("col_major")'),
])
def test_bad_tensor_layouts_are_errors_at_the_annotation(layout, message):
    # The front end reads the annotation's text; `h.layout` lets Python
    # evaluate `layout()` (htp.layout needs its name).
    kernel = kernel_from(
        "import htp\n"
        "class _H:\n"
        "    def layout(self, *names): return None\n"
        "h = _H()\n"
        "@htp.kernel\n"
        f"def k(x: htp.Tensor[htp.f32, 'N', 64, {layout.replace('htp.', 'h.')}], y: htp.Out[htp.f32, 'N', 64]):\n"
        "    y[0:8, :] = x[0:8, :]\n", "k")
    with pytest.raises(htp.CompileError) as info:
        kernel.compile("cpu")
    text = str(info.value)
    assert ".py:6:" in text and message in text, text


def test_a_wrong_name_in_htp_layout_is_a_located_compile_error():
    kernel = kernel_from(
        "import htp\n"
        "@htp.kernel\n"
        "def k(x: htp.Tensor[htp.f32, 'N', 64, htp.layout('fortran')], y: htp.Out[htp.f32, 'N', 64]):\n"
        "    y[0:8, :] = x[0:8, :]\n", "k")
    with pytest.raises(htp.CompileError, match=r"\.py:3:\d+: error: unknown tensor layout \"fortran\""):
        kernel.compile("cpu")


def test_htp_layout_is_a_marker_python_evaluates():
    assert repr(htp.layout("col_major")) == "htp.layout('col_major')"
