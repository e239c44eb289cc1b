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

# Broadcast along a ragged dimension: the broadcast tile takes the ragged tile's
# valid region, its run-time size traced to the load (`tile.set_valid`).
# CHECK-LABEL: func.func @ragged_bcast
# CHECK: %[[ROWS:.*]] = arith.minsi
# CHECK: %[[X:.*]] = tile.load %arg0[{{.*}}] valid [%[[ROWS]]] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
# CHECK: %[[W:.*]] = tile.broadcast %{{.*}} : !tile.tile<1x64xf32> -> !tile.tile<16x64xf32>
# CHECK: %[[WV:.*]] = tile.set_valid %[[W]] valid [%[[ROWS]]] : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
# CHECK: tile.mul %[[X]], %[[WV]] : !tile.tile<16x64xf32, valid = ?x64>
# CHECK: scf.for
# CHECK: %[[COLS:.*]] = arith.minsi
# CHECK: %[[C:.*]] = tile.load %arg2[{{.*}}] valid [%[[COLS]]] : memref<8x?xf32> -> !tile.tile<8x64xf32, valid = 8x?>
# CHECK: %[[MB:.*]] = tile.broadcast %{{.*}} : !tile.tile<8x1xf32> -> !tile.tile<8x64xf32>
# CHECK: %[[MV:.*]] = tile.set_valid %[[MB]] valid [%[[COLS]]] : !tile.tile<8x64xf32> -> !tile.tile<8x64xf32, valid = 8x?>
# CHECK: tile.sub %[[C]], %[[MV]]
@htp.kernel
def ragged_bcast(x: htp.Tensor[htp.f32, "N", 64], w: htp.Tensor[htp.f32, 64], c: htp.Tensor[htp.f32, 8, "C"],
                 m: htp.Tensor[htp.f32, 8, 1], y: htp.Out[htp.f32, "N", 64], z: htp.Out[htp.f32, 8, "C"]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * w[:]
    for j in range(0, c.shape[1], 64):
        z[:, j:j + 64] = c[:, j:j + 64] - m[:, :]
