"""Collectives written in HTP with the `comm` intrinsic set, on groups of
simulated chips (examples/python/collectives/collectives.py, docs/serving.md
"Several chips").

Without the simulator: what the comm kernels compile to (the package's
windows and CommContext, the kernel's TPUT/TNOTIFY/TWAIT C++), the targets
that refuse them at the user's line, and (with HTP_PTO_ISA_ROOT) their C++
against PTO-ISA. On a2a3sim (`on_a2a3sim`): the allreduce and the all-to-all
(MoE dispatch -> expert -> combine) on 1, 2 and 4 chips equal to numpy, and
per-chip state placed in a group session persisting across runs. Their names
say `a2a3sim`, so a stalled run stops the test run (conftest.py)."""

import json

import numpy as np
import pytest

import htp
from htp import comm, f32, i32
from htp.pto import isa_check
from htp.pto import runtime as pto_runtime
from simulators import example, on_a2a3sim

collectives = example("collectives/collectives", "collectives")

SIM = "pto-a2a3sim"


# ----------------------------------------------------------------------------
# Compiling (no simulator)
# ----------------------------------------------------------------------------


def test_the_package_names_windows_and_the_comm_context():
    files = collectives.allreduce.compile(target=SIM).files
    manifest = json.loads(files["manifest.json"])
    arguments = {a["name"]: a for a in manifest["arguments"]}
    assert arguments["boxes"] == {"name": "boxes", "kind": "tensor", "dtype": "float32", "shape": [8, "R", 64],
                                  "direction": "inout", "comm": "window"}
    assert arguments["done"]["comm"] == "window" and arguments["done"]["shape"] == [8]
    assert arguments["comm_context"] == {"name": "comm_context", "kind": "scalar", "dtype": "int64", "comm": "context"}
    assert "comm" not in arguments["x"] and "comm" not in arguments["y"]
    # One task per chip: the outer loops are not split across cores.
    orchestration = files[manifest["orchestration"]["source"]]
    assert orchestration.count("rt_submit_aiv_task") == 1 and "for (" not in orchestration
    kernel = files[manifest["kernels"][0]["source"]]
    for text in ("#include <pto/comm/pto_comm_inst.hpp>", '#include "platform_comm/comm_context.h"',
                 "htp_comm_peer_view(comm_context,", "comm::TNOTIFY(", "comm::NotifyOp::AtomicAdd",
                 "comm::TWAIT(", "comm::WaitCmp::GE", "pipe_barrier(PIPE_ALL);", "->rankId", "->rankNum"):
        assert text in kernel, text


def test_both_pto_targets_write_the_same_comm_kernel():
    sim = collectives.moe_dispatch_combine.compile(target=SIM).files
    chip = collectives.moe_dispatch_combine.compile(target="pto-a2a3").files
    source = json.loads(sim["manifest.json"])["kernels"][0]["source"]
    strip = lambda text: [line for line in text.splitlines() if "a2a3" not in line]  # the banner and description
    assert strip(sim[source]) == strip(chip[source])
    assert "comm::NotifyOp::Set" in sim[source]


def test_other_targets_refuse_a_kernel_that_communicates_at_its_line():
    @htp.kernel
    def rank_only(y: htp.Out[i32, 8]):
        r = comm.rank()
        y[:] = htp.full((1, 8), r, i32)

    with pytest.raises(htp.CompileError) as error:
        rank_only.compile(target="cpu")
    text = str(error.value)
    assert "the intrinsic comm.rank (comm.rank) is not available on target 'cpu'" in text
    assert "pto-a2a3sim, pto-a2a3" in text and "r = comm.rank()" in text
    # A window parameter is refused at the parameter.
    with pytest.raises(htp.CompileError) as error:
        collectives.allreduce.compile(target="cpu")
    assert "a communication window parameter (comm.Window) is not available on target 'cpu'" in str(error.value)
    assert "boxes: comm.Window" in str(error.value)
    assert "cpu" not in collectives.allreduce.targets()


def test_comm_intrinsics_are_listed_and_not_callable_from_python():
    assert list(htp.intrinsic_sets()["comm"]) == ["rank", "size", "put", "notify", "wait"]
    with pytest.raises(TypeError, match="runs inside @htp.kernel functions only"):
        comm.rank()
    assert repr(comm.Window) == "comm.Window"


def test_a_kernel_that_communicates_and_multiplies_matrices_is_refused():
    @htp.kernel
    def mixed(a: htp.Tensor[htp.f16, 16, 16], y: htp.Out[f32, 16, 16], done: comm.Window[i32, 8]):
        y[:, :] = htp.exp(a[:, :] @ a[:, :])
        comm.notify(0, done[0], 1)

    with pytest.raises(htp.CompileError, match="runs on the vector core alone"):
        mixed.compile(target=SIM)


