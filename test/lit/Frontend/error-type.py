# Element types that do not fit.
# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
# RUN: not htp-translate --import-python %s --htp-const CASE=1 2>&1 | FileCheck %s --check-prefix=STORE
# RUN: not htp-translate --import-python %s --htp-const CASE=2 2>&1 | FileCheck %s --check-prefix=EXP
# RUN: not htp-translate --import-python %s --htp-const CASE=3 2>&1 | FileCheck %s --check-prefix=LOOP
import htp

@htp.kernel
def f(a: htp.Tensor[htp.f32, 16, 16], h: htp.Tensor[htp.f16, 16, 16], i: htp.Tensor[htp.i32, 16, 16],
      y: htp.Out[htp.f16, 16, 16], CASE: htp.Const[int] = 0):
    if CASE == 0:
        t = a[:, :] * h[:, :]
# CHECK: error-type.py:[[# @LINE - 1]]:13: error: element type mismatch in '*': tile[16x16, f32] and tile[16x16, f16] (convert one with htp.cast(t, htp.f32))
    if CASE == 1:
        y[:, :] = a[:, :]
# STORE: error-type.py:[[# @LINE - 1]]:19: error: element type mismatch: storing a tile[16x16, f32] into the f16 tensor 'y' (convert with htp.cast(t, htp.f16))
    if CASE == 2:
        e = htp.exp(i[:, :])
# EXP: error-type.py:[[# @LINE - 1]]:13: error: htp.exp needs a floating-point tile, got a tile[16x16, i32]
    if CASE == 3:
        acc = htp.zeros((16, 16), htp.f32)
        for k in range(4):
            acc = h[:, :]
# The error is at the assignment that changes the type, with a note at the definition.
# LOOP: error-type.py:[[# @LINE - 2]]:19: error: 'acc' is a tile[16x16, f32] before the loop but a tile[16x16, f16] here
# LOOP-NEXT: note: 'acc' is made before the loop at {{.*}}error-type.py:[[# @LINE - 5]]:15
