// RUN: htp-opt %s --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s

// Row softmax: the kernel runs on the vector core over [task_begin, task_end),
// broadcasts fuse into TROWEXPANDSUB/DIV, and the orchestration splits the
// independent outer loop across the available AIV cores.
// CHECK-LABEL: func.func @softmax_aiv
// CHECK-SAME: (%{{.*}}: memref<?x256xf32>, %{{.*}}: memref<?x256xf32>, %[[LO:.*]]: index, %[[HI:.*]]: index) attributes {pto.core = "aiv"}
// CHECK: scf.for %{{.*}} = %[[LO]] to %[[HI]]
// CHECK: pto.tload
// CHECK: pto.trowmax %[[MAX:.*]], %[[T:.*]], %{{.*}} : !pto.tile<vec, 16x1xf32, valid = ?x1, blayout = col_major>
// CHECK: pto.trowexpand_op sub %{{.*}}, %[[T]], %[[MAX]]
// CHECK: pto.texp
// CHECK: pto.trowsum
// CHECK: pto.trowexpand_op div
// CHECK: pto.tstore
// CHECK-LABEL: func.func @softmax(%{{.*}}: memref<?x256xf32>, %{{.*}}: memref<?x256xf32>) attributes {pto.orchestration}
// CHECK: pto.available_cores "aiv"
// CHECK: scf.for
// CHECK: pto.submit @softmax_aiv ins(%{{.*}} : memref<?x256xf32>) outs(%{{.*}} : memref<?x256xf32>) scalars(
module {
  func.func @softmax(%arg0: memref<?x256xf32>, %arg1: memref<?x256xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>, llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x256xf32>
    %c0_0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    scf.for %arg2 = %c0_0 to %dim step %c16 {
      %0 = arith.subi %dim, %arg2 : index
      %c16_1 = arith.constant 16 : index
      %1 = arith.minsi %0, %c16_1 : index
      %c0_2 = arith.constant 0 : index
      %2 = tile.load %arg0[%arg2, %c0_2] valid [%1] : memref<?x256xf32> -> !tile.tile<16x256xf32, valid = ?x256>
      %3 = tile.row_reduce max %2 : !tile.tile<16x256xf32, valid = ?x256> -> !tile.tile<16x1xf32, valid = ?x1>
      %4 = tile.broadcast %3 : !tile.tile<16x1xf32, valid = ?x1> -> !tile.tile<16x256xf32, valid = ?x256>
      %5 = tile.sub %2, %4 : !tile.tile<16x256xf32, valid = ?x256>
      %6 = tile.exp %5 : !tile.tile<16x256xf32, valid = ?x256>
      %7 = tile.row_reduce sum %6 : !tile.tile<16x256xf32, valid = ?x256> -> !tile.tile<16x1xf32, valid = ?x1>
      %8 = tile.broadcast %7 : !tile.tile<16x1xf32, valid = ?x1> -> !tile.tile<16x256xf32, valid = ?x256>
      %9 = tile.div %6, %8 : !tile.tile<16x256xf32, valid = ?x256>
      %10 = arith.subi %dim, %arg2 : index
      %c16_3 = arith.constant 16 : index
      %11 = arith.minsi %10, %c16_3 : index
      %c0_4 = arith.constant 0 : index
      tile.store %9, %arg1[%arg2, %c0_4] : !tile.tile<16x256xf32, valid = ?x256>, memref<?x256xf32>
    }
    return
  }
}
