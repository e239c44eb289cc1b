// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(cpu-polynomial-exp))' | FileCheck %s

// f32: range reduction (floor), polynomial, 2^k from exponent bits (two
// halves), then +inf above ln(FLT_MAX), 0 below ln(2^-150), NaN kept.
// CHECK-LABEL: func.func @exp_f32(
// CHECK-NOT: math.exp
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: math.floor
// CHECK: arith.fptosi
// CHECK: arith.shrsi
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf uno
// CHECK: %[[R:.*]] = arith.select
// CHECK-NEXT: return %[[R]] : f32
func.func @exp_f32(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}

// f16 and bf16 go through f32.
// CHECK-LABEL: func.func @exp_f16(
// CHECK-NOT: math.exp
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @exp_f16(%x: f16) -> f16 {
  %y = math.exp %x : f16
  return %y : f16
}

// f64 keeps math.exp (libm's exp, correctly rounded to f64).
// CHECK-LABEL: func.func @exp_f64(
// CHECK: math.exp %{{.*}} : f64
func.func @exp_f64(%x: f64) -> f64 {
  %y = math.exp %x : f64
  return %y : f64
}
