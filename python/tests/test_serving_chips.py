"""The decode example on a group of chips (docs/serving.md, "Several chips"): tensor parallelism
(attention heads, the KV cache's columns and the FFN split over the chips, an allreduce after the
output projection and after the FFN) and expert parallelism (the MoE's experts split, their
contributions combined by the FFN's allreduce), each step one run of one WSP workload on every chip
with its collectives as tasks (examples/python/serving/parallel.py).

Without the simulator: what the step compiles to (windows, the CommContext handed to the collective
tasks), the sharding, and the rules at the user's lines — a kernel that communicates called like
any kernel, a workload with windows on the cpu, a task giving a window parameter another tensor,
a routine whose step communicates started without a group. On a2a3sim (`on_a2a3sim`): requests
served with continuous batching on 2 and 4 chips, dense and MoE, every token equal to the numpy
reference and to the one-chip routine's (on the cpu), every chip sampling the same tokens, and each
chip's KV cache its heads' columns of the one-chip cache. Each group session is a process of its
own per chip, forked when it opens: its runs leak pthread keys there, not in this process
(`GroupSession.runs_left`); each test here runs fewer than 40."""

import json
import os
import sys

import numpy as np
import pytest

import htp
from htp import comm, f32, i32
from htp.errors import ArgumentError

from simulators import EXAMPLES, on_a2a3sim

sys.path.insert(0, os.path.join(EXAMPLES, "serving"))
import decode  # noqa: E402
import model  # noqa: E402
import parallel  # noqa: E402
import weights  # noqa: E402
from server import Request, Server  # noqa: E402

import collectives  # noqa: E402  (examples/python/collectives, on the path parallel.py put it on)

wsp = htp.model("wsp")
serving = htp.model("serving")
SIM = "pto-a2a3sim"
LAYERS = 2


