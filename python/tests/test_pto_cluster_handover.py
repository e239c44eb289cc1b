"""Cluster kernels (cube and vector work in one kernel) whose matmul operands
are made by vector work: both operands of one matmul, an operand made once
before a loop and read in every trip, operands that are not whole cube
fractals (one and four query rows, an 8-bit contraction of 16), a transposed
gathered tile, and decode attention — single-query, grouped-query and paged —
written as one kernel each. Every one is compared with numpy on every target
that runs here (the simulator when pto-runtime is present), and packaged for
the chip."""

import json
import os

import numpy as np
import pytest

import htp
from htp import f16, f32, i8, i32
from targets import PACKAGE_TARGETS, RUN_TARGETS


@htp.kernel
def both_operands_computed(m: htp.Tensor[f32, 16, 64], u: htp.Tensor[f32, 64, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = (m[:, :] * 1.0) @ (u[:, :] * 1.0)


@htp.kernel
def operand_made_before_loop(x: htp.Tensor[f32, 16, 64], w: htp.Tensor[f32, 64, "N"], y: htp.Out[f32, 16, "N"]):
    a = x[:, :] * 2.0
    for j in range(0, w.shape[1], 32):
        y[:, j:j + 32] = a @ w[:, j:j + 32] + 1.0


@htp.kernel
def ragged_result_columns(x: htp.Tensor[f32, 16, 64], w: htp.Tensor[f32, 64, "N"], y: htp.Out[f32, 16, "N"]):
    for j in range(0, w.shape[1], 32):
        y[:, j:j + 32] = htp.exp((x[:, :] @ w[:, j:j + 32]) * 0.1)


@htp.kernel
def ragged_computed_rows(x: htp.Tensor[f32, "M", 64], w: htp.Tensor[f32, 64, 32], y: htp.Out[f32, "M", 32]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = (x[i:i + 16, :] * 2.0) @ w[:, :]


@htp.kernel
def operand_in_two_roles(x: htp.Tensor[f32, 16, 16], y: htp.Out[f32, 16, 16], z: htp.Out[f32, 16, 16]):
    a = x[:, :] + 1.0
    y[:, :] = a @ a           # left and right of one matmul
    z[:, :] = (a @ x[:, :]) + a   # left of another, and vector work


@htp.kernel
def operand_in_a_branch(x: htp.Tensor[f32, 16, 32], w: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 16, 32], flag: i32):
    if flag > 0:
        y[:, :] = (x[:, :] * 3.0) @ w[:, :]
    else:
        y[:, :] = x[:, :] @ (w[:, :] * 0.5)


@htp.kernel
def nested_loops(x: htp.Tensor[f32, "M", 32], w: htp.Tensor[f32, 32, "N"], y: htp.Out[f32, "M", "N"]):
    for i in range(0, x.shape[0], 16):
        a = htp.relu(x[i:i + 16, :])
        for j in range(0, w.shape[1], 16):
            y[i:i + 16, j:j + 16] = htp.exp((a @ w[:, j:j + 16]) * 0.1)


@htp.kernel
def one_query_row(q: htp.Tensor[f32, "B", 64], w: htp.Tensor[f32, 64, 32], y: htp.Out[f32, "B", 32]):
    for b in range(q.shape[0]):
        y[b:b + 1, :] = htp.exp((q[b:b + 1, :] * 0.5) @ w[:, :])


@htp.kernel
def four_query_rows(q: htp.Tensor[f16, "G", 4, 64], k: htp.Tensor[f16, 64, 64], y: htp.Out[f32, "G", 4, 64]):
    for g in range(q.shape[0]):
        s = htp.matmul(q[g, :, :] * 1.0, k[:, :], dtype=f32)
        y[g, :, :] = s - htp.row_max(s)


@htp.kernel
def int8_short_contraction(a: htp.Tensor[i8, 32, 16], b: htp.Tensor[i8, 16, 32], y: htp.Out[i32, 32, 32]):
    a8 = htp.cast(htp.maximum(htp.cast(a[:, :], f16), 0.0), i8)  # A2/A3 has no 8-bit max
    y[:, :] = htp.matmul(a8, b[:, :], dtype=i32) + 1


@htp.kernel
def transposed_gather(q: htp.Tensor[f32, 16, 64], k: htp.Tensor[f32, "R", 64], rows: htp.Tensor[i32, 32, 1],
                      y: htp.Out[f32, 16, 32]):
    kt = htp.gather(k, rows[:, :], 0, 64)
    y[:, :] = htp.exp((q[:, :] @ kt.T) * 0.125)


@htp.kernel
def decode_single(q: htp.Tensor[f32, "B", 64], k: htp.Tensor[f32, "B", "S", 64], v: htp.Tensor[f32, "B", "S", 64],
                  o: htp.Out[f32, "B", 64], scale: f32):
    for b in range(q.shape[0]):
        qi = q[b:b + 1, :]
        m = htp.full((1, 1), -1.0e30, f32)
        l = htp.zeros((1, 1), f32)
        acc = htp.zeros((1, 64), f32)
        for j in range(0, k.shape[1], 32):
            s = (qi @ htp.transpose(k[b, j:j + 32, :])) * scale
            s = htp.pad(s, -1.0e30)
            m_new = htp.maximum(m, htp.row_max(s))
            p = htp.exp(s - m_new)
            alpha = htp.exp(m - m_new)
            l = l * alpha + htp.row_sum(p)
            acc = acc * alpha + p @ htp.pad(v[b, j:j + 32, :], 0.0)
            m = m_new
        o[b:b + 1, :] = acc / l


@htp.kernel
def decode_grouped(q: htp.Tensor[f32, "H", 4, 64], k: htp.Tensor[f32, "H", "S", 64], v: htp.Tensor[f32, "H", "S", 64],
                   o: htp.Out[f32, "H", 4, 64], scale: f32):
    for h in range(q.shape[0]):
        qh = q[h, :, :]
        m = htp.full((4, 1), -1.0e30, f32)
        l = htp.zeros((4, 1), f32)
        acc = htp.zeros((4, 64), f32)
        for j in range(0, k.shape[1], 32):
            s = htp.pad((qh @ htp.transpose(k[h, j:j + 32, :])) * scale, -1.0e30)
            m_new = htp.maximum(m, htp.row_max(s))
            p = htp.exp(s - m_new)
            alpha = htp.exp(m - m_new)
            l = l * alpha + htp.row_sum(p)
            acc = acc * alpha + p @ htp.pad(v[h, j:j + 32, :], 0.0)
            m = m_new
        o[h, :, :] = acc / l


@htp.kernel
def decode_paged(q: htp.Tensor[f32, "B", 64], k_cache: htp.Tensor[f32, "P", 64], v_cache: htp.Tensor[f32, "P", 64],
                 slots: htp.Tensor[i32, "B", "S", 1], o: htp.Out[f32, "B", 64], scale: f32):
    for b in range(q.shape[0]):
        qi = q[b:b + 1, :]
        m = htp.full((1, 1), -1.0e30, f32)
        l = htp.zeros((1, 1), f32)
        acc = htp.zeros((1, 64), f32)
        for j in range(0, slots.shape[1], 32):
            rows = slots[b, j:j + 32, :]
            s = htp.pad((qi @ htp.gather(k_cache, rows, 0, 64).T) * scale, -1.0e30)
            m_new = htp.maximum(m, htp.row_max(s))
            p = htp.exp(s - m_new)
            alpha = htp.exp(m - m_new)
            l = l * alpha + htp.row_sum(p)
            acc = acc * alpha + p @ htp.pad(htp.gather(v_cache, rows, 0, 64), 0.0)
            m = m_new
        o[b:b + 1, :] = acc / l


def attention_reference(q, k, v, scale):
    """q: [..., R, D], k/v: [..., S, D] -> [..., R, D] in float64."""
    s = (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)) * scale
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v.astype(np.float64)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_both_operands_made_by_vector_work(target):
    rng = np.random.default_rng(1)
    m = rng.standard_normal((16, 64)).astype(np.float32)
    u = rng.standard_normal((64, 64)).astype(np.float32)
    np.testing.assert_allclose(both_operands_computed.compile(target)(m, u), m @ u, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_an_operand_made_before_a_loop_is_read_every_trip(target):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    w = rng.standard_normal((64, 96)).astype(np.float32)
    np.testing.assert_allclose(operand_made_before_loop.compile(target)(x, w), (2 * x) @ w + 1, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_a_result_with_ragged_columns_crosses_to_the_vector_core(target):
    rng = np.random.default_rng(10)
    x = rng.standard_normal((16, 64)).astype(np.float32) * 0.3
    w = rng.standard_normal((64, 80)).astype(np.float32) * 0.3
    np.testing.assert_allclose(ragged_result_columns.compile(target)(x, w), np.exp((x @ w) * 0.1), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_a_computed_operand_with_ragged_rows_crosses_to_the_cube(target):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((40, 64)).astype(np.float32)
    w = rng.standard_normal((64, 32)).astype(np.float32)
    np.testing.assert_allclose(ragged_computed_rows.compile(target)(x, w), (2 * x) @ w, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_an_operand_in_two_roles_and_in_vector_work(target):
    x = np.random.default_rng(12).standard_normal((16, 16)).astype(np.float32) * 0.5
    a = x.astype(np.float64) + 1
    y, z = operand_in_two_roles.compile(target)(x)
    np.testing.assert_allclose(y, a @ a, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(z, a @ x + a, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
@pytest.mark.parametrize("flag", [1, 0])
def test_computed_operands_in_a_branch(target, flag):
    rng = np.random.default_rng(13)
    x = rng.standard_normal((16, 32)).astype(np.float32)
    w = rng.standard_normal((32, 32)).astype(np.float32)
    expected = (x * 3.0) @ w if flag else x @ (w * 0.5)
    np.testing.assert_allclose(operand_in_a_branch.compile(target)(x, w, flag=flag), expected, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_an_operand_made_in_an_outer_loop_read_in_an_inner_one(target):
    rng = np.random.default_rng(14)
    x = rng.standard_normal((40, 32)).astype(np.float32) * 0.3
    w = rng.standard_normal((32, 40)).astype(np.float32) * 0.3
    expected = np.exp((np.maximum(x, 0).astype(np.float64) @ w) * 0.1)
    np.testing.assert_allclose(nested_loops.compile(target)(x, w), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_one_query_row(target):
    rng = np.random.default_rng(3)
    q = rng.standard_normal((3, 64)).astype(np.float32) * 0.2
    w = rng.standard_normal((64, 32)).astype(np.float32) * 0.2
    np.testing.assert_allclose(one_query_row.compile(target)(q, w), np.exp((q * 0.5) @ w), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_four_query_rows(target):
    rng = np.random.default_rng(4)
    q = rng.standard_normal((2, 4, 64)).astype(np.float16)
    k = rng.standard_normal((64, 64)).astype(np.float16)
    s = q.astype(np.float32) @ k.astype(np.float32)
    expected = s - s.max(axis=-1, keepdims=True)
    np.testing.assert_allclose(four_query_rows.compile(target)(q, k), expected, rtol=1e-2, atol=5e-2)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_an_eight_bit_contraction_of_sixteen(target):
    rng = np.random.default_rng(5)
    a = rng.integers(-100, 100, (32, 16)).astype(np.int8)
    b = rng.integers(-100, 100, (16, 32)).astype(np.int8)
    expected = np.maximum(a, 0).astype(np.int32) @ b.astype(np.int32) + 1
    np.testing.assert_array_equal(int8_short_contraction.compile(target)(a, b), expected)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_a_transposed_gathered_tile(target):
    rng = np.random.default_rng(6)
    q = rng.standard_normal((16, 64)).astype(np.float32) * 0.3
    k = rng.standard_normal((50, 64)).astype(np.float32) * 0.3
    rows = rng.integers(0, 50, (32, 1)).astype(np.int32)
    expected = np.exp((q @ k[rows[:, 0]].T) * 0.125)
    np.testing.assert_allclose(transposed_gather.compile(target)(q, k, rows), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
@pytest.mark.parametrize("length", [64, 80])
def test_single_query_decode_attention(target, length):
    rng = np.random.default_rng(7)
    q = rng.standard_normal((2, 64)).astype(np.float32)
    k = rng.standard_normal((2, length, 64)).astype(np.float32)
    v = rng.standard_normal((2, length, 64)).astype(np.float32)
    got = decode_single.compile(target)(q, k, v, scale=0.125)
    expected = attention_reference(q[:, None, :], k, v, 0.125)[:, 0, :]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_grouped_query_decode_attention(target):
    rng = np.random.default_rng(8)
    q = rng.standard_normal((2, 4, 64)).astype(np.float32)
    k = rng.standard_normal((2, 72, 64)).astype(np.float32)
    v = rng.standard_normal((2, 72, 64)).astype(np.float32)
    got = decode_grouped.compile(target)(q, k, v, scale=0.125)
    np.testing.assert_allclose(got, attention_reference(q, k, v, 0.125), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_paged_decode_attention(target):
    rng = np.random.default_rng(9)
    pages, page = 8, 16
    k_cache = rng.standard_normal((pages * page, 64)).astype(np.float32)
    v_cache = rng.standard_normal((pages * page, 64)).astype(np.float32)
    q = rng.standard_normal((2, 64)).astype(np.float32)
    tables = np.array([[3, 0, 6, 1], [7, 2, 5, 4]])
    slots = (tables[:, :, None] * page + np.arange(page)).reshape(2, 64, 1).astype(np.int32)
    got = decode_paged.compile(target)(q, k_cache, v_cache, slots, scale=0.125)
    k = k_cache[slots[:, :, 0]]
    v = v_cache[slots[:, :, 0]]
    expected = attention_reference(q[:, None, :], k, v, 0.125)[:, 0, :]
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


KERNELS = [both_operands_computed, operand_made_before_loop, operand_in_two_roles, operand_in_a_branch, nested_loops, ragged_result_columns, ragged_computed_rows, one_query_row, four_query_rows, int8_short_contraction,
           transposed_gather, decode_single, decode_grouped, decode_paged]


@pytest.mark.parametrize("target", PACKAGE_TARGETS)
@pytest.mark.parametrize("kernel", KERNELS, ids=[k.name for k in KERNELS])
def test_each_is_one_cluster_task(tmp_path, target, kernel):
    root = kernel.compile(target=target).write_package(tmp_path / kernel.name)
    manifest = json.loads(open(os.path.join(root, "manifest.json")).read())
    assert {k["core_type"] for k in manifest["kernels"]} == {"aic", "aiv"}
