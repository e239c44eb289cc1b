// Invalid IR (here a verifier error) is reported at its source location and
// htp-opt exits non-zero without crashing (`not` fails on a crash) and
// without printing any IR: with no pass, with --canonicalize, with a pass
// pipeline, and when asked for generic output.
//
// RUN: not htp-opt %s 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=module
// RUN: not htp-opt %s --canonicalize 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=module
// RUN: not htp-opt %s --pass-pipeline='builtin.module(func.func(tile-peak-live-bytes))' 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=module
// RUN: not htp-opt %s --pass-pipeline='builtin.module(canonicalize,cse)' --mlir-print-op-generic 2>&1 | FileCheck %s --implicit-check-not=error: --implicit-check-not=module

func.func @mask_add(%m: !tile.tile<16x64xi1>) -> !tile.tile<16x64xi1> {
  // CHECK: {{.*}}bad-input.mlir:[[@LINE+2]]:8: error: 'tile.add' op needs numeric elements, got i1 (use tile.select)
  // CHECK-NEXT: %r = tile.add %m, %m : !tile.tile<16x64xi1>
  %r = tile.add %m, %m : !tile.tile<16x64xi1>
  return %r : !tile.tile<16x64xi1>
}
