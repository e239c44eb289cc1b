// The sample model's pipeline (lib/htp-model-sample/src/lower_cells.rs):
// cells become one-element memrefs and the model's functions kernels;
// a cell carried by a loop is an error at the loop.
// RUN: htp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(sample-lower-cells)' | FileCheck %s

// CHECK-LABEL: func.func @program
// CHECK-SAME: htp.kernel
// CHECK-NOT: htp.model
// CHECK: %[[M:.+]] = memref.alloca() : memref<f32>
// CHECK-NEXT: memref.store %arg0, %[[M]][] : memref<f32>
// CHECK-NEXT: %[[V:.+]] = memref.load %[[M]][] : memref<f32>
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[V]], %arg0 : f32
// CHECK-NEXT: memref.store %[[S]], %[[M]][] : memref<f32>
// CHECK-NEXT: %[[R:.+]] = memref.load %[[M]][] : memref<f32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: cells.
func.func @program(%x: f32) -> f32 attributes {htp.model = "sample"} {
  %c = cells.new %x : f32
  %v = cells.get %c : !cells.cell<f32>
  %s = arith.addf %v, %x : f32
  cells.put %c, %s : !cells.cell<f32>
  %r = cells.get %c : !cells.cell<f32>
  return %r : f32
}

// A function of another model is left alone.
// CHECK-LABEL: func.func @other
// CHECK: htp.model = "other"
// CHECK: cells.new
func.func @other(%x: f32) attributes {htp.model = "other"} {
  %c = cells.new %x : f32
  return
}

// -----

func.func @carried(%x: f32) attributes {htp.model = "sample"} {
  %c = cells.new %x : f32
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{a cell used by scf.for cannot be lowered}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%d = %c) -> (!cells.cell<f32>) {
    scf.yield %d : !cells.cell<f32>
  }
  return
}
