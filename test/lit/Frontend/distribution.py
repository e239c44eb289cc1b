# htp.range(start, stop, step, grain=G | parallel=False): the user's wish for
# how the outer loop is spread over cores, as attributes on the scf.for
# (tile-distribute-outer-loop turns them into an Axe layout of the trips).
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

# CHECK-LABEL: func.func @grained
# CHECK: scf.for
# CHECK: } {htp.grain = 4 : i64}
@htp.kernel
def grained(x: htp.Tensor[htp.f32, "N", 64], y: htp.Out[htp.f32, "N", 64]):
    for i in htp.range(0, x.shape[0], 16, grain=4):
        y[i:i + 16, :] = x[i:i + 16, :]


# CHECK-LABEL: func.func @serial
# CHECK: scf.for
# CHECK: } {htp.serial}
@htp.kernel
def serial(x: htp.Tensor[htp.f32, "N", 64], y: htp.Out[htp.f32, "N", 64]):
    for i in htp.range(0, x.shape[0], 16, parallel=False):
        y[i:i + 16, :] = x[i:i + 16, :]


# parallel=True is the default: no attribute.
# CHECK-LABEL: func.func @default
# CHECK-NOT: htp.grain
# CHECK-NOT: htp.serial
# CHECK: return
@htp.kernel
def default(x: htp.Tensor[htp.f32, "N", 64], y: htp.Out[htp.f32, "N", 64]):
    for i in htp.range(0, x.shape[0], 16, parallel=True):
        y[i:i + 16, :] = x[i:i + 16, :]
