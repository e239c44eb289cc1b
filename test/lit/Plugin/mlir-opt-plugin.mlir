// Debian's own mlir-opt (not htp-opt) loads HTP's dialects from the plugin that
// CMake builds from the same dialect sources (scripts/build-plugin,
// docs/cmake.md), then parses, verifies and prints tile IR.
// REQUIRES: htp-plugin

// Parse + verify; the invalid cases below must fail with exactly their diagnostics.
// RUN: %mlir_opt --load-dialect-plugin=%htp_plugin -split-input-file -verify-diagnostics %s \
// RUN:   | FileCheck %s

// Round trip: the printed form, custom and generic, parses back to the same IR.
// RUN: %mlir_opt --load-dialect-plugin=%htp_plugin -split-input-file -verify-diagnostics %s \
// RUN:   | %mlir_opt --load-dialect-plugin=%htp_plugin -split-input-file | FileCheck %s
// RUN: %mlir_opt --load-dialect-plugin=%htp_plugin -split-input-file -verify-diagnostics \
// RUN:     -mlir-print-op-generic %s \
// RUN:   | %mlir_opt --load-dialect-plugin=%htp_plugin -split-input-file | FileCheck %s

// Without the plugin the same mlir-opt knows no tile dialect: the plugin is
// what makes the lines above pass.
// RUN: not %mlir_opt -split-input-file %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN
// NOPLUGIN: Dialect `tile' not found for custom op 'tile.load'

// CHECK-LABEL: func.func @softmax_rows(
// CHECK-SAME:    %[[A:.*]]: memref<?x64xf32>, %[[B:.*]]: memref<?x64xf32>, %[[I:.*]]: index, %[[N:.*]]: index)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[X:.*]] = tile.load %[[A]][%[[I]], %[[C0]]] valid [%[[N]]] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
// CHECK:         %[[M:.*]] = tile.row_reduce max %[[X]] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x1xf32, valid = ?x1>
// CHECK:         %[[MB:.*]] = tile.broadcast %[[M]] : !tile.tile<16x1xf32, valid = ?x1> -> !tile.tile<16x64xf32, valid = ?x64>
// CHECK:         %[[D:.*]] = tile.sub %[[X]], %[[MB]] : !tile.tile<16x64xf32, valid = ?x64>
// CHECK:         %[[E:.*]] = tile.exp %[[D]] : !tile.tile<16x64xf32, valid = ?x64>
// CHECK:         %[[S:.*]] = tile.row_reduce sum %[[E]] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x1xf32, valid = ?x1>
// CHECK:         %[[R:.*]] = tile.recip %[[S]] : !tile.tile<16x1xf32, valid = ?x1>
// CHECK:         %[[RB:.*]] = tile.broadcast %[[R]] : !tile.tile<16x1xf32, valid = ?x1> -> !tile.tile<16x64xf32, valid = ?x64>
// CHECK:         %[[Y:.*]] = tile.mul %[[E]], %[[RB]] : !tile.tile<16x64xf32, valid = ?x64>
// CHECK:         tile.store %[[Y]], %[[B]][%[[I]], %[[C0]]] : !tile.tile<16x64xf32, valid = ?x64>, memref<?x64xf32>
// CHECK:         return
func.func @softmax_rows(%A: memref<?x64xf32>, %B: memref<?x64xf32>, %i: index, %n: index) {
  %c0 = arith.constant 0 : index
  %x = tile.load %A[%i, %c0] valid [%n] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  %m = tile.row_reduce max %x : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x1xf32, valid = ?x1>
  %mb = tile.broadcast %m : !tile.tile<16x1xf32, valid = ?x1> -> !tile.tile<16x64xf32, valid = ?x64>
  %d = tile.sub %x, %mb : !tile.tile<16x64xf32, valid = ?x64>
  %e = tile.exp %d : !tile.tile<16x64xf32, valid = ?x64>
  %s = tile.row_reduce sum %e : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x1xf32, valid = ?x1>
  %r = tile.recip %s : !tile.tile<16x1xf32, valid = ?x1>
  %rb = tile.broadcast %r : !tile.tile<16x1xf32, valid = ?x1> -> !tile.tile<16x64xf32, valid = ?x64>
  %y = tile.mul %e, %rb : !tile.tile<16x64xf32, valid = ?x64>
  tile.store %y, %B[%i, %c0] : !tile.tile<16x64xf32, valid = ?x64>, memref<?x64xf32>
  return
}

