"""WSP pipes, CSP's task level (docs/wsp.md, "Pipes"): processes of tasks joined by channels of
`depth` tensors, fused by `wsp-lower-pipes` into one loop over ring slots. Every pipe is run and
compared with numpy on the cpu (and, where pto-runtime's a2a3sim is set up, on it too); every rule a
pipe can break is an error at the user's line."""

import os

import numpy as np
import pytest

import htp
from simulators import on_a2a3sim
from sources import kernel_from

PRELUDE = "import htp\nimport numpy as np\nfrom htp import f32, f16, i32\nwsp = htp.model('wsp')\n"

on_sim = on_a2a3sim

KERNELS = '''
@htp.kernel
def copy(x: htp.Tensor[{t}, 16, 32], y: htp.Out[{t}, 16, 32]):
    y[:, :] = x[:, :]

@htp.kernel
def twice(x: htp.Tensor[{t}, 16, 32], y: htp.Out[{t}, 16, 32]):
    y[:, :] = x[:, :] + x[:, :]

@htp.kernel
def add(a: htp.Tensor[{t}, 16, 32], b: htp.Tensor[{t}, 16, 32], y: htp.Out[{t}, 16, 32]):
    y[:, :] = a[:, :] + b[:, :]

@htp.kernel
def bump(y: htp.InOut[{t}, 16, 32]):
    y[:, :] = y[:, :] + y[:, :]
'''


def pipe(body, dtype="f32", name="p"):
    return kernel_from(PRELUDE + KERNELS.format(t=dtype) + body, name)


def run(program, *arrays, target="cpu"):
    program.compile(target=target)(*arrays)


THREE_STAGES = '''
@wsp.workload
def p(x: htp.Tensor[{t}, "N", 32], y: htp.Out[{t}, "N", 32]):
    a = wsp.channel({t}, (16, 32), depth={depth}, name="a")
    b = wsp.channel({t}, (16, 32), depth={depth}, name="b")
    with wsp.pipe():
        with wsp.process(name="first"):
            for i in range(0, x.shape[0], 16):
                wsp.send(a, copy, x[i:i + 16, :])
        with wsp.process(name="second"):
            for i in range(0, x.shape[0], 16):
                with wsp.consume(a) as t:
                    wsp.send(b, twice, t)
        with wsp.process(name="third"):
            for i in range(0, x.shape[0], 16):
                with wsp.consume(b) as t:
                    wsp.task(copy, t, y[i:i + 16, :])
'''

DTYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32}


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("depth", [1, 2, 3, 5])
@pytest.mark.parametrize("rows", [16, 48, 256])
def test_three_stages_over_dtypes_depths_and_lengths(dtype, depth, rows):
    program = kernel_from(PRELUDE + KERNELS.format(t=dtype) + THREE_STAGES.format(t=dtype, depth=depth), "p")
    x = (np.arange(rows * 32).reshape(rows, 32) % 97).astype(DTYPES[dtype])
    y = np.zeros_like(x)
    run(program, x, y)
    np.testing.assert_array_equal(y, x + x)


def test_the_pipe_runs_under_every_schedule():
    program = kernel_from(PRELUDE + KERNELS.format(t="f32") + THREE_STAGES.format(t="f32", depth=2), "p")
    x = np.random.default_rng(1).standard_normal((320, 32), dtype=np.float32)
    for dispatch in ["dynamic", "work_stealing", "round_robin"]:
        for workers in [1, 2, 4]:
            y = np.zeros_like(x)
            htp.model("wsp").schedule(program, dispatch=dispatch, workers=workers)(x, y)
            np.testing.assert_array_equal(y, x + x)


