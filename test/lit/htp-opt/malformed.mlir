// Malformed text is a parse error at the offending token, never a crash.
//
// RUN: not htp-opt %s --split-input-file 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not htp-opt %s --split-input-file --canonicalize 2>&1 | FileCheck %s --implicit-check-not=error:

func.func @missing_colon(%x: !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32> {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:19: error: expected ':'
  %r = tile.exp %x !tile.tile<16x64xf32>
  return %r : !tile.tile<16x64xf32>
}

// -----

func.func @missing_operand(%x: !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32> {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:20: error: expected SSA operand
  %r = tile.add %x, : !tile.tile<16x64xf32>
  return %r : !tile.tile<16x64xf32>
}

// -----

func.func @undefined_value() -> !tile.tile<16x64xf32> {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:17: error: use of undeclared SSA value name
  %r = tile.exp %nope : !tile.tile<16x64xf32>
  return %r : !tile.tile<16x64xf32>
}

// -----

func.func @unbalanced_type(%x: !tile.tile<16x64xf32>) {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:32: error: unbalanced '<' character in pretty dialect name
  %r = tile.exp %x : !tile.tile<16x64xf32
  return
}

// -----

func.func @garbage(%x: !tile.tile<16x64xf32>) {
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:3: error: unexpected character
  $$$ tile.exp
  return
}

// -----

// One `}` too many.
func.func @stray_brace() {
  return
// CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:2: error: expected operation name in quotes
}}

// -----

// The function never closes: the error is reported at the end of the last
// token before the end of the input.
func.func @unterminated(%x: !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32> {
  %r = tile.exp %x : !tile.tile<16x64xf32>
  // CHECK: {{.*}}malformed.mlir:[[@LINE+1]]:36: error: expected operation name in quotes
  return %r : !tile.tile<16x64xf32>
