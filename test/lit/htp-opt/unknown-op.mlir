// Ops that no dialect defines are rejected at their location, in the custom
// and in the generic form, for the tile dialect and for an unknown dialect.
//
// RUN: not htp-opt %s --split-input-file 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not htp-opt %s --split-input-file --canonicalize 2>&1 | FileCheck %s --implicit-check-not=error:

func.func @custom_unknown_tile_op() {
  // CHECK: {{.*}}unknown-op.mlir:[[@LINE+1]]:8: error: custom op 'tile.frobnicate' is unknown
  %0 = tile.frobnicate : !tile.tile<16x64xf32>
  return
}

// -----

// The tile dialect does not accept unregistered ops, even in generic form.
func.func @generic_unknown_tile_op() {
  // CHECK: {{.*}}unknown-op.mlir:[[@LINE+1]]:8: error: unregistered operation 'tile.frobnicate' found in dialect ('tile') that does not allow unknown operations
  %0 = "tile.frobnicate"() : () -> !tile.tile<16x64xf32>
  return
}

// -----

func.func @custom_unknown_dialect() {
  // CHECK: {{.*}}unknown-op.mlir:[[@LINE+1]]:8: error: Dialect `frob' not found for custom op 'frob.nicate'
  %0 = frob.nicate : i32
  return
}

// -----

func.func @generic_unknown_dialect() {
  // CHECK: {{.*}}unknown-op.mlir:[[@LINE+1]]:21: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect with the MLIR tool used
  %0 = "frob.nicate"() : () -> i32
  return
}

// -----

// An unknown type in a known dialect.
// CHECK: {{.*}}unknown-op.mlir:[[@LINE+1]]:39: error: unknown  type `tyle` in dialect `tile`
func.func private @unknown_type(!tile.tyle<16x64xf32>)
