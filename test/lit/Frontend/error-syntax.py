# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
import htp

@htp.kernel
def broken(x: htp.Tensor[htp.f32, 16, 16]):
    t = x[:, :] +
# CHECK: error-syntax.py:[[# @LINE - 1]]:18: error: invalid Python syntax
# CHECK-NEXT: t = x[:, :] +
# CHECK-NEXT: ^
