"""CSP programs on PTO beyond one cluster (docs/csp.md, "CSP on PTO"): loaders and storers dissolve
into the processes they serve (htp_model_csp::dissolve: each keeps a cursor per channel element and
finds the mover's next block itself), and processes that then exchange no tiles — replicated
workers, independent processes — run as tasks of their own, one per replica. Every program is
compared with the cpu run of the same program (threads and channels) and with numpy, on a2a3sim
where it is set up; the packages' structure and the refusals are checked everywhere."""

import json
import os

import numpy as np
import pytest

import simulators
from simulators import on_a2a3sim
from sources import kernel_from

PRELUDE = "import htp\nimport numpy as np\nfrom htp import f32, f16, i32\ncsp = htp.model('csp')\n"

on_sim = on_a2a3sim


def example(name):
    return simulators.example(f"csp/{name}", "csp_pto_tasks")


def gelu(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


# Blocks dealt by a 2-D nest (row blocks x column blocks) to workers in turn.
GRID = '''
@csp.program
def p(x: htp.Tensor[f32, "M", "N"], y: htp.Out[f32, "M", "N"], W: htp.Const[int] = 3):
    work = csp.channel(f32, (8, 32), depth=2, count=W, name="work", pad=0.0)
    done = csp.channel(f32, (8, 32), depth={depth}, count=W, name="done")
    rows = (x.shape[0] + 7) // 8
    cols = (x.shape[1] + 31) // 32
    with csp.process(name="deal"):
        for i in range(rows):
            for j in range(cols):
                csp.send(work, x[i * 8:i * 8 + 8, j * 32:j * 32 + 32], at=(i * cols + j) % W)
    for w in csp.processes(W, name="worker"):
        for k in range(w, rows * cols, W):
            t = csp.recv(work, at=w)
            csp.send(done, t * t + 1.0, at=w)
    with csp.process(name="collect"):
        for i in range(rows):
            for j in range(cols):
                y[i * 8:i * 8 + 8, j * 32:j * 32 + 32] = csp.recv(done, at=(i * cols + j) % W)
'''

# Contiguous chunks: worker w takes blocks [w * per, (w + 1) * per); one process both deals and collects.
CHUNKS = '''
@csp.program
def p(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    work = csp.channel(f32, (16, 64), depth=2, count=2, name="work", pad=0.0)
    done = csp.channel(f32, (16, 64), depth=2, count=2, name="done")
    blocks = x.shape[0] // 16
    per = blocks // 2
    with csp.process(name="host"):
        for b in range(blocks):
            csp.send(work, x[b * 16:b * 16 + 16, :], at=b // per)
    for w in csp.processes(2, name="worker"):
        for b in range(per):
            with csp.consume(work, at=w) as t:
                csp.send(done, htp.exp(t) - t, at=w)
    with csp.process(name="store"):
        for b in range(blocks):
            y[b * 16:b * 16 + 16, :] = csp.recv(done, at=b // per)
'''

# A loader feeding a storer directly: the storer is left to do the copy.
COPY = '''
@csp.program
def p(x: htp.Tensor[f32, "N", 32], y: htp.Out[f32, "N", 32]):
    a = csp.channel(f32, (16, 32), depth=1, name="a", pad=0.0)
    with csp.process(name="load"):
        for i in range(0, x.shape[0], 16):
            csp.send(a, x[i:i + 16, :])
    with csp.process(name="store"):
        for i in range(0, x.shape[0], 16):
            y[i:i + 16, :] = csp.recv(a)
'''

# Two independent computing processes (no channel between them), each fed by a loader.
TWO_PIPES = '''
@csp.program
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32], z: htp.Out[f32, 64, 32]):
    a = csp.channel(f32, (16, 32), depth=2, name="a")
    b = csp.channel(f32, (16, 32), depth=2, name="b")
    with csp.process(name="load"):
        for i in range(0, 64, 16):
            csp.send(a, x[i:i + 16, :])
            csp.send(b, x[i:i + 16, :])
    with csp.process(name="double"):
        for i in range(0, 64, 16):
            y[i:i + 16, :] = csp.recv(a) * 2.0
    with csp.process(name="negate"):
        for i in range(0, 64, 16):
            z[i:i + 16, :] = -csp.recv(b)
'''

# A computing process that sends to a storer: its tiles go straight to the output.
STORER = '''
@csp.program
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32]):
    a = csp.channel(f32, (16, 32), depth=1, name="a")
    with csp.process(name="first"):
        for i in range(0, 32, 16):
            csp.send(a, x[i:i + 16, :] * 2.0)
    with csp.process(name="second"):
        for i in range(0, 32, 16):
            y[i:i + 16, :] = csp.recv(a)
'''


def run_both(source, args, target="pto-a2a3sim", **consts):
    """Runs the program on the cpu and on `target`; returns both outputs (the last arguments)."""
    program = kernel_from(PRELUDE + source, "p")
    cpu_args = [a.copy() for a in args]
    program.compile(target="cpu", **consts)(*cpu_args)
    sim_args = [a.copy() for a in args]
    program.compile(target=target, **consts)(*sim_args)
    return cpu_args, sim_args


# ------------------------------------------------------------------ a2a3sim

@on_sim
@pytest.mark.parametrize("rows, workers", [(1000, 4), (1000, 1), (64, 3), (17, 2), (16, 4)])
def test_the_fan_out_example_on_a2a3sim(rows, workers):
    m = example("fan_out")
    x = np.random.default_rng(rows + workers).standard_normal((rows, 128), dtype=np.float32)
    y = np.zeros_like(x)
    m.gelu_fan_out.compile(target="pto-a2a3sim", WORKERS=workers)(x, y)
    np.testing.assert_allclose(y, m.reference(x), rtol=1e-5, atol=1e-5)


@on_sim
@pytest.mark.parametrize("rows", [1000, 8, 13])
def test_the_rmsnorm_pipeline_runs_as_its_computer_on_a2a3sim(rows):
    m = example("rmsnorm_pipeline")
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 512), dtype=np.float32)
    w = rng.standard_normal((1, 512), dtype=np.float32)
    y = np.zeros_like(x)
    m.rmsnorm_pipeline.compile(target="pto-a2a3sim")(x, w, y, 1e-6)
    np.testing.assert_allclose(y, m.reference(x, w, 1e-6), rtol=1e-4, atol=1e-5)


