// RUN: htp-opt %s --split-input-file --verify-diagnostics
//
// One case per verifier rule, ODS constraint and parser error of the tile
// dialect (dialects/tile/TileOps.cpp, TileTypes.cpp, TileOps.td).

//===----------------------------------------------------------------------===//
// !tile.tile type (TileType::parse / TileType::verify)
//===----------------------------------------------------------------------===//

// expected-error @+1 {{a tile has exactly 2 dimensions, got 1}}
func.func private @rank1(!tile.tile<16xf32>)

// -----

// expected-error @+1 {{a tile has exactly 2 dimensions, got 0}}
func.func private @rank0(!tile.tile<f32>)

// -----

// expected-error @+1 {{a tile has exactly 2 dimensions, got 3}}
func.func private @rank3(!tile.tile<2x16x64xf32>)

// -----

// expected-error @+1 {{tile dimensions must be positive, got 0}}
func.func private @zero_dim(!tile.tile<0x64xf32>)

// -----

// Tile dimensions are static: `?` is only allowed in the valid region.
// expected-error @+1 {{expected static shape}}
func.func private @dynamic_dim(!tile.tile<?x64xf32>)

// -----

// expected-error @+1 {{tile element type must be f32, f16, bf16, i64, i32, i16, i8 or i1, got 'f64'}}
func.func private @f64_element(!tile.tile<16x64xf64>)

// -----

// Integer elements are signless.
// expected-error @+1 {{tile element type must be f32, f16, bf16, i64, i32, i16, i8 or i1, got 'ui8'}}
func.func private @unsigned_element(!tile.tile<16x64xui8>)

// -----

// expected-error @+1 {{tile element type must be f32, f16, bf16, i64, i32, i16, i8 or i1, got 'si32'}}
func.func private @signed_element(!tile.tile<16x64xsi32>)

// -----

// expected-error @+1 {{tile element type must be f32, f16, bf16, i64, i32, i16, i8 or i1, got 'index'}}
func.func private @index_element(!tile.tile<16x64xindex>)

// -----

// expected-error @+1 {{tile element type must be f32, f16, bf16, i64, i32, i16, i8 or i1, got 'i4'}}
func.func private @i4_element(!tile.tile<16x64xi4>)

// -----

// expected-error @+1 {{tile element type must be f32, f16, bf16, i64, i32, i16, i8 or i1, got 'f8E4M3FN'}}
func.func private @f8_element(!tile.tile<16x64xf8E4M3FN>)

// -----

// expected-error @+1 {{tile element type must be f32, f16, bf16, i64, i32, i16, i8 or i1, got 'vector<4xf32>'}}
func.func private @vector_element(!tile.tile<16x64xvector<4xf32>>)

// -----

// expected-error @+1 {{expected 'x' in dimension list}}
func.func private @missing_element(!tile.tile<16x64>)

// -----

// expected-error @+1 {{expected two valid sizes, e.g. `valid = ?x64`}}
func.func private @valid_one_size(!tile.tile<16x64xf32, valid = 8>)

// -----

// expected-error @+1 {{expected two valid sizes, e.g. `valid = ?x64`}}
func.func private @valid_three_sizes(!tile.tile<16x64xf32, valid = 8x8x8>)

// -----

// A valid region equal to the shape must be omitted, so that equal tiles
// have one spelling (and one type).
// expected-error @+1 {{valid region 16x64 covers the whole tile; omit it}}
func.func private @valid_whole_tile(!tile.tile<16x64xf32, valid = 16x64>)

// -----

// expected-error @+1 {{valid size 0 of dimension 0 must be in [1, 16]}}
func.func private @valid_zero(!tile.tile<16x64xf32, valid = 0x64>)

// -----

// expected-error @+1 {{valid size 17 of dimension 0 must be in [1, 16]}}
func.func private @valid_rows_too_large(!tile.tile<16x64xf32, valid = 17x64>)

// -----

// expected-error @+1 {{valid size 65 of dimension 1 must be in [1, 64]}}
func.func private @valid_cols_too_large(!tile.tile<16x64xf32, valid = ?x65>)

// -----

// expected-error @+1 {{expected 'valid'}}
func.func private @valid_bad_keyword(!tile.tile<16x64xf32, region = 8x64>)

// -----

// expected-error @+1 {{expected '='}}
func.func private @valid_missing_equal(!tile.tile<16x64xf32, valid 8x64>)

// -----

// expected-error @+1 {{expected '>'}}
func.func private @valid_missing_comma(!tile.tile<16x64xf32 valid = 8x64>)

// -----

// expected-error @+1 {{expected '<'}}
func.func private @missing_params(!tile.tile)

// -----

// expected-error @+1 {{unknown  type `tyle` in dialect `tile`}}
func.func private @unknown_type(!tile.tyle<16x64xf32>)

// -----

//===----------------------------------------------------------------------===//
// tile.load
//===----------------------------------------------------------------------===//

func.func @load_rank1(%m: memref<64xf32>, %i: index) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.load' op needs a source of rank 2 or more, got rank 1}}
  %t = tile.load %m[%i] : memref<64xf32> -> !tile.tile<16x64xf32>
  return %t : !tile.tile<16x64xf32>
}

// -----

func.func @load_rank0_tensor(%m: tensor<f32>) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.load' op needs a source of rank 2 or more, got rank 0}}
  %t = tile.load %m[] : tensor<f32> -> !tile.tile<16x64xf32>
  return %t : !tile.tile<16x64xf32>
}

// -----

func.func @load_too_few_indices(%m: memref<4x128x256xf32>, %i: index) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.load' op needs 3 indices for a rank-3 source, got 2}}
  %t = tile.load %m[%i, %i] : memref<4x128x256xf32> -> !tile.tile<16x64xf32>
  return %t : !tile.tile<16x64xf32>
}

// -----

func.func @load_too_many_indices(%m: memref<128x256xf32>, %i: index) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.load' op needs 2 indices for a rank-2 source, got 3}}
  %t = tile.load %m[%i, %i, %i] : memref<128x256xf32> -> !tile.tile<16x64xf32>
  return %t : !tile.tile<16x64xf32>
}

// -----

func.func @load_element_type(%m: memref<128x256xf16>, %i: index) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.load' op source element type 'f16' differs from the tile element type 'f32'}}
  %t = tile.load %m[%i, %i] : memref<128x256xf16> -> !tile.tile<16x64xf32>
  return %t : !tile.tile<16x64xf32>
}

// -----

func.func @load_rows_exceed(%m: tensor<8x256xf32>, %i: index) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.load' op tile extent 16 along dimension 0 exceeds the source size 8}}
  %t = tile.load %m[%i, %i] : tensor<8x256xf32> -> !tile.tile<16x64xf32>
  return %t : !tile.tile<16x64xf32>
}

// -----

// Only the valid region is read, so it is the valid size that must fit.
func.func @load_valid_cols_exceed(%m: memref<?x32xf32>, %i: index) -> !tile.tile<16x64xf32, valid = 16x48> {
  // expected-error @+1 {{'tile.load' op tile extent 48 along dimension 1 exceeds the source size 32}}
  %t = tile.load %m[%i, %i] : memref<?x32xf32> -> !tile.tile<16x64xf32, valid = 16x48>
  return %t : !tile.tile<16x64xf32, valid = 16x48>
}

// -----

func.func @load_missing_valid_size(%m: memref<128x256xf32>, %i: index) -> !tile.tile<16x64xf32, valid = ?x64> {
  // expected-error @+1 {{'tile.load' op needs one valid size for each '?' in '!tile.tile<16x64xf32, valid = ?x64>' (1), got 0}}
  %t = tile.load %m[%i, %i] : memref<128x256xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  return %t : !tile.tile<16x64xf32, valid = ?x64>
}

// -----

func.func @load_one_of_two_valid_sizes(%m: memref<128x256xf32>, %i: index) -> !tile.tile<16x64xf32, valid = ?x?> {
  // expected-error @+1 {{'tile.load' op needs one valid size for each '?' in '!tile.tile<16x64xf32, valid = ?x?>' (2), got 1}}
  %t = tile.load %m[%i, %i] valid [%i] : memref<128x256xf32> -> !tile.tile<16x64xf32, valid = ?x?>
  return %t : !tile.tile<16x64xf32, valid = ?x?>
}

// -----

func.func @load_extra_valid_size(%m: memref<128x256xf32>, %i: index) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.load' op needs one valid size for each '?' in '!tile.tile<16x64xf32>' (0), got 1}}
  %t = tile.load %m[%i, %i] valid [%i] : memref<128x256xf32> -> !tile.tile<16x64xf32>
  return %t : !tile.tile<16x64xf32>
}

// -----

func.func @load_unranked(%m: memref<*xf32>, %i: index) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.load' op operand #0 must be ranked tensor of any type values or memref of any type values, but got 'memref<*xf32>'}}
  %t = tile.load %m[%i, %i] : memref<*xf32> -> !tile.tile<16x64xf32>
  return %t : !tile.tile<16x64xf32>
}

// -----

func.func @load_vector(%m: vector<128x256xf32>, %i: index) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.load' op operand #0 must be ranked tensor of any type values or memref of any type values, but got 'vector<128x256xf32>'}}
  %t = tile.load %m[%i, %i] : vector<128x256xf32> -> !tile.tile<16x64xf32>
  return %t : !tile.tile<16x64xf32>
}

// -----

func.func @load_result_not_tile(%m: memref<128x256xf32>, %i: index) -> vector<16x64xf32> {
  // expected-error @+1 {{'tile.load' op result #0 must be tile, but got 'vector<16x64xf32>'}}
  %t = tile.load %m[%i, %i] : memref<128x256xf32> -> vector<16x64xf32>
  return %t : vector<16x64xf32>
}

// -----

// expected-note @+1 {{prior use here}}
func.func @load_i32_index(%m: memref<128x256xf32>, %i: i32) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{use of value '%i' expects different type than prior uses: 'index' vs 'i32'}}
  %t = tile.load %m[%i, %i] : memref<128x256xf32> -> !tile.tile<16x64xf32>
  return %t : !tile.tile<16x64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// tile.store
//===----------------------------------------------------------------------===//

func.func @store_rank1(%t: !tile.tile<16x64xf32>, %m: memref<64xf32>, %i: index) {
  // expected-error @+1 {{'tile.store' op needs a destination of rank 2 or more, got rank 1}}
  tile.store %t, %m[%i] : !tile.tile<16x64xf32>, memref<64xf32>
  return
}

// -----

func.func @store_index_count(%t: !tile.tile<16x64xf32>, %m: memref<2x128x256xf32>, %i: index) {
  // expected-error @+1 {{'tile.store' op needs 3 indices for a rank-3 destination, got 2}}
  tile.store %t, %m[%i, %i] : !tile.tile<16x64xf32>, memref<2x128x256xf32>
  return
}

// -----

func.func @store_element_type(%t: !tile.tile<16x64xf32>, %m: memref<128x256xbf16>, %i: index) {
  // expected-error @+1 {{'tile.store' op destination element type 'bf16' differs from the tile element type 'f32'}}
  tile.store %t, %m[%i, %i] : !tile.tile<16x64xf32>, memref<128x256xbf16>
  return
}

// -----

