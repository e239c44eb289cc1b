"""The sample programming model (lib/htp-model-sample): a model crate
registered only by one line in htp-all, with its own dialect (cells), a
construct returning a value of its type, that value passed to a helper
annotated with the type, a two-index loop carrying a value out, a block
construct, and a pipeline that lowers it on every target. Run on every
target that runs kernels here and compared with numpy."""

import numpy as np
import pytest

import htp
from htp import f32

sm = htp.model("sample")


@htp.func
def accumulate(total: sm.Cell, x: htp.f32):
    sm.put(total, sm.get(total) + x)


@sm.program
def grid_sum(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], s: htp.f32):
    total = sm.cell(1.0)
    acc = 0.0
    for i, j in sm.grid(2, 3):
        acc = acc + s * htp.f32(i + 1)  # 3 * s * (1 + 2) = 9 s
    accumulate(total, acc)          # total = 1 + 9 s
    with sm.scope():
        acc = acc * 2.0             # 18 s
    for r in range(0, x.shape[0], 16):
        y[r:r + 16, :] = x[r:r + 16, :] * sm.get(total) + acc


@sm.program
def count(x: htp.Tensor[f32, 8, 32], y: htp.Out[f32, 8, 32]):
    n = sm.cell(0.0)
    for k in sm.each(5):
        accumulate(n, 1.0)
    y[:, :] = x[:, :] + sm.get(n)


@sm.program
def ragged_rows(x: htp.Tensor[f32, "N", 32], y: htp.Out[f32, "N", 32]):
    for r in range(0, x.shape[0], 16):
        n = sm.rows(x[r:r + 16, :])      # a view of x, not a tile loaded from it
        y[r:r + 16, :] = x[r:r + 16, :] + n


def expected_grid_sum(x, s):
    return x * (1.0 + 9.0 * s) + 18.0 * s


def test_the_model_is_listed_with_its_parts():
    info = htp.models()["sample"]
    assert info[0] == "sample" and info[2] == "program"
    assert {"cell", "put", "get"} <= set(info[3]) and {"each", "grid"} <= set(info[4])
    assert htp.model("sample") is sm
    with pytest.raises(LookupError, match="no programming model named 'nope'"):
        htp.model("nope")


@pytest.mark.parametrize("target", ["cpu", "sample"])
@pytest.mark.parametrize("rows", [16, 40])
def test_a_program_runs_on_every_kernel_target_like_numpy(target, rows):
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 64), dtype=np.float32)
    y = grid_sum.compile(target)(x, s=np.float32(0.25))
    np.testing.assert_allclose(y, expected_grid_sum(x, 0.25), rtol=1e-5)
    z = count.compile(target)(x[:8, :32])
    np.testing.assert_allclose(z, x[:8, :32] + 5.0, rtol=1e-6)


@pytest.mark.parametrize("target", ["cpu", "sample"])
@pytest.mark.parametrize("rows", [16, 37, 5])
def test_a_construct_receives_a_tensor_view_with_its_ragged_extent(target, rows):
    x = np.arange(rows * 32, dtype=np.float32).reshape(rows, 32)
    expected = x + np.array([min(16, rows - (r // 16) * 16) for r in range(rows)], np.float32)[:, None]
    np.testing.assert_allclose(ragged_rows.compile(target)(x), expected)


def test_the_models_pipeline_lowers_it_before_the_capability_check():
    compiled = grid_sum.compile("cpu")
    tile_stage = compiled.ir["tile"]
    assert "cells." not in tile_stage and "memref.alloca" in tile_stage


def test_constructs_called_from_python_are_refused():
    with pytest.raises(TypeError, match=r"sample.cell\(\) is a construct of the programming model 'sample'"):
        sm.cell(0.0)
    with pytest.raises(TypeError, match="loop"):
        sm.grid(2, 2)
