// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(aie-split-reduction-accumulators))' | FileCheck %s
//
// A reduction's accumulator operand becomes the scalar op of its kind after
// a reduction without one (mlir-aie's aievec path mishandles the operand
// for integers); a reduction without an accumulator stays as it is.

// CHECK-LABEL: func.func @integer_max
// CHECK: %[[R:.*]] = vector.reduction <maxsi>, %arg0 : vector<16xi32> into i32
// CHECK: %[[C:.*]] = arith.maxsi %[[R]], %arg1 : i32
// CHECK: return %[[C]]
func.func @integer_max(%v: vector<16xi32>, %acc: i32) -> i32 {
  %r = vector.reduction <maxsi>, %v, %acc : vector<16xi32> into i32
  return %r : i32
}

// CHECK-LABEL: func.func @float_sum
// CHECK: %[[R:.*]] = vector.reduction <add>, %arg0 : vector<16xf32> into f32
// CHECK: arith.addf %[[R]], %arg1 : f32
func.func @float_sum(%v: vector<16xf32>, %acc: f32) -> f32 {
  %r = vector.reduction <add>, %v, %acc : vector<16xf32> into f32
  return %r : f32
}

// CHECK-LABEL: func.func @no_accumulator
// CHECK: vector.reduction <minsi>, %arg0 : vector<64xi8> into i8
// CHECK-NOT: arith.minsi
func.func @no_accumulator(%v: vector<64xi8>) -> i8 {
  %r = vector.reduction <minsi>, %v : vector<64xi8> into i8
  return %r : i8
}
