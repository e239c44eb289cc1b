"""Scalar reads of tensor elements inside kernels (docs/language.md, "Reading one element"): `n = lens[b]`,
`p = table[b, i]` as loop bounds, slice offsets and operands, as numpy reads them. Compared with numpy
on the cpu and on pto-runtime's a2a3sim where it is set up; bounds checks on the cpu and the PTO rule
(elements of input tensors only) at the user's line."""

import os

import numpy as np
import pytest

import htp
from simulators import on_a2a3sim
from sources import kernel_from

PRELUDE = "import htp\nimport numpy as np\nfrom htp import f32, f16, bf16, i32\n"

on_sim = on_a2a3sim

TARGETS = ["cpu", pytest.param("pto-a2a3sim", marks=on_sim)]

# Paged gather: each row b copies lens[b] rows of 16-row pages, page p = table[b, i // 16].
PAGED = '''
@htp.kernel
def paged(pages: htp.Tensor[f32, "P", 16, 64], table: htp.Tensor[i32, "B", 4], lens: htp.Tensor[i32, "B"],
          y: htp.Out[f32, "B", 64, 64]):
    for b in range(y.shape[0]):
        n = lens[b]
        for i in range(0, n, 16):
            p = table[b, i // 16]
            y[b, i:i + 16, :] = pages[p, 0:16, :] * 2.0
'''


