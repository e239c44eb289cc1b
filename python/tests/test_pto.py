"""The PTO targets: every example compiles to a complete pto-runtime package
for both pto-a2a3sim and pto-a2a3, and (when pto-runtime is installed and
HTP_PTO_ISA_ROOT points at pto-isa) runs on a2a3sim and matches numpy."""

import importlib.util
import json
import os
import pathlib

import numpy as np
import pytest

import htp
from htp import _htp
from htp.pto import runtime as pto_runtime
from simulators import on_a2a3sim
from test_errors import assert_points_at

rng = np.random.default_rng(7)
PACKAGED = ["vector_add", "softmax", "rmsnorm", "gemm", "flash_attention"]
TARGETS = ["pto-a2a3sim", "pto-a2a3"]


def kernel_of(module, name):
    return getattr(module, name)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", PACKAGED)
def test_example_compiles_to_a_complete_package(example, tmp_path, name, target):
    compiled = kernel_of(example(name), name).compile(target=target)
    root = compiled.write_package(tmp_path / name)
    manifest = json.loads(open(os.path.join(root, "manifest.json")).read())
    assert manifest["target"] == target and manifest["program"] == name
    assert manifest["runtime"] == "tensormap_and_ringbuffer"
    assert set(manifest["ir"]) == {"tile", "pto"}
    tensors = [a for a in manifest["arguments"] if a["kind"] == "tensor"]
    assert tensors and all(a["direction"] in ("in", "out", "inout") for a in tensors)
    assert manifest["kernels"], manifest
    sources = [open(os.path.join(root, kernel["source"])).read() for kernel in manifest["kernels"]]
    for source in sources:
        assert 'extern "C" __aicore__' in source and "kernel_entry(__gm__ int64_t *args)" in source
        assert ("TLOAD(" in source or "TPOP<" in source) and "TASSIGN<0x" in source
        assert f"{name}.py:" in source, "source-location comments"
        assert source.rstrip().endswith("pipe_sync();\n}".rstrip())
    # Results reach GM (in a cluster task, from the vector kernel only).
    assert any("TSTORE(" in source for source in sources)
    orchestration = open(os.path.join(root, manifest["orchestration"]["source"])).read()
    assert "aicpu_orchestration_entry(const ChipTaskArgs &orch_args)" in orchestration
    assert "rt_submit_" in orchestration


def test_packages_are_deterministic(example):
    m = example("softmax")
    first = m.softmax.compile(target="pto-a2a3sim").files
    m.softmax._cache.clear()
    assert m.softmax.compile(target="pto-a2a3sim").files == first


def attention_module():
    """The attention kernel without masks of the lit test of cluster tasks
    (test/lit/Target/pto/attention-cluster.py): cube and vector work in one
    kernel, so it runs as a cluster task (AIC + 2 AIV) handing tiles over
    through GM."""
    path = pathlib.Path(__file__).resolve().parents[2] / "test" / "lit" / "Target" / "pto" / "attention-cluster.py"
    spec = importlib.util.spec_from_file_location("htp_lit_attention_cluster", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


attention = attention_module().attention


@pytest.mark.parametrize("target", TARGETS)
def test_mixed_kernel_becomes_one_cluster_task(tmp_path, target):
    root = attention.compile(target=target).write_package(tmp_path / "attention")
    manifest = json.loads(open(os.path.join(root, "manifest.json")).read())
    kernels = {k["core_type"]: k for k in manifest["kernels"]}
    assert set(kernels) == {"aic", "aiv"}
    # Both kernels take q, k, v, o and the task's GM ring.
    assert kernels["aic"]["signature"] == kernels["aiv"]["signature"] == ["in", "in", "in", "out", "out"]
    aic = open(os.path.join(root, kernels["aic"]["source"])).read()
    aiv = open(os.path.join(root, kernels["aiv"]["source"])).read()
    assert "TMATMUL(" in aic and "TPUSH<PipeC2V" in aic and "TPOP<PipeV2C" in aic and "TROWMAX" not in aic
    assert "TROWMAX(" in aiv and "TPOP<PipeC2V" in aiv and "TPUSH<PipeV2C" in aiv and "TMATMUL" not in aiv
    pipes = [line.strip() for line in aic.splitlines() if line.strip().startswith("using Pipe")]
    assert pipes and pipes == [line.strip() for line in aiv.splitlines() if line.strip().startswith("using Pipe")]
    orchestration = open(os.path.join(root, manifest["orchestration"]["source"])).read()
    assert "rt_submit_task(cluster, task);" in orchestration and "TensorCreateInfo" in orchestration


OVER_CAPACITY_TILE = """\
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, "N", 1024], y: htp.Out[f32, "N", 1024]):
    for i in range(0, x.shape[0], 64):
        t = x[i:i + 64, :]
        y[i:i + 64, :] = t + t
"""

OVER_CAPACITY_LIVE = """\
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, "N", 1024], z: htp.Tensor[f32, "N", 1024], y: htp.Out[f32, "N", 1024]):
    for i in range(0, x.shape[0], 32):
        t = x[i:i + 32, :]
        u = z[i:i + 32, :]
        y[i:i + 32, :] = t * u
"""

INT8_ARITHMETIC = """\
import htp
from htp import i8
@htp.kernel
def k(x: htp.Tensor[i8, "N", 256], y: htp.Out[i8, "N", 256]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = t + t
"""


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "source, line, col, message",
    [
        (OVER_CAPACITY_TILE, 6, 13, "is larger than the vector core's buffer (UB: 188416 usable bytes on A2/A3)"),
        (OVER_CAPACITY_LIVE, 7, 13, "held by 1 other live tile(s) and A2/A3 has 188416 usable bytes"),
        # bf16 runs in f32 between TCVTs (widen.rs); 8-bit arithmetic has no instruction.
        (INT8_ARITHMETIC, 7, 26, "element type 'i8' is not supported on A2/A3"),
    ],
    ids=["tile-larger-than-ub", "live-tiles-exceed-ub", "i8-add"],
)
def test_what_the_target_cannot_do_is_reported_at_the_users_line(source, line, col, message, target):
    # The error comes from the PTO passes, before any C++ exists; the same
    # kernel compiles for the CPU.
    _htp.compile([(source, "user.py", 1)], "k", {}, "cpu")
    with pytest.raises(htp.CompileError) as error:
        _htp.compile([(source, "user.py", 1)], "k", {}, target)
    assert_points_at(error.value, "user.py", line, col)
    assert message in str(error.value)