func.func @store_cols_exceed(%t: !tile.tile<16x64xf32>, %m: memref<128x32xf32>, %i: index) {
  // expected-error @+1 {{'tile.store' op tile extent 64 along dimension 1 exceeds the destination size 32}}
  tile.store %t, %m[%i, %i] : !tile.tile<16x64xf32>, memref<128x32xf32>
  return
}

// -----

func.func @store_tensor_without_result(%t: !tile.tile<16x64xf32>, %m: tensor<128x256xf32>, %i: index) {
  // expected-error @+1 {{'tile.store' op storing into a tensor must yield the updated tensor}}
  tile.store %t, %m[%i, %i] : !tile.tile<16x64xf32>, tensor<128x256xf32>
  return
}

// -----

func.func @store_memref_with_result(%t: !tile.tile<16x64xf32>, %m: memref<128x256xf32>, %i: index) -> tensor<128x256xf32> {
  // expected-error @+1 {{'tile.store' op storing into a memref has no result}}
  %r = tile.store %t, %m[%i, %i] : !tile.tile<16x64xf32>, memref<128x256xf32> -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// -----

func.func @store_result_type(%t: !tile.tile<16x64xf32>, %m: tensor<128x256xf32>, %i: index) -> tensor<?x256xf32> {
  // expected-error @+1 {{'tile.store' op result type 'tensor<?x256xf32>' differs from the destination type 'tensor<128x256xf32>'}}
  %r = tile.store %t, %m[%i, %i] : !tile.tile<16x64xf32>, tensor<128x256xf32> -> tensor<?x256xf32>
  return %r : tensor<?x256xf32>
}

// -----

func.func @store_value_not_tile(%t: vector<16x64xf32>, %m: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{'tile.store' op operand #0 must be tile, but got 'vector<16x64xf32>'}}
  "tile.store"(%t, %m, %i, %i) : (vector<16x64xf32>, memref<128x256xf32>, index, index) -> ()
  return
}

// -----

func.func @store_unranked(%t: !tile.tile<16x64xf32>, %m: memref<*xf32>, %i: index) {
  // expected-error @+1 {{'tile.store' op operand #1 must be ranked tensor of any type values or memref of any type values, but got 'memref<*xf32>'}}
  tile.store %t, %m[%i, %i] : !tile.tile<16x64xf32>, memref<*xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.gather
//===----------------------------------------------------------------------===//

func.func @gather_rank3(%m: memref<2x64x128xf16>, %r: !tile.tile<8x1xi32>, %c: index) -> !tile.tile<8x128xf16> {
  // expected-error @+1 {{'tile.gather' op gathers rows of a rank-2 source, got rank 3}}
  %g = tile.gather %m[%r, %c] : memref<2x64x128xf16>, !tile.tile<8x1xi32> -> !tile.tile<8x128xf16>
  return %g : !tile.tile<8x128xf16>
}

// -----

func.func @gather_indices_cols(%m: memref<?x128xf16>, %r: !tile.tile<8x2xi32>, %c: index) -> !tile.tile<8x128xf16> {
  // expected-error @+1 {{'tile.gather' op row indices must be an Rx1 tile, got '!tile.tile<8x2xi32>'}}
  %g = tile.gather %m[%r, %c] : memref<?x128xf16>, !tile.tile<8x2xi32> -> !tile.tile<8x128xf16>
  return %g : !tile.tile<8x128xf16>
}

// -----

func.func @gather_i16_indices(%m: memref<?x128xf16>, %r: !tile.tile<8x1xi16>, %c: index) -> !tile.tile<8x128xf16> {
  // expected-error @+1 {{'tile.gather' op row indices must be i32 or i64, got 'i16'}}
  %g = tile.gather %m[%r, %c] : memref<?x128xf16>, !tile.tile<8x1xi16> -> !tile.tile<8x128xf16>
  return %g : !tile.tile<8x128xf16>
}

// -----

func.func @gather_i1_indices(%m: memref<?x128xf16>, %r: !tile.tile<8x1xi1>, %c: index) -> !tile.tile<8x128xf16> {
  // expected-error @+1 {{'tile.gather' op row indices must be i32 or i64, got 'i1'}}
  %g = tile.gather %m[%r, %c] : memref<?x128xf16>, !tile.tile<8x1xi1> -> !tile.tile<8x128xf16>
  return %g : !tile.tile<8x128xf16>
}

// -----

func.func @gather_float_indices(%m: memref<?x128xf16>, %r: !tile.tile<8x1xf32>, %c: index) -> !tile.tile<8x128xf16> {
  // expected-error @+1 {{'tile.gather' op row indices must be i32 or i64, got 'f32'}}
  %g = tile.gather %m[%r, %c] : memref<?x128xf16>, !tile.tile<8x1xf32> -> !tile.tile<8x128xf16>
  return %g : !tile.tile<8x128xf16>
}

// -----

func.func @gather_row_count(%m: memref<?x128xf16>, %r: !tile.tile<8x1xi32>, %c: index) -> !tile.tile<16x128xf16> {
  // expected-error @+1 {{'tile.gather' op gathers 16 rows by 8 row indices}}
  %g = tile.gather %m[%r, %c] : memref<?x128xf16>, !tile.tile<8x1xi32> -> !tile.tile<16x128xf16>
  return %g : !tile.tile<16x128xf16>
}

// -----

func.func @gather_element_type(%m: tensor<?x128xf32>, %r: !tile.tile<8x1xi64>, %c: index) -> !tile.tile<8x128xf16> {
  // expected-error @+1 {{'tile.gather' op source element type 'f32' differs from the result's element type 'f16'}}
  %g = tile.gather %m[%r, %c] : tensor<?x128xf32>, !tile.tile<8x1xi64> -> !tile.tile<8x128xf16>
  return %g : !tile.tile<8x128xf16>
}

// -----

func.func @gather_cols_exceed(%m: memref<?x128xf16>, %r: !tile.tile<8x1xi32>, %c: index) -> !tile.tile<8x256xf16> {
  // expected-error @+1 {{'tile.gather' op gathers 256 columns from a source with 128}}
  %g = tile.gather %m[%r, %c] : memref<?x128xf16>, !tile.tile<8x1xi32> -> !tile.tile<8x256xf16>
  return %g : !tile.tile<8x256xf16>
}

// -----

func.func @gather_column_not_index(%m: memref<?x128xf16>, %r: !tile.tile<8x1xi32>, %c: i64) -> !tile.tile<8x128xf16> {
  // expected-error @+1 {{'tile.gather' op operand #2 must be index, but got 'i64'}}
  %g = "tile.gather"(%m, %r, %c) : (memref<?x128xf16>, !tile.tile<8x1xi32>, i64) -> !tile.tile<8x128xf16>
  return %g : !tile.tile<8x128xf16>
}

// -----

//===----------------------------------------------------------------------===//
// tile.scatter
//===----------------------------------------------------------------------===//

func.func @scatter_rank3(%m: memref<2x64x128xf16>, %t: !tile.tile<8x128xf16>, %r: !tile.tile<8x1xi32>, %c: index) {
  // expected-error @+1 {{'tile.scatter' op scatters rows into a rank-2 destination, got rank 3}}
  tile.scatter %t, %m[%r, %c] : !tile.tile<8x128xf16>, memref<2x64x128xf16>, !tile.tile<8x1xi32>
  return
}

// -----

func.func @scatter_into_a_tensor(%m: tensor<64x128xf16>, %t: !tile.tile<8x128xf16>, %r: !tile.tile<8x1xi32>, %c: index) {
  // expected-error @+1 {{'tile.scatter' op operand #1 must be memref of any type values, but got 'tensor<64x128xf16>'}}
  "tile.scatter"(%t, %m, %r, %c) : (!tile.tile<8x128xf16>, tensor<64x128xf16>, !tile.tile<8x1xi32>, index) -> ()
  return
}

// -----

func.func @scatter_indices_cols(%m: memref<?x128xf16>, %t: !tile.tile<8x128xf16>, %r: !tile.tile<8x2xi32>, %c: index) {
  // expected-error @+1 {{'tile.scatter' op row indices must be an Rx1 tile, got '!tile.tile<8x2xi32>'}}
  tile.scatter %t, %m[%r, %c] : !tile.tile<8x128xf16>, memref<?x128xf16>, !tile.tile<8x2xi32>
  return
}

// -----

func.func @scatter_i16_indices(%m: memref<?x128xf16>, %t: !tile.tile<8x128xf16>, %r: !tile.tile<8x1xi16>, %c: index) {
  // expected-error @+1 {{'tile.scatter' op row indices must be i32 or i64, got 'i16'}}
  tile.scatter %t, %m[%r, %c] : !tile.tile<8x128xf16>, memref<?x128xf16>, !tile.tile<8x1xi16>
  return
}

// -----

func.func @scatter_row_count(%m: memref<?x128xf16>, %t: !tile.tile<16x128xf16>, %r: !tile.tile<8x1xi32>, %c: index) {
  // expected-error @+1 {{'tile.scatter' op scatters 16 rows by 8 row indices}}
  tile.scatter %t, %m[%r, %c] : !tile.tile<16x128xf16>, memref<?x128xf16>, !tile.tile<8x1xi32>
  return
}

// -----

func.func @scatter_element_type(%m: memref<?x128xf32>, %t: !tile.tile<8x128xf16>, %r: !tile.tile<8x1xi64>, %c: index) {
  // expected-error @+1 {{'tile.scatter' op destination element type 'f32' differs from the value's element type 'f16'}}
  tile.scatter %t, %m[%r, %c] : !tile.tile<8x128xf16>, memref<?x128xf32>, !tile.tile<8x1xi64>
  return
}

// -----

func.func @scatter_cols_exceed(%m: memref<?x128xf16>, %t: !tile.tile<8x256xf16>, %r: !tile.tile<8x1xi32>, %c: index) {
  // expected-error @+1 {{'tile.scatter' op scatters 256 columns into a destination with 128}}
  tile.scatter %t, %m[%r, %c] : !tile.tile<8x256xf16>, memref<?x128xf16>, !tile.tile<8x1xi32>
  return
}

// -----

func.func @scatter_valid_rows(%m: memref<?x128xf16>, %t: !tile.tile<8x128xf16>, %r: !tile.tile<8x1xi32, valid = ?x1>, %c: index) {
  // expected-error @+1 {{'tile.scatter' op value valid rows 8 differ from the index tile's ?}}
  tile.scatter %t, %m[%r, %c] : !tile.tile<8x128xf16>, memref<?x128xf16>, !tile.tile<8x1xi32, valid = ?x1>
  return
}

// -----

//===----------------------------------------------------------------------===//
// tile.constant (ConstantOp::parse / ConstantOp::verify)
//===----------------------------------------------------------------------===//

func.func @constant_scalar_type() -> f32 {
  // expected-error @+1 {{custom op 'tile.constant' expected a tile type, got 'f32'}}
  %c = tile.constant 1.0 : f32
  return %c : f32
}

// -----

func.func @constant_float_into_int() -> !tile.tile<4x4xi32> {
  // expected-error @+1 {{custom op 'tile.constant' a float value cannot initialize 'i32' elements}}
  %c = tile.constant 1.5 : !tile.tile<4x4xi32>
  return %c : !tile.tile<4x4xi32>
}

// -----

func.func @constant_nan_into_int() -> !tile.tile<4x4xi8> {
  // expected-error @+1 {{custom op 'tile.constant' a float value cannot initialize 'i8' elements}}
  %c = tile.constant nan : !tile.tile<4x4xi8>
  return %c : !tile.tile<4x4xi8>
}

// -----

func.func @constant_inf_into_bool() -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{custom op 'tile.constant' a float value cannot initialize 'i1' elements}}
  %c = tile.constant -inf : !tile.tile<4x4xi1>
  return %c : !tile.tile<4x4xi1>
}

// -----

func.func @constant_f16_overflow() -> !tile.tile<4x4xf16> {
  // expected-error @+1 {{custom op 'tile.constant' value overflows 'f16'}}
  %c = tile.constant 65520.0 : !tile.tile<4x4xf16>
  return %c : !tile.tile<4x4xf16>
}

// -----

// An integer literal converted to a float type can overflow too.
func.func @constant_f16_int_overflow() -> !tile.tile<4x4xf16> {
  // expected-error @+1 {{custom op 'tile.constant' value overflows 'f16'}}
  %c = tile.constant -70000 : !tile.tile<4x4xf16>
  return %c : !tile.tile<4x4xf16>
}

// -----

func.func @constant_f32_overflow() -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{custom op 'tile.constant' value overflows 'f32'}}
  %c = tile.constant 1.0e39 : !tile.tile<4x4xf32>
  return %c : !tile.tile<4x4xf32>
}