DIAMOND = '''
@wsp.workload
def p(x: htp.Tensor[f32, "N", 32], y: htp.Out[f32, "N", 32]):
    left = wsp.channel(f32, (16, 32), depth=2, name="left")
    right = wsp.channel(f32, (16, 32), depth=1, name="right")
    done_left = wsp.channel(f32, (16, 32), depth=3, name="done_left")
    done_right = wsp.channel(f32, (16, 32), depth=2, name="done_right")
    n = x.shape[0]
    with wsp.pipe():
        # Declared consumers first: the pipe orders processes by their channels.
        with wsp.process(name="join"):
            for i in range(0, n, 16):
                with wsp.consume(done_left) as a:
                    with wsp.consume(done_right) as b:
                        wsp.task(add, a, b, y[i:i + 16, :])
        with wsp.process(name="twice"):
            for i in range(0, n, 16):
                with wsp.consume(left) as t:
                    wsp.send(done_left, twice, t)
        with wsp.process(name="copy"):
            for i in range(0, n, 16):
                with wsp.consume(right) as t:
                    wsp.send(done_right, copy, t)
        with wsp.process(name="split"):
            for i in range(0, n, 16):
                wsp.send(left, copy, x[i:i + 16, :])
                wsp.send(right, copy, x[i:i + 16, :])
'''


@pytest.mark.parametrize("rows", [16, 160])
def test_a_diamond_declared_backwards_runs_producers_first(rows):
    x = np.random.default_rng(rows).standard_normal((rows, 32), dtype=np.float32)
    y = np.zeros_like(x)
    run(pipe(DIAMOND), x, y)
    np.testing.assert_allclose(y, 3 * x, rtol=1e-6)


TWO_PER_ITERATION = '''
@wsp.workload
def p(x: htp.Tensor[f32, "N", 32], y: htp.Out[f32, "N", 32]):
    a = wsp.channel(f32, (16, 32), depth={depth}, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            for i in range(0, x.shape[0], 32):
                j = i + 16
                wsp.send(a, copy, x[i:i + 16, :])
                wsp.send(a, twice, x[j:j + 16, :])
        with wsp.process(name="consumer"):
            for i in range(0, x.shape[0], 32):
                j = i + 16
                with wsp.consume(a) as t:
                    wsp.task(twice, t, y[i:i + 16, :])
                with wsp.consume(a) as t:
                    wsp.task(copy, t, y[j:j + 16, :])
'''


@pytest.mark.parametrize("depth", [2, 3, 4])
def test_two_transfers_per_iteration_keep_their_order(depth):
    x = np.random.default_rng(depth).standard_normal((96, 32), dtype=np.float32)
    y = np.zeros_like(x)
    run(pipe(TWO_PER_ITERATION.format(depth=depth)), x, y)
    np.testing.assert_allclose(y, 2 * x, rtol=1e-6)


SLOT_TASKS = '''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32], z: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            for i in range(0, 64, 16):
                with wsp.produce(a) as s:       # two tasks fill the slot: a copy, then an in-place update
                    wsp.task(copy, x[i:i + 16, :], s)
                    wsp.task(bump, s)
        with wsp.process(name="consumer"):
            for i in range(0, 64, 16):
                with wsp.consume(a) as t:       # two tasks read it
                    wsp.task(copy, t, y[i:i + 16, :])
                    wsp.task(twice, t, z[i:i + 16, :])
'''


def test_several_tasks_fill_and_read_one_slot():
    x = np.random.default_rng(3).standard_normal((64, 32), dtype=np.float32)
    y, z = np.zeros_like(x), np.zeros_like(x)
    run(pipe(SLOT_TASKS), x, y, z)
    np.testing.assert_allclose(y, 2 * x, rtol=1e-6)
    np.testing.assert_allclose(z, 4 * x, rtol=1e-6)


STRAIGHT = '''
@wsp.workload
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            wsp.send(a, copy, x[0:16, :])
            wsp.send(a, twice, x[16:32, :])
        with wsp.process(name="consumer"):
            with wsp.consume(a) as t:
                wsp.task(twice, t, y[0:16, :])
            with wsp.consume(a) as t:
                wsp.task(copy, t, y[16:32, :])
'''


def test_processes_without_loops():
    x = np.random.default_rng(4).standard_normal((32, 32), dtype=np.float32)
    y = np.zeros_like(x)
    run(pipe(STRAIGHT), x, y)
    np.testing.assert_allclose(y, 2 * x, rtol=1e-6)


