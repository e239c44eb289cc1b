# --htp-const for a constant no kernel declares is an error (a typo would
# otherwise compile silently with the default), naming the ones there are.
# RUN: not htp-translate --import-python %s --htp-const NOPE=3 2>&1 | FileCheck %s
# RUN: htp-translate --import-python %s --htp-const BLOCK=32 | FileCheck %s --check-prefix=KNOWN
# RUN: not htp-translate --import-python %s --htp-const BLOCK=1180591620717411303424 2>&1 | FileCheck %s --check-prefix=RANGE
import htp

# CHECK: error: --htp-const NOPE=...: no kernel in {{.*}}error-unknown-const.py has a compile-time constant named 'NOPE' (its constants: BLOCK)
# KNOWN: !tile.tile<32x16xf32>
# RANGE: --htp-const: '1180591620717411303424' is out of range: an int constant is a signed 64-bit integer
@htp.kernel
def k(x: htp.Tensor[htp.f32, 64, 16], y: htp.Out[htp.f32, 64, 16], BLOCK: htp.Const[int] = 16):
    for i in range(0, 64, BLOCK):
        y[i:i + BLOCK, :] = x[i:i + BLOCK, :]