// -----

// CHECK-LABEL: func.func @matmul_scale(
// CHECK-SAME:    %[[A:.*]]: !tile.tile<64x32xf16>, %[[B:.*]]: !tile.tile<32x128xf16>, %[[S:.*]]: f32) -> !tile.tile<64x128xf32>
// CHECK:         %[[Z:.*]] = tile.constant {{.*}} : !tile.tile<64x128xf32>
// CHECK:         %[[C:.*]] = tile.matmul %[[A]], %[[B]], %[[Z]] : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf32>
// CHECK:         %[[D:.*]] = tile.mul %[[C]], %[[S]] : !tile.tile<64x128xf32>, f32
// CHECK:         return %[[D]] : !tile.tile<64x128xf32>
func.func @matmul_scale(%a: !tile.tile<64x32xf16>, %b: !tile.tile<32x128xf16>, %s: f32) -> !tile.tile<64x128xf32> {
  %z = tile.constant 0.0 : !tile.tile<64x128xf32>
  %c = tile.matmul %a, %b, %z : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf32>
  %d = tile.mul %c, %s : !tile.tile<64x128xf32>, f32
  return %d : !tile.tile<64x128xf32>
}

// -----

// An op verifier: a `?` valid size needs its `valid [...]` operand.
func.func @load_missing_valid_size(%A: memref<?x64xf32>, %i: index) {
  // expected-error @+1 {{'tile.load' op needs one valid size for each '?' in '!tile.tile<16x64xf32, valid = ?x64>' (1), got 0}}
  %x = tile.load %A[%i, %i] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  return
}

// -----

// Another op verifier.
func.func @matmul_contracting_mismatch(%a: !tile.tile<64x32xf16>, %b: !tile.tile<16x128xf16>) {
  // expected-error @+1 {{'tile.matmul' op contracting sizes differ: lhs has 32 columns, rhs has 16 rows}}
  %c = tile.matmul %a, %b : !tile.tile<64x32xf16>, !tile.tile<16x128xf16> -> !tile.tile<64x128xf32>
  return
}

// -----

// The type verifier, reached through the plugin's type parser.
// expected-error @+1 {{valid size 32 of dimension 0 must be in [1, 16]}}
func.func private @bad_valid_region(!tile.tile<16x64xf32, valid = 32x64>)

// -----

// The pto dialect comes through the same plugin: a vector kernel (the
// pto.core attribute verifier runs too) and an A2/A3 rule.
// CHECK-LABEL: func.func @pto_kernel(
// CHECK:         pto.tload %{{.*}}, %{{.*}} : !pto.tile<vec, 16x64xf32>, !pto.gtensor<16x64xf32>
// CHECK:         pto.set_flag <mte2 -> v>, 0
// CHECK:         pto.texp %{{.*}}, %{{.*}} : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
func.func @pto_kernel(%x: memref<16x64xf32>) attributes {pto.core = "aiv"} {
  %c0 = arith.constant 0 : index
  %t = pto.alloc_tile addr 0 : !pto.tile<vec, 16x64xf32>
  %g = pto.global_view %x[%c0, %c0] dims [0, 1] : memref<16x64xf32> -> !pto.gtensor<16x64xf32>
  pto.tload %t, %g : !pto.tile<vec, 16x64xf32>, !pto.gtensor<16x64xf32>
  pto.set_flag <mte2 -> v>, 0
  pto.wait_flag <mte2 -> v>, 0
  pto.texp %t, %t : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @pto_tmov_acc_to_vec(%v: !pto.tile<vec, 16x64xf32>, %a: !pto.tile<acc, 16x64xf32>) {
  // expected-error @+1 {{'pto.tmov' op tmov from acc to vec does not exist on A2/A3 (results reach vector code through GM)}}
  pto.tmov %v, %a : !pto.tile<vec, 16x64xf32>, !pto.tile<acc, 16x64xf32>
  return
}
