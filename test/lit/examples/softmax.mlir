// The demo's pipeline on examples/softmax.mlir: it verifies, the loop body
// survives canonicalization intact, and the ragged tail keeps its dynamic
// valid region. Peak: the loaded tile, its broadcast max and the difference
// (3 x 16 KiB) are live together at tile.sub.
// RUN: htp-opt %repo/examples/softmax.mlir --pass-pipeline='builtin.module(canonicalize,cse,func.func(tile-peak-live-bytes))' | FileCheck %s

// CHECK-LABEL: func.func @softmax
// CHECK-SAME: tile.peak_live_bytes = 49152 : i64
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[ROWS:.*]] = arith.minsi
// CHECK: %[[T:.*]] = tile.load %{{.*}}[%[[I]], %{{.*}}] valid{{ ?}}[%[[ROWS]]] : memref<?x256xf32> -> !tile.tile<16x256xf32, valid = ?x256>
// CHECK: tile.row_reduce max %[[T]]
// CHECK: tile.broadcast
// CHECK: tile.sub
// CHECK: tile.exp
// CHECK: tile.row_reduce sum
// CHECK: tile.broadcast
// CHECK: tile.div
// CHECK: tile.store