# ----------------------------------------------------------------------------
# Compiling and sharding (no simulator)
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("chips", [2, 4])
def test_the_step_of_a_chip_takes_windows_and_hands_its_context_to_each_allreduce(chips):
    compiled = parallel.decode_step_tp.compile(target=SIM, **parallel.constants(chips))
    manifest = json.loads(compiled.files["manifest.json"])
    arguments = {a["name"]: a for a in manifest["arguments"]}
    assert arguments["boxes"]["comm"] == "window" and arguments["boxes"]["shape"] == ["L", 2, 8, "B", 64]
    assert arguments["done"]["comm"] == "window" and arguments["done"]["shape"] == ["L", 2, 8]
    assert arguments["comm_context"] == {"name": "comm_context", "kind": "scalar", "dtype": "int64", "comm": "context"}
    # The chip's share: its heads' columns (QD) of q, the cache and wo's rows.
    qd = model.HEADS // chips * model.DH
    assert arguments["k_cache"]["shape"] == ["L", "S", qd] and arguments["wqkv"]["shape"] == ["L", 64, 3 * qd]
    assert arguments["w_gate"]["shape"] == ["L", 64, model.F // chips]
    orchestration = compiled.files[manifest["orchestration"]["source"]]
    # Two allreduce tasks a layer (after the attention, mailbox (l, 0); after the FFN, (l, 1)), each
    # handed the workload's own CommContext, the orchestration's argument the runner fills.
    calls = [line.strip() for line in orchestration.splitlines() if line.strip().startswith("htp_orchestration_allreduce_add(")]
    assert len(calls) == 2, calls
    assert calls[0].startswith("htp_orchestration_allreduce_add(htp_schedule, part, x, boxes, done, ")
    assert calls[0].endswith(", 0, comm_context);") and calls[1].endswith(", 1, comm_context);")
    assert "const int64_t comm_context = from_u64<int64_t>(orch_args.scalar(0));" in orchestration
    assert [p.name for p in compiled.parameters if p.kind == "window"] == ["boxes", "done"]


def test_the_moe_step_of_a_chip_compiles_for_both_pto_targets():
    for target in (SIM, "pto-a2a3"):
        compiled = parallel.decode_step_moe_ep.compile(target=target, **parallel.constants(4, moe=True))
        manifest = json.loads(compiled.files["manifest.json"])
        arguments = {a["name"]: a for a in manifest["arguments"]}
        assert arguments["experts"]["shape"] == ["E", 1] and arguments["w_gate"]["shape"] == ["L", "E", 64, 128]
        assert arguments["comm_context"]["comm"] == "context"


def test_shards_put_back_together_are_the_model():
    for moe in (False, True):
        w = weights.make(layers=LAYERS, moe=moe)
        for chips in (1, 2, 4):
            shards = parallel.shard(w, chips)
            qd = model.HEADS // chips * model.DH
            wqkv = shards["wqkv"]
            for part in range(3):  # q, k, v: each chip's heads in order
                whole = np.concatenate([s[:, :, part * qd:(part + 1) * qd] for s in wqkv], axis=2)
                np.testing.assert_array_equal(whole, w["wqkv"][:, :, part * model.D:(part + 1) * model.D])
            np.testing.assert_array_equal(np.concatenate(shards["wo"], axis=1), w["wo"])
            if moe:
                np.testing.assert_array_equal(np.concatenate(shards["w_down"], axis=1), w["w_down"])
                assert np.concatenate(shards["experts"])[:, 0].tolist() == list(range(model.EXPERTS))
                assert shards["w_router"] is w["w_router"]
            else:
                np.testing.assert_array_equal(np.concatenate(shards["w_gate"], axis=2), w["w_gate"])
                np.testing.assert_array_equal(np.concatenate(shards["w_down"], axis=1), w["w_down"])
            assert shards["embedding"] is w["embedding"]
    with pytest.raises(ValueError, match="3 chips do not divide"):
        parallel.constants(3)


def test_a_kernel_that_communicates_called_like_any_kernel_names_the_group():
    compiled = collectives.allreduce.compile(target=SIM)
    x = np.ones((16, 64), np.float32)
    with pytest.raises(ArgumentError) as error:
        compiled(x)
    text = str(error.value)
    assert "allreduce() communicates with other chips (its communication windows: boxes, done)" in text
    assert "allreduce.compile(target=...).group(chips=n)" in text and "test_serving_chips.py" in text
    with pytest.raises(ArgumentError, match="'boxes' is a communication window \\(comm.Window\\): no call passes it"):
        compiled(x, boxes=np.zeros((8, 16, 64), np.float32))
    with pytest.raises(ArgumentError, match="communicates with other chips"):
        compiled.prepare(x)
    # A group runs a target's packages: the cpu's code runs in this process.
    with pytest.raises(htp.TargetError, match="runs in this process: a group of chips runs a target's packages"):
        model.rmsnorm.compile(target="cpu").group(chips=2)


def test_a_workload_with_windows_is_refused_on_the_cpu_at_the_parameter():
    with pytest.raises(htp.CompileError) as error:
        parallel.decode_step_tp.compile(target="cpu")
    text = str(error.value)
    assert "a communication window parameter (comm.Window) is not available on target 'cpu'" in text
    assert "boxes: comm.Window" in text


@htp.kernel
def send_rows(x: htp.Tensor[f32, 16, 64], boxes: comm.Window[f32, 8, 16, 64]):
    comm.put(0, boxes[comm.rank(), 0:16, :], x[0:16, :])


@wsp.workload
def gives_a_plain_tensor(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 8, 16, 64], boxes: comm.Window[f32, 8, 16, 64]):
    wsp.task(send_rows, x, boxes)
    wsp.task(send_rows, x, y)


def test_a_task_giving_a_window_parameter_another_tensor_is_refused_at_its_line():
    with pytest.raises(htp.CompileError) as error:
        gives_a_plain_tensor.compile(target=SIM)
    text = str(error.value)
    assert "task 'send_rows': its argument #1 is a communication window of the kernel (comm.Window)" in text
    assert "wsp.task(send_rows, x, y)" in text and "wsp.task(send_rows, x, boxes)" not in text