SCALAR_BOUND = '''
@wsp.workload
def p(x: htp.Tensor[f32, "N", 32], y: htp.Out[f32, "N", 32], blocks: i32):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            for b in range(blocks):
                wsp.send(a, copy, x[b * 16:b * 16 + 16, :])
        with wsp.process(name="consumer"):
            for b in range(blocks):
                with wsp.consume(a) as t:
                    wsp.task(twice, t, y[b * 16:b * 16 + 16, :])
'''


@pytest.mark.parametrize("blocks", [0, 1, 3, 8])
def test_a_trip_count_from_a_scalar(blocks):
    x = np.random.default_rng(blocks).standard_normal((128, 32), dtype=np.float32)
    y = np.zeros_like(x)
    run(pipe(SCALAR_BOUND), x, y, blocks)
    np.testing.assert_allclose(y[:blocks * 16], 2 * x[:blocks * 16], rtol=1e-6)
    assert not y[blocks * 16:].any()


def test_the_megakernel_example():
    import importlib.util
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python", "wsp", "megakernel.py")
    spec = importlib.util.spec_from_file_location("megakernel_example", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    rng = np.random.default_rng(7)
    for rows in [16, 64, 1024]:
        x, r = (rng.standard_normal((rows, 128), dtype=np.float32) for _ in range(2))
        w = rng.standard_normal((1, 128), dtype=np.float32)
        out = np.zeros_like(x)
        m.megakernel(x, r, w, out, 1e-6)
        np.testing.assert_allclose(out, m.reference(x, r, w, 1e-6), rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------ a2a3sim

@on_sim
@pytest.mark.parametrize("depth", [1, 2])
def test_three_stages_on_a2a3sim(depth):
    program = kernel_from(PRELUDE + KERNELS.format(t="f32") + THREE_STAGES.format(t="f32", depth=depth), "p")
    x = np.random.default_rng(depth).standard_normal((128, 32), dtype=np.float32)
    y = np.zeros_like(x)
    run(program, x, y, target="pto-a2a3sim")
    np.testing.assert_allclose(y, 2 * x, rtol=1e-6)


@on_sim
def test_a_diamond_and_slot_tasks_on_a2a3sim():
    x = np.random.default_rng(8).standard_normal((64, 32), dtype=np.float32)
    y = np.zeros_like(x)
    run(pipe(DIAMOND), x, y, target="pto-a2a3sim")
    np.testing.assert_allclose(y, 3 * x, rtol=1e-6)
    y, z = np.zeros_like(x), np.zeros_like(x)
    run(pipe(SLOT_TASKS), x, y, z, target="pto-a2a3sim")
    np.testing.assert_allclose(y, 2 * x, rtol=1e-6)
    np.testing.assert_allclose(z, 4 * x, rtol=1e-6)


@on_sim
def test_the_megakernel_example_on_a2a3sim(capsys):
    import importlib.util
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python", "wsp", "megakernel.py")
    spec = importlib.util.spec_from_file_location("megakernel_example_sim", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    m.main("pto-a2a3sim")
    error = float(capsys.readouterr().out.rsplit("=", 1)[1])
    assert error < 1e-4


def test_the_package_allocates_each_ring_once(tmp_path):
    program = kernel_from(PRELUDE + KERNELS.format(t="f32") + THREE_STAGES.format(t="f32", depth=3), "p")
    root = program.compile(target="pto-a2a3sim").write_package(tmp_path / "p")
    source = open(os.path.join(root, "orchestration", "p.cpp")).read()
    assert source.count("alloc_tensors(") == 2, source
    assert "_shape[3] = {3, 16, 32};" in source, source


# ------------------------------------------------------------------ errors

ERRORS = {
    "unbalanced": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            for i in range(0, 64, 16):
                wsp.send(a, copy, x[i:i + 16, :])
                wsp.send(a, copy, x[i:i + 16, :])
        with wsp.process(name="consumer"):
            for i in range(0, 64, 16):
                with wsp.consume(a) as t:
                    wsp.task(copy, t, y[i:i + 16, :])
''', 'wsp.send(a, copy, x[i:i + 16, :])', "the channel 'a' is unbalanced: the process 'producer' fills it 2 times per iteration and the process 'consumer' reads it 1 times"),
    "never read": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            for i in range(0, 64, 16):
                wsp.send(a, copy, x[i:i + 16, :])
''', 'wsp.send(a, copy', "the process 'producer' fills it and no process of the pipe reads it"),
    "never filled": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="consumer"):
            for i in range(0, 64, 16):
                with wsp.consume(a) as t:
                    wsp.task(copy, t, y[i:i + 16, :])
''', 'with wsp.consume(a) as t', "the process 'consumer' reads it and no process of the pipe fills it"),
    "shallow": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=1, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            for i in range(0, 64, 32):
                j = i + 16
                wsp.send(a, copy, x[i:i + 16, :])
                wsp.send(a, copy, x[j:j + 16, :])
        with wsp.process(name="consumer"):
            for i in range(0, 64, 32):
                j = i + 16
                with wsp.consume(a) as t:
                    wsp.task(copy, t, y[i:i + 16, :])
                with wsp.consume(a) as t:
                    wsp.task(copy, t, y[j:j + 16, :])
''', 'a = wsp.channel', "has depth 1, but an iteration of the pipe fills 2 of its slots before its reader runs: give it depth=2 or more"),
    "cycle": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    b = wsp.channel(f32, (16, 32), depth=2, name="b")
    with wsp.pipe():
        with wsp.process(name="ping"):
            for i in range(0, 64, 16):
                with wsp.consume(b) as t:
                    wsp.send(a, copy, t)
        with wsp.process(name="pong"):
            for i in range(0, 64, 16):
                with wsp.consume(a) as t:
                    wsp.send(b, copy, t)
''', 'with wsp.pipe()', "the processes 'ping', 'pong' feed each other in a cycle"),
    "different loops": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            for i in range(0, 64, 16):
                wsp.send(a, copy, x[i:i + 16, :])
        with wsp.process(name="consumer"):
            for i in range(0, 48, 16):
                with wsp.consume(a) as t:
                    wsp.task(copy, t, y[i:i + 16, :])
''', 'for i in range(0, 48, 16)', "the processes of a pipe iterate together: the end of this loop (process 'consumer') is not the end of the loop of the process 'producer'"),
    "transfer under an if": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32], k: i32):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            for i in range(0, 64, 16):
                if k > 0:
                    wsp.send(a, copy, x[i:i + 16, :])
        with wsp.process(name="consumer"):
            for i in range(0, 64, 16):
                with wsp.consume(a) as t:
                    wsp.task(copy, t, y[i:i + 16, :])
