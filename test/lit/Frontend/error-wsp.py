# What a user can get wrong in a WSP workload: each an error at their line
# (one workload each: a function stops at its first error).
# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
import htp
import wsp


@htp.kernel
def block(x: htp.Tensor[htp.f32, 16, 64], y: htp.Out[htp.f32, 16, 64]):
    y[:, :] = x[:, :]


@htp.kernel
def scaled(y: htp.Out[htp.f32, 16, 64], s: htp.f32):
    y[:, :] = y[:, :] * s


@wsp.workload
def too_few(x: htp.Tensor[htp.f32, 32, 64], y: htp.Out[htp.f32, 32, 64], n: htp.i64):
    # CHECK: error-wsp.py:[[@LINE+1]]:5: error: wsp.task(): passes 1 arguments to 'block', which takes 2
    wsp.task(block, x[0:16, :])


@wsp.workload
def short_view(x: htp.Tensor[htp.f32, 32, 64], y: htp.Out[htp.f32, 32, 64], n: htp.i64):
    # CHECK: error-wsp.py:[[@LINE+1]]:5: error: wsp.task(): argument #0 of 'block' has 16 elements in dimension 0, the view 8
    wsp.task(block, x[0:8, :], y[0:16, :])


@wsp.workload
def float_from_int(x: htp.Tensor[htp.f32, 32, 64], y: htp.Out[htp.f32, 32, 64], n: htp.i64):
    # CHECK: error-wsp.py:[[@LINE+1]]:5: error: wsp.task(): argument #1 of 'scaled' takes a f32, got a i64
    wsp.task(scaled, y[0:16, :], n)


@wsp.workload
def no_kernel(x: htp.Tensor[htp.f32, 32, 64], y: htp.Out[htp.f32, 32, 64], n: htp.i64):
    # CHECK: error-wsp.py:[[@LINE+1]]:5: error: wsp.task(): takes the kernel first
    wsp.task(x[0:16, :], y[0:16, :])


@wsp.workload
def unknown_keyword(x: htp.Tensor[htp.f32, 32, 64], y: htp.Out[htp.f32, 32, 64], n: htp.i64):
    # CHECK: error-wsp.py:[[@LINE+1]]:5: error: wsp.task(): takes no keyword 'priority' (keys=, stream=, worker=)
    wsp.task(block, x[0:16, :], y[0:16, :], priority=3)


@wsp.workload
def seq_of_two(x: htp.Tensor[htp.f32, 32, 64], y: htp.Out[htp.f32, 32, 64], n: htp.i64):
    # CHECK: error-wsp.py:[[@LINE+1]]:14: error: wsp.seq(): takes one axis
    for i in wsp.seq(2, 3):
        wsp.task(block, x[0:16, :], y[0:16, :])


@wsp.workload
def when_scalar(x: htp.Tensor[htp.f32, 32, 64], y: htp.Out[htp.f32, 32, 64], n: htp.i64):
    # CHECK: error-wsp.py:[[@LINE+1]]:10: error: wsp.when(): takes a comparison of a wsp.element with a value
    with wsp.when(n > 2):
        wsp.task(block, x[0:16, :], y[0:16, :])


@wsp.workload
def read_floats(x: htp.Tensor[htp.f32, 32, 64], y: htp.Out[htp.f32, 32, 64], n: htp.i64):
    # CHECK: error-wsp.py:[[@LINE+1]]:9: error: wsp.read(): reads integers (lengths, offsets, counts)
    m = wsp.read(x, 0, 0)


@wsp.workload
def ragged_view(x: htp.Tensor[htp.f32, 32, 64], y: htp.Out[htp.f32, 32, 64], n: htp.i64):
    # CHECK: error-wsp.py:[[@LINE+1]]:9: error: wsp.ragged(): the lengths must be a tensor parameter of the workload
    r = wsp.ragged(4, x[0:16, :])


@wsp.workload
def loop_carries(x: htp.Tensor[htp.f32, 32, 64], y: htp.Out[htp.f32, 32, 64], n: htp.i64):
    t = 0
    # CHECK: error-wsp.py:[[@LINE+1]]:14: error: wsp.parallel(): a wsp loop cannot change variables of the workload
    for i in wsp.parallel(4):
        t = t + i


@wsp.workload
def names_too_few(x: htp.Tensor[htp.f32, 32, 64], y: htp.Out[htp.f32, 32, 64], lens: htp.Tensor[htp.i32, 4]):
    # CHECK: error-wsp.py:[[@LINE+1]]:5: error: wsp.parallel() gives 3 value(s) per iteration, but the loop names 2
    for b, c in wsp.parallel(wsp.ragged(4, lens), 2):
        wsp.task(block, x[0:16, :], y[0:16, :])
