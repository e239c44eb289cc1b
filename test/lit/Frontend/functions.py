# Every htp function that maps to one tile op.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

# CHECK-LABEL: func.func @functions
# CHECK: tile.exp
# CHECK: tile.log
# CHECK: tile.sqrt
# CHECK: tile.rsqrt
# CHECK: tile.recip
# CHECK: tile.abs
# CHECK: tile.neg
# CHECK: tile.relu
# CHECK: tile.max %{{.*}}, %{{.*}} : !tile.tile<16x32xf32>
# CHECK: tile.min %{{.*}}, %{{.*}} : !tile.tile<16x32xf32>
# CHECK: tile.max %{{.*}}, %{{.*}} : !tile.tile<16x32xf32>
# CHECK: tile.row_reduce sum %{{.*}} -> !tile.tile<16x1xf32>
# CHECK: tile.row_reduce max
# CHECK: tile.row_reduce min
# CHECK: tile.col_reduce sum %{{.*}} -> !tile.tile<1x32xf32>
# CHECK: tile.col_reduce max
# CHECK: tile.col_reduce min
# CHECK: tile.row_reduce max
# CHECK: tile.col_reduce sum
# CHECK: tile.broadcast %{{.*}} : !tile.tile<16x1xf32> -> !tile.tile<16x32xf32>
# CHECK: tile.transpose %{{.*}} : !tile.tile<16x32xf32> -> !tile.tile<32x16xf32>
# CHECK: tile.transpose
# CHECK: tile.cast %{{.*}} : !tile.tile<16x32xf32> to !tile.tile<16x32xf16>
# CHECK: tile.cast %{{.*}} : !tile.tile<16x32xf32> to !tile.tile<16x32xbf16>
# CHECK: tile.constant 0.0 : !tile.tile<16x32xf32>
# CHECK: tile.constant 1 : !tile.tile<8x8xi32>
# CHECK: tile.constant 1.5 : !tile.tile<16x32xf32>
# CHECK: tile.fill %arg2 : !tile.tile<4x4xf32>
# CHECK: tile.iota 0 : !tile.tile<16x32xi32>
# CHECK: tile.iota 1 : !tile.tile<16x32xf32>
# CHECK: tile.select %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<16x32xf32>
# CHECK: tile.constant -inf : !tile.tile<16x32xf32>
# CHECK: tile.select
# CHECK: tile.gather %arg1[%{{.*}}, %{{.*}}] : memref<?x32xf32>, !tile.tile<8x1xi32> -> !tile.tile<8x32xf32>
@htp.kernel
def functions(x: htp.Tensor[htp.f32, 16, 32], table: htp.Tensor[htp.f32, "R", 32], s: htp.f32, ids: htp.Tensor[htp.i32, 8, 1]):
    t = x[:, :]
    a = htp.exp(t)
    a = htp.log(a)
    a = htp.sqrt(a)
    a = htp.rsqrt(a)
    a = htp.recip(a)
    a = htp.abs(a)
    a = htp.neg(a)
    a = htp.relu(a)
    a = htp.maximum(a, t)
    a = htp.minimum(a, t)
    a = max(a, t)
    r1 = htp.row_sum(a)
    r2 = htp.row_max(a)
    r3 = htp.row_min(a)
    c1 = htp.col_sum(a)
    c2 = htp.col_max(a)
    c3 = htp.col_min(a)
    r4 = htp.row_reduce(a, "max")
    c4 = htp.col_reduce(a, "sum")
    b = htp.broadcast(r1, (16, 32))
    tt = htp.transpose(a)
    tt2 = a.T
    h = htp.cast(a, htp.f16)
    h2 = a.astype(htp.bf16)
    z = htp.zeros((16, 32), htp.f32)
    o = htp.ones((8, 8), htp.i32)
    f = htp.full((16, 32), 1.5)
    fs = htp.full((4, 4), s)
    rows = htp.iota((16, 32), 0)
    cols = htp.iota((16, 32), 1, htp.f32)
    w = htp.where(rows > 3, a, t)
    w2 = htp.where(rows > 3, -htp.inf, t)
    g = htp.gather(table, ids[:, :], 0, 32)
