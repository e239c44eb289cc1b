# A cube result of 6 f32 columns crosses to the vector core at the vector
# tile's width, 8 columns (whole 32-byte rows): the simulator's TPOP reads
# rows at the receiving tile's static width, so pushing 6 slid every row
# (issue 26: a MoE router over 6 experts). The vector core then views the
# result's own 6 columns.
# RUN: htp-translate --import-python %s | htp-opt --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s
import htp
from htp import f32


@htp.kernel
def router_max(x: htp.Tensor[f32, 32, 64], wg: htp.Tensor[f32, 64, 6], m: htp.Out[f32, 32, 1]):
    m[:, :] = htp.row_max(x[:, :] @ wg[:, :])

# CHECK-LABEL: func.func @router_max_aic(
# CHECK:       pto.tmatmul %[[S:[^,]*]], {{.*}} : !pto.tile<acc, 32x16xf32, valid = 32x6>
# CHECK:       %[[W:.*]] = pto.tile_view %[[S]] {{.*}} -> !pto.tile<acc, 32x16xf32, valid = 32x8>
# CHECK-NEXT:  pto.tpush c2v %[[W]]
# CHECK-LABEL: func.func @router_max_aiv(
# CHECK:       pto.tpop c2v %[[SLOT:[^ ]*]] : !pto.tile<vec, 32x8xf32>
# CHECK:       pto.tmov %[[COPY:[^,]*]], %[[SLOT]]
# CHECK:       pto.tile_view %[[COPY]] {{.*}} -> !pto.tile<vec, 32x8xf32, valid = 32x6>
# CHECK:       pto.trowmax
