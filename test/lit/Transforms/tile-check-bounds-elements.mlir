// tile-check-bounds on scalar reads of tensor elements (`lens[b]`): each
// index is checked against its dimension (0 <= i < dim); a read outside
// reports its site and reads element 0 of that dimension instead. Reads of
// a kernel-local array (memref.alloca: HTP's own cursors) are not checked.
// RUN: htp-opt %s --pass-pipeline='builtin.module(tile-check-bounds)' | FileCheck %s

// CHECK: module attributes {htp.index_sites = {{\[}}[0, "{{.*}}tile-check-bounds-elements.mlir:{{[0-9]+}}:{{[0-9]+}}: error: index out of bounds: this access reaches outside its tensor{{.*}}"]]}
// CHECK-LABEL: func.func @read
// CHECK: %[[N:.*]] = memref.dim %[[T:.*]], %{{.*}} : memref<?x4xi32>
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[B:.*]], %{{.*}} : index
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[B]], %[[N]] : index
// CHECK: scf.if
// CHECK: func.call @htpRuntimeError
// CHECK: %[[SAFE:.*]] = arith.select %{{.*}}, %[[B]], %{{.*}} : index
// CHECK: memref.load %[[T]][%[[SAFE]], %{{.*}}] : memref<?x4xi32>
// CHECK: %[[A:.*]] = memref.alloca() : memref<2xindex>
// CHECK-NOT: htpRuntimeError
// CHECK: memref.load %[[A]][%{{.*}}] : memref<2xindex>
// CHECK-NEXT: return
func.func @read(%t: memref<?x4xi32>, %b: index, %j: index) -> (i32, index) {
  %v = memref.load %t[%b, %j] : memref<?x4xi32>
  %a = memref.alloca() : memref<2xindex>
  %c0 = arith.constant 0 : index
  %w = memref.load %a[%c0] : memref<2xindex>
  return %v, %w : i32, index
}