''', 'wsp.send(a, copy', "run once per iteration of its processes: not under an if or an inner loop"),
    "two producers": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="one"):
            wsp.send(a, copy, x[0:16, :])
        with wsp.process(name="two"):
            wsp.send(a, copy, x[16:32, :])
        with wsp.process(name="sink"):
            with wsp.consume(a) as t:
                wsp.task(copy, t, y[0:16, :])
            with wsp.consume(a) as t:
                wsp.task(copy, t, y[16:32, :])
''', 'wsp.send(a, copy, x[16:32, :])', "fills the channel 'a' from the process 'two', but the process 'one' already does: a channel has one producing process"),
    "one process at both ends": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="loop"):
            wsp.send(a, copy, x[0:16, :])
            with wsp.consume(a) as t:
                wsp.task(copy, t, y[0:16, :])
''', 'a = wsp.channel', "is filled and read by the same process 'loop': a channel connects two processes"),
    "channel inside the pipe": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    with wsp.pipe():
        a = wsp.channel(f32, (16, 32), depth=2, name="a")
        with wsp.process(name="producer"):
            wsp.send(a, copy, x[0:16, :])
        with wsp.process(name="consumer"):
            with wsp.consume(a) as t:
                wsp.task(copy, t, y[0:16, :])
''', 'a = wsp.channel', "belongs at the top of the workload"),
    "send outside a process": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    wsp.send(a, copy, x[0:16, :])
''', 'wsp.send(a, copy', "belongs in a wsp.process of a wsp.pipe"),
    "process outside a pipe": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    with wsp.process(name="lonely"):
        wsp.task(copy, x[0:16, :], y[0:16, :])
''', 'with wsp.process', "expects parent op 'wsp.pipe'"),
    "task in a pipe outside its processes": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    with wsp.pipe():
        wsp.task(copy, x[0:16, :], y[0:16, :])
        with wsp.process(name="a"):
            wsp.task(copy, x[0:16, :], y[0:16, :])
