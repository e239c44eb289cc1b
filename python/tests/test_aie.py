"""The AIE targets (aie-npu1, aie-npu2, aie-sim): every AIE example matches
numpy on the CPU target and in the functional simulator (aie-sim runs the
emitted design), and compiles to a design package for both NPUs; kernels the
lowering does not take are errors at the user's lines; with HTP_AIE_OPT (an
aie-opt of the pinned mlir-aie) every package's design verifies in mlir-aie
(skipped, visibly, otherwise)."""

import importlib.util
import inspect
import json
import os
import pathlib
import subprocess
import textwrap

import numpy as np
import pytest

import htp
from htp import f32
from test_errors import assert_points_at

AIE_EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "aie"
NAMES = ["vector_add", "softmax", "rmsnorm"]
TARGETS = {"aie-npu1": "npu1", "aie-npu2": "npu2"}
rng = np.random.default_rng(20)


def aie_example(name):
    spec = importlib.util.spec_from_file_location(f"htp_aie_example_{name}", AIE_EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXAMPLES = {name: aie_example(name) for name in NAMES}


def inputs(name):
    if name == "vector_add":
        return [rng.standard_normal((1024, 256), dtype=np.float32) for _ in range(2)]
    if name == "softmax":
        return [rng.standard_normal((128, 256), dtype=np.float32) * 4]
    return [rng.standard_normal((256, 512), dtype=np.float32), rng.standard_normal((1, 512), dtype=np.float32)]


def expected(name, arrays):
    module = EXAMPLES[name]
    if name == "vector_add":
        return arrays[0] + arrays[1]
    return module.reference(*arrays)


@pytest.mark.parametrize("name", NAMES)
def test_aie_example_matches_numpy_on_cpu(name):
    arrays = inputs(name)
    kernel = getattr(EXAMPLES[name], name)
    np.testing.assert_allclose(kernel(*arrays), expected(name, arrays), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("name", NAMES)
def test_aie_example_matches_numpy_in_the_simulator(name, seed):
    global rng
    rng = np.random.default_rng(seed)
    arrays = inputs(name)
    kernel = getattr(EXAMPLES[name], name).compile(target="aie-sim")
    assert kernel.ir["aie"].count("aie.core(") in (2, 4)
    np.testing.assert_allclose(kernel(*arrays), expected(name, arrays), rtol=2e-5, atol=2e-6)


def test_the_simulator_writes_a_given_output_in_place():
    a = rng.standard_normal((1024, 256), dtype=np.float32)
    c = np.full((1024, 256), np.nan, dtype=np.float32)
    assert EXAMPLES["vector_add"].vector_add.compile(target="aie-sim")(a, a, c) is c
    np.testing.assert_array_equal(c, a + a)


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("name", NAMES)
def test_aie_example_compiles_to_a_design_package(tmp_path, name, target):
    compiled = getattr(EXAMPLES[name], name).compile(target=target)
    root = pathlib.Path(compiled.write_package(tmp_path / name))
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["target"] == target and manifest["program"] == name and manifest["device"] == TARGETS[target]
    assert manifest["mlir_aie"] == "andrej/mlir-aie@3ca0193c"
    assert [a["direction"] for a in manifest["arguments"]][-1] == "out"
    readme = (root / "README.md").read_text()
    assert "aiecc --peano=<llvm-aie install> --get-xclbin --get-npu-insts" in readme and "Nothing here has run it" in readme
    design = (root / "aie.mlir").read_text()
    assert design == compiled.ir["aie"]
    assert f"aie.device({TARGETS[target]})" in design
    assert design.count("aie.core(") == manifest["cores"] and manifest["cores"] in (2, 4)
    assert "aie.runtime_sequence(" in design and "aiex.npu.dma_wait" in design
    assert f"func.func @{name}_block(" in design and "tile." not in design


def test_calling_a_kernel_compiled_for_an_npu_says_what_runs_it():
    a = np.zeros((1024, 256), np.float32)
    compiled = EXAMPLES["vector_add"].vector_add.compile(target="aie-npu1")
    with pytest.raises(RuntimeError, match="aiecc"):
        compiled(a, a)


def compile_error(source, target="aie-npu1"):
    namespace = {}
    path = "/tmp/htp_aie_user.py"
    pathlib.Path(path).write_text(source)
    code = compile(source, path, "exec")
    exec(code, {"htp": htp, "f32": f32, "__name__": "htp_aie_user"}, namespace)
    kernel = next(v for v in namespace.values() if isinstance(v, htp.Kernel))
    with pytest.raises(htp.CompileError) as info:
        kernel.compile(target=target)
    return info.value


def test_a_dimension_known_only_at_run_time_is_an_error_at_the_parameter():
    error = compile_error(textwrap.dedent('''\
        @htp.kernel
        def k(a: htp.Tensor[f32, "N", 256], c: htp.Out[f32, "N", 256]):
            for i in range(0, a.shape[0], 8):
                c[i:i + 8, :] = a[i:i + 8, :]
        '''))
    assert "parameter 'a' has type memref<?x256xf32>; the aie targets need 2-D tensors of static shape (give dimensions as htp.Const)" in str(error)
    assert_points_at(error, "htp_aie_user.py", 2)


def test_blocks_too_large_for_a_core_are_an_error_at_the_loop():
    error = compile_error(textwrap.dedent('''\
        @htp.kernel
        def k(a: htp.Tensor[f32, "N", 256], b: htp.Tensor[f32, "N", 256], c: htp.Out[f32, "N", 256],
              N: htp.Const[int] = 256):
            for i in range(0, N, 32):
                c[i:i + 32, :] = a[i:i + 32, :] + b[i:i + 32, :]
        '''))
    assert "take fewer rows per block" in str(error)
    assert_points_at(error, "htp_aie_user.py", 4)


def test_a_block_reading_its_neighbours_rows_is_an_error_at_the_load():
    error = compile_error(textwrap.dedent('''\
        @htp.kernel
        def k(a: htp.Tensor[f32, "N", 256], c: htp.Out[f32, "N", 256], N: htp.Const[int] = 256):
            for i in range(0, N, 8):
                j = i + 8
                c[i:i + 8, :] = a[j:j + 8, :]
        '''))
    assert "rows other than the block's own" in str(error)
    assert_points_at(error, "htp_aie_user.py", 5)


def test_three_streamed_inputs_exceed_the_shim_tiles_channels():
    error = compile_error(textwrap.dedent('''\
        @htp.kernel
        def k(a: htp.Tensor[f32, "N", 256], b: htp.Tensor[f32, "N", 256], d: htp.Tensor[f32, "N", 256],
              c: htp.Out[f32, "N", 256], N: htp.Const[int] = 256):
            for i in range(0, N, 4):
                c[i:i + 4, :] = a[i:i + 4, :] + b[i:i + 4, :] + d[i:i + 4, :]
        '''))
    assert "2 DMA channels each way" in str(error)
    assert_points_at(error, "htp_aie_user.py", 1)


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("name", NAMES)
def test_aie_packages_verify_in_mlir_aie(tmp_path, name, target):
    tool = os.environ.get("HTP_AIE_OPT")
    if not tool:
        pytest.skip("HTP_AIE_OPT (an aie-opt of mlir-aie 3ca0193c) is not set")
    root = pathlib.Path(getattr(EXAMPLES[name], name).compile(target=target).write_package(tmp_path / name))
    result = subprocess.run([tool, str(root / "aie.mlir")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "aie.runtime_sequence(" in result.stdout


def test_static_metrics_report_the_designs_resources():
    a = np.zeros((1024, 256), np.float32)
    metrics = EXAMPLES["vector_add"].vector_add.compile(target="aie-npu1").metrics(a, a)
    assert metrics["cores"] == 2 and metrics["shim_bytes_in"] == 2 * a.nbytes and metrics["shim_bytes_out"] == a.nbytes
    assert metrics["core_memory_bytes"] <= metrics["core_memory_capacity"] == 65536
    assert metrics["core_locks"] == 6
