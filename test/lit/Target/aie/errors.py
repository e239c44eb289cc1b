# A kernel the AIE lowering does not take is an error at the user's line
# (python/tests/test_aie.py has one case per error class).
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | not htp-translate --tile-to-aie 2>&1 | FileCheck %s --check-prefix=BIG
import htp
from htp import f32


@htp.kernel
def too_big(a: htp.Tensor[f32, "N", 256], c: htp.Out[f32, "N", 256], N: htp.Const[int] = 256):
    for i in range(0, N, 64):
        c[i:i + 64, :] = a[i:i + 64, :]
# BIG: errors.py:[[# @LINE-2]]:5: error: each core would hold 262144 bytes of FIFO objects