''', 'wsp.task(copy', "is in a wsp.pipe outside its processes"),
    "loop with a run-time step": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32], k: i32):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            for i in range(0, 4, k):
                wsp.send(a, copy, x[i * 16:i * 16 + 16, :])
        with wsp.process(name="consumer"):
            for i in range(0, 4, k):
                with wsp.consume(a) as t:
                    wsp.task(copy, t, y[i * 16:i * 16 + 16, :])
''', 'for i in range(0, 4, k)', "a pipe's loop steps by a positive constant"),
    "a loop and no loop": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            wsp.send(a, copy, x[0:16, :])
        with wsp.process(name="consumer"):
            for i in range(0, 16, 16):
                with wsp.consume(a) as t:
                    wsp.task(copy, t, y[0:16, :])
''', 'with wsp.process(name="producer")', "the process 'producer' has no loop, the process 'consumer' loops"),
    "after the loop": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            for i in range(0, 64, 16):
                wsp.send(a, copy, x[i:i + 16, :])
            wsp.task(copy, x[0:16, :], y[0:16, :])
        with wsp.process(name="consumer"):
            for i in range(0, 64, 16):
                with wsp.consume(a) as t:
                    wsp.task(copy, t, y[i:i + 16, :])
''', 'wsp.task(copy, x[0:16, :], y[0:16, :])', "this comes after its loop"),
    "no depth": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), name="a")
''', 'a = wsp.channel', "takes depth="),
    "zero depth": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=0, name="a")
''', 'a = wsp.channel', "depth= must be at least 1, got 0"),
    "send without a kernel": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            wsp.send(a, x[0:16, :])
''', 'wsp.send(a, x[0:16, :])', "takes the kernel after the channel"),
    "slot of another shape": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (8, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            wsp.send(a, copy, x[0:16, :])
''', 'wsp.send(a, copy', "has 16 elements in dimension 0, the view 8"),
    "consume of a tensor": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    with wsp.pipe():
        with wsp.process(name="consumer"):
            with wsp.consume(x) as t:
                wsp.task(copy, t, y[0:16, :])
''', 'with wsp.consume(x)', "takes a channel (made by wsp.channel) first"),
    "a loop carrying a variable": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    with wsp.pipe():
        with wsp.process(name="alone"):
            r = 0
            for i in range(0, 4):
                wsp.task(copy, x[r:r + 16, :], y[r:r + 16, :])
                r = r + 16
''', 'for i in range(0, 4)', "the loop of the process 'alone' carries variables: a pipe's processes communicate through channels"),
    "slot never written": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    a = wsp.channel(f32, (16, 32), depth=2, name="a")
    with wsp.pipe():
        with wsp.process(name="producer"):
            with wsp.produce(a) as s:
                wsp.task(copy, s, y[0:16, :])
        with wsp.process(name="consumer"):
            with wsp.consume(a) as t:
                wsp.task(copy, t, y[16:32, :])
''', 'with wsp.produce(a) as s', "no task here writes the slot: pass it for an htp.Out (or htp.InOut) parameter of a kernel"),
    "a pipe's block changes a variable": ('''
@wsp.workload
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    k = 0
    with wsp.pipe():
        k = 1
''', 'with wsp.pipe()', "cannot change variables of the workload"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_user_errors_are_reported_at_their_line(case):
    source, mark, text = ERRORS[case]
    full = PRELUDE + KERNELS.format(t="f32") + source
    program = kernel_from(full, "p")
    x, y = np.zeros((64, 32), np.float32), np.zeros((64, 32), np.float32)
    arguments = (x, y, 1) if "k: i32" in source else (x, y)
    with pytest.raises(htp.CompileError) as info:
        program(*arguments)
    message = str(info.value)
    assert text in message, message
    line = next(i for i, text in enumerate(full.split("\n"), 1) if mark in text and i > full.count("\n") - source.count("\n"))
    assert f".py:{line}:" in message, message
