// With --allow-unregistered-dialect an unknown dialect's generic op is kept
// as is, also next to tile ops and through a pass.
//
// RUN: htp-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: htp-opt %s --allow-unregistered-dialect --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @opaque(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[E:.*]] = tile.exp %[[X]] : !tile.tile<16x64xf32>
// CHECK-NEXT:    %[[R:.*]] = "frob.nicate"(%[[E]]) {mode = 1 : i32} : (!tile.tile<16x64xf32>) -> !tile.tile<16x64xf32>
// CHECK-NEXT:    return %[[R]] : !tile.tile<16x64xf32>
func.func @opaque(%x: !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32> {
  %e = tile.exp %x : !tile.tile<16x64xf32>
  %r = "frob.nicate"(%e) {mode = 1 : i32} : (!tile.tile<16x64xf32>) -> !tile.tile<16x64xf32>
  return %r : !tile.tile<16x64xf32>
}
