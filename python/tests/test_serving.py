"""Serving routines (docs/serving.md): the decode example served with continuous batching, token
for token against the numpy reference, state kept on the target, and the routine's rules."""

import os
import sys

import numpy as np
import pytest

import htp
from htp import f32, i32
from htp.errors import ArgumentError

from simulators import EXAMPLES, on_a2a3sim

sys.path.insert(0, os.path.join(EXAMPLES, "serving"))
import decode  # noqa: E402
import model  # noqa: E402
import weights  # noqa: E402
from server import Request, Server  # noqa: E402

serving = htp.model("serving")
wsp = htp.model("wsp")


def serve_and_check(target, moe, requests, slots=decode.SLOTS, pool=decode.POOL, layers=2):
    w = weights.make(layers=layers, moe=moe)
    program = decode.routine(moe).compile(target=target)
    with program.start(**decode.initial_state(w, layers, slots, pool)) as session:
        server = Server(lambda *inputs: session.decode(*inputs), slots, pool)
        steps = server.run(requests)
        stats = session.stats()
    for i, request in enumerate(requests):
        assert request.generated == decode.expected_tokens(w, request), f"request {i}: {request}"
    return server, steps, stats


@pytest.mark.parametrize("moe", [False, True], ids=["dense", "moe"])
def test_decode_matches_numpy_token_for_token_with_continuous_batching(moe):
    requests = decode.requests_for(seed=3 if moe else 1)
    server, steps, stats = serve_and_check("cpu", moe, requests)
    assert steps >= 64
    assert min(server.batch_sizes) >= 1 and max(server.batch_sizes) == decode.SLOTS
    # The state went to the target once, and never came back.
    assert set(stats["uploads"].values()) == {1} and len(stats["uploads"]) == len(decode.routine(moe).state)
    assert stats["downloads"] == {}
    assert stats["steps"] == len(server.batch_sizes)


