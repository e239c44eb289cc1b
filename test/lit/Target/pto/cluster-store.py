# In a cluster task a tile both cores use (here `t`: the cube multiplies it,
# the vector core adds it) is loaded on each side but stored once, by the
# vector core; the product is made on the cube and stored from there (and
# handed to the vector core for `p * 2.0 + t`).
# RUN: htp-translate --import-python %s | htp-opt --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s
import htp
from htp import f32


@htp.kernel
def copy_and_scale(a: htp.Tensor[f32, 32, 32], b: htp.Tensor[f32, 32, 32], copy: htp.Out[f32, 32, 32],
                   product: htp.Out[f32, 32, 32], scaled: htp.Out[f32, 32, 32]):
    t = a[0:32, :]
    copy[0:32, :] = t
    p = t @ b[0:32, :]
    product[0:32, :] = p
    scaled[0:32, :] = p * 2.0 + t

# CHECK-LABEL: func.func @copy_and_scale_aic(
# CHECK:       pto.tload %{{.*}} : !pto.tile<mat, 32x32xf32, blayout = col_major, slayout = row_major>
# CHECK-NOT:   pto.tstore {{.*}} !pto.tile<mat
# CHECK:       pto.tmatmul %[[P:.*]], %{{.*}}, %{{.*}} : !pto.tile<acc, 32x32xf32>
# CHECK-NEXT:  pto.tpush c2v %[[P]]
# CHECK:       pto.tstore %{{.*}}, %[[P]] : !pto.gtensor<32x32xf32>, !pto.tile<acc, 32x32xf32>
# CHECK-NOT:   pto.tstore
# CHECK:       return
# CHECK-LABEL: func.func @copy_and_scale_aiv(
# CHECK:       pto.tload %[[T:.*]], %{{.*}} : !pto.tile<vec, 32x32xf32>
# CHECK:       %{{.*}} = pto.global_view
# CHECK-NEXT:  pto.tstore %{{.*}}, %[[T]] : !pto.gtensor<32x32xf32>, !pto.tile<vec, 32x32xf32>
# CHECK:       pto.tpop c2v
# CHECK:       pto.tmuls
# CHECK:       pto.tadd
# CHECK:       pto.tstore
# CHECK-NOT:   pto.tstore
# CHECK:       return
