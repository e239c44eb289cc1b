# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
import htp

@htp.kernel
def f(x: htp.Tensor[htp.f32, 16, 16], y: htp.Out[htp.f32, 16, 16]):
    y[:, :] = x[:, :] * scale
# CHECK: error-unknown-name.py:[[# @LINE - 1]]:25: error: unknown name 'scale'
