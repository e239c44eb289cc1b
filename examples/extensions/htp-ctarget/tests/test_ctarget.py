"""The c target of htp-ctarget against numpy and against the cpu target;
its listing and capability check; the nn intrinsic set; the fma mutator and
the pipeline it asks for."""

import inspect
import os
import sys

import numpy as np
import pytest

import htp
import htp_ctarget
from htp_ctarget import emitter

sys.path.insert(0, os.path.dirname(__file__))
import ctarget_kernels as K  # noqa: E402

rng = np.random.default_rng(20261123)


def f32(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape).astype(np.float32)


def on(target, kernel, *args, **kwargs):
    """Runs `kernel` on `target` with copies of the arguments (outputs
    allocated by HTP); returns its outputs as a tuple."""
    constants = {k: v for k, v in kwargs.items() if k.isupper()}
    compiled = kernel.compile(target, **constants)
    copied = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    result = compiled(*copied, **kwargs)
    return result if isinstance(result, tuple) else (result,)


def both(kernel, *args, rtol=1e-5, atol=1e-6, **kwargs):
    """The outputs on c, checked against the cpu target's."""
    c = on("c", kernel, *args, **kwargs)
    cpu = on("cpu", kernel, *args, **kwargs)
    for a, b in zip(c, cpu):
        assert a.dtype == b.dtype and a.shape == b.shape
        if a.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(a, b)
    return c


def line_of(kernel, text):
    lines, first = inspect.getsourcelines(kernel.function)
    return first + next(i for i, line in enumerate(lines) if text in line)


# -- conformance -------------------------------------------------------------

@pytest.mark.parametrize("rows,cols", [(8, 32), (19, 45), (1, 7), (33, 64)])
def test_elementwise_with_ragged_rows_and_columns(rows, cols):
    x, y = f32(rows, cols), f32(rows, cols)
    (z,) = both(K.add2d, x, y)
    np.testing.assert_array_equal(z, x + y)


def test_elementwise_arithmetic_f32():
    x, y = f32(37, 64, low=0.5, high=2.0), f32(37, 64, low=0.5, high=2.0)
    (z,) = both(K.arith_f32, x, y)
    np.testing.assert_allclose(z, (x - y) * x / y + np.maximum(x, y) - np.minimum(x, y), rtol=1e-5)


def test_unary_f32():
    x = f32(21, 32)
    e, l, s, m = both(K.unary_f32, x)
    p = np.abs(x) + 0.5
    np.testing.assert_allclose(e, np.exp(x), rtol=1e-5)
    np.testing.assert_allclose(l, np.log(p) + np.sqrt(p), rtol=1e-5)
    np.testing.assert_allclose(s, 1 / np.sqrt(p) + 1 / p, rtol=1e-5)
    np.testing.assert_allclose(m, np.maximum(x, 0) - x, rtol=1e-6)


def test_i32_arithmetic_and_truncating_division():
    x = rng.integers(-1000, 1000, (14, 16)).astype(np.int32)
    y = rng.integers(1, 50, (14, 16)).astype(np.int32) * rng.choice([-1, 1], (14, 16)).astype(np.int32)
    z, q = both(K.ints, x, y)
    np.testing.assert_array_equal(z, x * y - np.abs(x) + np.maximum(x, y) + np.maximum(-y, 0))
    np.testing.assert_array_equal(q, np.trunc(x / y).astype(np.int32))


def test_i16_i8_i64_wrap_like_numpy():
    x = rng.integers(-300, 300, (8, 16)).astype(np.int16)
    u = rng.integers(-128, 128, (8, 16)).astype(np.int8)
    w = rng.integers(-(1 << 40), 1 << 40, (8, 16)).astype(np.int64)
    y, v, o = both(K.small_ints, x, None, u, None, w)
    np.testing.assert_array_equal(y, x * x + np.int16(3))
    np.testing.assert_array_equal(v, u + u - np.minimum(u, np.int8(2)))
    np.testing.assert_array_equal(o, w * 7 - w.max(axis=1, keepdims=True))


@pytest.mark.parametrize("n", [64, 100, 1, 300])
def test_1d_tensors(n):
    x, y = f32(n), f32(n)
    (z,) = both(K.vadd, x, y)
    np.testing.assert_array_equal(z, x + y)
    (z,) = both(K.vadd, x, y, BLOCK=128)
    np.testing.assert_array_equal(z, x + y)


