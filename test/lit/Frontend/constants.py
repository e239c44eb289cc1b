# Compile-time constants: defaults, --htp-const values, use in shapes, slices and folding.
# RUN: htp-translate --import-python %s | FileCheck %s
# RUN: htp-translate --import-python %s --htp-const BLOCK=32 --htp-const SCALE=0.25 | FileCheck %s --check-prefix=SET
import htp

# CHECK-LABEL: func.func @consts(%arg0: memref<64x128xf32>, %arg1: memref<64x128xf32>)
# CHECK: !tile.tile<16x128xf32>
# CHECK: arith.constant 5.000000e-01 : f32
# SET: !tile.tile<32x128xf32>
# SET: arith.constant 2.500000e-01 : f32
@htp.kernel
def consts(x: htp.Tensor[htp.f32, 64, "W"], y: htp.Out[htp.f32, 64, "W"],
           BLOCK: htp.Const[int] = 16, W: htp.Const[int] = 128, SCALE: htp.Const[float] = 0.5):
    for i in range(0, 64, BLOCK):
        y[i:i + BLOCK, :] = x[i:i + BLOCK, :] * SCALE
