# What a kernel can get wrong with the comm intrinsic set: each an error at
# its line (one kernel each: a kernel stops at its first error).
# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
import htp
from htp import comm


@htp.kernel
def not_a_window(x: htp.Tensor[htp.f32, 16, 64], y: htp.Out[htp.f32, 4, 16, 64]):
    # CHECK: error-comm.py:[[@LINE+1]]:17: error: comm.put()'s block must be in a communication window (a comm.Window[...] parameter), and 'y' is not one
    comm.put(0, y[0, :, :], x[:, :])


@htp.kernel
def wrong_shape(x: htp.Tensor[htp.f32, 16, 64], w: comm.Window[htp.f32, 4, 16, 64]):
    # CHECK: error-comm.py:[[@LINE+1]]:29: error: shape mismatch: comm.put() of a tile[8x64, f32] into a 16x64 block of 'w'
    comm.put(0, w[0, :, :], x[0:8, :])


@htp.kernel
def float_signal(w: comm.Window[htp.f32, 4]):
    # CHECK: error-comm.py:[[@LINE+1]]:15: error: comm.wait()'s signal is an i32 element (a signal), and 'w' holds f32
    comm.wait(w[0], 1)


@htp.kernel
def block_signal(s: comm.Window[htp.i32, 4, 8]):
    # CHECK: error-comm.py:[[@LINE+1]]:20: error: comm.notify()'s signal is one element: index every dimension of 's' with a single value
    comm.notify(0, s[0, 0:8], 1)


@htp.kernel
def arguments(s: comm.Window[htp.i32, 4]):
    # CHECK: error-comm.py:[[@LINE+1]]:5: error: comm.wait() takes 2 argument(s) (signal, value), got 1
    comm.wait(s[0])


@htp.kernel
def keyword(s: comm.Window[htp.i32, 4]):
    # CHECK: error-comm.py:[[@LINE+1]]:28: error: comm.wait()'s cmp= is one of ">=", ">", "==", "!=", "<", "<=", got "ge"
    comm.wait(s[0], 1, cmp="ge")


@htp.kernel
def unknown_keyword(s: comm.Window[htp.i32, 4]):
    # CHECK: error-comm.py:[[@LINE+1]]:29: error: comm.notify() has no keyword 'mode' (it takes: op)
    comm.notify(0, s[0], 1, mode="set")


@htp.kernel
def not_a_tile(s: comm.Window[htp.f32, 4, 64]):
    # CHECK: error-comm.py:[[@LINE+1]]:28: error: comm.put()'s tile is a tile, got the float constant 1
    comm.put(0, s[0:1, :], 1.0)


@htp.kernel
def column_major(w: comm.Window[htp.f32, 16, 16, htp.layout("col_major")]):
    # CHECK: error-comm.py:[[@LINE-1]]:21: error: a communication window is row-major (comm.Window[dtype, dims...])
    comm.rank()