@on_sim
@pytest.mark.parametrize("shape, workers, depth", [((40, 96), 3, 2), ((17, 33), 2, 1), ((8, 32), 4, 3), ((64, 64), 1, 1)])
def test_a_two_level_deal_over_workers_on_a2a3sim(shape, workers, depth):
    x = np.random.default_rng(shape[0]).standard_normal(shape, dtype=np.float32)
    cpu, sim = run_both(GRID.format(depth=depth), [x, np.zeros_like(x)], W=workers)
    np.testing.assert_allclose(cpu[1], x * x + 1.0, rtol=1e-6)
    np.testing.assert_allclose(sim[1], cpu[1], rtol=1e-6)


@on_sim
@pytest.mark.parametrize("rows", [32, 128])
def test_contiguous_chunks_and_consume_on_a2a3sim(rows):
    x = np.random.default_rng(rows).standard_normal((rows, 64), dtype=np.float32)
    cpu, sim = run_both(CHUNKS, [x, np.zeros_like(x)])
    np.testing.assert_allclose(cpu[1], np.exp(x) - x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sim[1], cpu[1], rtol=1e-5, atol=1e-6)


@on_sim
@pytest.mark.parametrize("rows", [16, 50])
def test_a_loader_feeding_a_storer_copies_on_a2a3sim(rows):
    x = np.random.default_rng(rows).standard_normal((rows, 32), dtype=np.float32)
    cpu, sim = run_both(COPY, [x, np.zeros_like(x)])
    np.testing.assert_array_equal(cpu[1], x)
    np.testing.assert_array_equal(sim[1], x)


@on_sim
def test_independent_processes_are_tasks_on_a2a3sim():
    x = np.random.default_rng(3).standard_normal((64, 32), dtype=np.float32)
    cpu, sim = run_both(TWO_PIPES, [x, np.zeros_like(x), np.zeros_like(x)])
    np.testing.assert_array_equal(sim[1], x * 2.0)
    np.testing.assert_array_equal(sim[2], -x)


@on_sim
def test_a_storer_dissolves_into_its_sender_on_a2a3sim():
    x = np.random.default_rng(4).standard_normal((32, 32), dtype=np.float32)
    cpu, sim = run_both(STORER, [x, np.zeros_like(x)])
    np.testing.assert_array_equal(sim[1], x * 2.0)


# ------------------------------------------------------------------ packages (no simulator needed)

