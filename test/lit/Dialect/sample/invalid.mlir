// RUN: htp-opt %s --split-input-file --verify-diagnostics

func.func @negative() {
  // expected-error @+1 {{'sample.kernel_info' op attribute 'tile_ops' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  sample.kernel_info {tile_ops = -1 : i64}
  return
}

// -----

func.func @missing() {
  // expected-error @+1 {{'sample.kernel_info' op requires attribute 'tile_ops'}}
  sample.kernel_info
  return
}
