# Python operators on tiles and scalars.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

# CHECK-LABEL: func.func @operators
# CHECK: tile.add %[[A:.*]], %[[B:.*]] : !tile.tile<16x16xf32>
# CHECK: tile.sub
# CHECK: tile.mul
# CHECK: tile.div
# CHECK: tile.neg
# Python numbers take the tile's element type.
# CHECK: %[[C:.*]] = arith.constant 2.000000e+00 : f32
# CHECK: tile.mul %{{.*}}, %[[C]] : !tile.tile<16x16xf32>, f32
# s - t is (-t) + s; 1 / t is recip(t).
# CHECK: tile.neg
# CHECK: tile.add %{{.*}}, %arg2 : !tile.tile<16x16xf32>, f32
# CHECK: tile.recip
# CHECK: tile.matmul %{{.*}}, %{{.*}} : !tile.tile<16x16xf32>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>
# CHECK: tile.cmp lt, %{{.*}}, %{{.*}} : !tile.tile<16x16xf32>
# CHECK: tile.cmp ge, %{{.*}}, %{{.*}} : !tile.tile<16x16xf32>, f32
# x ** 2 is a product.
# CHECK: tile.mul %[[X:.*]], %[[X]] : !tile.tile<16x16xf32>
# Scalar arithmetic: a Python number takes the i32 scalar's type.
# CHECK: arith.addi %arg3, %{{.*}} : i32
# CHECK: arith.floordivsi
# CHECK: arith.remsi
@htp.kernel
def operators(x: htp.Tensor[htp.f32, 16, 16], y: htp.Out[htp.f32, 16, 16], s: htp.f32, n: htp.i32):
    a = x[:, :]
    b = x[:, :]
    c = a + b
    c = c - b
    c = c * b
    c = c / b
    c = -c
    c = c * 2
    c = s - c
    c = 1 / c
    c = c @ b
    m = a < b
    m2 = a >= s
    c = c ** 2
    k = n + 3
    q = k // 2
    r = k % 2
    y[:, :] = c