def test_running_without_pto_runtime_says_what_is_missing(example, monkeypatch):
    monkeypatch.setattr(pto_runtime, "find_runtime", lambda: "pto-runtime (the 'simpler' package) is not installed")
    m = example("vector_add")
    a = rng.standard_normal((16, 256), dtype=np.float32)
    with pytest.raises(RuntimeError, match="simpler"):
        m.vector_add.compile(target="pto-a2a3sim")(a, a)


needs_runtime = on_a2a3sim


@needs_runtime
def test_vector_add_on_a2a3sim(example):
    m = example("vector_add")
    a = rng.standard_normal((1000, 256), dtype=np.float32)
    b = rng.standard_normal((1000, 256), dtype=np.float32)
    np.testing.assert_array_equal(m.vector_add.compile(target="pto-a2a3sim")(a, b), a + b)


@needs_runtime
def test_softmax_on_a2a3sim(example):
    m = example("softmax")
    x = rng.standard_normal((1000, 256), dtype=np.float32) * 4
    np.testing.assert_allclose(m.softmax.compile(target="pto-a2a3sim")(x), m.reference(x), atol=1e-6)


@needs_runtime
def test_rmsnorm_on_a2a3sim(example):
    m = example("rmsnorm")
    x = rng.standard_normal((100, 1024), dtype=np.float32)
    w = rng.standard_normal((1, 1024), dtype=np.float32)
    y = m.rmsnorm.compile(target="pto-a2a3sim")(x, w, eps=1e-6)
    np.testing.assert_allclose(y, m.reference(x, w, 1e-6), atol=1e-5)


@needs_runtime
@pytest.mark.parametrize("heads, seq", [(1, 64), (2, 96)])
def test_attention_cluster_on_a2a3sim(example, heads, seq):
    q, k, v = (rng.standard_normal((heads, seq, 64), dtype=np.float32) for _ in range(3))
    scale = 1.0 / np.sqrt(64)
    o = attention.compile(target="pto-a2a3sim")(q, k, v, scale=scale)
    reference = example("flash_attention").reference(q, k, v, scale, False)
    np.testing.assert_allclose(o, reference, atol=1e-5)
    np.testing.assert_allclose(o, attention(q, k, v, scale=scale), atol=1e-5)


@needs_runtime
@pytest.mark.parametrize("causal", [False, True])
def test_flash_attention_on_a2a3sim(example, causal):
    # S = 100: ragged last blocks, padded keys masked with iota + where.
    m = example("flash_attention")
    q, k, v = (rng.standard_normal((2, 100, 64), dtype=np.float32) for _ in range(3))
    scale = 1.0 / np.sqrt(64)
    o = m.flash_attention.compile(target="pto-a2a3sim", CAUSAL=causal)(q, k, v, scale=scale)
    np.testing.assert_allclose(o, m.reference(q, k, v, scale, causal), atol=1e-5)


@needs_runtime
def test_gemm_on_a2a3sim(example):
    # Ragged in M, N and K: the last operand tiles are zero-padded on L1.
    m = example("gemm")
    a = rng.standard_normal((200, 500)).astype(np.float16)
    b = rng.standard_normal((500, 130)).astype(np.float16)
    c = m.gemm.compile(target="pto-a2a3sim")(a, b)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), atol=1e-4)