@pytest.mark.skipif(isa_check.problem() is not None, reason=f"PTO-ISA check not available ({isa_check.problem()})")
def test_the_comm_kernels_compile_against_pto_isa():
    kernels = []
    for kernel in (collectives.allreduce, collectives.allreduce_accumulate, collectives.moe_dispatch_combine):
        kernels.extend(isa_check.kernels_of(kernel.compile(target=SIM).files, kernel.name))
    assert isa_check.check(kernels) == {}


# ----------------------------------------------------------------------------
# On groups of simulated chips
# ----------------------------------------------------------------------------


@on_a2a3sim
@pytest.mark.parametrize("chips", [1, 2, 4])
def test_allreduce_equals_numpy_on_a2a3sim(chips, tmp_path):
    rng = np.random.default_rng(chips)
    with collectives.group(collectives.allreduce, chips, str(tmp_path)) as session:
        # A ragged last block (40 rows: 16 + 16 + 8), then another size in the same session.
        for rows in (40, 16):
            xs = [rng.standard_normal((rows, 64)).astype(np.float32) for _ in range(chips)]
            ys = [np.full((rows, 64), np.nan, np.float32) for _ in range(chips)]
            session.run([[x, y] for x, y in zip(xs, ys)])
            want = sum(xs)  # numpy adds in rank order too: the same floats
            for y in ys:
                np.testing.assert_array_equal(y, want)
        assert session.copies["uploads"]["x"] == 2 * chips


@htp.kernel
def allreduce_twice(x: htp.Tensor[f32, "R", 64], y: htp.Out[f32, "R", 64], z: htp.Out[f32, "R", 64],
                    first: comm.Window[f32, 8, "R", 64], second: comm.Window[f32, 8, "R", 64],
                    done: comm.Window[i32, 8]):
    # Two exchanges in one run count on the same signals: the second waits for >= 2.
    collectives.exchange(x, first, done, 1)
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = collectives.reduced(first, i)
    collectives.exchange(y, second, done, 2)
    for i in range(0, x.shape[0], 16):
        z[i:i + 16, :] = collectives.reduced(second, i)


@on_a2a3sim
def test_a_second_exchange_waits_for_the_second_signal_on_a2a3sim(tmp_path):
    chips = 2
    rng = np.random.default_rng(7)
    with collectives.group(allreduce_twice, chips, str(tmp_path)) as session:
        xs = [rng.standard_normal((24, 64)).astype(np.float32) for _ in range(chips)]
        ys = [np.zeros_like(x) for x in xs]
        zs = [np.zeros_like(x) for x in xs]
        session.run([[x, y, z] for x, y, z in zip(xs, ys, zs)])
        first = sum(xs)
        for y, z in zip(ys, zs):
            np.testing.assert_array_equal(y, first)
            np.testing.assert_array_equal(z, sum([first] * chips))


@on_a2a3sim
@pytest.mark.parametrize("chips", [1, 2, 4])
def test_dispatch_and_combine_equal_numpy_on_a2a3sim(chips, tmp_path):
    rng = np.random.default_rng(10 + chips)
    with collectives.group(collectives.moe_dispatch_combine, chips, str(tmp_path)) as session:
        for _ in range(2):
            xs, counts = collectives.moe_inputs(rng, chips)
            ys = [np.zeros_like(x) for x in xs]
            received = [np.full(8, -1, np.int32) for _ in range(chips)]
            session.run([[x, c, y, r] for x, c, y, r in zip(xs, counts, ys, received)])
            want, want_received = collectives.moe_reference(xs, counts)
            for me in range(chips):
                np.testing.assert_array_equal(received[me], want_received[me])
                for j, rows in want[me].items():
                    np.testing.assert_array_equal(ys[me][j * 8:j * 8 + len(rows)], rows)


@on_a2a3sim
def test_state_persists_on_each_chip_across_runs_on_a2a3sim(tmp_path):
    chips = 2
    rng = np.random.default_rng(3)
    with collectives.group(collectives.allreduce_accumulate, chips, str(tmp_path)) as session:
        start = [np.full((32, 64), 100.0 * (c + 1), np.float32) for c in range(chips)]
        acc = [session.place(c, "acc", start[c]) for c in range(chips)]
        assert [a.chip for a in acc] == [0, 1]
        want = [a.copy() for a in start]
        for run in range(3):
            xs = [rng.integers(-8, 8, (32, 64)).astype(np.float32) for _ in range(chips)]
            session.run([[x, a] for x, a in zip(xs, acc)])
            for c in range(chips):
                want[c] += sum(xs)
            if run == 1:  # replace chip 0's state between runs
                session.write(acc[0], np.full((32, 64), 7.0, np.float32))
                want[0] = np.full((32, 64), 7.0, np.float32)
        for c in range(chips):
            np.testing.assert_array_equal(session.read(acc[c]), want[c])
        # The state crossed once each way per write and read, never per run.
        assert session.copies["uploads"]["acc"] == chips + 1
        assert session.copies["downloads"]["acc"] == chips
        # A placed tensor belongs to its chip.
        with pytest.raises(pto_runtime.PtoRuntimeError, match="placed on chip 1"):
            session.run([[xs[0], acc[1]], [xs[1], acc[0]]])
        with pytest.raises(pto_runtime.PtoRuntimeError, match="communication window"):
            session.place(0, "boxes", np.zeros((8, 32, 64), np.float32))
        with pytest.raises(pto_runtime.PtoRuntimeError, match="tensors of 2 chips"):
            session.run([[xs[0], acc[0]]])