// -----

func.func @constant_bf16_overflow() -> !tile.tile<4x4xbf16> {
  // expected-error @+1 {{custom op 'tile.constant' value overflows 'bf16'}}
  %c = tile.constant 3.4e38 : !tile.tile<4x4xbf16>
  return %c : !tile.tile<4x4xbf16>
}

// -----

func.func @constant_i8_too_large() -> !tile.tile<4x4xi8> {
  // expected-error @+1 {{custom op 'tile.constant' value does not fit 'i8'}}
  %c = tile.constant 256 : !tile.tile<4x4xi8>
  return %c : !tile.tile<4x4xi8>
}

// -----

func.func @constant_i8_too_small() -> !tile.tile<4x4xi8> {
  // expected-error @+1 {{custom op 'tile.constant' value does not fit 'i8'}}
  %c = tile.constant -129 : !tile.tile<4x4xi8>
  return %c : !tile.tile<4x4xi8>
}

// -----

func.func @constant_i64_too_large() -> !tile.tile<4x4xi64> {
  // expected-error @+1 {{custom op 'tile.constant' value does not fit 'i64'}}
  %c = tile.constant 18446744073709551616 : !tile.tile<4x4xi64>
  return %c : !tile.tile<4x4xi64>
}

// -----

func.func @constant_i1_two() -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{custom op 'tile.constant' value does not fit 'i1'}}
  %c = tile.constant 2 : !tile.tile<4x4xi1>
  return %c : !tile.tile<4x4xi1>
}

// -----

// `-` applies to numbers and `inf` only.
func.func @constant_negative_nan() -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'-' must be followed by a number or inf}}
  %c = tile.constant -nan : !tile.tile<4x4xf32>
  return %c : !tile.tile<4x4xf32>
}

// -----

func.func @constant_bad_literal() -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{expected floating point literal}}
  %c = tile.constant one : !tile.tile<4x4xf32>
  return %c : !tile.tile<4x4xf32>
}

// -----

// The literal is untyped: the element type comes from the tile type.
func.func @constant_typed_literal() -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{custom op 'tile.constant' expected a tile type, got 'f32'}}
  %c = tile.constant 1.0 : f32 : !tile.tile<4x4xf32>
  return %c : !tile.tile<4x4xf32>
}

// -----

func.func @constant_missing_type() -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{expected ':'}}
  %c = tile.constant 1.0
  return %c : !tile.tile<4x4xf32>
}

// -----

func.func @constant_attr_type_mismatch() -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.constant' op value 1.000000e+00 : f64 must be a scalar of the element type 'f32'}}
  %c = "tile.constant"() <{value = 1.0 : f64}> : () -> !tile.tile<4x4xf32>
  return %c : !tile.tile<4x4xf32>
}

// -----

func.func @constant_int_attr_for_float() -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.constant' op value 1 : i32 must be a scalar of the element type 'f32'}}
  %c = "tile.constant"() <{value = 1 : i32}> : () -> !tile.tile<4x4xf32>
  return %c : !tile.tile<4x4xf32>
}

// -----

func.func @constant_dense_attr() -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.constant' op value dense<1.000000e+00> : tensor<4x4xf32> must be a scalar of the element type 'f32'}}
  %c = "tile.constant"() <{value = dense<1.0> : tensor<4x4xf32>}> : () -> !tile.tile<4x4xf32>
  return %c : !tile.tile<4x4xf32>
}

// -----

func.func @constant_untyped_attr() -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{invalid properties {value = [1.000000e+00]} for op tile.constant: Invalid attribute `value` in property conversion: [1.000000e+00]}}
  %c = "tile.constant"() <{value = [1.0]}> : () -> !tile.tile<4x4xf32>
  return %c : !tile.tile<4x4xf32>
}

// -----

func.func @constant_missing_attr() -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.constant' op requires attribute 'value'}}
  %c = "tile.constant"() : () -> !tile.tile<4x4xf32>
  return %c : !tile.tile<4x4xf32>
}

// -----

func.func @constant_result_not_tile() -> f32 {
  // expected-error @+1 {{'tile.constant' op result #0 must be tile, but got 'f32'}}
  %c = "tile.constant"() <{value = 1.0 : f32}> : () -> f32
  return %c : f32
}

// -----

//===----------------------------------------------------------------------===//
// tile.fill / tile.iota
//===----------------------------------------------------------------------===//

func.func @fill_type_mismatch(%x: f16) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.fill' op failed to verify that the value has the tile's element type}}
  %t = "tile.fill"(%x) : (f16) -> !tile.tile<4x4xf32>
  return %t : !tile.tile<4x4xf32>
}

// -----

// In the custom form the scalar's type is implied by the tile type.
// expected-note @+1 {{prior use here}}
func.func @fill_type_mismatch_custom(%x: f16) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{use of value '%x' expects different type than prior uses: 'f32' vs 'f16'}}
  %t = tile.fill %x : !tile.tile<4x4xf32>
  return %t : !tile.tile<4x4xf32>
}

// -----

func.func @fill_f64(%x: f64) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.fill' op operand #0 must be 32-bit float or 16-bit float or bfloat16 type or 64-bit signless integer or 32-bit signless integer or 16-bit signless integer or 8-bit signless integer or 1-bit signless integer, but got 'f64'}}
  %t = "tile.fill"(%x) : (f64) -> !tile.tile<4x4xf32>
  return %t : !tile.tile<4x4xf32>
}

// -----

func.func @fill_result_not_tile(%x: f32) -> tensor<4x4xf32> {
  // expected-error @+1 {{'tile.fill' op result #0 must be tile, but got 'tensor<4x4xf32>'}}
  %t = "tile.fill"(%x) : (f32) -> tensor<4x4xf32>
  return %t : tensor<4x4xf32>
}

// -----

func.func @iota_dimension_2() -> !tile.tile<16x64xi32> {
  // expected-error @+1 {{'tile.iota' op dimension must be 0 (rows) or 1 (columns), got 2}}
  %t = tile.iota 2 : !tile.tile<16x64xi32>
  return %t : !tile.tile<16x64xi32>
}

// -----

func.func @iota_negative_dimension() -> !tile.tile<16x64xi32> {
  // expected-error @+1 {{'tile.iota' op attribute 'dimension' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0}}
  %t = tile.iota -1 : !tile.tile<16x64xi32>
  return %t : !tile.tile<16x64xi32>
}

// -----

func.func @iota_i1() -> !tile.tile<16x64xi1> {
  // expected-error @+1 {{'tile.iota' op needs numeric elements, got i1}}
  %t = tile.iota 0 : !tile.tile<16x64xi1>
  return %t : !tile.tile<16x64xi1>
}

// -----

// Column indices 0..199 do not fit in i8 (at most 127).
func.func @iota_i8_cols_overflow() -> !tile.tile<4x200xi8> {
  // expected-error @+1 {{'tile.iota' op index 199 does not fit in 'i8'}}
  %t = tile.iota 1 : !tile.tile<4x200xi8>
  return %t : !tile.tile<4x200xi8>
}

// -----

// Row indices 0..128: one past the largest i8.
func.func @iota_i8_rows_overflow() -> !tile.tile<129x4xi8> {
  // expected-error @+1 {{'tile.iota' op index 128 does not fit in 'i8'}}
  %t = tile.iota 0 : !tile.tile<129x4xi8>
  return %t : !tile.tile<129x4xi8>
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

func.func @add_i1(%a: !tile.tile<4x4xi1>) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.add' op needs numeric elements, got i1 (use tile.select)}}
  %r = tile.add %a, %a : !tile.tile<4x4xi1>
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @max_i1_scalar(%a: !tile.tile<4x4xi1>, %s: i1) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.max' op needs numeric elements, got i1 (use tile.select)}}
  %r = tile.max %a, %s : !tile.tile<4x4xi1>, i1
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @sub_i1(%a: !tile.tile<4x4xi1>) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.sub' op needs numeric elements, got i1 (use tile.select)}}
  %r = tile.sub %a, %a : !tile.tile<4x4xi1>
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @mul_i1(%a: !tile.tile<4x4xi1>) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.mul' op needs numeric elements, got i1 (use tile.select)}}
  %r = tile.mul %a, %a : !tile.tile<4x4xi1>
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @div_i1(%a: !tile.tile<4x4xi1>) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.div' op needs numeric elements, got i1 (use tile.select)}}
  %r = tile.div %a, %a : !tile.tile<4x4xi1>
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @min_i1(%a: !tile.tile<4x4xi1>) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.min' op needs numeric elements, got i1 (use tile.select)}}
  %r = tile.min %a, %a : !tile.tile<4x4xi1>
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @sub_shape_mismatch(%a: !tile.tile<4x4xf32>, %b: !tile.tile<8x4xf32>) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.sub' op operand types differ: '!tile.tile<4x4xf32>' and '!tile.tile<8x4xf32>'}}
  %r = tile.sub %a, %b : !tile.tile<4x4xf32>, !tile.tile<8x4xf32>
  return %r : !tile.tile<4x4xf32>
}

// -----

func.func @mul_element_mismatch(%a: !tile.tile<4x4xf32>, %b: !tile.tile<4x4xf16>) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.mul' op operand types differ: '!tile.tile<4x4xf32>' and '!tile.tile<4x4xf16>'}}
  %r = tile.mul %a, %b : !tile.tile<4x4xf32>, !tile.tile<4x4xf16>
  return %r : !tile.tile<4x4xf32>
}

// -----

func.func @div_valid_mismatch(%a: !tile.tile<4x4xf32>, %b: !tile.tile<4x4xf32, valid = 2x4>) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.div' op operand types differ: '!tile.tile<4x4xf32>' and '!tile.tile<4x4xf32, valid = 2x4>'}}
  %r = tile.div %a, %b : !tile.tile<4x4xf32>, !tile.tile<4x4xf32, valid = 2x4>
  return %r : !tile.tile<4x4xf32>
}

