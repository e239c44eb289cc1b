"""The kernel language on AIE (issue 28, part 1): the tile ops and element types a row-block kernel
uses, run in HTP's AIE simulator (aie-sim) and compared with numpy and the cpu target. The cores'
block functions are lowered by the same tile -> linalg -> loops passes for every op, so each op is
listed in the AIE targets' capabilities once a case here runs it; what the hardware forbids stays a
refusal at the user's line (test_aie.py)."""

import json
import math
import os
import re

import numpy as np
import pytest

import htp
from sources import kernel_from

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - numpy's own dtypes only
    ml_dtypes = None

RNG = np.random.default_rng(28)
ERF = np.vectorize(math.erf, otypes=[np.float64])

# One loop over blocks of B rows of R x C tensors x, z and y (T elements): y's block is EXPR of
# x's (t) and z's (u).
BLOCKS = '''
import htp
from htp import f32, f16, bf16, i64, i32, i16, i8
@htp.kernel
def k(x: htp.Tensor[{T}, R, C], z: htp.Tensor[{T}, R, C], y: htp.Out[{T}, R, C]):
    for i in range(0, R, B):
        t = x[i:i + B, :]
        u = z[i:i + B, :]
        y[i:i + B, :] = {EXPR}
'''


def blocks(rows, columns, block):
    """BLOCKS for `rows x columns` tensors in blocks of `block` rows (T and EXPR still to format)."""
    return BLOCKS.replace("R, C]", f"{rows}, {columns}]").replace("range(0, R, B)", f"range(0, {rows}, {block})").replace("+ B", f"+ {block}")


ROWS = blocks(64, 32, 8)

# expression: numpy on one 8-row block (float64)
FLOAT = {
    "htp.maximum(t, u)": lambda t, u: np.maximum(t, u),
    "htp.minimum(t, u) * 2.0": lambda t, u: np.minimum(t, u) * 2.0,
    "htp.log(htp.abs(t) + 1.0)": lambda t, u: np.log(np.abs(t) + 1.0),
    "htp.sqrt(htp.abs(t))": lambda t, u: np.sqrt(np.abs(t)),
    "htp.relu(t) - u": lambda t, u: np.maximum(t, 0.0) - u,
    "htp.where(t > u, t, u * 2.0)": lambda t, u: np.where(t > u, t, u * 2.0),
    "htp.where(t <= 0.5, -t, t)": lambda t, u: np.where(t <= 0.5, -t, t),
    "t - htp.col_max(t)": lambda t, u: t - t.max(axis=0, keepdims=True),
    "u + htp.col_sum(t) * 0.5": lambda t, u: u + t.sum(axis=0, keepdims=True) * 0.5,
    "t + htp.row_min(u)": lambda t, u: t + u.min(axis=1, keepdims=True),
    "htp.sigmoid(t)": lambda t, u: 1.0 / (1.0 + np.exp(-t)),
    "htp.gelu(t)": lambda t, u: 0.5 * t * (1.0 + ERF(t / math.sqrt(2.0))),
    "htp.tanh(t) * u": lambda t, u: np.tanh(t) * u,
    "htp.softplus(t)": lambda t, u: np.logaddexp(t, 0.0),
    "t + htp.iota((8, 32), 1, dtype=htp.f32)": lambda t, u: t + np.arange(32)[None, :],
}


def block_reference(reference, x, z):
    expected = np.zeros(x.shape, np.float64)
    for i in range(0, x.shape[0], 8):
        expected[i:i + 8] = reference(x[i:i + 8].astype(np.float64), z[i:i + 8].astype(np.float64))
    return expected


@pytest.mark.parametrize("expr", sorted(FLOAT))
def test_float_ops_on_aie_sim(expr):
    kernel = kernel_from(ROWS.format(T="f32", EXPR=expr), "k")
    x = RNG.standard_normal((64, 32), dtype=np.float32)
    z = RNG.standard_normal((64, 32), dtype=np.float32)
    y = kernel.compile(target="aie-sim")(x, z)
    np.testing.assert_allclose(y, block_reference(FLOAT[expr], x, z), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y, kernel(x, z), rtol=1e-6, atol=1e-6)


def numpy_type(dtype):
    if dtype == "bf16":
        if ml_dtypes is None:
            pytest.skip("ml_dtypes is not installed")
        return ml_dtypes.bfloat16
    return {"f16": np.float16, "i64": np.int64, "i32": np.int32, "i16": np.int16, "i8": np.int8}[dtype]


@pytest.mark.parametrize("dtype", ["f16", "bf16", "i64", "i32", "i16", "i8"])
@pytest.mark.parametrize("expr", ["t + u", "t * u - u", "htp.maximum(t, u) - u", "htp.where(t > u, t, u)", "htp.minimum(t, u)"])
def test_element_types_on_aie_sim_match_the_cpu(dtype, expr):
    assert_aie_sim_is_the_cpu(ROWS.format(T=dtype, EXPR=expr), dtype, rows=64)


def assert_aie_sim_is_the_cpu(source, dtype, rows):
    """The kernel `k(x, z)` of `source` gives on aie-sim exactly what it gives on the cpu."""
    kernel = kernel_from(source, "k")
    scale = 4 if dtype.startswith("i") else 1
    x = (RNG.standard_normal((rows, 32)) * scale).astype(numpy_type(dtype))
    z = (RNG.standard_normal((rows, 32)) * scale).astype(numpy_type(dtype))
    simulated = kernel.compile(target="aie-sim")(x, z)
    assert simulated.dtype == x.dtype
    np.testing.assert_array_equal(simulated.astype(np.float64), kernel(x, z).astype(np.float64))


SQUARE = '''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    for i in range(0, 64, 32):
        t = x[i:i + 32, :]
        y[i:i + 32, :] = {EXPR}
'''


@pytest.mark.parametrize("expr, reference", [("htp.transpose(t)", lambda t: t.T), ("t.T * 2.0 + t", lambda t: t.T * 2.0 + t)])
def test_transposes_on_aie_sim(expr, reference):
    kernel = kernel_from(SQUARE.format(EXPR=expr), "k")
    x = RNG.standard_normal((64, 32), dtype=np.float32)
    expected = np.concatenate([reference(x[0:32]), reference(x[32:64])])
    np.testing.assert_allclose(kernel.compile(target="aie-sim")(x), expected, rtol=1e-6)


def test_targets_tell_the_truth_about_the_ops():
    kernel = kernel_from(ROWS.format(T="f32", EXPR="htp.where(t > u, htp.log(htp.abs(t) + 1.0), htp.relu(u))"), "k")
    assert {"aie-sim", "aie-npu1", "aie-npu2"} <= set(kernel.targets())


