"""How a call hands its arguments to a kernel: any numpy array gives numpy's
answer (arrays that are not dense row-major are copied, outputs are written
back into the caller's view), bf16 arrays come from ml_dtypes or as uint16
bits, scalars are checked, and errors point at the caller's line with no
traceback from inside HTP."""

import inspect
import os
import subprocess
import sys
import traceback

import numpy as np
import pytest

import htp
from htp import bf16, f32
from test_errors import assert_points_at

rng = np.random.default_rng(2024)


@htp.kernel
def axpb(x: htp.Tensor[f32, "N", "M"], b: htp.Tensor[f32, "N", "M"], y: htp.Out[f32, "N", "M"]):
    for i in range(0, x.shape[0], 16):
        for j in range(0, x.shape[1], 16):
            y[i:i + 16, j:j + 16] = x[i:i + 16, j:j + 16] * 2.0 + b[i:i + 16, j:j + 16]


@htp.kernel
def accumulate(x: htp.Tensor[f32, "N", "M"], acc: htp.InOut[f32, "N", "M"]):
    for i in range(0, x.shape[0], 16):
        for j in range(0, x.shape[1], 16):
            acc[i:i + 16, j:j + 16] = acc[i:i + 16, j:j + 16] + x[i:i + 16, j:j + 16]


@htp.kernel
def matmul(a: htp.Tensor[f32, "M", "K"], b: htp.Tensor[f32, "K", "N"], c: htp.Out[f32, "M", "N"]):
    for i in range(0, a.shape[0], 32):
        for j in range(0, b.shape[1], 32):
            acc = htp.zeros((32, 32), f32)
            for k in range(0, a.shape[1], 16):
                acc += htp.pad(a[i:i + 32, k:k + 16], 0.0) @ htp.pad(b[k:k + 16, j:j + 32], 0.0)
            c[i:i + 32, j:j + 32] = acc


@htp.kernel
def axpb_1d(x: htp.Tensor[f32, "N"], b: htp.Tensor[f32, "N"], y: htp.Out[f32, "N"]):
    for i in range(0, x.shape[0], 64):
        y[i:i + 64] = x[i:i + 64] * 2.0 + b[i:i + 64]


# Layouts numpy can hand over, each as (make the underlying buffer for an
# n x m view, take the view of such a buffer). None of these views is
# C-contiguous and aligned.
LAYOUTS = {
    "transposed": (lambda n, m: np.empty((m, n), np.float32), lambda base, n, m: base.T),
    "fortran-order": (lambda n, m: np.empty((n, m), np.float32, order="F"), lambda base, n, m: base),
    "every-other-row": (lambda n, m: np.empty((2 * n, m), np.float32), lambda base, n, m: base[::2]),
    "every-other-column": (lambda n, m: np.empty((n, 2 * m), np.float32), lambda base, n, m: base[:, ::2]),
    "rows-reversed": (lambda n, m: np.empty((n, m), np.float32), lambda base, n, m: base[::-1]),
    "both-reversed": (lambda n, m: np.empty((n, m), np.float32), lambda base, n, m: base[::-1, ::-1]),
    "column-slice": (lambda n, m: np.empty((n, m + 5), np.float32), lambda base, n, m: base[:, 1:m + 1]),
    # A field of a packed structured array: 5-byte strides (not whole elements), unaligned.
    "packed-struct-field": (lambda n, m: np.empty((n, m), [("tag", "i1"), ("v", "<f4")]), lambda base, n, m: base["v"]),
    "struct-field": (lambda n, m: np.empty((n, m), [("v", "<f4"), ("w", "<f4")]), lambda base, n, m: base["v"]),
    # Contiguous, but one byte off alignment.
    "unaligned": (lambda n, m: np.empty(n * m * 4 + 1, np.uint8), lambda base, n, m: base[1:].view(np.float32).reshape(n, m)),
}