// -----

func.func @min_scalar_type(%a: !tile.tile<4x4xf32>, %s: f16) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.min' op scalar operand type 'f16' differs from the tile element type 'f32'}}
  %r = tile.min %a, %s : !tile.tile<4x4xf32>, f16
  return %r : !tile.tile<4x4xf32>
}

// -----

func.func @add_scalar_int_width(%a: !tile.tile<4x4xi32>, %s: i64) -> !tile.tile<4x4xi32> {
  // expected-error @+1 {{'tile.add' op scalar operand type 'i64' differs from the tile element type 'i32'}}
  %r = tile.add %a, %s : !tile.tile<4x4xi32>, i64
  return %r : !tile.tile<4x4xi32>
}

// -----

func.func @add_scalar_f64(%a: !tile.tile<4x4xf32>, %s: f64) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.add' op operand #1 must be tile or 32-bit float or 16-bit float or bfloat16 type or 64-bit signless integer or 32-bit signless integer or 16-bit signless integer or 8-bit signless integer or 1-bit signless integer, but got 'f64'}}
  %r = tile.add %a, %s : !tile.tile<4x4xf32>, f64
  return %r : !tile.tile<4x4xf32>
}

// -----

func.func @add_scalar_index(%a: !tile.tile<4x4xi64>, %s: index) -> !tile.tile<4x4xi64> {
  // expected-error @+1 {{'tile.add' op operand #1 must be tile or 32-bit float or 16-bit float or bfloat16 type or 64-bit signless integer or 32-bit signless integer or 16-bit signless integer or 8-bit signless integer or 1-bit signless integer, but got 'index'}}
  %r = tile.add %a, %s : !tile.tile<4x4xi64>, index
  return %r : !tile.tile<4x4xi64>
}

// -----

func.func @add_lhs_scalar(%a: !tile.tile<4x4xf32>, %s: f32) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.add' op operand #0 must be tile, but got 'f32'}}
  %r = "tile.add"(%s, %a) : (f32, !tile.tile<4x4xf32>) -> !tile.tile<4x4xf32>
  return %r : !tile.tile<4x4xf32>
}

// -----

func.func @add_result_mismatch(%a: !tile.tile<4x4xf32>) -> !tile.tile<4x4xf16> {
  // expected-error @+1 {{'tile.add' op failed to verify that all of {lhs, result} have same type}}
  %r = "tile.add"(%a, %a) : (!tile.tile<4x4xf32>, !tile.tile<4x4xf32>) -> !tile.tile<4x4xf16>
  return %r : !tile.tile<4x4xf16>
}

// -----

// Without `, type` the rhs is taken to have the lhs type.
// expected-note @+1 {{prior use here}}
func.func @add_implied_rhs_type(%a: !tile.tile<4x4xf32>, %b: !tile.tile<4x4xf16>) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{use of value '%b' expects different type than prior uses: '!tile.tile<4x4xf32>' vs '!tile.tile<4x4xf16>'}}
  %r = tile.add %a, %b : !tile.tile<4x4xf32>
  return %r : !tile.tile<4x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

func.func @exp_int(%a: !tile.tile<4x4xi32>) -> !tile.tile<4x4xi32> {
  // expected-error @+1 {{'tile.exp' op needs floating-point elements, got 'i32'}}
  %r = tile.exp %a : !tile.tile<4x4xi32>
  return %r : !tile.tile<4x4xi32>
}

// -----

func.func @log_i1(%a: !tile.tile<4x4xi1>) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.log' op needs floating-point elements, got 'i1'}}
  %r = tile.log %a : !tile.tile<4x4xi1>
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @sqrt_int(%a: !tile.tile<4x4xi8>) -> !tile.tile<4x4xi8> {
  // expected-error @+1 {{'tile.sqrt' op needs floating-point elements, got 'i8'}}
  %r = tile.sqrt %a : !tile.tile<4x4xi8>
  return %r : !tile.tile<4x4xi8>
}

// -----

func.func @rsqrt_int(%a: !tile.tile<4x4xi16>) -> !tile.tile<4x4xi16> {
  // expected-error @+1 {{'tile.rsqrt' op needs floating-point elements, got 'i16'}}
  %r = tile.rsqrt %a : !tile.tile<4x4xi16>
  return %r : !tile.tile<4x4xi16>
}

// -----

func.func @recip_int(%a: !tile.tile<4x4xi64>) -> !tile.tile<4x4xi64> {
  // expected-error @+1 {{'tile.recip' op needs floating-point elements, got 'i64'}}
  %r = tile.recip %a : !tile.tile<4x4xi64>
  return %r : !tile.tile<4x4xi64>
}

// -----

func.func @abs_i1(%a: !tile.tile<4x4xi1>) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.abs' op needs numeric elements, got i1}}
  %r = tile.abs %a : !tile.tile<4x4xi1>
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @neg_i1(%a: !tile.tile<4x4xi1>) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.neg' op needs numeric elements, got i1}}
  %r = tile.neg %a : !tile.tile<4x4xi1>
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @relu_i1(%a: !tile.tile<4x4xi1>) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.relu' op needs numeric elements, got i1}}
  %r = tile.relu %a : !tile.tile<4x4xi1>
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @exp_result_mismatch(%a: !tile.tile<4x4xf32>) -> !tile.tile<4x4xf16> {
  // expected-error @+1 {{'tile.exp' op requires the same type for all operands and results}}
  %r = "tile.exp"(%a) : (!tile.tile<4x4xf32>) -> !tile.tile<4x4xf16>
  return %r : !tile.tile<4x4xf16>
}

// -----

func.func @neg_scalar(%a: f32) -> f32 {
  // expected-error @+1 {{'tile.neg' op operand #0 must be tile, but got 'f32'}}
  %r = "tile.neg"(%a) : (f32) -> f32
  return %r : f32
}

// -----

//===----------------------------------------------------------------------===//
// tile.row_reduce / tile.col_reduce / tile.broadcast
//===----------------------------------------------------------------------===//

func.func @row_reduce_kind(%a: !tile.tile<16x64xf32>) -> !tile.tile<16x1xf32> {
  // expected-error @+1 {{custom op 'tile.row_reduce' expected string or keyword containing one of the following enum values for attribute 'kind' [sum, max, min]}}
  %r = tile.row_reduce avg %a : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
  return %r : !tile.tile<16x1xf32>
}

// -----

func.func @row_reduce_i1(%a: !tile.tile<16x64xi1>) -> !tile.tile<16x1xi1> {
  // expected-error @+1 {{'tile.row_reduce' op needs numeric elements, got i1}}
  %r = tile.row_reduce max %a : !tile.tile<16x64xi1> -> !tile.tile<16x1xi1>
  return %r : !tile.tile<16x1xi1>
}

// -----

func.func @row_reduce_shape(%a: !tile.tile<16x64xf32>) -> !tile.tile<1x64xf32> {
  // expected-error @+1 {{'tile.row_reduce' op result type must be '!tile.tile<16x1xf32>', got '!tile.tile<1x64xf32>'}}
  %r = tile.row_reduce sum %a : !tile.tile<16x64xf32> -> !tile.tile<1x64xf32>
  return %r : !tile.tile<1x64xf32>
}

// -----

func.func @row_reduce_element(%a: !tile.tile<16x64xf16>) -> !tile.tile<16x1xf32> {
  // expected-error @+1 {{'tile.row_reduce' op result type must be '!tile.tile<16x1xf16>', got '!tile.tile<16x1xf32>'}}
  %r = tile.row_reduce sum %a : !tile.tile<16x64xf16> -> !tile.tile<16x1xf32>
  return %r : !tile.tile<16x1xf32>
}

// -----

// The valid rows carry over to the result.
func.func @row_reduce_drops_valid(%a: !tile.tile<16x64xf32, valid = ?x32>) -> !tile.tile<16x1xf32> {
  // expected-error @+1 {{'tile.row_reduce' op result type must be '!tile.tile<16x1xf32, valid = ?x1>', got '!tile.tile<16x1xf32>'}}
  %r = tile.row_reduce min %a : !tile.tile<16x64xf32, valid = ?x32> -> !tile.tile<16x1xf32>
  return %r : !tile.tile<16x1xf32>
}

// -----

func.func @col_reduce_i1(%a: !tile.tile<16x64xi1>) -> !tile.tile<1x64xi1> {
  // expected-error @+1 {{'tile.col_reduce' op needs numeric elements, got i1}}
  %r = tile.col_reduce min %a : !tile.tile<16x64xi1> -> !tile.tile<1x64xi1>
  return %r : !tile.tile<1x64xi1>
}

// -----

func.func @col_reduce_shape(%a: !tile.tile<16x64xf32>) -> !tile.tile<16x1xf32> {
  // expected-error @+1 {{'tile.col_reduce' op result type must be '!tile.tile<1x64xf32>', got '!tile.tile<16x1xf32>'}}
  %r = tile.col_reduce max %a : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
  return %r : !tile.tile<16x1xf32>
}

// -----

func.func @col_reduce_valid(%a: !tile.tile<16x64xf32, valid = 8x32>) -> !tile.tile<1x64xf32, valid = 1x8> {
  // expected-error @+1 {{'tile.col_reduce' op result type must be '!tile.tile<1x64xf32, valid = 1x32>', got '!tile.tile<1x64xf32, valid = 1x8>'}}
  %r = tile.col_reduce sum %a : !tile.tile<16x64xf32, valid = 8x32> -> !tile.tile<1x64xf32, valid = 1x8>
  return %r : !tile.tile<1x64xf32, valid = 1x8>
}

// -----

//===----------------------------------------------------------------------===//
// tile.row_arg_reduce / tile.sort / tile.take
//===----------------------------------------------------------------------===//

func.func @row_arg_reduce_sum(%a: !tile.tile<16x64xf32>) -> !tile.tile<16x1xi32> {
  // expected-error @+1 {{'tile.row_arg_reduce' op finds the column of a row's max or min; a sum has none}}
  %r = tile.row_arg_reduce sum %a : !tile.tile<16x64xf32> -> !tile.tile<16x1xi32>
  return %r : !tile.tile<16x1xi32>
}

// -----

func.func @row_arg_reduce_i1(%a: !tile.tile<16x64xi1>) -> !tile.tile<16x1xi32> {
  // expected-error @+1 {{'tile.row_arg_reduce' op needs numeric elements, got i1}}
  %r = tile.row_arg_reduce max %a : !tile.tile<16x64xi1> -> !tile.tile<16x1xi32>
  return %r : !tile.tile<16x1xi32>
}

// -----

func.func @row_arg_reduce_element(%a: !tile.tile<16x64xf32>) -> !tile.tile<16x1xf32> {
  // expected-error @+1 {{'tile.row_arg_reduce' op result type must be '!tile.tile<16x1xi32>', got '!tile.tile<16x1xf32>'}}
  %r = tile.row_arg_reduce max %a : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
  return %r : !tile.tile<16x1xf32>
}

// -----

// The valid rows carry over to the indices.
func.func @row_arg_reduce_valid(%a: !tile.tile<16x64xf32, valid = ?x64>) -> !tile.tile<16x1xi32> {
  // expected-error @+1 {{'tile.row_arg_reduce' op result type must be '!tile.tile<16x1xi32, valid = ?x1>', got '!tile.tile<16x1xi32>'}}
  %r = tile.row_arg_reduce min %a : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x1xi32>
  return %r : !tile.tile<16x1xi32>
}

