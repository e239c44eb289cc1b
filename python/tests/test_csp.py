"""CSP programs (docs/csp.md) on the cpu: processes on threads exchanging
tiles through bounded channels, against numpy, over shapes, dtypes, depths
and replica counts; the protocol checked before anything runs (at compile
time with static shapes, at the call otherwise); every user error at its
line."""

import threading

import numpy as np
import pytest

import htp
from htp import bf16, f16, f32, i32

from sources import kernel_from

csp = htp.model("csp")


@csp.program
def double(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    a = csp.channel(f32, (16, 64), depth=2, name="a")
    with csp.process(name="load"):
        for i in range(0, x.shape[0], 16):
            csp.send(a, htp.pad(x[i:i + 16, :], 0.0))
    with csp.process(name="store"):
        for i in range(0, x.shape[0], 16):
            with csp.consume(a) as t:
                y[i:i + 16, :] = t * 2.0


@pytest.mark.parametrize("rows", [16, 48, 100, 1000])
def test_a_two_stage_pipeline_matches_numpy(rows):
    x = np.random.default_rng(rows).standard_normal((rows, 64), dtype=np.float32)
    np.testing.assert_array_equal(double(x), 2 * x)


def test_a_program_runs_again_and_from_several_threads():
    xs = [np.random.default_rng(s).standard_normal((64 + 16 * s, 64), dtype=np.float32) for s in range(4)]
    results = [None] * len(xs)

    def run(i):
        results[i] = double(xs[i])

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, y in zip(xs, results):
        np.testing.assert_array_equal(y, 2 * x)


def _pipeline_of(dtype_name, depth):
    return kernel_from(f'''
import htp
from htp import {dtype_name}
csp = htp.model("csp")

@csp.program
def three_stages(x: htp.Tensor[{dtype_name}, "N", 32], y: htp.Out[{dtype_name}, "N", 32]):
    loaded = csp.channel({dtype_name}, (8, 32), depth={depth}, name="loaded", pad=0)
    computed = csp.channel({dtype_name}, (8, 32), depth={depth}, name="computed")
    n = x.shape[0] // 8
    with csp.process(name="loader"):
        for i in range(n):
            csp.send(loaded, x[i * 8:i * 8 + 8, :])
    with csp.process(name="computer"):
        for i in range(n):
            t = csp.recv(loaded)
            csp.send(computed, t + t)
    with csp.process(name="storer"):
        for i in range(n):
            y[i * 8:i * 8 + 8, :] = csp.recv(computed)
''', "three_stages")


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16", "i32"])
@pytest.mark.parametrize("depth", [1, 3])
def test_three_stages_over_dtypes_and_depths(dtype, depth):
    program = _pipeline_of(dtype, depth)
    numpy_type = {"f32": np.float32, "f16": np.float16, "bf16": np.float32, "i32": np.int32}[dtype]
    if dtype == "bf16":
        import ml_dtypes  # noqa: F401  (the binding's bf16 arrays)
        numpy_type = ml_dtypes.bfloat16
    x = (np.arange(64 * 32) % 97 - 40).reshape(64, 32).astype(numpy_type)
    y = program(x)
    np.testing.assert_array_equal(y.astype(np.float64), 2 * x.astype(np.float64))


@csp.program
def padded_max(x: htp.Tensor[f32, "N", 16], y: htp.Out[f32, 8, 16]):
    """A cut last block travels padded with the channel's pad value (here
    -inf, the identity of max)."""
    a = csp.channel(f32, (8, 16), depth=2, name="a", pad=-1e30)
    with csp.process(name="load"):
        for i in range(0, x.shape[0], 8):
            csp.send(a, x[i:i + 8, :])
    with csp.process(name="max"):
        m = htp.full((8, 16), -1e30, f32)
        for i in range(0, x.shape[0], 8):
            m = htp.maximum(m, csp.recv(a))
        y[0:8, :] = m


@pytest.mark.parametrize("rows", [8, 13, 30])
def test_a_cut_block_travels_padded_with_the_channels_value(rows):
    x = -np.abs(np.random.default_rng(rows).standard_normal((rows, 16), dtype=np.float32)) - 1.0
    blocks = np.full((-(-rows // 8) * 8, 16), -1e30, np.float32)
    blocks[:rows] = x
    np.testing.assert_array_equal(padded_max(x), blocks.reshape(-1, 8, 16).max(0))


@csp.program
def fan(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    work = csp.channel(f32, (16, 64), depth=2, count=4, name="work")
    done = csp.channel(f32, (16, 64), depth=2, count=4, name="done")
    n = x.shape[0] // 16
    with csp.process(name="scatter"):
        for i in range(n):
            csp.send(work, htp.pad(x[i * 16:i * 16 + 16, :], 0.0), at=i % 4)
    for w in csp.processes(4, name="worker"):
        for i in range(w, n, 4):
            t = csp.recv(work, at=w)
            csp.send(done, htp.exp(t) + 1.0, at=w)
    with csp.process(name="gather"):
        for i in range(n):
            y[i * 16:i * 16 + 16, :] = csp.recv(done, at=i % 4)


@pytest.mark.parametrize("rows", [16, 64, 80, 1024])
def test_fan_out_and_in_over_replicated_workers(rows):
    x = np.random.default_rng(rows).standard_normal((rows, 64), dtype=np.float32)
    np.testing.assert_allclose(fan(x), np.exp(x) + 1, rtol=1e-6)


@csp.program
def total(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, 16, 64]):
    a = csp.channel(f32, (16, 64), depth=3, name="a")
    n = x.shape[0] // 16
    with csp.process(name="load"):
        for i in range(n):
            csp.send(a, htp.pad(x[i * 16:i * 16 + 16, :], 0.0))
    with csp.process(name="sum"):
        acc = htp.zeros((16, 64), f32)
        for i in range(n):
            with csp.consume(a) as t:
                acc = acc + t
        y[0:16, :] = acc


@pytest.mark.parametrize("blocks", [1, 5, 64])
def test_consume_carries_an_accumulator(blocks):
    x = np.random.default_rng(blocks).standard_normal((16 * blocks, 64), dtype=np.float32)
    np.testing.assert_allclose(total(x), x.reshape(-1, 16, 64).sum(0), rtol=1e-5, atol=1e-5)


@csp.program
def round_trip(x: htp.Tensor[f32, "N", 32], y: htp.Out[f32, "N", 32], s: f32):
    """Channels both ways at depth 1: each block goes out and comes back scaled."""
    out = csp.channel(f32, (8, 32), depth=1, name="out", pad=0.0)
    back = csp.channel(f32, (8, 32), depth=1, name="back")
    n = x.shape[0] // 8
    with csp.process(name="client"):
        for i in range(n):
            csp.send(out, x[i * 8:i * 8 + 8, :])
            y[i * 8:i * 8 + 8, :] = csp.recv(back)
    with csp.process(name="server"):
        for i in range(n):
            csp.send(back, csp.recv(out) * s)


def test_channels_both_ways_at_depth_one():
    x = np.random.default_rng(1).standard_normal((96, 32), dtype=np.float32)
    np.testing.assert_allclose(round_trip(x, s=0.5), 0.5 * x)


@csp.program
def counted(x: htp.Tensor[f32, 8, 32], y: htp.Out[f32, 8, 32], k: i32):
    """A trip count from a scalar argument, known at the call."""
    a = csp.channel(f32, (8, 32), depth=1, name="a")
    with csp.process(name="p"):
        for i in range(k):
            csp.send(a, x[0:8, :] * htp.f32(i + 1))
    with csp.process(name="q"):
        acc = htp.zeros((8, 32), f32)
        for i in range(k):
            acc = acc + csp.recv(a)
        y[0:8, :] = acc


@pytest.mark.parametrize("k", [0, 1, 7])
def test_a_trip_count_from_a_scalar(k):
    x = np.ones((8, 32), np.float32)
    np.testing.assert_allclose(counted(x, k=k), x * (k * (k + 1) / 2))


@htp.func
def forward(source: csp.Channel, dest: csp.Channel, n: int):
    for i in range(n):
        csp.send(dest, csp.recv(source) + 1.0)


@csp.program
def through_helpers(x: htp.Tensor[f32, 32, 16], y: htp.Out[f32, 32, 16]):
    a = csp.channel(f32, (8, 16), depth=2, name="a")
    b = csp.channel(f32, (8, 16), depth=2, name="b")
    with csp.process(name="load"):
        for i in range(4):
            csp.send(a, x[i * 8:i * 8 + 8, :])
    with csp.process(name="forward"):
        forward(a, b, 4)
    with csp.process(name="store"):
        for i in range(4):
            y[i * 8:i * 8 + 8, :] = csp.recv(b)


def test_a_process_calls_a_helper_taking_channels():
    x = np.random.default_rng(3).standard_normal((32, 16), dtype=np.float32)
    np.testing.assert_allclose(through_helpers(x), x + 1)


# ------------------------------------------------------------------ protocol

@csp.program
def crossed(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    a = csp.channel(f32, (16, 64), depth=2, name="a")
    b = csp.channel(f32, (16, 64), depth=2, name="b")
    n = x.shape[0] // 16
    with csp.process(name="p"):
        for i in range(n):
            csp.send(a, htp.pad(x[i * 16:i * 16 + 16, :], 0.0))
        for i in range(n):
            y[i * 16:i * 16 + 16, :] = csp.recv(b)
    with csp.process(name="q"):
        for i in range(n):
            csp.send(b, htp.pad(x[i * 16:i * 16 + 16, :], 0.0) * 3.0)
        for i in range(n):
            t = csp.recv(a)


def test_a_network_that_fits_its_depths_runs_and_one_that_does_not_is_refused_before_running():
    x = np.random.default_rng(2).standard_normal((32, 64), dtype=np.float32)
    np.testing.assert_array_equal(crossed(x), 3 * x)  # two blocks fit depth 2
    x = np.ones((48, 64), np.float32)
    y = np.full_like(x, 7.0)
    with pytest.raises(RuntimeError) as info:
        crossed(x, y)
    message = str(info.value)
    assert "deadlock" in message and "process 'p' waits to send on 'a' (2 of 2 held)" in message, message
    assert "process 'q' waits to send on 'b' (2 of 2 held)" in message, message
    assert "test_csp.py:" in message
    assert (y == 7.0).all(), "nothing ran"


@csp.program
def leftovers(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, 16, 64]):
    a = csp.channel(f32, (16, 64), depth=8, name="a")
    with csp.process(name="p"):
        for i in range(0, x.shape[0], 16):
            csp.send(a, htp.pad(x[i:i + 16, :], 0.0))
    with csp.process(name="q"):
        y[0:16, :] = csp.recv(a)


def test_an_unbalanced_channel_is_refused_at_the_call():
    np.testing.assert_array_equal(leftovers(np.ones((16, 64), np.float32)), np.ones((16, 64), np.float32))
    with pytest.raises(RuntimeError, match=r"unbalanced protocol: channel 'a' is sent 3 tiles here but received 1 time"):
        leftovers(np.ones((48, 64), np.float32))


PRELUDE = "import htp\nimport numpy as np\nfrom htp import f32, i32\ncsp = htp.model('csp')\n"


def _error_of(source, name, *arguments):
    program = kernel_from(PRELUDE + source, name)
    with pytest.raises(htp.CompileError) as info:
        program(*arguments)
    return str(info.value)


X = np.zeros((32, 64), np.float32)
Y = np.zeros((32, 64), np.float32)

ERRORS = {
    "static deadlock": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    a = csp.channel(f32, (16, 64), depth=1, name="a")
    b = csp.channel(f32, (16, 64), depth=1, name="b")
    with csp.process(name="left"):
        csp.send(a, x[0:16, :])
        csp.send(a, x[16:32, :])
        y[0:16, :] = csp.recv(b)
        y[16:32, :] = csp.recv(b)
    with csp.process(name="right"):
        csp.send(b, x[0:16, :])
        csp.send(b, x[16:32, :])
        t = csp.recv(a)
        u = csp.recv(a)
''', 'csp.send(a, x[16:32, :])', "deadlock: with the channels' depths"),
    "no depth": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    a = csp.channel(f32, (16, 64))
''', 'csp.channel(f32, (16, 64))', "takes depth="),
    "depth zero": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    a = csp.channel(f32, (16, 64), depth=0)
''', 'depth=0', "depth= must be at least 1, got 0"),
    "wrong tile": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    a = csp.channel(f32, (16, 64), depth=1)
    with csp.process(name="s"):
        csp.send(a, x[0:16, 0:32])
''', 'x[0:16, 0:32]', "sends a 16x32 f32 tile on a channel of 16x64 f32 tiles"),
    "ragged block": ('''
@csp.program
def p(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    a = csp.channel(f32, (16, 64), depth=1)
    with csp.process(name="s"):
        csp.send(a, x[0:16, :])
''', 'csp.send(a, x[0:16, :])', "declare the channel with pad=0.0"),
    "not a channel": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    with csp.process(name="s"):
        t = csp.recv(x)
''', 'csp.recv(x)', "takes a channel (made by csp.channel) first"),
    "missing index": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    a = csp.channel(f32, (16, 64), depth=1, count=2)
    with csp.process(name="s"):
        csp.send(a, x[0:16, :])
''', 'csp.send(a, x[0:16, :])', "the channel is an array of 2: say which with at="),
    "index out of range": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    a = csp.channel(f32, (16, 64), depth=1, count=2)
    with csp.process(name="s"):
        csp.send(a, x[0:16, :], at=2)
''', 'at=2', "at=2 is outside the array of 2 channels"),
    "shared variable": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    k = 0
    with csp.process(name="s"):
        k = 1
''', 'with csp.process(name="s")', "a process cannot change the program's variables"),
    "nested process": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    with csp.process(name="outer"):
        with csp.process(name="inner"):
            y[0:16, :] = x[0:16, :]
''', 'name="inner"', "must be at the top of the program"),
    "compute at the top": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    y[0:16, :] = x[0:16, :]
''', 'y[0:16, :] = x[0:16, :]', "belongs inside a process"),
    "two senders": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    a = csp.channel(f32, (16, 64), depth=2, name="a")
    with csp.process(name="one"):
        csp.send(a, x[0:16, :])
    with csp.process(name="two"):
        csp.send(a, x[16:32, :])
    with csp.process(name="sink"):
        y[0:16, :] = csp.recv(a)
        y[16:32, :] = csp.recv(a)