def make(layout, values, fill=0xFF):
    """``values`` in the given layout: (the view, its underlying buffer). The
    rest of the buffer holds ``fill`` bytes (0xFF: NaNs in f32)."""
    make_base, view_of = LAYOUTS[layout]
    base = make_base(*values.shape)
    raw_bytes(base)[...] = fill
    view = view_of(base, *values.shape)
    view[...] = values
    assert view.shape == values.shape and not (view.flags.c_contiguous and view.flags.aligned)
    return view, base


def expected_buffer(layout, base, values):
    """A copy of ``base`` (taken before the call) with its view set to ``values``."""
    expected = base.copy(order="K")
    LAYOUTS[layout][1](expected, *values.shape)[...] = values
    return expected


def raw_bytes(base):
    """The bytes of a dense buffer (C or Fortran order), as a writable view."""
    return base.ravel(order="K").view(np.uint8)


def assert_bytes_equal(actual, expected):
    np.testing.assert_array_equal(raw_bytes(actual), raw_bytes(expected))


@pytest.mark.parametrize("layout", LAYOUTS)
def test_inputs_in_any_layout_give_numpys_answer(layout):
    x = rng.standard_normal((40, 24), dtype=np.float32)
    b = rng.standard_normal((40, 24), dtype=np.float32)
    x_view, _ = make(layout, x)
    b_view, _ = make(layout, b)
    np.testing.assert_array_equal(axpb(x_view, b_view), x * 2 + b)
    np.testing.assert_array_equal(axpb(x_view, b), x * 2 + b)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_outputs_in_any_layout_are_written_and_nothing_around_them(layout):
    x = rng.standard_normal((40, 24), dtype=np.float32)
    b = rng.standard_normal((40, 24), dtype=np.float32)
    y, base = make(layout, np.zeros((40, 24), np.float32), fill=0x5A)
    expected = expected_buffer(layout, base, x * 2 + b)
    assert axpb(x, b, y) is y
    np.testing.assert_array_equal(y, x * 2 + b)
    assert_bytes_equal(base, expected)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_in_out_views_start_from_their_current_values(layout):
    x = rng.standard_normal((40, 24), dtype=np.float32)
    start = rng.standard_normal((40, 24), dtype=np.float32)
    acc, base = make(layout, start, fill=0x5A)
    expected = expected_buffer(layout, base, start + x)
    assert accumulate(x, acc) is acc
    np.testing.assert_array_equal(acc, start + x)
    assert_bytes_equal(base, expected)