// -----

func.func @sort_i1(%a: !tile.tile<16x64xi1>) -> (!tile.tile<16x64xi1>, !tile.tile<16x64xi32>) {
  // expected-error @+1 {{'tile.sort' op needs numeric elements, got i1}}
  %v, %i = tile.sort %a : !tile.tile<16x64xi1> -> !tile.tile<16x64xi1>, !tile.tile<16x64xi32>
  return %v, %i : !tile.tile<16x64xi1>, !tile.tile<16x64xi32>
}

// -----

func.func @sort_ragged_columns(%a: !tile.tile<16x64xf32, valid = 16x?>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xi32>) {
  // expected-error @+1 {{'tile.sort' op sorts whole rows: every column of '!tile.tile<16x64xf32, valid = 16x?>' must be valid}}
  %v, %i = tile.sort %a : !tile.tile<16x64xf32, valid = 16x?> -> !tile.tile<16x64xf32>, !tile.tile<16x64xi32>
  return %v, %i : !tile.tile<16x64xf32>, !tile.tile<16x64xi32>
}

// -----

func.func @sort_keeps_too_many(%a: !tile.tile<16x8xf32>) -> (!tile.tile<16x16xf32>, !tile.tile<16x16xi32>) {
  // expected-error @+1 {{'tile.sort' op keeps 16 elements of rows of 8 (1 to 8)}}
  %v, %i = tile.sort %a : !tile.tile<16x8xf32> -> !tile.tile<16x16xf32>, !tile.tile<16x16xi32>
  return %v, %i : !tile.tile<16x16xf32>, !tile.tile<16x16xi32>
}

// -----

func.func @sort_values(%a: !tile.tile<16x64xf32, valid = ?x64>) -> (!tile.tile<16x8xf32>, !tile.tile<16x8xi32, valid = ?x8>) {
  // expected-error @+1 {{'tile.sort' op values must be '!tile.tile<16x8xf32, valid = ?x8>', got '!tile.tile<16x8xf32>'}}
  %v, %i = tile.sort %a descending : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x8xf32>, !tile.tile<16x8xi32, valid = ?x8>
  return %v, %i : !tile.tile<16x8xf32>, !tile.tile<16x8xi32, valid = ?x8>
}

// -----

func.func @sort_indices(%a: !tile.tile<16x64xf32>) -> (!tile.tile<16x8xf32>, !tile.tile<16x8xi64>) {
  // expected-error @+1 {{'tile.sort' op indices must be '!tile.tile<16x8xi32>', got '!tile.tile<16x8xi64>'}}
  %v, %i = tile.sort %a descending : !tile.tile<16x64xf32> -> !tile.tile<16x8xf32>, !tile.tile<16x8xi64>
  return %v, %i : !tile.tile<16x8xf32>, !tile.tile<16x8xi64>
}

// -----

func.func @take_index_type(%a: !tile.tile<16x64xf32>, %i: !tile.tile<16x8xi16>) -> !tile.tile<16x8xf32> {
  // expected-error @+1 {{'tile.take' op column indices must be i32 or i64, got 'i16'}}
  %r = tile.take %a[%i] : !tile.tile<16x64xf32>, !tile.tile<16x8xi16> -> !tile.tile<16x8xf32>
  return %r : !tile.tile<16x8xf32>
}

// -----

func.func @take_rows(%a: !tile.tile<16x64xf32>, %i: !tile.tile<8x8xi32>) -> !tile.tile<8x8xf32> {
  // expected-error @+1 {{'tile.take' op takes from 16 rows by indices of 8}}
  %r = tile.take %a[%i] : !tile.tile<16x64xf32>, !tile.tile<8x8xi32> -> !tile.tile<8x8xf32>
  return %r : !tile.tile<8x8xf32>
}

// -----

func.func @take_valid_rows(%a: !tile.tile<16x64xf32, valid = ?x64>, %i: !tile.tile<16x8xi32>) -> !tile.tile<16x8xf32> {
  // expected-error @+1 {{'tile.take' op valid rows of the input (?) and of the indices (16) differ}}
  %r = tile.take %a[%i] : !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x8xi32> -> !tile.tile<16x8xf32>
  return %r : !tile.tile<16x8xf32>
}

// -----

func.func @take_result(%a: !tile.tile<16x64xf32>, %i: !tile.tile<16x8xi32>) -> !tile.tile<16x8xf16> {
  // expected-error @+1 {{'tile.take' op result type must be '!tile.tile<16x8xf32>', got '!tile.tile<16x8xf16>'}}
  %r = tile.take %a[%i] : !tile.tile<16x64xf32>, !tile.tile<16x8xi32> -> !tile.tile<16x8xf16>
  return %r : !tile.tile<16x8xf16>
}

// -----

func.func @broadcast_element(%a: !tile.tile<16x1xf32>) -> !tile.tile<16x64xf16> {
  // expected-error @+1 {{'tile.broadcast' op element type changes from 'f32' to 'f16'}}
  %r = tile.broadcast %a : !tile.tile<16x1xf32> -> !tile.tile<16x64xf16>
  return %r : !tile.tile<16x64xf16>
}

// -----

func.func @broadcast_rows_not_one(%a: !tile.tile<8x64xf32>) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.broadcast' op cannot broadcast dimension 0 from size 8 to 16 (only a size-1 dimension broadcasts)}}
  %r = tile.broadcast %a : !tile.tile<8x64xf32> -> !tile.tile<16x64xf32>
  return %r : !tile.tile<16x64xf32>
}

// -----

func.func @broadcast_cols_not_one(%a: !tile.tile<16x2xf32>) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.broadcast' op cannot broadcast dimension 1 from size 2 to 64 (only a size-1 dimension broadcasts)}}
  %r = tile.broadcast %a : !tile.tile<16x2xf32> -> !tile.tile<16x64xf32>
  return %r : !tile.tile<16x64xf32>
}

// -----

// Broadcast never shrinks a dimension.
func.func @broadcast_shrinks(%a: !tile.tile<16x64xf32>) -> !tile.tile<16x1xf32> {
  // expected-error @+1 {{'tile.broadcast' op cannot broadcast dimension 1 from size 64 to 1 (only a size-1 dimension broadcasts)}}
  %r = tile.broadcast %a : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
  return %r : !tile.tile<16x1xf32>
}

// -----

func.func @broadcast_drops_valid(%a: !tile.tile<16x1xf32, valid = ?x1>) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.broadcast' op valid size of unbroadcast dimension 0 changes from ? to 16}}
  %r = tile.broadcast %a : !tile.tile<16x1xf32, valid = ?x1> -> !tile.tile<16x64xf32>
  return %r : !tile.tile<16x64xf32>
}

// -----

func.func @broadcast_changes_valid(%a: !tile.tile<1x64xf32, valid = 1x32>) -> !tile.tile<16x64xf32, valid = 16x?> {
  // expected-error @+1 {{'tile.broadcast' op valid size of unbroadcast dimension 1 changes from 32 to ?}}
  %r = tile.broadcast %a : !tile.tile<1x64xf32, valid = 1x32> -> !tile.tile<16x64xf32, valid = 16x?>
  return %r : !tile.tile<16x64xf32, valid = 16x?>
}

// -----

//===----------------------------------------------------------------------===//
// tile.matmul
//===----------------------------------------------------------------------===//

func.func @matmul_contracting(%a: !tile.tile<64x32xf16>, %b: !tile.tile<16x128xf16>) -> !tile.tile<64x128xf32> {
  // expected-error @+1 {{'tile.matmul' op contracting sizes differ: lhs has 32 columns, rhs has 16 rows}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xf16>, !tile.tile<16x128xf16> -> !tile.tile<64x128xf32>
  return %r : !tile.tile<64x128xf32>
}

// -----

func.func @matmul_result_rows(%a: !tile.tile<64x32xf16>, %b: !tile.tile<32x128xf16>) -> !tile.tile<32x128xf32> {
  // expected-error @+1 {{'tile.matmul' op result must be 64x128, got 32x128}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<32x128xf32>
  return %r : !tile.tile<32x128xf32>
}

// -----

func.func @matmul_result_cols(%a: !tile.tile<64x32xf16>, %b: !tile.tile<32x128xf16>) -> !tile.tile<64x64xf32> {
  // expected-error @+1 {{'tile.matmul' op result must be 64x128, got 64x64}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x64xf32>
  return %r : !tile.tile<64x64xf32>
}

// -----

func.func @matmul_f16_to_bf16(%a: !tile.tile<64x32xf16>, %b: !tile.tile<32x128xf16>) -> !tile.tile<64x128xbf16> {
  // expected-error @+1 {{'tile.matmul' op unsupported element types 'f16' x 'f16' -> 'bf16' (supported: f16 x f16 -> f32|f16, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32)}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xbf16>
  return %r : !tile.tile<64x128xbf16>
}

// -----

func.func @matmul_mixed_inputs(%a: !tile.tile<64x32xf16>, %b: !tile.tile<32x128xbf16>) -> !tile.tile<64x128xf32> {
  // expected-error @+1 {{'tile.matmul' op unsupported element types 'f16' x 'bf16' -> 'f32' (supported: f16 x f16 -> f32|f16, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32)}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xf16>, !tile.tile<32x128xbf16> -> !tile.tile<64x128xf32>
  return %r : !tile.tile<64x128xf32>
}

// -----

func.func @matmul_bf16_to_bf16(%a: !tile.tile<64x32xbf16>, %b: !tile.tile<32x128xbf16>) -> !tile.tile<64x128xbf16> {
  // expected-error @+1 {{'tile.matmul' op unsupported element types 'bf16' x 'bf16' -> 'bf16' (supported: f16 x f16 -> f32|f16, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32)}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xbf16>, !tile.tile<32x128xbf16> -> !tile.tile<64x128xbf16>
  return %r : !tile.tile<64x128xbf16>
}

// -----

func.func @matmul_f32_to_f16(%a: !tile.tile<64x32xf32>, %b: !tile.tile<32x128xf32>) -> !tile.tile<64x128xf16> {
  // expected-error @+1 {{'tile.matmul' op unsupported element types 'f32' x 'f32' -> 'f16' (supported: f16 x f16 -> f32|f16, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32)}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xf32>, !tile.tile<32x128xf32> -> !tile.tile<64x128xf16>
  return %r : !tile.tile<64x128xf16>
}

// -----

func.func @matmul_i8_to_i8(%a: !tile.tile<64x32xi8>, %b: !tile.tile<32x128xi8>) -> !tile.tile<64x128xi8> {
  // expected-error @+1 {{'tile.matmul' op unsupported element types 'i8' x 'i8' -> 'i8' (supported: f16 x f16 -> f32|f16, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32)}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xi8>, !tile.tile<32x128xi8> -> !tile.tile<64x128xi8>
  return %r : !tile.tile<64x128xi8>
}

// -----

