# Calls of the comm intrinsic set (intrinsics with effects) become
# tile.intrinsic_effect ops: a tensor block or element as its memref and one
# index per dimension, keywords as string attributes; comm.Window parameters
# are listed in htp.windows.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp
from htp import comm

# CHECK-LABEL: func.func @exchange(%arg0: memref<?x64xf32>, %arg1: memref<4x?x64xf32>, %arg2: memref<4xi32>, %arg3: memref<2x4xi32>)
# CHECK-SAME: htp.windows = array<i64: 1, 2, 3>
# CHECK: %[[SIGNALS:.*]] = memref.expand_shape %arg2
# CHECK: %[[ME:.*]] = tile.intrinsic_effect "comm.rank"() : () -> index
# CHECK: %[[N:.*]] = tile.intrinsic_effect "comm.size"() : () -> index
# CHECK: scf.for %[[P:.*]] = %{{.*}} to %[[N]]
# A ragged block (the last rows of x) of a ragged tile: the tile's rows are the block's.
# CHECK: %[[T:.*]] = tile.load %arg0[%[[I:.*]], %{{.*}}] valid
# CHECK: tile.intrinsic_effect "comm.put"(%[[P]], %arg1, %[[ME]], %[[I]], %{{.*}}, %[[T]]) : (index, memref<4x?x64xf32>, index, index, index, !tile.tile<16x64xf32, valid = ?x64>) -> ()
# A signal of a 1-D window is its element of the parameter itself.
# CHECK: tile.intrinsic_effect "comm.notify"(%[[P]], %arg2, %[[ME]], %{{.*}}) {op = "add"} : (index, memref<4xi32>, index, i32) -> ()
# CHECK: tile.intrinsic_effect "comm.notify"(%[[P]], %arg3, %{{.*}}, %[[ME]], %{{.*}}) {op = "set"} : (index, memref<2x4xi32>, index, index, i32) -> ()
# CHECK: tile.intrinsic_effect "comm.wait"(%arg2, %{{.*}}, %{{.*}}) {cmp = "ge"} : (memref<4xi32>, index, i32) -> ()
# CHECK: tile.intrinsic_effect "comm.wait"(%arg3, %{{.*}}, %{{.*}}, %{{.*}}) {cmp = "eq"} : (memref<2x4xi32>, index, index, i32) -> ()
@htp.kernel
def exchange(x: htp.Tensor[htp.f32, "R", 64], boxes: comm.Window[htp.f32, 4, "R", 64],
             done: comm.Window[htp.i32, 4], counts: comm.Window[htp.i32, 2, 4]):
    me = comm.rank()
    n = comm.size()
    for p in range(n):
        for i in range(0, x.shape[0], 16):
            comm.put(p, boxes[me, i:i + 16, :], x[i:i + 16, :])
        comm.notify(p, done[me], 1)
        comm.notify(p, counts[1, me], x.shape[0], op="set")
    for p in range(n):
        comm.wait(done[p], 1)
        comm.wait(counts[1, p], 16, cmp="==")
