// cpu-poll-interrupts: every loop stops doing work once the call is
// interrupted (SIGINT); carried values pass through (issue 21); inner loops
// are polled too (issue 26: one long iteration of an outer loop).
// RUN: htp-opt %s --pass-pipeline='builtin.module(cpu-poll-interrupts)' | FileCheck %s

// CHECK: func.func private @htpRuntimeInterrupted() -> i32
// CHECK-LABEL: func.func @carried
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK-NEXT: %[[FLAG:.*]] = func.call @htpRuntimeInterrupted() : () -> i32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[GO:.*]] = arith.cmpi eq, %[[FLAG]], %[[ZERO]] : i32
// CHECK-NEXT: %[[NEXT:.*]] = scf.if %[[GO]] -> (f32) {
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[ACC]] : f32
// CHECK-NEXT: scf.for
// CHECK-NEXT: func.call @htpRuntimeInterrupted()
// CHECK: scf.yield %[[SUM]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[ACC]] : f32
// CHECK: scf.yield %[[NEXT]] : f32
func.func @carried(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.for %j = %c0 to %n step %c1 {
    }
    scf.yield %s : f32
  }
  return %r : f32
}

// CHECK-LABEL: func.func @plain
// CHECK: scf.for
// CHECK-NEXT: func.call @htpRuntimeInterrupted()
// CHECK: scf.if
// CHECK-NEXT: memref.store
func.func @plain(%n: index, %m: memref<?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return
}