def test_a_matmul_of_transposed_and_fortran_operands_into_a_transposed_output():
    w = rng.standard_normal((50, 40), dtype=np.float32)  # a = w.T: [40 x 50]
    b = np.asfortranarray(rng.standard_normal((50, 36), dtype=np.float32))
    c, _ = make("transposed", np.zeros((40, 36), np.float32))
    assert matmul(w.T, b, c) is c
    np.testing.assert_allclose(c, w.T.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(matmul(w.T, b), c, rtol=1e-6, atol=1e-6)


def test_one_dimensional_steps_and_reversals():
    x = rng.standard_normal(300, dtype=np.float32)
    b = rng.standard_normal(150, dtype=np.float32)
    np.testing.assert_array_equal(axpb_1d(x[::2], b), x[::2] * 2 + b)
    np.testing.assert_array_equal(axpb_1d(x[:150][::-1], b[::-1]), x[:150][::-1] * 2 + b[::-1])
    base = np.full(300, -7.0, np.float32)
    axpb_1d(x[::2], b, base[::-2])
    np.testing.assert_array_equal(base[::-2], x[::2] * 2 + b)
    np.testing.assert_array_equal(base[-2::-2], np.full(150, -7.0, np.float32))


def test_broadcast_and_read_only_inputs():
    row = rng.standard_normal(24, dtype=np.float32)
    x = np.broadcast_to(row, (40, 24))  # stride 0, read-only
    b = rng.standard_normal((40, 24), dtype=np.float32)
    b.flags.writeable = False
    np.testing.assert_array_equal(axpb(x, b), row * 2 + b)


class NativeSpy:
    """Records the arguments the native module is handed."""

    def __init__(self, native):
        self.native = native
        self.arguments = None

    def run(self, arguments):
        self.arguments = list(arguments)
        self.native.run(arguments)

    def __getattr__(self, name):
        return getattr(self.native, name)


def test_contiguous_arrays_are_not_copied(monkeypatch):
    compiled = axpb.compile()
    spy = NativeSpy(compiled._compiled)
    monkeypatch.setattr(compiled, "_compiled", spy)
    x = rng.standard_normal((40, 24), dtype=np.float32)
    b = rng.standard_normal((40, 24), dtype=np.float32)
    y = np.zeros((40, 24), np.float32)
    assert compiled(x, b, y) is y
    for given, handed in zip((x, b, y), spy.arguments):
        assert handed.ctypes.data == given.ctypes.data
    np.testing.assert_array_equal(y, x * 2 + b)
    # A strided one is handed over as a dense copy.
    compiled(x.T.copy().T, b, y)
    assert spy.arguments[0].flags.c_contiguous and not np.shares_memory(spy.arguments[0], x)


def test_the_package_path_gets_dense_arrays_and_writes_outputs_back(monkeypatch):
    # pto-runtime's stand-in: it checks what a package would be handed and
    # does the kernel's work on it.
    compiled = axpb.compile(target="pto-a2a3sim")
    handed = []

    def run_package(arguments):
        assert all(a.flags.c_contiguous and a.flags.aligned for a in arguments)
        x, b, y = arguments
        y[...] = x * 2 + b
        handed.append(arguments)

    monkeypatch.setattr(compiled, "_run_package", run_package)
    x = rng.standard_normal((40, 24), dtype=np.float32)
    b = rng.standard_normal((40, 24), dtype=np.float32)
    x_view, _ = make("transposed", x)
    y, base = make("every-other-column", np.zeros((40, 24), np.float32), fill=0x5A)
    expected = expected_buffer("every-other-column", base, x * 2 + b)
    assert compiled(x_view, b, y) is y
    assert handed and handed[0][1].ctypes.data == b.ctypes.data
    assert_bytes_equal(base, expected)


# bf16: ml_dtypes.bfloat16 arrays or uint16 bit patterns.


@htp.kernel
def widen_add(x: htp.Tensor[bf16, "N", 64], z: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.cast(x[i:i + 16, :], f32) + z[i:i + 16, :]


@htp.kernel
def narrow(x: htp.Tensor[f32, "N", 64], y: htp.Out[bf16, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.cast(x[i:i + 16, :], bf16)


BF16_EPS = 2.0 ** -8  # half an ulp of bf16's 8-bit significand, relative


def test_bf16_inputs_from_ml_dtypes_and_as_uint16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = rng.standard_normal((40, 64), dtype=np.float32)
    z = rng.standard_normal((40, 64), dtype=np.float32)
    xb = x.astype(ml_dtypes.bfloat16)
    expected = xb.astype(np.float32) + z
    np.testing.assert_array_equal(widen_add(xb, z), expected)
    np.testing.assert_array_equal(widen_add(xb.view(np.uint16), z), expected)
    np.testing.assert_array_equal(widen_add(np.asfortranarray(xb), z), expected)
    np.testing.assert_allclose(widen_add(xb, np.zeros_like(z)), x, rtol=BF16_EPS, atol=1e-30)


def test_bf16_outputs_are_ml_dtypes_bfloat16():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = rng.standard_normal((40, 64), dtype=np.float32)
    y = narrow(x)
    assert y.dtype == ml_dtypes.bfloat16
    np.testing.assert_allclose(y.astype(np.float32), x, rtol=BF16_EPS, atol=1e-30)
    # Given outputs: bit patterns, and a strided bfloat16 view.
    bits = np.zeros((40, 64), np.uint16)
    assert narrow(x, bits) is bits
    np.testing.assert_array_equal(bits, y.view(np.uint16))
    base = np.full((40, 128), 5.0, ml_dtypes.bfloat16)
    narrow(x, base[:, 1::2])
    np.testing.assert_array_equal(base[:, 1::2], y)
    np.testing.assert_array_equal(base[:, ::2].astype(np.float32), 5.0)


def test_bf16_rejects_other_dtypes():
    x = np.zeros((16, 64), np.float32)
    with pytest.raises(htp.ArgumentError, match="'x' must have dtype .*uint16 .*htp.bf16.*got float32"):
        widen_add(x, x)


BF16_WITHOUT_ML_DTYPES = '''
import sys
sys.modules["ml_dtypes"] = None  # import ml_dtypes now raises ImportError
import numpy as np
import htp

@htp.kernel
def narrow(x: htp.Tensor[htp.f32, "N", 64], y: htp.Out[htp.bf16, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.cast(x[i:i + 16, :], htp.bf16)

x = np.random.default_rng(0).standard_normal((20, 64), dtype=np.float32)
y = narrow(x)
assert y.dtype == np.uint16, y.dtype
widened = (y.astype(np.uint32) << 16).view(np.float32)
np.testing.assert_allclose(widened, x, rtol=2.0 ** -8, atol=1e-30)
print("ok")
'''


def test_bf16_outputs_are_uint16_without_ml_dtypes(tmp_path):
    script = tmp_path / "narrow.py"
    script.write_text(BF16_WITHOUT_ML_DTYPES)
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=os.environ)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


# Scalars are checked before the native call.


@htp.kernel
def affine(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], s: f32, n: htp.i8, k: int, negate: bool):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :] * s + htp.f32(n) + htp.f32(k)
        if negate:
            t = -t
        y[i:i + 16, :] = t


def affine_reference(x, s, n, k, negate):
    t = x * np.float32(s) + np.float32(int(n)) + np.float32(int(k))
    return -t if negate else t


X = rng.standard_normal((20, 64), dtype=np.float32)
VALID = dict(s=1.5, n=3, k=-2, negate=False)


@pytest.mark.parametrize(
    "s, n, k, negate",
    [
        (2.5, 3, 7, False),
        (3, -128, -5, True),  # an int for a float parameter
        (np.float64(0.5), np.int8(127), np.int64(2**40), np.bool_(True)),
        (np.float32(1.5), np.int16(-3), np.uint8(200), False),
        (np.array(2.0), np.array(4), 2**63 - 1, np.array(False)),  # 0-d arrays
    ],
)
def test_scalars_of_every_accepted_kind(s, n, k, negate):
    np.testing.assert_allclose(affine(X, s=s, n=n, k=k, negate=negate), affine_reference(X, s, n, k, negate), rtol=1e-6)


@pytest.mark.parametrize(
    "name, value, problem",
    [
        ("s", "2.0", "must be a float or an int, got '2.0' (str)"),
        ("s", None, "must be a float or an int, got None (NoneType)"),
        ("s", [1.0], "must be a float or an int, got [1.0] (list)"),
        ("s", 1 + 2j, "must be a float or an int, got (1+2j) (complex)"),
        ("s", True, "must be a float or an int, got True (bool)"),
        ("s", 1e39, "must be at most 3.402823e+38 in magnitude"),
        ("s", 10**400, "must be at most 3.402823e+38 in magnitude"),
        ("n", 2.5, "must be an int, got 2.5 (float)"),
        ("n", 2.0, "must be an int, got 2.0 (float)"),
        ("n", np.float32(2), "must be an int"),
        ("n", 128, "must be in [-128, 127], got 128 (int)"),
        ("n", -129, "must be in [-128, 127], got -129 (int)"),
        ("n", np.int64(1000), "must be in [-128, 127]"),
        ("k", 2**63, "must be in [-9223372036854775808, 9223372036854775807]"),
        ("negate", 1, "must be a bool, got 1 (int)"),
        ("negate", "yes", "must be a bool, got 'yes' (str)"),
    ],
)
def test_wrong_scalars_are_argument_errors_at_the_call(name, value, problem):
    dtype = {"s": "htp.f32", "n": "htp.i8", "k": "htp.i64", "negate": "htp.i1"}[name]
    call_line = inspect.currentframe().f_lineno + 2
    with pytest.raises(htp.ArgumentError) as info:
        affine(X, **{**VALID, name: value})
    assert f"affine(): '{name}' ({dtype}) {problem}" in str(info.value)
    assert_points_at(info.value, "test_arguments.py", call_line, 9)
    assert_at_most_one_htp_frame(info.value)


# Errors at call time: the user's frames and at most the entry point of HTP.


def assert_at_most_one_htp_frame(error):
    frames = traceback.extract_tb(error.__traceback__)
    inside = [f for f in frames if f"{os.sep}htp{os.sep}" in f.filename]
    assert len(inside) <= 1, traceback.format_list(frames)
    assert frames[0].filename == __file__


@htp.kernel
def blocked(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", "M"], BLOCK: htp.Const[int] = 16):
    for i in range(0, x.shape[0], BLOCK):
        y[i:i + BLOCK, 0:64] = x[i:i + BLOCK, :]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: axpb(X, X, X, X), "takes 3 positional arguments"),
        (lambda: axpb(X.astype(np.float64), X), "'x' must have dtype float32"),
        (lambda: axpb(X, X[:, :10]), "'b' dimension 1 is 10, but 'M' is 64"),
        (lambda: axpb(X, X, np.zeros((20, 64), np.float32)[:, :10]), "'y' dimension 1 is 10"),
        (lambda: axpb(X, [[1.0]]), "'b' must be a numpy array, got list"),
        (lambda: axpb(X, X, np.broadcast_to(X, X.shape)), "output 'y' is read-only"),
        (lambda: axpb.compile()(X), "missing argument 'b'"),
        (lambda: axpb.compile()(X, X.astype(np.float16)), "'b' must have dtype float32"),
        (lambda: blocked(X), "pass output 'y': its size 'M' is not fixed by any input"),
        (lambda: blocked(X, BLOCK="16"), "compile-time constants are int, float or bool"),
        (lambda: blocked(X, BLOCK=[16]), "compile-time constants are int, float or bool"),
    ],
)
def test_argument_errors_show_the_callers_frames_only(call, message):
    call_line = inspect.getsourcelines(call)[1]
    with pytest.raises(htp.ArgumentError) as info:
        call()
    assert message in str(info.value)
    assert_points_at(info.value, "test_arguments.py", call_line)
    assert_at_most_one_htp_frame(info.value)


