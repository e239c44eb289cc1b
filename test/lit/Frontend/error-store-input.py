# A store into an input (htp.Tensor) parameter, directly or through a helper's
# htp.Tensor parameter, is an error at the store (issue 21): declare it htp.InOut.
# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
# RUN: not htp-translate --import-python %s --htp-const CASE=1 2>&1 | FileCheck %s --check-prefix=HELPER
# RUN: htp-translate --import-python %s --htp-const CASE=2 | FileCheck %s --check-prefix=INOUT
import htp


@htp.func
def clear(t: htp.Tensor[htp.f32, 16, 16]):
    t[:, :] = 0.0
# HELPER: error-store-input.py:[[# @LINE - 1]]:5: error: cannot store into 't': it is an input ('z' passed for the htp.Tensor parameter 't' of clear()), which a kernel only reads; declare the parameter htp.InOut[...] to read and write it, or htp.Out[...] to only write it


@htp.kernel
def k(x: htp.Tensor[htp.f32, 16, 16], z: htp.InOut[htp.f32, 16, 16], CASE: htp.Const[int] = 0):
    if CASE == 0:
        x[:, :] = z[:, :]
# CHECK: error-store-input.py:[[# @LINE - 1]]:9: error: cannot store into 'x': it is an input (the kernel's htp.Tensor parameter 'x'), which a kernel only reads; declare the parameter htp.InOut[...]
# CHECK-NEXT: x[:, :] = z[:, :]
# CHECK-NEXT: ^
    if CASE == 1:
        clear(z)
    if CASE == 2:
        z[:, :] = x[:, :] + z[:, :]
# INOUT: tile.store