func.func @matmul_i32(%a: !tile.tile<64x32xi32>, %b: !tile.tile<32x128xi32>) -> !tile.tile<64x128xi32> {
  // expected-error @+1 {{'tile.matmul' op unsupported element types 'i32' x 'i32' -> 'i32' (supported: f16 x f16 -> f32|f16, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32)}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xi32>, !tile.tile<32x128xi32> -> !tile.tile<64x128xi32>
  return %r : !tile.tile<64x128xi32>
}

// -----

func.func @matmul_i1(%a: !tile.tile<64x32xi1>, %b: !tile.tile<32x128xi1>) -> !tile.tile<64x128xi32> {
  // expected-error @+1 {{'tile.matmul' op unsupported element types 'i1' x 'i1' -> 'i32' (supported: f16 x f16 -> f32|f16, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32)}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xi1>, !tile.tile<32x128xi1> -> !tile.tile<64x128xi32>
  return %r : !tile.tile<64x128xi32>
}

// -----

func.func @matmul_valid_contracting(%a: !tile.tile<64x32xf16, valid = 64x?>, %b: !tile.tile<32x128xf16>) -> !tile.tile<64x128xf32> {
  // expected-error @+1 {{'tile.matmul' op valid contracting sizes differ: lhs ?, rhs 32}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xf16, valid = 64x?>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf32>
  return %r : !tile.tile<64x128xf32>
}

// -----

func.func @matmul_valid_result(%a: !tile.tile<64x32xf16, valid = ?x32>, %b: !tile.tile<32x128xf16>) -> !tile.tile<64x128xf32> {
  // expected-error @+1 {{'tile.matmul' op result valid region must be ?x128}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xf16, valid = ?x32>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf32>
  return %r : !tile.tile<64x128xf32>
}

// -----

func.func @matmul_valid_result_cols(%a: !tile.tile<64x32xf16>, %b: !tile.tile<32x128xf16, valid = 32x100>) -> !tile.tile<64x128xf32, valid = 64x?> {
  // expected-error @+1 {{'tile.matmul' op result valid region must be 64x100}}
  %r = tile.matmul %a, %b : !tile.tile<64x32xf16>, !tile.tile<32x128xf16, valid = 32x100> -> !tile.tile<64x128xf32, valid = 64x?>
  return %r : !tile.tile<64x128xf32, valid = 64x?>
}

// -----

func.func @matmul_acc_type(%a: !tile.tile<64x32xf16>, %b: !tile.tile<32x128xf16>, %c: !tile.tile<64x128xf16>) -> !tile.tile<64x128xf32> {
  // expected-error @+1 {{'tile.matmul' op failed to verify that the accumulator has the result type}}
  %r = "tile.matmul"(%a, %b, %c) : (!tile.tile<64x32xf16>, !tile.tile<32x128xf16>, !tile.tile<64x128xf16>) -> !tile.tile<64x128xf32>
  return %r : !tile.tile<64x128xf32>
}

// -----

func.func @matmul_rhs_not_tile(%a: !tile.tile<64x32xf16>, %b: tensor<32x128xf16>) -> !tile.tile<64x128xf32> {
  // expected-error @+1 {{'tile.matmul' op operand #1 must be tile, but got 'tensor<32x128xf16>'}}
  %r = "tile.matmul"(%a, %b) : (!tile.tile<64x32xf16>, tensor<32x128xf16>) -> !tile.tile<64x128xf32>
  return %r : !tile.tile<64x128xf32>
}

// -----

// In the custom form the accumulator's type is implied by the result type.
// expected-note @+1 {{prior use here}}
func.func @matmul_acc_type_custom(%a: !tile.tile<64x32xf16>, %b: !tile.tile<32x128xf16>, %c: !tile.tile<64x128xf16>) -> !tile.tile<64x128xf32> {
  // expected-error @+1 {{use of value '%c' expects different type than prior uses: '!tile.tile<64x128xf32>' vs '!tile.tile<64x128xf16>'}}
  %r = tile.matmul %a, %b, %c : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf32>
  return %r : !tile.tile<64x128xf32>
}

// -----

//===----------------------------------------------------------------------===//
// tile.cast
//===----------------------------------------------------------------------===//

func.func @cast_shape(%a: !tile.tile<16x64xf32>) -> !tile.tile<64x16xf16> {
  // expected-error @+1 {{'tile.cast' op changes shape or valid region from '!tile.tile<16x64xf32>' to '!tile.tile<64x16xf16>'; only the element type may change}}
  %r = tile.cast %a : !tile.tile<16x64xf32> to !tile.tile<64x16xf16>
  return %r : !tile.tile<64x16xf16>
}

// -----

func.func @cast_valid(%a: !tile.tile<16x64xf32, valid = ?x64>) -> !tile.tile<16x64xf16> {
  // expected-error @+1 {{'tile.cast' op changes shape or valid region from '!tile.tile<16x64xf32, valid = ?x64>' to '!tile.tile<16x64xf16>'; only the element type may change}}
  %r = tile.cast %a : !tile.tile<16x64xf32, valid = ?x64> to !tile.tile<16x64xf16>
  return %r : !tile.tile<16x64xf16>
}

// -----

func.func @cast_result_not_tile(%a: !tile.tile<16x64xf32>) -> tensor<16x64xf16> {
  // expected-error @+1 {{'tile.cast' op result #0 must be tile, but got 'tensor<16x64xf16>'}}
  %r = tile.cast %a : !tile.tile<16x64xf32> to tensor<16x64xf16>
  return %r : tensor<16x64xf16>
}

// -----

//===----------------------------------------------------------------------===//
// tile.cmp / tile.select
//===----------------------------------------------------------------------===//

func.func @cmp_predicate(%a: !tile.tile<4x4xf32>) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{custom op 'tile.cmp' expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, lt, le, gt, ge]}}
  %r = tile.cmp olt, %a, %a : !tile.tile<4x4xf32>
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @cmp_tile_mismatch(%a: !tile.tile<4x4xf32>, %b: !tile.tile<4x4xi32>) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.cmp' op operand types differ: '!tile.tile<4x4xf32>' and '!tile.tile<4x4xi32>'}}
  %r = tile.cmp eq, %a, %b : !tile.tile<4x4xf32>, !tile.tile<4x4xi32>
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @cmp_scalar_mismatch(%a: !tile.tile<4x4xi32>, %s: i8) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.cmp' op scalar operand type 'i8' differs from the tile element type 'i32'}}
  %r = tile.cmp lt, %a, %s : !tile.tile<4x4xi32>, i8
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @cmp_scalar_f64(%a: !tile.tile<4x4xf32>, %s: f64) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'tile.cmp' op operand #1 must be tile or 32-bit float or 16-bit float or bfloat16 type or 64-bit signless integer or 32-bit signless integer or 16-bit signless integer or 8-bit signless integer or 1-bit signless integer, but got 'f64'}}
  %r = tile.cmp ge, %a, %s : !tile.tile<4x4xf32>, f64
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @cmp_result_not_mask(%a: !tile.tile<4x4xf32>) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.cmp' op result #0 must be tile of i1, but got '!tile.tile<4x4xf32>'}}
  %r = "tile.cmp"(%a, %a) <{predicate = 0 : i32}> : (!tile.tile<4x4xf32>, !tile.tile<4x4xf32>) -> !tile.tile<4x4xf32>
  return %r : !tile.tile<4x4xf32>
}

// -----

func.func @cmp_result_shape(%a: !tile.tile<4x4xf32>) -> !tile.tile<8x4xi1> {
  // expected-error @+1 {{'tile.cmp' op failed to verify that the result is an i1 tile shaped like lhs}}
  %r = "tile.cmp"(%a, %a) <{predicate = 0 : i32}> : (!tile.tile<4x4xf32>, !tile.tile<4x4xf32>) -> !tile.tile<8x4xi1>
  return %r : !tile.tile<8x4xi1>
}

// -----

func.func @cmp_predicate_out_of_range(%a: !tile.tile<4x4xf32>) -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{invalid properties {predicate = 6 : i32} for op tile.cmp: Invalid attribute `predicate` in property conversion: 6 : i32}}
  %r = "tile.cmp"(%a, %a) <{predicate = 6 : i32}> : (!tile.tile<4x4xf32>, !tile.tile<4x4xf32>) -> !tile.tile<4x4xi1>
  return %r : !tile.tile<4x4xi1>
}

// -----

func.func @select_mask_not_i1(%m: !tile.tile<4x4xi8>, %a: !tile.tile<4x4xf32>) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.select' op operand #0 must be tile of i1, but got '!tile.tile<4x4xi8>'}}
  %r = "tile.select"(%m, %a, %a) : (!tile.tile<4x4xi8>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>) -> !tile.tile<4x4xf32>
  return %r : !tile.tile<4x4xf32>
}

// -----

func.func @select_mask_shape(%m: !tile.tile<8x4xi1>, %a: !tile.tile<4x4xf32>) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.select' op failed to verify that the mask is an i1 tile shaped like the result}}
  %r = "tile.select"(%m, %a, %a) : (!tile.tile<8x4xi1>, !tile.tile<4x4xf32>, !tile.tile<4x4xf32>) -> !tile.tile<4x4xf32>
  return %r : !tile.tile<4x4xf32>
}

// -----

func.func @select_value_mismatch(%m: !tile.tile<4x4xi1>, %a: !tile.tile<4x4xf32>, %b: !tile.tile<4x4xf16>) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{'tile.select' op failed to verify that all of {trueValue, falseValue, result} have same type}}
  %r = "tile.select"(%m, %a, %b) : (!tile.tile<4x4xi1>, !tile.tile<4x4xf32>, !tile.tile<4x4xf16>) -> !tile.tile<4x4xf32>
  return %r : !tile.tile<4x4xf32>
}

// -----

// In the custom form all types are implied by the result type.
// expected-note @+1 {{prior use here}}
func.func @select_value_mismatch_custom(%m: !tile.tile<4x4xi1>, %a: !tile.tile<4x4xf32>, %b: !tile.tile<4x4xf16>) -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{use of value '%b' expects different type than prior uses: '!tile.tile<4x4xf32>' vs '!tile.tile<4x4xf16>'}}
  %r = tile.select %m, %a, %b : !tile.tile<4x4xf32>
  return %r : !tile.tile<4x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// tile.transpose
//===----------------------------------------------------------------------===//

func.func @transpose_shape(%a: !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.transpose' op result type must be '!tile.tile<64x16xf32>', got '!tile.tile<16x64xf32>'}}
  %r = tile.transpose %a : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32>
  return %r : !tile.tile<16x64xf32>
}

// -----

func.func @transpose_element(%a: !tile.tile<16x64xf32>) -> !tile.tile<64x16xf16> {
  // expected-error @+1 {{'tile.transpose' op result type must be '!tile.tile<64x16xf32>', got '!tile.tile<64x16xf16>'}}
  %r = tile.transpose %a : !tile.tile<16x64xf32> -> !tile.tile<64x16xf16>
  return %r : !tile.tile<64x16xf16>
}

// -----

// The valid region is transposed along with the shape.
func.func @transpose_valid(%a: !tile.tile<16x64xf32, valid = ?x32>) -> !tile.tile<64x16xf32, valid = ?x16> {
  // expected-error @+1 {{'tile.transpose' op result type must be '!tile.tile<64x16xf32, valid = 32x?>', got '!tile.tile<64x16xf32, valid = ?x16>'}}
  %r = tile.transpose %a : !tile.tile<16x64xf32, valid = ?x32> -> !tile.tile<64x16xf32, valid = ?x16>
  return %r : !tile.tile<64x16xf32, valid = ?x16>
}