def test_a_1d_weight_broadcast_over_ragged_rows():
    x, w = f32(23, 64), f32(64)
    (y,) = both(K.scale_bias, x, w)
    np.testing.assert_allclose(y, x * w, rtol=1e-6)


@pytest.mark.parametrize("rows", [16, 37])
def test_row_softmax(rows):
    x = f32(rows, 128, low=-5, high=5)
    (y,) = both(K.softmax, x)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("rows,H", [(8, 96), (13, 80)])
def test_rmsnorm(rows, H):
    x, w = f32(rows, H), f32(1, H)
    (y,) = both(K.rmsnorm, x, w, None, 1e-6, H=H)
    expected = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-6)


def test_reductions_over_valid_elements_only():
    x = f32(13, 27)
    rs, cs = both(K.reductions, x, np.zeros((13, 3), np.float32), np.zeros((3, 27), np.float32))
    # The last tile of each row block wins for row reductions (16-column blocks).
    last = x[:, 16:27]
    np.testing.assert_allclose(rs[:, 0], last.sum(axis=1), rtol=1e-5)
    np.testing.assert_array_equal(rs[:, 1], last.max(axis=1))
    np.testing.assert_array_equal(rs[:, 2], last.min(axis=1))
    lastrows = x[8:13]
    np.testing.assert_allclose(cs[0], lastrows.sum(axis=0), rtol=1e-5)
    np.testing.assert_array_equal(cs[1], lastrows.max(axis=0))
    np.testing.assert_array_equal(cs[2], lastrows.min(axis=0))


def test_masks_where_iota():
    x = f32(21, 32)
    y, m = both(K.masks, x, None, None, 0.25)
    np.testing.assert_array_equal(m, x >= 0.25)
    rows = np.arange(21)[:, None]
    cols = np.arange(32)[None, :]
    np.testing.assert_array_equal(y, np.where(cols > rows, -1.0, np.where(x >= 0.25, x, 0.0)).astype(np.float32))


