# Loads and stores through slices: static, constant-bounded, single-index rows, rank 3.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

# CHECK-LABEL: func.func @copy
# CHECK: %[[T:.*]] = tile.load %arg0[%{{.*}}, %{{.*}}] : memref<64x128xf32> -> !tile.tile<16x32xf32>
# CHECK: tile.store %[[T]], %arg1[%{{.*}}, %{{.*}}] : !tile.tile<16x32xf32>, memref<64x128xf32>
# CHECK: tile.load %arg0[%{{.*}}, %{{.*}}] : memref<64x128xf32> -> !tile.tile<1x128xf32>
# CHECK: tile.load %arg2[%{{.*}}, %{{.*}}, %{{.*}}] : memref<4x64x128xf32> -> !tile.tile<64x128xf32>
# A scalar stored into a slice fills it.
# CHECK: %[[F:.*]] = tile.fill %arg3 : !tile.tile<16x32xf32>
# CHECK: tile.store %[[F]], %arg1
@htp.kernel
def copy(x: htp.Tensor[htp.f32, 64, 128], y: htp.Out[htp.f32, 64, 128], z: htp.Tensor[htp.f32, 4, 64, 128], s: htp.f32):
    for i in range(0, 64, 16):
        for j in range(0, 128, 32):
            y[i:i + 16, j:j + 32] = x[i:i + 16, j:j + 32]
    row = x[3, :]
    plane = z[2, :, :]
    y[0:16, 96:128] = s
