"""The CPU target runs a kernel's outer loop on every core when its
iterations are independent (tile-outline-parallel-chunks + htp-runtime's
pool), and serially otherwise; the numbers are the same either way."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import htp
from htp import f32


@htp.kernel
def scaled_rows(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], k: f32):
    for i in range(0, x.shape[0], 8):
        y[i:i + 8, :] = htp.exp(x[i:i + 8, :]) * k


@htp.kernel
def prefix_rows(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, 8, 64]):
    acc = htp.zeros((8, 64), htp.f32)
    for i in range(0, x.shape[0], 8):
        acc = acc + htp.pad(x[i:i + 8, :], 0.0)
    y[0:8, :] = acc


def test_independent_outer_loop_gets_chunk_functions():
    llvm = scaled_rows.compile("cpu").ir["llvm"]
    assert "scaled_rows__chunk" in llvm and "scaled_rows__bounds" in llvm


def test_carried_loop_stays_serial():
    llvm = prefix_rows.compile("cpu").ir["llvm"]
    assert "__chunk" not in llvm
    x = np.random.default_rng(1).standard_normal((37, 64), dtype=np.float32)
    padded = np.concatenate([x, np.zeros((3, 64), np.float32)])
    np.testing.assert_allclose(prefix_rows(x), padded.reshape(5, 8, 64).sum(axis=0), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("rows", [0, 1, 7, 8, 9, 63, 64, 65, 1000, 4099])
def test_chunked_rows_match_numpy(rows):
    x = np.random.default_rng(rows).standard_normal((rows, 64), dtype=np.float32)
    np.testing.assert_allclose(scaled_rows(x, k=0.5), np.exp(x) * 0.5, rtol=1e-6)


SCRIPT = textwrap.dedent(
    """
    import numpy as np, htp, sys
    sys.path.insert(0, {tests!r})
    from test_cpu_parallel import scaled_rows
    x = np.random.default_rng(3).standard_normal((1001, 64), dtype=np.float32)
    y = scaled_rows(x, k=2.0)
    assert np.allclose(y, np.exp(x) * 2.0, rtol=1e-6), "wrong numbers"
    print("ok")
    """
)


@pytest.mark.parametrize("threads", ["1", "2", "3", "8"])
def test_any_thread_count_gives_the_same_numbers(threads):
    script = SCRIPT.format(tests=os.path.dirname(__file__))
    env = dict(os.environ, HTP_NUM_THREADS=threads, PYTHONPATH=os.pathsep.join(sys.path))
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
