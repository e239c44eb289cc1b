"""CSP programs on PTO (docs/csp.md, "CSP on PTO"): a program is one pto-runtime cluster task, its
cube process (the matmuls) on the cube core and its vector process on the vector core, each channel a
direction of the cluster's pipe with the channels' depths as slots (htp-conversion-csp-to-pto). Run
and compared with numpy on pto-runtime's a2a3sim where it is set up; the packages' structure and every
refusal are checked everywhere."""

import os

import numpy as np
import pytest

import htp
import simulators
from simulators import on_a2a3sim
from sources import kernel_from

PRELUDE = "import htp\nimport numpy as np\nfrom htp import f32, f16, i32\ncsp = htp.model('csp')\n"

on_sim = on_a2a3sim


def example(name):
    return simulators.example(f"csp/{name}", "csp_pto")


PING_PONG = '''
@csp.program
def p(a: htp.Tensor[f32, "N", 32], b: htp.Tensor[f32, 32, 32], y: htp.Out[f32, "N", 32]):
    products = csp.channel(f32, (16, 32), depth={c2v}, name="products")
    scaled = csp.channel(f32, (16, 32), depth={v2c}, name="scaled")
    finals = csp.channel(f32, (16, 32), depth={c2v}, name="finals")
    n = a.shape[0]
    with csp.process(name="cube"):
        for i in range(0, n, 16):
            csp.send(products, htp.pad(a[i:i + 16, :], 0.0) @ b[:, :])
            t = csp.recv(scaled)
            csp.send(finals, t @ b[:, :])
    with csp.process(name="vector"):
        for i in range(0, n, 16):
            csp.send(scaled, csp.recv(products) * 0.5)
            y[i:i + 16, :] = csp.recv(finals) + 1.0
'''


def ping_pong_reference(a, b):
    return ((a.astype(np.float64) @ b) * 0.5) @ b + 1.0


# ------------------------------------------------------------------ a2a3sim

@on_sim
@pytest.mark.parametrize("seq", [16, 100, 200])
def test_attention_as_two_processes_on_a2a3sim(seq):
    m = example("attention")
    rng = np.random.default_rng(seq)
    q, k, v = (rng.standard_normal((seq, 64), dtype=np.float32) for _ in range(3))
    o = np.zeros_like(q)
    m.attention.compile(target="pto-a2a3sim")(q, k, v, o, 0.125)
    np.testing.assert_allclose(o, m.reference(q, k, v, 0.125), rtol=1e-4, atol=1e-5)


@on_sim
@pytest.mark.parametrize("rows, cols", [(32, 64), (100, 150)])
def test_gemm_epilogue_on_a2a3sim(rows, cols):
    m = example("gemm_epilogue")
    rng = np.random.default_rng(rows)
    a = rng.standard_normal((rows, 256), dtype=np.float32) * 0.1
    b = rng.standard_normal((256, cols), dtype=np.float32) * 0.1
    bias = rng.standard_normal((1, cols), dtype=np.float32)
    y = np.zeros((rows, cols), np.float32)
    m.gemm_epilogue.compile(target="pto-a2a3sim")(a, b, bias, y)
    np.testing.assert_allclose(y, m.reference(a, b, bias), rtol=1e-4, atol=1e-5)


@on_sim
@pytest.mark.parametrize("c2v, v2c", [(1, 1), (2, 1), (3, 2)])
def test_channels_both_ways_at_several_depths_on_a2a3sim(c2v, v2c):
    program = kernel_from(PRELUDE + PING_PONG.format(c2v=c2v, v2c=v2c), "p")
    rng = np.random.default_rng(c2v * 10 + v2c)
    a = rng.standard_normal((64, 32), dtype=np.float32)
    b = rng.standard_normal((32, 32), dtype=np.float32) * 0.2
    y = np.zeros_like(a)
    program.compile(target="pto-a2a3sim")(a, b, y)
    np.testing.assert_allclose(y, ping_pong_reference(a, b), rtol=1e-4, atol=1e-4)


VECTOR_ONLY = '''
@csp.program
def p(x: htp.Tensor[f32, 64, 32], y: htp.Out[f32, 64, 32]):
    with csp.process(name="only"):
        for i in range(0, 64, 16):
            y[i:i + 16, :] = htp.exp(x[i:i + 16, :])
'''


@on_sim
def test_a_single_process_runs_as_a_kernel_on_a2a3sim():
    program = kernel_from(PRELUDE + VECTOR_ONLY, "p")
    x = np.random.default_rng(5).standard_normal((64, 32), dtype=np.float32)
    y = np.zeros_like(x)
    program.compile(target="pto-a2a3sim")(x, y)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-5)


