// The sample backend's pass (lib/htp-backend-sample/src/count_tile_ops.rs):
// a kernel's tile ops, nested ones included, counted into sample.kernel_info.
// RUN: htp-opt %s --pass-pipeline='builtin.module(sample-count-tile-ops)' | FileCheck %s

// CHECK-LABEL: func.func @scale
// CHECK-NEXT: sample.kernel_info {tile_ops = 3 : i64}
func.func @scale(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    %e = tile.exp %t : !tile.tile<16x64xf32>
    tile.store %e, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  }
  return
}

// A function that is not a kernel is left alone.
// CHECK-LABEL: func.func @helper
// CHECK-NOT: sample.kernel_info
func.func @helper() {
  return
}
