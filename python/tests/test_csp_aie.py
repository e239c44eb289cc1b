"""CSP programs on AIE (docs/csp.md, "CSP on AIE"): a program is an mlir-aie design, each computing
process a core per replica, each channel an object FIFO of its depth between tiles (core to core, or to
a shim for a process that only loads or stores), what a core reads whole a broadcast FIFO
(htp-conversion-csp-to-aie). Run in HTP's AIE simulator (aie-sim) and compared with numpy and the cpu;
the designs' structure, metrics and every refusal are checked; with HTP_AIE_OPT (an aie-opt of the
pinned mlir-aie) every design verifies in mlir-aie too (skipped, visibly, otherwise)."""

import importlib.util
import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

import htp
from sources import kernel_from

PRELUDE = "import htp\nimport numpy as np\nfrom htp import f32, i64, i32, bf16\ncsp = htp.model('csp')\n"
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "csp"


def example(name):
    spec = importlib.util.spec_from_file_location(f"csp_aie_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DATAFLOW = example("dataflow_on_aie")
RNG = np.random.default_rng(7)


def program(source, name="p"):
    return kernel_from(PRELUDE + source, name)


# ------------------------------------------------------------------ the examples, on aie-sim

@pytest.mark.parametrize("m, k, n", [(256, 64, 64), (64, 32, 32), (128, 16, 128)])
def test_gemm_feeding_silu_through_a_core_to_core_fifo(m, k, n):
    a = RNG.standard_normal((m, k), dtype=np.float32) * 0.2
    b = RNG.standard_normal((k, n), dtype=np.float32) * 0.2
    compiled = DATAFLOW.gemm_silu.compile(target="aie-sim", M=m, K=k, N=n)
    y = compiled(a, b)
    np.testing.assert_allclose(y, DATAFLOW.gemm_silu_reference(a, b), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(y, DATAFLOW.gemm_silu(a, b, M=m, K=k, N=n), rtol=1e-5, atol=1e-6)
    metrics = compiled.metrics(a, b)
    assert metrics["cores"] == 2 and metrics["core_to_core_fifos"] == 1 and metrics["shared_memory_fifos"] == 1
    # rows (2) + products (2) + results (2) + B broadcast (1)
    assert metrics["fifo_objects"] == 7


@pytest.mark.parametrize("workers, rows", [(1, 64), (2, 128), (4, 512), (3, 96), (6, 192)])
def test_fan_out_fan_in_over_replicated_workers(workers, rows):
    x = RNG.standard_normal((rows, 128), dtype=np.float32)
    compiled = DATAFLOW.gelu_workers.compile(target="aie-sim", R=rows, WORKERS=workers)
    np.testing.assert_allclose(compiled(x), DATAFLOW.gelu_reference(x), rtol=1e-4, atol=1e-5)
    assert compiled.metrics(x)["cores"] == workers


def test_the_example_runs():
    DATAFLOW.main()


# ------------------------------------------------------------------ programs as a user writes them

RMSNORM = '''
@csp.program
def p(x: htp.Tensor[f32, "N", "H"], w: htp.Tensor[f32, 1, "H"], y: htp.Out[f32, "N", "H"],
      N: htp.Const[int] = 64, H: htp.Const[int] = 128):
    loaded = csp.channel(f32, (8, H), depth={depth}, name="loaded")
    normed = csp.channel(f32, (8, H), depth={depth}, name="normed")
    with csp.process(name="loader"):
        for i in range(0, N, 8):
            csp.send(loaded, x[i:i + 8, :])
    with csp.process(name="computer"):
        weight = w[0:1, :]
        for i in range(0, N, 8):
            with csp.consume(loaded) as t:
                scale = htp.rsqrt(htp.row_sum(t * t) * (1.0 / H) + 1e-5)
                csp.send(normed, t * scale * weight)
    with csp.process(name="storer"):
        for i in range(0, N, 8):
            with csp.consume(normed) as t:
                y[i:i + 8, :] = t
'''


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_loader_computer_storer_with_a_weight(depth):
    p = program(RMSNORM.format(depth=depth))
    x = RNG.standard_normal((64, 128), dtype=np.float32)
    w = RNG.standard_normal((1, 128), dtype=np.float32)
    reference = x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + 1e-5) * w
    compiled = p.compile(target="aie-sim")
    np.testing.assert_allclose(compiled(x, w), reference, rtol=1e-4, atol=1e-5)
    text = p.compile(target="aie-npu1").ir["aie"]
    assert re.search(rf"aie.objectfifo @loaded\(%shim\w*, {{%tile_0_2}}, {depth} : i32\)", text), text
    assert re.search(rf"aie.objectfifo @normed\(%tile_0_2, {{%shim\w*}}, {depth} : i32\)", text), text
    assert re.search(r"aie.objectfifo @w\(%shim\w*, {%tile_0_2}, 1 : i32\) : !aie.objectfifo<memref<1x128xf32>>", text), text


SCALED = '''
@csp.program
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32], s: {dtype}):
    a = csp.channel(f32, (16, 32), depth=2, name="a")
    with csp.process(name="load"):
        for i in range(0, 64, 16):
            csp.send(a, x[i:i + 16, :])
    with csp.process(name="scale"):
        for i in range(0, 64, 16):
            y[i:i + 16, :] = csp.recv(a) * s
'''


@pytest.mark.parametrize("value", [0.5, -3.0])
def test_a_run_time_scalar_is_a_one_element_broadcast(value):
    p = program(SCALED.format(dtype="f32"))
    x = RNG.standard_normal((64, 32), dtype=np.float32)
    np.testing.assert_array_equal(p.compile(target="aie-sim")(x, s=value), x * np.float32(value))
    assert "memref<1x1xf32>" in p.compile(target="aie-npu1").ir["aie"]


def test_a_core_fed_by_more_fifos_than_its_dma_channels_is_refused_at_the_third():
    source = RMSNORM.replace("y: htp.Out[f32, \"N\", \"H\"],", "y: htp.Out[f32, \"N\", \"H\"], eps: f32,").replace("+ 1e-5)", "+ eps)")
    p = program(source.format(depth=2))
    with pytest.raises(htp.CompileError) as info:
        p.compile(target="aie-sim")
    message = str(info.value)
    assert "the design does not fit npu1: 'aie.objectfifo' op needs 3 input (S2MM) DMA channels on the compute tile (0, 2), which has 2" in message, message
    assert f".py:{PRELUDE.count(chr(10)) + 3}:" in message, message  # eps, the third FIFO into the core


@pytest.mark.parametrize("dtype", ["f32", "i32"])
def test_a_chain_of_cores_each_reading_its_own_blocks(dtype):
    source = '''
@csp.program
def p(x: htp.Tensor[{dtype}, 96, 64], y: htp.Out[{dtype}, 96, 64]):
    a = csp.channel({dtype}, (8, 64), depth=1, name="a")
    b = csp.channel({dtype}, (8, 64), depth=2, name="b")
    with csp.process(name="first"):
        for i in range(0, 96, 8):
            csp.send(a, x[i:i + 8, :] + {one})
    with csp.process(name="second"):
        for i in range(0, 96, 8):
            csp.send(b, csp.recv(a) * {two})
    with csp.process(name="third"):
        for i in range(0, 96, 8):
            y[i:i + 8, :] = csp.recv(b) - {one}
'''
    one, two = ("1.0", "2.0") if dtype == "f32" else ("1", "2")
    p = program(source.format(dtype=dtype, one=one, two=two))
    x = (RNG.standard_normal((96, 64)) * 10).astype(np.float32 if dtype == "f32" else np.int32)
    expected = (x + 1) * 2 - 1
    np.testing.assert_array_equal(p.compile(target="aie-sim")(x), expected)
    metrics = p.compile(target="aie-npu1").metrics(x)
    # Three cores in a column: the two FIFOs between them lie in memory both reach.
    assert metrics["cores"] == 3 and metrics["core_to_core_fifos"] == 2 and metrics["shared_memory_fifos"] == 2


INT64_CHAIN = '''
@csp.program
def p(x: htp.Tensor[i64, 64, 48], y: htp.Out[i64, 64, 48], s: int):
    a = csp.channel(i64, (8, 48), depth=2, name="a")
    with csp.process(name="scale"):
        for i in range(0, 64, 8):
            csp.send(a, x[i:i + 8, :] * s + 1)
    with csp.process(name="centre"):
        for i in range(0, 64, 8):
            t = csp.recv(a)
            y[i:i + 8, :] = t - htp.row_max(t)
'''


def test_i64_channels_and_an_int_scalar_between_cores():
    # i64 elements past 32 bits through a core-to-core FIFO and the shims (their words).
    p = program(INT64_CHAIN)
    x = RNG.integers(-2**40, 2**40, (64, 48))
    s = 2**21 + 3
    t = x * s + 1
    expected = t - t.max(axis=1, keepdims=True)
    np.testing.assert_array_equal(p.compile(target="aie-sim")(x, s=s), expected)
    np.testing.assert_array_equal(p(x, s=s), expected)


def test_column_blocks_move_with_a_strided_window():
    p = program('''
@csp.program
def p(x: htp.Tensor[f32, 32, 256], y: htp.Out[f32, 32, 128]):
    a = csp.channel(f32, (8, 128), depth=2, name="a")
    with csp.process(name="right_half"):
        for i in range(0, 32, 8):
            csp.send(a, x[i:i + 8, 128:256])
    with csp.process(name="double"):
        for i in range(0, 32, 8):
            y[i:i + 8, :] = csp.recv(a) * 2.0
''')
    x = RNG.standard_normal((32, 256), dtype=np.float32)
    np.testing.assert_array_equal(p.compile(target="aie-sim")(x), x[:, 128:] * 2.0)
    text = p.compile(target="aie-npu1").ir["aie"]
    # Four blocks of 8 rows x 128 columns, starting at column 128, 8 rows of 256 apart.
    assert "[0, 0, 0, 128][1, 4, 8, 128][0, 2048, 256, 1]" in text, text


def test_a_single_process_is_a_core_with_its_blocks_streamed():
    p = program('''
@csp.program
def p(x: htp.Tensor[f32, 64, 32], w: htp.Tensor[f32, 1, 32], y: htp.Out[f32, 64, 32]):
    with csp.process(name="only"):
        for i in range(0, 64, 16):
            y[i:i + 16, :] = htp.exp(x[i:i + 16, :]) + w[0:1, :]
''')
    x = RNG.standard_normal((64, 32), dtype=np.float32)
    w = RNG.standard_normal((1, 32), dtype=np.float32)
    np.testing.assert_allclose(p.compile(target="aie-sim")(x, w), np.exp(x) + w, rtol=1e-5, atol=1e-6)


NEST = '''
@csp.program
def p(x: htp.Tensor[f32, 64, 128], y: htp.Out[f32, 64, 128]):
    a = csp.channel(f32, (16, 32), depth=2, name="a")
    b = csp.channel(f32, (16, 32), depth=2, name="b")
    with csp.process(name="load"):
        for i in range(0, 64, 16):
            for j in range(0, 128, 32):
                csp.send(a, x[i:i + 16, j:j + 32])
    with csp.process(name="work"):
        for i in range(0, 64, 16):
            for j in range({first}, 128, 32):
                csp.send(b, csp.recv(a) * 2.0 + htp.f32(j))
    with csp.process(name="store"):
        for i in range(0, 64, 16):
            for j in range(0, 128, 32):
                y[i:i + 16, j:j + 32] = csp.recv(b)
'''


def test_loop_nests_walk_blocks_in_two_dimensions():
    p = program(NEST.format(first=0))
    x = RNG.standard_normal((64, 128), dtype=np.float32)
    expected = x * 2.0 + (np.arange(128) // 32 * 32)[None, :]
    np.testing.assert_allclose(p.compile(target="aie-sim")(x), expected, rtol=1e-6)
    text = p.compile(target="aie-npu1").ir["aie"]
    # Four row blocks (2048 elements apart) of four column blocks (32 apart), each 16 rows of 32.
    assert "[0, 0, 0, 0][4, 4, 16, 32][2048, 32, 128, 1]" in text, text


PAIRS = '''
@csp.program
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 32, 32]):
    a = csp.channel(f32, (8, 32), depth={depth}, name="a")
    with csp.process(name="load"):
        for i in range(0, 64, 8):
            csp.send(a, x[i:i + 8, :])
    with csp.process(name="add"):
        for i in range(0, 32, 8):
            first = csp.recv(a)
            second = csp.recv(a)
            y[i:i + 8, :] = first + second * 10.0
'''


def test_a_core_takes_several_objects_of_a_fifo_per_iteration():
    p = program(PAIRS.format(depth=2))
    x = RNG.standard_normal((64, 32), dtype=np.float32)
    expected = np.concatenate([x[16 * k:16 * k + 8] + x[16 * k + 8:16 * k + 16] * 10.0 for k in range(4)])
    np.testing.assert_allclose(p.compile(target="aie-sim")(x), expected, rtol=1e-6)
    assert "aie.objectfifo.acquire @a(Consume, 2)" in p.compile(target="aie-npu1").ir["aie"]
    with pytest.raises(htp.CompileError) as info:
        program(PAIRS.format(depth=1)).compile(target="aie-sim")
    assert "this is object 2 of 'a' a core takes per iteration, more than its depth 1" in str(info.value), str(info.value)


def test_replicas_spill_over_columns_on_npu2():
    source = '''
@csp.program
def p(x: htp.Tensor[f32, "R", 32], y: htp.Out[f32, "R", 32], R: htp.Const[int] = 160, W: htp.Const[int] = 10):
    for w in csp.processes(W, name="worker"):
        for i in range(w * 16, R, 16 * W):
            y[i:i + 16, :] = x[i:i + 16, :] * 3.0
'''
    p = program(source)
    x = RNG.standard_normal((160, 32), dtype=np.float32)
    text = p.compile(target="aie-npu2").ir["aie"]
    assert "aie.tile(2, 3)" in text  # ten cores: columns 0, 1 full, 2 of column 2
    assert p.compile(target="aie-npu2").metrics(x)["columns"] == 3


def test_the_cpu_runs_the_same_programs():
    a = RNG.standard_normal((256, 64), dtype=np.float32) * 0.2
    b = RNG.standard_normal((64, 64), dtype=np.float32) * 0.2
    np.testing.assert_allclose(DATAFLOW.gemm_silu(a, b), DATAFLOW.gemm_silu_reference(a, b), rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------ refusals, at the user's line

ERRORS = {
    "cut block": ('''
@csp.program
def p(x: htp.Tensor[f32, 20, 32], y: htp.Out[f32, 20, 32]):
    a = csp.channel(f32, (8, 32), depth=1, name="a", pad=0.0)
    with csp.process(name="load"):
        for i in range(0, 20, 8):
            csp.send(a, x[i:i + 8, :])
    with csp.process(name="use"):
        for i in range(0, 20, 8):
            t = csp.recv(a)
            y[i:i + 8, :] = t * 2.0
''', "csp.send(a, x[i:i + 8, :])", "this block is cut by the tensor's edge (4 of its 8 rows): the AIE targets move whole blocks"),
    "symbolic shape": ('''
@csp.program
def p(x: htp.Tensor[f32, "N", 32], y: htp.Out[f32, "N", 32]):
    with csp.process(name="only"):
        for i in range(0, x.shape[0], 8):
            y[i:i + 8, :] = x[i:i + 8, :] * 2.0
''', "def p(", "the aie targets need 2-D tensors of static shape (give dimensions as htp.Const)"),
    "cycle": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32]):
    there = csp.channel(f32, (8, 32), depth=2, name="there")
    back = csp.channel(f32, (8, 32), depth=2, name="back")
    with csp.process(name="ping"):
        for i in range(0, 32, 8):
            csp.send(there, x[i:i + 8, :] * 2.0)
            y[i:i + 8, :] = csp.recv(back)
    with csp.process(name="pong"):
        for i in range(0, 32, 8):
            csp.send(back, csp.recv(there) + 1.0)
''', 'there = csp.channel', "the cores' channels form a cycle ('ping' --there--> 'pong' --back--> 'ping')"),
    "too many cores": ('''
@csp.program
def p(x: htp.Tensor[f32, 320, 32], y: htp.Out[f32, 320, 32]):
    for w in csp.processes(20, name="worker"):
        for i in range(w * 16, 320, 320):
            y[i:i + 16, :] = x[i:i + 16, :] * 3.0
''', "for w in csp.processes(20", "the program runs 20 cores (a core per replica of each computing process), more than the 16 compute tiles of npu1"),
    "a channel under a branch": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32]):
    a = csp.channel(f32, (8, 32), depth=2, name="a")
    with csp.process(name="load"):
        for i in range(0, 32, 8):
            csp.send(a, x[i:i + 8, :])
    with csp.process(name="use"):
        for i in range(0, 32, 8):
            if i < 64:
                y[i:i + 8, :] = csp.recv(a) * 2.0
''', "y[i:i + 8, :] = csp.recv(a) * 2.0", "this channel operation of 'use' is under a branch or an inner loop"),
    "blocks read in an inner loop": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 32]):
    with csp.process(name="sum"):
        for i in range(0, 32, 8):
            acc = x[i:i + 8, 0:32]
            for k in range(32, 64, 32):
                acc = acc + x[i:i + 8, k:k + 32]
            y[i:i + 8, :] = acc
