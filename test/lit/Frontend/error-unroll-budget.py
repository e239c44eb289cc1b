# Nested static_range loops multiply: the kernel's total is bounded (16384
# iterations), an error at the loop that passes it, found before the body is
# copied a million times (issue 21).
# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
import htp


@htp.kernel
def k(x: htp.Tensor[htp.f32, 16, 16], y: htp.Out[htp.f32, 16, 16]):
    acc = x[:, :]
    for i in htp.static_range(1000):
        for j in htp.static_range(1000):
# CHECK: error-unroll-budget.py:[[# @LINE - 1]]:18: error: static_range() loops would unroll more than 16384 iterations in this kernel
            acc = acc + 1.0
    y[:, :] = acc
