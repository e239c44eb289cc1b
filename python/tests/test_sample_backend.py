"""The sample backend (lib/htp-backend-sample): a backend crate registered
only by one line in htp-all, with its own dialect, pass and target. Its
target counts tile ops into its dialect, reads them back as a static
metric, and hands the kernel to the cpu target."""

import numpy as np
import pytest

import htp
from htp import f32


@htp.kernel
def scale_exp(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.exp(t) * 2.0


@htp.kernel
def add_rows(a: htp.Tensor[f32, "N", 32], b: htp.Tensor[f32, "N", 32], c: htp.Out[f32, "N", 32]):
    for i in range(0, a.shape[0], 8):
        c[i:i + 8, :] = a[i:i + 8, :] + b[i:i + 8, :]


def test_the_sample_target_is_registered_like_any_target():
    info = {t.name: t for t in htp.targets()}
    assert "sample" in info
    assert "model:kernel" in info["sample"].capabilities
    assert "sample" in scale_exp.targets()


@pytest.mark.parametrize("rows", [1, 16, 37, 100])
def test_kernels_compiled_for_the_sample_target_run_right(rows):
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 64), dtype=np.float32)
    compiled = scale_exp.compile("sample")
    y = compiled(x)
    np.testing.assert_allclose(y, np.exp(x) * 2.0, rtol=1e-5)
    a, b = (rng.standard_normal((rows, 32), dtype=np.float32) for _ in range(2))
    np.testing.assert_allclose(add_rows.compile("sample")(a, b), a + b, rtol=1e-6)


def test_the_count_its_dialect_carried_is_a_static_metric():
    x = np.zeros((32, 64), np.float32)
    # load, exp, mul, store (the scalar 2.0 is not a tile op) ...
    exp_ops = scale_exp.compile("sample").metrics(x)["tile_ops"]
    add_ops = add_rows.compile("sample").metrics(x[:, :32], x[:, :32])["tile_ops"]
    # ... and two loads, an add and a store: one op fewer than exp * 2.
    assert add_ops == 4
    assert exp_ops >= 4
    # The cpu target itself reports no metrics: they come from the backend.
    with pytest.raises(htp.TargetError):
        scale_exp.compile("cpu").metrics(x)