MASKED = """\
import htp
from htp import f32
@htp.kernel
def masked(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], limit: htp.i32, shift: htp.i32):
    for i in range(0, x.shape[0], 16):
        t = htp.pad(x[i:i + 16, :], 0.0)
        cols = htp.iota((16, 64), 1, htp.i32) + shift
        rows = htp.iota((16, 64), 0, htp.i32) + i
        t = htp.where(cols >= limit, -1.0e30, t)
        y[i:i + 16, :] = htp.where(cols > rows, 0.0, t)
"""


def masked_reference(x, limit, shift):
    cols = np.arange(x.shape[1])[None, :] + shift
    rows = np.arange(x.shape[0])[:, None]
    t = np.where(cols >= limit, np.float32(-1.0e30), x)
    return np.where(cols > rows, np.float32(0.0), t).astype(np.float32)


@needs_runtime
def test_iota_compare_select_on_a2a3sim(tmp_path):
    # tile.iota (TCI + TCOLEXPAND / TROWEXPAND), i32 + scalar (TADDS), i32
    # compares (converted to f32: TCVT + TCMPS / TCMP) and htp.where (TSEL)
    # on ragged row blocks, against numpy and the CPU target.
    path = tmp_path / "masked.py"
    path.write_text(MASKED)
    namespace = {}
    exec(compile(MASKED, str(path), "exec"), namespace)
    masked = namespace["masked"]
    x = rng.standard_normal((100, 64), dtype=np.float32)
    for limit, shift in [(40, 5), (70, -3), (0, 0)]:
        expected = masked_reference(x, limit, shift)
        np.testing.assert_array_equal(masked(x, limit=limit, shift=shift), expected)
        np.testing.assert_array_equal(masked.compile(target="pto-a2a3sim")(x, limit=limit, shift=shift), expected)


# More cluster tasks (cube and vector work in one kernel), each checked
# against the CPU target: a ragged matmul result crossing to the vector core
# (its valid rows travel as the load's scalar), a loop accumulating onto
# vector work (matmul + add each trip), and a column reduction of a product.
@htp.kernel
def ragged_product_exp(a: htp.Tensor[htp.f32, "M", 32], b: htp.Tensor[htp.f32, 32, 32], c: htp.Out[htp.f32, "M", 32]):
    for i in range(0, a.shape[0], 32):
        c[i:i + 32, :] = htp.exp(a[i:i + 32, :] @ b[0:32, :])


@htp.kernel
def damped_accumulation(a: htp.Tensor[htp.f32, 32, 32], b: htp.Tensor[htp.f32, 32, 32], c: htp.Out[htp.f32, 32, 32]):
    acc = htp.zeros((32, 32), htp.f32)
    for j in range(4):
        acc = (acc + a[0:32, :] @ b[0:32, :]) * 0.5
    c[0:32, :] = acc


@htp.kernel
def product_column_sums(a: htp.Tensor[htp.f32, 32, 32], b: htp.Tensor[htp.f32, 32, 32], c: htp.Out[htp.f32, 1, 32]):
    c[0:1, :] = htp.col_sum(a[0:32, :] @ b[0:32, :])


@htp.kernel
def transposed_vector_result(a: htp.Tensor[htp.f32, 32, 32], b: htp.Tensor[htp.f32, 32, 32], c: htp.Out[htp.f32, 32, 32]):
    x = htp.exp(a[0:32, :])
    c[0:32, :] = htp.transpose(x) @ b[0:32, :] + 1.0


CLUSTERS = [(ragged_product_exp, 100), (damped_accumulation, 32), (product_column_sums, 32), (transposed_vector_result, 32)]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("kernel", [k for k, _ in CLUSTERS], ids=lambda k: k.name)
def test_cluster_kernels_compile(kernel, target):
    files = kernel.compile(target=target).files
    cores = {json.loads(files["manifest.json"])["kernels"][i]["core_type"] for i in range(2)}
    assert cores == {"aic", "aiv"}


def test_a_transposed_vector_result_is_transposed_on_the_vector_core():
    # The cube transposes only what it loads; the split runs this transpose on
    # the vector core and hands the transposed tile over (D37).
    files = transposed_vector_result.compile(target="pto-a2a3sim").files
    manifest = json.loads(files["manifest.json"])
    aiv = next(k for k in manifest["kernels"] if k["core_type"] == "aiv")
    assert "TTRANS(" in files[aiv["source"]]


@needs_runtime
@pytest.mark.parametrize("kernel, rows", CLUSTERS, ids=lambda k: getattr(k, "name", str(k)))
def test_cluster_kernels_on_a2a3sim(kernel, rows):
    a = rng.standard_normal((rows, 32), dtype=np.float32) * 0.3
    b = rng.standard_normal((32, 32), dtype=np.float32) * 0.3
    np.testing.assert_allclose(kernel.compile(target="pto-a2a3sim")(a, b), kernel(a, b), atol=1e-5)
