"""What the PTO targets refuse is said in the user's terms, at the user's line (issue 26): a tile
larger than the vector core's buffer was "'pto.alloc_tile' op tile of 262144 bytes exceeds ..."
under HTP's own frames; a 10-row gather (a MoE combine) was "'pto.mgather' op gathers 16 rows ...
'dst' has 10" (HTP's verifier compared allocated rows where pto-isa pairs valid ones)."""

import os
import traceback

import numpy as np
import pytest

import htp
from htp import f32, i32
from test_errors import assert_points_at
from test_wsp_pto import line_of, needs_runtime


@htp.kernel
def whole_256(x: htp.Tensor[f32, 256, 256], y: htp.Out[f32, 256, 256]):
    y[:, :] = x[:, :] + 1.0


@pytest.mark.parametrize("target", ["pto-a2a3sim", "pto-a2a3"])
def test_a_tile_larger_than_ub_is_an_error_in_the_users_terms(target):
    with pytest.raises(htp.CompileError) as info:
        whole_256.compile(target)
    message = str(info.value)
    assert "this 256x256 f32 tile (262144 bytes) is larger than the vector core's buffer (UB: 188416 usable bytes" in message, message
    assert "for r in range(0, 256, R)" in message and "at most 184 rows of 256" in message
    assert "pto.alloc_tile" not in message
    assert_points_at(info.value, "test_pto_user_errors.py", line_of(whole_256, "y[:, :] ="))
    # The traceback ends in the user's call: HTP's frames are dropped but for the raising one.
    frames = [f for f in traceback.extract_tb(info.value.__traceback__) if os.sep + "htp" + os.sep in f.filename]
    assert len(frames) <= 1, frames


@htp.kernel
def gather_10(x: htp.Tensor[f32, 32, 64], idx: htp.Tensor[i32, 10, 1], o: htp.Out[f32, 10, 64]):
    o[:, :] = htp.gather(x, idx[:, :], 0, 64) * 2.0


@htp.kernel
def gather_21(x: htp.Tensor[f32, 32, 64], idx: htp.Tensor[i32, 21, 1], o: htp.Out[f32, 21, 64]):
    o[:, :] = htp.gather(x, idx[:, :], 0, 64) * 2.0


@pytest.mark.parametrize("target", ["pto-a2a3sim", "pto-a2a3"])
@pytest.mark.parametrize("kernel", [gather_10, gather_21], ids=["10", "21"])
def test_a_gather_of_rows_not_a_multiple_of_8_compiles(kernel, target):
    assert "pto.mgather" in kernel.compile(target).ir["pto"]


@needs_runtime
@pytest.mark.parametrize("kernel, rows", [(gather_10, 10), (gather_21, 21)], ids=["10", "21"])
def test_a_gather_of_rows_not_a_multiple_of_8_runs_on_a2a3sim(kernel, rows):
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((32, 64)).astype(np.float32)
    idx = rng.integers(0, 32, (rows, 1)).astype(np.int32)
    o = np.zeros((rows, 64), np.float32)
    kernel.compile("pto-a2a3sim")(x, idx, o)
    np.testing.assert_array_equal(o, x[idx[:, 0]] * 2)