def test_outputs_come_back_in_parameter_order():
    @htp.kernel
    def split(x: htp.Tensor[f32, "N", 64], low: htp.Out[f32, "N", 64], high: htp.Out[f32, "N", 64]):
        for i in range(0, x.shape[0], 16):
            low[i:i + 16, :] = x[i:i + 16, :] - 1.0
            high[i:i + 16, :] = x[i:i + 16, :] + 1.0

    high = np.zeros_like(X)
    low, returned_high = split(X, high=high)
    assert returned_high is high
    np.testing.assert_array_equal(low, X - 1)
    np.testing.assert_array_equal(high, X + 1)


def test_constants_given_at_call_time_compile_once_per_value():
    x = rng.standard_normal((40, 64), dtype=np.float32)
    for block in (8, 16, 8):
        y = np.zeros((40, 80), np.float32)
        blocked(x, y, BLOCK=block)
        np.testing.assert_array_equal(y[:, :64], x)
    assert blocked.compile(BLOCK=8) is blocked.compile(BLOCK=8)
    assert blocked.compile(BLOCK=8) is not blocked.compile(BLOCK=16)


def test_a_compiled_kernel_refuses_another_constant():
    compiled = blocked.compile(BLOCK=8)
    y = np.zeros((20, 64), np.float32)
    compiled(X, y, BLOCK=8)  # the value it was compiled with
    np.testing.assert_array_equal(y, X)
    call_line = inspect.currentframe().f_lineno + 2
    with pytest.raises(htp.ArgumentError, match="'BLOCK' is a compile-time constant, compiled as 8") as info:
        compiled(X, y, BLOCK=16)
    assert_points_at(info.value, "test_arguments.py", call_line, 9)
    assert_at_most_one_htp_frame(info.value)
    with pytest.raises(htp.ArgumentError, match="compiled as 16"):
        blocked.compile()(X, y, BLOCK=32)  # the default
