"""The Rust extension out of tree (examples/extensions/htp-rust-sample),
linked into the `htp` package by `HTP_RUST_EXTENSIONS=<its folder>
scripts/install-python` (scripts/test builds the package so): its intrinsic
set, pass and target are registered at `import htp` like the in-tree ones,
its target runs kernels using its intrinsic, and `cpu` refuses them."""

import inspect
import types

import numpy as np
import pytest

import htp
from htp import f16, f32

if "htp-rust-sample" not in htp._htp.rust_extensions():
    pytest.skip("the htp package was built without HTP_RUST_EXTENSIONS=examples/extensions/htp-rust-sample",
                allow_module_level=True)

# The Python half of an intrinsic set: a module whose `__htp_namespace__`
# names it, imported by the kernel's module under any name.
rs = types.ModuleType("rsample")
rs.__htp_namespace__ = "rsample"


@htp.kernel
def square_plus_one(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = rs.square(x[i:i + 16, :]) + 1.0


@htp.kernel
def square_half(x: htp.Tensor[f16, 16, 32], y: htp.Out[f16, 16, 32]):
    y[:, :] = rs.square(x[:, :])


def test_the_extension_is_linked_and_registered_after_htp_s_own():
    assert htp._htp.rust_extensions() == ["htp-rust-sample"]
    targets = [t.name for t in htp.targets()]
    assert targets.index("rsample-cpu") > targets.index("cpu")
    assert "rsample-square-to-mul" in htp._htp.pass_names()


def test_its_intrinsic_set_and_target_are_listed():
    sets = htp.intrinsic_sets()
    assert sets["rsample"] == {"square": ("rsample.square", "t * t, elementwise (lowered by the rsample-cpu target)")}
    info = {t.name: t for t in htp.targets()}["rsample-cpu"]
    assert "intrinsic:rsample.square" in info.capabilities
    assert "op:tile.mul" in info.capabilities and "op:tile.exp" not in info.capabilities  # a tested subset of the cpu's
    assert info.architecture == {t.name: t for t in htp.targets()}["cpu"].architecture
    assert square_plus_one.targets() == ["rsample-cpu"]


@htp.kernel
def exp_of_square(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = htp.exp(rs.square(x[:, :]))


@pytest.mark.parametrize("rows", [1, 16, 37])
def test_its_target_lowers_the_intrinsic_and_runs_the_kernel(rows):
    x = np.random.default_rng(rows).standard_normal((rows, 64), dtype=np.float32)
    compiled = square_plus_one.compile("rsample-cpu")
    np.testing.assert_allclose(compiled(x), x * x + 1.0, rtol=1e-6)
    # The front end's tile IR carries the intrinsic; the rsample-cpu pass rewrote it before the cpu lowering.
    assert 'tile.intrinsic "rsample.square"' in compiled.ir["tile"]
    assert "rsample.square" not in compiled.ir["llvm"]


def test_f16_too():
    x = np.random.default_rng(0).standard_normal((16, 32)).astype(np.float16)
    np.testing.assert_allclose(square_half.compile("rsample-cpu")(x), x * x, rtol=1e-3)


def test_cpu_lacks_the_intrinsic_and_says_so_at_the_call():
    with pytest.raises(htp.CompileError) as error:
        square_plus_one.compile("cpu")
    message = str(error.value)
    lines, first = inspect.getsourcelines(square_plus_one.function)
    line = first + next(i for i, text in enumerate(lines) if "rs.square(" in text)
    assert f"{__file__}:{line}:" in message, message
    assert "the intrinsic rsample.square (rsample.square) is not available on target 'cpu'" in message, message
    assert "targets that provide it: rsample-cpu" in message, message


def test_it_refuses_what_it_has_not_been_tested_on():
    with pytest.raises(htp.CompileError, match="the tile op 'tile.exp' is not available on target 'rsample-cpu'"):
        exp_of_square.compile("rsample-cpu")