// -----

func.func @transpose_drops_valid(%a: !tile.tile<16x64xf32, valid = 8x64>) -> !tile.tile<64x16xf32> {
  // expected-error @+1 {{'tile.transpose' op result type must be '!tile.tile<64x16xf32, valid = 64x8>', got '!tile.tile<64x16xf32>'}}
  %r = tile.transpose %a : !tile.tile<16x64xf32, valid = 8x64> -> !tile.tile<64x16xf32>
  return %r : !tile.tile<64x16xf32>
}

// -----

// A second sign is not a number.
func.func @constant_double_minus() -> !tile.tile<4x4xi32> {
  // expected-error @+1 {{'-' must be followed by a number or inf}}
  %c = tile.constant --5 : !tile.tile<4x4xi32>
  return %c : !tile.tile<4x4xi32>
}

// -----

func.func @constant_negative_true() -> !tile.tile<4x4xi1> {
  // expected-error @+1 {{'-' must be followed by a number or inf}}
  %c = tile.constant -true : !tile.tile<4x4xi1>
  return %c : !tile.tile<4x4xi1>
}

// -----

func.func @constant_bool_for_float() -> !tile.tile<4x4xf32> {
  // expected-error @+1 {{true and false initialize i1 elements only, not 'f32'}}
  %c = tile.constant true : !tile.tile<4x4xf32>
  return %c : !tile.tile<4x4xf32>
}

// -----

func.func @constant_wide_integer_overflows_f16() -> !tile.tile<4x4xf16> {
  // expected-error @+1 {{value overflows 'f16'}}
  %c = tile.constant 99999999999999999999999 : !tile.tile<4x4xf16>
  return %c : !tile.tile<4x4xf16>
}

// -----

// expected-error @+1 {{expected two valid sizes, e.g. `valid = ?x64`}}
func.func private @empty_valid_list(!tile.tile<16x64xf32, valid = >)

// -----

func.func @constant_dynamic_valid() -> !tile.tile<4x4xf32, valid = ?x4> {
  // expected-error @+1 {{'tile.constant' op result '!tile.tile<4x4xf32, valid = ?x4>' has '?' valid sizes but no operand gives them}}
  %c = tile.constant 1.0 : !tile.tile<4x4xf32, valid = ?x4>
  return %c : !tile.tile<4x4xf32, valid = ?x4>
}

// -----

func.func @fill_dynamic_valid(%x: f32) -> !tile.tile<4x4xf32, valid = 4x?> {
  // expected-error @+1 {{'tile.fill' op result '!tile.tile<4x4xf32, valid = 4x?>' has '?' valid sizes but no operand gives them}}
  %c = tile.fill %x : !tile.tile<4x4xf32, valid = 4x?>
  return %c : !tile.tile<4x4xf32, valid = 4x?>
}

// -----

func.func @iota_dynamic_valid() -> !tile.tile<4x4xi32, valid = ?x?> {
  // expected-error @+1 {{'tile.iota' op result '!tile.tile<4x4xi32, valid = ?x?>' has '?' valid sizes but no operand gives them}}
  %c = tile.iota 0 : !tile.tile<4x4xi32, valid = ?x?>
  return %c : !tile.tile<4x4xi32, valid = ?x?>
}

// -----

// f16 holds integers exactly only up to 2048.
func.func @iota_inexact_f16() -> !tile.tile<1x4096xf16> {
  // expected-error @+1 {{'tile.iota' op index 4095 is not exact in 'f16'}}
  %c = tile.iota 1 : !tile.tile<1x4096xf16>
  return %c : !tile.tile<1x4096xf16>
}

// -----

func.func @broadcast_dynamic_valid(%x: !tile.tile<16x1xf32>) -> !tile.tile<16x64xf32, valid = 16x?> {
  // expected-error @+1 {{'tile.broadcast' op valid size of broadcast dimension 1 cannot be '?': no operand gives it}}
  %b = tile.broadcast %x : !tile.tile<16x1xf32> -> !tile.tile<16x64xf32, valid = 16x?>
  return %b : !tile.tile<16x64xf32, valid = 16x?>
}

// -----

func.func @gather_valid_rows_differ(%m: memref<64x32xf32>, %i: !tile.tile<16x1xi32, valid = ?x1>, %c: index) -> !tile.tile<16x32xf32> {
  // expected-error @+1 {{'tile.gather' op result valid rows 16 differ from the index tile's ?}}
  %g = tile.gather %m[%i, %c] : memref<64x32xf32>, !tile.tile<16x1xi32, valid = ?x1> -> !tile.tile<16x32xf32>
  return %g : !tile.tile<16x32xf32>
}

// -----

func.func @gather_dynamic_valid_cols(%m: memref<64x32xf32>, %i: !tile.tile<16x1xi32>, %c: index) -> !tile.tile<16x32xf32, valid = 16x?> {
  // expected-error @+1 {{'tile.gather' op result valid columns cannot be '?': no operand gives them}}
  %g = tile.gather %m[%i, %c] : memref<64x32xf32>, !tile.tile<16x1xi32> -> !tile.tile<16x32xf32, valid = 16x?>
  return %g : !tile.tile<16x32xf32, valid = 16x?>
}

// -----

func.func @pad_keeps_a_valid_region(%t: !tile.tile<16x64xf32, valid = ?x64>, %z: f32) -> !tile.tile<16x64xf32, valid = 8x64> {
  // expected-error @+1 {{'tile.pad' op result '!tile.tile<16x64xf32, valid = 8x64>' must have no valid region: padding fills it}}
  %p = tile.pad %t, %z : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x64xf32, valid = 8x64>
  return %p : !tile.tile<16x64xf32, valid = 8x64>
}

// -----

func.func @pad_changes_shape(%t: !tile.tile<16x64xf32, valid = ?x64>, %z: f32) -> !tile.tile<16x32xf32> {
  // expected-error @+1 {{'tile.pad' op result '!tile.tile<16x32xf32>' must have the shape and element type of '!tile.tile<16x64xf32, valid = ?x64>'}}
  %p = tile.pad %t, %z : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x32xf32>
  return %p : !tile.tile<16x32xf32>
}

// -----

func.func @pad_value_type(%t: !tile.tile<16x64xf32, valid = ?x64>, %z: f16) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.pad' op failed to verify that the value has the tile's element type}}
  %p = "tile.pad"(%t, %z) : (!tile.tile<16x64xf32, valid = ?x64>, f16) -> !tile.tile<16x64xf32>
  return %p : !tile.tile<16x64xf32>
}

// -----

func.func @set_valid_changes_element_type(%t: !tile.tile<16x64xf32>) -> !tile.tile<16x64xf16, valid = 8x64> {
  // expected-error @+1 {{'tile.set_valid' op result '!tile.tile<16x64xf16, valid = 8x64>' must have the shape and element type of '!tile.tile<16x64xf32>'}}
  %s = tile.set_valid %t : !tile.tile<16x64xf32> -> !tile.tile<16x64xf16, valid = 8x64>
  return %s : !tile.tile<16x64xf16, valid = 8x64>
}

// -----

func.func @set_valid_missing_size(%t: !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32, valid = ?x?> {
  // expected-error @+1 {{'tile.set_valid' op needs one valid size for each '?' in '!tile.tile<16x64xf32, valid = ?x?>' (2), got 0}}
  %s = tile.set_valid %t : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32, valid = ?x?>
  return %s : !tile.tile<16x64xf32, valid = ?x?>
}

// -----

func.func @set_valid_widens(%t: !tile.tile<16x64xf32, valid = 8x64>) -> !tile.tile<16x64xf32, valid = 12x64> {
  // expected-error @+1 {{'tile.set_valid' op valid size 12 of dimension 0 is larger than the input's 8: set_valid only narrows}}
  %s = tile.set_valid %t : !tile.tile<16x64xf32, valid = 8x64> -> !tile.tile<16x64xf32, valid = 12x64>
  return %s : !tile.tile<16x64xf32, valid = 12x64>
}

// -----

func.func @intrinsic_without_set(%a: !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.intrinsic' op callee must be '<set>.<name>', got 'tadd'}}
  %s = tile.intrinsic "tadd"(%a) : (!tile.tile<16x64xf32>) -> !tile.tile<16x64xf32>
  return %s : !tile.tile<16x64xf32>
}

// -----

func.func @intrinsic_without_operands() -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.intrinsic' op needs at least one operand}}
  %s = tile.intrinsic "pto.tci"() : () -> !tile.tile<16x64xf32>
  return %s : !tile.tile<16x64xf32>
}

// -----

func.func @intrinsic_on_a_memref(%m: memref<4xf32>) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.intrinsic' op operand #0 must be variadic of}}
  %s = tile.intrinsic "pto.tload"(%m) : (memref<4xf32>) -> !tile.tile<16x64xf32>
  return %s : !tile.tile<16x64xf32>
}

// -----

func.func @intrinsic_effect_without_set() {
  // expected-error @+1 {{'tile.intrinsic_effect' op callee must be '<set>.<name>', got 'rank'}}
  %r = tile.intrinsic_effect "rank"() : () -> index
  return
}

// -----

func.func @intrinsic_effect_two_results() {
  // expected-error @+1 {{'tile.intrinsic_effect' op has at most one result (a scalar)}}
  %r:2 = tile.intrinsic_effect "comm.rank"() : () -> (index, index)
  return
}

// -----

func.func @intrinsic_effect_tile_result() {
  // expected-error @+1 {{'tile.intrinsic_effect' op result #0 must be variadic of}}
  %r = tile.intrinsic_effect "comm.rank"() : () -> !tile.tile<16x64xf32>
  return
}

// -----

func.func @relayout_changes_more(%x: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{'tile.relayout' op changes only the layout: the result must be '!tile.tile<16x64xf32, layout = #layout.axe<[16@m:1] x [64@m:16]>>', got '!tile.tile<16x64xf16, layout = #layout.axe<[16@m:1] x [64@m:16]>>'}}
  %d = tile.relayout %x : !tile.tile<16x64xf32> -> !tile.tile<16x64xf16, layout = #layout.axe<[16@m:1] x [64@m:16]>>
  return
}

//===----------------------------------------------------------------------===//
// Strided tile.load / tile.store
//===----------------------------------------------------------------------===//

// -----

func.func @load_three_strides(%m: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{'tile.load' op needs 2 strides (rows, columns), got 3}}
  %t = tile.load %m[%i, %i] strides [1, 2, 1] : memref<128x256xf32> -> !tile.tile<16x64xf32>
  return
}

// -----

func.func @load_zero_stride(%m: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{'tile.load' op stride 0 of dimension 1 must be positive}}
  %t = tile.load %m[%i, %i] strides [1, 0] : memref<128x256xf32> -> !tile.tile<16x64xf32>
  return
}

// -----

func.func @load_strided_past_the_source(%m: memref<16x256xf32>, %i: index) {
  // expected-error @+1 {{'tile.load' op tile extent 16 at stride 2 (31 elements) along dimension 0 exceeds the source size 16}}
  %t = tile.load %m[%i, %i] strides [2, 1] : memref<16x256xf32> -> !tile.tile<16x64xf32>
  return
}