@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("expr", ["htp.where(t > u, htp.log(htp.abs(t) + 1.0), htp.relu(u))", "t - htp.col_max(t)", "htp.gelu(t)"])
def test_designs_with_the_new_ops_verify_in_mlir_aie(tmp_path, target, expr):
    import os
    import pathlib
    import subprocess

    tool = os.environ.get("HTP_AIE_OPT")
    if not tool:
        pytest.skip("HTP_AIE_OPT (an aie-opt of mlir-aie 3ca0193c) is not set")
    kernel = kernel_from(ROWS.format(T="f32", EXPR=expr), "k")
    root = pathlib.Path(kernel.compile(target=target).write_package(tmp_path / "k"))
    result = subprocess.run([tool, str(root / "aie.mlir")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# ------------------------------------------------------------------ broadcasts sharing a FIFO (issue 28, part 2)

LAYERNORM = '''
import htp
from htp import f32
@htp.kernel
def layernorm(x: htp.Tensor[f32, {R}, {C}], w: htp.Tensor[f32, 1, {C}], b: htp.Tensor[f32, 1, {C}], y: htp.Out[f32, {R}, {C}]):
    for i in range(0, {R}, 8):
        t = x[i:i + 8, :]
        mean = htp.row_sum(t) * (1.0 / {C})
        d = t - mean
        var = htp.row_sum(d * d) * (1.0 / {C})
        y[i:i + 8, :] = d * htp.rsqrt(var + 1e-5) * w[0:1, :] + b[0:1, :]
'''


def layernorm_reference(x, w, b):
    x = x.astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * w + b


@pytest.mark.parametrize("rows, cols", [(64, 64), (32, 128), (128, 32)])
def test_layernorm_with_weight_and_bias_on_aie_sim(rows, cols):
    # x streamed, w and b read whole: w and b share one broadcast FIFO (two objects), so the kernel
    # fits the shim's and each core's two input DMA channels.
    kernel = kernel_from(LAYERNORM.format(R=rows, C=cols), "layernorm")
    x = RNG.standard_normal((rows, cols), dtype=np.float32)
    w = RNG.standard_normal((1, cols), dtype=np.float32)
    b = RNG.standard_normal((1, cols), dtype=np.float32)
    y = kernel.compile(target="aie-sim")(x, w, b)
    np.testing.assert_allclose(y, layernorm_reference(x, w, b), rtol=1e-4, atol=1e-4)


def test_broadcasts_of_one_type_share_a_fifo_in_the_design(tmp_path):
    kernel = kernel_from(LAYERNORM.format(R=64, C=64), "layernorm")
    root = kernel.compile(target="aie-npu1").write_package(str(tmp_path / "ln"))
    design = open(os.path.join(root, "aie.mlir")).read()
    assert "aie.objectfifo @w(" in design and "aie.objectfifo @b(" not in design, design
    assert "aie.objectfifo.acquire @w(Consume, 2)" in design, design
    assert design.count("metadata = @w}") == 2, design
    metrics = kernel.compile(target="aie-npu1").metrics(np.zeros((64, 64), np.float32), np.zeros((1, 64), np.float32), np.zeros((1, 64), np.float32))
    assert metrics, metrics


THREE_ROWS = '''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, 64, 32], s: htp.Tensor[f32, 1, 32], t: htp.Tensor[f32, 1, 32], u: htp.Tensor[f32, 1, 32],
      y: htp.Out[f32, 64, 32], z: htp.Out[f32, 64, 32]):
    for i in range(0, 64, 8):
        v = x[i:i + 8, :]
        y[i:i + 8, :] = v * s[0:1, :] + t[0:1, :]
        z[i:i + 8, :] = v - u[0:1, :]
'''


def test_three_broadcasts_and_two_outputs_on_aie_sim():
    kernel = kernel_from(THREE_ROWS, "k")
    x = RNG.standard_normal((64, 32), dtype=np.float32)
    s, t, u = (RNG.standard_normal((1, 32), dtype=np.float32) for _ in range(3))
    y, z = kernel.compile(target="aie-sim")(x, s, t, u)
    np.testing.assert_allclose(y, x * s + t, rtol=1e-6)
    np.testing.assert_allclose(z, x - u, rtol=1e-6)


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
def test_shared_broadcast_fifos_verify_in_mlir_aie(tmp_path, target):
    import subprocess
    for source, name in ((LAYERNORM.format(R=64, C=64), "layernorm"), (THREE_ROWS, "k")):
        root = kernel_from(source, name).compile(target=target).write_package(str(tmp_path / f"{name}-{target}"))
        design = os.path.join(root, "aie.mlir")
        # aiecc's physical passes (the shared FIFO's objects become buffers, locks and DMAs; routing),
        # then the runtime sequence (both transfers on one shim channel) to NPU instructions.
        from test_aie import AIECC_NPU_INSTRUCTIONS, aiecc_physical
        arch = "aie2p" if target == "aie-npu2" else "aie2"
        physical = subprocess.run([os.environ["HTP_AIE_OPT"], f"--pass-pipeline={aiecc_physical(arch)}", design], capture_output=True, text=True)
        assert physical.returncode == 0, physical.stderr
        assert "aie.buffer" in physical.stdout and "aie.lock" in physical.stdout
        lowered = subprocess.run([os.environ["HTP_AIE_OPT"], f"--pass-pipeline={AIECC_NPU_INSTRUCTIONS}"], input=physical.stdout, capture_output=True, text=True)
        assert lowered.returncode == 0, lowered.stderr


# ------------------------------------------------------------------ in-out tensors (issue 28, part 1)

INOUT = '''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, 64, 32], y: htp.InOut[f32, 64, 32]):
    for i in range(0, 64, 8):
        y[i:i + 8, {cols}] = y[i:i + 8, {cols}] * 2.0 + x[i:i + 8, {cols}]
'''


@pytest.mark.parametrize("cols", ["0:32", "0:16", "8:24"])
def test_an_in_out_tensor_keeps_what_its_blocks_do_not_write_on_aie_sim(cols):
    # y's block comes in on a FIFO of its own and is copied into the output object first, so the
    # columns a block does not write come back as they were.
    kernel = kernel_from(INOUT.format(cols=cols), "k")
    x = RNG.standard_normal((64, 32), dtype=np.float32)
    y0 = RNG.standard_normal((64, 32), dtype=np.float32)
    y = y0.copy()
    kernel.compile(target="aie-sim")(x, y)
    lo, hi = (int(v) for v in cols.split(":"))
    expected = y0.copy()
    expected[:, lo:hi] = y0[:, lo:hi] * 2.0 + x[:, lo:hi]
    np.testing.assert_array_equal(y, expected)


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
def test_an_in_out_design_lowers_in_mlir_aie(tmp_path, target):
    import subprocess
    from test_aie import AIECC_NPU_INSTRUCTIONS, aiecc_physical
    root = kernel_from(INOUT.format(cols="0:16"), "k").compile(target=target).write_package(str(tmp_path / target))
    design = os.path.join(root, "aie.mlir")
    assert "@y_in" in open(design).read()
    arch = "aie2p" if target == "aie-npu2" else "aie2"
    physical = subprocess.run([os.environ["HTP_AIE_OPT"], f"--pass-pipeline={aiecc_physical(arch)}", design], capture_output=True, text=True)
    assert physical.returncode == 0, physical.stderr
    lowered = subprocess.run([os.environ["HTP_AIE_OPT"], f"--pass-pipeline={AIECC_NPU_INSTRUCTIONS}"], input=physical.stdout, capture_output=True, text=True)
    assert lowered.returncode == 0, lowered.stderr


# ------------------------------------------------------------------ ragged last blocks (issue 28, part 1)

RAGGED = '''
import htp
from htp import f32, f16, bf16, i32, i16, i8
@htp.kernel
def k(x: htp.Tensor[{T}, "N", 32], z: htp.Tensor[{T}, "N", 32], y: htp.Out[{T}, "N", 32], N: htp.Const[int] = 100):
    for i in range(0, N, 8):
        t = x[i:i + 8, :]
        u = z[i:i + 8, :]
        y[i:i + 8, :] = {EXPR}
'''

# expression: numpy on one block's valid rows (float64); reductions over rows see only those.
RAGGED_FLOAT = {
    "t * 2.0 + u": lambda t, u: t * 2.0 + u,
    "htp.exp(t - htp.row_max(t)) / htp.row_sum(htp.exp(t - htp.row_max(t)))":
        lambda t, u: np.exp(t - t.max(axis=1, keepdims=True)) / np.exp(t - t.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True),
    "t - htp.col_max(t)": lambda t, u: t - t.max(axis=0, keepdims=True),
    "u + htp.col_sum(t) * 0.5": lambda t, u: u + t.sum(axis=0, keepdims=True) * 0.5,
    "htp.where(t > u, t, htp.relu(u))": lambda t, u: np.where(t > u, t, np.maximum(u, 0.0)),
    "htp.pad(t, 1.0) * htp.col_min(htp.pad(t, 1.0))": lambda t, u: t * np.minimum(t.min(axis=0, keepdims=True), 1.0) if t.shape[0] < 8 else t * t.min(axis=0, keepdims=True),
    "htp.gelu(t) + htp.row_min(u)": lambda t, u: 0.5 * t * (1.0 + ERF(t / math.sqrt(2.0))) + u.min(axis=1, keepdims=True),
}


@pytest.mark.parametrize("rows", [100, 37, 129])
@pytest.mark.parametrize("expr", sorted(RAGGED_FLOAT))
def test_a_ragged_last_block_is_masked_on_aie_sim(expr, rows):
    # The rows are not a multiple of the block: the host pads the streamed tensors to whole blocks
    # for every core, the last block's rows past the end are masked in the core (the same valid
    # region as on the cpu), and blocks past the end are moved but not computed.
    kernel = kernel_from(RAGGED.format(T="f32", EXPR=expr), "k")
    x = RNG.standard_normal((rows, 32), dtype=np.float32)
    z = RNG.standard_normal((rows, 32), dtype=np.float32)
    y = kernel.compile(target="aie-sim", N=rows)(x, z)
    np.testing.assert_allclose(y, block_reference(RAGGED_FLOAT[expr], x, z), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y, kernel(x, z, N=rows), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["f16", "bf16", "i32", "i16", "i8"])
@pytest.mark.parametrize("expr", ["t + u", "htp.maximum(t, u) - u", "u + htp.col_max(t)"])
def test_ragged_blocks_of_every_element_type_match_the_cpu(dtype, expr):
    assert_aie_sim_is_the_cpu(RAGGED.format(T=dtype, EXPR=expr), dtype, rows=100)


RAGGED_SQUARE = '''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, "N", 32], y: htp.Out[f32, "N", 32], N: htp.Const[int] = 100):
    for i in range(0, N, 32):
        t = htp.pad(x[i:i + 32, :], 0.0)
        y[i:i + 32, :] = t.T + htp.row_sum(t.T)
'''


def test_a_transposed_ragged_block_on_aie_sim():
    # The last block has 4 rows: padded with zeros to 32 x 32, transposed; the store keeps 4 rows.
    kernel = kernel_from(RAGGED_SQUARE, "k")
    x = RNG.standard_normal((100, 32), dtype=np.float32)
    expected = np.zeros((100, 32))
    for i in range(0, 100, 32):
        t = np.zeros((32, 32))
        t[:min(32, 100 - i)] = x[i:i + 32]
        expected[i:i + 32] = (t.T + t.T.sum(axis=1, keepdims=True))[:min(32, 100 - i)]
    y = kernel.compile(target="aie-sim")(x)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
    # (The row sums of 32 values near 5 in another order: a few ulps of the sum.)
    np.testing.assert_allclose(y, kernel(x), rtol=1e-6, atol=1e-5)


RAGGED_INOUT = '''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, "N", 32], y: htp.InOut[f32, "N", 32], N: htp.Const[int] = 100):
    for i in range(0, N, 8):
        y[i:i + 8, 8:24] = y[i:i + 8, 8:24] * 2.0 + x[i:i + 8, 8:24]
'''


def test_a_ragged_in_out_tensor_keeps_what_its_blocks_do_not_write_on_aie_sim():
    kernel = kernel_from(RAGGED_INOUT, "k")
    x = RNG.standard_normal((100, 32), dtype=np.float32)
    y0 = RNG.standard_normal((100, 32), dtype=np.float32)
    y = y0.copy()
    kernel.compile(target="aie-sim")(x, y)
    expected = y0.copy()
    expected[:, 8:24] = y0[:, 8:24] * 2.0 + x[:, 8:24]
    np.testing.assert_array_equal(y, expected)


def test_a_ragged_design_pads_the_host_buffers_and_skips_blocks_past_the_end(tmp_path):
    kernel = kernel_from(RAGGED.format(T="f32", EXPR="t + u"), "k")
    # 37 rows: 5 blocks of 8 over 6 cores (3 columns x 2: two streamed inputs leave each memtile
    # room for 2 cores), so the host buffers hold 48 rows and one block is past the end.
    compiled = kernel.compile(target="aie-npu1", N=37)
    root = compiled.write_package(str(tmp_path / "ragged"))
    design = open(os.path.join(root, "aie.mlir")).read()
    assert design.count("aie.core(") == 6, design
    assert "aie.runtime_sequence(%arg0: memref<1536xf32>, %arg1: memref<1536xf32>, %arg2: memref<1536xf32>)" in design, design
    assert "scf.if" in design and "arith.cmpi slt" in design
    # The ragged block's temporaries are bounded stack buffers; no heap, no runtime library copy.
    assert "memref.alloc(" not in design and "memref.copy" not in design
    manifest = json.loads(open(os.path.join(root, "manifest.json")).read())
    assert [a.get("host_elements") for a in manifest["arguments"]] == [1536, 1536, 1536], manifest
    host = open(os.path.join(root, "test.cpp")).read()
    assert "const size_t x_count = 1184;" in host and "const size_t x_padded = 1536;" in host
    metrics = compiled.metrics(np.zeros((37, 32), np.float32), np.zeros((37, 32), np.float32))
    assert metrics["shim_bytes_in"] == 2 * 1536 * 4 and metrics["cores"] == 6, metrics
    # Whole blocks need no padding: the host buffers are the tensors.
    whole = kernel.compile(target="aie-npu1", N=64).write_package(str(tmp_path / "whole"))
    assert "memref<2048xf32>" in open(os.path.join(whole, "aie.mlir")).read()
    assert all("host_elements" not in a for a in json.loads(open(os.path.join(whole, "manifest.json")).read())["arguments"])


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("source, rows", [(RAGGED.format(T="f32", EXPR="htp.exp(t - htp.row_max(t)) + htp.col_sum(u)"), 37),
                                          (RAGGED_SQUARE, 100), (RAGGED_INOUT, 100)], ids=["softmax-like", "transpose", "in-out"])
def test_ragged_designs_lower_in_mlir_aie_to_core_code(tmp_path, target, source, rows):
    compiled = kernel_from(source, "k").compile(target=target, N=rows)
    # Every core's code (the masked block function with it) to LLVM: nothing it calls but the
    # block function and the core's intrinsics (no memrefCopy, no malloc: a core has neither).
    arch = "aie2p" if target == "aie-npu2" else "aie2"
    for core_text in lowered_cores(tmp_path, compiled, target, count=2)[1]:
        functions = re.findall(r"^  llvm\.func @([\w.]+)\(.*?(\{)?$", core_text, flags=re.M)
        assert ("k_block", "{") in functions, functions
        # Declared, not defined here: only the intrinsics and debug hook mlir-aie declares in every core.
        external = {name for name, body in functions if not body and not name.startswith(f"llvm.{arch}.")}
        assert external <= {"debug_i32"}, external


# ------------------------------------------------------------------ symbolic dimensions on aie-sim

SYMBOLIC = '''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, "N", 32], y: htp.Out[f32, "N", 32]):
    for i in range(0, x.shape[0], 8):
        t = x[i:i + 8, :]
        e = htp.exp(t - htp.row_max(t))
        y[i:i + 8, :] = e / htp.row_sum(e) + htp.col_sum(t)
'''


def test_a_symbolic_dimension_gets_a_design_per_call_on_aie_sim():
    # An mlir-aie design is static: aie-sim builds one for each call's sizes (the NPU targets need
    # htp.Const dimensions), the last block past the end of N ragged.
    kernel = kernel_from(SYMBOLIC, "k")
    targets = set(kernel.targets())
    assert "aie-sim" in targets and not {"aie-npu1", "aie-npu2"} & targets, targets
    compiled = kernel.compile(target="aie-sim")
    for rows in (100, 37, 8, 1, 37):
        x = RNG.standard_normal((rows, 32), dtype=np.float32)
        expected = block_reference(lambda t, u: np.exp(t - t.max(axis=1, keepdims=True)) / np.exp(t - t.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
                                   + t.sum(axis=0, keepdims=True), x, x)
        np.testing.assert_allclose(compiled(x), expected, rtol=1e-5, atol=1e-5)
    # The design of a call's sizes: 13 blocks of 100 rows over 16 cores, 1 block of 8 rows on one.
    assert compiled.metrics(np.zeros((100, 32), np.float32))["cores"] == 16
    assert compiled.metrics(np.zeros((8, 32), np.float32))["cores"] == 1


SYMBOLIC_COLUMNS = '''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, "N", "H"], y: htp.Out[f32, "N", "H"]):
    for i in range(0, x.shape[0], 8):
        for j in range(0, x.shape[1], 64):
            y[i:i + 8, j:j + 64] = x[i:i + 8, j:j + 64] * 2.0
'''


def test_a_limit_that_depends_on_a_symbolic_size_is_reported_at_the_call():
    # Each core holds two blocks of 8 full rows of x and of y: fine for 256 columns, not for 4096
    # (nor even one-row blocks of it).
    kernel = kernel_from(SYMBOLIC_COLUMNS, "k")
    compiled = kernel.compile(target="aie-sim")
    x = RNG.standard_normal((20, 256), dtype=np.float32)
    np.testing.assert_array_equal(compiled(x), x * 2.0)
    with pytest.raises(RuntimeError) as info:
        compiled(np.zeros((16, 4096), np.float32))
    message = str(info.value)
    assert "aie-sim builds the design for each call's tensor sizes ([16, 4096], [16, 4096])" in message, message
    assert "each core would hold 65536 bytes of FIFO objects even with one row per block" in message and ".py:6:5" in message, message


def test_a_symbolic_kernel_the_lowering_refuses_is_an_error_at_compile_time():
    # The structure is checked when the kernel compiles, on every symbolic size 64: a bool scalar
    # does not travel in the shim's 32-bit words, whatever the sizes.
    kernel = kernel_from('''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, "N", 32], s: bool, y: htp.Out[f32, "N", 32]):
    for i in range(0, x.shape[0], 8):
        if s:
            y[i:i + 8, :] = x[i:i + 8, :] * 2.0
        else:
            y[i:i + 8, :] = x[i:i + 8, :]
''', "k")
    with pytest.raises(htp.CompileError) as info:
        kernel.compile(target="aie-sim")
    assert "parameter 's' is a scalar of type i1" in str(info.value)
    assert ".py:5:" in str(info.value), str(info.value)
    assert "aie-sim" not in kernel.targets()


RAGGED_COLUMNS = '''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, 40, "H"], y: htp.Out[f32, 40, "H"], H: htp.Const[int] = 50):
    for i in range(0, 40, 8):
        for j in range(0, H, 64):
            y[i:i + 8, j:j + 64] = x[i:i + 8, j:j + 64] * 2.0 + htp.row_sum(x[i:i + 8, j:j + 64])
'''


@pytest.mark.parametrize("columns", [1, 50, 130])
def test_a_ragged_column_window_in_a_block_on_aie_sim(columns):
    # The block holds whole rows; its column windows are ragged at the end (a single window when
    # the columns are fewer than 64: the lowering folds its size to a constant).
    kernel = kernel_from(RAGGED_COLUMNS, "k")
    x = RNG.standard_normal((40, columns), dtype=np.float32)
    expected = np.zeros_like(x)
    for j in range(0, columns, 64):
        w = x[:, j:j + 64]
        expected[:, j:j + 64] = w * 2.0 + w.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(kernel.compile(target="aie-sim", H=columns)(x), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("source, rows", [(RAGGED.format(T="f32", EXPR="t + u"), 37), (RAGGED_INOUT, 100)], ids=["ragged", "in-out"])
def test_the_host_program_of_a_padded_design_is_cpp(tmp_path, source, rows):
    from test_aie import assert_host_compiles
    root = kernel_from(source, "k").compile(target="aie-npu1", N=rows).write_package(str(tmp_path / "k"))
    host = open(os.path.join(root, "test.cpp")).read()
    # The buffers are the padded tensors, zero-filled; an output's first contents come from its .bin
    # when given (an in-out tensor's), and only the tensor's own elements go back out.
    padded = 48 * 32 if rows == 37 else 128 * 32  # 6 cores x 1 block; 8 cores x 2 blocks of 8 rows
    assert f"const size_t y_padded = {padded};" in host and "xrt::bo(device, y_padded * sizeof(float)" in host, host
    assert f"std::memset(buf_y, 0, y_padded * sizeof(float));" in host
    assert 'read_file(data + "/y.bin", buf_y, y_count * sizeof(float))' in host
    assert "write(reinterpret_cast<const char *>(buf_y), y_count * sizeof(float))" in host
    assert_host_compiles(tmp_path, os.path.join(root, "test.cpp"))


# ------------------------------------------------------------------ more kernels the AIE targets take

# Each kernel below runs on aie-sim against the cpu, and its design (npu1, npu2) goes through
# mlir-aie's passes: objects to buffers, locks and DMAs, the runtime sequence to NPU instructions,
# each core's code to LLVM calling nothing a core lacks.
DESIGNS = {
    # one loop, but every block writes the same rows: run whole on one core
    "one core, no loop": ('''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, 40, 64], y: htp.Out[f32, 40, 64]):
    acc = htp.zeros((16, 64), f32)
    for i in range(0, 32, 16):
        acc = acc + htp.pad(x[i:i + 16, :], 0.0)
    y[0:16, :] = acc
    y[16:40, :] = x[16:40, :] * 2.0
''', lambda x: np.concatenate([x[0:16] + x[16:32], x[16:40] * 2.0])),
    # a block of 16 rows in, one row of column sums out (rows per block of its own)
    "one row per block": ('''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, 48, 64], y: htp.Out[f32, 3, 64]):
    for b in range(3):
        y[b:b + 1, :] = htp.col_sum(x[b * 16:b * 16 + 16, :])
''', lambda x: x.reshape(3, 16, 64).sum(axis=1)),
    # a slice with a step read in the core, a sort along rows
    "strided and sorted": ('''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, 48, 64], y: htp.Out[f32, 48, 32]):
    for i in range(0, 48, 16):
        y[i:i + 16, :] = htp.sort(x[i:i + 16, 1::2])
''', lambda x: np.sort(x[:, 1::2], axis=1)),
}


@pytest.mark.parametrize("name", list(DESIGNS))
def test_more_kernels_on_aie_sim(name):
    source, reference = DESIGNS[name]
    kernel = kernel_from(source, "k")
    rows = 40 if "40, 64" in source else 48
    x = RNG.standard_normal((rows, 64), dtype=np.float32)
    np.testing.assert_allclose(kernel.compile(target="aie-sim")(x), reference(x.astype(np.float64)), rtol=1e-5, atol=1e-5)
    assert {"aie-sim", "aie-npu1", "aie-npu2"} <= set(kernel.targets())


def test_a_narrow_scalar_and_a_ragged_block_together_on_aie_sim():
    kernel = kernel_from('''
import htp
from htp import f16
@htp.kernel
def k(x: htp.Tensor[f16, "N", 32], y: htp.Out[f16, "N", 32], s: f16, N: htp.Const[int] = 37):
    for i in range(0, N, 8):
        y[i:i + 8, :] = x[i:i + 8, :] * s + htp.col_max(x[i:i + 8, :])
''', "k")
    x = RNG.standard_normal((37, 32)).astype(np.float16)
    np.testing.assert_array_equal(kernel.compile(target="aie-sim")(x, s=0.5), kernel(x, s=0.5))


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("name", list(DESIGNS) + ["narrow scalar"])
def test_more_designs_lower_in_mlir_aie_to_core_code(tmp_path, target, name):
    if name == "narrow scalar":
        source = '''
import htp
from htp import f16
@htp.kernel
def k(x: htp.Tensor[f16, "N", 32], y: htp.Out[f16, "N", 32], s: f16, N: htp.Const[int] = 37):
    for i in range(0, N, 8):
        y[i:i + 8, :] = x[i:i + 8, :] * s
'''
    else:
        source = DESIGNS[name][0]
    compiled = kernel_from(source, "k").compile(target=target)
    arch = "aie2p" if target == "aie-npu2" else "aie2"
    instructions, cores = lowered_cores(tmp_path, compiled, target, count=2)
    assert "aiex.npu.blockwrite" in instructions and "dma_memcpy_nd" not in instructions
    for core_text in cores:
        functions = re.findall(r"^  llvm\.func @([\w.]+)\(.*?(\{)?$", core_text, flags=re.M)
        assert ("k_block", "{") in functions, functions
        external = {f for f, body in functions if not body and not f.startswith(f"llvm.{arch}.")}
        assert external <= {"debug_i32"}, external


# Vector cores (issue 28, part 3; D83): rows of 64 elements are whole vectors of every element type
# (16 lanes of f32/bf16/f16/i32, 32 of i16, 64 of i8), so what the generation's vector unit takes
# runs as vector code — and must give on aie-sim what the cpu gives.
WIDE = blocks(32, 64, 4)

LANES = {"f32": 16, "bf16": 16, "f16": 16, "i32": 16, "i16": 32, "i8": 64}


@pytest.mark.parametrize("dtype", sorted(LANES))
@pytest.mark.parametrize("expr, vector_on_aie2", [
    ("t + u", {"f32", "bf16", "f16", "i32", "i16", "i8"}),
    ("t - u * u", {"f32", "bf16", "i32", "i16", "i8"}),  # f16: no vector multiply on AIE2
    ("htp.maximum(t, u)", {"bf16", "f16", "i32", "i16", "i8"}),  # f32: no vector max on AIE2
    ("t - htp.row_max(t)", {"f32", "bf16", "i32", "i16", "i8"}),  # f32: the max scalar, the subtract vector; f16: no broadcast
    ("u + htp.col_sum(t)", {"f32", "bf16", "f16", "i32", "i16", "i8"}),
])
def test_vector_cores_match_the_cpu(dtype, expr, vector_on_aie2):
    source = WIDE.format(T=dtype, EXPR=expr)
    kernel = kernel_from(source, "k")
    design = kernel.compile(target="aie-npu1").ir["aie"]
    vector = f"vector<{LANES[dtype]}x{dtype}>"
    assert (vector in design) == (dtype in vector_on_aie2), (vector, design[design.index("func.func"):design.index("aie.core(")])
    scale = 4 if dtype.startswith("i") else 1
    x = (RNG.standard_normal((32, 64)) * scale).astype(numpy_type(dtype) if dtype != "f32" else np.float32)
    z = (RNG.standard_normal((32, 64)) * scale).astype(x.dtype)
    simulated = kernel.compile(target="aie-sim")(x, z)
    expected = kernel(x, z)
    if dtype.startswith("i"):
        np.testing.assert_array_equal(simulated, expected)
    else:
        # A vector reduction adds in another order than the cpu's loop.
        tolerance = {"f32": 1e-5, "f16": 2e-2, "bf16": 5e-2}[dtype]
        np.testing.assert_allclose(simulated.astype(np.float64), expected.astype(np.float64), rtol=tolerance, atol=tolerance)


MATMUL = '''
import htp
from htp import f32, bf16, i32, i8
@htp.kernel
def k(a: htp.Tensor[{T}, 64, 64], b: htp.Tensor[{T}, 64, {N}], c: htp.Out[{ACC}, 64, {N}]):
    for i in range(0, 64, 8):
        acc = htp.zeros((8, {N}), {ACC})
        for k in range(0, 64, 16):
            acc += a[i:i + 8, k:k + 16] @ b[k:k + 16, :]
        c[i:i + 8, :] = acc
'''


@pytest.mark.parametrize("dtype, accumulator", [("bf16", "f32"), ("i8", "i32")])
@pytest.mark.parametrize("n", [32, 18])
def test_matmuls_are_mac_instructions_when_their_sizes_are_whole_mac_shapes(dtype, accumulator, n):
    # 32 columns are whole 4x8x4 (bf16) and 4x8x8 (i8) MAC shapes of AIE2; 18 are not (scalar loops).
    kernel = kernel_from(MATMUL.format(T=dtype, ACC=accumulator, N=n), "k")
    design = kernel.compile(target="aie-npu1").ir["aie"]
    assert ("vector.contract" in design) == (n == 32)
    scale = 4 if dtype == "i8" else 1
    a = (RNG.standard_normal((64, 64)) * scale).astype(numpy_type(dtype))
    b = (RNG.standard_normal((64, n)) * scale).astype(numpy_type(dtype))
    simulated = kernel.compile(target="aie-sim")(a, b)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    if dtype == "i8":
        np.testing.assert_array_equal(simulated, expected.astype(np.int32))
    else:
        np.testing.assert_allclose(simulated, expected, rtol=1e-4, atol=1e-3)


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("dtype", sorted(LANES))
def test_vector_cores_lower_to_the_generations_intrinsics_in_mlir_aie(tmp_path, target, dtype):
    # Every core's code, vector ops and all, through aiecc's passes to the LLVM dialect: nothing of
    # the vector or aievec dialects left, and the vector unit's intrinsics where the table has them.
    import re
    import subprocess
    from test_aie import aiecc_core, aiecc_physical
    arch = "aie2p" if target == "aie-npu2" else "aie2"
    tool = os.environ["HTP_AIE_OPT"]
    for number, expr in enumerate(["t + u", "t - u * u", "u + htp.col_sum(t)", "t - htp.row_max(t)"]):
        kernel = kernel_from(WIDE.format(T=dtype, EXPR=expr), "k")
        root = kernel.compile(target=target).write_package(str(tmp_path / f"k{number}"))
        design = open(os.path.join(root, "aie.mlir")).read()
        physical = subprocess.run([tool, f"--pass-pipeline={aiecc_physical(arch)}", os.path.join(root, "aie.mlir")], capture_output=True, text=True)
        assert physical.returncode == 0, physical.stderr
        column, row = re.findall(r"aie\.core\(%tile_(\d+)_(\d+)\)", design)[0]
        core = subprocess.run([tool, f"--pass-pipeline={aiecc_core(arch, column, row)}"], input=physical.stdout, capture_output=True, text=True)
        assert core.returncode == 0, (expr, core.stderr)
        assert " vector." not in core.stdout and "aievec." not in core.stdout, expr
        if f"vector<{LANES[dtype]}x{dtype}>" in design and dtype in ("f32", "bf16"):
            # Float adds and subtracts are the accumulator unit's (integers' are plain LLVM vector ops).
            assert f"xllvm.intr.{arch}." in core.stdout, (expr, design)


def lowered_cores(tmp_path, compiled, target, count=1):
    """`compiled`'s design through mlir-aie's aie-opt (HTP_AIE_OPT) as aiecc lowers it — placed and
    routed, its runtime sequence to NPU instructions, its first `count` cores to the LLVM dialect —
    and the instructions' text and those cores' LLVM text."""
    import subprocess
    from test_aie import AIECC_NPU_INSTRUCTIONS, aiecc_core, aiecc_physical
    tool = os.environ["HTP_AIE_OPT"]
    design = os.path.join(compiled.write_package(str(tmp_path / target)), "aie.mlir")
    arch = "aie2p" if target == "aie-npu2" else "aie2"
    physical = subprocess.run([tool, f"--pass-pipeline={aiecc_physical(arch)}", design], capture_output=True, text=True)
    assert physical.returncode == 0, physical.stderr
    lowered = subprocess.run([tool, f"--pass-pipeline={AIECC_NPU_INSTRUCTIONS}"], input=physical.stdout, capture_output=True, text=True)
    assert lowered.returncode == 0, lowered.stderr
    texts = []
    for column, row in re.findall(r"aie\.core\(%tile_(\d+)_(\d+)\)", compiled.ir["aie"])[:count]:
        core = subprocess.run([tool, f"--pass-pipeline={aiecc_core(arch, column, row)}"], input=physical.stdout, capture_output=True, text=True)
        assert core.returncode == 0, core.stderr
        texts.append(core.stdout)
    return lowered.stdout, texts


def lowered_first_core(tmp_path, compiled, target):
    """The LLVM text of `compiled`'s first core, lowered as `lowered_cores` does."""
    return lowered_cores(tmp_path, compiled, target)[1][0]


# ------------------------------------------------------------------ packs: more tensors than DMA channels (D85)

# A core and a column's shim have 2 DMA channels each way; kernels with more tensors move several of
# them in one FIFO (a pack), the host packing and unpacking them.
PACKED = {
    "three streamed inputs": ('''
import htp
from htp import f32
@htp.kernel
def k(a: htp.Tensor[f32, "N", 32], b: htp.Tensor[f32, "N", 32], d: htp.Tensor[f32, "N", 16], c: htp.Out[f32, "N", 32],
      N: htp.Const[int] = 64):
    for i in range(0, N, 8):
        c[i:i + 8, :] = a[i:i + 8, :] + b[i:i + 8, :] * 2.0 + htp.row_sum(d[i:i + 8, :])
''', lambda a, b, d: [a + b * 2.0 + d.sum(axis=1, keepdims=True)]),
    "four inputs of four element types": ('''
import htp
from htp import f32, i32, bf16, i8
@htp.kernel
def k(a: htp.Tensor[f32, "N", 32], b: htp.Tensor[i32, "N", 32], d: htp.Tensor[bf16, "N", 32], e: htp.Tensor[i8, "N", 64],
      c: htp.Out[f32, "N", 32], N: htp.Const[int] = 64):
    for i in range(0, N, 8):
        c[i:i + 8, :] = a[i:i + 8, :] * htp.cast(b[i:i + 8, :], f32) + htp.cast(d[i:i + 8, :], f32) + htp.cast(e[i:i + 8, 0:64:2], f32)
''', lambda a, b, d, e: [a * b + d + e[:, 0:64:2]]),
    "in-out, broadcasts of two types, a scalar, three outputs": ('''
import htp
from htp import f32, i32
@htp.kernel
def k(a: htp.Tensor[f32, "N", 32], b: htp.Tensor[i32, "N", 32], w: htp.Tensor[f32, 1, 32], v: htp.Tensor[i32, 1, 32], s: f32,
      y: htp.InOut[f32, "N", 32], z: htp.Out[i32, "N", 32], q: htp.Out[f32, "N", 32], N: htp.Const[int] = 64):
    for i in range(0, N, 8):
        y[i:i + 8, 0:16] = y[i:i + 8, 0:16] * s + a[i:i + 8, 0:16]
        z[i:i + 8, :] = b[i:i + 8, :] + v[0:1, :]
        q[i:i + 8, :] = a[i:i + 8, :] * w[0:1, :]
''', None),
    "one input, four outputs": ('''
import htp
from htp import f32, i16
@htp.kernel
def k(x: htp.Tensor[f32, "N", 32], p: htp.Out[f32, "N", 32], m: htp.Out[f32, "N", 32], r: htp.Out[f32, "N", 1],
      n: htp.Out[i16, "N", 32], N: htp.Const[int] = 64):
    for i in range(0, N, 8):
        t = x[i:i + 8, :]
        p[i:i + 8, :] = t + 1.0
        m[i:i + 8, :] = t * t
        r[i:i + 8, :] = htp.row_max(t)
        n[i:i + 8, :] = htp.cast(t * 10.0, i16)
''', lambda x: [x + 1.0, x * x, x.max(axis=1, keepdims=True), (x * 10.0).astype(np.int16)]),
    "whole on one core: three inputs, three outputs": ('''
import htp
from htp import f32
@htp.kernel
def k(a: htp.Tensor[f32, 16, 32], b: htp.Tensor[f32, 16, 32], d: htp.Tensor[f32, 32, 16], c: htp.Out[f32, 16, 32],
      e: htp.Out[f32, 16, 16], g: htp.Out[f32, 1, 32]):
    c[:, :] = a[:, :] - b[:, :]
    e[:, :] = a[:, :] @ d[:, :]
    g[:, :] = htp.col_sum(b[:, :])
''', lambda a, b, d: [a - b, a @ d, b.sum(axis=0, keepdims=True)]),
}


def make(shape, dtype, rng):
    if dtype in ("i32", "i16", "i8"):
        return rng.integers(-20, 20, shape).astype(getattr(np, {"i32": "int32", "i16": "int16", "i8": "int8"}[dtype]))
    if dtype == "bf16":
        return rng.standard_normal(shape).astype(ml_dtypes.bfloat16)
    return rng.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("case, rows", [(case, rows) for case in sorted(PACKED) for rows in ([64, 37, 200] if '"N"' in PACKED[case][0] else [16])])
def test_more_tensors_than_dma_channels_travel_in_packs_on_aie_sim(case, rows):
    source, reference = PACKED[case]
    kernel = kernel_from(source, "k")
    rng = np.random.default_rng(85)
    N = rows
    if case == "three streamed inputs":
        args = [make((N, 32), "f32", rng), make((N, 32), "f32", rng), make((N, 16), "f32", rng)]
    elif case == "four inputs of four element types":
        args = [make((N, 32), "f32", rng), make((N, 32), "i32", rng), make((N, 32), "bf16", rng), make((N, 64), "i8", rng)]
    elif case.startswith("in-out"):
        a, b, w, v = make((N, 32), "f32", rng), make((N, 32), "i32", rng), make((1, 32), "f32", rng), make((1, 32), "i32", rng)
        y0 = make((N, 32), "f32", rng)
        y = y0.copy()
        z, q = kernel.compile(target="aie-sim", N=N)(a, b, w, v, 0.5, y)[-2:]
        expected = y0.copy()
        expected[:, 0:16] = y0[:, 0:16] * np.float32(0.5) + a[:, 0:16]
        np.testing.assert_allclose(y, expected, rtol=1e-6)
        np.testing.assert_array_equal(z, b + v)
        np.testing.assert_allclose(q, a * w, rtol=1e-6)
        # the cpu agrees
        y_cpu = y0.copy()
        z_cpu, q_cpu = kernel.compile(target="cpu", N=N)(a, b, w, v, 0.5, y_cpu)[-2:]
        np.testing.assert_array_equal(y, y_cpu)
        np.testing.assert_array_equal(z, z_cpu)
        return
    elif case == "one input, four outputs":
        args = [make((N, 32), "f32", rng)]
    else:
        args = [make((16, 32), "f32", rng), make((16, 32), "f32", rng), make((32, 16), "f32", rng)]
    compiled = kernel.compile(target="aie-sim", **({"N": N} if "N" in source else {}))
    got = compiled(*args)
    got = list(got) if isinstance(got, tuple) else [got]
    wide = [a.astype(np.float64) if a.dtype != np.int8 else a.astype(np.float64) for a in args]
    for out, want in zip(got, reference(*wide)):
        if np.issubdtype(out.dtype, np.integer):
            np.testing.assert_array_equal(out, want.astype(out.dtype) if want.dtype != out.dtype else want)
        else:
            np.testing.assert_allclose(out.astype(np.float64), want, rtol=1e-5, atol=1e-5)
    cpu = kernel.compile(target="cpu", **({"N": N} if "N" in source else {}))(*args)
    cpu = list(cpu) if isinstance(cpu, tuple) else [cpu]
    for out, want in zip(got, cpu):
        np.testing.assert_allclose(out.astype(np.float64), want.astype(np.float64), rtol=1e-6, atol=1e-6)


def test_a_pack_is_one_fifo_each_way_and_the_manifest_names_it(tmp_path):
    compiled = kernel_from(PACKED["in-out, broadcasts of two types, a scalar, three outputs"][0], "k").compile(target="aie-npu1")
    design = compiled.ir["aie"]
    # Streamed inputs (a, b and y's copy in) in one pack, broadcasts and the scalar in another,
    # the three outputs in a third; no FIFO of a packed tensor's own.
    assert "aie.objectfifo @htp_in_c0(" in design and "aie.objectfifo @htp_whole_in(" in design and "aie.objectfifo @htp_out_c0(" in design
    for name in ("a", "b", "w", "v", "s", "y", "z", "q", "y_in"):
        assert f"aie.objectfifo @{name}(" not in design and f"aie.objectfifo @{name}_c0(" not in design
    # Each part viewed in place in its pack's object: a, b, y (in and out), z, q, w, v and s per core.
    cores = design.count("aie.core(")
    assert design.count("memref.view") == 9 * cores and design.count("memref.collapse_shape") == 3 * cores
    root = compiled.write_package(str(tmp_path / "pkg"))
    manifest = json.loads(open(os.path.join(root, "manifest.json")).read())
    packs = {a["name"]: a.get("packs") for a in manifest["arguments"]}
    assert packs == {"a": ["htp_in"], "b": ["htp_in"], "w": ["htp_whole_in"], "v": ["htp_whole_in"], "s": ["htp_whole_in"],
                     "y": ["htp_in", "htp_out"], "z": ["htp_out"], "q": ["htp_out"]}
    sequence = design.split("aie.runtime_sequence(")[1].split(")")[0]
    # The runtime sequence moves the three packs, and nothing else: 8 blocks (one a core) of 3 parts
    # of 8 x 32 x 4 bytes each way; w, v and s at 64-byte-aligned offsets (128 + 128 + 64).
    assert [p.split(":")[1].strip() for p in sequence.split(",")] == ["memref<24576xi8>", "memref<320xi8>", "memref<24576xi8>"]
    from test_aie import assert_host_compiles
    host = open(os.path.join(root, "test.cpp")).read()
    assert "pack_part(buf_htp_in" in host and "unpack_part(buf_htp_out" in host
    assert_host_compiles(tmp_path, os.path.join(root, "test.cpp"))


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("case", sorted(PACKED))
def test_packed_designs_lower_in_mlir_aie_to_core_code(tmp_path, target, case):
    compiled = kernel_from(PACKED[case][0], "k").compile(target=target)
    assert "memref.view" in compiled.ir["aie"]
    core_text = lowered_first_core(tmp_path, compiled, target)
    functions = re.findall(r"^  llvm\.func @([\w.]+)\(.*?(\{)?$", core_text, flags=re.M)
    assert ("k_block", "{") in functions, functions


INOUT_PACKED = '''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, "N", 32], z: htp.Tensor[f32, "N", 32], y: htp.InOut[f32, "N", 32], N: htp.Const[int] = 100):
    for i in range(0, N, 8):
        y[i:i + 8, 8:24] = y[i:i + 8, 8:24] + x[i:i + 8, 8:24] * z[i:i + 8, 8:24]
'''


def test_an_in_out_tensor_in_a_pack_travels_packed_both_ways_on_aie_sim():
    # x, z and y's copy in are three inputs: one pack; y's way out then travels in a pack too (its
    # one host buffer is packed or not), and keeps the columns the blocks do not write.
    compiled = kernel_from(INOUT_PACKED, "k").compile(target="aie-sim")
    assert "@htp_in" in compiled.ir["aie"] and "@htp_out" in compiled.ir["aie"]
    x, z, y0 = (RNG.standard_normal((100, 32), dtype=np.float32) for _ in range(3))
    y = y0.copy()
    compiled(x, z, y)
    expected = y0.copy()
    expected[:, 8:24] += x[:, 8:24] * z[:, 8:24]
    np.testing.assert_array_equal(y, expected)


# ------------------------------------------------------------------ tiles carried across an inner loop (D86)

ONLINE_SOFTMAX = '''
import htp
from htp import f32, f16, bf16
@htp.kernel
def k(x: htp.Tensor[{T}, "N", "M"], y: htp.Out[{T}, "N", "M"]):
    for i in range(0, x.shape[0], 8):
        m = htp.full((8, 1), -htp.inf, {T})
        s = htp.zeros((8, 1), {T})
        for j in range(0, x.shape[1], 32):
            t = htp.pad(x[i:i + 8, j:j + 32], -htp.inf)
            m_new = htp.maximum(m, htp.row_max(t))
            s = s * htp.exp(m - m_new) + htp.row_sum(htp.exp(t - m_new))
            m = m_new
        for j in range(0, x.shape[1], 32):
            y[i:i + 8, j:j + 32] = htp.exp(htp.pad(x[i:i + 8, j:j + 32], -htp.inf) - m) / s
'''

FLASH_ATTENTION = '''
import htp
from htp import f32, bf16
@htp.kernel
def k(q: htp.Tensor[{T}, "S", {D}], kt: htp.Tensor[{T}, "S", {D}], v: htp.Tensor[{T}, "S", {D}], o: htp.Out[f32, "S", {D}],
      scale: f32, S: htp.Const[int] = 128):
    for i in range(0, S, 16):
        qi = q[i:i + 16, :]
        m = htp.full((16, 1), -1.0e30, f32)
        l = htp.zeros((16, 1), f32)
        acc = htp.zeros((16, {D}), f32)
        for j in range(0, S, 32):
            s = (qi @ htp.transpose(kt[j:j + 32, :])) * scale
            m_new = htp.maximum(m, htp.row_max(s))
            p = htp.exp(s - m_new)
            alpha = htp.exp(m - m_new)
            l = l * alpha + htp.row_sum(p)
            acc = acc * alpha + htp.cast(p, {T}) @ v[j:j + 32, :]
            m = m_new
        o[i:i + 16, :] = acc / l
'''


def attention_reference(q, k, v, scale):
    s = q.astype(np.float64) @ k.astype(np.float64).T * scale
    p = np.exp(s - s.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True) @ v.astype(np.float64)


def stack_buffers_at_entry(design):
    """Every memref.alloca of the design's block functions is in the function's entry block (D86)."""
    for function in design.split("func.func @")[1:]:
        depth = 0
        for line in function.split("\n")[1:]:
            if line.strip() == "}" and depth == 0:
                break
            if "memref.alloca" in line:
                assert depth == 0, line
            depth += line.count("{") - line.count("}")


@pytest.mark.parametrize("dtype", ["f32", "f16"])
@pytest.mark.parametrize("shape", [(64, 128), (37, 150), (8, 32)])
def test_online_softmax_carries_its_running_max_and_sum_on_aie_sim(dtype, shape):
    kernel = kernel_from(ONLINE_SOFTMAX.format(T=dtype), "k")
    x = RNG.standard_normal(shape).astype(np.float32 if dtype == "f32" else np.float16)
    compiled = kernel.compile(target="aie-sim")
    y = compiled(x)
    e = np.exp(x.astype(np.float64) - x.astype(np.float64).max(axis=1, keepdims=True))
    np.testing.assert_allclose(y.astype(np.float64), e / e.sum(axis=1, keepdims=True), rtol=1e-5 if dtype == "f32" else 3e-2, atol=1e-6 if dtype == "f32" else 2e-3)
    np.testing.assert_allclose(y, kernel.compile(target="cpu")(x), rtol=1e-6 if dtype == "f32" else 1e-3)
    assert "memref.alloc()" not in compiled.ir["aie"]
    stack_buffers_at_entry(compiled.ir["aie"])


@pytest.mark.parametrize("dtype, depth, rows", [("f32", 32, 128), ("f32", 32, 96), ("bf16", 64, 128), ("bf16", 32, 64)])
def test_flash_attention_with_a_query_block_per_core_on_aie_sim(dtype, depth, rows):
    kernel = kernel_from(FLASH_ATTENTION.format(T=dtype, D=depth), "k")
    make_dtype = np.float32 if dtype == "f32" else ml_dtypes.bfloat16
    rng = np.random.default_rng(depth * 1000 + rows)
    q, k, v = (rng.standard_normal((rows, depth)).astype(make_dtype) for _ in range(3))
    compiled = kernel.compile(target="aie-sim", S=rows)
    o = compiled(q, k, v, scale=1.0 / math.sqrt(depth))
    np.testing.assert_allclose(o, attention_reference(q, k, v, 1.0 / math.sqrt(depth)), rtol=1e-4 if dtype == "f32" else 2e-2, atol=1e-5 if dtype == "f32" else 5e-3)
    # The cpu's exp may differ from a core's in the last bit of f32, which flips a bf16 rounding of
    # `cast(p)` now and then: within bf16's precision there.
    cpu = kernel.compile(target="cpu", S=rows)(q, k, v, scale=1.0 / math.sqrt(depth))
    np.testing.assert_allclose(o, cpu, rtol=1e-5 if dtype == "f32" else 1e-2, atol=1e-6 if dtype == "f32" else 1e-3)
    assert compiled.metrics(q, k, v, scale=0.5)["cores"] == rows // 16
    stack_buffers_at_entry(compiled.ir["aie"])


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("source", [ONLINE_SOFTMAX.format(T="f32").replace('"N", "M"', "64, 128"), FLASH_ATTENTION.format(T="bf16", D=64)],
                         ids=["online softmax", "flash attention"])
def test_carried_tiles_lower_in_mlir_aie_to_core_code(tmp_path, target, source):
    compiled = kernel_from(source, "k").compile(target=target)
    arch = "aie2p" if target == "aie-npu2" else "aie2"
    core_text = lowered_first_core(tmp_path, compiled, target)
    functions = re.findall(r"^  llvm\.func @([\w.]+)\(.*?(\{)?$", core_text, flags=re.M)
    assert ("k_block", "{") in functions, functions
    # No runtime library call for the copies into the carried tiles: a core has none.
    external = {name for name, body in functions if not body and not name.startswith(f"llvm.{arch}.")}
    assert external <= {"debug_i32"}, external
    # The core's stack buffers are static (allocas of the entry block), so the stack HTP sizes holds.
    block_function = core_text.split("llvm.func @k_block(")[1].split("\n  }\n")[0]
    entry, rest = block_function.split("\n  ^bb", 1)
    assert "llvm.alloca" in entry and "llvm.alloca" not in rest


# ------------------------------------------------------------------ 1-D tensors

VECTORS = '''
import htp
from htp import f32, bf16, i64, i32, i16, i8
@htp.kernel
def k(x: htp.Tensor[{T}, "N"], w: htp.Tensor[{T}, 64], y: htp.Out[{T}, "N"]):
    for i in range(0, x.shape[0], 64):
        t = htp.pad(x[i:i + 64], 0)
        y[i:i + 64] = t * w[:] + t
'''


@pytest.mark.parametrize("dtype", ["f32", "bf16", "i64", "i32", "i16", "i8"])
@pytest.mark.parametrize("length", [1024, 1000, 64, 40])
def test_a_1d_tensor_walks_its_windows_over_the_cores_on_aie_sim(dtype, length):
    # x and y move a 64-element window a block (the host pads the last), w whole to every core.
    kernel = kernel_from(VECTORS.format(T=dtype), "k")
    rng = np.random.default_rng(length)
    if dtype.startswith("i"):
        numpy_type = {"i64": np.int64, "i32": np.int32, "i16": np.int16, "i8": np.int8}[dtype]
        x, w = rng.integers(-8, 8, length).astype(numpy_type), rng.integers(-4, 4, 64).astype(numpy_type)
    else:
        numpy_type = np.float32 if dtype == "f32" else ml_dtypes.bfloat16
        x, w = rng.standard_normal(length).astype(numpy_type), rng.standard_normal(64).astype(numpy_type)
    compiled = kernel.compile(target="aie-sim")
    y = compiled(x, w)
    cpu = kernel.compile(target="cpu")(x, w)
    if dtype.startswith("i"):
        np.testing.assert_array_equal(y, cpu)
    else:  # (a multiply-add may be fused on one side)
        np.testing.assert_allclose(y.astype(np.float64), cpu.astype(np.float64), rtol=1e-2 if dtype == "bf16" else 1e-5, atol=1e-6)
    expected = x.astype(np.float64) * np.resize(w.astype(np.float64), length) + x.astype(np.float64)
    np.testing.assert_allclose(y.astype(np.float64), expected.astype(numpy_type).astype(np.float64), rtol=1e-2 if dtype == "bf16" else 1e-5, atol=1e-6)
    assert compiled.metrics(x, w)["cores"] == min(16, -(-length // 64))


def test_a_1d_in_out_tensor_keeps_what_its_windows_do_not_write_on_aie_sim():
    kernel = kernel_from('''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, 300], y: htp.InOut[f32, 300]):
    for i in range(0, 256, 32):
        y[i:i + 32] = y[i:i + 32] + x[i:i + 32] * 2.0
''', "k")
    x = RNG.standard_normal(300, dtype=np.float32)
    y0 = RNG.standard_normal(300, dtype=np.float32)
    y = y0.copy()
    kernel.compile(target="aie-sim")(x, y)
    expected = y0.copy()
    expected[:256] += x[:256] * 2.0
    np.testing.assert_array_equal(y, expected)


def test_a_1d_tensor_read_whole_and_a_layernorm_with_1d_weight_and_bias_on_aie_sim():
    kernel = kernel_from('''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, "N", 64], w: htp.Tensor[f32, 64], b: htp.Tensor[f32, 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 8):
        t = htp.pad(x[i:i + 8, :], 0.0)
        mean = htp.row_sum(t) * (1.0 / 64)
        d = t - mean
        rstd = htp.rsqrt(htp.row_sum(d * d) * (1.0 / 64) + 1e-5)
        y[i:i + 8, :] = d * rstd * w[:] + b[:]
''', "k")
    x = RNG.standard_normal((37, 64), dtype=np.float32)
    w, b = RNG.standard_normal(64, dtype=np.float32), RNG.standard_normal(64, dtype=np.float32)
    y = kernel.compile(target="aie-sim")(x, w, b)
    t = x.astype(np.float64)
    d = t - t.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(y, d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5) * w + b, rtol=1e-4, atol=1e-5)


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
def test_a_1d_design_lowers_in_mlir_aie_to_core_code(tmp_path, target):
    compiled = kernel_from(VECTORS.format(T="bf16").replace('"N"', "1000"), "k").compile(target=target)
    core_text = lowered_first_core(tmp_path, compiled, target)
    assert "vector<" in core_text  # the window's arithmetic on the vector unit


# ------------------------------------------------------------------ streamed over an inner loop (D87)

GEMM_TILED = '''
import htp
from htp import f32, bf16, i8, i32
@htp.kernel
def k(a: htp.Tensor[{T}, "M", "K"], b: htp.Tensor[{T}, "K", "N"], c: htp.Out[{ACC}, "M", "N"],
      M: htp.Const[int] = 256, K: htp.Const[int] = 256, N: htp.Const[int] = 256):
    for i in range(0, M, 16):
        for j in range(0, N, 64):
            acc = htp.zeros((16, 64), {ACC})
            for k in range(0, K, 32):
                acc += a[i:i + 16, k:k + 32] @ b[k:k + 32, j:j + 64]
            c[i:i + 16, j:j + 64] = acc
'''

GEMM_WHOLE_ROWS = '''
import htp
from htp import f32, bf16, i8, i32
@htp.kernel
def k(a: htp.Tensor[{T}, "M", "K"], b: htp.Tensor[{T}, "K", "N"], c: htp.Out[{ACC}, "M", "N"],
      M: htp.Const[int] = 128, K: htp.Const[int] = 512, N: htp.Const[int] = 64):
    for i in range(0, M, 16):
        acc = htp.zeros((16, N), {ACC})
        for k in range(0, K, 32):
            acc += a[i:i + 16, k:k + 32] @ b[k:k + 32, :]
        c[i:i + 16, :] = acc
'''


def gemm_operands(dtype, m, k, n, seed=87):
    rng = np.random.default_rng(seed)
    if dtype == "i8":
        return rng.integers(-128, 128, (m, k)).astype(np.int8), rng.integers(-128, 128, (k, n)).astype(np.int8)
    return rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16), rng.standard_normal((k, n)).astype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("dtype, source, shape", [
    ("bf16", GEMM_TILED, (256, 256, 256)), ("bf16", GEMM_TILED, (64, 512, 128)), ("bf16", GEMM_WHOLE_ROWS, (128, 512, 64)),
    ("bf16", GEMM_WHOLE_ROWS, (32, 640, 64)), ("i8", GEMM_TILED, (256, 256, 256)), ("i8", GEMM_TILED, (64, 1024, 128)),
    ("i8", GEMM_WHOLE_ROWS, (128, 512, 128))], ids=["bf16-tiled-256", "bf16-tiled-deep", "bf16-rows-512", "bf16-rows-640", "i8-tiled-256",
                                                    "i8-tiled-deep", "i8-rows-512"])
def test_a_gemm_whose_b_does_not_fit_a_core_streams_it_over_k_on_aie_sim(dtype, source, shape):
    m, k, n = shape
    kernel = kernel_from(source.format(T=dtype, ACC="i32" if dtype == "i8" else "f32"), "k")
    a, b = gemm_operands(dtype, m, k, n)
    assert b.nbytes >= 64 * 1024  # B alone is a compute tile's memory or more
    compiled = kernel.compile(target="aie-sim", M=m, K=k, N=n)
    c = compiled(a, b)
    if dtype == "i8":
        np.testing.assert_array_equal(c, a.astype(np.int64) @ b.astype(np.int64))
    else:
        np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-3)
    design = compiled.ir["aie"]
    # B goes shim -> memtile -> the column's cores, an object a trip: not whole to every core.
    assert "aie.objectfifo @b_cores(" in design or "aie.objectfifo @b_c0_cores(" in design
    metrics = compiled.metrics(a, b)
    per_core = -(-(m // 16) // int(metrics["cores"]))
    assert metrics["shim_bytes_in"] == a.nbytes + b.nbytes * per_core * metrics["columns"]
    assert metrics["core_memory_bytes"] <= metrics["core_memory_capacity"]


def test_b_that_fits_a_core_is_still_broadcast_whole():
    kernel = kernel_from(GEMM_WHOLE_ROWS.format(T="bf16", ACC="f32"), "k")
    compiled = kernel.compile(target="aie-sim", M=64, K=128, N=64)
    assert "_cores(" not in compiled.ir["aie"]
    a, b = gemm_operands("bf16", 64, 128, 64)
    np.testing.assert_allclose(compiled(a, b), a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-3)


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("dtype, shape", [("bf16", (256, 256, 256)), ("i8", (256, 256, 256)), ("i8", (64, 1024, 128))])
def test_a_gemm_streaming_b_lowers_in_mlir_aie_with_mac_intrinsics(tmp_path, target, dtype, shape):
    m, k, n = shape
    compiled = kernel_from(GEMM_TILED.format(T=dtype, ACC="i32" if dtype == "i8" else "f32"), "k").compile(target=target, M=m, K=k, N=n)
    # The block function is inlined into each core: B's acquire and release sit in the K loop.
    assert "func.func @k_block" not in compiled.ir["aie"]
    arch = "aie2p" if target == "aie-npu2" else "aie2"
    core_text = lowered_first_core(tmp_path, compiled, target)
    # The MAC shapes of the vector table (D83): bf16 on AIE2, i8 on both (AIE2P's bf16 stays scalar).
    mac = {("aie2", "bf16"): "xllvm.intr.aie2.bf.mac16.conf", ("aie2", "i8"): "xllvm.intr.aie2.I512.I512.ACC1024.acc32.mac.conf",
           ("aie2p", "i8"): "xllvm.intr.aie2p.I512.I512.ACC2048.mac.conf"}.get((arch, dtype))
    assert mac is None or mac in core_text, sorted(set(re.findall(r"xllvm\.intr\.[\w.]+", core_text)))


FLASH_ATTENTION_STREAMED = FLASH_ATTENTION.replace("scale: f32, S", "S").replace(") * scale", ") * {SCALE}")


@pytest.mark.parametrize("dtype, depth, rows", [("bf16", 64, 512), ("f32", 32, 512), ("bf16", 32, 768)])
def test_flash_attention_streams_k_and_v_through_the_memtile_on_aie_sim(dtype, depth, rows):
    # K and V (S x D each) are more than a core holds: both stream over the KV loop, a trip's
    # blocks of the two in one pack (one FIFO: with Q's blocks and O's, the core's channels).
    scale = 1.0 / math.sqrt(depth)
    kernel = kernel_from(FLASH_ATTENTION_STREAMED.format(T=dtype, D=depth, SCALE=repr(scale)), "k")
    make_dtype = np.float32 if dtype == "f32" else ml_dtypes.bfloat16
    q, k, v = (RNG.standard_normal((rows, depth)).astype(make_dtype) for _ in range(3))
    compiled = kernel.compile(target="aie-sim", S=rows)
    o = compiled(q, k, v)
    np.testing.assert_allclose(o, attention_reference(q, k, v, scale), rtol=1e-4 if dtype == "f32" else 2e-2, atol=1e-5 if dtype == "f32" else 5e-3)
    # (p's rounding to bf16 may differ by an ulp where a multiply-add is fused on one side.)
    np.testing.assert_allclose(o, kernel.compile(target="cpu", S=rows)(q, k, v), rtol=1e-5 if dtype == "f32" else 1e-2, atol=1e-6 if dtype == "f32" else 1e-3)
    design = compiled.ir["aie"]
    assert "aie.objectfifo @htp_inner_in_c0_cores(" in design and "@kt_c0_cores" not in design
    metrics = compiled.metrics(q, k, v)
    per_core = -(-(rows // 16) // int(metrics["cores"]))
    assert metrics["shim_bytes_in"] >= q.nbytes + (k.nbytes + v.nbytes) * per_core * metrics["columns"]
    assert metrics["core_memory_bytes"] <= metrics["core_memory_capacity"]


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
def test_flash_attention_streaming_k_and_v_lowers_in_mlir_aie(tmp_path, target):
    compiled = kernel_from(FLASH_ATTENTION_STREAMED.format(T="bf16", D=64, SCALE="0.125"), "k").compile(target=target, S=512)
    core_text = lowered_first_core(tmp_path, compiled, target)
    assert "vector<" in core_text
    if target == "aie-npu1":
        # Both matmuls on the MAC unit: `q @ k.T` (B's tiles transposed in registers) and
        # `cast(p) @ v` (the cast split off, a vector op of its own); no scalar bf16 left.
        design = compiled.ir["aie"]
        assert design.count("vector.contract") >= 2, design
        assert not re.search(r"arith\.(extf|truncf) %\w+ : (bf16 to f32|f32 to bf16)\n", design), "a scalar bf16 cast is left"
        assert "bf.mac16.conf" in core_text


# `x @ w.T` blocks: B (w's rows) read transposed; and a narrowing cast of an input inside a matmul.
MATMUL_NT = '''
import htp
from htp import f32, bf16, i8, i32
@htp.kernel
def k(x: htp.Tensor[{T}, 64, 64], w: htp.Tensor[{T}, 32, 64], y: htp.Out[{A}, 64, 32]):
    for i in range(0, 64, 16):
        y[i:i + 16, :] = x[i:i + 16, :] @ htp.transpose(w[:, :])
'''
CAST_MATMUL = '''
import htp
from htp import f32, bf16
@htp.kernel
def k(p: htp.Tensor[f32, 64, 32], v: htp.Tensor[bf16, 32, 64], y: htp.Out[f32, 64, 64]):
    for i in range(0, 64, 16):
        y[i:i + 16, :] = htp.cast(p[i:i + 16, :], bf16) @ v[:, :] + 1.0
'''


@pytest.mark.parametrize("dtype, accumulator", [("bf16", "f32"), ("i8", "i32")])
def test_a_matmul_by_a_transposed_operand_runs_on_the_mac_unit(dtype, accumulator):
    kernel = kernel_from(MATMUL_NT.format(T=dtype, A=accumulator), "k")
    rng = np.random.default_rng(17)
    if dtype == "i8":
        x, w = rng.integers(-8, 8, (64, 64)).astype(np.int8), rng.integers(-8, 8, (32, 64)).astype(np.int8)
    else:
        x, w = (rng.standard_normal(shape).astype(ml_dtypes.bfloat16) for shape in ((64, 64), (32, 64)))
    compiled = kernel.compile(target="aie-sim")
    y = compiled(x, w)
    expected = x.astype(np.float64) @ w.astype(np.float64).T
    if dtype == "i8":
        np.testing.assert_array_equal(y, expected.astype(np.int32))
    else:
        np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-4)
    design = compiled.ir["aie"]
    # B's MAC tiles (k x n) made from its rows read transposed.
    assert "vector.contract" in design and ("vector<8x4xbf16>" if dtype == "bf16" else "vector<8x8xi8>") in design, design


def test_a_narrowing_cast_inside_a_matmul_is_split_off_and_both_run_as_vector_code():
    kernel = kernel_from(CAST_MATMUL, "k")
    rng = np.random.default_rng(18)
    p = rng.standard_normal((64, 32)).astype(np.float32)
    v = rng.standard_normal((32, 64)).astype(ml_dtypes.bfloat16)
    compiled = kernel.compile(target="aie-sim")
    y = compiled(p, v)
    expected = p.astype(ml_dtypes.bfloat16).astype(np.float64) @ v.astype(np.float64) + 1.0
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(y, kernel(p, v), rtol=1e-6, atol=1e-5)
    design = compiled.ir["aie"]
    # The cast on 16 lanes, the matmul on bf16 MAC tiles; nothing narrowed one element at a time.
    assert "arith.truncf %" in design and ": vector<16xf32> to vector<16xbf16>" in design, design
    assert "vector.contract" in design and not re.search(r"arith\.truncf %\w+ : f32 to bf16\n", design)


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("source, dtype", [(MATMUL_NT.format(T="bf16", A="f32"), "bf16"), (MATMUL_NT.format(T="i8", A="i32"), "i8"), (CAST_MATMUL, "bf16")],
                         ids=["nt-bf16", "nt-i8", "cast-bf16"])
def test_transposed_and_cast_matmuls_lower_to_mac_intrinsics_in_mlir_aie(tmp_path, source, dtype):
    compiled = kernel_from(source, "k").compile(target="aie-npu1")
    core_text = lowered_first_core(tmp_path, compiled, "aie-npu1")
    mac = "bf.mac16.conf" if dtype == "bf16" else "I512.I512.ACC1024.acc32.mac.conf"
    assert mac in core_text, core_text[:3000]


def test_flash_attention_with_a_run_time_scale_carries_it_in_every_query_block(tmp_path):
    # Q's blocks, the K/V pack and the scalar would be 3 input channels: the scalar rides in each
    # block's pack with Q's rows (a copy a block).
    kernel = kernel_from(FLASH_ATTENTION.format(T="bf16", D=64), "k")
    q, k, v = (RNG.standard_normal((512, 64)).astype(ml_dtypes.bfloat16) for _ in range(3))
    compiled = kernel.compile(target="aie-sim", S=512)
    o = compiled(q, k, v, scale=0.125)
    np.testing.assert_allclose(o, attention_reference(q, k, v, 0.125), rtol=2e-2, atol=5e-3)
    design = compiled.ir["aie"]
    assert "@htp_in_c0_0(" in design and "@htp_inner_in_c0_cores(" in design and "@scale(" not in design
    assert compiled.metrics(q, k, v, scale=0.125)["core_dma_inputs"] == 2
    package = kernel.compile(target="aie-npu1", S=512)
    root = package.write_package(str(tmp_path / "pkg"))
    host = open(os.path.join(root, "test.cpp")).read()
    assert "repeat_part(buf_htp_in" in host
    from test_aie import assert_host_compiles
    assert_host_compiles(tmp_path, os.path.join(root, "test.cpp"))


# ------------------------------------------------------------------ i64 elements and `int` scalars

# i64 elements are word pairs to the DMA (mlir-aie scales them to 32-bit words) and scalar code on a
# core (no AIE generation has i64 vector lanes); a Python `int` parameter is an i64 scalar.
INT64 = '''
import htp
from htp import f32, i64
@htp.kernel
def k(x: htp.Tensor[i64, "N", 48], z: htp.Tensor[i64, "N", 48], s: int, y: htp.Out[i64, "N", 48], f: htp.Out[f32, "N", 48],
      N: htp.Const[int] = 64):
    for i in range(0, N, 8):
        t = htp.pad(x[i:i + 8, :], 0)
        u = htp.pad(z[i:i + 8, :], 0)
        y[i:i + 8, :] = htp.where(t < u, t * s - htp.row_max(u), htp.maximum(t, -u)) + htp.col_sum(t)
        f[i:i + 8, :] = htp.cast(t, f32) * 0.5 + htp.cast(htp.row_sum(u), f32)
'''


def int64_reference(x, z, s):
    y = np.zeros_like(x)
    f = np.zeros(x.shape, np.float32)
    for i in range(0, x.shape[0], 8):
        rows = min(8, x.shape[0] - i)
        t = np.zeros((8, x.shape[1]), np.int64)
        u = np.zeros((8, x.shape[1]), np.int64)
        t[:rows], u[:rows] = x[i:i + rows], z[i:i + rows]
        block = np.where(t < u, t * s - u.max(axis=1, keepdims=True), np.maximum(t, -u)) + t.sum(axis=0, keepdims=True)
        y[i:i + rows] = block[:rows]
        f[i:i + rows] = (t.astype(np.float32) * np.float32(0.5) + u.sum(axis=1, keepdims=True).astype(np.float32))[:rows]
    return y, f


@pytest.mark.parametrize("rows", [64, 37])
def test_i64_tensors_and_an_int_scalar_on_aie_sim(rows):
    kernel = kernel_from(INT64, "k")
    rng = np.random.default_rng(rows)
    # Values past 32 bits: a core that kept only the low word would be caught.
    x = rng.integers(-2**40, 2**40, (rows, 48))
    z = rng.integers(-2**40, 2**40, (rows, 48))
    s = 3 * 2**20 + 1
    compiled = kernel.compile(target="aie-sim", N=rows)
    y, f = compiled(x, z, s)
    expected_y, expected_f = int64_reference(x, z, s)
    np.testing.assert_array_equal(y, expected_y)
    np.testing.assert_allclose(f, expected_f, rtol=1e-6)
    cpu_y, cpu_f = kernel.compile(target="cpu", N=rows)(x, z, s)
    np.testing.assert_array_equal(y, cpu_y)
    np.testing.assert_array_equal(f, cpu_f)
    assert compiled.metrics(x, z, s)["cores"] > 1
    assert {"aie-sim", "aie-npu1", "aie-npu2"} <= set(kernel.targets())


def test_an_int_scalar_scales_a_float_kernel_on_aie_sim():
    # The porter's common case: a count given as a Python int (an i64 scalar).
    kernel = kernel_from('''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, "N", 32], n: int, y: htp.Out[f32, "N", 32]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * htp.f32(n) + htp.f32(n // 3)
''', "k")
    x = RNG.standard_normal((64, 32), dtype=np.float32)
    for n in [7, -5, 2**33 + 1]:
        expected = x * np.float32(n) + np.float32(n // 3)
        np.testing.assert_allclose(kernel.compile(target="aie-sim")(x, n), expected, rtol=1e-6)


def test_an_i64_design_moves_word_pairs():
    design = kernel_from(INT64, "k").compile(target="aie-npu1", N=64).ir["aie"]
    # The cores' objects keep i64 elements; the host buffers are their 32-bit words (a shim
    # transfer moves elements of at most 32 bits): y's 64 x 48 elements are 6144 words, s two.
    assert "!aie.objectfifo<memref<8x48xi64>>" in design, design
    assert "%arg1: memref<6144xi32>" in design and "%arg0: memref<2xi32>" in design, design
    transfers = re.findall(r"aiex\.npu\.dma_memcpy_nd\(%arg\d+\[[^]]*\]\[\d+, \d+, \d+, (\d+)\].*: memref<\d+x(\w+)>", design)
    assert len(transfers) == 13, transfers
    bits = {"i32": 32, "f32": 32, "i8": 8}
    assert all(int(inner) * bits[element] <= 1023 * 32 for inner, element in transfers), transfers


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("rows", [64, 37])
def test_an_i64_design_lowers_in_mlir_aie_to_core_code(tmp_path, target, rows):
    compiled = kernel_from(INT64, "k").compile(target=target, N=rows)
    instructions, cores = lowered_cores(tmp_path, compiled, target, count=2)
    assert "aiex.npu.dma_memcpy_nd" not in instructions
    for core_text in cores:
        # The block's arithmetic on word pairs: i64 loads, multiplies and compares in the core's LLVM.
        assert re.search(r"llvm\.load .* -> i64", core_text), core_text[:3000]
        assert re.search(r"llvm\.mul .* : i64", core_text), core_text[:3000]
        assert re.search(r"llvm\.icmp \"slt\" .* : i64", core_text), core_text[:3000]


# ------------------------------------------------------------------ bool tensors (D91)

# A bool tensor moves as bytes (numpy's and LLVM's i1 is one byte) in a pack, the core viewing its
# part as i1 in place: a mask in, a mask out, a mask read whole by every block.
BOOLS = '''
import htp
from htp import f32
@htp.kernel
def k(m: htp.Tensor[bool, "N", 64], x: htp.Tensor[f32, "N", 64], keep: htp.Tensor[bool, 8, 64],
      y: htp.Out[f32, "N", 64], positive: htp.Out[bool, "N", 64], N: htp.Const[int] = 64):
    for i in range(0, N, 8):
        t = htp.pad(x[i:i + 8, :], 0.0)
        y[i:i + 8, :] = htp.where(htp.pad(m[i:i + 8, :], False), t, htp.where(keep[:, :], -t, 0.0))
        positive[i:i + 8, :] = t > 0.0
'''


@pytest.mark.parametrize("rows", [64, 37])
def test_bool_tensors_in_out_and_whole_on_aie_sim(rows):
    kernel = kernel_from(BOOLS, "k")
    rng = np.random.default_rng(91 + rows)
    m = rng.random((rows, 64)) > 0.5
    x = rng.standard_normal((rows, 64)).astype(np.float32)
    keep = rng.random((8, 64)) > 0.3
    y, positive = kernel.compile(target="aie-sim", N=rows)(m, x, keep)
    expected = np.where(m, x, np.where(np.resize(keep, (rows + 7) // 8 * 8 * 64).reshape(-1, 64)[:rows], -x, 0.0))
    np.testing.assert_array_equal(y, expected)
    assert positive.dtype == np.bool_
    np.testing.assert_array_equal(positive, x > 0)
    cpu_y, cpu_positive = kernel.compile(target="cpu", N=rows)(m, x, keep)
    np.testing.assert_array_equal(y, cpu_y)
    np.testing.assert_array_equal(positive, cpu_positive)


def test_a_bool_tensor_travels_in_a_pack_of_bytes():
    design = kernel_from(BOOLS, "k").compile(target="aie-npu1", N=64).ir["aie"]
    # No FIFO of i1 objects (mlir-aie sizes buffer descriptors in bits): bytes, viewed as i1.
    assert not re.search(r"!aie\.objectfifo<memref<[0-9x]*xi1>>", design), design
    assert re.search(r"memref\.view %\w+\[%\w+\]\[\] : memref<\d+xi8> to memref<8x64xi1>", design), design


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
def test_a_bool_design_lowers_in_mlir_aie_to_core_code(tmp_path, target):
    compiled = kernel_from(BOOLS, "k").compile(target=target, N=64)
    _, cores = lowered_cores(tmp_path, compiled, target, count=2)
    for core_text in cores:
        assert re.search(r"llvm\.load .* -> i1\b", core_text) or re.search(r"llvm\.store .* : i1,", core_text), core_text[:3000]


BOOL_STREAMED = '''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, 64, 64], m: htp.Tensor[bool, 1024, 64], y: htp.Out[f32, 64, 64]):
    for i in range(0, 64, 16):
        acc = htp.zeros((16, 64), f32)
        for j in range(0, 1024, 16):
            acc = acc + htp.where(m[j:j + 16, :], x[i:i + 16, :], 0.0)
        y[i:i + 16, :] = acc
'''


def test_a_bool_tensor_streamed_over_an_inner_loop_travels_in_a_pack_on_aie_sim():
    # m (64 KiB of bools) does not fit a core: it streams over the j loop, 16 rows a trip, as bytes.
    kernel = kernel_from(BOOL_STREAMED, "k")
    rng = np.random.default_rng(910)
    x = rng.standard_normal((64, 64)).astype(np.float32)
    m = rng.random((1024, 64)) > 0.5
    compiled = kernel.compile(target="aie-sim")
    expected = np.zeros((64, 64))
    for i in range(0, 64, 16):
        expected[i:i + 16] = sum(np.where(m[j:j + 16], x[i:i + 16].astype(np.float64), 0.0) for j in range(0, 1024, 16))
    np.testing.assert_allclose(compiled(x, m), expected, rtol=1e-5, atol=1e-5)
    design = compiled.ir["aie"]
    assert not re.search(r"!aie\.objectfifo<memref<[0-9x]*xi1>>", design) and "@htp_inner_in" in design, design


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
def test_a_streamed_bool_design_lowers_in_mlir_aie(tmp_path):
    compiled = kernel_from(BOOL_STREAMED, "k").compile(target="aie-npu1")
    core_text = lowered_first_core(tmp_path, compiled, "aie-npu1")
    assert re.search(r"llvm\.load .* -> i1\b", core_text), core_text[:3000]


# A tensor moved whole whose bytes are not whole 32-bit words (37 x 70 i8) travels in a pack of
# bytes too (D91); 37 x 70 f16 is whole words but moves 518 elements at a time innermost.
ODD_WHOLE = '''
import htp
from htp import f32, f16, i8
@htp.kernel
def k(x: htp.Tensor[{T}, 37, 70], y: htp.Out[{T}, 70, 37]):
    for i in range(0, 37, 16):
        for j in range(0, 70, 32):
            y[j:j + 32, i:i + 16] = htp.transpose(x[i:i + 16, j:j + 32])
'''


@pytest.mark.parametrize("dtype", ["i8", "f16"])
def test_a_whole_tensor_of_odd_bytes_on_aie_sim(dtype):
    kernel = kernel_from(ODD_WHOLE.format(T=dtype), "k")
    x = (np.random.default_rng(44).standard_normal((37, 70)) * 8).astype(np.int8 if dtype == "i8" else np.float16)
    np.testing.assert_array_equal(kernel.compile(target="aie-sim")(x), x.T)
    design = kernel.compile(target="aie-npu1").ir["aie"]
    # Run whole on one core: no HTP attribute of its loop (its distribution) left for mlir-aie to choke on.
    assert "htp." not in design and "#layout" not in design, design
    if dtype == "i8":
        assert "memref<37x70xi8>" not in design.split("aie.core(")[0].split("func.func")[0], design  # no FIFO of them
    else:
        assert "[1, 1, 5, 518][0, 2590, 518, 1]" in design, design


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("dtype", ["i8", "f16"])
def test_a_whole_tensor_of_odd_bytes_lowers_in_mlir_aie(tmp_path, dtype):
    compiled = kernel_from(ODD_WHOLE.format(T=dtype), "k").compile(target="aie-npu1")
    instructions, cores = lowered_cores(tmp_path, compiled, "aie-npu1")
    assert "llvm.func @core_" in cores[0]


# ------------------------------------------------------------------ column-major tensors (D95)

# A Fortran-order tensor's row block is a DMA window of each column's rows: the core's object holds
# the block column after column and the block function views it with strides [1, B]. x and y are
# column-major, z row-major, in one kernel.
COL_MAJOR = '''
import htp
from htp import f32, f16, bf16, i64, i32, i16, i8
@htp.kernel
def k(x: htp.Tensor[{T}, "N", {C}, htp.layout("col_major")], z: htp.Tensor[{T}, "N", {C}],
      y: htp.Out[{T}, "N", {C}, htp.layout("col_major")], N: htp.Const[int] = 64):
    for i in range(0, N, {B}):
        t = x[i:i + {B}, :]
        y[i:i + {B}, :] = t * t + z[i:i + {B}, :]
'''


def numpy_dtype(name):
    return {"f32": np.float32, "f16": np.float16, "bf16": getattr(ml_dtypes, "bfloat16", None), "i64": np.int64,
            "i32": np.int32, "i16": np.int16, "i8": np.int8}[name]


def small_values(shape, dtype):
    values = RNG.integers(-3, 4, size=shape) if dtype.startswith("i") else RNG.standard_normal(shape)
    return values.astype(numpy_dtype(dtype))


@pytest.mark.parametrize("dtype, rows, columns, block", [
    ("f32", 64, 32, 8), ("f32", 37, 70, 16), ("f16", 37, 70, 16), ("bf16", 40, 30, 8), ("i32", 5, 7, 2),
    ("i16", 100, 12, 4), ("i8", 37, 70, 16), ("i64", 37, 20, 8), ("f32", 4096, 8, 16)])
def test_column_major_tensors_move_by_row_block_on_aie_sim(dtype, rows, columns, block):
    if dtype == "bf16" and ml_dtypes is None:
        pytest.skip("ml_dtypes is needed for bf16 arrays")
    kernel = kernel_from(COL_MAJOR.format(T=dtype, C=columns, B=block), "k")
    x = np.asfortranarray(small_values((rows, columns), dtype))
    z = small_values((rows, columns), dtype)
    compiled = kernel.compile(target="aie-sim", N=rows)
    y = compiled(x, z)
    expected = (x.astype(np.float64) * x.astype(np.float64) + z.astype(np.float64)).astype(numpy_dtype(dtype))
    tolerance = {"f16": 1e-3, "bf16": 1e-2}.get(dtype, 1e-6)
    np.testing.assert_allclose(y.astype(np.float64), expected.astype(np.float64), rtol=tolerance, atol=tolerance)
    assert y.flags["F_CONTIGUOUS"]
    design = compiled.ir["aie"]
    # Each block's rows of every column (pitch: the host buffer's rows), viewed strided in the core.
    assert re.search(rf"strided<\[1, {block}\]>", design), design
    sequence = [line for line in design.splitlines() if "dma_memcpy_nd(%arg0" in line]
    inner = block * (2 if dtype == "i64" else 1)  # an i64 moves as a word pair
    assert sequence and all(f", {columns}, {inner}]" in line for line in sequence), sequence


def test_a_column_major_tensor_over_several_columns_repeats_its_window_per_trip():
    kernel = kernel_from(COL_MAJOR.format(T="f32", C=8, B=16), "k")
    compiled = kernel.compile(target="aie-npu1", N=4096)
    design = compiled.ir["aie"]
    windows = [line for line in design.splitlines() if "dma_memcpy_nd(%arg0" in line]
    assert len(windows) == 4, windows  # one a column of the array
    for window in windows:
        # [trips, cores, columns, rows]: the trip dimension strides over every core's block.
        trips, cores, columns, rows, stride, block_stride, pitch, one = (int(v) for v in re.search(
            r"\]\[(\d+), (\d+), (\d+), (\d+)\]\[(\d+), (\d+), (\d+), (\d+)\]", window).groups())
        assert (columns, rows, block_stride, pitch, one) == (8, 16, 16, 4096, 1), window
        assert stride == cores * 4 * 16 and trips * cores * 4 * 16 == 4096 and trips <= 64, window


INOUT_COL_MAJOR = '''
import htp
from htp import f32
@htp.kernel
def k(w: htp.Tensor[f32, 8, 24, htp.layout("col_major")], y: htp.InOut[f32, "N", 24, htp.layout("col_major")],
      N: htp.Const[int] = 64):
    for i in range(0, N, 8):
        y[i:i + 8, 4:20] = y[i:i + 8, 4:20] * w[:, 4:20] + 1.0
'''


@pytest.mark.parametrize("rows", [64, 40])
def test_a_column_major_in_out_tensor_and_a_column_major_broadcast_on_aie_sim(rows):
    # y comes in and goes out by row block (the columns a block leaves keep their values); w is read
    # whole by every block, its object viewed strided too.
    kernel = kernel_from(INOUT_COL_MAJOR, "k")
    w = np.asfortranarray(RNG.standard_normal((8, 24), dtype=np.float32))
    y0 = np.asfortranarray(RNG.standard_normal((rows, 24), dtype=np.float32))
    y = y0.copy(order="F")
    kernel.compile(target="aie-sim", N=rows)(w, y)
    expected = y0.copy()
    blocks = -(-rows // 8)
    weights = np.tile(w, (blocks, 1))[:rows]
    expected[:, 4:20] = y0[:, 4:20] * weights[:, 4:20] + 1.0
    np.testing.assert_allclose(y, expected, rtol=1e-6)


@pytest.mark.parametrize("dtype, columns, block, message", [
    ("i8", 70, 2, "take a multiple of 4 rows per block"),
    ("f16", 70, 1, "take a multiple of 2 rows per block"),
    ("f32", 1100, 4, "it has 1100 columns"),
])
def test_what_the_shim_dma_cannot_move_of_a_column_major_block_is_refused_at_the_parameter(dtype, columns, block, message):
    kernel = kernel_from(COL_MAJOR.format(T=dtype, C=columns, B=block), "k")
    with pytest.raises(htp.CompileError) as error:
        kernel.compile(target="aie-npu1", N=64)
    text = str(error.value)
    assert "'x' is column-major" in text and message in text, text
    assert ":5:" in text.splitlines()[0] or "def k(x" in text, text


def test_a_padded_column_major_tensor_has_a_host_program_placing_each_column(tmp_path):
    from test_aie import assert_host_compiles
    compiled = kernel_from(COL_MAJOR.format(T="f16", C=70, B=16), "k").compile(target="aie-npu1", N=37)
    root = compiled.write_package(str(tmp_path / "k"))
    host = open(os.path.join(root, "test.cpp")).read()
    # x and y: 70 columns of 37 rows at a pitch of 48 (three 16-row blocks).
    assert host.count("c * 48, ") == 3 and "x_tensor" in host and "y_tensor" in host, host
    assert_host_compiles(tmp_path, os.path.join(root, "test.cpp"))


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("dtype, rows, columns, block", [("f16", 37, 70, 16), ("f32", 4096, 8, 16), ("i8", 64, 32, 8)])
def test_column_major_designs_lower_in_mlir_aie_to_core_code(tmp_path, target, dtype, rows, columns, block):
    compiled = kernel_from(COL_MAJOR.format(T=dtype, C=columns, B=block), "k").compile(target=target, N=rows)
    instructions, cores = lowered_cores(tmp_path, compiled, target, count=1)
    assert "aiex.npu.dma_memcpy_nd" not in instructions
    assert "llvm.func" in cores[0]


# ------------------------------------------------------------------ run-time checks and rows chosen by data (D96, D97)

CHECKED = {
    # a gather along rows, blocks dealt to cores: the status joins the outputs in the memtile
    "gather along rows": '''
import htp
from htp import f32, i32
@htp.kernel
def k(x: htp.Tensor[f32, "N", 64], j: htp.Tensor[i32, "N", 8], y: htp.Out[f32, "N", 8], N: htp.Const[int] = 64):
    for i in range(0, N, 16):
        y[i:i + 16, :] = htp.gather(x[i:i + 16, :], j[i:i + 16, :], axis=1)
''',
    # an embedding: the table whole in every core, ids and rows by block
    "embedding": '''
import htp
from htp import f32, i32
@htp.kernel
def k(table: htp.Tensor[f32, 50, 32], ids: htp.Tensor[i32, "N", 1], y: htp.Out[f32, "N", 32], N: htp.Const[int] = 64):
    for i in range(0, N, 8):
        y[i:i + 8, :] = htp.gather(table, ids[i:i + 8, :], 0, 32)
''',
    # rows scattered by data: whole on one core, y in and out
    "scatter rows": '''
import htp
from htp import f32, i32
@htp.kernel
def k(x: htp.Tensor[f32, "N", 64], r: htp.Tensor[i32, "N", 1], y: htp.InOut[f32, 20, 64], N: htp.Const[int] = 37):
    for i in range(0, N, 16):
        htp.scatter(y, r[i:i + 16, :], 0, x[i:i + 16, :])
''',
}


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("form", list(CHECKED))
def test_designs_with_a_status_output_lower_in_mlir_aie_to_core_code(tmp_path, target, form):
    compiled = kernel_from(CHECKED[form], "k").compile(target=target)
    assert "@htp_status" in compiled.ir["aie"]
    instructions, cores = lowered_cores(tmp_path, compiled, target, count=1)
    assert "aiex.npu.dma_memcpy_nd" not in instructions
    # The check's store into the status object, no call of a runtime the core lacks.
    assert "htpRuntimeError" not in cores[0] and "llvm.store" in cores[0]


# ------------------------------------------------------------------ 3-D tensors: a batch loop over row-block loops (D98)

BATCHED = '''
import htp
from htp import f32, f16, bf16, i32, i16, i8
@htp.kernel
def k(x: htp.Tensor[{T}, "B", "N", {C}], w: htp.Tensor[{T}, 1, {C}], y: htp.Out[{T}, "B", "N", {C}]):
    for b in range(x.shape[0]):
        for i in range(0, x.shape[1], {R}):
            t = x[b, i:i + {R}, :]
            y[b, i:i + {R}, :] = t * w[:, :] - htp.row_max(t)
'''


@pytest.mark.parametrize("dtype, batches, rows, columns, block", [
    ("f32", 3, 37, 64, 16), ("f32", 4, 32, 32, 8), ("f16", 2, 5, 16, 4), ("bf16", 5, 20, 32, 8), ("i32", 3, 9, 8, 4),
    ("i8", 2, 40, 64, 16), ("f32", 17, 64, 16, 16)])
def test_3d_tensors_walked_by_batch_and_row_block_on_aie_sim(dtype, batches, rows, columns, block):
    # The batch loop and the row-block loop become one loop over every batch's row blocks, dealt
    # to the cores; each batch's ragged last block keeps its valid rows, and the host lays the
    # batches whole blocks apart (the padding rows never another batch's).
    if dtype == "bf16" and ml_dtypes is None:
        pytest.skip("ml_dtypes is needed for bf16 arrays")
    kernel = kernel_from(BATCHED.format(T=dtype, C=columns, R=block), "k")
    x = small_values((batches, rows, columns), dtype)
    w = small_values((1, columns), dtype)
    compiled = kernel.compile(target="aie-sim")
    y = compiled(x, w)
    wide = x.astype(np.float64)
    blocks = [wide[:, i:i + block, :] for i in range(0, rows, block)]
    maxima = np.concatenate([np.repeat(b.max(axis=2, keepdims=True), 1, axis=2) for b in blocks], axis=1)
    expected = (wide * w.astype(np.float64) - maxima).astype(numpy_dtype(dtype))
    tolerance = {"f16": 1e-3, "bf16": 1e-2}.get(dtype, 1e-6)
    np.testing.assert_allclose(y.astype(np.float64), expected.astype(np.float64), rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(y.astype(np.float64), kernel.compile(target="cpu")(x, w).astype(np.float64), rtol=tolerance, atol=tolerance)
    per_batch = -(-rows // block)
    assert compiled.metrics(x, w)["cores"] == min(16, max(1, compiled.metrics(x, w)["cores"]))
    assert compiled.metrics(x, w)["cores"] >= (2 if batches * per_batch >= 2 else 1)


def batched_with_constants(**fields):
    """BATCHED with B and N as compile-time constants (what the NPU targets need)."""
    source = BATCHED.format(**fields)
    return source.replace('y: htp.Out[{0}, "B", "N", {1}]):'.format(fields["T"], fields["C"]),
                          'y: htp.Out[{0}, "B", "N", {1}], B: htp.Const[int] = 2, N: htp.Const[int] = 32):'.format(fields["T"], fields["C"]))


def test_a_3d_design_lays_each_batch_whole_blocks_apart(tmp_path):
    from test_aie import assert_host_compiles
    compiled = kernel_from(batched_with_constants(T="f32", C=64, R=16), "k").compile(target="aie-npu1", B=3, N=37)
    design = compiled.ir["aie"]
    # 3 batches of 48 rows (37 and a padded block), 9 blocks in one loop.
    assert re.search(r"aie\.runtime_sequence\(%\w+: memref<\d+xf32>", design), design
    root = compiled.write_package(str(tmp_path / "k"))
    host = open(os.path.join(root, "test.cpp")).read()
    # Each batch's 37 x 64 elements at a pitch of 48 x 64.
    assert "c * 3072, x_tensor.data() + c * 2368" in host and "y_tensor.data() + c * 2368, buf_y + c * 3072" in host, host
    assert_host_compiles(tmp_path, os.path.join(root, "test.cpp"))


IN_OUT_3D = '''
import htp
from htp import f32
@htp.kernel
def k(y: htp.InOut[f32, 2, 24, 32]):
    for b in range(2):
        for i in range(0, 24, 8):
            y[b, i:i + 8, 0:16] = y[b, i:i + 8, 0:16] * 2.0
'''


def test_a_3d_in_out_tensor_keeps_what_its_blocks_do_not_write_on_aie_sim():
    kernel = kernel_from(IN_OUT_3D, "k")
    y0 = RNG.standard_normal((2, 24, 32)).astype(np.float32)
    y = y0.copy()
    kernel.compile(target="aie-sim")(y)
    expected = y0.copy()
    expected[:, :, 0:16] *= 2.0
    np.testing.assert_array_equal(y, expected)


def test_a_3d_tensor_not_walked_by_the_batch_and_the_blocks_is_refused_at_its_parameter():
    source = batched_with_constants(T="f32", C=64, R=16).replace("t = x[b, i:i + 16, :]", "t = x[0, i:i + 16, :]")
    kernel = kernel_from(source, "k")
    with pytest.raises(htp.CompileError) as info:
        kernel.compile(target="aie-npu1", B=2, N=32)
    assert "the aie targets move 2-D tensors" in str(info.value) and ":5:7:" in str(info.value).splitlines()[0], str(info.value)


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
def test_a_3d_design_lowers_in_mlir_aie_to_core_code(tmp_path, target):
    compiled = kernel_from(batched_with_constants(T="bf16", C=64, R=16), "k").compile(target=target, B=3, N=37)
    instructions, cores = lowered_cores(tmp_path, compiled, target, count=1)
    assert "aiex.npu.dma_memcpy_nd" not in instructions
    assert "vector<" in cores[0] or "llvm.func" in cores[0]


PACKED_3D = {
    # three 3-D inputs streamed by block: more than a core's two input channels, so their blocks
    # travel in one pack, which the host fills batch by batch (each batch whole blocks apart)
    "three streamed": ('''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, "B", "N", 32], z: htp.Tensor[f32, "B", "N", 32], u: htp.Tensor[f32, "B", "N", 32],
      y: htp.Out[f32, "B", "N", 32]):
    for b in range(x.shape[0]):
        for i in range(0, x.shape[1], 8):
            y[b, i:i + 8, :] = x[b, i:i + 8, :] + z[b, i:i + 8, :] * u[b, i:i + 8, :]
''', lambda x, z, u: x + z * u, 3),
    # a 2-D tensor read at the batch's row: not a block's rows (with several blocks a batch), so
    # the kernel runs on one core, every tensor whole (in packs)
    "bias per batch, one core": ('''
import htp
from htp import f32
@htp.kernel
def k(x: htp.Tensor[f32, "B", "N", 32], bias: htp.Tensor[f32, "B", 32], y: htp.Out[f32, "B", "N", 32]):
    for b in range(x.shape[0]):
        for i in range(0, x.shape[1], 8):
            y[b, i:i + 8, :] = x[b, i:i + 8, :] + bias[b:b + 1, :]
''', lambda x, bias: x + bias[:, None, :], 1),
}


@pytest.mark.parametrize("form", list(PACKED_3D))
@pytest.mark.parametrize("batches, rows", [(3, 13), (2, 16), (4, 5)])
def test_3d_tensors_in_packs_on_aie_sim(form, batches, rows):
    source, reference, inputs = PACKED_3D[form]
    kernel = kernel_from(source, "k")
    gen = np.random.default_rng(98)
    arguments = [gen.standard_normal((batches, rows, 32)).astype(np.float32) for _ in range(inputs)]
    if inputs == 1:
        arguments.append(gen.standard_normal((batches, 32)).astype(np.float32))
    compiled = kernel.compile(target="aie-sim")
    np.testing.assert_allclose(compiled(*arguments), reference(*arguments), rtol=1e-6, atol=1e-6)
    # (A batch of one block reads the bias at its block's row: the blocks are dealt to cores then.)
    on_one_core = "one core" in form and rows > 8
    assert on_one_core == (compiled.metrics(*arguments)["cores"] == 1)


def test_a_packed_3d_design_has_a_host_program_placing_each_batch(tmp_path):
    from test_aie import assert_host_compiles
    source = PACKED_3D["three streamed"][0].replace('y: htp.Out[f32, "B", "N", 32]):', 'y: htp.Out[f32, "B", "N", 32], B: htp.Const[int] = 3, N: htp.Const[int] = 13):')
    compiled = kernel_from(source, "k").compile(target="aie-npu1")
    root = compiled.write_package(str(tmp_path / "k"))
    host = open(os.path.join(root, "test.cpp")).read()
    # x, z and u in one pack, each part's copies a table (a batch's 13 rows at 16-row strides).
    assert "x_copies[][3]" in host and "z_copies[][3]" in host and "u_copies[][3]" in host, host
    assert_host_compiles(tmp_path, os.path.join(root, "test.cpp"))


# A batch's whole matrix per block (D99): `w[h, :, :]` is read at rows h * K of a 2-D tensor every
# core holds whole; a batch loop alone is the block loop (a block a batch).
BATCH_MATRICES = {
    "batched matmul": ('''
import htp
from htp import f32, bf16
@htp.kernel
def k(a: htp.Tensor[{T}, "B", "M", 64], w: htp.Tensor[{T}, "B", 64, 32], c: htp.Out[f32, "B", "M", 32]):
    for h in range(a.shape[0]):
        for i in range(0, a.shape[1], 16):
            c[h, i:i + 16, :] = htp.pad(a[h, i:i + 16, :], 0.0) @ w[h, :, :]
''', lambda a, w: np.matmul(a, w)),
    "a block a batch": ('''
import htp
from htp import f32, bf16
@htp.kernel
def k(a: htp.Tensor[{T}, "B", 16, 64], w: htp.Tensor[{T}, "B", 64, 32], c: htp.Out[f32, "B", 16, 32]):
    for h in range(a.shape[0]):
        c[h, :, :] = a[h, :, :] @ w[h, :, :] + 1.0
''', lambda a, w: np.matmul(a, w) + 1.0),
}


@pytest.mark.parametrize("form", list(BATCH_MATRICES))
@pytest.mark.parametrize("dtype, batches, rows", [("f32", 3, 37), ("f32", 5, 16), ("bf16", 2, 40)])
def test_a_batch_s_whole_matrix_per_block_on_aie_sim(form, dtype, batches, rows):
    if dtype == "bf16" and ml_dtypes is None:
        pytest.skip("ml_dtypes is needed for bf16 arrays")
    source, reference = BATCH_MATRICES[form]
    rows = 16 if form == "a block a batch" else rows
    kernel = kernel_from(source.format(T=dtype), "k")
    a = small_values((batches, rows, 64), dtype)
    w = small_values((batches, 64, 32), dtype)
    compiled = kernel.compile(target="aie-sim")
    wide = reference(a.astype(np.float64), w.astype(np.float64))
    np.testing.assert_allclose(compiled(a, w), wide, rtol=1e-5, atol=1e-4)
    assert compiled.metrics(a, w)["cores"] > 1


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("form", list(BATCH_MATRICES))
def test_a_batch_s_whole_matrix_design_lowers_in_mlir_aie(tmp_path, target, form):
    source = BATCH_MATRICES[form][0].format(T="bf16").replace('"B"', "3").replace('"M"', "48")
    compiled = kernel_from(source, "k").compile(target=target)
    instructions, cores = lowered_cores(tmp_path, compiled, target, count=1)
    assert "aiex.npu.dma_memcpy_nd" not in instructions and "llvm.func" in cores[0]