def paged_reference(pages, table, lens, y):
    out = y.copy()
    for b in range(len(lens)):
        for i in range(0, lens[b], 16):
            out[b, i:i + 16] = pages[table[b, i // 16]] * 2.0
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("lens", [[64, 16, 32], [0, 48, 64, 16], [16]])
def test_lengths_and_page_tables_as_bounds_and_offsets(target, lens):
    rng = np.random.default_rng(len(lens))
    pages = rng.standard_normal((10, 16, 64), dtype=np.float32)
    table = rng.permutation(10)[:len(lens) * 4].reshape(len(lens), 4).astype(np.int32) if len(lens) * 4 <= 10 else rng.integers(0, 10, (len(lens), 4)).astype(np.int32)
    lens = np.array(lens, np.int32)
    y = np.full((len(lens), 64, 64), -1.0, np.float32)
    expected = paged_reference(pages, table, lens, y)
    kernel_from(PRELUDE + PAGED, "paged").compile(target=target)(pages, table, lens, y)
    np.testing.assert_array_equal(y, expected)


OPERAND = '''
@htp.kernel
def scale_rows(x: htp.Tensor[{dt}, "N", 32], s: htp.Tensor[{dt}, "N"], bias: htp.Tensor[{dt}, 2, 3], y: htp.Out[{dt}, "N", 32]):
    for i in range(x.shape[0]):
        y[i:i + 1, :] = x[i:i + 1, :] * s[i] + bias[1, 2]
'''


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt, np_dt, tol", [("f32", np.float32, 1e-6), ("f16", np.float16, 2e-3), ("i32", np.int32, 0)])
def test_elements_as_operands(target, dt, np_dt, tol):
    rng = np.random.default_rng(7)
    n = 5
    x = (rng.standard_normal((n, 32)) * 4).astype(np_dt)
    s = (rng.standard_normal(n) * 3).astype(np_dt)
    bias = (rng.standard_normal((2, 3)) * 5).astype(np_dt)
    y = np.zeros_like(x)
    kernel_from(PRELUDE + OPERAND.format(dt=dt), "scale_rows").compile(target=target)(x, s, bias, y)
    expected = x.astype(np.float64) * s[:, None] + bias[1, 2]
    if tol == 0:
        np.testing.assert_array_equal(y, expected.astype(np_dt))
    else:
        np.testing.assert_allclose(y.astype(np.float64), expected, rtol=tol, atol=tol)


BRANCH = '''
@htp.kernel
def pick(x: htp.Tensor[f32, 4, 32], flags: htp.Tensor[i32, 4], y: htp.Out[f32, 4, 32]):
    for i in range(4):
        if flags[i] > 0:
            y[i:i + 1, :] = x[i:i + 1, :]
        else:
            y[i:i + 1, :] = -x[i:i + 1, :]
'''


@pytest.mark.parametrize("target", TARGETS)
def test_an_element_in_a_condition(target):
    x = np.random.default_rng(1).standard_normal((4, 32), dtype=np.float32)
    flags = np.array([1, 0, -3, 7], np.int32)
    y = np.zeros_like(x)
    kernel_from(PRELUDE + BRANCH, "pick").compile(target=target)(x, flags, y)
    np.testing.assert_array_equal(y, np.where(flags[:, None] > 0, x, -x))


def test_an_element_outside_its_tensor_is_an_index_error_at_its_line():
    kernel = kernel_from(PRELUDE + PAGED, "paged")
    pages = np.zeros((2, 16, 64), np.float32)
    table = np.array([[0, 1, 5, 0]], np.int32)        # page 5 of 2
    lens = np.array([48], np.int32)
    y = np.zeros((1, 64, 64), np.float32)
    with pytest.raises(IndexError) as error:
        kernel(pages, table, lens, y)
    line = (PRELUDE + PAGED).splitlines().index("            y[b, i:i + 16, :] = pages[p, 0:16, :] * 2.0") + 1
    assert f":{line}:" in str(error.value), error.value
    lens = np.array([64], np.int32)
    with pytest.raises(IndexError) as error:
        kernel_from(PRELUDE + PAGED.replace("table[b, i // 16]", "table[b, i // 8]"), "paged")(pages, np.zeros((1, 4), np.int32), lens, y)
    line = (PRELUDE + PAGED).splitlines().index("            p = table[b, i // 16]") + 1
    assert f":{line}:" in str(error.value), error.value


def test_a_bf16_element_converted():
    source = PRELUDE + '''
@htp.kernel
def k(x: htp.Tensor[bf16, 2, 16], s: htp.Tensor[bf16, 2], y: htp.Out[f32, 2, 16]):
    y[0:2, :] = htp.cast(x[0:2, :], f32) * htp.f32(s[1])
'''
    x = np.arange(32, dtype=np.float32).reshape(2, 16)
    s = np.array([1.0, 0.5], np.float32)
    y = np.zeros((2, 16), np.float32)
    import ml_dtypes
    kernel_from(source, "k")(x.astype(ml_dtypes.bfloat16), s.astype(ml_dtypes.bfloat16), y)
    np.testing.assert_array_equal(y, x * 0.5)


def test_pto_reads_elements_of_inputs_only():
    source = PRELUDE + '''
@htp.kernel
def k(x: htp.Tensor[f32, 16, 32], y: htp.Out[f32, 16, 32]):
    y[0:16, :] = x[0:16, :]
    y[0:16, :] = x[0:16, :] * y[3, 4]
'''
    with pytest.raises(htp.CompileError) as error:
        kernel_from(source, "k").compile(target="pto-a2a3sim")
    line = source.splitlines().index("    y[0:16, :] = x[0:16, :] * y[3, 4]") + 1
    assert f":{line}:" in str(error.value) and "reads an element of a tensor it also writes" in str(error.value), error.value
    # The cpu orders the store before the read, as numpy does.
    x = np.random.default_rng(2).standard_normal((16, 32), dtype=np.float32)
    y = np.zeros_like(x)
    kernel_from(source, "k")(x, y)
    np.testing.assert_array_equal(y, x * x[3, 4])


@on_sim
def test_the_pto_kernel_reads_the_element_after_invalidating_its_cache_line(tmp_path):
    root = kernel_from(PRELUDE + PAGED, "paged").compile(target="pto-a2a3sim").write_package(str(tmp_path / "p"))
    sources = [open(os.path.join(d, f)).read() for d, _, fs in os.walk(os.path.join(root, "kernels")) for f in fs if f.endswith(".cpp")]
    assert any("dcci(" in s and "cache_line_t::SINGLE_CACHE_LINE" in s for s in sources), sources


AIE_ELEMENTS = '''
@htp.kernel
def k(x: htp.Tensor[f32, 64, 32], s: htp.Tensor[f32, 2, 4], y: htp.Out[f32, 64, 32]):
    for i in range(0, 64, 8):
        y[i:i + 8, :] = x[i:i + 8, :] * s[1, 2] + s[0, 3]
'''


def test_aie_reads_elements_of_a_tensor_it_broadcasts():
    x = np.random.default_rng(3).standard_normal((64, 32), dtype=np.float32)
    s = np.arange(8, dtype=np.float32).reshape(2, 4)
    y = kernel_from(PRELUDE + AIE_ELEMENTS, "k").compile(target="aie-sim")(x, s)
    np.testing.assert_allclose(y, x * s[1, 2] + s[0, 3], rtol=1e-6)


def test_aie_runs_an_element_of_a_streamed_tensor_whole_on_one_core():
    # x[i, 3] reads a row of x's block from outside it: the blocks cannot be dealt to cores, so the
    # kernel runs whole on one core (D79), x, s and y's copy in packed into its two input channels.
    source = PRELUDE + AIE_ELEMENTS.replace("s[1, 2] + s[0, 3]", "x[i, 3]")
    x = np.random.default_rng(4).standard_normal((64, 32), dtype=np.float32)
    s = np.arange(8, dtype=np.float32).reshape(2, 4)
    compiled = kernel_from(source, "k").compile(target="aie-sim")
    expected = x * np.repeat(x[::8, 3], 8)[:, None]
    np.testing.assert_allclose(compiled(x, s), expected, rtol=1e-6)
    assert compiled.metrics(x, s)["cores"] == 1
