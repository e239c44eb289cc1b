// RUN: htp-opt %s --irdl-file=%S/Inputs/demo.irdl.mlir --pass-pipeline='builtin.module(htp-apply-pdl{file=%S/Inputs/fuse-fma.pdl.mlir})' | FileCheck %s
// RUN: not htp-opt %s --pass-pipeline='builtin.module(htp-apply-pdl{patterns=nothing-registered})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not htp-opt %s --pass-pipeline='builtin.module(htp-apply-pdl)' 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not htp-opt %s --pass-pipeline='builtin.module(htp-apply-pdl{file=%S/Inputs/missing.mlir})' 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not htp-opt %s --pass-pipeline='builtin.module(htp-apply-pdl{file=%s})' 2>&1 | FileCheck %s --check-prefix=INVALID

// CHECK-LABEL: func.func @fused
// CHECK: %[[FMA:.*]] = "demo.fma"(%arg0, %arg1, %arg2) : (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32>
// CHECK-NOT: tile.add
// CHECK: return %[[FMA]]
func.func @fused(%a: !tile.tile<16x64xf32>, %b: !tile.tile<16x64xf32>, %c: !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32> {
  %p = tile.mul %a, %b : !tile.tile<16x64xf32>
  %s = tile.add %p, %c : !tile.tile<16x64xf32>
  return %s : !tile.tile<16x64xf32>
}

// A sum of other values is left alone.
// CHECK-LABEL: func.func @unfused
// CHECK: tile.add %arg0, %arg1
func.func @unfused(%a: !tile.tile<16x64xf32>, %b: !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32> {
  %s = tile.add %a, %b : !tile.tile<16x64xf32>
  return %s : !tile.tile<16x64xf32>
}

// UNKNOWN: error: htp-apply-pdl: no PDL pattern set named 'nothing-registered' is registered
// NONE: error: htp-apply-pdl: give exactly one of patterns=<registered name> and file=<path>
// MISSING: error: htp-apply-pdl: cannot read the PDL patterns in '{{.*}}missing.mlir'
// INVALID: error: htp-apply-pdl: the patterns are not valid: expected only pdl.pattern ops, found func.func