''', "acc = acc + x[i:i + 8, k:k + 32]", "reads a tensor at places that change with its loop under a branch or an inner loop"),
    "a nest whose inner bounds change": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32]):
    for w in csp.processes(1, name="only"):
        for i in range(0, 32, 8):
            for j in range(i // 8, 4, 4):
                y[i:i + 8, :] = x[i:i + 8, :] * 2.0
''', "for j in range(i // 8, 4, 4):", "this loop's bounds change with the loops around it: on the AIE targets a core runs a rectangular loop nest"),
    "two channels from a copy": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32]):
    a = csp.channel(f32, (8, 32), depth=2, name="a")
    with csp.process(name="load"):
        for i in range(0, 32, 8):
            csp.send(a, x[i:i + 8, :])
    with csp.process(name="store"):
        for i in range(0, 32, 8):
            y[i:i + 8, :] = csp.recv(a)
''', 'a = csp.channel', "'a' joins two processes that only move data (a tensor copied to a tensor)"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
@pytest.mark.parametrize("target", ["aie-sim", "aie-npu1"])
def test_what_a_design_cannot_express_is_refused_at_its_line(case, target):
    source, mark, text = ERRORS[case]
    p = program(source)
    with pytest.raises(htp.CompileError) as info:
        p.compile(target=target)
    message = str(info.value)
    assert text in message, message
    line = PRELUDE.count("\n") + next(i for i, t in enumerate(source.split("\n"), 1) if mark in t)
    assert f".py:{line}:" in message, message


def test_a_network_that_deadlocks_at_depth_one_is_refused_before_the_design():
    p = program('''
