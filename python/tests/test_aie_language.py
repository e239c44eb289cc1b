"""The kernel language on AIE (issue 28, part 1): the tile ops and element types a row-block kernel
uses, run in HTP's AIE simulator (aie-sim) and compared with numpy and the cpu target. The cores'
block functions are lowered by the same tile -> linalg -> loops passes for every op, so each op is
listed in the AIE targets' capabilities once a case here runs it; what the hardware forbids stays a
refusal at the user's line (test_aie.py)."""

import math
import os

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

ROWS = '''
import htp
from htp import f32, f16, bf16, i32, i16, i8
@htp.kernel
def k(x: htp.Tensor[{T}, 64, 32], z: htp.Tensor[{T}, 64, 32], y: htp.Out[{T}, 64, 32]):
    for i in range(0, 64, 8):
        t = x[i:i + 8, :]
        u = z[i:i + 8, :]
        y[i:i + 8, :] = {EXPR}
'''

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
    return {"f16": np.float16, "i32": np.int32, "i16": np.int16, "i8": np.int8}[dtype]


@pytest.mark.parametrize("dtype", ["f16", "bf16", "i32", "i16", "i8"])
@pytest.mark.parametrize("expr", ["t + u", "t * u - u", "htp.maximum(t, u) - u", "htp.where(t > u, t, u)", "htp.minimum(t, u)"])
def test_element_types_on_aie_sim_match_the_cpu(dtype, expr):
    kernel = kernel_from(ROWS.format(T=dtype, EXPR=expr), "k")
    scale = 4 if dtype.startswith("i") else 1
    x = (RNG.standard_normal((64, 32)) * scale).astype(numpy_type(dtype))
    z = (RNG.standard_normal((64, 32)) * scale).astype(numpy_type(dtype))
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
