"""A cube result whose columns are not a whole 32-byte row of the vector
tile crosses to the vector core intact (issue 26: a MoE top-3 router over 6
experts routed 37 tokens to the wrong experts on a2a3sim, silently). The
cube pushed the result's own columns (6 f32) while the simulator's pop reads
rows at the vector tile's width (8): rows slid. The pushed region is now the
vector tile's rows (`crossing_result_valid`). Runs on a2a3sim (skipped,
visibly, without it); the cpu is the reference it must equal."""

import numpy as np
import pytest

import htp
import moe_topk
from htp import f32
from test_wsp_pto import needs_runtime


@htp.kernel
def scores_of_4(q: htp.Tensor[f32, 4, 64], kc: htp.Tensor[f32, 64, 64], o: htp.Out[f32, 64, 1]):
    # 64 keys x 4 heads (a GQA group): the cube's result has 4 columns, then the vector core reduces it.
    o[:, :] = htp.row_max(kc[:, :] @ htp.transpose(q[:, :]))


@htp.kernel
def scores_of_6(q: htp.Tensor[f32, 6, 64], kc: htp.Tensor[f32, 64, 64], o: htp.Out[f32, 64, 1]):
    o[:, :] = htp.row_max(kc[:, :] @ htp.transpose(q[:, :]))


@htp.kernel
def scores_of_16(q: htp.Tensor[f32, 16, 64], kc: htp.Tensor[f32, 64, 64], o: htp.Out[f32, 64, 1]):
    o[:, :] = htp.row_max(kc[:, :] @ htp.transpose(q[:, :]))


@needs_runtime
@pytest.mark.parametrize("heads, kernel", [(4, scores_of_4), (6, scores_of_6), (16, scores_of_16)], ids=["4", "6", "16"])
def test_a_narrow_cube_result_reaches_the_vector_core_intact(heads, kernel):
    rng = np.random.default_rng(heads)
    q = rng.standard_normal((heads, 64), dtype=np.float32)
    kc = rng.standard_normal((64, 64), dtype=np.float32)
    o = np.zeros((64, 1), np.float32)
    kernel.compile("pto-a2a3sim")(q, kc, o)
    np.testing.assert_allclose(o, (kc @ q.T).max(1, keepdims=True), rtol=1e-5, atol=1e-5)
    cpu = np.zeros_like(o)
    kernel(q, kc, cpu)
    np.testing.assert_allclose(o, cpu, rtol=1e-5, atol=1e-5)


@needs_runtime
@pytest.mark.parametrize("tokens, experts, top", [(37, 6, 3), (5, 6, 3), (37, 8, 2)])
def test_moe_routes_like_numpy_on_a2a3sim(tokens, experts, top):
    b, _, expected, counts = moe_topk.run(tokens, experts, top, "pto-a2a3sim")
    assert b["counts"].ravel().tolist() == counts.tolist()
    np.testing.assert_allclose(b["out"], expected, rtol=1e-4, atol=1e-4)
