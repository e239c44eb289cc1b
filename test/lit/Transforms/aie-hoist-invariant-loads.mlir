// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(aie-hoist-invariant-loads,loop-invariant-code-motion))' | FileCheck %s
//
// A load that does not depend on the loop, from a buffer the loop does not
// write, moves before the loop, and LICM then hoists what it feeds (a
// row's rsqrt, computed once instead of once per vector of the row).

// CHECK-LABEL: func.func @row_scale
// CHECK: scf.for %[[ROW:.*]] =
// CHECK: vector.load %arg1[%[[ROW]], %{{.*}}] : memref<4x1xf32>, vector<1xf32>
// CHECK: math.rsqrt
// CHECK: scf.for
// CHECK-NOT: math.rsqrt
// CHECK: vector.load %arg0
// CHECK: vector.store
func.func @row_scale(%x: memref<4x512xf32>, %s: memref<4x1xf32>, %y: memref<4x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c512 = arith.constant 512 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c512 step %c16 {
      %v = vector.load %x[%i, %j] : memref<4x512xf32>, vector<16xf32>
      %m = vector.load %s[%i, %c0] : memref<4x1xf32>, vector<1xf32>
      %b = vector.broadcast %m : vector<1xf32> to vector<16xf32>
      %r = math.rsqrt %b : vector<16xf32>
      %p = arith.mulf %v, %r : vector<16xf32>
      vector.store %p, %y[%i, %j] : memref<4x512xf32>, vector<16xf32>
    }
  }
  return
}

// The loop writes the buffer the load reads (through a view): the load stays.
// CHECK-LABEL: func.func @written_in_the_loop
// CHECK: scf.for
// CHECK-NEXT: memref.load %arg0[%c0, %c0]
func.func @written_in_the_loop(%a: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %a[%c0, %c0] : memref<4x4xf32>
    %row = memref.subview %a[%i, 0] [1, 4] [1, 1] : memref<4x4xf32> to memref<1x4xf32, strided<[4, 1], offset: ?>>
    memref.store %v, %row[%c0, %i] : memref<1x4xf32, strided<[4, 1], offset: ?>>
  }
  return
}

// A load whose index is the loop's stays.
// CHECK-LABEL: func.func @indexed_by_the_loop
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: memref.load %arg0[%[[I]]]
func.func @indexed_by_the_loop(%a: memref<4xf32>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %a[%i] : memref<4xf32>
    memref.store %v, %b[%i] : memref<4xf32>
  }
  return
}