def test_edge_traces_length_one_longer_than_a_page_empty_batch_and_page_reuse():
    requests = [
        Request(prompt=[7], new_tokens=1, arrival=0),                       # one position in all
        Request(prompt=list(range(40)), new_tokens=30, arrival=0),          # 69 positions: 5 pages
        Request(prompt=[3, 4], new_tokens=5, arrival=90),                   # after the batch emptied
        Request(prompt=list(range(100, 120)), new_tokens=12, arrival=91),   # reuses the freed pages
    ]
    pages = {}
    w = weights.make(layers=1)
    program = decode.routine().compile(target="cpu")

    with program.start(**decode.initial_state(w, 1, pool=6)) as session:
        def step(tokens, positions, lens, table):
            for b in range(tokens.shape[0]):
                if lens[b, 0]:
                    pages.setdefault(b, set()).update(table[b, :-(-lens[b, 0] // model.PAGE)].tolist())
            return session.decode(tokens, positions, lens, table)

        server = Server(step, decode.SLOTS, 6)
        server.run(requests)
    for request in requests:
        assert request.generated == decode.expected_tokens(w, request)
    # The pool of 6 pages served 5 + 1 + 1 + 2 pages: freed pages were given again.
    assert len(set().union(*pages.values())) <= 6
    assert 0 in server.batch_sizes or server.steps > len(server.batch_sizes)


def test_a_changed_batch_and_a_new_session_reuse_the_compiled_step(monkeypatch):
    routine = decode.routine()
    program = routine.compile(target="cpu")
    compiles = []
    original = htp._kernel.Kernel._compile
    monkeypatch.setattr(htp._kernel.Kernel, "_compile", lambda *a, **k: compiles.append(a) or original(*a, **k))
    w = weights.make(layers=1)
    for slots in (4, 3, 8):
        with program.start(**decode.initial_state(w, 1, slots=slots)) as session:
            server = Server(lambda *inputs: session.decode(*inputs), slots, decode.POOL)
            requests = [Request(prompt=[1, 2, 3], new_tokens=3, arrival=0), Request(prompt=[9], new_tokens=2, arrival=1)]
            server.run(requests)
            assert [r.generated for r in requests] == [decode.expected_tokens(w, r) for r in requests]
    assert routine.compile(target="cpu").steps["decode"] is program.steps["decode"]
    assert compiles == []


# ---------------------------------------------------------------------------
# A small routine for the rules: a counter and a running sum kept on the target.
# ---------------------------------------------------------------------------


@htp.kernel
def accumulate(x: htp.Tensor[f32, "N", 16], total: htp.InOut[f32, "N", 16], last: htp.Out[f32, "N", 16], scale: f32):
    for r in range(0, x.shape[0], 8):
        t = htp.pad(total[r:r + 8, :], 0.0) + htp.pad(x[r:r + 8, :], 0.0) * scale
        total[r:r + 8, :] = t
        last[r:r + 8, :] = t


@htp.kernel
def bump(count: htp.InOut[i32, 1, 1]):
    count[:, :] = count[:, :] + 1


@wsp.workload
def accumulate_step(x: htp.Tensor[f32, "N", 16], total: htp.InOut[f32, "N", 16], count: htp.InOut[i32, 1, 1],
                    last: htp.Out[f32, "N", 16], scale: f32):
    for i in wsp.parallel(wsp.dense((x.shape[0] + 7) // 8)):
        wsp.task(accumulate, x[i * 8:i * 8 + 8, :], total[i * 8:i * 8 + 8, :], last[i * 8:i * 8 + 8, :], scale)
    wsp.task(bump, count)


def test_state_persists_between_steps_and_outputs_come_back():
    program = serving.routine(state=("total", "count"), step=accumulate_step).compile()
    rng = np.random.default_rng(0)
    total = rng.standard_normal((20, 16)).astype(np.float32)
    expected = total.astype(np.float64)
    with program.start(total=total, count=np.zeros((1, 1), np.int32)) as session:
        for k in range(5):
            x = rng.standard_normal((20, 16)).astype(np.float32)
            last = session.step(x, scale=float(k))          # positional and keyword arguments
            expected = expected + x * k
            np.testing.assert_allclose(last, expected, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(session.read("total"), expected, rtol=1e-5, atol=1e-5)
        assert session.read("count")[0, 0] == 5
        session.write("count", np.full((1, 1), 40, np.int32))
        session.step(np.zeros((20, 16), np.float32), np.empty((20, 16), np.float32), 1.0)   # x, last, scale
        assert session.read("count")[0, 0] == 41
        stats = session.stats()
    assert stats == {"steps": 6, "uploads": {"total": 1, "count": 2}, "downloads": {"total": 1, "count": 2}}
    # The caller's array is not the state: the session placed a copy.
    assert not np.allclose(total, expected)


def test_a_kernel_is_a_step_too_and_steps_share_state():
    program = serving.routine(state=("count",), tick=bump, step=accumulate_step).compile()
    with program.start(count=np.zeros((1, 1), np.int32)) as session:
        session.tick()
        session.tick()
        session.step(np.ones((8, 16), np.float32), scale=1.0)
        assert session.read("count")[0, 0] == 3


def test_routine_rules_are_errors_at_the_call():
    with pytest.raises(TypeError, match="the state 'nope' is a parameter of no step"):
        serving.routine(state=("nope",), step=accumulate_step)
    with pytest.raises(TypeError, match="the state 'scale' is a scalar parameter"):
        serving.routine(state=("scale",), step=accumulate_step).compile()
    with pytest.raises(TypeError, match="at least one step"):
        serving.routine(state=("x",))
    with pytest.raises(TypeError, match="must be an @wsp.workload or an @htp.kernel"):
        serving.routine(step=len)
    with pytest.raises(TypeError, match="cannot be named 'read'"):
        serving.routine(read=bump)


def test_session_errors_name_the_state_and_the_step():
    program = serving.routine(state=("total", "count"), step=accumulate_step).compile()
    count = np.zeros((1, 1), np.int32)
    with pytest.raises(ArgumentError, match="missing state 'count'"):
        program.start(total=np.zeros((8, 16), np.float32))
    with pytest.raises(ArgumentError, match="'extra' is not state"):
        program.start(total=np.zeros((8, 16), np.float32), count=count, extra=count)
    with pytest.raises(ArgumentError, match="'total' is f32 in the step 'step', the array float64"):
        program.start(total=np.zeros((8, 16)), count=count)
    with pytest.raises(ArgumentError, match="dimension 1 of the state 'total' is 16"):
        program.start(total=np.zeros((8, 15), np.float32), count=count)
    with pytest.raises(ArgumentError, match="rank 2"):
        program.start(total=np.zeros(8, np.float32), count=count)
    session = program.start(total=np.zeros((8, 16), np.float32), count=count)
    with pytest.raises(ArgumentError, match="'total' is the routine's state"):
        session.step(np.zeros((8, 16), np.float32), total=np.zeros((8, 16), np.float32), scale=1.0)
    with pytest.raises(ArgumentError, match="test_serving.py:[0-9]+"):
        session.step(np.zeros((9, 16), np.float32), scale=1.0)     # N is 8 in the state, 9 here
    # The same layout again (the per-step checks only): its arguments are still checked.
    x = np.zeros((8, 16), np.float32)
    session.step(x, np.empty((8, 16), np.float32), 1.0)
    with pytest.raises(ArgumentError, match="too many positional arguments"):
        session.step(x, np.empty((8, 16), np.float32), 1.0, 2.0)
    with pytest.raises(ArgumentError, match="scale"):
        session.step(x, np.empty((8, 16), np.float32), "one")
    with pytest.raises(ArgumentError, match="test_serving.py:[0-9]+"):
        session.step(x, np.empty((8, 16), np.float64), 1.0)
    with pytest.raises(AttributeError, match="no step 'decode'"):
        session.decode()
    with pytest.raises(ValueError, match="write\\(\\): the state 'count' is int32"):
        session.write("count", np.zeros((2, 2), np.int32))
    with pytest.raises(KeyError, match="not state"):
        session.read("x")
    session.close()
    with pytest.raises(RuntimeError, match="closed"):
        session.step(np.zeros((8, 16), np.float32), scale=1.0)
    with pytest.raises(RuntimeError, match="closed"):
        session.read("total")


@on_a2a3sim
@pytest.mark.parametrize("moe", [False, True], ids=["dense", "moe"])
def test_decode_on_a2a3sim_matches_numpy_with_state_on_the_device(moe):
    requests = [Request(prompt=[5, 9, 17], new_tokens=4, arrival=0), Request(prompt=[1], new_tokens=3, arrival=1),
                Request(prompt=list(range(20)), new_tokens=2, arrival=0), Request(prompt=[4, 4], new_tokens=2, arrival=5)]
    server, steps, stats = serve_and_check("pto-a2a3sim", moe, requests)
    assert set(stats["uploads"].values()) == {1}
    assert stats["downloads"] == {}


@on_a2a3sim
def test_state_persists_on_a2a3sim():
    program = serving.routine(state=("total", "count"), step=accumulate_step).compile(target="pto-a2a3sim")
    rng = np.random.default_rng(1)
    total = rng.standard_normal((16, 16)).astype(np.float32)
    expected = total.astype(np.float64)
    with program.start(total=total, count=np.zeros((1, 1), np.int32)) as session:
        for k in range(3):
            x = rng.standard_normal((16, 16)).astype(np.float32)
            last = session.step(x, scale=float(k + 1))
            expected = expected + x * (k + 1)
            np.testing.assert_allclose(last, expected, rtol=1e-5, atol=1e-5)
        assert session.read("count")[0, 0] == 3
        stats = session.stats()
    assert stats["uploads"] == {"total": 1, "count": 1} and stats["downloads"] == {"count": 1}
