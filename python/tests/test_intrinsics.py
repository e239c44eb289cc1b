"""Intrinsic sets and the capability check: `pto.add(a, b)` compiles for the
PTO targets (one TADD) and runs on a2a3sim; compiled for `cpu`, which does
not provide it, it is a CompileError at the call's line naming the targets
that do. Names used as `X.f(...)` resolve to htp or a registered set only."""

import inspect

import numpy as np
import pytest

import htp
import htp as h
from htp import f32, i32, pto
from targets import PACKAGE_TARGETS, needs_simulator
from test_errors import assert_points_at

np_alias = np  # a module that is neither htp nor an intrinsic set


@htp.kernel
def fused(x: htp.Tensor[f32, "N", 64], y: htp.Tensor[f32, "N", 64], z: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        a = x[i:i + 16, :]
        b = y[i:i + 16, :]
        z[i:i + 16, :] = pto.muls(pto.add(a, b), 0.5)


@htp.kernel
def unary_chain(x: htp.Tensor[f32, "N", 64], z: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        z[i:i + 16, :] = pto.sqrt(pto.abs(pto.subs(x[i:i + 16, :], 1.0)))


@htp.kernel
def aliased(x: htp.Tensor[f32, "N", 64], z: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        z[i:i + 16, :] = h.exp(x[i:i + 16, :])


def line_of(kernel, text):
    lines, first = inspect.getsourcelines(kernel.function)
    return first + next(i for i, l in enumerate(lines) if text in l)


def test_cpu_lacks_the_intrinsic_and_says_so_at_the_call():
    with pytest.raises(htp.CompileError) as error:
        fused.compile("cpu")
    assert_points_at(error.value, "test_intrinsics.py", line_of(fused, "pto.muls("))
    message = str(error.value)
    assert "the intrinsic pto.add (pto.tadd) is not available on target 'cpu'" in message
    assert "targets that provide it: pto-a2a3sim, pto-a2a3" in message


def test_calling_the_kernel_on_cpu_raises_the_same_diagnostic():
    x = np.ones((16, 64), np.float32)
    with pytest.raises(htp.CompileError, match="not available on target 'cpu'"):
        fused(x, x)


@pytest.mark.parametrize("target", PACKAGE_TARGETS)
def test_intrinsics_become_their_instructions(target):
    kernel = "".join(t for p, t in fused.compile(target).files.items() if p.startswith("kernels/"))
    assert "TADD(" in kernel and "TMULS(" in kernel
    kernel = "".join(t for p, t in unary_chain.compile(target).files.items() if p.startswith("kernels/"))
    assert "TSUBS(" in kernel and "TABS(" in kernel and "TSQRT(" in kernel


@needs_simulator
def test_intrinsics_run_on_a2a3sim():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((100, 64), dtype=np.float32)
    y = rng.standard_normal((100, 64), dtype=np.float32)
    np.testing.assert_allclose(fused.compile("pto-a2a3sim")(x, y), (x + y) * 0.5, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(unary_chain.compile("pto-a2a3sim")(x), np.sqrt(np.abs(x - 1.0)), rtol=1e-5, atol=1e-6)


def test_targets_report_capabilities_and_which_can_run_a_kernel():
    by_name = {t.name: t for t in htp.targets()}
    assert "model:kernel" in by_name["cpu"].capabilities
    assert "intrinsic:pto.tadd" in by_name["pto-a2a3sim"].capabilities
    assert "intrinsic:pto.tadd" not in by_name["cpu"].capabilities
    assert fused.targets() == ["pto-a2a3sim", "pto-a2a3"]
    # In-tree targets (installed extensions, such as examples/extensions/htp-ctarget's `c`, may add more).
    assert [t for t in aliased.targets() if t in ("cpu", "pto-a2a3sim", "pto-a2a3")] == ["cpu", "pto-a2a3sim", "pto-a2a3"]
    assert htp.intrinsic_sets()["pto"]["add"][0] == "pto.tadd"


def test_htp_under_another_name_is_still_htp():
    x = np.random.default_rng(1).standard_normal((20, 64), dtype=np.float32)
    np.testing.assert_allclose(aliased(x), np.exp(x), rtol=1e-6)


def test_intrinsics_cannot_be_called_from_python():
    with pytest.raises(TypeError, match="inside @htp.kernel"):
        pto.add(1, 2)


def _compile_error(source_kernel):
    with pytest.raises(htp.CompileError) as error:
        source_kernel.compile("pto-a2a3sim")
    return error.value


@htp.kernel
def unknown_intrinsic(x: htp.Tensor[f32, 16, 64], z: htp.Out[f32, 16, 64]):
    z[0:16, :] = pto.gelu(x[0:16, :])


@htp.kernel
def wrong_arity(x: htp.Tensor[f32, 16, 64], z: htp.Out[f32, 16, 64]):
    z[0:16, :] = pto.add(x[0:16, :])


@htp.kernel
def wrong_element_type(x: htp.Tensor[i32, 16, 64], z: htp.Out[i32, 16, 64]):
    t = x[0:16, :]
    z[0:16, :] = pto.div(t, t)


@htp.kernel
def foreign_module(x: htp.Tensor[f32, 16, 64], z: htp.Out[f32, 16, 64]):
    z[0:16, :] = np_alias.exp(x[0:16, :])


@pytest.mark.parametrize(
    "kernel,needle,message",
    [
        (unknown_intrinsic, "pto.gelu", "pto has no intrinsic 'gelu' (it has: add, sub"),
        (wrong_arity, "pto.add", "pto.add() takes 2 arguments, got 1"),
        (wrong_element_type, "pto.div", "pto.div() takes tiles of f16, f32, got a"),
        (foreign_module, "np_alias", "'np_alias' is not htp or an intrinsic module HTP knows (known: htp, comm, pto"),  # then any set an extension registers
    ],
)
def test_misused_intrinsics_are_located_diagnostics(kernel, needle, message):
    error = _compile_error(kernel)
    assert message in str(error)
    assert_points_at(error, "test_intrinsics.py", line_of(kernel, needle))


def test_targets_declare_their_architecture_models():
    by_name = {t.name: t for t in htp.targets()}
    pto = by_name["pto-a2a3sim"].architecture
    assert [level.name for level in pto.levels] == ["cluster", "cube_core", "vector_core"]
    assert {m.name: m.bytes for m in pto.memories} == {
        "gm": None, "ub": 188416, "l1": 524288, "l0a": 65536, "l0b": 65536, "l0c": 131072}
    assert by_name["pto-a2a3"].architecture == pto
    cpu = by_name["cpu"].architecture
    assert cpu.levels[0].name == "core" and cpu.levels[0].count >= 1
    assert cpu.memories[0].bytes is None
