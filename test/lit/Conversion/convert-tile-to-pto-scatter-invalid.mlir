// RUN: htp-opt %s --pass-pipeline='builtin.module(convert-tile-to-pto)' --split-input-file --verify-diagnostics

// htp.scatter A2/A3 cannot do, refused at the op with the hardware's rule;
// what it can do: convert-tile-to-pto-scatter.mlir.

func.func @put_i64(%x: memref<16x64xi64>, %ix: memref<16x8xi32>, %y: memref<16x64xi64>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<16x64xi64> -> !tile.tile<16x64xi64>
  %j = tile.load %ix[%c0, %c0] : memref<16x8xi32> -> !tile.tile<16x8xi32>
  %s = tile.constant 1 : !tile.tile<16x8xi64>
  // expected-error @+1 {{PTO scatters 8-, 16- and 32-bit elements (A2/A3's TSCATTER), not i64}}
  %p = tile.put %t[%j], %s : !tile.tile<16x64xi64>, !tile.tile<16x8xi32>, !tile.tile<16x8xi64> -> !tile.tile<16x64xi64>
  tile.store %p, %y[%c0, %c0] : !tile.tile<16x64xi64>, memref<16x64xi64>
  return
}

// -----

func.func @put_wide_f16(%x: memref<128x264xf16>, %ix: memref<128x8xi32>, %y: memref<128x264xf16>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<128x264xf16> -> !tile.tile<128x264xf16>
  %j = tile.load %ix[%c0, %c0] : memref<128x8xi32> -> !tile.tile<128x8xi32>
  %s = tile.constant 1.0 : !tile.tile<128x8xf16>
  // expected-error @+1 {{PTO scatters f16 elements by 16-bit offsets (A2/A3's TSCATTER): into a tile of at most 32768 elements, got 34816 (128x272 in UB); scatter into smaller row blocks}}
  %p = tile.put %t[%j], %s : !tile.tile<128x264xf16>, !tile.tile<128x8xi32>, !tile.tile<128x8xf16> -> !tile.tile<128x264xf16>
  tile.store %p, %y[%c0, %c0] : !tile.tile<128x264xf16>, memref<128x264xf16>
  return
}

// -----

func.func @scatter_i64(%x: memref<16x8xi64>, %rows: memref<16x1xi32>, %y: memref<?x8xi64>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<16x8xi64> -> !tile.tile<16x8xi64>
  %j = tile.load %rows[%c0, %c0] : memref<16x1xi32> -> !tile.tile<16x1xi32>
  // expected-error @+1 {{PTO scatters rows of 8-, 16- and 32-bit elements (A2/A3's MSCATTER), not i64}}
  tile.scatter %t, %y[%j, %c0] : !tile.tile<16x8xi64>, memref<?x8xi64>, !tile.tile<16x1xi32>
  return
}
