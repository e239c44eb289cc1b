"""Kernels the fuzzer's pto profile found HTP building invalid PTO for
(2026-11-25): a cast of a padded narrow tile (the pad's valid region was its
buffer's 32-byte row, not the tile) and a 1x1 tile broadcast down a column
(TROWEXPAND writes ND tiles only), and an 8-bit one-column matmul operand
made by vector work (expanded to whole fractals as a DN tile). Each runs on every target here and equals
numpy."""

import numpy as np
import pytest

import htp
from htp import f32, i8, i16, i32
from targets import RUN_TARGETS


@htp.kernel
def cast_of_a_padded_narrow_tile(x: htp.Tensor[i16, 37], y: htp.Out[f32, 37]):
    for j in range(0, 37, 8):
        y[j:j + 8] = htp.cast(htp.cast(htp.pad(x[j:j + 8], 1), i32) * 3, f32)


@htp.kernel
def one_value_down_a_column(x: htp.Tensor[i32, 6, 1], y: htp.Out[i32, 6, 1]):
    for i in range(0, 6, 2):
        y[i:i + 2, :] = x[i:i + 2, :] + htp.broadcast(htp.full((1, 1), 7, i32), (2, 1))


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_cast_of_a_padded_narrow_tile(target):
    x = np.arange(-18, 19, dtype=np.int16)
    np.testing.assert_array_equal(cast_of_a_padded_narrow_tile.compile(target)(x), (x.astype(np.int32) * 3).astype(np.float32))


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_one_value_broadcast_down_a_column(target):
    x = np.arange(6, dtype=np.int32).reshape(6, 1)
    np.testing.assert_array_equal(one_value_down_a_column.compile(target)(x), x + 7)


@htp.kernel
def int8_column_operand(a: htp.Tensor[i32, 8, 1], y: htp.Out[i32, 8, 37], alpha: i8):
    y[:, :] = htp.matmul(htp.cast(a[:, :], i8), htp.full((1, 37), alpha), dtype=i32)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_an_int8_column_made_by_vector_work_as_a_matmul_operand(target):
    a = np.arange(-4, 4, dtype=np.int32).reshape(8, 1)
    expected = a * np.full((1, 37), 3, dtype=np.int32)
    np.testing.assert_array_equal(int8_column_operand.compile(target)(a, alpha=3), expected)
