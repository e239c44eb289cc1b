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


def test_programming_models_are_listed_with_their_parts():
    # Models register in Rust (htp_api::models; the sample model's crate in
    # tree, WSP and CSP next): HTP's own kernel model is not one of them.
    models = htp.models()
    assert "kernel" not in models
    namespace, _, decorator, constructs, loops = models["sample"]
    assert (namespace, decorator) == ("sample", "program")
    assert "cell" in constructs and "grid" in loops
    assert any("model:kernel" in t.capabilities for t in htp.targets())


# --- the extension API's contracts (htp.extensions.Registry) ---------------

import types  # noqa: E402


def _module(name, register):
    module = types.ModuleType(name)
    module.register = register
    return module


def test_a_pipeline_takes_a_list_of_passes():
    htp.extensions.Registry("test_list_pipeline").pipeline("test-list-pipeline", ["canonicalize", "cse"])
    assert ("test-list-pipeline", "registered by test_list_pipeline", "canonicalize,cse") in htp.extensions.pipelines()

    def register(registry):
        registry.pipeline("test-list-pipeline-2", ["canonicalize"], "one pass")
    htp.extensions.load(_module("test_list_pipeline_ext", register))
    assert ("test-list-pipeline-2", "one pass", "canonicalize") in htp.extensions.pipelines()
    with pytest.raises(TypeError, match="a list of strings"):
        htp.extensions.Registry("x").pipeline("test-list-pipeline-3", ["canonicalize", 3])


class _Noop(__import__("ast").NodeTransformer):
    pass


def _register_everything(registry, prefix):
    helpers = types.ModuleType(f"{prefix}_helpers")
    registry.layout(f"{prefix}_facet", lambda rows, cols, bits: None)
    registry.pipeline(f"{prefix}-pipeline", "canonicalize")
    registry.dialect(SQUARE_IRDL.replace("@testsquare", f"@{prefix}dialect"))
    registry.rewrite(f"{prefix}-rewrite", SQUARE_PDL)
    registry.intrinsics(helpers, f"{prefix}_set")
    registry.mutator(_Noop, pipeline=f"{prefix}-pipeline")
    registry.target(f"{prefix}-target", description="x", capabilities=["model:kernel", f"layout:{prefix}_facet"],
                    emitter=ext.emit, runner="copy_only_target")
    return helpers


def _nothing_registered(prefix, helpers):
    assert f"{prefix}_facet" not in htp.layouts()
    assert not any(name.startswith(prefix) for name, _, _ in htp.extensions.pipelines())
    assert not any(name.startswith(prefix) for name, _ in htp.extensions.dialects())
    assert f"{prefix}-target" not in [t.name for t in htp.targets()]
    assert f"{prefix}_set" not in htp.intrinsic_sets()
    assert not hasattr(helpers, "__htp_namespace__")
    assert _Noop not in htp.mutators.registered()
    assert f"{prefix}_ext" not in htp.extensions.loaded()


def test_an_extension_whose_register_fails_part_way_registers_nothing():
    seen = {}

    def register(registry):
        seen["helpers"] = _register_everything(registry, "txfail")
        raise RuntimeError("the extension's own bug")
    with pytest.raises(RuntimeError, match="own bug"):
        htp.extensions.load(_module("txfail_ext", register))
    _nothing_registered("txfail", seen["helpers"])


def test_an_extension_with_one_invalid_registration_registers_nothing():
    seen = {}

    def register(registry):
        seen["helpers"] = _register_everything(registry, "txbad")
        registry.pipeline("test-ext-cleanup", "cse")  # taken, with other passes
    with pytest.raises(htp.TargetError, match="two pipelines claim the name 'test-ext-cleanup'"):
        htp.extensions.load(_module("txbad_ext", register))
    _nothing_registered("txbad", seen["helpers"])

    def register_ok(registry):
        seen["helpers"] = _register_everything(registry, "txok")
    htp.extensions.load(_module("txok_ext", register_ok))
    assert "txok_facet" in htp.layouts() and "txok-target" in [t.name for t in htp.targets()]
    assert "txok_set" in htp.intrinsic_sets()
    htp.mutators.unregister(_Noop)