# ------------------------------------------------------------------ packages (no simulator needed)

@pytest.mark.parametrize("target", ["pto-a2a3sim", "pto-a2a3"])
def test_the_package_is_one_cluster_task_with_the_channels_depths(tmp_path, target):
    program = kernel_from(PRELUDE + PING_PONG.format(c2v=3, v2c=2), "p")
    root = program.compile(target=target).write_package(str(tmp_path / "p"))
    aic = open(os.path.join(root, "kernels", "aic", "p_aic.cpp")).read()
    aiv = open(os.path.join(root, "kernels", "aiv", "p_aiv.cpp")).read()
    # Two c2v channels of depth 3 share the pipe (6 slots); one v2c channel of depth 2.
    for source in (aic, aiv):
        assert "TPipe<0, Direction::DIR_C2V, 2048, 6, 1, true>" in source, source
        assert "TPipe<2, Direction::DIR_V2C, 2048, 2, 1, true>" in source, source
    assert aic.count("TPUSH<PipeC2V") == 2 and aic.count("TPOP<PipeV2C") == 1, aic
    assert aiv.count("TPOP<PipeC2V") == 2 and aiv.count("TPUSH<PipeV2C") == 1, aiv
    orchestration = open(os.path.join(root, "orchestration", "p.cpp")).read()
    assert orchestration.count("rt_submit_task(") + orchestration.count("MixedKernels") >= 1, orchestration


def test_the_cpu_still_runs_the_same_program():
    program = kernel_from(PRELUDE + PING_PONG.format(c2v=1, v2c=1), "p")
    rng = np.random.default_rng(9)
    a = rng.standard_normal((80, 32), dtype=np.float32)
    b = rng.standard_normal((32, 32), dtype=np.float32) * 0.2
    y = np.zeros_like(a)
    program(a, b, y)
    np.testing.assert_allclose(y, ping_pong_reference(a, b), rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------ refusals, at the user's line

ERRORS = {
    "two vector processes": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32]):
    a = csp.channel(f32, (16, 32), depth=1, name="a")
    with csp.process(name="first"):
        csp.send(a, x[0:16, :] * 2.0)
    with csp.process(name="second"):
        y[0:16, :] = htp.exp(csp.recv(a))
''', 'with csp.process(name="second")', "the processes 'first' and 'second' both do vector work only: on PTO a program is one cluster"),
    "two cube processes": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32]):
    a = csp.channel(f32, (16, 32), depth=1, name="a")
    with csp.process(name="first"):
        csp.send(a, x[0:16, :] @ x[0:32, :])
    with csp.process(name="second"):
        t = csp.recv(a)
        y[0:16, :] = t @ x[0:32, :]
''', 'with csp.process(name="second")', "the processes 'first' and 'second' both multiply matrices"),
    "vector work on the cube": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32]):
    a = csp.channel(f32, (16, 32), depth=1, name="a")
    with csp.process(name="cube"):
        c = x[0:16, :] @ x[0:32, :]
        csp.send(a, htp.exp(c))
    with csp.process(name="vector"):
        y[0:16, :] = csp.recv(a)
''', 'csp.send(a, htp.exp(c))', "this process multiplies matrices, so on PTO it runs on the cube core, which computes matmuls only"),
    "shared pipe out of order": ('''
@csp.program
def p(x: htp.Tensor[f32, 32, 32], y: htp.Out[f32, 32, 32], z: htp.Out[f32, 32, 32]):
    first = csp.channel(f32, (16, 32), depth=2, name="first")
    second = csp.channel(f32, (16, 32), depth=2, name="second")
    with csp.process(name="cube"):
        csp.send(first, x[0:16, :] @ x[0:32, :])
        csp.send(second, x[16:32, :] @ x[0:32, :])
    with csp.process(name="vector"):
        z[0:16, :] = htp.exp(csp.recv(second))
        y[0:16, :] = htp.exp(csp.recv(first))
''', 'with csp.process(name="vector")', "the channels 'first', 'second' share the cluster's c2v pipe"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_what_a_cluster_cannot_run_is_refused_at_its_line(case):
    source, mark, text = ERRORS[case]
    program = kernel_from(PRELUDE + source, "p")
    with pytest.raises(htp.CompileError) as info:
        program.compile(target="pto-a2a3sim")
    message = str(info.value)
    assert text in message, message
    line = PRELUDE.count("\n") + next(i for i, t in enumerate(source.split("\n"), 1) if mark in t)
    assert f".py:{line}:" in message, message
