"""Every example in examples/python, run on the CPU target and compared with
numpy, over shapes that take several tiles per dimension and ragged tails."""

import subprocess
import sys

import numpy as np
import pytest

from conftest import EXAMPLES

rng = np.random.default_rng(1234)


@pytest.mark.parametrize("rows", [1, 16, 1000])
def test_vector_add(example, rows):
    m = example("vector_add")
    a = rng.standard_normal((rows, 256), dtype=np.float32)
    b = rng.standard_normal((rows, 256), dtype=np.float32)
    np.testing.assert_array_equal(m.vector_add(a, b), a + b)


def test_vector_add_writes_a_given_output_in_place(example):
    m = example("vector_add")
    a = rng.standard_normal((40, 256), dtype=np.float32)
    c = np.full((40, 256), np.nan, dtype=np.float32)
    assert m.vector_add(a, a, c) is c
    np.testing.assert_array_equal(c, a + a)


@pytest.mark.parametrize("rows", [1, 37, 1000])
def test_softmax(example, rows):
    m = example("softmax")
    x = rng.standard_normal((rows, 256), dtype=np.float32) * 8
    np.testing.assert_allclose(m.softmax(x), m.reference(x), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("rows,width", [(8, 256), (1, 512), (37, 1024), (100, 512)])
def test_rmsnorm(example, rows, width):
    m = example("rmsnorm")
    x = rng.standard_normal((rows, width), dtype=np.float32)
    w = rng.standard_normal((1, width), dtype=np.float32)
    y = m.rmsnorm(x, w, eps=1e-6, H=width)
    np.testing.assert_allclose(y, m.reference(x, w, 1e-6), rtol=1e-5, atol=1e-6)


# (M, N, K): exact tiles, several tiles per dimension, and ragged tails in each.
@pytest.mark.parametrize("shape", [(64, 64, 32), (256, 128, 512), (100, 70, 50), (1, 1, 1), (130, 200, 33)])
def test_gemm_f16_in_f32_accumulate(example, shape):
    m_, n, k = shape
    m = example("gemm")
    a = rng.standard_normal((m_, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = m.gemm(a, b)
    assert c.dtype == np.float32
    expected = a.astype(np.float64) @ b.astype(np.float64)
    # f32 accumulation of exact f16 products: error grows like K * eps32.
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4 * np.sqrt(k))


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("heads,seq", [(1, 32), (2, 128), (3, 100), (1, 1), (2, 37)])
def test_flash_attention(example, heads, seq, causal):
    m = example("flash_attention")
    q, k, v = (rng.standard_normal((heads, seq, 64), dtype=np.float32) for _ in range(3))
    scale = 1.0 / np.sqrt(64)
    o = m.flash_attention(q, k, v, scale=scale, CAUSAL=causal)
    np.testing.assert_allclose(o, m.reference(q, k, v, scale, causal), rtol=1e-4, atol=1e-5)


# Every example script (a module with a main; the modules a script imports, such as
# serving/model.py, are run through it).
@pytest.mark.parametrize("script", sorted(str(p.relative_to(EXAMPLES)) for p in EXAMPLES.glob("**/*.py")
                                          if "__main__" in p.read_text()))
def test_example_runs_as_a_script(script):
    result = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "vs numpy" in result.stdout or "to numpy" in result.stdout, result.stdout


def test_compile_is_explicit_and_cached(example):
    import htp

    m = example("softmax")
    compiled = htp.compile(m.softmax, target="cpu")
    assert compiled is htp.compile(m.softmax, target="cpu")
    assert set(compiled.ir) == {"tile", "llvm"}
    assert "tile.row_reduce" in compiled.ir["tile"]
    assert "llvm.func" in compiled.ir["llvm"]
    x = rng.standard_normal((20, 256), dtype=np.float32)
    np.testing.assert_allclose(compiled(x), m.reference(x), rtol=1e-5, atol=1e-7)
