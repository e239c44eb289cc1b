"""A scalar meeting a ragged tile (`htp.where(mask, s, t)`, `s - t` on
integer tiles) is filled to the tile's run-time valid region, on every
target."""

import numpy as np
import pytest

import htp
from htp import f32, i32
from targets import PACKAGE_TARGETS, RUN_TARGETS


@htp.kernel
def clip_negative(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.where(t < 0.0, 0.5, t)


@htp.kernel
def keep_large(x: htp.Tensor[i32, "N", 64], y: htp.Out[i32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.where(t > 3, t, -1)


@htp.kernel
def reflect(x: htp.Tensor[i32, "N", 64], y: htp.Out[i32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = 10 - x[i:i + 16, :]


@pytest.mark.parametrize("target", RUN_TARGETS)
@pytest.mark.parametrize("rows", [37, 16, 5])
def test_scalars_fill_ragged_tiles(target, rows):
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 64)).astype(np.float32)
    xi = rng.integers(-10, 10, (rows, 64)).astype(np.int32)
    np.testing.assert_array_equal(clip_negative.compile(target)(x), np.where(x < 0, np.float32(0.5), x))
    np.testing.assert_array_equal(keep_large.compile(target)(xi), np.where(xi > 3, xi, -1))
    np.testing.assert_array_equal(reflect.compile(target)(xi), 10 - xi)


@pytest.mark.parametrize("target", PACKAGE_TARGETS)
def test_ragged_fills_package(target):
    for kernel in (clip_negative, keep_large, reflect):
        assert kernel.compile(target).files


@htp.kernel
def rows_where(x: htp.Tensor[f32, 16, 16], y: htp.Out[f32, 16, 16]):
    y[:, :] = htp.where(x[:, 0:1] > 0.0, x[:, :], -x[:, :])


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_where_broadcasts_a_column_mask_over_wider_values(target):
    x = np.random.default_rng(2).standard_normal((16, 16)).astype(np.float32)
    np.testing.assert_array_equal(rows_where.compile(target)(x), np.where(x[:, 0:1] > 0, x, -x))
