# Ragged tails: a symbolic dimension, or a static one the block does not divide,
# gives a run-time valid size min(B, dim - i); a dividing block gives full tiles.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

# CHECK-LABEL: func.func @ragged
# CHECK: %[[N:.*]] = memref.dim %arg0
# CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step
# CHECK: %[[LEFT:.*]] = arith.subi %[[N]], %[[I]] : index
# CHECK: %[[V:.*]] = arith.minsi %[[LEFT]], %{{.*}} : index
# CHECK: tile.load %arg0[%[[I]], %{{.*}}] valid [%[[V]]] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
# CHECK: tile.store %{{.*}}, %arg1{{.*}} : !tile.tile<16x64xf32, valid = ?x64>, memref<?x64xf32>
# CHECK: tile.load %arg2{{.*}} valid [%{{.*}}] : memref<100x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
# CHECK: tile.load %arg3{{.*}} : memref<96x64xf32> -> !tile.tile<16x64xf32>
# A constant start is exact: rows 96..99 of 100.
# CHECK: tile.load %arg2{{.*}} : memref<100x64xf32> -> !tile.tile<16x64xf32, valid = 4x64>
# A block larger than a static dimension is ragged too: 16 rows of 8, at a constant
# start and at a run-time one.
# CHECK: tile.load %arg4{{.*}} : memref<2x8x64xf32> -> !tile.tile<16x64xf32, valid = 8x64>
# CHECK: %[[LEFT8:.*]] = arith.subi %{{.*}}, %{{.*}} : index
# CHECK: %[[V8:.*]] = arith.minsi %[[LEFT8]], %{{.*}} : index
# CHECK: tile.load %arg4{{.*}} valid [%[[V8]]] : memref<2x8x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
@htp.kernel
def ragged(x: htp.Tensor[htp.f32, "N", 64], y: htp.Out[htp.f32, "N", 64],
           s: htp.Tensor[htp.f32, 100, 64], d: htp.Tensor[htp.f32, 96, 64], q: htp.Tensor[htp.f32, 2, 8, 64],
           start: int):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :] * 2.0
    for i in range(0, 100, 16):
        a = s[i:i + 16, :]
    for i in range(0, 96, 16):
        b = d[i:i + 16, :]
    tail = s[96:112, :]
    wide = q[1, 0:16, :]
    wide_at = q[1, start:start + 16, :]

# htp.pad widens a ragged tile with a fill value so it can join full tiles; a
# full tile stored into a ragged slice is narrowed to the slice's run-time size
# first, so only in-bounds rows are written.
# CHECK-LABEL: func.func @pad_and_narrow
# CHECK: %[[V:.*]] = arith.minsi
# CHECK: %[[T:.*]] = tile.load %arg0[%{{.*}}, %{{.*}}] valid [%[[V]]] : memref<?x64xf32> -> !tile.tile<8x64xf32, valid = ?x64>
# CHECK: %[[P:.*]] = tile.pad %[[T]], %{{.*}} : !tile.tile<8x64xf32, valid = ?x64> -> !tile.tile<8x64xf32>
# CHECK: %[[S:.*]] = tile.add %{{.*}}, %[[P]] : !tile.tile<8x64xf32>
# CHECK: %[[W:.*]] = arith.minsi
# CHECK: %[[N:.*]] = tile.set_valid %[[S]] valid [%[[W]]] : !tile.tile<8x64xf32> -> !tile.tile<8x64xf32, valid = ?x64>
# CHECK: tile.store %[[N]], %arg1[%{{.*}}, %{{.*}}] : !tile.tile<8x64xf32, valid = ?x64>, memref<?x64xf32>
@htp.kernel
def pad_and_narrow(x: htp.Tensor[htp.f32, "N", 64], y: htp.Out[htp.f32, "N", 64]):
    for i in range(0, x.shape[0], 8):
        acc = htp.ones((8, 64), htp.f32)
        acc = acc + htp.pad(x[i:i + 8, :], 0.0)
        y[i:i + 8, :] = acc


# A block of one along a symbolic dimension is full, as an index is (q[b:b + 1, :]
# is q[b, :]): no valid size.
# CHECK-LABEL: func.func @row_blocks
# CHECK: tile.load %arg0[%{{.*}}, %{{.*}}] : memref<?x64xf32> -> !tile.tile<1x64xf32>
# CHECK: tile.load %arg0[%{{.*}}, %{{.*}}] : memref<?x64xf32> -> !tile.tile<1x64xf32>
# CHECK: tile.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : !tile.tile<1x64xf32>, memref<?x64xf32>
@htp.kernel
def row_blocks(q: htp.Tensor[htp.f32, "B", 64], y: htp.Out[htp.f32, "B", 64]):
    for b in range(q.shape[0]):
        y[b:b + 1, :] = q[b:b + 1, :] + q[b, :]
