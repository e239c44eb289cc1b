# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
import htp

@htp.kernel
def f(x: htp.Tensor[htp.f32, 16, 16], y: htp.Out[htp.f32, 16, 16]):
    y[:, :] = htp.mish(x[:, :])
# CHECK: error-unknown-function.py:[[# @LINE - 1]]:15: error: unknown function 'mish'
# CHECK-NEXT: y[:, :] = htp.mish(x[:, :])
# CHECK-NEXT: {{^}}              ^
