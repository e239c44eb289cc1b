# What a user can get wrong in a CSP program's constructs: each an error at
# their line (one program each: a function stops at its first error). The
# protocol's errors (deadlocks, unbalanced channels) are the pass's:
# Transforms/csp-verify-protocol.mlir.
# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
import htp
import csp


@csp.program
def no_depth(x: htp.Tensor[htp.f32, 16, 64]):
    # CHECK: error-csp.py:[[@LINE+1]]:9: error: csp.channel(): takes depth=
    a = csp.channel(htp.f32, (16, 64))


@csp.program
def not_a_shape(x: htp.Tensor[htp.f32, 16, 64]):
    # CHECK: error-csp.py:[[@LINE+1]]:9: error: csp.channel(): a channel carries 2-D tiles: give its shape as (rows, columns)
    a = csp.channel(htp.f32, (16,), depth=1)


@csp.program
def cut_block(x: htp.Tensor[htp.f32, "N", 64]):
    a = csp.channel(htp.f32, (16, 64), depth=1)
    with csp.process(name="p"):
        # CHECK: error-csp.py:[[@LINE+1]]:9: error: csp.send(): sends a block of 16x64 that may be cut by the tensor's edge
        csp.send(a, x[0:16, :])


@csp.program
def wrong_shape(x: htp.Tensor[htp.f32, 16, 64]):
    a = csp.channel(htp.f32, (16, 64), depth=1)
    with csp.process(name="p"):
        # CHECK: error-csp.py:[[@LINE+1]]:9: error: csp.send(): sends a 8x64 f32 tile on a channel of 16x64 f32 tiles
        csp.send(a, x[0:8, :])


@csp.program
def array_without_index(x: htp.Tensor[htp.f32, 16, 64]):
    a = csp.channel(htp.f32, (16, 64), depth=1, count=3)
    with csp.process(name="p"):
        # CHECK: error-csp.py:[[@LINE+1]]:13: error: csp.recv(): the channel is an array of 3: say which with at=
        t = csp.recv(a)


@csp.program
def bad_pad(x: htp.Tensor[htp.f32, 16, 64]):
    # CHECK: error-csp.py:[[@LINE+1]]:9: error: csp.channel(): pad= is the f32 value a cut tile is padded with (a Python number)
    a = csp.channel(htp.f32, (16, 64), depth=1, pad="zero")


@csp.program
def replicas_share(x: htp.Tensor[htp.f32, 16, 64]):
    a = csp.channel(htp.f32, (16, 64), depth=1, name="a")
    for w in csp.processes(2, name="w"):
        # CHECK: error-csp.py:[[@LINE+1]]:9: error: csp.send(): the 2 replicas of process 'w' would all send on channel 'a'
        csp.send(a, x[0:16, :])


@csp.program
def shares_a_variable(x: htp.Tensor[htp.f32, 16, 64]):
    k = 0
    # CHECK: error-csp.py:[[@LINE+1]]:10: error: csp.process(): a process cannot change the program's variables
    with csp.process(name="p"):
        k = 1
