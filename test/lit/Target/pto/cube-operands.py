# Matmul forms the cube cannot take as written (issue 26), rewritten before the
# kernel is split between the cores (`split::prepare`): a product fed to
# another matmul crosses to the vector core (an identity tmax) and back, since
# A2/A3 cannot move L0C to L0A/L0B; a matmul added to a loaded tile is a
# matmul and a vector add. Before: "a matmul operand must come from a tile
# loaded in this kernel" and "'pto.tmatmul_acc' op 'acc' must be an acc tile".
# RUN: htp-translate --import-python %s | htp-opt --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s
import htp
from htp import f32


@htp.kernel
def chained(q: htp.Tensor[f32, 16, 64], k: htp.Tensor[f32, 64, 64], v: htp.Tensor[f32, 64, 32], o: htp.Out[f32, 16, 32]):
    o[:, :] = (q[:, :] @ k[:, :]) @ v[:, :]


@htp.kernel
def plus_product(a: htp.Tensor[f32, 16, 64], x: htp.Tensor[f32, 64, 32], y: htp.Tensor[f32, 16, 32], o: htp.Out[f32, 16, 32]):
    yb = y[:, :]
    o[:, :] = yb + a[:, :] @ x[:, :]

# CHECK-LABEL: func.func @chained_aic(
# CHECK:       pto.tmatmul %[[P:[^,]*]], {{.*}} : !pto.tile<acc, 16x64xf32>
# CHECK-NEXT:  pto.tpush c2v %[[P]]
# CHECK:       pto.tpop v2c
# CHECK:       pto.tmatmul {{.*}} : !pto.tile<acc, 16x32xf32>
# CHECK-LABEL: func.func @chained_aiv(
# CHECK:       pto.tpop c2v %[[IN:[^ ]*]] : !pto.tile<vec, 16x64xf32>
# CHECK:       pto.tmax %[[COPY:[^,]*]], %[[SRC:[^,]*]], %[[SRC]]
# CHECK:       pto.tpush v2c %[[COPY]]
# CHECK-LABEL: func.func @plus_product_aic(
# CHECK-NOT:   pto.tmatmul_acc
# CHECK:       pto.tmatmul %[[S:[^,]*]], {{.*}} : !pto.tile<acc, 16x32xf32>
# CHECK-NEXT:  pto.tpush c2v %[[S]]
# CHECK-LABEL: func.func @plus_product_aiv(
# CHECK:       pto.tpop c2v
# CHECK:       pto.tadd
