"""Matmul operands the cube cannot take as written (issue 26, kernels ported from PyPTO's
examples): a product fed to another matmul (`(q @ k) @ v`, transposed or not) and a matmul added
to a loaded tile (`y + a @ x`). They were refused in the backend's own terms ("a matmul operand
must come from a tile loaded in this kernel", "'pto.tmatmul_acc' op 'acc' must be an acc tile");
now the product crosses to the vector core and back, and the sum is a vector add
(`split::prepare`). Each kernel is compiled for both PTO targets and, with pto-runtime, run on
a2a3sim against numpy and the cpu."""

import numpy as np
import pytest

import htp
from htp import f16, f32
from test_wsp_pto import needs_runtime


@htp.kernel
def product_then_product(q: htp.Tensor[f32, 16, 64], k: htp.Tensor[f32, 64, 64], v: htp.Tensor[f32, 64, 32], o: htp.Out[f32, 16, 32]):
    s = q[:, :] @ k[:, :]
    o[:, :] = s @ v[:, :]


@htp.kernel
def product_transposed(q: htp.Tensor[f32, 16, 64], k: htp.Tensor[f32, 32, 64], o: htp.Out[f32, 16, 16]):
    s = q[:, :] @ htp.transpose(k[:, :])
    o[:, :] = s @ htp.transpose(s)


@htp.kernel
def loaded_plus_product(a: htp.Tensor[f32, 16, 64], x: htp.Tensor[f32, 64, 32], y: htp.Tensor[f32, 16, 32], o: htp.Out[f32, 16, 32]):
    yb = y[:, :]
    o[:, :] = yb + a[:, :] @ x[:, :]


@htp.kernel
def blocked_attention(q: htp.Tensor[f16, 16, 64], k: htp.Tensor[f16, "S", 64], v: htp.Tensor[f16, "S", 64], o: htp.Out[f32, 16, 64]):
    # Unnormalised attention over key blocks: a product (cast on the vector core) and a loop-carried sum.
    acc = htp.zeros((16, 64), f32)
    for j in range(0, k.shape[0], 32):
        s = q[:, :] @ htp.transpose(k[j:j + 32, :])
        acc = acc + htp.cast(s * 0.125, f16) @ v[j:j + 32, :]
    o[:, :] = acc


rng = np.random.default_rng(26)


def normal(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


CASES = {
    "product_then_product": (product_then_product, lambda: [normal(16, 64), normal(64, 64), normal(64, 32)], (16, 32),
                             lambda q, k, v: (q.astype(np.float64) @ k) @ v),
    "product_transposed": (product_transposed, lambda: [normal(16, 64), normal(32, 64)], (16, 16),
                           lambda q, k: (q.astype(np.float64) @ k.T) @ (q.astype(np.float64) @ k.T).T),
    "loaded_plus_product": (loaded_plus_product, lambda: [normal(16, 64), normal(64, 32), normal(16, 32)], (16, 32),
                            lambda a, x, y: y + a.astype(np.float64) @ x),
    "blocked_attention": (blocked_attention, lambda: [normal(16, 64, dtype=np.float16), normal(96, 64, dtype=np.float16), normal(96, 64, dtype=np.float16)],
                          (16, 64), lambda q, k, v: (((q.astype(np.float32) @ k.astype(np.float32).T) * 0.125).astype(np.float16).astype(np.float64) @ v)),
}


@pytest.mark.parametrize("target", ["pto-a2a3sim", "pto-a2a3"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_kernel_compiles_for_pto(name, target):
    kernel = CASES[name][0]
    compiled = kernel.compile(target)
    assert "pto.tmatmul" in compiled.ir["pto"]


@needs_runtime
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_kernel_matches_numpy_and_the_cpu_on_a2a3sim(name):
    kernel, make, shape, reference = CASES[name]
    arguments = make()
    out, cpu = np.zeros(shape, np.float32), np.zeros(shape, np.float32)
    kernel.compile("pto-a2a3sim")(*arguments, out)
    kernel(*arguments, cpu)
    tolerance = 2e-2 if name == "blocked_attention" else 1e-3
    np.testing.assert_allclose(out, reference(*arguments), rtol=tolerance, atol=tolerance * 10)
    np.testing.assert_allclose(out, cpu, rtol=tolerance, atol=tolerance * 10)
