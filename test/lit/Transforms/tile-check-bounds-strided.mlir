// RUN: htp-opt %s --pass-pipeline='builtin.module(tile-check-bounds)' | FileCheck %s

// A strided access (a slice with a step) is checked over the elements it
// spans: n elements at step s reach (n - 1) * s + 1 past their start (n as
// it is when it is not positive: a start past the end).
// CHECK-LABEL: func.func @strided
// The load's rows: 16 at step 1; its columns: %n at step 2.
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[LESS:.*]] = arith.subi %[[N:.*]], %[[C1]] : index
// CHECK: %[[TIMES:.*]] = arith.muli %[[LESS]], %{{.*}} : index
// CHECK: %[[SPAN:.*]] = arith.addi %[[TIMES]], %[[C1]] : index
// CHECK: %[[POS:.*]] = arith.cmpi sgt, %[[N]], %{{.*}} : index
// CHECK: %[[EXTENT:.*]] = arith.select %[[POS]], %[[SPAN]], %[[N]] : index
// CHECK: %[[END:.*]] = arith.addi %{{.*}}, %[[EXTENT]] : index
// CHECK: arith.cmpi sle, %[[END]], %{{.*}} : index
// CHECK: func.call @htpRuntimeError(%c0_i64)
// CHECK: tile.load %{{.*}} strides [1, 2] valid
// The store's 8 rows at step 4 span 29 from its run-time start.
// CHECK: tile.load %{{.*}} : memref<64x64xf32> -> !tile.tile<8x64xf32>
// CHECK: %[[EIGHT:.*]] = arith.constant 8 : index
// CHECK: %[[SEVEN:.*]] = arith.subi %[[EIGHT]], %{{.*}} : index
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: arith.muli %[[SEVEN]], %[[FOUR]] : index
// CHECK: %[[ROWS:.*]] = arith.select %{{.*}}, %{{.*}}, %[[EIGHT]] : index
// CHECK: arith.addi %{{.*}}, %[[ROWS]] : index
// CHECK: func.call @htpRuntimeError(%c2_i64)
// CHECK: scf.if
// CHECK-NEXT: tile.store %{{.*}} strides [4, 1]
func.func @strided(%x: memref<64x256xf32>, %y: memref<64x64xf32>, %i: index, %n: index) {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%i, %c0] strides [1, 2] valid [%n] : memref<64x256xf32> -> !tile.tile<16x64xf32, valid = 16x?>
  %u = tile.load %y[%c0, %c0] : memref<64x64xf32> -> !tile.tile<8x64xf32>
  tile.store %u, %y[%i, %c0] strides [4, 1] : !tile.tile<8x64xf32>, memref<64x64xf32>
  return
}
