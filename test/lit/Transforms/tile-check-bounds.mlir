// RUN: htp-opt %s --pass-pipeline='builtin.module(tile-check-bounds)' | FileCheck %s

// Each access gets a site (its file:line:col) and a check: start >= 0,
// extent >= 0 and start + extent <= the dimension, per view dimension.
// CHECK: module attributes {htp.index_sites = ["{{.*}}tile-check-bounds.mlir:[[LOAD:[0-9]+]]:{{[0-9]+}}", "{{.*}}tile-check-bounds.mlir:[[STORE:[0-9]+]]:{{[0-9]+}}"]}
// CHECK: func.func private @htpIndexError(i64)
// CHECK-LABEL: func.func @copy
// A load outside reports its site and reads from the origin, with no rows.
// CHECK: %[[N:.*]] = memref.dim %[[X:.*]], %{{.*}} : memref<?x64xf32>
// CHECK: arith.cmpi sge, %[[I:.*]], %{{.*}} : index
// CHECK: arith.cmpi sle, %{{.*}}, %[[N]] : index
// CHECK: %[[BAD:.*]] = arith.xori %[[OK:.*]], %true
// CHECK: scf.if %[[BAD]] {
// CHECK-NEXT: func.call @htpIndexError(%c0_i64)
// CHECK: %[[SI:.*]] = arith.select %[[OK]], %[[I]], %{{.*}} : index
// CHECK: %[[SJ:.*]] = arith.select %[[OK]], %{{.*}}, %{{.*}} : index
// CHECK: %[[SN:.*]] = arith.select %[[OK]], %{{.*}}, %{{.*}} : index
// CHECK: tile.load %[[X]][%[[SI]], %[[SJ]]] valid [%[[SN]]]
// A store outside reports its site and is skipped.
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: func.call @htpIndexError(%c1_i64)
// CHECK: scf.if %[[OK2:.*]] {
// CHECK-NEXT: tile.store
func.func @copy(%x: memref<?x64xf32>, %y: memref<16x64xf32>, %i: index, %n: index) {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%i, %c0] valid [%n] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  tile.store %t, %y[%i, %c0] : !tile.tile<16x64xf32, valid = ?x64>, memref<16x64xf32>
  return
}
