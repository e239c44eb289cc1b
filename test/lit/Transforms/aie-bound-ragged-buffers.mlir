// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(aie-bound-ragged-buffers))' | FileCheck %s

// A ragged block's temporary: `min(rows left, 8)` rows of 32 become a
// static buffer of 8 x 32 viewed with the dynamic shape (row-major strides,
// the identity layout every user had).
// CHECK-LABEL: func.func @rows
// CHECK: %[[N:.*]] = arith.minsi
// CHECK: %[[FLAT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<256xf32>
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[FLAT]] to offset: [0], sizes: [%[[N]], 32], strides: [32, 1] : memref<256xf32> to memref<?x32xf32>
// CHECK-NOT: memref.alloc(
// CHECK: memref.store %{{.*}}, %[[VIEW]]
func.func @rows(%row: index, %v: f32) {
  %c8 = arith.constant 8 : index
  %c100 = arith.constant 100 : index
  %c0 = arith.constant 0 : index
  %left = arith.subi %c100, %row : index
  %n = arith.minsi %left, %c8 : index
  %a = memref.alloc(%n) {alignment = 64 : i64} : memref<?x32xf32>
  memref.store %v, %a[%c0, %c0] : memref<?x32xf32>
  return
}

// A ragged row statistic expanded from `[rows]` to `[rows, 1]`: the bound
// comes through the expand_shape's output size.
// CHECK-LABEL: func.func @expanded
// CHECK: %[[FLAT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK: memref.reinterpret_cast %[[FLAT]] to offset: [0], sizes: [%{{.*}}, 1], strides: [1, 1] : memref<8xf32> to memref<?x1xf32>
// CHECK-NOT: memref.alloc(
func.func @expanded(%row: index, %stats: memref<8xf32>) {
  %c8 = arith.constant 8 : index
  %c37 = arith.constant 37 : index
  %c0 = arith.constant 0 : index
  %left = arith.subi %c37, %row : index
  %n = arith.minsi %left, %c8 : index
  %view = memref.reinterpret_cast %stats to offset: [0], sizes: [%n], strides: [1] : memref<8xf32> to memref<?xf32>
  %e = memref.expand_shape %view [[0, 1]] output_shape [%n, 1] : memref<?xf32> into memref<?x1xf32>
  %d = memref.dim %e, %c0 : memref<?x1xf32>
  %a = memref.alloc(%d) {alignment = 64 : i64} : memref<?x1xf32>
  memref.copy %e, %a : memref<?x1xf32> to memref<?x1xf32>
  return
}

// A transposed ragged tile: the dynamic size is the inner one, so the
// outer stride is computed (32 x ? has strides [?, 1]); the bound of the
// second size comes through a dim of the first buffer.
// CHECK-LABEL: func.func @columns
// CHECK: %[[N:.*]] = arith.minsi
// CHECK: memref.alloc() : memref<128xf32>
// CHECK: %[[A:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [%[[N]]], strides: [1] : memref<128xf32> to memref<?xf32>
// CHECK: %[[D:.*]] = memref.dim %[[A]]
// CHECK: %[[FLAT:.*]] = memref.alloc() : memref<4096xf32>
// CHECK: %[[STRIDE:.*]] = arith.muli %{{.*}}, %[[D]] : index
// CHECK: memref.reinterpret_cast %[[FLAT]] to offset: [0], sizes: [32, %[[D]]], strides: [%[[STRIDE]], 1] : memref<4096xf32> to memref<32x?xf32>
func.func @columns(%row: index) {
  %c128 = arith.constant 128 : index
  %c0 = arith.constant 0 : index
  %n = arith.minsi %row, %c128 : index
  %a = memref.alloc(%n) : memref<?xf32>
  %d = memref.dim %a, %c0 : memref<?xf32>
  %b = memref.alloc(%d) : memref<32x?xf32>
  return
}

// A size with no bound HTP can see stays a heap buffer (the AIE lowering
// reports it at the user's line).
// CHECK-LABEL: func.func @unbounded
// CHECK: memref.alloc(%{{.*}}) : memref<?x32xf32>
func.func @unbounded(%n: index) {
  %a = memref.alloc(%n) : memref<?x32xf32>
  return
}