def test_a_routine_whose_step_communicates_starts_on_a_group_only():
    w = weights.make(layers=1)
    program = decode.routine(chips=2).compile(target=SIM, **parallel.constants(2))
    state = parallel.initial_state(w, 1, 2, decode.SLOTS, 4)
    with pytest.raises(ArgumentError, match="communicates with other chips through communication windows: it runs on "
                                            "a group of chips, start\\(chips=n, ...\\)"):
        program.start(**state)
    # Each chip's shard, one per chip: the group's size is checked before anything opens.
    with pytest.raises(ArgumentError, match="the state 'wqkv' is a list of 2 arrays, and the session has 4 chips"):
        program.start(chips=4, **state)
    cache = state["k_cache"]
    bad = dict(state, k_cache=[cache, cache[:, :32]])
    with pytest.raises(ArgumentError, match="chip 1's 'k_cache' is float32 \\(1, 32, 32\\), chip 0's float32 \\(1, 64, 32\\): "
                                            "every chip runs the same step on the same shapes"):
        program.start(chips=2, **bad)
    with pytest.raises(ArgumentError, match="chips must be a positive integer"):
        program.start(chips=0, **state)
    cpu = decode.routine().compile(target="cpu")
    with pytest.raises(ArgumentError, match="cpu runs steps in this process"):
        cpu.start(chips=2, **decode.initial_state(w, 1))
    with pytest.raises(TypeError, match="a state cannot be named 'chips'"):
        serving.routine(state=("chips",), decode=model.decode_step)


# ----------------------------------------------------------------------------
# Served on groups of simulated chips
# ----------------------------------------------------------------------------


def requests_for_a_group():
    """Requests arriving over the first steps, of 1 to 20 positions (two pages), so that the batch
    fills, requests leave and others take their slots and pages: 22 steps, batches of 1 to 4."""
    return [Request(prompt=[5], new_tokens=3, arrival=0), Request(prompt=[9, 14, 2, 77], new_tokens=6, arrival=0),
            Request(prompt=list(range(30, 44)), new_tokens=7, arrival=1), Request(prompt=[1, 2], new_tokens=4, arrival=2),
            Request(prompt=[100, 3, 55], new_tokens=5, arrival=4), Request(prompt=[64] * 6, new_tokens=8, arrival=9),
            Request(prompt=[12, 13], new_tokens=3, arrival=12)]


def serve(session, requests, pool):
    server = Server(lambda *inputs: decode.agreed(session.decode(*inputs)) if session.chips else session.decode(*inputs),
                    decode.SLOTS, pool)
    server.run(requests)
    return server


@on_a2a3sim
@pytest.mark.parametrize("moe", [False, True], ids=["dense", "moe"])
@pytest.mark.parametrize("chips", [2, 4])
def test_decode_on_a_group_equals_one_chip_and_numpy_on_a2a3sim(chips, moe):
    pool = 12
    w = weights.make(layers=LAYERS, moe=moe)
    # The one-chip routine (the cpu: the same step, one chip) serves the same requests.
    alone = requests_for_a_group()
    with decode.start(w, LAYERS, "cpu", moe, pool=pool) as session:
        serve(session, alone, pool)
        one_chip_cache = session.read("k_cache")
    requests = requests_for_a_group()
    with decode.start(w, LAYERS, SIM, moe, chips, pool=pool) as session:
        assert session.chips == chips
        server = serve(session, requests, pool)          # every chip's tokens agree (decode.agreed)
        caches = session.read("k_cache")
        stats = session.stats()
        # A state replaced on every chip: one array for all, or one per chip.
        x = [np.full((decode.SLOTS, model.D), float(c), np.float32) for c in range(chips)]
        session.write("x", x[1])
        assert all(np.array_equal(a, x[1]) for a in session.read("x"))
        session.write("x", x)
        assert all(np.array_equal(a, b) for a, b in zip(session.read("x"), x))
        with pytest.raises(ValueError, match=f"the session has {chips} chips, got 1 arrays"):
            session.write("x", x[:1])
    assert 20 <= len(server.batch_sizes) < 40 and max(server.batch_sizes) == decode.SLOTS
    for i, (request, one) in enumerate(zip(requests, alone)):
        assert request.generated == one.generated == decode.expected_tokens(w, request), f"request {i}: {request}"
    # Each chip's cache holds its heads' columns of every page: together, the one-chip cache
    # (up to the allreduce's rounding of the activations the keys are computed from).
    assert len(caches) == chips and caches[0].shape[-1] == model.D // chips
    np.testing.assert_allclose(np.concatenate(caches, axis=-1), one_chip_cache, rtol=1e-4, atol=1e-4)
    # The state was placed once on each chip and read once; nothing else crossed.
    assert set(stats["uploads"].values()) == {chips}
    assert stats["downloads"] == {"k_cache": chips}
