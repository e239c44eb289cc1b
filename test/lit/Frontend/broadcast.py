# Implicit numpy-style broadcasting of Rx1 and 1xC operands.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

# CHECK-LABEL: func.func @bcast
# CHECK: %[[M:.*]] = tile.row_reduce max %[[T:.*]] : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
# CHECK: %[[MB:.*]] = tile.broadcast %[[M]] : !tile.tile<16x1xf32> -> !tile.tile<16x64xf32>
# CHECK: tile.sub %[[T]], %[[MB]] : !tile.tile<16x64xf32>
# CHECK: %[[WB:.*]] = tile.broadcast %{{.*}} : !tile.tile<1x64xf32> -> !tile.tile<16x64xf32>
# CHECK: tile.mul %{{.*}}, %[[WB]]
# Both sides broadcast: [16,1] + [1,64] -> [16,64].
# CHECK: tile.broadcast %{{.*}} : !tile.tile<16x1xf32> -> !tile.tile<16x64xf32>
# CHECK: tile.broadcast %{{.*}} : !tile.tile<1x64xf32> -> !tile.tile<16x64xf32>
# CHECK: tile.add
@htp.kernel
def bcast(x: htp.Tensor[htp.f32, 16, 64], w: htp.Tensor[htp.f32, 64], y: htp.Out[htp.f32, 16, 64]):
    t = x[:, :]
    d = t - htp.row_max(t)
    e = d * w[:]
    o = htp.row_sum(t) + w[:]
    y[:, :] = e + o