''', 'csp.send(a, x[16:32, :])', "process 'two' sends on channel 'a', which process 'one' already sends on"),
    "replicas on one channel": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64]):
    a = csp.channel(f32, (16, 64), depth=2, name="a")
    for w in csp.processes(2, name="w"):
        csp.send(a, x[0:16, :])
''', 'csp.send(a, x[0:16, :])', "the 2 replicas of process 'w' would all send on channel 'a'"),
    "data-dependent count": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64], s: f32):
    a = csp.channel(f32, (16, 64), depth=2, name="a")
    with csp.process(name="s"):
        if s > 0.0:
            csp.send(a, x[0:16, :])
    with csp.process(name="r"):
        y[0:16, :] = csp.recv(a)
''', 'if s > 0.0', "depends on values known only as the program runs"),
    "processes of a run-time count": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 32, 64], n: i32):
    for w in csp.processes(n):
        y[0:16, :] = x[0:16, :]
''', 'csp.processes(n)', "the number of replicas must be a compile-time integer"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_user_errors_are_reported_at_their_line(case):
    source, mark, text = ERRORS[case]
    arguments = (X, Y, 1) if "n: i32" in source else (X, Y, 1.0) if "s: f32" in source else (X, Y)
    message = _error_of(source, "p", *arguments)
    assert text in message, message
    # The error's line: the one holding `mark`, in the file _error_of writes.
    line = PRELUDE.count("\n") + next(i for i, text in enumerate(source.split("\n"), 1) if mark in text)
    assert f".py:{line}:" in message, message