@pytest.mark.parametrize("capability,why", [
    ("op:tile.lod", "'tile.lod' is not a tile op"),
    ("op:arith.addf", "'arith.addf' is not a tile op"),
    ("dtype:f33", "'f33' is not an element type"),
    ("layout:no_such_facet", "'no_such_facet' is not a registered layout facet"),
    ("intrinsic:pto.nope", "'pto.nope' is not the instruction of a registered intrinsic set"),
    ("dialect:nosuchdialect", "'nosuchdialect' is not a dialect HTP knows"),
    ("model:dataflow", "the programming model 'dataflow' is not registered"),
    ("tile.add", "has no kind"),
    ("opp:tile.add", "'opp:' is not a kind of capability"),
])
def test_a_capability_naming_nothing_known_is_refused_with_the_valid_forms(capability, why):
    with pytest.raises(htp.TargetError) as info:
        htp.extensions.Registry("caps").target("caps-target", description="x", capabilities=["model:kernel", capability],
                                              emitter=ext.emit, runner="copy_only_target")
    message = str(info.value)
    assert f"target 'caps-target' of 'caps' declares capabilities HTP does not know ('{capability}': " in message
    assert why in message, message
    for form in ("op:tile.<op>", "dtype:<element type>", "layout:<facet>", "intrinsic:<set>.<instruction>",
                 "model:kernel", "dialect:<namespace>"):
        assert form in message, message
    assert "caps-target" not in [t.name for t in htp.targets()]


def test_known_capabilities_and_prefixes_are_accepted():
    # Checked without registering (a registered target's capabilities would
    # show in every later diagnostic): the capabilities pass, the runner fails.
    with pytest.raises(htp.TargetError, match="its runner module 'htp_no_such_runner' cannot be imported"):
        htp.extensions.Registry("caps_ok").target(
            "caps-ok", description="x", emitter=ext.emit, runner="htp_no_such_runner",
            capabilities=["model:kernel", "op:tile.add", "op:tile.*", "dtype:bf16", "dtype:*", "intrinsic:pto.tadd",
                          "intrinsic:pto.*", "dialect:testsquare", "layout:nz", "layout:axe", "layout:*"])


def test_python_intrinsic_sets_are_listed_and_may_not_take_a_taken_name():
    sets = htp.intrinsic_sets()
    assert sets["testext"]["affine"][0] == "@htp.func copy_only_target.affine"
    assert "pto" in sets
    helpers = types.ModuleType("clashing_helpers")
    for taken in ("pto", "testext", "htp"):
        with pytest.raises(htp.TargetError, match=f"the intrinsic set name '{taken}' of 'clash' is taken"):
            htp.extensions.Registry("clash").intrinsics(helpers, taken)
    assert not hasattr(helpers, "__htp_namespace__")
    # the same module under its own name again is a no-op
    htp.extensions.Registry("again").intrinsics(ext, "testext")


def _refusing_emitter(ir_json, kernel):
    """Refuses the first tile.add at its location, like HTP's own diagnostics."""
    def ops(op):
        yield op
        for region in op["regions"]:
            for block in region:
                for inner in block["ops"]:
                    yield from ops(inner)
    add = next((op for op in ops(json.loads(ir_json)) if op["name"] == "tile.add"), None)
    if add is None:
        return {}
    file, line, column = add["location"]
    raise htp.CompileError(f"{file}:{line}:{column}: error: the refusing target cannot add")


def _crashing_emitter(ir_json, kernel):
    return {}["no such key"]


htp.extensions.Registry("test_emitters").target(
    "refusing", description="refuses tile.add",
    capabilities=["model:kernel", "op:tile.load", "op:tile.store", "op:tile.add", "dtype:f32", "dtype:index"],
    emitter=_refusing_emitter, runner="copy_only_target")
htp.extensions.Registry("test_emitters").target(
    "crashing", description="an emitter with a bug",
    capabilities=["model:kernel", "op:tile.load", "op:tile.store", "dtype:f32", "dtype:index"],
    emitter=_crashing_emitter, runner="copy_only_target")


