// RUN: htp-opt %s --pass-pipeline='builtin.module(tile-check-bounds)' | FileCheck %s

// Each access gets a site (its file:line:col) and a check: start >= 0,
// extent >= 0 and start + extent <= the dimension, per view dimension.
// CHECK: module attributes {htp.index_sites = {{\[}}[0, "{{.*}}tile-check-bounds.mlir:{{[0-9]+}}:{{[0-9]+}}: error: index out of bounds{{.*}}"], [0, "{{.*}}tile-check-bounds.mlir:{{[0-9]+}}:{{[0-9]+}}: error: index out of bounds{{.*}}"], [1, "{{.*}}tile-check-bounds.mlir:{{[0-9]+}}:{{[0-9]+}}: error: integer division or modulo by zero{{.*}}"], [2, "{{.*}}tile-check-bounds.mlir:{{[0-9]+}}:{{[0-9]+}}: error: range() step must be positive{{.*}}"]]}
// CHECK: func.func private @htpRuntimeError(i64)
// CHECK-LABEL: func.func @copy
// A load outside reports its site and reads from the origin, with no rows.
// CHECK: %[[N:.*]] = memref.dim %[[X:.*]], %{{.*}} : memref<?x64xf32>
// CHECK: arith.cmpi sge, %[[I:.*]], %{{.*}} : index
// CHECK: arith.cmpi sle, %{{.*}}, %[[N]] : index
// CHECK: %[[BAD:.*]] = arith.xori %[[OK:.*]], %true
// CHECK: scf.if %[[BAD]] {
// CHECK-NEXT: func.call @htpRuntimeError(%c0_i64)
// CHECK: %[[SI:.*]] = arith.select %[[OK]], %[[I]], %{{.*}} : index
// CHECK: %[[SJ:.*]] = arith.select %[[OK]], %{{.*}}, %{{.*}} : index
// CHECK: %[[SN:.*]] = arith.select %[[OK]], %{{.*}}, %{{.*}} : index
// CHECK: tile.load %[[X]][%[[SI]], %[[SJ]]] valid [%[[SN]]]
// A store outside reports its site and is skipped.
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: func.call @htpRuntimeError(%c1_i64)
// CHECK: scf.if %[[OK2:.*]] {
// CHECK-NEXT: tile.store
func.func @copy(%x: memref<?x64xf32>, %y: memref<16x64xf32>, %i: index, %n: index) {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%i, %c0] valid [%n] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  tile.store %t, %y[%i, %c0] : !tile.tile<16x64xf32, valid = ?x64>, memref<16x64xf32>
  return
}

// An integer division: a zero divisor (or MIN / -1) reports its site and
// divides by 1 instead of trapping.
// CHECK-LABEL: func.func @divide
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[B:.*]], %{{.*}} : i64
// CHECK: %[[BAD:.*]] = arith.ori %[[Z]], %{{.*}} : i1
// CHECK: scf.if %[[BAD]] {
// CHECK-NEXT: func.call @htpRuntimeError(%c2_i64)
// CHECK: %[[SAFE:.*]] = arith.select %[[BAD]], %{{.*}}, %[[B]] : i64
// CHECK: arith.floordivsi %{{.*}}, %[[SAFE]] : i64
func.func @divide(%a: i64, %b: i64) -> i64 {
  %q = arith.floordivsi %a, %b : i64
  return %q : i64
}

// A loop with a run-time step: a step <= 0 reports its site and the loop
// runs zero times (upper := lower, step := 1) instead of never ending.
// CHECK-LABEL: func.func @stepped
// CHECK: %[[BAD:.*]] = arith.cmpi sle, %[[S:.*]], %{{.*}} : index
// CHECK: %[[UB:.*]] = arith.select %[[BAD]], %[[LB:.*]], %[[N:.*]] : index
// CHECK: %[[ST:.*]] = arith.select %[[BAD]], %{{.*}}, %[[S]] : index
// CHECK: scf.if %[[BAD]] {
// CHECK-NEXT: func.call @htpRuntimeError(%c3_i64)
// CHECK: scf.for %{{.*}} = %[[LB]] to %[[UB]] step %[[ST]]
func.func @stepped(%lb: index, %n: index, %s: index) {
  scf.for %i = %lb to %n step %s {
  }
  return
}