@pytest.mark.parametrize("target", ["pto-a2a3sim", "pto-a2a3"])
def test_replicated_workers_are_one_task_each(tmp_path, target):
    m = example("fan_out")
    root = m.gelu_fan_out.compile(target=target, WORKERS=3).write_package(str(tmp_path / "p"))
    manifest = json.load(open(os.path.join(root, "manifest.json")))
    kernels = [k["name"] if isinstance(k, dict) and "name" in k else k for k in manifest["kernels"]]
    assert len(kernels) == 1, kernels                      # the worker; scatter and gather dissolved
    orchestration = open(os.path.join(root, "orchestration", "gelu_fan_out.cpp")).read()
    assert "for (" in orchestration, orchestration          # a task per replica
    worker = [open(os.path.join(d, f)).read() for d, _, fs in os.walk(os.path.join(root, "kernels")) for f in fs if f.endswith(".cpp")]
    assert len(worker) == 1 and "while (true)" in worker[0], worker


def test_the_static_metrics_count_a_task_per_replica():
    m = example("fan_out")
    compiled = m.gelu_fan_out.compile(target="pto-a2a3sim")
    metrics = compiled.metrics(np.zeros((64, 128), np.float32))
    assert metrics["tasks"] == 4, metrics


# ------------------------------------------------------------------ refusals, at the user's line

ERRORS = {
    "replicas talking to a computing process": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32]):
    a = csp.channel(f32, (16, 32), depth=1, count=2, name="a")
    with csp.process(name="cube"):
        csp.send(a, x[0:16, :] @ x[0:32, :], at=0)
        csp.send(a, x[16:32, :] @ x[0:32, :], at=1)
    for w in csp.processes(2, name="workers"):
        y[0:16, :] = csp.recv(a, at=w)
''', 'a = csp.channel', "on PTO replicas are tasks of their own, which exchange tiles only with loaders and storers"),
    "a loader that computes stays a process": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32]):
    a = csp.channel(f32, (16, 32), depth=1, count=2, name="a")
    with csp.process(name="deal"):
        csp.send(a, x[0:16, :] * 2.0, at=0)
        csp.send(a, x[16:32, :], at=1)
    for w in csp.processes(2, name="workers"):
        y[w * 16:w * 16 + 16, :] = csp.recv(a, at=w)
''', 'a = csp.channel', "exchange tiles only with loaders and storers"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_what_tasks_cannot_run_is_refused_at_its_line(case):
    source, mark, text = ERRORS[case]
    program = kernel_from(PRELUDE + source, "p")
    with pytest.raises(Exception) as error:
        program.compile(target="pto-a2a3sim")
    message = str(error.value)
    line = (PRELUDE + source).splitlines().index(next(l for l in (PRELUDE + source).splitlines() if mark in l)) + 1
    assert f":{line}:" in message and text in message, message


UNBALANCED_AT_THE_CALL = '''
@csp.program
def p(x: htp.Tensor[f32, "N", 32], y: htp.Out[f32, "N", 32]):
    work = csp.channel(f32, (16, 32), depth=2, count=2, name="work", pad=0.0)
    blocks = (x.shape[0] + 15) // 16
    with csp.process(name="scatter"):
        for b in range(blocks):
            csp.send(work, x[b * 16:b * 16 + 16, :], at=b % 2)
    for w in csp.processes(2, name="worker"):
        for b in range(w, blocks + 2, 2):
            y[b * 16:b * 16 + 16, :] = csp.recv(work, at=w) * 2.0
'''


@pytest.mark.parametrize("target", ["pto-a2a3sim", "pto-a2a3"])
def test_a_protocol_broken_only_by_the_calls_shapes_stops_before_the_package_runs(target):
    # Balanced or not depends on N: csp-verify-protocol says "later", and each call plays it first
    # (before any runtime is needed), as the cpu does: nothing runs, the outputs are untouched.
    program = kernel_from(PRELUDE + UNBALANCED_AT_THE_CALL, "p")
    x = np.ones((64, 32), np.float32)
    y = np.full_like(x, 7.0)
    with pytest.raises(RuntimeError) as error:
        program.compile(target=target)(x, y)
    line = (PRELUDE + UNBALANCED_AT_THE_CALL).splitlines().index("            y[b * 16:b * 16 + 16, :] = csp.recv(work, at=w) * 2.0") + 1
    assert f":{line}:" in str(error.value) and "unbalanced protocol: channel 'work[0]'" in str(error.value), error.value
    assert (y == 7.0).all()