// -----

func.func @store_negative_stride(%t: !tile.tile<16x64xf32>, %m: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{'tile.store' op stride -2 of dimension 0 must be positive}}
  tile.store %t, %m[%i, %i] strides [-2, 1] : !tile.tile<16x64xf32>, memref<128x256xf32>
  return
}

// -----

func.func @store_strided_past_the_destination(%t: !tile.tile<16x64xf32>, %m: memref<128x100xf32>, %i: index) {
  // expected-error @+1 {{'tile.store' op tile extent 64 at stride 2 (127 elements) along dimension 1 exceeds the destination size 100}}
  tile.store %t, %m[%i, %i] strides [1, 2] : !tile.tile<16x64xf32>, memref<128x100xf32>
  return
}

//===----------------------------------------------------------------------===//
// tile.slice
//===----------------------------------------------------------------------===//

// -----

func.func @slice_changes_element(%x: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{'tile.slice' op element type changes from 'f32' to 'f16'}}
  %s = tile.slice %x [0, 0] : !tile.tile<16x64xf32> -> !tile.tile<16x32xf16>
  return
}

// -----

func.func @slice_one_offset(%x: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{'tile.slice' op needs 2 offsets (row, column), got 1}}
  %s = tile.slice %x [0] : !tile.tile<16x64xf32> -> !tile.tile<16x32xf32>
  return
}

// -----

func.func @slice_zero_stride(%x: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{'tile.slice' op stride 0 of dimension 0 must be positive}}
  %s = tile.slice %x [0, 0] strides [0, 1] : !tile.tile<16x64xf32> -> !tile.tile<16x32xf32>
  return
}

// -----

func.func @slice_negative_offset(%x: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{'tile.slice' op offset -1 of dimension 1 is negative}}
  %s = tile.slice %x [0, -1] : !tile.tile<16x64xf32> -> !tile.tile<16x32xf32>
  return
}

// -----

func.func @slice_past_the_tile(%x: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{'tile.slice' op takes element 64 of dimension 1, outside the input's 64}}
  %s = tile.slice %x [0, 2] strides [1, 2] : !tile.tile<16x64xf32> -> !tile.tile<16x32xf32>
  return
}

// -----

func.func @slice_part_of_a_ragged_dimension(%x: !tile.tile<16x64xf32, valid = ?x64>) {
  // expected-error @+1 {{'tile.slice' op slices part of dimension 0, whose valid size is only known at run time: take it whole (offset 0, stride 1, size 16) or pad the input first}}
  %s = tile.slice %x [0, 0] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<8x64xf32, valid = ?x64>
  return
}

// -----

func.func @slice_past_the_valid_region(%x: !tile.tile<16x64xf32, valid = 4x64>) {
  // expected-error @+1 {{'tile.slice' op starts at 8 of dimension 0, past the input's valid size 4: it would hold no valid element}}
  %s = tile.slice %x [8, 0] : !tile.tile<16x64xf32, valid = 4x64> -> !tile.tile<8x64xf32>
  return
}

// -----

func.func @slice_wrong_valid_region(%x: !tile.tile<16x64xf32, valid = 16x40>) {
  // expected-error @+1 {{'tile.slice' op result type must be '!tile.tile<16x32xf32, valid = 16x20>', got '!tile.tile<16x32xf32>'}}
  %s = tile.slice %x [0, 0] strides [1, 2] : !tile.tile<16x64xf32, valid = 16x40> -> !tile.tile<16x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// tile.concat
//===----------------------------------------------------------------------===//

// -----

func.func @concat_of_nothing() {
  // expected-error @+1 {{'tile.concat' op needs at least one input}}
  %c = "tile.concat"() {axis = 1 : i64} : () -> !tile.tile<16x64xf32>
  return
}

// -----

func.func @concat_axis_two(%a: !tile.tile<16x32xf32>) {
  // expected-error @+1 {{'tile.concat' op attribute 'axis' failed to satisfy constraint}}
  %c = tile.concat %a, %a axis 2 : !tile.tile<16x32xf32>, !tile.tile<16x32xf32> -> !tile.tile<16x64xf32>
  return
}

// -----

func.func @concat_mixed_elements(%a: !tile.tile<16x32xf32>, %b: !tile.tile<16x32xf16>) {
  // expected-error @+1 {{'tile.concat' op input 1 has element type 'f16', the result 'f32'}}
  %c = tile.concat %a, %b axis 1 : !tile.tile<16x32xf32>, !tile.tile<16x32xf16> -> !tile.tile<16x64xf32>
  return
}

// -----

func.func @concat_other_sizes_differ(%a: !tile.tile<16x32xf32>, %b: !tile.tile<8x32xf32>) {
  // expected-error @+1 {{'tile.concat' op input 1 has size 8 along dimension 0, the result 16}}
  %c = tile.concat %a, %b axis 1 : !tile.tile<16x32xf32>, !tile.tile<8x32xf32> -> !tile.tile<16x64xf32>
  return
}

// -----

func.func @concat_other_valid_sizes_differ(%a: !tile.tile<16x32xf32, valid = ?x32>, %b: !tile.tile<16x32xf32>) {
  // expected-error @+1 {{'tile.concat' op input 1 has valid size 16 along dimension 0, the result ?}}
  %c = tile.concat %a, %b axis 1 : !tile.tile<16x32xf32, valid = ?x32>, !tile.tile<16x32xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  return
}

// -----

func.func @concat_ragged_along_the_axis(%a: !tile.tile<16x32xf32, valid = ?x32>, %b: !tile.tile<16x32xf32>) {
  // expected-error @+1 {{'tile.concat' op input 0 is not fully valid along the joined dimension 0 (valid ? of 16): pad it first}}
  %c = tile.concat %a, %b axis 0 : !tile.tile<16x32xf32, valid = ?x32>, !tile.tile<16x32xf32> -> !tile.tile<32x32xf32>
  return
}

// -----

func.func @concat_wrong_total(%a: !tile.tile<16x32xf32>) {
  // expected-error @+1 {{'tile.concat' op result size along dimension 1 must be the inputs' total 64, got 48}}
  %c = tile.concat %a, %a axis 1 : !tile.tile<16x32xf32>, !tile.tile<16x32xf32> -> !tile.tile<16x48xf32>
  return
}

// -----

func.func @concat_result_not_valid_along_the_axis(%a: !tile.tile<16x32xf32>) {
  // expected-error @+1 {{'tile.concat' op result must be fully valid along dimension 1}}
  %c = tile.concat %a, %a axis 1 : !tile.tile<16x32xf32>, !tile.tile<16x32xf32> -> !tile.tile<16x64xf32, valid = 16x40>
  return
}

//===----------------------------------------------------------------------===//
// tile.reshape
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_changes_element(%x: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{'tile.reshape' op element type changes from 'f32' to 'i32'}}
  %r = tile.reshape %x : !tile.tile<16x64xf32> -> !tile.tile<32x32xi32>
  return
}

// -----

func.func @reshape_changes_count(%x: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{'tile.reshape' op changes the element count from 1024 (16x64) to 960 (32x30)}}
  %r = tile.reshape %x : !tile.tile<16x64xf32> -> !tile.tile<32x30xf32>
  return
}

// -----

func.func @reshape_ragged(%x: !tile.tile<16x64xf32, valid = ?x64>) {
  // expected-error @+1 {{'tile.reshape' op input '!tile.tile<16x64xf32, valid = ?x64>' must be fully valid: pad it first}}
  %r = tile.reshape %x : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<32x32xf32>
  return
}

// -----

func.func @reshape_to_a_partial_tile(%x: !tile.tile<16x64xf32>) {
  // expected-error @+1 {{'tile.reshape' op result '!tile.tile<32x32xf32, valid = 16x32>' must be fully valid}}
  %r = tile.reshape %x : !tile.tile<16x64xf32> -> !tile.tile<32x32xf32, valid = 16x32>
  return
}

// -----

func.func @put_index_type(%a: !tile.tile<16x64xf32>, %i: !tile.tile<16x8xi16>, %v: !tile.tile<16x8xf32>) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.put' op column indices must be i32 or i64, got 'i16'}}
  %r = tile.put %a[%i], %v : !tile.tile<16x64xf32>, !tile.tile<16x8xi16>, !tile.tile<16x8xf32> -> !tile.tile<16x64xf32>
  return %r : !tile.tile<16x64xf32>
}

// -----

func.func @put_rows(%a: !tile.tile<16x64xf32>, %i: !tile.tile<8x8xi32>, %v: !tile.tile<8x8xf32>) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.put' op puts into 16 rows by indices of 8}}
  %r = tile.put %a[%i], %v : !tile.tile<16x64xf32>, !tile.tile<8x8xi32>, !tile.tile<8x8xf32> -> !tile.tile<16x64xf32>
  return %r : !tile.tile<16x64xf32>
}

// -----

func.func @put_valid_rows(%a: !tile.tile<16x64xf32, valid = ?x64>, %i: !tile.tile<16x8xi32>, %v: !tile.tile<16x8xf32>) -> !tile.tile<16x64xf32, valid = ?x64> {
  // expected-error @+1 {{'tile.put' op valid rows of the input (?) and of the indices (16) differ}}
  %r = tile.put %a[%i], %v : !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x8xi32>, !tile.tile<16x8xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  return %r : !tile.tile<16x64xf32, valid = ?x64>
}

// -----

func.func @put_values_element(%a: !tile.tile<16x64xf32>, %i: !tile.tile<16x8xi32>, %v: !tile.tile<16x8xf16>) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.put' op values must be a '!tile.tile<16x8xf32>' (the indices' shape and valid region, the input's element type), got '!tile.tile<16x8xf16>'}}
  %r = tile.put %a[%i], %v : !tile.tile<16x64xf32>, !tile.tile<16x8xi32>, !tile.tile<16x8xf16> -> !tile.tile<16x64xf32>
  return %r : !tile.tile<16x64xf32>
}

// -----

func.func @put_values_valid(%a: !tile.tile<16x64xf32>, %i: !tile.tile<16x8xi32>, %v: !tile.tile<16x8xf32, valid = 16x4>) -> !tile.tile<16x64xf32> {
  // expected-error @+1 {{'tile.put' op values must be a '!tile.tile<16x8xf32>' (the indices' shape and valid region, the input's element type), got '!tile.tile<16x8xf32, valid = 16x4>'}}
  %r = tile.put %a[%i], %v : !tile.tile<16x64xf32>, !tile.tile<16x8xi32>, !tile.tile<16x8xf32, valid = 16x4> -> !tile.tile<16x64xf32>
  return %r : !tile.tile<16x64xf32>
}

// -----

func.func @put_result(%a: !tile.tile<16x64xf32>, %i: !tile.tile<16x8xi32>, %v: !tile.tile<16x8xf32>) -> !tile.tile<16x8xf32> {
  // expected-error @+1 {{'tile.put' op result type must be '!tile.tile<16x64xf32>', got '!tile.tile<16x8xf32>'}}
  %r = tile.put %a[%i], %v : !tile.tile<16x64xf32>, !tile.tile<16x8xi32>, !tile.tile<16x8xf32> -> !tile.tile<16x8xf32>
  return %r : !tile.tile<16x8xf32>
}