def test_an_emitters_compile_error_prints_like_htps_own():
    with pytest.raises(htp.CompileError) as info:
        add_one.compile("refusing")
    line = add_one.function.__code__.co_firstlineno + 3  # @htp.kernel, def, for, the add
    source = "        y[i:i + 16, :] = x[i:i + 16, :] + 1.0"
    column = source.index("x[i:i + 16, :] + 1.0") + 1
    assert str(info.value) == (f"{__file__}:{line}:{column}: error: the refusing target cannot add\n"
                               f"  {source}\n  {' ' * (column - 1)}^"), str(info.value)
    # the same form as a diagnostic of HTP's own (the capability check)
    with pytest.raises(htp.CompileError) as own:
        add_one.compile("copy-only")
    assert str(own.value).splitlines()[1:] == str(info.value).splitlines()[1:]


def test_another_exception_of_an_emitter_keeps_its_traceback_and_names_the_target():
    with pytest.raises(htp.CompileError) as info:
        copy.compile("crashing")
    assert "target 'crashing': its emitter failed: KeyError" in str(info.value)
    cause = info.value.__cause__
    assert isinstance(cause, KeyError)
    import traceback
    assert "_crashing_emitter" in "".join(traceback.format_tb(cause.__traceback__))
    # through a call too
    x = np.zeros((16, 64), np.float32)
    with pytest.raises(htp.CompileError) as called:
        htp.compile(copy, "crashing")(x)
    assert isinstance(called.value.__cause__, KeyError)


def test_a_mutator_may_introduce_a_call_of_an_intrinsic_set_the_body_did_not_name():
    source = '''
import ast
import htp
from htp import f32
import copy_only_target as tx


class UseTwice(ast.NodeTransformer):
    """`double(t)` -> `tx.twice(t)`."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "double":
            func = ast.Attribute(value=ast.Name(id="tx", ctx=ast.Load()), attr="twice", ctx=ast.Load())
            return ast.copy_location(ast.Call(func=func, args=node.args, keywords=[]), node)
        return node


@htp.kernel(mutators=[UseTwice])
def doubled(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = double(x[:, :])
'''
    kernel = kernel_from(source, "doubled")
    x = np.random.default_rng(4).standard_normal((16, 64)).astype(np.float32)
    np.testing.assert_allclose(kernel(x), x + x, rtol=1e-6)


def test_a_target_whose_runner_module_cannot_be_imported_is_refused_at_registration():
    with pytest.raises(htp.TargetError, match="target 'no-runner': its runner module 'htp_no_such_runner' cannot be imported"):
        htp.extensions.Registry("runnerless").target("no-runner", description="x", capabilities=["model:kernel"],
                                                    emitter=ext.emit, runner="htp_no_such_runner")
    with pytest.raises(htp.TargetError, match="its runner module 'json' has no find_runtime\\(\\) and no run_package\\(\\)"):
        htp.extensions.Registry("runnerless").target("no-runner", description="x", capabilities=["model:kernel"],
                                                    emitter=ext.emit, runner="json")
    assert "no-runner" not in [t.name for t in htp.targets()]


def test_a_runner_module_gone_at_call_time_is_a_target_error_naming_it(monkeypatch):
    compiled = copy.compile("copy-only")
    import importlib as _importlib
    real = _importlib.import_module
    monkeypatch.setattr(_importlib, "import_module",
                        lambda name, *a: (_ for _ in ()).throw(ModuleNotFoundError(f"No module named '{name}'"))
                        if name == "copy_only_target" else real(name, *a))
    with pytest.raises(htp.TargetError, match="its runner module 'copy_only_target' cannot be imported") as info:
        compiled(np.zeros((16, 64), np.float32))
    assert info.value.__cause__ is None and info.value.__suppress_context__


class _ToSquares(__import__("ast").NodeTransformer):
    """`square(t)` -> `t * t` (and the test-square rewrite makes it testsquare.square)."""

    def visit_Call(self, node):
        import ast
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "square":
            return ast.BinOp(left=node.args[0], op=ast.Mult(), right=node.args[0])
        return node