@pytest.mark.parametrize("m,k,n", [(16, 8, 16), (37, 29, 21), (5, 3, 40)])
def test_gemm_with_a_k_loop_and_an_epilogue(m, k, n):
    a, b, bias = f32(m, k), f32(k, n), f32(1, n)
    (c,) = both(K.gemm, a, b, bias, None, 0.5, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(c, np.maximum((a @ b) * 0.5 + bias, 0), rtol=1e-4, atol=1e-5)


def test_gemm_i8_to_i32():
    a = rng.integers(-128, 128, (16, 32)).astype(np.int8)
    b = rng.integers(-128, 128, (32, 16)).astype(np.int8)
    (c,) = both(K.gemm_i8, a, b)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


def test_transpose_and_casts():
    x = f32(20, 16, low=-100, high=100)
    y, z = both(K.transpose_cast, x, np.zeros((16, 20), np.int32), None)
    np.testing.assert_array_equal(y, np.trunc(x.T * np.float32(10)).astype(np.int32))
    np.testing.assert_array_equal(z, np.trunc(x * np.float32(3)).astype(np.int16).astype(np.float32))


def test_float_to_int_casts_saturate_like_the_cpu():
    x = np.array([[np.inf, -np.inf, np.nan, 1e30] * 4] * 16, np.float32)
    y, _ = both(K.transpose_cast, x, np.zeros((16, 16), np.int32), None)
    # y is (x.T * 10) cast: its first column is x's first row.
    assert y[:4, 0].tolist() == [2147483520, -2147483648, 0, 2147483520]


@pytest.mark.parametrize("s,k,h", [(1.5, 2, 3), (0.25, 7, -4), (-3.75, -5, 100), (2.0, 3, 0)])
def test_scalars_python_floor_division_and_if(s, k, h):
    x = f32(4, 16)
    (y,) = both(K.scalars, x, None, s, k, h)
    t = x + np.float32(float(k) * s) + float(int(s)) + float(h)
    if s > 1.0 and k < 3:
        t = t * 2
    expected = t + (k // -2) + (k % -3) + (k // 3) + (k % 3) + max(s, 1.0) + min(s, 0.0)
    np.testing.assert_allclose(y, expected.astype(np.float32), rtol=1e-6)


@pytest.mark.parametrize("rows", [16, 18, 3])
def test_loop_carried_tiles_and_scalars(rows):
    x = f32(rows, 16)
    y, n = both(K.carried, x)
    np.testing.assert_allclose(y[0], x.sum(axis=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(y[1], x.max(axis=0))
    assert n.tolist() == [[(rows + 3) // 4] * 16]


@pytest.mark.parametrize("steps", [0, 1, 2, 5])
def test_loop_carried_values_swapped_every_iteration(steps):
    x = f32(4, 8)
    (y,) = both(K.swap, x, None, steps)
    a, b = x, x * np.float32(10)
    for _ in range(steps):
        a, b = b, a
    np.testing.assert_array_equal(y, np.concatenate([a, b]))


@pytest.mark.parametrize("flag,t0", [(True, 0.5), (False, 3.0), (False, 0.5)])
def test_if_elif_else(flag, t0):
    x = f32(10, 16)
    (y,) = both(K.branches, x, None, flag, t0)
    expected = x + np.float32(t0) if flag else (x * np.float32(t0) if t0 > 1.0 else -x)
    np.testing.assert_array_equal(y, expected)


def test_leading_batch_dimensions():
    x = f32(3, 10, 8)
    (y,) = both(K.batched, x)
    np.testing.assert_array_equal(y, x * np.array([1, 2, 3], np.float32)[:, None, None])


def test_gather_rows():
    x = f32(30, 16)
    idx = rng.integers(0, 30, (8, 1)).astype(np.int32)
    (y,) = both(K.gather_rows, x, idx)
    np.testing.assert_array_equal(y, x[idx[:, 0]])


def test_kernels_with_more_than_a_mebibyte_of_tiles_keep_them_on_the_heap():
    x = f32(300, 256)
    (y,) = both(K.big_tiles, x, rtol=1e-5)
    np.testing.assert_allclose(y, np.exp(x) * x - x * x, rtol=1e-5, atol=1e-6)
    assert "malloc(" in K.big_tiles.compile("c").files["kernel.c"]
    assert "malloc(" not in K.softmax.compile("c").files["kernel.c"]


def test_out_of_bounds_stores_raise_an_index_error_at_the_line():
    with pytest.raises(IndexError, match="index out of bounds") as info:
        K.past_end.compile("c")(np.ones((16, 16), np.float32))
    assert f"ctarget_kernels.py:{line_of(K.past_end, 'out[i:i + 8, :]')}:" in str(info.value)


def test_integer_division_by_zero_raises_instead_of_killing_the_process():
    x = np.ones((16, 16), np.float32)
    (y,) = both(K.divide_rows, x, None, 4)
    np.testing.assert_array_equal(y[0], np.full(16, 4.0, np.float32))
    with pytest.raises(ZeroDivisionError, match="division or modulo by zero") as info:
        K.divide_rows.compile("c")(x, None, 0)
    assert f"ctarget_kernels.py:{line_of(K.divide_rows, 'q = x.shape[0] // d')}:" in str(info.value)


# -- the target as HTP sees it -----------------------------------------------

def test_the_target_is_listed_with_its_capabilities():
    info = {t.name: t for t in htp.targets()}
    assert "c" in info
    capabilities = set(info["c"].capabilities)
    assert capabilities == set(emitter.CAPABILITIES)
    assert {"model:kernel", "op:tile.load", "op:tile.matmul", "op:tile.row_reduce", "dtype:f32", "dtype:i1"} <= capabilities
    assert "dtype:f16" not in capabilities and "op:tile.*" not in capabilities
    assert not any(c.startswith("intrinsic:") for c in capabilities)
    assert [level.name for level in info["c"].architecture.levels] == ["thread"]
    assert "c" in K.softmax.targets()
    assert "c" not in K.halves.targets()


def test_a_package_holds_c99_source_and_a_manifest():
    compiled = K.softmax.compile("c")
    assert set(compiled.files) == {"kernel.c", "manifest.json"}
    assert "int32_t htp_kernel_softmax(float *a0, int64_t a0_d0, int64_t a0_d1, float *a1" in compiled.files["kernel.c"]
    assert "tile.row_reduce" in compiled.ir["tile"]


def test_an_unsupported_element_type_gets_the_capability_diagnostic_at_its_line():
    with pytest.raises(htp.CompileError) as info:
        K.halves.compile("c")
    message = str(info.value)
    assert "the element type f16 is not available on target 'c' (targets that provide it: cpu" in message, message
    assert f"ctarget_kernels.py:{line_of(K.halves, 'y[:, :] = x[:, :] + x[:, :]')}:15: error:" in message, message


def test_an_intrinsic_of_another_target_gets_the_capability_diagnostic():
    source = '''
import htp
from htp import f32, pto

@htp.kernel
def pto_add(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    t = x[:, :]
    y[:, :] = pto.add(t, t)
'''
    kernel = kernel_from(source, "pto_add")
    with pytest.raises(htp.CompileError) as info:
        kernel.compile("c")
    message = str(info.value)
    assert ":8:15: error: the intrinsic pto.add (pto.tadd) is not available on target 'c' " \
           "(targets that provide it: pto-a2a3sim, pto-a2a3)" in message, message


def test_the_emitter_refuses_what_the_capability_check_lets_through_at_the_op():
    # A scalar f16 parameter makes no f16 tile or tensor: the capability
    # check passes it, the emitter refuses it at the kernel.
    source = '''
import htp
from htp import f32

@htp.kernel
def half_scalar(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64], s: htp.f16):
    y[:, :] = x[:, :] + htp.f32(s)
'''
    kernel = kernel_from(source, "half_scalar")
    with pytest.raises(htp.CompileError, match=r"half_scalar_\d+\.py:\d+:\d+: error: the c target cannot emit"):
        kernel.compile("c")


# -- the intrinsic set ---------------------------------------------------------

@pytest.mark.parametrize("target", ["c", "cpu"])
def test_the_nn_intrinsic_set_runs_on_every_target(target):
    x = f32(19, 32, low=-6, high=6)
    a, b, c = on(target, K.activations, x)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(a, x64 / (1 + np.exp(-x64)), rtol=1e-5, atol=1e-6)
    gelu = 0.5 * x64 * (1 + np.tanh(np.sqrt(2 / np.pi) * (x64 + 0.044715 * x64 ** 3)))
    np.testing.assert_allclose(b, gelu, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(c, np.log1p(np.exp(x64)), rtol=1e-5, atol=1e-6)


# -- the mutator and its pipeline ----------------------------------------------

FMA_SOURCE = '''
import htp
from htp import f32
from htp_ctarget import fma

@htp.kernel
def {name}(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], s: f32):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = {body}
'''


@pytest.mark.parametrize("target", ["c", "cpu"])
def test_the_fma_mutator_rewrites_and_its_pipeline_runs(target):
    sugar = kernel_from(FMA_SOURCE.format(name="sugared", body="fma(t, t, s) + fma(t, t, s)"), "sugared")
    plain = kernel_from(FMA_SOURCE.format(name="plain", body="(t * t + s) + (t * t + s)"), "plain")
    compiled = sugar.compile(target)
    x = f32(37, 64)
    np.testing.assert_allclose(compiled(x, None, 0.5), 2 * (x * x + np.float32(0.5)), rtol=1e-6)
    # The rewrite happened and canonicalize + cse ran on the tile IR: the
    # two identical products and sums are one each, the duplicated index
    # arithmetic of the ragged slices is gone.
    tile = compiled.ir["tile"]
    assert "fma" not in tile and "sugared" in tile
    assert tile.count("tile.mul") == 1 and tile.count("tile.add") == 2, tile
    untouched = plain.compile(target).ir["tile"]
    assert untouched.count("tile.mul") == 2, untouched
    assert tile.count("arith.minsi") < untouched.count("arith.minsi")


def test_fma_outside_a_kernel_is_a_type_error():
    with pytest.raises(TypeError, match="kernel sugar"):
        htp_ctarget.fma(1, 2, 3)


_counter = [0]


def kernel_from(source, name):
    """A kernel defined in a fresh file (HTP compiles from source files)."""
    import importlib.util
    import tempfile
    _counter[0] += 1
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, f"{name}_{_counter[0]}.py")
    with open(path, "w") as handle:
        handle.write(source)
    spec = importlib.util.spec_from_file_location(f"{name}_{_counter[0]}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_the_extensions_layout_facet_is_registered_and_runs_on_c_and_cpu():
    assert htp.layouts()["panels16"] == ("column panels of 16, each row-major (htp-ctarget)", "htp_ctarget")
    x, y = f32(21, 64), f32(21, 64)
    (z,) = both(K.panels, x, y)
    np.testing.assert_allclose(z, x * 2.0 + y, rtol=1e-6)
    assert "layout = #layout.axe<[8@m:16] x [4@m:128, 16@m:1]>" in K.panels.compile("c").ir["tile"]


def test_a_layout_a_target_does_not_accept_gets_the_capability_diagnostic():
    with pytest.raises(htp.CompileError) as info:
        K.columns.compile("c")
    message = str(info.value)
    assert "the layout 'col_major' is not available on target 'c' (targets that provide it: cpu, aie-npu1, aie-npu2, aie-sim)" in message, message
    assert f"ctarget_kernels.py:{line_of(K.columns, 'col_major')}:" in message, message
    with pytest.raises(htp.CompileError) as info:
        K.panels.compile("pto-a2a3sim")
    assert "the layout 'panels16' is not available on target 'pto-a2a3sim' (targets that provide it: cpu, aie-npu1, aie-npu2, aie-sim, c)" in str(info.value)


MULTIPLY_ADD = '''
import htp

@htp.kernel
def {name}(x: htp.Tensor[htp.{dtype}, "N", 32], w: htp.Tensor[htp.{dtype}, "N", 32], y: htp.Out[htp.{dtype}, "N", 32]):
    for i in range(0, x.shape[0], 8):
        t = x[i:i + 8, :]
        u = w[i:i + 8, :]
        y[i:i + 8, :] = {body}
'''


@pytest.mark.parametrize("dtype", ["f32", "i32", "i8"])
def test_the_irdl_dialect_and_pdl_rewrite_fuse_multiply_adds_on_c(dtype):
    assert ("ctarget", "htp_ctarget") in htp.extensions.dialects()
    fused = kernel_from(MULTIPLY_ADD.format(name="fused", dtype=dtype, body="t * u + t"), "fused")
    compiled = fused.compile("c")
    assert '"ctarget.fma"' in compiled.ir["emitter-input"], compiled.ir["emitter-input"]
    assert "ctarget" not in compiled.ir["tile"]  # the target's pipeline formed it
    if dtype == "f32":
        assert "fmaf(x, y, z)" in compiled.files["kernel.c"]
        x, w = f32(21, 32), f32(21, 32)
    else:
        info = np.iinfo(dtype.replace("i", "int"))
        x = rng.integers(info.min, info.max, (21, 32), dtype=np.dtype(dtype.replace("i", "int")), endpoint=True)
        w = rng.integers(info.min, info.max, (21, 32), dtype=x.dtype, endpoint=True)
    # c (fused) and cpu (mul + add) against numpy; integers wrap like numpy.
    for result in (compiled(x, w), on("cpu", fused, x, w)[0]):
        if dtype == "f32":
            np.testing.assert_allclose(result, (x.astype(np.float64) * w + x).astype(np.float32), rtol=1e-6, atol=1e-7)
        else:
            np.testing.assert_array_equal(result, x * w + x)


def test_a_sum_with_the_product_on_the_right_is_not_fused():
    # Its result is valid where the left operand is: fusing would change that.
    kernel = kernel_from(MULTIPLY_ADD.format(name="unfused", dtype="f32", body="t + t * u"), "unfused")
    compiled = kernel.compile("c")
    assert "ctarget.fma" not in compiled.ir["emitter-input"]
    x, w = f32(13, 32), f32(13, 32)
    np.testing.assert_allclose(compiled(x, w), x + x * w, rtol=1e-6)


def test_a_column_major_tensor_gets_the_capability_diagnostic_at_its_parameter():
    kernel = kernel_from('''
import htp

@htp.kernel
def fortran(x: htp.Tensor[htp.f32, "N", 32, htp.layout("col_major")], y: htp.Out[htp.f32, "N", 32]):
    for i in range(0, x.shape[0], 8):
        y[i:i + 8, :] = x[i:i + 8, :]
''', "fortran")
    with pytest.raises(htp.CompileError) as info:
        kernel.compile("c")
    message = str(info.value)
    assert ".py:5:13: error: the layout 'col_major' is not available on target 'c' (targets that provide it: cpu, aie-npu1, aie-npu2, aie-sim)" in message, message