@htp.kernel
def scaled(x: htp.Tensor[f32, "R", 64], y: htp.Out[f32, "R", 64], s: f32):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * s


@on_a2a3sim
def test_a_package_that_does_not_communicate_runs_on_each_chip_alone_on_a2a3sim(tmp_path):
    # Data parallelism: every chip its own rows and scalar, submitted chip by chip (no domain).
    rng = np.random.default_rng(5)
    with collectives.group(scaled, 3, str(tmp_path)) as session:
        xs = [rng.standard_normal((24 + 8 * c, 64)).astype(np.float32) for c in range(3)]
        ys = [np.zeros_like(x) for x in xs]
        session.run([[x, y] for x, y in zip(xs, ys)], [[1.0], [2.0], [-3.0]])
        for c, (x, y) in enumerate(zip(xs, ys)):
            np.testing.assert_array_equal(y, x * np.float32([1.0, 2.0, -3.0][c]))
        # One scalar list for every chip.
        session.run([[x, y] for x, y in zip(xs, ys)], [0.5])
        for x, y in zip(xs, ys):
            np.testing.assert_array_equal(y, x * np.float32(0.5))


@on_a2a3sim
def test_a_package_that_communicates_runs_only_on_a_group_on_a2a3sim(tmp_path):
    package = collectives.allreduce.compile(target=SIM).write_package(str(tmp_path))
    x = np.zeros((16, 64), np.float32)
    with pytest.raises(pto_runtime.PtoRuntimeError, match="open_session\\(package, chips=n\\)"):
        pto_runtime.run_package(package, [x, x.copy(), np.zeros((8, 16, 64), np.float32), np.zeros(8, np.int32)], [0])
    with pytest.raises(pto_runtime.PtoRuntimeError, match="chips must be a positive integer"):
        pto_runtime.open_session(package, chips=0)


@htp.kernel
def never_notified(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64], done: comm.Window[i32, 8]):
    comm.wait(done[0], 5)  # no chip ever notifies
    y[:, :] = x[:, :]


@on_a2a3sim
def test_a_wait_that_never_completes_fails_the_run_on_a2a3sim(tmp_path, monkeypatch):
    # The simulated TWAIT gives up after PTO_CPU_SIM_TWAIT_MAX_SPINS sleeps of 10 us (100000 by
    # default: about 8 s here); the kernel then returns, and pto-runtime fails the run if its
    # scheduler saw no progress for longer than its timeout (SIMPLER_SCHEDULER_TIMEOUT_MS, 10 s
    # by default: a race). The chip workers, forked when the group opens, take a 2 s timeout, so
    # the run fails; the chips of the group cannot run again, and the session says so.
    monkeypatch.setenv("SIMPLER_SCHEDULER_TIMEOUT_MS", "2000")
    with collectives.group(never_notified, 2, str(tmp_path)) as session:
        xs = [np.ones((16, 64), np.float32) for _ in range(2)]
        ys = [np.zeros((16, 64), np.float32) for _ in range(2)]
        with pytest.raises(pto_runtime.PtoRuntimeError, match="on 2 a2a3sim chips failed"):
            session.run([[x, y] for x, y in zip(xs, ys)])
        with pytest.raises(pto_runtime.PtoRuntimeError, match="an earlier run on these chips failed"):
            session.run([[x, y] for x, y in zip(xs, ys)])


@on_a2a3sim
def test_a_compiled_kernel_opens_its_group_and_tensors_of_any_size_are_placed_on_a2a3sim():
    # CompiledKernel.group(chips=n): the runner's group session on the cached package.
    rng = np.random.default_rng(11)
    with collectives.allreduce_accumulate.compile(target=SIM).group(chips=2) as session:
        assert isinstance(session, pto_runtime.GroupSession) and session.chips == 2
        # A large tensor placed, then a small one, then the large one read back: each copy moves
        # exactly its tensor's bytes (a host buffer of another size is not reused for it).
        big = [session.place(c, "acc", np.full((64, 64), float(c), np.float32)) for c in range(2)]
        small = [session.place(c, "x", np.full((16, 64), 3.0, np.float32)) for c in range(2)]
        np.testing.assert_array_equal(session.read(small[1]), np.full((16, 64), 3.0, np.float32))
        np.testing.assert_array_equal(session.read(big[1]), np.full((64, 64), 1.0, np.float32))
        xs = [rng.integers(-4, 4, (32, 64)).astype(np.float32) for _ in range(2)]
        acc = [session.place(c, "acc", np.zeros((32, 64), np.float32)) for c in range(2)]
        session.run([[x, a] for x, a in zip(xs, acc)])
        for a in acc:
            np.testing.assert_array_equal(session.read(a), xs[0] + xs[1])