# ------------------------------------------------------------------ examples

def _example(name):
    import importlib.util

    from conftest import EXAMPLES

    spec = importlib.util.spec_from_file_location(f"htp_example_csp_{name}", EXAMPLES / "csp" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("rows,width", [(1, 256), (8, 512), (37, 512), (1000, 1024)])
def test_the_rmsnorm_pipeline_example(rows, width):
    m = _example("rmsnorm_pipeline")
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, width), dtype=np.float32)
    w = rng.standard_normal((1, width), dtype=np.float32)
    np.testing.assert_allclose(m.rmsnorm_pipeline(x, w, eps=1e-6, H=width), m.reference(x, w, 1e-6), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("rows", [1, 16, 100, 1000])
@pytest.mark.parametrize("workers", [1, 3, 4])
def test_the_fan_out_example(rows, workers):
    m = _example("fan_out")
    x = np.random.default_rng(rows).standard_normal((rows, 128), dtype=np.float32)
    np.testing.assert_allclose(m.gelu_fan_out(x, WORKERS=workers), m.reference(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seq", [1, 16, 37, 100, 256])
def test_the_attention_example(seq):
    m = _example("attention")
    rng = np.random.default_rng(seq)
    q, k, v = (rng.standard_normal((seq, 64), dtype=np.float32) for _ in range(3))
    scale = 1.0 / np.sqrt(64)
    np.testing.assert_allclose(m.attention(q, k, v, scale=scale), m.reference(q, k, v, scale), rtol=1e-4, atol=1e-5)


@csp.program
def chain(x: htp.Tensor[f32, 64, 16], y: htp.Out[f32, 64, 16]):
    """Six processes in a row over the elements of one array of channels:
    each stage receives on element k and sends on element k + 1."""
    c = csp.channel(f32, (8, 16), depth=1, count=5, name="c")
    with csp.process(name="head"):
        for i in range(8):
            csp.send(c, x[i * 8:i * 8 + 8, :], at=0)
    for k in csp.processes(4, name="stage"):
        for i in range(8):
            with csp.consume(c, at=k) as t:
                csp.send(c, t + 1.0, at=k + 1)
    with csp.process(name="tail"):
        for i in range(8):
            y[i * 8:i * 8 + 8, :] = csp.recv(c, at=4)


def test_processes_in_a_row_over_the_elements_of_one_array():
    x = np.random.default_rng(5).standard_normal((64, 16)).astype(np.float32)
    np.testing.assert_allclose(chain(x), x + 4, rtol=1e-6)


@csp.program
def rows_and_dtypes(x: htp.Tensor[f32, "N", 64], n: htp.Tensor[i32, "N", 64], y: htp.Out[f32, "N", 64],
                    z: htp.Out[i32, 1, 64], s: f32):
    """1-row tiles (never cut), three element types, a branch on the loop index."""
    a = csp.channel(f32, (1, 64), depth=3, name="rows")
    b = csp.channel(i32, (1, 64), depth=1, name="ints")
    c = csp.channel(f16, (1, 64), depth=2, name="halves")
    rows = x.shape[0]
    with csp.process(name="source"):
        for i in range(rows):
            csp.send(a, x[i:i + 1, :])
            csp.send(b, n[i:i + 1, :])
    with csp.process(name="convert"):
        for i in range(rows):
            csp.send(c, htp.cast(csp.recv(a) * s, f16))
    with csp.process(name="sum"):
        acc = htp.zeros((1, 64), i32)
        for i in range(rows):
            acc = acc + csp.recv(b)
        z[0:1, :] = acc
    with csp.process(name="back"):
        for i in range(rows):
            if i % 2 == 0:
                y[i:i + 1, :] = htp.cast(csp.recv(c), f32)
            else:
                y[i:i + 1, :] = htp.cast(csp.recv(c), f32) * 2.0


@pytest.mark.parametrize("rows", [1, 2, 7, 50])
def test_row_tiles_of_three_dtypes(rows):
    x = np.random.default_rng(rows).standard_normal((rows, 64)).astype(np.float32)
    n = np.arange(rows * 64, dtype=np.int32).reshape(rows, 64)
    y, z = rows_and_dtypes(x, n, s=0.5)
    want = (x * 0.5).astype(np.float16).astype(np.float32)
    want[1::2] *= 2
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(z[0], n.sum(0))


# ------------------------------------------------------------------ Ctrl-C

CSP_LONG_CALL = """
import sys
import numpy as np
import htp
from htp import f32

csp = htp.model("csp")

@csp.program
def slow(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    a = csp.channel(f32, (16, 64), depth=1, name="a", pad=0.0)
    with csp.process(name="busy"):
        for i in range(0, x.shape[0], 16):
            t = x[i:i + 16, :] * 1.0
            for r in range(20000):
                t = htp.exp(t * 0.5) - 1.0
            csp.send(a, t)
    with csp.process(name="waiting"):
        for i in range(0, x.shape[0], 16):
            y[i:i + 16, :] = csp.recv(a)

x = np.zeros((16 * 4096, 64), np.float32)  # minutes uninterrupted
slow(x[:32])  # compiled, and a short run
print("ready", flush=True)
try:
    slow(x)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(3)
print("finished", flush=True)
"""


def test_ctrl_c_stops_a_program_whose_processes_compute_and_wait(tmp_path):
    from conftest import run_and_interrupt

    returncode, out, seconds = run_and_interrupt(tmp_path, CSP_LONG_CALL)
    assert returncode == 3, out
    assert "interrupted" in out
    assert seconds < 15


# ------------------------------------------------------------------ consume holds its slot

HOLDING = '''
@csp.program
def p(x: htp.Tensor[f32, 32, 64], y: htp.Out[f32, 64, 64]):
    a = csp.channel(f32, (16, 64), depth=1, name="a")
    b = csp.channel(f32, (16, 64), depth=1, name="b")
    with csp.process(name="producer"):
        csp.send(a, x[0:16, :])
        csp.send(a, x[16:32, :])
        for i in range(4):
            y[i * 16:i * 16 + 16, :] = csp.recv(b)
    with csp.process(name="consumer"):
        for i in range(2):
            RECEIVE
'''


def test_a_consume_holds_its_slot_so_its_body_can_deadlock_where_a_recv_would_not():
    """A receive frees its slot at once; a consume holds it while its body
    runs: here the body sends twice on a channel of depth 1 the producer
    drains only after its second send, which the held slot blocks."""
    received = kernel_from(PRELUDE + HOLDING.replace("RECEIVE", """t = csp.recv(a)
            csp.send(b, t)
            csp.send(b, t * 2.0)"""), "p")
    x = np.random.default_rng(7).standard_normal((32, 64)).astype(np.float32)
    y = received(x)
    np.testing.assert_array_equal(y, np.concatenate([x[0:16], 2 * x[0:16], x[16:32], 2 * x[16:32]]))
    message = _error_of(HOLDING.replace("RECEIVE", """with csp.consume(a) as t:
                csp.send(b, t)
                csp.send(b, t * 2.0)"""), "p", x, np.zeros((64, 64), np.float32))
    assert "deadlock" in message and "process 'producer' waits to send on 'a' (1 of 1 held)" in message, message
    assert "process 'consumer' waits to send on 'b' (1 of 1 held)" in message, message
