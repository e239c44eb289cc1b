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
import re
import shutil
import subprocess
import textwrap

import numpy as np
import pytest

import htp
from htp import f32
from sources import kernel_from

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - numpy's own dtypes only
    ml_dtypes = None
from test_errors import assert_points_at

AIE_EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "aie"
NAMES = ["vector_add", "softmax", "rmsnorm"]  # the row kernels; GEMM below
TARGETS = {"aie-npu1": "npu1", "aie-npu2": "npu2"}
COLUMNS = {"npu1": 4, "npu2": 8}


def expected_cores(blocks, streamed_inputs, columns):
    """D58: `columns x per_column` cores, per_column <= 4 and within the memtile's 6 channels each
    way (one output): the fewest blocks per core, then the fewest cores, then the fewest columns."""
    fits = [(-(-blocks // (c * n)), c * n, c) for c in range(1, columns + 1) for n in range(1, 5)
            if streamed_inputs * n + 1 <= 6 and streamed_inputs + n <= 6]
    return min(fits)[1]


# Row blocks and streamed inputs of each example at its default shapes.
BLOCKS = {"vector_add": (1024 // 8, 2), "softmax": (128 // 8, 1), "rmsnorm": (256 // 4, 1)}
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
    assert kernel.ir["aie"].count("aie.core(") == expected_cores(*BLOCKS[name], COLUMNS["npu1"])
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
    assert design.count("aie.core(") == manifest["cores"] == expected_cores(*BLOCKS[name], COLUMNS[TARGETS[target]])
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
    assert ("parameter 'a' has type memref<?x256xf32>, a dimension known only at run time; an aie-npu design moves static "
            "shapes (give dimensions as htp.Const; aie-sim builds a design for each call's sizes)") in str(error)
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
    # Not dealt to cores; whole on one core, a (256 x 256) is too large for one transfer.
    assert "parameter 'a' is moved whole to the core and too large to move to a core in one transfer (65536 elements)" in str(error)
    assert "because at /tmp/htp_aie_user.py:5:25: parameter 'a' is accessed at rows other than the block's own" in str(error)
    assert_points_at(error, "htp_aie_user.py", 2)


def test_a_block_reading_its_neighbours_rows_runs_whole_on_one_core():
    kernel = user_kernel(textwrap.dedent('''\
        @htp.kernel
        def k(a: htp.Tensor[f32, "N", 64], c: htp.Out[f32, "N", 64], N: htp.Const[int] = 64):
            for i in range(0, N - 8, 8):
                j = i + 8
                c[i:i + 8, :] = a[j:j + 8, :]
            c[N - 8:N, :] = a[0:8, :]
        '''))
    a = rng.standard_normal((64, 64), dtype=np.float32)
    compiled = kernel.compile(target="aie-sim")
    assert compiled.ir["aie"].count("aie.core(") == 1
    np.testing.assert_array_equal(compiled(a), np.roll(a, -8, axis=0))


def test_three_streamed_inputs_travel_in_one_pack():
    # More streamed inputs than a shim's and a core's 2 DMA channels: one FIFO carries a block of
    # each (D85); the host packs them.
    kernel = kernel_from(textwrap.dedent('''\
        import htp
        from htp import f32
        @htp.kernel
        def k(a: htp.Tensor[f32, "N", 256], b: htp.Tensor[f32, "N", 256], d: htp.Tensor[f32, "N", 256],
              c: htp.Out[f32, "N", 256], N: htp.Const[int] = 256):
            for i in range(0, N, 4):
                c[i:i + 4, :] = a[i:i + 4, :] + b[i:i + 4, :] + d[i:i + 4, :]
        '''), "k")
    rng = np.random.default_rng(3)
    a, b, d = (rng.standard_normal((256, 256), dtype=np.float32) for _ in range(3))
    compiled = kernel.compile(target="aie-sim")
    np.testing.assert_array_equal(compiled(a, b, d), a + b + d)
    assert compiled.ir["aie"].count("aie.objectfifo @htp_in_c0(") == 1
    metrics = compiled.metrics(a, b, d)
    assert metrics["core_dma_inputs"] == 1 and metrics["shim_bytes_in"] == 3 * a.nbytes


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
    assert metrics["cores"] == 8 and metrics["columns"] == 4 and metrics["shim_bytes_in"] == 2 * a.nbytes and metrics["shim_bytes_out"] == a.nbytes
    assert metrics["core_memory_bytes"] <= metrics["core_memory_capacity"] == 65536
    assert metrics["core_locks"] == 6 and metrics["core_dma_descriptors"] == 6  # a, b, c: 2 objects each
    rmsnorm = EXAMPLES["rmsnorm"].rmsnorm.compile(target="aie-npu1").metrics(*inputs("rmsnorm"))
    assert rmsnorm["core_dma_descriptors"] == 5  # x and y: 2 objects each; the weights: 1


def test_the_cycle_model_counts_vector_and_scalar_work_per_core():
    # vector_add: one 16-lane f32 add per 16 elements of a 32 x 256 block, and no scalar work;
    # its cores wait on their DMAs (4 bytes a cycle a channel), not on the vector unit.
    a = np.zeros((1024, 256), np.float32)
    add = EXAMPLES["vector_add"].vector_add.compile(target="aie-npu1").metrics(a, a)
    assert add["core_scalar_ops"] == 0 and add["core_vector_ops"] > 0
    assert add["core_block_dma_cycles"] > add["core_block_compute_cycles"]
    assert 0 < add["modelled_shim_bandwidth_fraction"] <= 1 and "modelled_mac_peak_fraction" not in add
    # softmax on AIE2: its f32 row max has no vector instruction (scalar), its exp a software routine.
    softmax = EXAMPLES["softmax"].softmax.compile(target="aie-npu1").metrics(*inputs("softmax"))
    assert softmax["core_scalar_ops"] > 0 and softmax["core_vector_ops"] > 0
    # GEMM bf16 on AIE2: 16 x 128 x 64 MACs a block, in 4x8x4 MAC instructions, against the array's peak.
    a, b = GEMM.operands("bf16")
    gemm = GEMM.gemm_bf16.compile(target="aie-npu1").metrics(a, b)
    assert gemm["core_block_macs"] == 16 * 128 * 64 and gemm["core_vector_ops"] >= 16 * 128 * 64 / 128
    assert 0 < gemm["modelled_mac_peak_fraction"] <= 1
    assert gemm["modelled_cycles"] >= gemm["core_block_compute_cycles"]


# Flash attention (K and V streamed over the KV loop) and layernorm with 1-D weight and bias
# (examples/python/aie/flash_attention.py, layernorm.py): issue 28's kernel forms, as examples.
FLASH = aie_example("flash_attention")
LAYERNORM = aie_example("layernorm")


@pytest.mark.skipif(ml_dtypes is None, reason="bf16 inputs need ml_dtypes")
@pytest.mark.parametrize("rows", [512, 128])
def test_flash_attention_example_matches_numpy_in_the_simulator(rows):
    q, k, v = FLASH.operands(rows, seed=rows)
    compiled = FLASH.flash_attention.compile(target="aie-sim", S=rows)
    np.testing.assert_allclose(compiled(q, k, v), FLASH.reference(q, k, v), rtol=2e-2, atol=5e-3)
    np.testing.assert_allclose(FLASH.flash_attention(q, k, v, S=rows), FLASH.reference(q, k, v), rtol=2e-2, atol=5e-3)
    metrics = compiled.metrics(q, k, v)
    assert metrics["cores"] == min(16, rows // 16) and metrics["core_memory_bytes"] <= metrics["core_memory_capacity"]


@pytest.mark.parametrize("rows", [128, 64, 37])
def test_layernorm_example_matches_numpy_in_the_simulator(rows):
    # (37 rows: the last block has 5, its row statistics' temporaries bounded by 8 rows.)
    x, w, b = LAYERNORM.operands(rows, seed=rows)
    compiled = LAYERNORM.layernorm.compile(target="aie-sim", N=rows)
    np.testing.assert_allclose(compiled(x, w, b), LAYERNORM.reference(x, w, b), rtol=1e-4, atol=1e-5)
    design = compiled.ir["aie"]
    # w and b (each 256 f32) in one broadcast FIFO: two objects of it, acquired together.
    assert re.search(r"aie\.objectfifo @w\(%\w+, \{[^}]*\}, 2 : i32\) : !aie\.objectfifo<memref<1x256xf32>>", design), design
    assert "@b(" not in design


@pytest.mark.skipif(not os.environ.get("HTP_AIE_OPT"), reason="mlir-aie's aie-opt not available (set HTP_AIE_OPT)")
@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("name", ["flash_attention", "layernorm"])
def test_attention_and_layernorm_examples_lower_in_mlir_aie_with_vector_code_in_every_core(tmp_path, target, name):
    from test_aie_language import lowered_cores
    kernel = getattr(FLASH if name == "flash_attention" else LAYERNORM, name)
    compiled = kernel.compile(target=target)
    cores = compiled.ir["aie"].count("aie.core(")
    _, texts = lowered_cores(tmp_path, compiled, target, count=cores)
    arch = "aie2p" if target == "aie-npu2" else "aie2"
    for text in texts:
        assert re.search(rf"xllvm\.intr\.{arch}\.", text), text[:2000]  # the vector unit's intrinsics
    if name == "flash_attention" and target == "aie-npu1":
        assert all("bf.mac16.conf" in text for text in texts)


# GEMM (examples/python/aie/gemm.py): bf16 in / f32 accumulate and i8 in / i32 accumulate, the rows of
# A split over the cores through the memtile, B broadcast, the blocks of C joined through the memtile,
# the inner K loop accumulating on each core's stack.
GEMM = aie_example("gemm")
GEMM_SHAPES = [(256, 128, 64), (64, 64, 32), (128, 256, 32), (48, 32, 128)]


def gemm_kernel(dtype):
    return GEMM.gemm_bf16 if dtype == "bf16" else GEMM.gemm_i8


@pytest.mark.parametrize("shape", GEMM_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", ["bf16", "i8"])
def test_gemm_matches_numpy_in_the_simulator(dtype, shape):
    m, k, n = shape
    a, b = GEMM.operands(dtype, m, k, n, seed=m + k + n)
    compiled = gemm_kernel(dtype).compile(target="aie-sim", M=m, K=k, N=n)
    assert compiled.ir["aie"].count("aie.core(") == expected_cores(m // 16, 1, COLUMNS["npu1"])
    c = compiled(a, b)
    assert c.dtype == (np.float32 if dtype == "bf16" else np.int32) and c.shape == (m, n)
    if dtype == "i8":
        np.testing.assert_array_equal(c, GEMM.reference(a, b))
    else:
        np.testing.assert_allclose(c, GEMM.reference(a, b), rtol=1e-5, atol=1e-4)


def test_gemm_design_splits_a_and_joins_c_through_the_memtile_and_accumulates_over_k():
    design = GEMM.gemm_bf16.compile(target="aie-npu2").ir["aie"]
    # 16 blocks of 16 rows: 4 columns of 4 cores (D58), A split and C joined in each column's memtile.
    for column in range(4):
        assert (f"aie.objectfifo.link [@a_c{column}] -> [@a_c{column}_0, @a_c{column}_1, @a_c{column}_2, @a_c{column}_3]"
                "([] [0, 2048, 4096, 6144])") in design
        assert (f"aie.objectfifo.link [@c_c{column}_0, @c_c{column}_1, @c_c{column}_2, @c_c{column}_3] -> [@c_c{column}]"
                "([0, 1024, 2048, 3072] [])") in design
        # Column c's share of A: blocks 4c..4c+3 of every 16 (one block is 16 x 128 bf16).
        assert f"%arg0[0, 0, 0, {column * 8192}][1, 1, 8, 1024][0, 32768, 1024, 1]) {{id = {4 + column} : i64, metadata = @a_c{column}}}" in design
    assert design.count("aie.core(") == 16 and "aie.tile(4, 2)" not in design
    assert "!aie.objectfifo<memref<128x64xbf16>>" in design  # B whole, broadcast
    block = design[design.index("func.func @gemm_bf16_block("):design.index("aie.core(")]
    # The K loop (4 steps of 32) multiplies bf16 into the f32 accumulator.
    # The K loop (4 steps of 32) multiplies bf16 into the f32 accumulator: in scalar
    # loops on AIE2P, whose vector MAC would round bf16 to block floating point.
    assert "arith.extf" in block and "arith.mulf" in block and "arith.addf" in block and "memref.alloca" in block
    assert "vector.contract" not in block
    npu1 = GEMM.gemm_bf16.compile(target="aie-npu1").ir["aie"]
    # On AIE2, one 4x8x4 bf16 MAC instruction per step, the accumulator in registers across K.
    assert "vector<4x8xbf16>, vector<8x4xbf16> into vector<4x4xf32>" in npu1 and "iter_args" in npu1
    assert "{stack_size = 5120 : i32}" in design  # 1 KiB + the 16x64 f32 accumulator


def test_gemm_reading_b_at_the_blocks_rows_is_an_error_at_the_load():
    error = compile_error(textwrap.dedent('''\
        @htp.kernel
        def k(a: htp.Tensor[f32, "N", 64], b: htp.Tensor[f32, "N", 64], c: htp.Out[f32, "N", 64],
              N: htp.Const[int] = 64):
            for i in range(0, N, 16):
                acc = htp.zeros((16, 64), f32)
                for j in range(i, i + 64, 16):
                    acc += a[i:i + 16, 0:16] @ b[j:j + 16, :]
                c[i:i + 16, :] = acc
        '''))
    # Not dealt to cores (b at the block's rows plus an inner offset); whole on one core, a, b
    # and c (16 KiB each, c both ways) are more than a core's memory.
    assert "the kernel's tensors, whole on one core, take 65536 bytes, more than the 64512 a compute tile has beside its stack" in str(error)
    assert "because at /tmp/htp_aie_user.py:7:40: parameter 'b' is accessed at rows other than the block's own" in str(error)
    assert_points_at(error, "htp_aie_user.py", 1)


# Declarations of the XRT calls the host program makes (names and signatures as XRT's xrt_device.h,
# xrt_kernel.h, xrt_bo.h declare them), so that g++ checks test.cpp's C++ without XRT.
XRT_STUB = {
    "xrt/xrt_device.h": """#pragma once
#include <string>
#include <vector>
namespace xrt {
struct uuid {};
class xclbin {
public:
  class kernel { public: std::string get_name() const; };
  explicit xclbin(const std::string &filename);
  std::vector<kernel> get_kernels() const;
  uuid get_uuid() const;
};
class device {
public:
  explicit device(unsigned int index);
  uuid register_xclbin(const xclbin &xclbin);
};
}
""",
    "xrt/xrt_bo.h": """#pragma once
#include <cstddef>
#include "xrt_device.h"
enum xclBOSyncDirection { XCL_BO_SYNC_BO_TO_DEVICE, XCL_BO_SYNC_BO_FROM_DEVICE };
#define XCL_BO_FLAGS_CACHEABLE (1U << 24)
#define XRT_BO_FLAGS_HOST_ONLY (1U << 29)
namespace xrt {
class bo {
public:
  using flags = unsigned int;
  bo(const device &device, size_t size, flags flags, int grp);
  template <typename MapType> MapType map();
  void sync(xclBOSyncDirection dir);
};
}
""",
    "xrt/xrt_kernel.h": """#pragma once
#include <string>
#include "xrt_bo.h"
enum ert_cmd_state { ERT_CMD_STATE_NEW = 1, ERT_CMD_STATE_COMPLETED = 4, ERT_CMD_STATE_ERROR = 5 };
namespace xrt {
class hw_context { public: hw_context(const device &device, const uuid &xclbin_id); };
class run { public: ert_cmd_state wait() const; };
class kernel {
public:
  kernel(const hw_context &ctx, const std::string &name);
  int group_id(int argno) const;
  template <typename... Args> run operator()(Args &&...args);
};
}
""",
}


@pytest.mark.parametrize("name", NAMES + ["gemm_bf16", "gemm_i8"])
def test_the_package_holds_a_host_program_that_is_cpp(tmp_path, name):
    kernel = getattr(GEMM, name) if name.startswith("gemm") else getattr(EXAMPLES[name], name)
    compiled = kernel.compile(target="aie-npu1")
    root = pathlib.Path(compiled.write_package(tmp_path / name))
    host = (root / "test.cpp").read_text()
    tensors = json.loads((root / "manifest.json").read_text())["arguments"]
    # One buffer object per tensor of the runtime sequence, group ids from 3 in argument order.
    sequence = compiled.ir["aie"].split("aie.runtime_sequence(")[1].split(")")[0]
    names = [part.split(":")[0].strip().lstrip("%") for part in sequence.split(",")]
    assert len(names) == len(tensors)
    for index, argument in enumerate(names):
        assert f"kernel.group_id({3 + index}));" in host
    assert "xrt::kernel(context, kernelName)" in host and "bo_instr" in host and "run.wait()" in host
    assert host.count("XCL_BO_SYNC_BO_FROM_DEVICE") == len(json.loads((root / "manifest.json").read_text())["arguments"]) - sum(
        1 for a in json.loads((root / "manifest.json").read_text())["arguments"] if a["direction"] == "in")
    assert "test.cpp" in (root / "README.md").read_text()
    assert_host_compiles(tmp_path, root / "test.cpp")


def assert_host_compiles(tmp_path, host):
    """test.cpp is valid C++17 against XRT's declarations (a stub of the ones it uses)."""
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("no g++ to check test.cpp's syntax")
    for path, text in XRT_STUB.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    result = subprocess.run([compiler, "-std=c++17", "-fsyntax-only", "-Wall", "-Werror", f"-I{tmp_path}", str(host)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


# aiecc's passes at the pin (as lib/htp-all/tests/aie.rs runs them): object FIFOs to locks, buffers
# and DMAs, routing; the runtime sequence to NPU instructions; each core to the LLVM dialect.
def aiecc_physical(arch):
    return (f"builtin.module(convert-vector-to-aievec{{aie-target={arch}}},lower-affine,aie-canonicalize-device,"
            "aie-lower-scratchpad-parameters,aie-scf-to-control-flow,aie.device(aie-objectFifo-stateful-transform{packet-sw-objFifos=false},"
            "aie-objectFifo-unroll{default-dynamic=false},aie-assign-lock-ids,aie-assign-bd-ids,aie-lower-cascade-flows,aie-lower-broadcast-packet,"
            "aie-lower-multicast,aie-assign-tile-controller-ids),aie-generate-column-control-overlay{route-shim-to-tile-ctrl=false},"
            "aie.device(aie-assign-buffer-addresses{alloc-scheme=basic-sequential},aie-assign-core-link-files,aie-vector-transfer-lowering),"
            "aie-scf-to-control-flow,aie.device(aie-create-pathfinder-flows))")


AIECC_NPU_INSTRUCTIONS = ("builtin.module(aie.device(aie-materialize-bd-chains,aie-substitute-shim-dma-allocations,"
                          "aie-unroll-runtime-sequence-loops,canonicalize,aie-decompose-large-dma-bd,aie-lower-dynamic-bd-pool,canonicalize,"
                          "aie-assign-runtime-sequence-bd-ids,aie-dma-tasks-to-npu,aie-lower-dma-channel-reset,aie-dma-to-npu,aie-lower-set-lock,aie-lower-core-reset))")


def aiecc_core(arch, column, row):
    return ("builtin.module(aie.device(aie-localize-locks,aie-normalize-address-spaces,aie-transform-bfp-types),"
            f"aie-standard-lowering{{device=main tilecol={column} tilerow={row}}},aiex-standard-lowering,convert-aievec-to-llvm{{aie-target={arch}}},"
            "canonicalize,cse,expand-strided-metadata,lower-affine,arith-expand,finalize-memref-to-llvm,"
            "convert-func-to-llvm{use-bare-ptr-memref-call-conv=true},convert-to-llvm{dynamic=true},convert-vector-to-llvm,convert-ub-to-llvm,canonicalize,cse)")


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize("shape", [(256, 128, 64), (64, 64, 32)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype", ["bf16", "i8"])
def test_gemm_verifies_and_lowers_in_mlir_aie(tmp_path, dtype, shape, target):
    tool = os.environ.get("HTP_AIE_OPT")
    if not tool:
        pytest.skip("HTP_AIE_OPT (an aie-opt of mlir-aie 3ca0193c) is not set")
    m, k, n = shape
    compiled = gemm_kernel(dtype).compile(target=target, M=m, K=k, N=n)
    root = pathlib.Path(compiled.write_package(tmp_path / "gemm"))
    design = root / "aie.mlir"
    arch = "aie2p" if target == "aie-npu2" else "aie2"

    def aie_opt(*arguments, source=design):
        result = subprocess.run([tool, *arguments, str(source)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        return result.stdout

    assert "aie.runtime_sequence(" in aie_opt()
    physical = tmp_path / "physical.mlir"
    aie_opt(f"--pass-pipeline={aiecc_physical(arch)}", "-o", str(physical))
    text = physical.read_text()
    assert "aie.lock(" in text and "aie.switchbox(" in text and "aie.objectfifo" not in text
    instructions = aie_opt(f"--pass-pipeline={AIECC_NPU_INSTRUCTIONS}", source=physical)
    assert "aiex.npu.blockwrite" in instructions and "aiex.npu.sync" in instructions and "dma_memcpy_nd" not in instructions
    tiles = re.findall(r"aie\.core\(%tile_(\d+)_(\d+)\)", compiled.ir["aie"])
    assert len(tiles) == compiled.ir["aie"].count("aie.core(") == expected_cores(m // 16, 1, COLUMNS[TARGETS[target]])
    for column, row in tiles:
        llvm = aie_opt(f"--pass-pipeline={aiecc_core(arch, column, row)}", source=physical)
        assert f"llvm.func @core_{column}_{row}()" in llvm and f"llvm.func @{compiled.ir['aie'].split('func.func @')[1].split('(')[0]}(" in llvm
        assert f"llvm.{arch}.acquire" in llvm
        # The K loop's products are the vector unit's MAC instruction (exact bf16 has none on AIE2P).
        mac = {("aie2", "bf16"): "xllvm.intr.aie2.bf.mac16.conf", ("aie2", "i8"): "xllvm.intr.aie2.I512.I512.ACC1024.acc32.mac.conf",
               ("aie2p", "i8"): "xllvm.intr.aie2p.I512.I512.ACC2048.mac.conf"}.get((arch, dtype))
        assert mac is None or mac in llvm, sorted(set(re.findall(r"xllvm\.intr\.[\w.]+", llvm)))


SUM_OF_SQUARES = '''\
@htp.kernel
def k(x: htp.Tensor[f32, "N", "H"], y: htp.Out[f32, "N", "H"], N: htp.Const[int] = 64, H: htp.Const[int] = 512):
    for i in range(0, N, 4):
        squares = htp.zeros((4, 1), f32)
        for j in range(0, H, 256):
            t = x[i:i + 4, j:j + 256]
            squares = squares + htp.row_sum(t * t)
        for j in range(0, H, 256):
            y[i:i + 4, j:j + 256] = x[i:i + 4, j:j + 256] * squares
'''


def user_kernel(source):
    namespace = {}
    path = "/tmp/htp_aie_user.py"
    pathlib.Path(path).write_text(source)
    exec(compile(source, path, "exec"), {"htp": htp, "f32": f32, "__name__": "htp_aie_user"}, namespace)
    return next(v for v in namespace.values() if isinstance(v, htp.Kernel))


@pytest.mark.parametrize("seed", [3, 4])
def test_an_accumulator_carried_across_an_inner_loop_is_updated_in_place(seed):
    x = np.random.default_rng(seed).standard_normal((64, 512), dtype=np.float32)
    compiled = user_kernel(SUM_OF_SQUARES).compile(target="aie-sim")
    design = compiled.ir["aie"]
    assert "memref.alloca() {alignment = 64 : i64} : memref<4x1xf32>" in design and "memref.alloc()" not in design
    expected = x.astype(np.float64) * (x.astype(np.float64) ** 2).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(compiled(x), expected, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("seed", [3, 4])
def test_a_carried_tile_read_after_its_update_is_copied_into_one_buffer(seed):
    # `squares` is read by the store after the trip's new value is made: not updated in place, so
    # the new value is a temporary of the trip copied into the carried tile at its end (D86).
    compiled = user_kernel(SUM_OF_SQUARES.replace(
        "            squares = squares + htp.row_sum(t * t)\n",
        "            grown = squares + htp.row_sum(t * t)\n            y[i:i + 4, j:j + 256] = t * squares\n            squares = grown\n")).compile(target="aie-sim")
    assert "memref.alloc()" not in compiled.ir["aie"]
    x = np.random.default_rng(seed).standard_normal((64, 512), dtype=np.float32)
    expected = x.astype(np.float64) * (x.astype(np.float64) ** 2).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(compiled(x), expected, rtol=1e-5, atol=1e-3)


SCALED = '''\
@htp.kernel
def k(x: htp.Tensor[f32, "N", 256], y: htp.Out[f32, "N", 256], alpha: f32, N: htp.Const[int] = 128):
    for i in range(0, N, 8):
        y[i:i + 8, :] = x[i:i + 8, :] * alpha + 1.0
'''


def test_a_run_time_scalar_reaches_every_core_and_changes_per_call():
    # D59: one compiled design, the scalar moved at each call as a one-element tensor.
    compiled = user_kernel(SCALED).compile(target="aie-sim")
    design = compiled.ir["aie"]
    assert "!aie.objectfifo<memref<1x1xf32>>" in design and "%arg2: memref<1xf32>) {" in design
    assert design.count("aie.objectfifo.acquire @alpha(Consume, 1)") == design.count("aie.core(") == 16
    x = np.random.default_rng(5).standard_normal((128, 256), dtype=np.float32)
    for alpha in (2.0, -0.375, 0.0):
        np.testing.assert_array_equal(compiled(x, alpha=alpha), x * np.float32(alpha) + np.float32(1.0))


def test_a_run_time_scalar_is_an_argument_of_the_package():
    compiled = user_kernel(SCALED).compile(target="aie-npu2")
    design = compiled.ir["aie"]
    assert "aiex.npu.dma_memcpy_nd(%arg2[0, 0, 0, 0][1, 1, 1, 1][0, 1, 1, 1]) {id = 8 : i64, metadata = @alpha}" in design
    root = pathlib.Path(compiled.write_package("/tmp/htp_aie_scaled"))
    arguments = json.loads((root / "manifest.json").read_text())["arguments"]
    assert arguments[2] == {"name": "alpha", "index": 2, "direction": "in", "scalar": True}
    host = (root / "test.cpp").read_text()
    assert "`alpha`: a run-time scalar (f32), one element read from alpha.bin" in host and "kernel.group_id(5)" in host


def test_an_integer_run_time_scalar_offsets_the_rows():
    kernel = user_kernel('''\
@htp.kernel
def k(x: htp.Tensor[i32, "N", 64], y: htp.Out[i32, "N", 64], offset: i32, N: htp.Const[int] = 64):
    for i in range(0, N, 8):
        y[i:i + 8, :] = x[i:i + 8, :] + offset
'''.replace("@htp.kernel", "from htp import i32\n@htp.kernel"))
    compiled = kernel.compile(target="aie-sim")
    x = np.arange(64 * 64, dtype=np.int32).reshape(64, 64)
    for offset in (7, -100000):
        np.testing.assert_array_equal(compiled(x, offset=offset), x + offset)


@pytest.mark.parametrize("dtype, value", [("f16", 0.375), ("bf16", -1.5), ("i16", -3), ("i8", 5)])
def test_a_narrow_scalar_travels_in_a_word(dtype, value):
    # A 16- or 8-bit run-time scalar is the first element of the one 32-bit word the shim moves
    # (the host pads it, as a padded tensor).
    kernel = user_kernel(textwrap.dedent(f'''\
        @htp.kernel
        def k(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], scale: htp.{dtype}, N: htp.Const[int] = 64):
            for i in range(0, N, 8):
                y[i:i + 8, :] = x[i:i + 8, :] * htp.f32(scale)
        '''))
    x = rng.standard_normal((64, 64), dtype=np.float32)
    np.testing.assert_array_equal(kernel.compile(target="aie-sim")(x, scale=value), x * np.float32(value))
    package = kernel.compile(target="aie-npu1")
    word = {"f16": "2xf16", "bf16": "2xbf16", "i16": "2xi16", "i8": "4xi8"}[dtype]
    assert f"%scale: memref<{word}>" in package.ir["aie"] or f": memref<{word}>" in package.ir["aie"], package.ir["aie"]


def test_a_scalar_of_another_width_is_an_error_at_the_parameter():
    error = compile_error(textwrap.dedent('''\
        @htp.kernel
        def k(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], scale: bool, N: htp.Const[int] = 64):
            for i in range(0, N, 8):
                if scale:
                    y[i:i + 8, :] = x[i:i + 8, :] * 2.0
                else:
                    y[i:i + 8, :] = x[i:i + 8, :]
        '''))
    assert "the aie targets take run-time scalars of f32, f16, bf16, i64, i32, i16 and i8 (in the 32-bit words the shim DMA moves)" in str(error)
    assert_points_at(error, "htp_aie_user.py", 2)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_a_design_with_a_run_time_scalar_lowers_in_mlir_aie(tmp_path, target):
    tool = os.environ.get("HTP_AIE_OPT")
    if not tool:
        pytest.skip("HTP_AIE_OPT (an aie-opt of mlir-aie 3ca0193c) is not set")
    root = pathlib.Path(user_kernel(SCALED).compile(target=target).write_package(tmp_path / "scaled"))
    arch = "aie2p" if target == "aie-npu2" else "aie2"
    physical = tmp_path / "physical.mlir"
    result = subprocess.run([tool, f"--pass-pipeline={aiecc_physical(arch)}", "-o", str(physical), str(root / "aie.mlir")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    result = subprocess.run([tool, f"--pass-pipeline={AIECC_NPU_INSTRUCTIONS}", str(physical)], capture_output=True, text=True)
    assert result.returncode == 0 and "aiex.npu.address_patch" in result.stdout, result.stderr
    result = subprocess.run([tool, f"--pass-pipeline={aiecc_core(arch, 0, 2)}", str(physical)], capture_output=True, text=True)
    assert result.returncode == 0 and "llvm.func @core_0_2()" in result.stdout, result.stderr


def test_a_gemm_whose_b_does_not_fit_a_core_streams_b_over_k():
    # B (256 x 128 bf16, 64 KiB) would be broadcast whole; its K loop walks it by 32 rows, so it
    # streams over that loop instead (D87).
    compiled = GEMM.gemm_bf16.compile(target="aie-sim", M=64, K=256, N=128)
    a, b = GEMM.operands("bf16", 64, 256, 128)
    np.testing.assert_allclose(compiled(a, b), GEMM.reference(a, b), rtol=1e-4, atol=1e-3)
    assert "@b_cores(" in compiled.ir["aie"] or "@b_c0_cores(" in compiled.ir["aie"]


def test_a_tensor_read_whole_in_one_tile_that_does_not_fit_a_core_is_an_error_at_it():
    # Read in one tile (no loop walks it), B cannot stream: the error is at B.
    error = compile_error(textwrap.dedent('''\
        @htp.kernel
        def k(a: htp.Tensor[f32, "M", 128], b: htp.Tensor[f32, 128, 160], c: htp.Out[f32, "M", 160],
              M: htp.Const[int] = 64):
            for i in range(0, M, 16):
                c[i:i + 16, :] = a[i:i + 16, :] @ b[:, :]
        '''))
    assert "'b' (81920 bytes) is read whole by every block" in str(error)
    assert "streams over that loop instead" in str(error)
    assert_points_at(error, "htp_aie_user.py", 2)


@pytest.mark.parametrize("body, written", [
    # a block of columns: the others must keep their values
    ("c[i:i + 8, 0:32] = a[i:i + 8, 0:32] + 1.0", lambda a, c: c[:, 0:32].__setitem__(slice(None), a[:, 0:32] + 1.0)),
    # a store under a condition: the blocks that skip it keep theirs
    ("if i == 0:\n            c[i:i + 8, :] = a[i:i + 8, :] + 1.0", lambda a, c: c[0:8].__setitem__(slice(None), a[0:8] + 1.0)),
])
def test_an_output_a_block_does_not_write_whole_keeps_what_it_does_not_write(body, written):
    # One rule on every target (docs/language.md, "Outputs"): elements of an htp.Out the program does
    # not write keep their values. On AIE such an output travels both ways, as an in-out tensor: its
    # block comes in first (before, aie-sim returned zeros there; then it was refused).
    kernel = user_kernel(textwrap.dedent('''\
        @htp.kernel
        def k(a: htp.Tensor[f32, 16, 64], c: htp.Out[f32, 16, 64]):
            for i in range(0, 16, 8):
                BODY
        ''').replace("BODY", body))
    a = rng.standard_normal((16, 64), dtype=np.float32)
    c = rng.standard_normal((16, 64), dtype=np.float32)
    expected = c.copy()
    written(a, expected)
    compiled = kernel.compile(target="aie-sim")
    assert "@c_in" in compiled.ir["aie"]
    compiled(a, c)
    np.testing.assert_array_equal(c, expected)
