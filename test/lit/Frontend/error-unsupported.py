# Constructs a kernel cannot contain, each reported at the construct.
# RUN: not htp-translate --import-python %s 2>&1 | FileCheck %s
# RUN: not htp-translate --import-python %s --htp-const WHICH=1 2>&1 | FileCheck %s --check-prefix=TRY
# RUN: not htp-translate --import-python %s --htp-const WHICH=2 2>&1 | FileCheck %s --check-prefix=COMP
# RUN: not htp-translate --import-python %s --htp-const WHICH=3 2>&1 | FileCheck %s --check-prefix=WRAP
import htp

@htp.kernel
def f(x: htp.Tensor[htp.f32, 16, 16], WHICH: htp.Const[int] = 0):
    if WHICH == 0:
        while True:
            pass
# CHECK: error-unsupported.py:[[# @LINE - 2]]:9: error: unsupported Python construct in a kernel: a while loop
# CHECK-NEXT: while True:
# CHECK-NEXT: ^
    if WHICH == 1:
        try:
            pass
        except Exception:
            pass
# TRY: error-unsupported.py:[[# @LINE - 4]]:9: error: unsupported Python construct in a kernel: try/except
    if WHICH == 2:
        t = [v for v in range(4)]
# COMP: error-unsupported.py:[[# @LINE - 1]]:13: error: unsupported Python construct in a kernel: a list comprehension
    if WHICH == 3:
        for i in range(9223372036854775800, 9223372036854775807, 4):
            pass
# WRAP: error-unsupported.py:[[# @LINE - 2]]:18: error: range() stop 9223372036854775807 is within one step (4) of the largest i64: the loop variable would overflow
