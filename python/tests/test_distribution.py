"""How a kernel's outer loop is spread over cores: an Axe layout of its
trips over a parallel level of the target (`htp.distribution`), chosen by
the target (blocks over the cores available at run time) or by the user
with `htp.range(start, stop, step, grain=G)` (tasks of G iterations) or
`parallel=False` (one core). The numbers never depend on it."""

import inspect

import numpy as np
import pytest

import htp
from htp import f16, f32, i32

from sources import kernel_from
from targets import RUN_TARGETS, SIMULATOR, needs_simulator


@htp.kernel
def blocks(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 8):
        y[i:i + 8, :] = htp.exp(x[i:i + 8, :]) + 1.0


@htp.kernel
def grained(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in htp.range(0, x.shape[0], 8, grain=3):
        y[i:i + 8, :] = htp.exp(x[i:i + 8, :]) + 1.0


@htp.kernel
def one_core(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in htp.range(0, x.shape[0], 8, parallel=False):
        y[i:i + 8, :] = htp.exp(x[i:i + 8, :]) + 1.0


@htp.kernel
def weighted(x: htp.Tensor[f32, "N", 64], w: htp.Tensor[f32, 1, 64], y: htp.Out[f32, "N", 64]):
    scale = w[0:1, :] * 2.0
    for i in range(0, x.shape[0], 8):
        y[i:i + 8, :] = x[i:i + 8, :] * scale


@htp.kernel
def read_then_written(x: htp.Tensor[f32, "N", 64], acc: htp.InOut[f32, "N", 64]):
    first = acc[0:8, :]
    for i in range(0, x.shape[0], 8):
        acc[i:i + 8, :] = x[i:i + 8, :] + first


def expected(x):
    return np.exp(x) + np.float32(1.0)


def test_the_cpu_distributes_blocks_over_its_cores_at_run_time():
    llvm = blocks.compile("cpu").ir["llvm"]
    assert "htp.distribution = #layout.axe<[?@core:1, ?@iter:1]>" in llvm
    assert "blocks__chunk" in llvm


def test_a_grain_makes_tasks_of_that_many_iterations():
    compiled = grained.compile("cpu")
    assert "htp.grain = 3 : i64" in compiled.ir["tile"]
    assert "htp.distribution = #layout.axe<[?@core:1, 3@iter:1]>" in compiled.ir["llvm"]


def test_parallel_false_keeps_the_loop_on_one_core():
    llvm = one_core.compile("cpu").ir["llvm"]
    assert "htp.distribution" not in llvm and "__chunk" not in llvm


@pytest.mark.parametrize("kernel", [blocks, grained, one_core], ids=lambda k: k.name)
@pytest.mark.parametrize("rows", [0, 1, 8, 23, 24, 25, 200, 1001])
def test_every_distribution_gives_numpys_numbers_on_cpu(kernel, rows):
    x = np.random.default_rng(rows).standard_normal((rows, 64), dtype=np.float32)
    np.testing.assert_allclose(kernel(x), expected(x), rtol=1e-6)


def weighted_expected(x, w):
    return x * (w * np.float32(2.0))


def read_then_written_expected(x, acc):
    return x + np.tile(acc[0:8], (len(x) // 8, 1))


@pytest.mark.parametrize("target", ["cpu", "pto-a2a3sim"])
def test_tiles_computed_before_the_loop_keep_it_distributed(target):
    # A weight row read (and scaled) before the loop is replayed once per part.
    compiled = weighted.compile(target)
    if target == "cpu":
        assert "weighted__chunk" in compiled.ir["llvm"]
    else:
        assert "rt_available_aiv_count()" in compiled.files["orchestration/weighted.cpp"]
        x, w = np.zeros((1000, 64), np.float32), np.zeros((1, 64), np.float32)
        m = compiled.metrics(x, w)
        assert m["tasks"] > 1 and m["read_bytes.w"] == w.nbytes * m["tasks"]


@pytest.mark.parametrize("target", ["cpu", "pto-a2a3sim"])
def test_a_tile_read_before_the_loop_from_a_tensor_it_writes_keeps_it_whole(target):
    # A part started later would read what earlier parts wrote.
    compiled = read_then_written.compile(target)
    if target == "cpu":
        assert "__chunk" not in compiled.ir["llvm"]
    else:
        orchestration = compiled.files["orchestration/read_then_written.cpp"]
        assert orchestration.count("rt_submit_aiv_task") == 1 and "for (" not in orchestration


@pytest.mark.parametrize("rows", [0, 8, 24, 200, 1000])
def test_tiles_before_the_loop_give_numpys_numbers_on_cpu(rows):
    rng = np.random.default_rng(rows)
    x, w = rng.standard_normal((rows, 64), dtype=np.float32), rng.standard_normal((1, 64), dtype=np.float32)
    np.testing.assert_allclose(weighted(x, w), weighted_expected(x, w), rtol=1e-6)
    acc = rng.standard_normal((max(rows, 8), 64), dtype=np.float32)
    x = rng.standard_normal(acc.shape, dtype=np.float32)
    want = read_then_written_expected(x, acc)
    read_then_written(x, acc)
    np.testing.assert_allclose(acc, want, rtol=1e-6)


@needs_simulator
def test_tiles_before_the_loop_give_numpys_numbers_on_a2a3sim():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((200, 64), dtype=np.float32), rng.standard_normal((1, 64), dtype=np.float32)
    np.testing.assert_allclose(weighted.compile(SIMULATOR)(x, w), weighted_expected(x, w), rtol=1e-5)
    acc = rng.standard_normal((200, 64), dtype=np.float32)
    want = read_then_written_expected(x, acc)
    read_then_written.compile(SIMULATOR)(x, acc)
    np.testing.assert_allclose(acc, want, rtol=1e-5)


@pytest.mark.parametrize("target", ["pto-a2a3sim", "pto-a2a3"])
def test_pto_submits_tasks_as_the_distribution_says(target):
    # Vector work: over the vector cores available at run time.
    orchestration = blocks.compile(target).files["orchestration/blocks.cpp"]
    assert "rt_available_aiv_count()" in orchestration
    assert "htp.distribution = #layout.axe<[?@vector_core:1, ?@iter:1]>" in blocks.compile(target).files["ir/pto.mlir"]
    # The grain: tasks of 3 iterations (24 rows), however many cores there are.
    compiled = grained.compile(target)
    assert "rt_available_aiv_count()" not in compiled.files["orchestration/grained.cpp"]
    assert "htp.distribution = #layout.axe<[?@vector_core:1, 3@iter:1]>" in compiled.files["ir/pto.mlir"]
    # One task.
    serial = one_core.compile(target).files["orchestration/one_core.cpp"]
    assert serial.count("rt_submit_aiv_task") == 1 and "for (" not in serial


@needs_simulator
@pytest.mark.parametrize("kernel", [blocks, grained, one_core], ids=lambda k: k.name)
def test_every_distribution_gives_numpys_numbers_on_a2a3sim(kernel):
    x = np.random.default_rng(7).standard_normal((77, 64), dtype=np.float32)
    np.testing.assert_allclose(kernel.compile(SIMULATOR)(x), expected(x), rtol=1e-5)


def _line(kernel, text):
    lines, first = inspect.getsourcelines(kernel.function)
    return first + next(i for i, line in enumerate(lines) if text in line)


@htp.kernel
def grain_on_dependent_loop(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, 8, 64]):
    for i in htp.range(0, x.shape[0], 8, grain=2):
        y[0:8, :] = x[i:i + 8, :]


@htp.kernel
def grain_on_inner_loop(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 8):
        for j in htp.range(0, 64, 16, grain=2):
            y[i:i + 8, j:j + 16] = x[i:i + 8, j:j + 16]


@htp.kernel
def grain_after_reading_what_it_writes(x: htp.Tensor[f32, "N", 64], acc: htp.InOut[f32, "N", 64]):
    first = acc[0:8, :]
    for i in htp.range(0, x.shape[0], 8, grain=2):
        acc[i:i + 8, :] = x[i:i + 8, :] + first


@pytest.mark.parametrize("target", ["cpu", "pto-a2a3sim"])
@pytest.mark.parametrize("kernel,why", [
    (grain_on_dependent_loop, "its iterations are not independent"),
    (grain_on_inner_loop, "only a kernel's outermost loop is distributed"),
    (grain_after_reading_what_it_writes, "it is not the kernel's only top-level loop (with no store, kernel-local array, "
                                         "or tile read from a tensor it stores around it)"),
], ids=["dependent", "inner", "read-before"])
def test_a_grain_that_cannot_be_honoured_is_an_error_at_the_loop(kernel, why, target):
    with pytest.raises(htp.CompileError) as info:
        kernel.compile(target)
    message = str(info.value)
    assert f"test_distribution.py:{_line(kernel, 'grain=2')}:" in message, message
    assert "asks to distribute this loop over cores, but " + why in message, message


BAD_KEYWORDS = [
    ("htp.range(0, x.shape[0], 8, grain=0)", "grain= is the number of iterations per task, a positive compile-time integer; got the integer constant 0"),
    ("htp.range(0, x.shape[0], 8, grain=x.shape[0])", "grain= is the number of iterations per task, a positive compile-time integer"),
    ("htp.range(0, x.shape[0], 8, parallel=1)", "parallel= takes a compile-time bool; got the integer constant 1"),
    ("htp.range(0, x.shape[0], 8, grain=2, parallel=False)", "grain= distributes the loop and parallel=False keeps it on one core: give one of them"),
    ("htp.range(0, x.shape[0], 8, chunks=2)", "htp.range() has no keyword argument 'chunks' (it takes grain= and parallel=)"),
    ("range(0, x.shape[0], 8, grain=2)", "range() takes no keyword arguments (htp.range(start, stop, step, grain=G, parallel=False) does)"),
    ("htp.static_range(0, 16, 8, grain=2)", "static_range() takes no keyword arguments"),
]


@pytest.mark.parametrize("loop,message", BAD_KEYWORDS, ids=[m[:30] for _, m in BAD_KEYWORDS])
def test_bad_loop_keywords_are_located_errors(loop, message):
    kernel = kernel_from(
        "import htp\n"
        "@htp.kernel\n"
        "def k(x: htp.Tensor[htp.f32, 'N', 64], y: htp.Out[htp.f32, 'N', 64]):\n"
        f"    for i in {loop}:\n"
        "        y[i:i + 8, :] = x[i:i + 8, :]\n", "k")
    with pytest.raises(htp.CompileError) as info:
        kernel.compile("cpu")
    text = str(info.value)
    assert ".py:4:" in text and message in text, text


# Tiles computed before the split loop in other ways: a matmul (a cluster
# task on PTO), an iota, a column reduction.
@htp.kernel
def product_before(x: htp.Tensor[f32, "N", 16], a: htp.Tensor[f16, 16, 16], b: htp.Tensor[f16, 16, 16],
                   y: htp.Out[f32, "N", 16]):
    m = a[:, :] @ b[:, :]
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = htp.pad(x[i:i + 16, :], 0.0) + m


@htp.kernel
def iota_before(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    cols = htp.cast(htp.iota((1, 64), 1, i32), f32)
    for i in range(0, x.shape[0], 8):
        y[i:i + 8, :] = x[i:i + 8, :] * cols


@htp.kernel
def sum_before(x: htp.Tensor[f32, "N", 64], w: htp.Tensor[f32, 8, 64], y: htp.Out[f32, "N", 64]):
    s = htp.col_sum(w[:, :])
    for i in range(0, x.shape[0], 8):
        y[i:i + 8, :] = x[i:i + 8, :] - s


def _before_cases(rng):
    x16, a, b = rng.standard_normal((100, 16), dtype=np.float32), rng.standard_normal((16, 16)).astype(np.float16), \
        rng.standard_normal((16, 16)).astype(np.float16)
    product = a.astype(np.float32) @ b.astype(np.float32)
    x, w = rng.standard_normal((100, 64), dtype=np.float32), rng.standard_normal((8, 64), dtype=np.float32)
    yield product_before, (x16, a, b), x16 + np.tile(product, (7, 1))[:100]
    yield iota_before, (x,), x * np.arange(64, dtype=np.float32)
    yield sum_before, (x, w), x - w.sum(axis=0, keepdims=True)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_tiles_of_every_kind_before_the_loop_keep_it_split(target):
    for kernel, arguments, want in _before_cases(np.random.default_rng(5)):
        compiled = kernel.compile(target)
        if target == "cpu":
            assert f"{kernel.name}__chunk" in compiled.ir["llvm"], kernel.name
        else:
            assert "for (" in compiled.files[f"orchestration/{kernel.name}.cpp"], kernel.name
        np.testing.assert_allclose(compiled(*arguments), want, rtol=1e-3, atol=1e-3, err_msg=kernel.name)
