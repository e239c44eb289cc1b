"""Extensions written in Python (htp.extensions): a target registered from
Python is listed, selected and capability-checked like the in-tree ones; an
intrinsic set of helpers; named pipelines; a mutator that asks for one."""

import json
import os
import sys

import numpy as np
import pytest

import htp
from htp import f16, f32

from sources import kernel_from

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "extension_fixtures"))
import copy_only_target as ext  # noqa: E402

htp.extensions.load(ext)


@htp.kernel
def copy(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :]


@htp.kernel
def add_one(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] + 1.0


@htp.kernel
def copy_half(x: htp.Tensor[f16, 16, 64], y: htp.Out[f16, 16, 64]):
    y[:, :] = x[:, :]


def test_loading_twice_registers_once():
    assert htp.extensions.load("copy_only_target") is ext
    assert htp.extensions.loaded().count("copy_only_target") == 1


def test_the_python_target_is_listed_with_its_capabilities():
    info = {t.name: t for t in htp.targets()}
    assert "copy-only" in info
    assert "op:tile.load" in info["copy-only"].capabilities
    assert "op:tile.*" in info["cpu"].capabilities
    assert info["copy-only"].architecture.levels[0] == htp.ParallelLevel("thread", 1, "the calling thread")
    assert info["copy-only"].architecture.memories[0].bytes is None


def test_a_python_target_compiles_through_its_emitter_and_runs_through_its_runner():
    compiled = copy.compile("copy-only")
    module = json.loads(compiled.files["ir.json"])
    assert module["name"] == "builtin.module"
    functions = [op for op in module["regions"][0][0]["ops"] if op["name"] == "func.func"]
    assert [json.loads(f["attributes"]["sym_name"]) for f in functions] == ["copy"]
    names = json.dumps(module)
    assert '"name":"tile.load"' in names.replace(" ", "") and "tile.store" in names
    x = np.random.default_rng(0).standard_normal((40, 64)).astype(np.float32)
    np.testing.assert_array_equal(compiled(x), x)


def test_a_kernel_needing_an_op_the_target_lacks_gets_the_capability_diagnostic_at_its_line():
    with pytest.raises(htp.CompileError) as info:
        add_one.compile("copy-only")
    message = str(info.value)
    assert "the tile op 'tile.add' is not available on target 'copy-only'" in message, message
    assert "targets that provide it: cpu" in message, message
    assert f"{__file__}:" in message and "+ 1.0" in message, message


def test_an_element_type_the_target_lacks_is_refused_at_its_line():
    with pytest.raises(htp.CompileError, match=r"the element type f16 is not available on target 'copy-only'"):
        copy_half.compile("copy-only")


def test_which_targets_can_run_a_kernel_includes_python_targets():
    assert "copy-only" in copy.targets()
    assert "copy-only" not in add_one.targets()


def test_a_pipeline_registered_from_python_is_listed():
    assert ("test-ext-cleanup", "canonicalize + cse, registered from Python", "canonicalize,cse") in htp.extensions.pipelines()


def test_registering_a_taken_target_name_is_an_error():
    with pytest.raises(htp.TargetError, match="two targets claim the name 'cpu'"):
        htp.extensions.Registry("dup").target("cpu", description="x", capabilities=[], emitter=ext.emit, runner=__name__)


def test_a_python_intrinsic_set_composes_tile_ops_on_every_target():
    source = '''
import htp
from htp import f32
import copy_only_target as tx

@htp.kernel
def scaled(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], a: f32):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = tx.affine(x[i:i + 16, :], a, 1.0)
'''
    kernel = kernel_from(source, "scaled")
    x = np.random.default_rng(1).standard_normal((40, 64)).astype(np.float32)
    np.testing.assert_allclose(kernel(x, None, 0.5), (x + x) * 0.5 + 1.0, rtol=1e-6)


def test_an_unknown_function_of_an_intrinsic_set_is_a_located_error():
    source = '''
import htp
from htp import f32
import copy_only_target as tx

@htp.kernel
def bad(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = tx.thrice(x[:, :])
'''
    with pytest.raises(htp.CompileError, match=r"bad_\d+\.py:8:15: error: the intrinsic set 'testext' has no function 'thrice'"):
        kernel_from(source, "bad").compile("cpu")


def test_a_mutator_that_changes_a_kernel_runs_its_pipeline():
    source = '''
import htp
from htp import f32

@htp.kernel
def cubed(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = cube(t) + cube(t)
'''
    kernel = kernel_from(source, "cubed")
    x = np.random.default_rng(2).standard_normal((40, 64)).astype(np.float32)
    compiled = kernel.compile("cpu")
    np.testing.assert_allclose(compiled(x), 2 * x * x * x, rtol=1e-5)
    # cse merged the two identical cubes: two multiplies, not four.
    assert compiled.ir["tile"].count("tile.mul") == 2, compiled.ir["tile"]


def test_a_transform_script_registered_from_python_rewrites_the_tile_ir():
    assert any(name == "test-ext-transform" and "transform-interpreter" in passes
               for name, _, passes in htp.extensions.pipelines())
    source = '''
import htp
from htp import f32

@htp.kernel
def twice_squared(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = t * t + t * t
'''
    kernel = kernel_from(source, "twice_squared")
    sources, _ = kernel._sources_and_pipelines()
    raw = htp._htp.compile(sources, "twice_squared", {}, "cpu", ["test-ext-transform"])
    tile = dict(raw.stages())["tile"]
    assert tile.count("tile.mul") == 1, tile  # the script's CSE merged t * t
    compiled = htp.CompiledKernel(kernel, raw, "cpu", {})
    x = np.random.default_rng(3).standard_normal((40, 64)).astype(np.float32)
    np.testing.assert_allclose(compiled(x), 2 * x * x, rtol=1e-6)


