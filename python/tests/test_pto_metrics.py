"""CompiledKernel.metrics on the PTO targets: static counts of one call
(compile only; nothing runs), with exact expected numbers."""

import math
import os
import sys

import numpy as np
import pytest

import htp
from htp import f16, f32

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
from gemm import gemm  # noqa: E402
from rmsnorm import rmsnorm  # noqa: E402
from vector_add import vector_add  # noqa: E402


@pytest.mark.parametrize("target", ["pto-a2a3sim", "pto-a2a3"])
@pytest.mark.parametrize("rows", [16, 100, 1000])
def test_a_streaming_kernel_reads_and_writes_each_element_once(target, rows):
    a = np.zeros((rows, 256), np.float32)
    m = vector_add.compile(target).metrics(a, a)  # the output is omitted, as in a call
    assert m["read_bytes.a"] == m["read_bytes.b"] == a.nbytes
    assert m["gm_read_bytes"] == 2 * a.nbytes
    assert m["gm_write_bytes"] == m["write_bytes.c"] == a.nbytes
    blocks = math.ceil(rows / 16)
    tasks = math.ceil(blocks / math.ceil(blocks / 48))  # chunks of row blocks for 48 vector cores
    assert (m["tloads"], m["tstores"], m["tasks"]) == (2 * blocks, blocks, tasks)
    assert m["peak_bytes.vec"] == 3 * 16 * 256 * 4 and m["peak_bytes.acc"] == 0
    assert m["set_flags"] == m["wait_flags"]
    # No V barrier: each TADD's predecessor is ordered by the flags around the TSTORE.
    assert m["barriers"] == 0


def test_gemm_reads_the_blocked_algorithms_traffic():
    a, b = np.zeros((200, 500), np.float16), np.zeros((500, 130), np.float16)
    m = gemm.compile("pto-a2a3sim").metrics(a, b)
    assert m["read_bytes.a"] == a.nbytes * math.ceil(130 / 64)
    assert m["read_bytes.b"] == b.nbytes * math.ceil(200 / 64)
    assert m["write_bytes.c"] == 200 * 130 * 4
    assert (m["peak_bytes.acc"], m["peak_bytes.left"], m["peak_bytes.right"]) == (64 * 64 * 4, 64 * 32 * 2, 32 * 64 * 2)


@pytest.mark.parametrize("rows", [100, 1000, 4096])
def test_rmsnorm_reads_x_once_and_w_once_per_task(rows):
    # The example's two passes over each row block share its loads: tile-reuse-loads
    # unrolls both and keeps the row block in UB, and hoists w's loads out of the row
    # loop, so each task (a chunk of row blocks) reads w once (docs/performance.md).
    x, w = np.zeros((rows, 1024), np.float32), np.zeros((1, 1024), np.float32)
    m = rmsnorm.compile("pto-a2a3sim").metrics(x, w, eps=1e-6)
    blocks = math.ceil(rows / 8)
    tasks = math.ceil(blocks / math.ceil(blocks / 48))
    assert m["tasks"] == tasks
    assert m["read_bytes.x"] == x.nbytes
    assert m["read_bytes.w"] == w.nbytes * tasks
    assert m["write_bytes.y"] == x.nbytes


@htp.kernel
def scaled_cluster(x: htp.Tensor[f16, "M", 64], w: htp.Tensor[f16, 64, 64], y: htp.Out[f32, "M", 64], s: f32):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = (x[i:i + 16, :] @ w[:, :]) * s


def test_a_cluster_task_stores_once_and_counts_its_hand_overs():
    x, w = np.zeros((32, 64), np.float16), np.zeros((64, 64), np.float16)
    m = scaled_cluster.compile("pto-a2a3sim").metrics(x, w, s=0.5)
    assert m["tasks"] == 2
    assert m["read_bytes.x"] == x.nbytes and m["read_bytes.w"] == 2 * w.nbytes
    # Both vector cores of a cluster take each product; only the first stores.
    assert m["write_bytes.y"] == 32 * 64 * 4
    assert m["tpushes"] == 2 and m["tpops"] == 4
    assert m["ring_bytes"] == 6 * 16 * 64 * 4


def test_metrics_take_the_calls_argument_rules():
    k = vector_add.compile("pto-a2a3sim")
    with pytest.raises(htp.ArgumentError, match="dimension 1 must be 256"):
        k.metrics(np.zeros((16, 128), np.float32), np.zeros((16, 128), np.float32))


def test_a_target_without_metrics_says_so():
    a = np.zeros((16, 256), np.float32)
    with pytest.raises(htp.TargetError, match="computes no static metrics"):
        vector_add.compile("cpu").metrics(a, a)
