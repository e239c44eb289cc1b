// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(aie-copies-to-loops))' | FileCheck %s

// A copy of a ragged block's rows (strided views of a dynamic size): loops
// over the source's sizes, a load and a store each (MLIR would call
// memrefCopy, which a core does not have).
// CHECK-LABEL: func.func @strided
// CHECK-NOT: memref.copy
// CHECK: %[[N:.*]] = memref.dim %[[SRC:.*]], %c0
// CHECK: %[[C:.*]] = memref.dim %[[SRC]], %c1
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N]]
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %[[C]]
// CHECK-NEXT: %[[V:.*]] = memref.load %[[SRC]][%[[I]], %[[J]]] : memref<?x32xf32, strided<[32, 1]>>
// CHECK-NEXT: memref.store %[[V]], %{{.*}}[%[[I]], %[[J]]] : memref<?x32xf32, strided<[64, 1], offset: 16>>
func.func @strided(%a: memref<8x32xf32>, %b: memref<8x64xf32>, %n: index) {
  %s = memref.subview %a[0, 0] [%n, 32] [1, 1] : memref<8x32xf32> to memref<?x32xf32, strided<[32, 1]>>
  %t = memref.subview %b[0, 16] [%n, 32] [1, 1] : memref<8x64xf32> to memref<?x32xf32, strided<[64, 1], offset: 16>>
  memref.copy %s, %t : memref<?x32xf32, strided<[32, 1]>> to memref<?x32xf32, strided<[64, 1], offset: 16>>
  return
}

// A copy between contiguous buffers stays (llvm.memcpy).
// CHECK-LABEL: func.func @contiguous
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<8x32xf32> to memref<8x32xf32>
func.func @contiguous(%a: memref<8x32xf32>, %b: memref<8x32xf32>) {
  memref.copy %a, %b : memref<8x32xf32> to memref<8x32xf32>
  return
}
