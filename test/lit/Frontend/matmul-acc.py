# The fuse-matmul-accumulate mutator: acc + a @ b, a @ b + acc and acc += a @ b
# become one tile.matmul with an accumulator, carried through the K loop.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp

# CHECK-LABEL: func.func @gemm
# CHECK: %[[Z:.*]] = tile.constant 0.0 : !tile.tile<64x64xf32>
# CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[Z]]) -> (!tile.tile<64x64xf32>)
# CHECK: %[[N:.*]] = tile.matmul %{{.*}}, %{{.*}}, %[[ACC]] : !tile.tile<64x32xf16>, !tile.tile<32x64xf16> -> !tile.tile<64x64xf32>
# CHECK-NOT: tile.add
# CHECK: scf.yield %[[N]]
@htp.kernel
def gemm(a: htp.Tensor[htp.f16, 128, 256], b: htp.Tensor[htp.f16, 256, 64], c: htp.Out[htp.f32, 128, 64]):
    for i in range(0, 128, 64):
        acc = htp.zeros((64, 64), htp.f32)
        for k in range(0, 256, 32):
            acc += a[i:i + 64, k:k + 32] @ b[k:k + 32, :]
        c[i:i + 64, :] = acc

# CHECK-LABEL: func.func @forms
# CHECK: tile.matmul %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<16x16xf16>, !tile.tile<16x16xf16> -> !tile.tile<16x16xf32>
# CHECK: tile.matmul %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<16x16xf16>, !tile.tile<16x16xf16> -> !tile.tile<16x16xf32>
# CHECK: tile.matmul %{{.*}}, %{{.*}}, %{{.*}} : !tile.tile<16x16xf16>, !tile.tile<16x16xf16> -> !tile.tile<16x16xf32>
# dtype= chooses f16 accumulation.
# CHECK: tile.matmul %{{.*}}, %{{.*}} : !tile.tile<16x16xf16>, !tile.tile<16x16xf16> -> !tile.tile<16x16xf16>
# An accumulator of another shape is a product plus a broadcast add.
# CHECK: %[[P:.*]] = tile.matmul %{{.*}}, %{{.*}} : !tile.tile<16x16xf16>, !tile.tile<16x16xf16> -> !tile.tile<16x16xf32>
# CHECK: tile.broadcast
# CHECK: tile.add
@htp.kernel
def forms(a: htp.Tensor[htp.f16, 16, 16], c: htp.Out[htp.f32, 16, 16]):
    x = a[:, :]
    acc = htp.zeros((16, 16), htp.f32)
    acc = x @ x + acc
    acc = acc + x @ x
    acc = htp.dot(x, x, acc)
    h = htp.matmul(x, x, dtype=htp.f16)
    row = htp.zeros((16, 1), htp.f32)
    r = row + x @ x
    c[:, :] = acc
