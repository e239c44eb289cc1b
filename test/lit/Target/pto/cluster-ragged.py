# A ragged tile crossing between the cores: `a[i:i + 32, :] @ b` has as many
# valid rows as the load, a run-time value both kernels compute from the
# same scalar code. The cube pushes the whole L0C tile (the simulator reads
# a popped tile's static shape, the chip its valid region: a fully valid
# tile reads the same on both); the vector core pops it, copies it out of
# its slot and views the copy's valid rows, its own copy of that value
# (`split.rs`, `valid_sources`; `Kernel::cross`).
# RUN: htp-translate --import-python %s | htp-opt --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s
import htp
from htp import f32


@htp.kernel
def ragged_product_exp(a: htp.Tensor[f32, "M", 32], b: htp.Tensor[f32, 32, 32], c: htp.Out[f32, "M", 32]):
    for i in range(0, a.shape[0], 32):
        c[i:i + 32, :] = htp.exp(a[i:i + 32, :] @ b[0:32, :])

# CHECK-LABEL: func.func @ragged_product_exp_aic(
# CHECK:       %[[ROWS:.*]] = arith.minsi
# CHECK:       pto.tload %{{.*}} : !pto.tile<mat, 32x32xf32, valid = ?x32, blayout = col_major, slayout = row_major>
# CHECK:       pto.tmatmul %[[P:.*]], %{{.*}}, %{{.*}} : !pto.tile<acc, 32x32xf32, valid = ?x32>
# CHECK-NEXT:  %[[W:.*]] = pto.tile_view %[[P]] : !pto.tile<acc, 32x32xf32, valid = ?x32> -> !pto.tile<acc, 32x32xf32>
# CHECK-NEXT:  pto.tpush c2v %[[W]] : !pto.tile<acc, 32x32xf32>
# CHECK-LABEL: func.func @ragged_product_exp_aiv(
# CHECK:       %[[SLOT:.*]] = pto.alloc_tile : !pto.tile<vec, 32x32xf32>
# CHECK:       %[[VROWS:.*]] = arith.minsi
# CHECK:       %[[V:.*]] = pto.tile_view %[[SLOT]] : !pto.tile<vec, 32x32xf32> -> !pto.tile<vec, 32x32xf32>
# CHECK-NEXT:  pto.tpop c2v %[[V]] : !pto.tile<vec, 32x32xf32>
# CHECK-NEXT:  %[[C:.*]] = pto.alloc_tile : !pto.tile<vec, 32x32xf32>
# CHECK-NEXT:  pto.tmov %[[C]], %[[V]]
# CHECK-NEXT:  %[[R:.*]] = pto.tile_view %[[C]] valid [%[[VROWS]]] : !pto.tile<vec, 32x32xf32> -> !pto.tile<vec, 32x32xf32, valid = ?x32>
# CHECK-NEXT:  pto.tfree c2v
# CHECK:       pto.texp %{{.*}}, %[[R]]