def test_an_installed_extension_that_fails_to_load_is_skipped_with_a_warning(monkeypatch):
    import importlib.metadata as metadata

    stale = metadata.EntryPoint(name="stale", value="htp_no_such_extension_module", group="htp.extensions")
    monkeypatch.setattr(metadata, "entry_points", lambda group=None: [stale] if group == "htp.extensions" else [])
    with pytest.warns(htp.extensions.ExtensionWarning, match=r"'stale' \(htp_no_such_extension_module\).*ModuleNotFoundError"):
        assert htp.extensions.load_installed() == []
    assert "stale" in htp.extensions.failed()
    # the rest of htp keeps working
    x = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    y = np.zeros_like(x)
    copy(x, y)
    np.testing.assert_array_equal(y, x)


SQUARE_IRDL = """
irdl.dialect @testsquare {
  irdl.operation @square {
    %any = irdl.any
    irdl.operands(x: %any)
    irdl.results(y: %any)
  }
}
"""

#: tile.mul(t, t) -> testsquare.square(t)
SQUARE_PDL = """
pdl.pattern @square : benefit(1) {
  %type = pdl.type
  %x = pdl.operand
  %mul = pdl.operation "tile.mul"(%x, %x : !pdl.value, !pdl.value) -> (%type : !pdl.type)
  pdl.rewrite %mul {
    %square = pdl.operation "testsquare.square"(%x : !pdl.value) -> (%type : !pdl.type)
    pdl.replace %mul with %square
  }
}
"""

_square_registry = htp.extensions.Registry("test_square_extension")
_square_registry.dialect(SQUARE_IRDL)
_square_registry.rewrite("test-square", SQUARE_PDL)

SQUARES = '''
import htp
from htp import f32

@htp.kernel
def squares(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = t * t + t * x[i:i + 16, :]
'''


def test_a_dialect_defined_in_irdl_is_listed():
    assert ("testsquare", "test_square_extension") in htp.extensions.dialects()
    assert ("test-square", "PDL rewrites registered by test_square_extension", "htp-apply-pdl{patterns=test-square}") \
        in htp.extensions.pipelines()


@pytest.mark.parametrize("name,message", [
    ("tile", "the dialect 'tile' of 'bad' is already a dialect of HTP or MLIR"),
    ("arith", "the dialect 'arith' of 'bad' is already a dialect of HTP or MLIR"),
    ("testsquare", "the dialect 'testsquare' of 'bad' is already defined by 'test_square_extension'"),
])
def test_a_dialect_name_already_taken_is_refused(name, message):
    with pytest.raises(htp.TargetError, match=message):
        htp.extensions.Registry("bad").dialect(SQUARE_IRDL.replace("@testsquare", f"@{name}"))


def test_irdl_that_does_not_parse_or_defines_nothing_is_refused():
    with pytest.raises(htp.TargetError, match="the IRDL of 'bad' does not parse"):
        htp.extensions.Registry("bad").dialect("irdl.dialect @broken {")
    with pytest.raises(htp.TargetError, match="defines no dialect"):
        htp.extensions.Registry("bad").dialect("")


def test_pdl_that_is_not_patterns_or_a_taken_name_is_refused():
    with pytest.raises(htp.TargetError, match="the PDL patterns 'bad-pdl' of 'bad' are not valid"):
        htp.extensions.Registry("bad").rewrite("bad-pdl", "pdl.pattern : benefit(1) {")
    with pytest.raises(htp.TargetError, match="expected only pdl.pattern ops, found func.func"):
        htp.extensions.Registry("bad").rewrite("bad-pdl", "func.func private @f()")
    with pytest.raises(htp.TargetError, match="already registered by 'test_square_extension'"):
        htp.extensions.Registry("bad").rewrite("test-square", SQUARE_PDL)


def test_a_pdl_rewrite_creates_ops_of_an_irdl_dialect_in_the_tile_ir():
    kernel = kernel_from(SQUARES, "squares")
    sources, _ = kernel._sources_and_pipelines()
    # Only up to the tile IR: a target whose pipeline includes the rewrite
    # would emit the new op (the c target of examples/extensions does).
    with pytest.raises(htp.CompileError) as info:
        htp._htp.compile(sources, "squares", {}, "cpu", ["test-square"])
    message = str(info.value)
    # t * t became testsquare.square (at its line and column), and the
    # capability check, which runs after a mutator's pipelines, says the
    # CPU target has no such dialect.
    line = SQUARES.splitlines().index("        y[i:i + 16, :] = t * t + t * x[i:i + 16, :]") + 1
    assert f".py:{line}:26: error: the 'testsquare' dialect is not available on target 'cpu'" \
        in message, message


def test_programming_models_are_listed_and_none_is_registered_in_tree_yet():
    # Models register in Rust (htp_frontend::models; WSP and CSP next):
    # HTP's own kernel model is not one of them.
    assert htp.models() == {}
    assert any("model:kernel" in t.capabilities for t in htp.targets())
