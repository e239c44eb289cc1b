# Calls of @htp.func helpers and other @htp.kernel functions are inlined;
# helpers return values and tuples; symbolic sizes bind from the arguments.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

@htp.func
def stats(t):
    m = htp.row_max(t)
    return m, htp.row_sum(htp.exp(t - m))

@htp.kernel
def scale_rows(x: htp.Tensor[htp.f32, "N", 32], y: htp.Out[htp.f32, "N", 32], k: htp.f32):
    for i in range(0, N, 8):
        y[i:i + 8, :] = x[i:i + 8, :] * k

# CHECK-LABEL: func.func @caller
# CHECK-NOT: func.call
# CHECK: %[[N:.*]] = memref.dim %arg0
# CHECK: tile.row_reduce max
# CHECK: tile.row_reduce sum
# CHECK: tile.div
# The inlined kernel: its N is the caller's tensor size.
# CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]]
# CHECK: tile.mul %{{.*}}, %{{.*}} : !tile.tile<8x32xf32, valid = ?x32>, f32
# CHECK: return
@htp.kernel
def caller(x: htp.Tensor[htp.f32, "M", 32], y: htp.Out[htp.f32, "M", 32]):
    t = x[0:8, :]
    m, s = stats(t)
    y[0:8, :] = htp.exp(t - m) / s
    scale_rows(x, y, 0.5)
