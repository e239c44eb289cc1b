# htp.scatter: a tile first is tile.put (elements into each row, the inverse
# of htp.gather(t, index, axis=1)); a tensor first is tile.scatter (rows of a
# tile into rows of the tensor, the inverse of htp.gather(x, rows, col, cols))
# (docs/language.md, "Selection" and "Scatter"; D76).
# RUN: htp-translate --import-python %s | FileCheck %s
import htp
from htp import f32, i32, i64


# A tile of values, a scalar (filled over the index's valid region: the
# ragged rows' size carried by tile.set_valid) and i64 indices; the result is
# the input's type, ragged as it.
# CHECK-LABEL: func.func @elements
# CHECK-DAG: %[[I:.*]] = tile.load %arg1[{{.*}}] valid [%[[N:.*]]] : memref<?x8xi32> -> !tile.tile<16x8xi32, valid = ?x8>
# CHECK-DAG: %[[T:.*]] = tile.load %arg0[{{.*}}] valid [%{{.*}}] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
# CHECK-DAG: %[[V:.*]] = tile.load %arg2[{{.*}}] valid [%{{.*}}] : memref<?x8xf32> -> !tile.tile<16x8xf32, valid = ?x8>
# CHECK: %[[A:.*]] = tile.put %[[T]][%[[I]]], %[[V]] : !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x8xi32, valid = ?x8>, !tile.tile<16x8xf32, valid = ?x8> -> !tile.tile<16x64xf32, valid = ?x64>
# CHECK: %[[Z:.*]] = tile.constant 0.0 : !tile.tile<16x8xf32>
# CHECK: %[[ZR:.*]] = tile.set_valid %[[Z]] valid [%[[N]]] : !tile.tile<16x8xf32> -> !tile.tile<16x8xf32, valid = ?x8>
# CHECK: tile.put %[[A]][%[[I]]], %[[ZR]] : {{.*}} -> !tile.tile<16x64xf32, valid = ?x64>
@htp.kernel
def elements(x: htp.Tensor[f32, "N", 64], index: htp.Tensor[i32, "N", 8], src: htp.Tensor[f32, "N", 8], y: htp.Out[f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        j = index[i:i + 16, :]
        a = htp.scatter(x[i:i + 16, :], j, src[i:i + 16, :], axis=1)
        y[i:i + 16, :] = htp.scatter(a, j, 0.0, axis=-1)


# A statement: no result; the column a run-time index.
# CHECK-LABEL: func.func @rows
# CHECK: %[[R:.*]] = tile.load %arg1[{{.*}}] valid [%{{.*}}] : memref<?x1xi64> -> !tile.tile<16x1xi64, valid = ?x1>
# CHECK: %[[C:.*]] = arith.index_cast %arg3 : i32 to index
# CHECK: tile.scatter %{{.*}}, %arg2[%[[R]], %[[C]]] : !tile.tile<16x64xf32, valid = ?x64>, memref<?x128xf32>, !tile.tile<16x1xi64, valid = ?x1>
@htp.kernel
def rows(x: htp.Tensor[f32, "N", 64], token: htp.Tensor[i64, "N", 1], y: htp.InOut[f32, "M", 128], col: i32):
    for i in range(0, x.shape[0], 16):
        htp.scatter(y, token[i:i + 16, :], col, x[i:i + 16, :])
