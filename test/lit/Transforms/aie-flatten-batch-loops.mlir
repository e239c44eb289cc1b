// RUN: htp-opt %s --pass-pipeline='builtin.module(aie-flatten-batch-loops)' --split-input-file | FileCheck %s

// A loop over 3 batches around a loop over 16-row blocks of 37 rows: one loop over the 9 blocks of
// 3 batches of 48 rows (37 rounded up to whole blocks), b and i recomputed from the block's row;
// each 3-D tensor a 2-D one of 144 rows, loaded and stored at the block's row; the ragged valid
// rows still come from i and 37.
// CHECK-LABEL: func.func @copy3d(%{{.*}}: memref<144x64xf32>, %{{.*}}: memref<144x64xf32>)
// CHECK-SAME: htp.aie.batches = array<i64: 0, 3, 37, 1, 3, 37>
// CHECK-DAG: %[[END:.*]] = arith.constant 144 : index
// CHECK-DAG: %[[STEP:.*]] = arith.constant 16 : index
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[END]] step %[[STEP]] {
// CHECK: %[[PER:.*]] = arith.constant 48 : index
// CHECK: %[[B:.*]] = arith.divui %[[R]], %[[PER]] : index
// CHECK: %[[I:.*]] = arith.remui %[[R]], %[[PER]] : index
// CHECK: %[[LEFT:.*]] = arith.subi %{{.*}}, %[[I]] : index
// CHECK: %[[ROWS:.*]] = arith.minsi %[[LEFT]], %{{.*}} : index
// CHECK: %[[T:.*]] = tile.load %{{.*}}[%[[R]], %{{.*}}] valid [%[[ROWS]]] : memref<144x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
// CHECK: tile.store %{{.*}}, %{{.*}}[%[[R]], %{{.*}}] : !tile.tile<16x64xf32, valid = ?x64>, memref<144x64xf32>
// CHECK-NOT: scf.for
func.func @copy3d(%arg0: memref<3x37x64xf32>, %arg1: memref<3x37x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  scf.for %b = %c0 to %c3 step %c1 {
    %c37 = arith.constant 37 : index
    %c16 = arith.constant 16 : index
    scf.for %i = %c0 to %c37 step %c16 {
      %0 = arith.subi %c37, %i : index
      %1 = arith.minsi %0, %c16 : index
      %2 = tile.load %arg0[%b, %i, %c0] valid [%1] : memref<3x37x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
      %cst = arith.constant 1.000000e+00 : f32
      %3 = tile.add %2, %cst : !tile.tile<16x64xf32, valid = ?x64>, f32
      tile.store %3, %arg1[%b, %i, %c0] : !tile.tile<16x64xf32, valid = ?x64>, memref<3x37x64xf32>
    }
  }
  return
}

// -----

// A 3-D tensor read at a row other than the block's (x[0, i, :]): left as it is, for the lowering
// to refuse at its parameter.
// CHECK-LABEL: func.func @fixed_batch(%{{.*}}: memref<2x32x64xf32>, %{{.*}}: memref<2x32x64xf32>)
// CHECK-NOT: htp.aie.batches
// CHECK: scf.for
// CHECK: scf.for
func.func @fixed_batch(%arg0: memref<2x32x64xf32>, %arg1: memref<2x32x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c16 = arith.constant 16 : index
  scf.for %b = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %c32 step %c16 {
      %2 = tile.load %arg0[%c0, %i, %c0] : memref<2x32x64xf32> -> !tile.tile<16x64xf32>
      tile.store %2, %arg1[%b, %i, %c0] : !tile.tile<16x64xf32>, memref<2x32x64xf32>
    }
  }
  return
}

// -----

// A batch loop carrying a value: not the form (left as it is).
// CHECK-LABEL: func.func @carried(
// CHECK-NOT: htp.aie.batches
func.func @carried(%arg0: memref<2x32x64xf32>, %arg1: memref<2x32x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c16 = arith.constant 16 : index
  %s = scf.for %b = %c0 to %c2 step %c1 iter_args(%acc = %c0) -> (index) {
    scf.for %i = %c0 to %c32 step %c16 {
      %2 = tile.load %arg0[%b, %i, %c0] : memref<2x32x64xf32> -> !tile.tile<16x64xf32>
      tile.store %2, %arg1[%b, %i, %c0] : !tile.tile<16x64xf32>, memref<2x32x64xf32>
    }
    %n = arith.addi %acc, %c1 : index
    scf.yield %n : index
  }
  return
}

// -----

// A batch's whole matrix per block (w[h, :, :], 64 rows): 2-D rows read at h * 64, h recomputed
// from the block's row; a walked tensor beside it at the block's row.
// CHECK-LABEL: func.func @batched_matmul(%{{.*}}: memref<96x64xf32>, %{{.*}}: memref<128x32xf32>, %{{.*}}: memref<96x32xf32>)
// CHECK-SAME: htp.aie.batches = array<i64: 0, 2, 37, 1, 2, 64, 2, 2, 37>
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[H:.*]] = arith.divui %[[R]], %{{.*}} : index
// CHECK: tile.load %{{.*}}[%[[R]], %{{.*}}] : memref<96x64xf32>
// CHECK: %[[K:.*]] = arith.constant 64 : index
// CHECK: %[[AT:.*]] = arith.muli %[[H]], %[[K]] : index
// CHECK: tile.load %{{.*}}[%[[AT]], %{{.*}}] : memref<128x32xf32> -> !tile.tile<64x32xf32>
// CHECK: tile.store %{{.*}}, %{{.*}}[%[[R]], %{{.*}}] : !tile.tile<16x32xf32>, memref<96x32xf32>
func.func @batched_matmul(%a: memref<2x37x64xf32>, %w: memref<2x64x32xf32>, %c: memref<2x37x32xf32>) attributes {htp.kernel, htp.outputs = array<i64: 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c37 = arith.constant 37 : index
  scf.for %h = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %c37 step %c16 {
      %t = tile.load %a[%h, %i, %c0] : memref<2x37x64xf32> -> !tile.tile<16x64xf32>
      %m = tile.load %w[%h, %c0, %c0] : memref<2x64x32xf32> -> !tile.tile<64x32xf32>
      %p = tile.matmul %t, %m : !tile.tile<16x64xf32>, !tile.tile<64x32xf32> -> !tile.tile<16x32xf32>
      tile.store %p, %c[%h, %i, %c0] : !tile.tile<16x32xf32>, memref<2x37x32xf32>
    }
  }
  return
}

// -----

// A batch loop alone (a block a batch): the loop stays, each 3-D tensor 2-D rows read at b * N.
// CHECK-LABEL: func.func @per_batch(%{{.*}}: memref<48x64xf32>, %{{.*}}: memref<48x64xf32>)
// CHECK-SAME: htp.aie.batches = array<i64: 0, 3, 16, 1, 3, 16>
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[AT:.*]] = arith.muli %[[B]], %{{.*}} : index
// CHECK: tile.load %{{.*}}[%[[AT]], %{{.*}}] : memref<48x64xf32>
func.func @per_batch(%x: memref<3x16x64xf32>, %y: memref<3x16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %b = %c0 to %c3 step %c1 {
    %t = tile.load %x[%b, %c0, %c0] : memref<3x16x64xf32> -> !tile.tile<16x64xf32>
    tile.store %t, %y[%b, %c0, %c0] : !tile.tile<16x64xf32>, memref<3x16x64xf32>
  }
  return
}
