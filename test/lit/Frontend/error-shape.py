# Shapes that do not broadcast, a matmul with mismatched sizes, a store of the
# wrong shape. (A full tile stored into a ragged slice is valid: see ragged.py.)
# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
# RUN: not htp-translate --import-python %s --htp-const CASE=1 2>&1 | FileCheck %s --check-prefix=MATMUL
# RUN: not htp-translate --import-python %s --htp-const CASE=2 2>&1 | FileCheck %s --check-prefix=STORE
# RUN: not htp-translate --import-python %s --htp-const CASE=3 2>&1 | FileCheck %s --check-prefix=GATHER
# RUN: not htp-translate --import-python %s --htp-const CASE=4 2>&1 | FileCheck %s --check-prefix=WHOLE
import htp

@htp.kernel
def f(a: htp.Tensor[htp.f32, 16, 64], b: htp.Tensor[htp.f32, 16, 32], y: htp.Out[htp.f32, "N", 64], CASE: htp.Const[int] = 0):
    if CASE == 0:
        t = a[:, :] + b[:, :]
# CHECK: error-shape.py:[[# @LINE - 1]]:13: error: shape mismatch in '+': tile[16x64, f32] and tile[16x32, f32] (dimensions must be equal or 1)
# CHECK-NEXT: t = a[:, :] + b[:, :]
# CHECK-NEXT: ^
    if CASE == 1:
        t = a[:, :] @ b[:, :]
# MATMUL: error-shape.py:[[# @LINE - 1]]:13: error: shape mismatch in '@': tile[16x64, f32] has 64 columns but tile[16x32, f32] has 16 rows
    if CASE == 2:
        y[0:16, :] = b[:, :]
# STORE: error-shape.py:[[# @LINE - 1]]:22: error: shape mismatch: storing a tile[16x32, f32] into a 16x64 slice of 'y'
    if CASE == 3:
        g = htp.gather(a, htp.iota((8, 1), 0, htp.i32), 40, 32)
# GATHER: error-shape.py:[[# @LINE - 1]]:57: error: gathers columns 40..72 of 'a', which has 64: the window must lie inside the tensor
    if CASE == 4:
        # A tile needs a static size: ':' over a symbolic dimension is for task views (wsp-whole-symbolic-view.py).
        t = y[:, :]
# WHOLE: error-shape.py:[[# @LINE - 1]]:15: error: an open-ended slice of dimension 0 of 'y' needs a static size and start: write [i:i + BLOCK]
