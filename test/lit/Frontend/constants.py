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


# htp.zeros_like / ones_like / full_like: the tile's shape and valid region
# (a ragged block's run-time rows carried by tile.set_valid), its element type
# or dtype=; a run-time value is a tile.fill.
# CHECK-LABEL: func.func @like
# CHECK: %[[T:.*]] = tile.load %arg0[{{.*}}] valid [%[[N:.*]]] : memref<?x32xf16> -> !tile.tile<16x32xf16, valid = ?x32>
# CHECK: %[[Z:.*]] = tile.constant 0 : !tile.tile<16x32xi32>
# CHECK: tile.set_valid %[[Z]] valid [%[[N]]] : !tile.tile<16x32xi32> -> !tile.tile<16x32xi32, valid = ?x32>
# CHECK: %[[O:.*]] = tile.constant 1.0 : !tile.tile<16x32xf16>
# CHECK: tile.set_valid %[[O]] valid [%[[N]]] : !tile.tile<16x32xf16> -> !tile.tile<16x32xf16, valid = ?x32>
# CHECK: %[[F:.*]] = tile.fill %arg3 : !tile.tile<16x32xf32>
# CHECK: tile.set_valid %[[F]] valid [%[[N]]] : !tile.tile<16x32xf32> -> !tile.tile<16x32xf32, valid = ?x32>
@htp.kernel
def like(x: htp.Tensor[htp.f16, "N", 32], z: htp.Out[htp.i32, "N", 32], y: htp.Out[htp.f32, "N", 32], s: htp.f32):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        z[i:i + 16, :] = htp.zeros_like(t, dtype=htp.i32)
        y[i:i + 16, :] = htp.cast(htp.ones_like(t) * t, htp.f32) + htp.full_like(t, s, htp.f32)
