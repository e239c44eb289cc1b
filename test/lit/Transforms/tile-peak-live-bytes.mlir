// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(tile-peak-live-bytes))' --split-input-file | FileCheck %s

// A chain where each tile dies at its next op: two 4 KiB tiles at once.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: tile.peak_live_bytes = 8192 : i64
func.func @chain(%m: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.load %m[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  %b = tile.exp %a : !tile.tile<16x64xf32>
  %c = tile.exp %b : !tile.tile<16x64xf32>
  tile.store %c, %m[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
  return
}

// -----

// %a stays live across the whole loop because the body reads it:
// 3 x 2 KiB of f16 tiles.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: tile.peak_live_bytes = 6144 : i64
func.func @loop(%m: memref<16x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.load %m[%c0, %c0] : memref<16x64xf16> -> !tile.tile<16x64xf16>
  scf.for %i = %c0 to %n step %c1 {
    %b = tile.load %m[%c0, %c0] : memref<16x64xf16> -> !tile.tile<16x64xf16>
    %s = tile.add %a, %b : !tile.tile<16x64xf16>
    tile.store %s, %m[%c0, %c0] : !tile.tile<16x64xf16>, memref<16x64xf16>
  }
  return
}

// -----

// Loop-carried accumulator (f32 64x64 = 16 KiB) plus one f16 operand pair per
// iteration (2 x 4 KiB) and the new accumulator (16 KiB): the init value is
// an operand of the loop, so it is live for the whole loop too.
// CHECK-LABEL: func.func @gemm_k_loop
// CHECK-SAME: tile.peak_live_bytes = 57344 : i64
func.func @gemm_k_loop(%a: memref<64x256xf16>, %b: memref<256x64xf16>, %c: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %zero = tile.constant 0.0 : !tile.tile<64x64xf32>
  %acc = scf.for %k = %c0 to %c256 step %c32 iter_args(%sum = %zero) -> (!tile.tile<64x64xf32>) {
    %ta = tile.load %a[%c0, %k] : memref<64x256xf16> -> !tile.tile<64x32xf16>
    %tb = tile.load %b[%k, %c0] : memref<256x64xf16> -> !tile.tile<32x64xf16>
    %next = tile.matmul %ta, %tb, %sum : !tile.tile<64x32xf16>, !tile.tile<32x64xf16> -> !tile.tile<64x64xf32>
    scf.yield %next : !tile.tile<64x64xf32>
  }
  tile.store %acc, %c[%c0, %c0] : !tile.tile<64x64xf32>, memref<64x64xf32>
  return
}

// -----

// Functions without tiles get 0; i1 masks are bit-packed (16x64 bits = 128 B).
// CHECK-LABEL: func.func @no_tiles
// CHECK-SAME: tile.peak_live_bytes = 0 : i64
func.func @no_tiles() {
  return
}
// CHECK-LABEL: func.func @mask
// CHECK-SAME: tile.peak_live_bytes = 128 : i64
func.func @mask() -> !tile.tile<16x64xi1> {
  %m = tile.constant true : !tile.tile<16x64xi1>
  return %m : !tile.tile<16x64xi1>
}