@csp.program
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32]):
    first = csp.channel(f32, (8, 32), depth=1, name="first")
    second = csp.channel(f32, (8, 32), depth=1, name="second")
    with csp.process(name="producer"):
        for i in range(0, 32, 8):
            csp.send(first, x[i:i + 8, :] * 2.0)
            csp.send(first, x[i:i + 8, :] * 3.0)
            csp.send(second, x[i:i + 8, :])
    with csp.process(name="consumer"):
        for i in range(0, 32, 8):
            t = csp.recv(second)
            y[i:i + 8, :] = csp.recv(first) + csp.recv(first) + t
''')
    with pytest.raises(htp.CompileError) as info:
        p.compile(target="aie-sim")
    assert "deadlock" in str(info.value), str(info.value)


# ------------------------------------------------------------------ mlir-aie's aie-opt

@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("name", ["gemm_silu", "gelu_workers"])
def test_designs_verify_in_mlir_aie(tmp_path, target, name):
    tool = os.environ.get("HTP_AIE_OPT")
    if not tool:
        pytest.skip("HTP_AIE_OPT (an aie-opt of mlir-aie 3ca0193c) is not set")
    root = pathlib.Path(getattr(DATAFLOW, name).compile(target=target).write_package(tmp_path / name))
    result = subprocess.run([tool, str(root / "aie.mlir")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "aie.runtime_sequence(" in result.stdout


@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("name", ["gemm_silu", "gelu_workers"])
def test_designs_lower_through_mlir_aie_to_npu_instructions(tmp_path, target, name):
    lower_through_mlir_aie(tmp_path, getattr(DATAFLOW, name).compile(target=target), target)


@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
def test_an_i64_design_lowers_through_mlir_aie(tmp_path, target):
    # i64 objects between cores and to the shims; the host buffers are their 32-bit words.
    compiled = program(INT64_CHAIN).compile(target=target)
    assert "memref<6144xi32>" in compiled.ir["aie"] and "memref<2xi32>" in compiled.ir["aie"]
    cores = lower_through_mlir_aie(tmp_path, compiled, target)
    assert any(re.search(r"llvm\.mul .* : i64", core) for core in cores)


def lower_through_mlir_aie(tmp_path, compiled, target):
    """aiecc's physical passes (object FIFOs -> locks, buffers, DMAs; routing), then the runtime
    sequence to NPU instructions, and each core to LLVM: core-to-core and shim FIFOs alike. Returns
    the cores' LLVM text."""
    from test_aie import AIECC_NPU_INSTRUCTIONS, aiecc_core, aiecc_physical

    tool = os.environ.get("HTP_AIE_OPT")
    if not tool:
        pytest.skip("HTP_AIE_OPT (an aie-opt of mlir-aie 3ca0193c) is not set")
    root = pathlib.Path(compiled.write_package(tmp_path / "design"))
    arch = "aie2p" if target == "aie-npu2" else "aie2"
    physical = tmp_path / "physical.mlir"
    result = subprocess.run([tool, f"--pass-pipeline={aiecc_physical(arch)}", "-o", str(physical), str(root / "aie.mlir")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    text = physical.read_text()
    assert "aie.lock(" in text and "aie.switchbox(" in text, text[:2000]
    result = subprocess.run([tool, f"--pass-pipeline={AIECC_NPU_INSTRUCTIONS}", str(physical)], capture_output=True, text=True)
    assert result.returncode == 0 and "aiex.npu.address_patch" in result.stdout, result.stderr
    cores = []
    for column, row in sorted(set(re.findall(r"aie\.core\(%tile_(\d+)_(\d+)\)", text))):
        result = subprocess.run([tool, f"--pass-pipeline={aiecc_core(arch, column, row)}", str(physical)], capture_output=True, text=True)
        assert result.returncode == 0 and "llvm.func @core_" in result.stdout, result.stderr[:2000]
        cores.append(result.stdout)
    return cores


CHECKED_GATHER = '''
@csp.program
def p(x: htp.Tensor[f32, 64, 64], j: htp.Tensor[i32, 64, 8], y: htp.Out[f32, 64, 8]):
    rows = csp.channel(f32, (8, 64), depth=2, name="rows")
    with csp.process(name="loader"):
        for i in range(0, 64, 8):
            csp.send(rows, x[i:i + 8, :])
    with csp.process(name="picker"):
        for i in range(0, 64, 8):
            with csp.consume(rows) as t:
                y[i:i + 8, :] = htp.gather(t, j[i:i + 8, :], axis=1)
'''


@pytest.mark.parametrize("target", ["aie-sim", "aie-npu1"])
def test_a_checked_gather_in_a_process_is_refused_at_its_line(target):
    # A kernel reports a failed index check in its blocks' status output (D96); a CSP design has
    # none, so a process that checks indices at run time is refused where it checks; the cpu runs it.
    p = program(CHECKED_GATHER)
    with pytest.raises(htp.CompileError) as info:
        p.compile(target=target)
    message = str(info.value)
    assert "checks its indices at run time" in message and "a CSP process on AIE has no status output" in message, message
    assert re.search(r"\.py:15:33: error", message), message  # the PRELUDE is 4 lines
    x = RNG.standard_normal((64, 64), dtype=np.float32)
    j = RNG.integers(0, 64, size=(64, 8)).astype(np.int32)
    np.testing.assert_array_equal(p.compile(target="cpu")(x, j), np.take_along_axis(x, j, 1))
