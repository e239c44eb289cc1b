// RUN: htp-opt %s --pass-pipeline='builtin.module(convert-tile-to-pto)' --split-input-file --verify-diagnostics

// Shape ops A2/A3 cannot do, refused at the op (conversion/shapes.rs,
// memory.rs) with the hardware's rule; what it can do:
// convert-tile-to-pto-shapes.mlir.

func.func @column_step_store(%x: memref<16x32xf32>, %y: memref<16x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<16x32xf32> -> !tile.tile<16x32xf32>
  // expected-error @+1 {{PTO stores tiles to GM with TSTORE, which writes each row as one contiguous burst (A2/A3): a store with a column step (2)}}
  tile.store %t, %y[%c0, %c0] strides [1, 2] : !tile.tile<16x32xf32>, memref<16x64xf32>
  return
}

// -----

func.func @column_step_three(%x: memref<16x96xf32>, %y: memref<16x32xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{PTO picks every 2nd or every 4th column of a tensor (TGATHER's mask patterns on A2/A3), not every 3rd}}
  %t = tile.load %x[%c0, %c0] strides [1, 3] : memref<16x96xf32> -> !tile.tile<16x32xf32>
  tile.store %t, %y[%c0, %c0] : !tile.tile<16x32xf32>, memref<16x32xf32>
  return
}

// -----

func.func @column_step_bytes(%x: memref<16x128xi8>, %y: memref<16x64xi8>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{PTO picks every n-th column with TGATHER, which moves 16- and 32-bit elements (A2/A3), not i8}}
  %t = tile.load %x[%c0, %c0] strides [1, 2] : memref<16x128xi8> -> !tile.tile<16x64xi8>
  tile.store %t, %y[%c0, %c0] : !tile.tile<16x64xi8>, memref<16x64xi8>
  return
}

// -----

func.func @column_step_partial_rows(%x: memref<16x24xf32>, %y: memref<16x12xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{so the tile's 12 f32 columns must fill whole 32-byte rows (a multiple of 8)}}
  %t = tile.load %x[%c0, %c0] strides [1, 2] : memref<16x24xf32> -> !tile.tile<16x12xf32>
  tile.store %t, %y[%c0, %c0] : !tile.tile<16x12xf32>, memref<16x12xf32>
  return
}

// -----

func.func @tile_row_step(%x: memref<16x64xf32>, %y: memref<8x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  // expected-error @+1 {{PTO takes every n-th row of a tile only as it loads it: TLOAD reads a tensor's rows at any stride, A2/A3 has no instruction picking rows of a tile; slice the tensor with the step instead (x[i:i + 16:2, ...])}}
  %s = tile.slice %t [0, 0] strides [2, 1] : !tile.tile<16x64xf32> -> !tile.tile<8x64xf32>
  tile.store %s, %y[%c0, %c0] : !tile.tile<8x64xf32>, memref<8x64xf32>
  return
}

// -----

func.func @reshape_across_padding(%x: memref<16x4xf32>, %y: memref<8x8xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<16x4xf32> -> !tile.tile<16x4xf32>
  // expected-error @+1 {{PTO reshapes a tile with TRESHAPE, which reinterprets its bytes (A2/A3); a tile of 4 f32 columns holds its rows padded to 32 bytes (8 columns)}}
  %r = tile.reshape %t : !tile.tile<16x4xf32> -> !tile.tile<8x8xf32>
  tile.store %r, %y[%c0, %c0] : !tile.tile<8x8xf32>, memref<8x8xf32>
  return
}

// -----

func.func @column_group_misaligned(%x: memref<16x64xf32>, %y: memref<16x8xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  // expected-error @+1 {{PTO moves blocks of a tile with TEXTRACT, which starts at 32-byte boundaries on A2/A3 (a multiple of 8 f32 elements); this slice's column group starts at column 4 (16 bytes)}}
  %s = tile.slice %t [0, 5] strides [1, 2] : !tile.tile<16x64xf32> -> !tile.tile<16x8xf32>
  tile.store %s, %y[%c0, %c0] : !tile.tile<16x8xf32>, memref<16x8xf32>
  return
}

// -----

func.func @mask_slice(%x: memref<16x64xf32>, %y: memref<16x32xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %t = tile.load %x[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  %m = tile.cmp gt, %t, %zero : !tile.tile<16x64xf32>, f32
  // expected-error @+1 {{PTO holds a bool tile (a mask) as packed bits, which it cannot slice}}
  %h = tile.slice %m [0, 32] : !tile.tile<16x64xi1> -> !tile.tile<16x32xi1>
  %s = tile.slice %t [0, 32] : !tile.tile<16x64xf32> -> !tile.tile<16x32xf32>
  %r = tile.select %h, %s, %s : !tile.tile<16x32xf32>
  tile.store %r, %y[%c0, %c0] : !tile.tile<16x32xf32>, memref<16x32xf32>
  return
}
