# for-range loops with static and dynamic trip counts, loop-carried variables
# (tiles and Python numbers), and static_range unrolling.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

# CHECK-LABEL: func.func @loops
# Static trip count.
# CHECK: %[[C0:.*]] = arith.constant 0 : index
# CHECK: %[[C4:.*]] = arith.constant 4 : index
# CHECK: %[[C1:.*]] = arith.constant 1 : index
# CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %[[C0]] to %[[C4]] step %[[C1]] iter_args(%[[S:.*]] = %{{.*}}) -> (!tile.tile<1x8xf32>)
# CHECK: tile.add %[[S]]
# Dynamic trip count from an i32 scalar; an int carried through the loop is an index.
# CHECK: %[[N:.*]] = arith.index_cast %arg2 : i32 to index
# CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[K:.*]] = %{{.*}}) -> (index)
# CHECK: arith.addi %[[K]], %{{.*}} : index
# Unrolled: three loads, no loop.
# CHECK-NOT: scf.for
# CHECK: tile.load %arg0[%{{.*}}, %{{.*}}] : memref<4x8xf32> -> !tile.tile<1x8xf32>
# CHECK: tile.load
# CHECK: tile.load
# CHECK: return
@htp.kernel
def loops(x: htp.Tensor[htp.f32, 4, 8], y: htp.Out[htp.f32, 1, 8], n: htp.i32):
    acc = htp.zeros((1, 8), htp.f32)
    for r in range(4):
        acc = acc + x[r, :]
    y[:, :] = acc
    k = 0
    for i in range(0, n):
        k = k + 2
    for r in htp.static_range(3):
        t = x[r, :]
