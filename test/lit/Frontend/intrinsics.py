# Calls of a registered intrinsic set become tile.intrinsic ops, by name.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp
from htp import pto

# CHECK-LABEL: func.func @fused
# CHECK: %[[A:.*]] = tile.load
# CHECK: %[[B:.*]] = tile.load
# CHECK: %[[S:.*]] = tile.intrinsic "pto.tadd"(%[[A]], %[[B]]) : (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32>
# CHECK: %[[H:.*]] = arith.constant 5.000000e-01 : f32
# CHECK: %[[M:.*]] = tile.intrinsic "pto.tmuls"(%[[S]], %[[H]]) : (!tile.tile<16x64xf32>, f32) -> !tile.tile<16x64xf32>
# CHECK: %[[E:.*]] = tile.intrinsic "pto.texp"(%[[M]]) : (!tile.tile<16x64xf32>) -> !tile.tile<16x64xf32>
# CHECK: tile.store %[[E]]
@htp.kernel
def fused(x: htp.Tensor[htp.f32, 16, 64], y: htp.Tensor[htp.f32, 16, 64], z: htp.Out[htp.f32, 16, 64]):
    z[:, :] = pto.exp(pto.muls(pto.add(x[:, :], y[:, :]), 0.5))
