# if: a constant condition is decided at compile time; a run-time one is an
# scf.if whose merged variables keep one type.
# RUN: htp-translate --import-python %s | FileCheck %s
# RUN: htp-translate --import-python %s --htp-const CAUSAL=False | FileCheck %s --check-prefix=NONCAUSAL
import htp

# CHECK-LABEL: func.func @branches
# CHECK: tile.iota
# CHECK: tile.select
# NONCAUSAL-LABEL: func.func @branches
# NONCAUSAL-NOT: tile.iota
# CHECK: %[[C:.*]] = arith.cmpi sgt, %arg2, %{{.*}} : i32
# CHECK: %[[R:.*]] = scf.if %[[C]] -> (!tile.tile<16x16xf32>) {
# CHECK: tile.exp
# CHECK: scf.yield
# CHECK: } else {
# CHECK: tile.relu
# CHECK: scf.yield
# CHECK: tile.store %[[R]]
@htp.kernel
def branches(x: htp.Tensor[htp.f32, 16, 16], y: htp.Out[htp.f32, 16, 16], n: htp.i32, CAUSAL: htp.Const[bool] = True):
    t = x[:, :]
    if CAUSAL:
        t = htp.where(htp.iota((16, 16), 1) > htp.iota((16, 16), 0), 0.0, t)
    if n > 0:
        t = htp.exp(t)
    elif n < -5:
        t = htp.abs(t)
    else:
        t = htp.relu(t)
    y[:, :] = t
