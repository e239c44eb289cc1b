// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(aie-hoist-stack-buffers))' | FileCheck %s
//
// A statically shaped alloca inside a loop or branch moves to the entry
// block: one buffer for every trip, not a dynamic allocation per trip on a
// core's small stack. One that leaves its trip (yielded), or has sizes
// known only at run time, stays.

// CHECK-LABEL: func.func @per_trip
// CHECK-NEXT: memref.alloca() : memref<16x1xf32>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<16xf32>
// CHECK-NEXT: arith.constant
// CHECK: scf.for
// CHECK-NOT: memref.alloca
// CHECK: return
func.func @per_trip(%x: memref<16x64xf32>, %out: memref<16x1xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    scf.if %flag {
      %row = memref.alloca() {alignment = 64 : i64} : memref<16xf32>
      memref.store %f, %row[%c0] : memref<16xf32>
    }
    %t = memref.alloca() : memref<16x1xf32>
    memref.store %f, %t[%c0, %c0] : memref<16x1xf32>
    memref.copy %t, %out : memref<16x1xf32> to memref<16x1xf32>
  }
  return
}

// CHECK-LABEL: func.func @kept
// CHECK: scf.for
// CHECK: memref.alloca() : memref<4xf32>
// CHECK: scf.yield
// CHECK: memref.alloca(%{{.*}}) : memref<?xf32>
func.func @kept(%n: index, %init: memref<4xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%carried = %init) -> memref<4xf32> {
    %fresh = memref.alloca() : memref<4xf32>
    memref.copy %carried, %fresh : memref<4xf32> to memref<4xf32>
    scf.yield %fresh : memref<4xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %dynamic = memref.alloca(%n) : memref<?xf32>
    memref.copy %r, %r : memref<4xf32> to memref<4xf32>
  }
  return %r : memref<4xf32>
}
