# Shape operations: subscripts of tiles (tile.slice), htp.concat (tile.concat), htp.reshape and
# t.reshape (tile.reshape), and slices of tensors with a step (strided tile.load / tile.store).
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

# A block of a ragged tile keeps its ragged rows whole; an index keeps its dimension; a step picks
# every n-th column; a slice of the whole tile is the tile (no op).
# CHECK-LABEL: func.func @rotate_half
# CHECK: %[[T:.*]] = tile.load %arg0[%{{.*}}, %{{.*}}] valid [%{{.*}}] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
# CHECK: %[[B:.*]] = tile.slice %[[T]] [0, 32] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x32xf32, valid = ?x32>
# CHECK: %[[N:.*]] = tile.neg %[[B]]
# CHECK: %[[A:.*]] = tile.slice %[[T]] [0, 0] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x32xf32, valid = ?x32>
# CHECK: tile.concat %[[N]], %[[A]] axis 1 : !tile.tile<16x32xf32, valid = ?x32>, !tile.tile<16x32xf32, valid = ?x32> -> !tile.tile<16x64xf32, valid = ?x64>
# CHECK: tile.slice %[[T]] [0, 3] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x1xf32, valid = ?x1>
# CHECK: tile.slice %[[T]] [0, 1] strides [1, 2] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x32xf32, valid = ?x32>
# CHECK-NOT: tile.slice
# CHECK: return
@htp.kernel
def rotate_half(x: htp.Tensor[htp.f32, "N", 64], y: htp.Out[htp.f32, "N", 64], c: htp.Out[htp.f32, "N", 1],
                o: htp.Out[htp.f32, "N", 32]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = htp.concat([-t[:, 32:64], t[:, :32]], axis=1)
        c[i:i + 16, :] = t[:, 3]
        o[i:i + 16, :] = t[:, 1::2]
        w = t[:, :]


# Rows stacked (axis 0, numpy's default), negative bounds, reshapes (with -1) of fully valid tiles.
# CHECK-LABEL: func.func @stack_and_reshape
# CHECK: %[[X:.*]] = tile.load %arg0
# CHECK: %[[L:.*]] = tile.slice %[[X]] [8, 0] : !tile.tile<16x64xf32> -> !tile.tile<8x64xf32>
# CHECK: %[[U:.*]] = tile.slice %[[X]] [0, 0] : !tile.tile<16x64xf32> -> !tile.tile<8x64xf32>
# CHECK: tile.concat %[[L]], %[[U]] axis 0 : !tile.tile<8x64xf32>, !tile.tile<8x64xf32> -> !tile.tile<16x64xf32>
# CHECK: tile.reshape %[[X]] : !tile.tile<16x64xf32> -> !tile.tile<32x32xf32>
# CHECK: tile.reshape %[[X]] : !tile.tile<16x64xf32> -> !tile.tile<64x16xf32>
# CHECK: tile.slice %[[X]] [15, 60] : !tile.tile<16x64xf32> -> !tile.tile<1x4xf32>
@htp.kernel
def stack_and_reshape(x: htp.Tensor[htp.f32, 16, 64], y: htp.Out[htp.f32, 16, 64], z: htp.Out[htp.f32, 32, 32],
                      w: htp.Out[htp.f32, 64, 16], v: htp.Out[htp.f32, 1, 4]):
    t = x[:, :]
    y[:, :] = htp.concat((t[8:], t[:8]))
    z[:, :] = t.reshape(32, 32)
    w[:, :] = htp.reshape(t, (-1, 16))
    v[:, :] = t[-1, -4:]


# Tensor slices with a step: every 2nd column of a ragged block, every 2nd row (its valid rows
# ceil((N - i) / 2), at most 8); stores spread the same way, from a constant start.
# CHECK-LABEL: func.func @strided
# CHECK: tile.load %arg0[%{{.*}}, %{{.*}}] strides [1, 2] valid [%{{.*}}] : memref<?x64xf32> -> !tile.tile<16x32xf32, valid = ?x32>
# CHECK: %[[LEFT:.*]] = arith.subi %{{.*}}, %arg2 : index
# CHECK: %[[BIASED:.*]] = arith.addi %[[LEFT]], %{{.*}} : index
# CHECK: %[[HALF:.*]] = arith.floordivsi %[[BIASED]], %{{.*}} : index
# CHECK: %[[ROWS:.*]] = arith.minsi %[[HALF]], %{{.*}} : index
# CHECK: tile.load %arg0[%{{.*}}, %{{.*}}] strides [2, 1] valid [%[[ROWS]]] : memref<?x64xf32> -> !tile.tile<8x64xf32, valid = ?x64>
# CHECK: %[[ONE:.*]] = arith.constant 1 : index
# CHECK: tile.store %{{.*}}, %arg1[%arg2, %[[ONE]]] strides [1, 2] : !tile.tile<16x32xf32, valid = ?x32>, memref<?x64xf32>
@htp.kernel
def strided(x: htp.Tensor[htp.f32, "N", 64], y: htp.Out[htp.f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        e = x[i:i + 16, 0::2]
        r = x[i:i + 16:2, :]
        y[i:i + 16, 1::2] = e
