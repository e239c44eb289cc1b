# Reading one element (every dimension indexed by a value): a scalar, as numpy
# reads it — a memref.load of the parameter (a 1-D one through the
# parameter itself, not its 1xN view), usable as a loop bound (index_cast),
# a slice offset and an operand; a subscript with a slice stays a tile.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

# CHECK-LABEL: func.func @paged
# CHECK-SAME: (%[[PAGES:[^:]*]]: memref<?x16x64xf32>, %[[TABLE:[^:]*]]: memref<?x4xi32>, %[[LENS:[^:]*]]: memref<?xi32>
# CHECK: %[[N:.*]] = memref.load %[[LENS]][%{{.*}}] : memref<?xi32>
# CHECK: %[[BOUND:.*]] = arith.index_cast %[[N]] : i32 to index
# CHECK: scf.for %{{.*}} = %{{.*}} to %[[BOUND]] step
# CHECK: %[[P:.*]] = memref.load %[[TABLE]][%{{.*}}, %{{.*}}] : memref<?x4xi32>
# CHECK: %[[ROW:.*]] = arith.index_cast %[[P]] : i32 to index
# CHECK: tile.load %[[PAGES]][%[[ROW]], %{{.*}}, %{{.*}}]
# CHECK: %[[S:.*]] = memref.load %[[PAGES]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<?x16x64xf32>
# CHECK: tile.mul %{{.*}}, %[[S]] : !tile.tile<16x64xf32>, f32
@htp.kernel
def paged(pages: htp.Tensor[htp.f32, "P", 16, 64], table: htp.Tensor[htp.i32, "B", 4], lens: htp.Tensor[htp.i32, "B"],
          y: htp.Out[htp.f32, "B", 64, 64]):
    for b in range(y.shape[0]):
        n = lens[b]
        for i in range(0, n, 16):
            p = table[b, i // 16]
            y[b, i:i + 16, :] = pages[p, 0:16, :] * pages[0, 1, 2]