def test_which_targets_can_run_a_kernel_follows_mutator_pipelines_and_the_targets_own_refusals():
    registry = htp.extensions.Registry("test_squares_mutator")
    registry.target("squares-ok", description="x", emitter=ext.emit, runner="copy_only_target",
                    capabilities=["model:kernel", "op:tile.load", "op:tile.store", "dtype:f32", "dtype:index",
                                  "dialect:testsquare"])
    registry.mutator(_ToSquares, pipeline="test-square")
    try:
        source = '''
import htp
from htp import f32

@htp.kernel
def squared(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    t = x[:, :]
    y[:, :] = square(t)
'''
        kernel = kernel_from(source, "squared")
        # the capabilities of the unmutated kernel would fit cpu; its rewritten IR needs dialect:testsquare
        assert "cpu" not in kernel.targets()
        assert "squares-ok" in kernel.targets()  # it lists dialect:testsquare
    finally:
        htp.mutators.unregister(_ToSquares)
    # an emitter that refuses the kernel: not listed
    assert "refusing" not in add_one.targets() and "cpu" in add_one.targets()
    assert "refusing" in copy.targets()


def test_the_docs_examples_run(tmp_path, monkeypatch):
    """docs/extending.md, "Worked examples, one per kind": the blocks run in
    order as one extension module (the runner block as its own module)."""
    import importlib
    import re

    docs = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "extending.md")
    text = open(docs, encoding="utf-8").read()
    section = text.split("### Worked examples, one per kind", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 7, len(blocks)
    body = []
    for block in blocks:
        module = re.match(r"# module: (\w+)", block)
        if module:
            (tmp_path / f"{module.group(1)}.py").write_text(block)
        else:
            body.append(block)
    body.append('''
@htp.kernel
def doc_kernel(x: htp.Tensor["f32", 16, 64], y: htp.Out["f32", 16, 64]):
    t = x[:, :]
    y[:, :] = doc_nn.relu(doc_square(t))
''')
    (tmp_path / "doc_extension.py").write_text("\n".join(body).replace('htp.Tensor["f32"', "htp.Tensor[htp.f32")
                                             .replace('htp.Out["f32"', "htp.Out[htp.f32"))
    monkeypatch.syspath_prepend(str(tmp_path))
    doc = importlib.import_module("doc_extension")
    assert "doc-copy" in [t.name for t in htp.targets()]
    assert ("doc-cleanup", "canonicalize, then cse", "canonicalize,cse") in htp.extensions.pipelines()
    assert "doc_nn" in htp.intrinsic_sets() and "doc_panels16" in htp.layouts()
    assert ("docsq", "doc_ext") in htp.extensions.dialects()
    try:
        x = np.random.default_rng(5).standard_normal((16, 64)).astype(np.float32)
        np.testing.assert_allclose(doc.doc_kernel(x), np.maximum(x * x, 0.0), rtol=1e-6)
        compiled = copy.compile("doc-copy")
        assert list(compiled.files) == ["copy.json"]
        np.testing.assert_array_equal(compiled(x), x)
    finally:
        htp.mutators.unregister(doc.ExpandSquare)


# --- target extensions and binary package files ------------------------------

TWICE_IRDL = """
irdl.dialect @testtwice {
  irdl.operation @double {
    %any = irdl.any
    irdl.operands(x: %any)
    irdl.results(y: %any)
  }
}
"""

#: Stands for a front end producing the op: tile.add(t, t) -> testtwice.double(t).
FORM_TWICE_PDL = """
pdl.pattern @form : benefit(1) {
  %type = pdl.type
  %x = pdl.operand
  %add = pdl.operation "tile.add"(%x, %x : !pdl.value, !pdl.value) -> (%type : !pdl.type)
  pdl.rewrite %add {
    %double = pdl.operation "testtwice.double"(%x : !pdl.value) -> (%type : !pdl.type)
    pdl.replace %add with %double
  }
}
"""

#: The extension's lowering: testtwice.double(t) -> tile.add(t, t).
TWICE_TO_TILE_PDL = """
pdl.pattern @lower : benefit(1) {
  %type = pdl.type
  %x = pdl.operand
  %double = pdl.operation "testtwice.double"(%x : !pdl.value) -> (%type : !pdl.type)
  pdl.rewrite %double {
    %add = pdl.operation "tile.add"(%x, %x : !pdl.value, !pdl.value) -> (%type : !pdl.type)
    pdl.replace %double with %add
  }
}
"""

DOUBLED = '''
import htp
from htp import f32

@htp.kernel
def doubled(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    t = x[:, :]
    y[:, :] = t + t
'''


def test_an_extension_adds_a_capability_and_a_stage_to_the_cpu_target():
    registry = htp.extensions.Registry("test_twice_extension")
    registry.dialect(TWICE_IRDL)
    registry.rewrite("test-form-twice", FORM_TWICE_PDL)
    registry.rewrite("test-twice-to-tile", TWICE_TO_TILE_PDL)
    sources, _ = kernel_from(DOUBLED, "doubled")._sources_and_pipelines()
    with pytest.raises(htp.CompileError, match="the 'testtwice' dialect is not available on target 'cpu'"):
        htp._htp.compile(sources, "doubled", {}, "cpu", ["test-form-twice"])
    assert [p for p, _ in htp.extensions.extension_points("cpu")] == \
        ["before-lowering", "after-tile-to-linalg", "before-llvm"]
    with pytest.raises(htp.TargetError, match="target 'cpu' has no extension point 'nowhere'"):
        registry.extend_target("cpu", "bad", capabilities=["dialect:testtwice"], stages=[("nowhere", "cse")])
    with pytest.raises(htp.TargetError, match="no target named 'tpu'"):
        registry.extend_target("tpu", capabilities=["dialect:testtwice"])
    with pytest.raises(htp.TargetError, match="capabilities HTP does not know"):
        registry.extend_target("cpu", capabilities=["dialect:nosuch"])
    registry.extend_target("cpu", capabilities=["dialect:testtwice"],
                           stages=[("before-lowering", "test-twice-to-tile")])
    assert ("cpu", "test_twice_extension", ["dialect:testtwice"], [("before-lowering", "test-twice-to-tile")]) \
        in htp.extensions.target_extensions()
    assert "dialect:testtwice" in {t.name: t for t in htp.targets()}["cpu"].capabilities
    compiled = htp._htp.compile(sources, "doubled", {}, "cpu", ["test-form-twice"])
    assert "testtwice.double" in dict(compiled.stages())["tile"]
    x = np.random.default_rng(3).standard_normal((16, 64)).astype(np.float32)
    y = np.zeros_like(x)
    compiled.run([x, y])
    np.testing.assert_array_equal(y, x + x)
    # The PTO targets are not extended: they still refuse it.
    with pytest.raises(htp.CompileError, match="not available on target 'pto-a2a3sim' \\(targets that provide it: cpu"):
        htp._htp.compile(sources, "doubled", {}, "pto-a2a3sim", ["test-form-twice"])


BLOB = bytes(range(256)) + b"\x00\xff\r\n"


def _emit_with_blob(ir_json, kernel):
    return {"ir.json": ir_json, "data/blob.bin": BLOB}


htp.extensions.Registry("test_binary_files").target(
    "test-binary", description="copies f32 tensors; its package holds a binary file",
    capabilities=["model:kernel", "op:tile.load", "op:tile.store", "dtype:f32", "dtype:index"],
    emitter=_emit_with_blob, runner="copy_only_target")


def test_a_package_holds_binary_files_next_to_text_files(tmp_path):
    compiled = copy.compile("test-binary")
    assert compiled.files["data/blob.bin"] == BLOB
    assert isinstance(compiled.files["ir.json"], str)
    root = compiled.write_package(tmp_path / "package")
    assert (tmp_path / "package" / "data" / "blob.bin").read_bytes() == BLOB
    assert (tmp_path / "package" / "ir.json").read_text(encoding="utf-8") == compiled.files["ir.json"]
    assert root == str(tmp_path / "package")
    x = np.random.default_rng(4).standard_normal((32, 64)).astype(np.float32)
    np.testing.assert_array_equal(compiled(x), x)


def test_the_pto_clusters_are_a_tile_array_shown_read_only():
    info = {t.name: t for t in htp.targets()}
    assert info["cpu"].architecture.array is None and info["copy-only"].architecture.array is None
    model = info["pto-a2a3sim"].architecture
    array = model.array
    assert isinstance(array, htp.TileArray)
    assert (array.columns, array.rows) == (24, ("aic", "aiv", "aiv"))
    assert len(array.tiles("aiv")) == 48 and array.kind_at(5, 0).name == "aic"
    ub = {m.name: m for m in model.memories}["ub"]
    assert array.kind("aiv").memories == (ub,)
    assert [m.name for m in array.kind("aic").memories] == ["l1", "l0a", "l0b", "l0c"]
    assert array.addressable(3, 1) == [(3, 1)]  # no shared memory between cores
    with pytest.raises(IndexError, match="outside the 24x3 array"):
        array.kind_at(24, 0)


# Rust extensions named at build time (HTP_RUST_EXTENSIONS, docs/extending.md): what
# scripts/gen-rust-extensions generates and refuses. Building with one is scripts/test's
# (examples/extensions/htp-rust-sample/tests).

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GENERATE = os.path.join(ROOT, "scripts", "gen-rust-extensions")


def generate(out, *crates):
    import subprocess
    return subprocess.run([sys.executable, GENERATE, str(out), *map(str, crates)], capture_output=True, text=True)


def rust_crate(folder, name, dependencies=""):
    (folder / "src").mkdir(parents=True)
    (folder / "Cargo.toml").write_text(f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2021"\n\n'
                                       f"[dependencies]\n{dependencies}")
    (folder / "src" / "lib.rs").write_text("pub fn register() -> Result<(), String> { Ok(()) }\n")
    return folder


def test_the_generated_binding_calls_each_register_in_order(tmp_path):
    first = rust_crate(tmp_path / "first", "first-ext")
    second = rust_crate(tmp_path / "second", "second-ext")
    result = generate(tmp_path / "out", first, second)
    assert result.returncode == 0, result.stderr
    lib = (tmp_path / "out" / "lib.rs").read_text()
    assert lib.index('("first-ext", first_ext::register)') < lib.index('("second-ext", second_ext::register)')
    assert "htp_binding::init_module(module, EXTENSIONS)" in lib
    manifest = (tmp_path / "out" / "Cargo.toml").read_text()
    # The binding library, never python/'s cdylib: the two builds share no artifact (D62).
    assert f'htp-binding = {{ path = "{ROOT}/python/binding" }}' in manifest and "htp-python" not in manifest
    assert f'first-ext = {{ path = "{first}" }}' in manifest and "[workspace]" in manifest
    assert "[profile.dev.package.htp-backend-cpu]" in manifest  # HTP's profiles
    pyproject = (tmp_path / "out" / "pyproject.toml").read_text()
    assert 'python-source = "python"' in pyproject and 'module-name = "htp._htp"' in pyproject
    assert (tmp_path / "out" / "python" / "htp" / "__init__.py").read_text() == open(os.path.join(ROOT, "python", "htp", "__init__.py")).read()


@pytest.mark.parametrize("case, message", [
    ("no-manifest", "has no Cargo.toml"),
    ("twice", "the crate 'first-ext' is named twice"),
    ("htp-crate", "is HTP's own crate 'htp-api'"),
    ("no-lib", "has no library target"),
    # Cargo refuses the second htp-api itself ("package collision"); the generator adds how to fix it.
    ("second-htp-api", "an extension names HTP's crates by path, <HTP_ROOT>/lib/<crate>"),
])
def test_the_generator_refuses_what_cannot_be_linked_once(tmp_path, case, message):
    first = rust_crate(tmp_path / "first", "first-ext")
    crates = {
        "no-manifest": [tmp_path],
        "twice": [first, first],
        "htp-crate": [os.path.join(ROOT, "lib", "htp-api")],
        "no-lib": [first],
        # An extension naming another checkout's htp-api (here a stand-in crate of that name).
        "second-htp-api": [first, rust_crate(tmp_path / "other", "other-ext",
                                            f'htp-api = {{ path = "{rust_crate(tmp_path / "elsewhere" / "htp-api", "htp-api")}" }}\n')],
    }[case]
    if case == "no-lib":
        (first / "src" / "lib.rs").unlink()
    result = generate(tmp_path / "out", *crates)
    assert result.returncode != 0
    assert message in result.stderr, result.stderr
