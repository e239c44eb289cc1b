# A tensor's memory order: htp.layout("col_major") (Fortran order) is a
# strided memref whose first dimension is contiguous; one dimension and
# row_major are the identity layout.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

# CHECK-LABEL: func.func @orders
# CHECK-SAME: %arg0: memref<?x64xf32, strided<[1, ?]>>
# CHECK-SAME: %arg1: memref<?x64xf32>
# CHECK-SAME: %arg2: memref<?xf32>
# CHECK-SAME: %arg3: memref<2x?x8xi32, strided<[1, ?, ?]>>
# CHECK: tile.load %arg0[{{.*}}] valid [{{.*}}] : memref<?x64xf32, strided<[1, ?]>> -> !tile.tile<16x64xf32, valid = ?x64>
@htp.kernel
def orders(x: htp.Tensor[htp.f32, "N", 64, htp.layout("col_major")],
           y: htp.Out[htp.f32, "N", 64, htp.layout("row_major")],
           v: htp.Tensor[htp.f32, "N", htp.layout("col_major")],
           w: htp.InOut[htp.Tensor[htp.i32, 2, "M", 8, htp.layout("col_major")]]):
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = x[i:i + 16, :]
