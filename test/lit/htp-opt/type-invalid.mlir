// Type errors, in an op's operands and in a type itself, are reported at
// their source location, with and without a pass; the run fails cleanly.
//
// RUN: not htp-opt %s --split-input-file 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not htp-opt %s --split-input-file --canonicalize 2>&1 | FileCheck %s --implicit-check-not=error:

// An operand type the op does not accept: exp of integers.
func.func @exp_of_ints(%x: !tile.tile<16x64xi32>) -> !tile.tile<16x64xi32> {
  // CHECK: {{.*}}type-invalid.mlir:[[@LINE+1]]:8: error: 'tile.exp' op needs floating-point elements, got 'i32'
  %r = tile.exp %x : !tile.tile<16x64xi32>
  return %r : !tile.tile<16x64xi32>
}

// -----

// Operands of different tile types.
func.func @add_mismatch(%a: !tile.tile<16x64xf32>, %b: !tile.tile<16x64xf16>) -> !tile.tile<16x64xf32> {
  // CHECK: {{.*}}type-invalid.mlir:[[@LINE+1]]:8: error: 'tile.add' op operand types differ: '!tile.tile<16x64xf32>' and '!tile.tile<16x64xf16>'
  %r = tile.add %a, %b : !tile.tile<16x64xf32>, !tile.tile<16x64xf16>
  return %r : !tile.tile<16x64xf32>
}

// -----

// A tile type that is itself invalid: the error points into the type.
// CHECK: {{.*}}type-invalid.mlir:[[@LINE+1]]:38: error: tile element type must be f32, f16, bf16, i64, i32, i16, i8 or i1, got 'f64'
func.func @bad_element(%x: !tile.tile<16x64xf64>) {
  return
}

// -----

// A valid region larger than the tile.
func.func @bad_valid() {
  // CHECK: {{.*}}type-invalid.mlir:[[@LINE+1]]:38: error: valid size 65 of dimension 1 must be in [1, 64]
  %c = tile.constant 0.0 : !tile.tile<16x64xf32, valid = 16x65>
  return
}

