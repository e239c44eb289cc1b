// RUN: htp-opt %s --split-input-file --verify-diagnostics
//
// One case per verifier rule, ODS constraint and parser error of the pto
// dialect (dialects/pto/PTOTypes.cpp, PTOOps.cpp, PTODialect.cpp, PTOOps.td):
// the A2/A3 rules of docs/targets/pto-contract.md.

// expected-error @+1 {{a pto tile has exactly 2 dimensions, got 1}}
func.func private @t(!pto.tile<vec, 16xf32>)

// -----

// expected-error @+1 {{a pto tile has exactly 2 dimensions, got 3}}
func.func private @t(!pto.tile<vec, 2x16x64xf32>)

// -----

// expected-error @+1 {{pto tile dimensions must be positive, got 0}}
func.func private @t(!pto.tile<vec, 0x64xf32>)

// -----

// Tile dimensions are static: `?` is only allowed in the valid region.
// expected-error @+1 {{expected static shape}}
func.func private @t(!pto.tile<vec, ?x64xf32>)

// -----

// expected-error @+1 {{pto tile element type must be f32, f16, bf16, i8, i16, i32, i64, ui8, ui16 or ui32, got 'f64'}}
func.func private @t(!pto.tile<vec, 16x64xf64>)

// -----

// expected-error @+1 {{pto tile element type must be f32, f16, bf16, i8, i16, i32, i64, ui8, ui16 or ui32, got 'si32'}}
func.func private @t(!pto.tile<vec, 16x64xsi32>)

// -----

// expected-error @+1 {{pto tile element type must be f32, f16, bf16, i8, i16, i32, i64, ui8, ui16 or ui32, got 'ui64'}}
func.func private @t(!pto.tile<vec, 16x64xui64>)

// -----

// Masks are packed ui8 tiles on A2/A3, not i1 tiles.
// expected-error @+1 {{pto tile element type must be f32, f16, bf16, i8, i16, i32, i64, ui8, ui16 or ui32, got 'i1'}}
func.func private @t(!pto.tile<vec, 16x64xi1>)

// -----

// expected-error @+1 {{unknown tile location 'ub'}}
func.func private @t(!pto.tile<ub, 16x64xf32>)

// -----

// expected-error @+1 {{expected two valid sizes, e.g. `valid = ?x64`}}
func.func private @t(!pto.tile<vec, 16x64xf32, valid = 1x2x3>)

// -----

// expected-error @+1 {{valid size 17 of dimension 0 must be in [1, 16]}}
func.func private @t(!pto.tile<vec, 16x64xf32, valid = 17x64>)

// -----

// expected-error @+1 {{valid size 0 of dimension 1 must be in [1, 64]}}
func.func private @t(!pto.tile<vec, 16x64xf32, valid = 16x0>)

// -----

// expected-error @+1 {{unknown tile parameter 'order' (expected valid, blayout, slayout, fractal or pad)}}
func.func private @t(!pto.tile<vec, 16x64xf32, order = 1>)

// -----

// expected-error @+1 {{'pad' is given twice}}
func.func private @t(!pto.tile<vec, 16x64xf32, pad = zero, pad = min>)

// -----

// expected-error @+1 {{unknown blayout 'zz'}}
func.func private @t(!pto.tile<vec, 16x64xf32, blayout = zz>)

// -----

// expected-error @+1 {{unknown slayout 'zz'}}
func.func private @t(!pto.tile<vec, 16x64xf32, slayout = zz>)

// -----

// expected-error @+1 {{unknown pad value 'one'}}
func.func private @t(!pto.tile<vec, 16x64xf32, pad = one>)

// -----

// left/right/acc/bias tiles take the layout of PTO-ISA's TileLeft/TileRight/TileAcc aliases.
// expected-error @+1 {{a left tile's layout is implied by its location; do not give 'blayout'}}
func.func private @t(!pto.tile<left, 16x16xf16, blayout = col_major>)

// -----

// expected-error @+1 {{a acc tile's layout is implied by its location; do not give 'fractal'}}
func.func private @t(!pto.tile<acc, 16x16xf32, fractal = 1024>)

// -----

// Even the default value may not be written.
// expected-error @+1 {{a bias tile's layout is implied by its location; do not give 'slayout'}}
func.func private @t(!pto.tile<bias, 1x64xf32, slayout = none>)

// -----

// Fractal 32 (MX) is A5-only.
// expected-error @+1 {{fractal must be 512 or 1024 bytes on A2/A3, got 32}}
func.func private @t(!pto.tile<mat, 32x32xf16, blayout = col_major, slayout = row_major, fractal = 32>)

// -----

// expected-error @+1 {{an acc tile holds f32 or i32, got 'f16'}}
func.func private @t(!pto.tile<acc, 16x16xf16>)

// -----

// expected-error @+1 {{a left tile holds f16, bf16, f32 or i8, got 'i32'}}
func.func private @t(!pto.tile<left, 16x16xi32>)

// -----

// expected-error @+1 {{a right tile holds f16, bf16, f32 or i8, got 'ui8'}}
func.func private @t(!pto.tile<right, 16x32xui8>)

// -----

// HTP's rule for left/right/acc: whole 16x16 boxes.
// expected-error @+1 {{a left tile needs rows and columns that are multiples of 16, got 16x8}}
func.func private @t(!pto.tile<left, 16x8xf32>)

// -----

// expected-error @+1 {{a acc tile needs rows and columns that are multiples of 16, got 8x16}}
func.func private @t(!pto.tile<acc, 8x16xf32>)

// -----

// The Tile static_asserts. ND: Cols * sizeof(T) % 32 == 0 (so a [R,1] f32 tile cannot be row_major).
// expected-error @+1 {{a row_major tile needs columns * sizeof(T) to be a multiple of 32 bytes, got 3 x 4}}
func.func private @t(!pto.tile<vec, 16x3xf32>)

// -----

// expected-error @+1 {{a row_major tile needs columns * sizeof(T) to be a multiple of 32 bytes, got 1 x 4}}
func.func private @t(!pto.tile<vec, 16x1xf32>)

// -----

// expected-error @+1 {{a row_major tile needs columns * sizeof(T) to be a multiple of 32 bytes, got 8 x 2}}
func.func private @t(!pto.tile<mat, 16x8xf16>)

// -----

// DN: Rows * sizeof(T) % 32 == 0.
// expected-error @+1 {{a col_major tile needs rows * sizeof(T) to be a multiple of 32 bytes, got 3 x 4}}
func.func private @t(!pto.tile<vec, 3x1xf32, blayout = col_major>)

// -----

// Boxed: columns a multiple of the inner box (32 bytes for fractal 512, 16 for 1024).
// expected-error @+1 {{a boxed tile with fractal 512 needs columns that are a multiple of 16, got 8}}
func.func private @t(!pto.tile<mat, 16x8xf16, blayout = col_major, slayout = row_major>)

// -----

// expected-error @+1 {{a boxed tile with fractal 1024 needs columns that are a multiple of 16, got 8}}
func.func private @t(!pto.tile<mat, 16x8xf32, blayout = col_major, slayout = row_major, fractal = 1024>)

// -----

// Boxed rows: a multiple of 16 except for vec tiles or Rows == 1.
// expected-error @+1 {{a boxed mat tile needs rows that are a multiple of 16 (or 1), got 8}}
func.func private @t(!pto.tile<mat, 8x16xf16, blayout = col_major, slayout = row_major>)

// -----

// expected-error @+1 {{a pto gtensor has exactly 2 dimensions, got 1}}
func.func private @t(!pto.gtensor<16xf32>)

// -----

// expected-error @+1 {{pto gtensor dimensions must be positive or ?, got 0}}
func.func private @t(!pto.gtensor<0x64xf32>)

// -----

// expected-error @+1 {{pto gtensor element type must be f32, f16, bf16, i8, i16, i32, i64, ui8, ui16 or ui32, got 'f64'}}
func.func private @t(!pto.gtensor<16x64xf64>)

// -----

// expected-error @+1 {{unknown gtensor layout 'zn'}}
func.func private @t(!pto.gtensor<16x64xf32, layout = zn>)

// -----

func.func @f() {
  // expected-error @+1 {{needs one index operand per '?' valid size of '!pto.tile<vec, 16x64xf32, valid = ?x64>' (1), got 0}}
  %t = pto.alloc_tile : !pto.tile<vec, 16x64xf32, valid = ?x64>
  return
}

// -----

func.func @f(%n: index) {
  // expected-error @+1 {{needs one index operand per '?' valid size}}
  %t = pto.alloc_tile valid [%n, %n] : !pto.tile<vec, 16x64xf32, valid = ?x64>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{addr must not be negative, got -32}}
  %t = pto.alloc_tile addr -32 : !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{addr 16 is not a multiple of 32 bytes (TASSIGN alignment)}}
  %t = pto.alloc_tile addr 16 : !pto.tile<vec, 16x64xf32>
  return
}

// -----

// UB: 192 KB less PTO-ISA's hidden 8 KB scratch.
func.func @f() {
  // expected-error @+2 {{tile of 200704 bytes at addr 0 exceeds the 188416-byte vec buffer (UB) on A2/A3}}
  // expected-note @+1 {{the last 8192 bytes of the 196608-byte UB are PTO-ISA's hidden scratch (TMP_UB_OFFSET)}}
  %t = pto.alloc_tile addr 0 : !pto.tile<vec, 196x256xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+2 {{tile of 4096 bytes at addr 184352 exceeds the 188416-byte vec buffer (UB) on A2/A3}}
  // expected-note @+1 {{hidden scratch}}
  %t = pto.alloc_tile addr 184352 : !pto.tile<vec, 16x64xf32>
  return
}

// -----

// Without addr the tile must still fit.
func.func @f() {
  // expected-error @+1 {{tile of 2097152 bytes exceeds the 524288-byte mat buffer (L1) on A2/A3}}
  %t = pto.alloc_tile : !pto.tile<mat, 1024x1024xf16>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{tile of 65536 bytes at addr 32768 exceeds the 65536-byte left buffer (L0A) on A2/A3}}
  %t = pto.alloc_tile addr 32768 : !pto.tile<left, 128x256xf16>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{tile of 131072 bytes exceeds the 65536-byte right buffer (L0B) on A2/A3}}
  %t = pto.alloc_tile : !pto.tile<right, 256x256xf16>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{tile of 262144 bytes exceeds the 131072-byte acc buffer (L0C) on A2/A3}}
  %t = pto.alloc_tile : !pto.tile<acc, 256x256xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{tile of 512 bytes at addr 768 exceeds the 1024-byte bias buffer (bias table) on A2/A3}}
  %t = pto.alloc_tile addr 768 : !pto.tile<bias, 1x128xf32>
  return
}

// -----

func.func @f(%s: memref<f32>) {
  // expected-error @+1 {{needs a source of rank 1 or more}}
  %g = pto.global_view %s[] dims [-1, 0] : memref<f32> -> !pto.gtensor<1x1xf32>
  return
}

// -----

func.func @f(%A: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{needs 2 offsets for a rank-2 source, got 1}}
  %g = pto.global_view %A[%i] dims [0, 1] : memref<128x256xf32> -> !pto.gtensor<16x64xf32>
  return
}

// -----

func.func @f(%A: memref<128x256xf16>, %i: index) {
  // expected-error @+1 {{source element type 'f16' differs from the view's 'f32' (an i1 tensor is viewed as i8 or ui8 bytes)}}
  %g = pto.global_view %A[%i, %i] dims [0, 1] : memref<128x256xf16> -> !pto.gtensor<16x64xf32>
  return
}

// -----

func.func @f(%A: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{needs one index operand per '?' in '!pto.gtensor<?x64xf32>' (1), got 0}}
  %g = pto.global_view %A[%i, %i] dims [0, 1] : memref<128x256xf32> -> !pto.gtensor<?x64xf32>
  return
}

// -----

func.func @f(%A: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{dims names the rows' and the columns' source dimensions (2 entries), got 3}}
  %g = pto.global_view %A[%i, %i] dims [0, 1, 2] : memref<128x256xf32> -> !pto.gtensor<16x64xf32>
  return
}

// -----

func.func @f(%A: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{column dimension 2 is not a dimension of the rank-2 source}}
  %g = pto.global_view %A[%i, %i] dims [0, 2] : memref<128x256xf32> -> !pto.gtensor<16x64xf32>
  return
}

// -----

func.func @f(%A: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{row dimension -2 is not -1 (unit) or a dimension of the rank-2 source}}
  %g = pto.global_view %A[%i, %i] dims [-2, 1] : memref<128x256xf32> -> !pto.gtensor<16x64xf32>
  return
}

// -----

func.func @f(%x: memref<1024xf32>, %i: index) {
  // expected-error @+1 {{rows and columns cannot both be source dimension 0 (a rank-1 source takes dims [-1, 0])}}
  %g = pto.global_view %x[%i] dims [0, 0] : memref<1024xf32> -> !pto.gtensor<1x64xf32>
  return
}

// -----

func.func @f(%x: memref<1024xf32>, %i: index) {
  // expected-error @+1 {{a unit row dimension (-1) gives 1 row, but the view has 16}}
  %g = pto.global_view %x[%i] dims [-1, 0] : memref<1024xf32> -> !pto.gtensor<16x64xf32>
  return
}

// -----

func.func @f(%A: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{view rows (256) exceed source dimension 0 (128)}}
  %g = pto.global_view %A[%i, %i] dims [0, 1] : memref<128x256xf32> -> !pto.gtensor<256x64xf32>
  return
}

// -----

func.func @f(%A: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{view columns (512) exceed source dimension 1 (256)}}
  %g = pto.global_view %A[%i, %i] dims [0, 1] : memref<128x256xf32> -> !pto.gtensor<16x512xf32>
  return
}

// -----

func.func @f(%A: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{an nd view needs the columns to be the innermost source dimension (1), got 0}}
  %g = pto.global_view %A[%i, %i] dims [1, 0] : memref<128x256xf32> -> !pto.gtensor<16x64xf32>
  return
}

// -----

func.func @f(%A: memref<128x256xf32>, %i: index) {
  // expected-error @+1 {{a dn view needs the rows to be the innermost source dimension (1, or the one before it when the innermost has size 1), got 0}}
  %g = pto.global_view %A[%i, %i] dims [0, 1] : memref<128x256xf32> -> !pto.gtensor<16x64xf32, layout = dn>
  return
}

// -----

func.func @f(%A: memref<*xf32>, %i: index) {
  // expected-error @+1 {{invalid kind of type specified: expected builtin.memref, but found 'memref<*xf32>'}}
  %g = pto.global_view %A[%i, %i] dims [0, 1] : memref<*xf32> -> !pto.gtensor<16x64xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{a pto-runtime tensor has 1 to 5 dimensions, got 6}}
  %t = pto.create_tensor : memref<1x2x3x4x5x8xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{a pto-runtime tensor has 1 to 5 dimensions, got 0}}
  %t = pto.create_tensor : memref<f32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{element type 'f64' is not a PTO element type}}
  %t = pto.create_tensor : memref<16xf64>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{result #0 must be statically shaped memref of any type values}}
  %t = pto.create_tensor : memref<?x16xf32>
  return
}

// -----

func.func @f(%t: !pto.tile<left, 16x16xf16>, %g: !pto.gtensor<16x16xf16>) {
  // expected-error @+1 {{loads into a vec or mat tile, not left}}
  pto.tload %t, %g : !pto.tile<left, 16x16xf16>, !pto.gtensor<16x16xf16>
  return
}

// -----

func.func @f(%t: !pto.tile<vec, 16x64xf16>, %g: !pto.gtensor<16x64xf32>) {
  // expected-error @+1 {{tile element type 'f16' differs from the gtensor's 'f32'}}
  pto.tload %t, %g : !pto.tile<vec, 16x64xf16>, !pto.gtensor<16x64xf32>
  return
}

// -----

func.func @f(%t: !pto.tile<mat, 16x4xi64>, %g: !pto.gtensor<16x4xi64, layout = nz>) {
  // expected-error @+1 {{loads i64 only from nd or dn gtensors}}
  pto.tload %t, %g : !pto.tile<mat, 16x4xi64>, !pto.gtensor<16x4xi64, layout = nz>
  return
}

// -----

func.func @f(%t: !pto.tile<vec, 16x64xf32>, %g: !pto.gtensor<16x64xf32, layout = dn>) {
  // expected-error @+1 {{cannot load a vec tile with blayout = row_major, slayout = none from a dn gtensor}}
  pto.tload %t, %g : !pto.tile<vec, 16x64xf32>, !pto.gtensor<16x64xf32, layout = dn>
  return
}

// -----

// ND -> NZ is a mat-only conversion.
func.func @f(%t: !pto.tile<vec, 16x16xf16, blayout = col_major, slayout = row_major>, %g: !pto.gtensor<16x16xf16>) {
  // expected-error @+1 {{cannot load a vec tile with blayout = col_major, slayout = row_major from a nd gtensor}}
  pto.tload %t, %g : !pto.tile<vec, 16x16xf16, blayout = col_major, slayout = row_major>, !pto.gtensor<16x16xf16>
  return
}

// -----

func.func @f(%t: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, %g: !pto.gtensor<64x64xf16, layout = dn>) {
  // expected-error @+1 {{cannot load a mat tile with blayout = col_major, slayout = row_major from a dn gtensor}}
  pto.tload %t, %g : !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, !pto.gtensor<64x64xf16, layout = dn>
  return
}

// -----

func.func @f(%t: !pto.tile<vec, 4096x8xf32>, %g: !pto.gtensor<4096x8xf32>) {
  // expected-error @+1 {{loads at most 4095 rows into a vec tile, got 4096}}
  pto.tload %t, %g : !pto.tile<vec, 4096x8xf32>, !pto.gtensor<4096x8xf32>
  return
}

// -----

func.func @f(%t: !pto.tile<mat, 16400x16xf16>, %g: !pto.gtensor<16400x16xf16>) {
  // expected-error @+1 {{loads at most 16384 rows into a mat tile, got 16400}}
  pto.tload %t, %g : !pto.tile<mat, 16400x16xf16>, !pto.gtensor<16400x16xf16>
  return
}

// -----

func.func @f(%t: !pto.tile<vec, 16x8xui32>, %g: !pto.gtensor<16x8xui32>) {
  // expected-error @+1 {{atomic_add stores f16, f32, i16, i32, i8 or bf16, got 'ui32'}}
  pto.tstore %g, %t atomic_add : !pto.gtensor<16x8xui32>, !pto.tile<vec, 16x8xui32>
  return
}

// -----

func.func @f(%t: !pto.tile<vec, 16x64xf16>, %g: !pto.gtensor<16x64xf32>) {
  // expected-error @+1 {{tile element type 'f16' differs from the gtensor's 'f32'}}
  pto.tstore %g, %t : !pto.gtensor<16x64xf32>, !pto.tile<vec, 16x64xf16>
  return
}

// -----

func.func @f(%t: !pto.tile<vec, 16x64xf32>, %g: !pto.gtensor<16x64xf32, layout = dn>) {
  // expected-error @+1 {{cannot store a vec tile with blayout = row_major, slayout = none into a dn gtensor}}
  pto.tstore %g, %t : !pto.gtensor<16x64xf32, layout = dn>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

// A one-row tile may go to nd or dn, not nz.
func.func @f(%t: !pto.tile<vec, 1x64xf32>, %g: !pto.gtensor<1x64xf32, layout = nz>) {
  // expected-error @+1 {{cannot store a vec tile with blayout = row_major, slayout = none into a nz gtensor}}
  pto.tstore %g, %t : !pto.gtensor<1x64xf32, layout = nz>, !pto.tile<vec, 1x64xf32>
  return
}

// -----

func.func @f(%t: !pto.tile<acc, 16x16xf32>, %g: !pto.gtensor<16x16xi32>) {
  // expected-error @+1 {{an f32 acc tile stores as f32, f16 or bf16, got 'i32'}}
  pto.tstore %g, %t : !pto.gtensor<16x16xi32>, !pto.tile<acc, 16x16xf32>
  return
}

// -----

func.func @f(%t: !pto.tile<acc, 16x16xi32>, %g: !pto.gtensor<16x16xf32>) {
  // expected-error @+1 {{an i32 acc tile stores as i32, got 'f32'}}
  pto.tstore %g, %t : !pto.gtensor<16x16xf32>, !pto.tile<acc, 16x16xi32>
  return
}

// -----

func.func @f(%t: !pto.tile<acc, 16x16xf32>, %g: !pto.gtensor<16x16xf32, layout = dn>) {
  // expected-error @+1 {{stores an acc tile into nd or nz, not dn}}
  pto.tstore %g, %t : !pto.gtensor<16x16xf32, layout = dn>, !pto.tile<acc, 16x16xf32>
  return
}

// -----

func.func @f(%t: !pto.tile<acc, 16x4096xf32>, %g: !pto.gtensor<16x4096xf32>) {
  // expected-error @+1 {{stores at most 4095 columns from an acc tile, got 4096}}
  pto.tstore %g, %t : !pto.gtensor<16x4096xf32>, !pto.tile<acc, 16x4096xf32>
  return
}

// -----

func.func @f(%t: !pto.tile<acc, 8208x16xf32>, %g: !pto.gtensor<8208x16xf32>) {
  // expected-error @+1 {{stores at most 8192 rows from an acc tile into nd, got 8208}}
  pto.tstore %g, %t : !pto.gtensor<8208x16xf32>, !pto.tile<acc, 8208x16xf32>
  return
}

// -----

func.func @f(%t: !pto.tile<left, 16x16xf16>, %g: !pto.gtensor<16x16xf16>) {
  // expected-error @+1 {{stores from a vec, mat or acc tile, not left}}
  pto.tstore %g, %t : !pto.gtensor<16x16xf16>, !pto.tile<left, 16x16xf16>
  return
}

// -----

func.func @f(%d: !pto.tile<mat, 8x128xf16>, %t: !pto.gtensor<?x128xf16>, %i: !pto.tile<vec, 8x1xi32, blayout = col_major>) {
  // expected-error @+1 {{'dst' must be a vec tile, got mat}}
  pto.mgather %d, %t, %i : !pto.tile<mat, 8x128xf16>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x1xi32, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x8xf16, blayout = col_major>, %t: !pto.gtensor<?x128xf16>, %i: !pto.tile<vec, 8x1xi32, blayout = col_major>) {
  // expected-error @+1 {{'dst' must be row_major with slayout = none (ND), got blayout = col_major, slayout = none}}
  pto.mgather %d, %t, %i : !pto.tile<vec, 16x8xf16, blayout = col_major>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x1xi32, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 8x128xf16>, %t: !pto.gtensor<?x128xf16>, %i: !pto.tile<vec, 8x1xf32, blayout = col_major>) {
  // expected-error @+1 {{indices must be a vec i32 tile}}
  pto.mgather %d, %t, %i : !pto.tile<vec, 8x128xf16>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x1xf32, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 8x128xf16>, %t: !pto.gtensor<?x128xf16>, %i: !pto.tile<vec, 8x8xi32>) {
  // expected-error @+1 {{indices must be an Rx1 col_major or a 1xR row_major tile}}
  pto.mgather %d, %t, %i : !pto.tile<vec, 8x128xf16>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x8xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x128xf16>, %t: !pto.gtensor<?x128xf16>, %i: !pto.tile<vec, 8x1xi32, blayout = col_major>) {
  // expected-error @+1 {{gathers 8 rows (one per valid index) but 'dst' has 16 valid rows}}
  pto.mgather %d, %t, %i : !pto.tile<vec, 16x128xf16>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x1xi32, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x128xf16, valid = 10x128>, %t: !pto.gtensor<?x128xf16>, %i: !pto.tile<vec, 8x1xi32, valid = 8x1, blayout = col_major>) {
  // expected-error @+1 {{gathers 8 rows (one per valid index) but 'dst' has 10 valid rows}}
  pto.mgather %d, %t, %i : !pto.tile<vec, 16x128xf16, valid = 10x128>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x1xi32, valid = 8x1, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x128xf16, valid = 8x128>, %t: !pto.gtensor<?x128xf16>, %i: !pto.tile<vec, 8x1xi32, blayout = col_major>) {
  // expected-error @+1 {{'dst' has 16 rows but 'idx' holds 8 indices}}
  pto.mgather %d, %t, %i : !pto.tile<vec, 16x128xf16, valid = 8x128>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x1xi32, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 8x128xf32>, %t: !pto.gtensor<?x128xf16>, %i: !pto.tile<vec, 8x1xi32, blayout = col_major>) {
  // expected-error @+1 {{tile element type 'f32' differs from the table's 'f16'}}
  pto.mgather %d, %t, %i : !pto.tile<vec, 8x128xf32>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x1xi32, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 8x4xi64>, %t: !pto.gtensor<?x4xi64>, %i: !pto.tile<vec, 8x1xi32, blayout = col_major>) {
  // expected-error @+1 {{element type 'i64' is not supported on A2/A3 (supported: i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32)}}
  pto.mgather %d, %t, %i : !pto.tile<vec, 8x4xi64>, !pto.gtensor<?x4xi64>, !pto.tile<vec, 8x1xi32, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 8x128xf16>, %t: !pto.gtensor<?x64xf16>, %i: !pto.tile<vec, 8x1xi32, blayout = col_major>) {
  // expected-error @+1 {{'dst' has 128 columns but the table has 64}}
  pto.mgather %d, %t, %i : !pto.tile<vec, 8x128xf16>, !pto.gtensor<?x64xf16>, !pto.tile<vec, 8x1xi32, blayout = col_major>
  return
}

// -----

// acc -> vec and vec -> mat exist only on A5.
func.func @f(%v: !pto.tile<vec, 16x64xf32>, %a: !pto.tile<acc, 16x64xf32>) {
  // expected-error @+1 {{tmov from acc to vec does not exist on A2/A3 (results reach vector code through GM)}}
  pto.tmov %v, %a : !pto.tile<vec, 16x64xf32>, !pto.tile<acc, 16x64xf32>
  return
}

// -----

func.func @f(%m: !pto.tile<mat, 16x64xf32>, %v: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{tmov from vec to mat does not exist on A2/A3 (vector results reach the cube through GM)}}
  pto.tmov %m, %v : !pto.tile<mat, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%l: !pto.tile<left, 16x16xf16>, %r: !pto.tile<right, 16x16xf16>) {
  // expected-error @+1 {{tmov from left to right does not exist on A2/A3 (A2/A3 moves mat -> left, right or bias, vec -> vec and acc -> mat)}}
  pto.tmov %r, %l : !pto.tile<right, 16x16xf16>, !pto.tile<left, 16x16xf16>
  return
}

// -----

func.func @f(%l: !pto.tile<left, 32x64xf16>, %m: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>) {
  // expected-error @+1 {{'dst' is 32x64 but 'src' is 64x64}}
  pto.tmov %l, %m : !pto.tile<left, 32x64xf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
  return
}

// -----

func.func @f(%m: !pto.tile<mat, 16x16xi32>, %a: !pto.tile<acc, 16x16xf32>) {
  // expected-error @+1 {{an f32 acc tile moves into f32, f16 or bf16, got 'i32'}}
  pto.tmov %m, %a : !pto.tile<mat, 16x16xi32>, !pto.tile<acc, 16x16xf32>
  return
}

// -----

func.func @f(%l: !pto.tile<left, 64x64xbf16>, %m: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>) {
  // expected-error @+1 {{element type of 'dst' ('bf16') differs from 'src' ('f16')}}
  pto.tmov %l, %m : !pto.tile<left, 64x64xbf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
  return
}

// -----

func.func @f(%l: !pto.tile<left, 16x64xf32>, %v: !pto.tile<vec, 16x64xf32>, %i: index) {
  // expected-error @+1 {{extracts from a mat tile, not vec}}
  pto.textract %l, %v[%i, %i] : !pto.tile<left, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%a: !pto.tile<acc, 64x64xf32>, %m: !pto.tile<mat, 64x64xf32>, %i: index) {
  // expected-error @+1 {{extracts into a left or right tile, not acc}}
  pto.textract %a, %m[%i, %i] : !pto.tile<acc, 64x64xf32>, !pto.tile<mat, 64x64xf32>
  return
}

// -----

func.func @f(%l: !pto.tile<left, 32x32xbf16>, %m: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, %i: index) {
  // expected-error @+1 {{element type of 'dst' ('bf16') differs from 'src' ('f16')}}
  pto.textract %l, %m[%i, %i] : !pto.tile<left, 32x32xbf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
  return
}

// -----

func.func @f(%l: !pto.tile<left, 128x64xf16>, %m: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, %i: index) {
  // expected-error @+1 {{a 128x64 block does not fit in the 64x64 source}}
  pto.textract %l, %m[%i, %i] : !pto.tile<left, 128x64xf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
  return
}

// -----

// Constant offsets are checked.
func.func @f(%l: !pto.tile<left, 32x32xf16>, %m: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, %i: index) {
  %c48 = arith.constant 48 : index
  // expected-error @+1 {{rows [48, 80) lie outside the source's 64 rows}}
  pto.textract %l, %m[%c48, %i] : !pto.tile<left, 32x32xf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
  return
}

// -----

func.func @f(%r: !pto.tile<right, 32x32xf16>, %m: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, %i: index) {
  %c40 = arith.constant 40 : index
  // expected-error @+1 {{columns [40, 72) lie outside the source's 64 columns}}
  pto.textract %r, %m[%i, %c40] : !pto.tile<right, 32x32xf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
  return
}

// -----

func.func @f(%d: !pto.tile<mat, 16x64xf32>, %a: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{'dst' must be a vec tile, got mat}}
  pto.tadd %d, %a, %a : !pto.tile<mat, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %a: !pto.tile<vec, 16x64xf32, blayout = col_major>) {
  // expected-error @+1 {{'src0' must be row_major with slayout = none (ND), got blayout = col_major, slayout = none}}
  pto.tsub %d, %a, %d : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32, blayout = col_major>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %h: !pto.tile<vec, 16x64xf16>) {
  // expected-error @+1 {{element type of 'src1' ('f16') differs from 'dst' ('f32')}}
  pto.tmul %d, %d, %h : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %a: !pto.tile<vec, 16x32xf32>) {
  // expected-error @+1 {{'src0' is 16x32 but 'dst' is 16x64}}
  pto.tmax %d, %a, %d : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x32xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

// Static valid sizes must agree; `?` is checked at run time.
func.func @f(%d: !pto.tile<vec, 16x64xf32, valid = 8x64>, %a: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{valid rows of 'dst' (8) differ from valid rows of 'src0' (16)}}
  pto.tmin %d, %a, %a : !pto.tile<vec, 16x64xf32, valid = 8x64>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xbf16>) {
  // expected-error @+1 {{element type 'bf16' is not supported on A2/A3 (supported: i32, i16, f16, f32); A2/A3 has no bf16 vector arithmetic: convert to f32 with pto.tcvt}}
  pto.tadd %d, %d, %d : !pto.tile<vec, 16x64xbf16>, !pto.tile<vec, 16x64xbf16>, !pto.tile<vec, 16x64xbf16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xi8>) {
  // expected-error @+1 {{element type 'i8' is not supported on A2/A3 (supported: i32, i16, f16, f32)}}
  pto.tadd %d, %d, %d : !pto.tile<vec, 16x64xi8>, !pto.tile<vec, 16x64xi8>, !pto.tile<vec, 16x64xi8>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xi32>) {
  // expected-error @+1 {{element type 'i32' is not supported on A2/A3 (supported: f16, f32)}}
  pto.tdiv %d, %d, %d : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

// pto-isa's CPU model takes one tile type for TADD, TABS and TSEL: a pad
// value or a valid size that differs is another type.
func.func @f(%d: !pto.tile<vec, 16x64xi32>, %z: !pto.tile<vec, 16x64xi32, pad = zero>) {
  // expected-error @+1 {{TADD takes one tile type for its destination and sources (pto-isa's CPU model: TADD_IMPL(tile_shape &...)); 'src0' is '!pto.tile<vec, 16x64xi32, pad = zero>' but 'dst' is '!pto.tile<vec, 16x64xi32>'}}
  pto.tadd %d, %z, %d : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32, pad = zero>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %v: !pto.tile<vec, 16x64xf32, valid = ?x64>) {
  // expected-error @+1 {{TABS takes one tile type for its destination and sources}}
  pto.tabs %d, %v : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32, valid = ?x64>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: f16) {
  // expected-error @+1 {{scalar type 'f16' is not the tile element type 'f32'}}
  pto.tadds %d, %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, f16
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: index) {
  // expected-error @+1 {{operand #2 must be integer or 32-bit float or 16-bit float or bfloat16 type}}
  pto.tadds %d, %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, index
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xbf16>, %s: bf16) {
  // expected-error @+1 {{A2/A3 has no bf16 vector arithmetic}}
  pto.tmuls %d, %d, %s : !pto.tile<vec, 16x64xbf16>, !pto.tile<vec, 16x64xbf16>, bf16
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xi8>, %s: i8) {
  // expected-error @+1 {{element type 'i8' is not supported on A2/A3 (supported: i32, i16, f16, f32)}}
  pto.tdivs %d, %d, %s reverse : !pto.tile<vec, 16x64xi8>, !pto.tile<vec, 16x64xi8>, i8
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %a: !pto.tile<vec, 16x64xf16>, %s: f32) {
  // expected-error @+1 {{element type of 'src' ('f16') differs from 'dst' ('f32')}}
  pto.tsubs %d, %a, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf16>, f32
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x4xi64>, %s: i64) {
  // expected-error @+1 {{element type 'i64' is not supported on A2/A3 (supported: i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32)}}
  pto.texpands %d, %s : !pto.tile<vec, 16x4xi64>, i64
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x1xf32, blayout = col_major>, %s: f32) {
  // expected-error @+1 {{'dst' must be row_major with slayout = none (ND)}}
  pto.texpands %d, %s : !pto.tile<vec, 16x1xf32, blayout = col_major>, f32
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: i32) {
  // expected-error @+1 {{scalar type 'i32' is not the tile element type 'f32'}}
  pto.texpands %d, %s : !pto.tile<vec, 16x64xf32>, i32
  return
}

// -----

// An unsigned tile takes its own type or the signless integer of its width.
func.func @f(%d: !pto.tile<vec, 16x64xui16>, %s: i32) {
  // expected-error @+1 {{scalar type 'i32' is not the tile element type 'ui16'}}
  pto.texpands %d, %s : !pto.tile<vec, 16x64xui16>, i32
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xi32>) {
  // expected-error @+1 {{element type 'i32' is not supported on A2/A3 (supported: f16, f32)}}
  pto.texp %d, %d : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{trecip cannot run in place on A2/A3 (dst and src must be different tiles)}}
  pto.trecip %d, %d : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xui32>) {
  // expected-error @+1 {{element type 'ui32' is not supported on A2/A3 (supported: i32, i16, f16, f32)}}
  pto.tneg %d, %d : !pto.tile<vec, 16x64xui32>, !pto.tile<vec, 16x64xui32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xi16>) {
  // expected-error @+1 {{element type 'i16' is not supported on A2/A3 (supported: f16, f32, i32)}}
  pto.trelu %d, %d : !pto.tile<vec, 16x64xi16>, !pto.tile<vec, 16x64xi16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %a: !pto.tile<vec, 8x64xf32>) {
  // expected-error @+1 {{'src' is 8x64 but 'dst' is 16x64}}
  pto.tabs %d, %a : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 8x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x1xf32, blayout = col_major>, %s: !pto.tile<vec, 16x8xf32, blayout = col_major>, %t: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{'src' must be row_major with slayout = none (ND)}}
  pto.trowsum %d, %s, %t : !pto.tile<vec, 16x1xf32, blayout = col_major>, !pto.tile<vec, 16x8xf32, blayout = col_major>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 32x1xi8, blayout = col_major>, %s: !pto.tile<vec, 32x32xi8>) {
  // expected-error @+1 {{element type 'i8' is not supported on A2/A3 (supported: f16, f32, i32, i16)}}
  pto.trowmax %d, %s, %s : !pto.tile<vec, 32x1xi8, blayout = col_major>, !pto.tile<vec, 32x32xi8>, !pto.tile<vec, 32x32xi8>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x8xf32>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{'dst' must be an Rx1 col_major vec tile or a row_major vec tile with valid columns 1, got '!pto.tile<vec, 16x8xf32>'}}
  pto.trowmin %d, %s, %s : !pto.tile<vec, 16x8xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x1xf16, blayout = col_major>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{element type of 'dst' ('f16') differs from 'src' ('f32')}}
  pto.trowsum %d, %s, %s : !pto.tile<vec, 16x1xf16, blayout = col_major>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x1xf32, valid = 8x1, blayout = col_major>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{valid rows of 'src' (16) differ from valid rows of 'dst' (8)}}
  pto.trowsum %d, %s, %s : !pto.tile<vec, 16x1xf32, valid = 8x1, blayout = col_major>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x1xf32, blayout = col_major>, %s: !pto.tile<vec, 16x64xf32>, %t: !pto.tile<mat, 16x64xf32>) {
  // expected-error @+1 {{'tmp' must be a vec tile, got mat}}
  pto.trowsum %d, %s, %t : !pto.tile<vec, 16x1xf32, blayout = col_major>, !pto.tile<vec, 16x64xf32>, !pto.tile<mat, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x1xf32, blayout = col_major>, %s: !pto.tile<vec, 16x64xf32>, %t: !pto.tile<vec, 16x32xf32>) {
  // expected-error @+1 {{'tmp' must have the shape and element type of 'src', got '!pto.tile<vec, 16x32xf32>'}}
  pto.trowsum %d, %s, %t : !pto.tile<vec, 16x1xf32, blayout = col_major>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x32xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 2x64xf32>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{'dst' must have 1 row, got 2}}
  pto.tcolsum %d, %s : !pto.tile<vec, 2x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x32xf32>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{'dst' has 32 columns but 'src' has 64}}
  pto.tcolmax %d, %s : !pto.tile<vec, 1x32xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x64xf32, valid = 1x32>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{valid columns of 'src' (64) differ from valid columns of 'dst' (32)}}
  pto.tcolmin %d, %s : !pto.tile<vec, 1x64xf32, valid = 1x32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x32xui8>, %s: !pto.tile<vec, 16x32xui8>) {
  // expected-error @+1 {{element type 'ui8' is not supported on A2/A3 (supported: f16, f32, i16, i32)}}
  pto.tcolsum %d, %s : !pto.tile<vec, 1x32xui8>, !pto.tile<vec, 16x32xui8>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x64xf16>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{element type of 'dst' ('f16') differs from 'src' ('f32')}}
  pto.tcolsum %d, %s : !pto.tile<vec, 1x64xf16>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x8xf32>) {
  // expected-error @+1 {{'src' must hold one value per row: an Rx1 col_major vec tile or a row_major vec tile with valid columns 1, got '!pto.tile<vec, 16x8xf32>'}}
  pto.trowexpand %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x8xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x1xf32, valid = 8x1, blayout = col_major>) {
  // expected-error @+1 {{valid rows of 'dst' (16) differ from valid rows of 'src' (8)}}
  pto.trowexpand %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x1xf32, valid = 8x1, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x1xf16, blayout = col_major>) {
  // expected-error @+1 {{element type of 'src' ('f16') differs from 'dst' ('f32')}}
  pto.trowexpand %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x1xf16, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x4xi64>, %s: !pto.tile<vec, 16x4xi64, valid = 16x1>) {
  // expected-error @+1 {{element type 'i64' is not supported on A2/A3}}
  pto.trowexpand %d, %s : !pto.tile<vec, 16x4xi64>, !pto.tile<vec, 16x4xi64, valid = 16x1>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 2x64xf32>) {
  // expected-error @+1 {{'src' must have 1 row, got 2}}
  pto.tcolexpand %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 2x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 1x32xf32>) {
  // expected-error @+1 {{'src' has 32 columns but 'dst' has 64}}
  pto.tcolexpand %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 1x32xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32, valid = 16x32>, %s: !pto.tile<vec, 1x64xf32>) {
  // expected-error @+1 {{valid columns of 'dst' (32) differ from valid columns of 'src' (64)}}
  pto.tcolexpand %d, %s : !pto.tile<vec, 16x64xf32, valid = 16x32>, !pto.tile<vec, 1x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x4xi64>, %s: !pto.tile<vec, 1x4xi64>) {
  // expected-error @+1 {{element type 'i64' is not supported on A2/A3}}
  pto.tcolexpand %d, %s : !pto.tile<vec, 16x4xi64>, !pto.tile<vec, 1x4xi64>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xi32>, %s: !pto.tile<vec, 16x1xi32, blayout = col_major>) {
  // expected-error @+1 {{element type 'i32' is not supported on A2/A3 (supported: f16, f32)}}
  pto.trowexpand_op expdif %d, %d, %s : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x1xi32, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xbf16>, %s: !pto.tile<vec, 16x1xbf16, blayout = col_major>) {
  // expected-error @+1 {{A2/A3 has no bf16 vector arithmetic}}
  pto.trowexpand_op add %d, %d, %s : !pto.tile<vec, 16x64xbf16>, !pto.tile<vec, 16x64xbf16>, !pto.tile<vec, 16x1xbf16, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x16xf32>) {
  // expected-error @+1 {{'src1' must hold one value per row: an Rx1 col_major vec tile or a row_major vec tile with valid columns 1 or 32 / sizeof(T)}}
  pto.trowexpand_op mul %d, %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x16xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %a: !pto.tile<vec, 8x64xf32>) {
  // expected-error @+1 {{'src0' is 8x64 but 'dst' is 16x64}}
  pto.trowexpand_op sub %d, %a, %d : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 8x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x1xf32, valid = 4x1, blayout = col_major>) {
  // expected-error @+1 {{valid rows of 'dst' (16) differ from valid rows of 'src1' (4)}}
  pto.trowexpand_op div %d, %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x1xf32, valid = 4x1, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 2x64xf32>) {
  // expected-error @+1 {{'src1' must have 1 row, got 2}}
  pto.tcolexpand_op max %d, %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 2x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xi16>, %s: !pto.tile<vec, 1x64xi16>) {
  // expected-error @+1 {{element type 'i16' is not supported on A2/A3 (supported: f16, f32)}}
  pto.tcolexpand_op expdif %d, %d, %s : !pto.tile<vec, 16x64xi16>, !pto.tile<vec, 16x64xi16>, !pto.tile<vec, 1x64xi16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf16>, %s: !pto.tile<vec, 16x64xbf16>) {
  // expected-error @+1 {{tcvt from 'bf16' to 'f16' does not exist on A2/A3; convert through f32}}
  pto.tcvt %d, %s round rint : !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xbf16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xi8>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{tcvt from 'f32' to 'i8' does not exist on A2/A3; convert through f32}}
  pto.tcvt %d, %s round trunc : !pto.tile<vec, 16x64xi8>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf16>, %s: !pto.tile<vec, 16x32xf32>) {
  // expected-error @+1 {{valid columns of 'dst' (64) differ from valid columns of 'src' (32)}}
  pto.tcvt %d, %s round rint : !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x32xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf16>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'round' [none, rint, round, floor, ceil, trunc, odd]}}
  pto.tcvt %d, %s round nearest : !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%c: !pto.tile<vec, 64x128xf32>, %a: !pto.tile<left, 64x32xf16>, %b: !pto.tile<right, 32x128xf16>) {
  // expected-error @+1 {{'acc' must be an acc tile, got vec}}
  pto.tmatmul %c, %a, %b : !pto.tile<vec, 64x128xf32>, !pto.tile<left, 64x32xf16>, !pto.tile<right, 32x128xf16>
  return
}

// -----

func.func @f(%c: !pto.tile<acc, 64x128xf32>, %a: !pto.tile<mat, 64x32xf16>, %b: !pto.tile<right, 32x128xf16>) {
  // expected-error @+1 {{'left' must be a left tile, got mat}}
  pto.tmatmul %c, %a, %b : !pto.tile<acc, 64x128xf32>, !pto.tile<mat, 64x32xf16>, !pto.tile<right, 32x128xf16>
  return
}

// -----

func.func @f(%c: !pto.tile<acc, 64x128xf32>, %a: !pto.tile<left, 64x32xf16>, %b: !pto.tile<left, 32x128xf16>) {
  // expected-error @+1 {{'right' must be a right tile, got left}}
  pto.tmatmul_acc %c, %a, %b : !pto.tile<acc, 64x128xf32>, !pto.tile<left, 64x32xf16>, !pto.tile<left, 32x128xf16>
  return
}

// -----

func.func @f(%c: !pto.tile<acc, 64x128xf32>, %a: !pto.tile<left, 64x32xi8>, %b: !pto.tile<right, 32x128xi8>) {
  // expected-error @+1 {{element types ('f32', 'i8', 'i8') are not an A2/A3 (acc, left, right) triple: (i32, i8, i8), (f32, f16, f16), (f32, f32, f32) or (f32, bf16, bf16)}}
  pto.tmatmul %c, %a, %b : !pto.tile<acc, 64x128xf32>, !pto.tile<left, 64x32xi8>, !pto.tile<right, 32x128xi8>
  return
}

// -----

func.func @f(%c: !pto.tile<acc, 64x128xf32>, %a: !pto.tile<left, 64x32xf16>, %b: !pto.tile<right, 32x128xbf16>) {
  // expected-error @+1 {{element types ('f32', 'f16', 'bf16') are not an A2/A3 (acc, left, right) triple}}
  pto.tmatmul %c, %a, %b : !pto.tile<acc, 64x128xf32>, !pto.tile<left, 64x32xf16>, !pto.tile<right, 32x128xbf16>
  return
}

// -----

func.func @f(%c: !pto.tile<acc, 64x128xf32>, %a: !pto.tile<left, 64x32xf16>, %b: !pto.tile<right, 48x128xf16>) {
  // expected-error @+1 {{shapes do not multiply: acc 64x128, left 64x32, right 48x128}}
  pto.tmatmul_acc %c, %a, %b : !pto.tile<acc, 64x128xf32>, !pto.tile<left, 64x32xf16>, !pto.tile<right, 48x128xf16>
  return
}

// -----

func.func @f(%c: !pto.tile<acc, 64x64xf32>, %a: !pto.tile<left, 64x32xf16>, %b: !pto.tile<right, 32x128xf16>) {
  // expected-error @+1 {{shapes do not multiply: acc 64x64, left 64x32, right 32x128}}
  pto.tmatmul %c, %a, %b : !pto.tile<acc, 64x64xf32>, !pto.tile<left, 64x32xf16>, !pto.tile<right, 32x128xf16>
  return
}

// -----

func.func @f(%m: !pto.tile<vec, 16x32xui8>, %a: !pto.tile<vec, 16x64xi32>) {
  // expected-error @+1 {{A2/A3 compares i32 tiles only for equality, got lt}}
  pto.tcmp lt %m, %a, %a : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

func.func @f(%m: !pto.tile<vec, 16x32xui8>, %a: !pto.tile<vec, 16x64xi16>) {
  // expected-error @+1 {{element type 'i16' is not supported on A2/A3 (supported: i32, f16, f32)}}
  pto.tcmp eq %m, %a, %a : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xi16>, !pto.tile<vec, 16x64xi16>
  return
}

// -----

func.func @f(%m: !pto.tile<vec, 16x32xi8>, %a: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{mask must be a vec ui8 tile (packed bits), got '!pto.tile<vec, 16x32xi8>'}}
  pto.tcmp gt %m, %a, %a : !pto.tile<vec, 16x32xi8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%m: !pto.tile<vec, 8x32xui8>, %a: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{mask has 8 rows but the data has 16}}
  pto.tcmp gt %m, %a, %a : !pto.tile<vec, 8x32xui8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%m: !pto.tile<vec, 16x32xui8>, %a: !pto.tile<vec, 16x512xf32>) {
  // expected-error @+1 {{mask has 32 columns (8 bits each), too few for 512 data columns}}
  pto.tcmp ge %m, %a, %a : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x512xf32>, !pto.tile<vec, 16x512xf32>
  return
}

// -----

func.func @f(%m: !pto.tile<vec, 32x32xui8, blayout = col_major>, %a: !pto.tile<vec, 32x64xf32>) {
  // expected-error @+1 {{'mask' must be row_major with slayout = none (ND)}}
  pto.tcmp le %m, %a, %a : !pto.tile<vec, 32x32xui8, blayout = col_major>, !pto.tile<vec, 32x64xf32>, !pto.tile<vec, 32x64xf32>
  return
}

// -----

func.func @f(%m: !pto.tile<vec, 16x32xui8>, %a: !pto.tile<vec, 16x64xbf16>, %s: bf16) {
  // expected-error @+1 {{A2/A3 has no bf16 vector arithmetic}}
  pto.tcmps eq %m, %a, %s : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xbf16>, bf16
  return
}

// -----

func.func @f(%m: !pto.tile<vec, 16x32xui8>, %a: !pto.tile<vec, 16x64xi32>, %s: i32) {
  // expected-error @+1 {{A2/A3 compares i32 tiles only for equality, got ge}}
  pto.tcmps ge %m, %a, %s : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xi32>, i32
  return
}

// -----

func.func @f(%m: !pto.tile<vec, 16x32xui8>, %a: !pto.tile<vec, 16x64xi16>, %s: i16) {
  // expected-error @+1 {{A2/A3 compares 'i16' bit patterns as f16, not as integers: convert to f32 with pto.tcvt first}}
  pto.tcmps eq %m, %a, %s : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xi16>, i16
  return
}

// -----

func.func @f(%m: !pto.tile<vec, 16x32xui8>, %a: !pto.tile<vec, 16x64xf32>, %s: f16) {
  // expected-error @+1 {{scalar type 'f16' is not the tile element type 'f32'}}
  pto.tcmps ne %m, %a, %s : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, f16
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %m: !pto.tile<vec, 16x32xui8>, %t: !pto.tile<vec, 1x16xi32>) {
  // expected-error @+1 {{'tmp' must be a vec ui32 tile, got '!pto.tile<vec, 1x16xi32>'}}
  pto.tsel %d, %m, %d, %d, %t : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 1x16xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xi8>, %m: !pto.tile<vec, 16x32xui8>, %t: !pto.tile<vec, 1x16xui32>) {
  // expected-error @+1 {{element type 'i8' is not supported on A2/A3 (supported: i16, ui16, i32, ui32, f16, bf16, f32)}}
  pto.tsel %d, %m, %d, %d, %t : !pto.tile<vec, 16x64xi8>, !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xi8>, !pto.tile<vec, 16x64xi8>, !pto.tile<vec, 1x16xui32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %m: !pto.tile<vec, 8x32xui8>, %t: !pto.tile<vec, 1x16xui32>) {
  // expected-error @+1 {{mask has 8 rows but the data has 16}}
  pto.tsel %d, %m, %d, %d, %t : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 8x32xui8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 1x16xui32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{'dst' needs a pad value (zero, max or min): it is what fills the rest of the tile}}
  pto.tfillpad %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<left, 16x16xf16, pad = zero>, %s: !pto.tile<left, 16x16xf16>) {
  // expected-error @+1 {{pads vec or mat tiles, not left}}
  pto.tfillpad %d, %s : !pto.tile<left, 16x16xf16, pad = zero>, !pto.tile<left, 16x16xf16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32, pad = zero>, %s: !pto.tile<mat, 16x64xf32>) {
  // expected-error @+1 {{'src' is a mat tile but 'dst' is vec}}
  pto.tfillpad %d, %s : !pto.tile<vec, 16x64xf32, pad = zero>, !pto.tile<mat, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x32xf32, pad = zero>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{'src' is 16x64 but 'dst' is 16x32 (a vec 'dst' may be larger, not smaller)}}
  pto.tfillpad %d, %s : !pto.tile<vec, 16x32xf32, pad = zero>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<mat, 32x64xf16, blayout = col_major, slayout = row_major, pad = zero>, %s: !pto.tile<mat, 16x64xf16, blayout = col_major, slayout = row_major>) {
  // expected-error @+1 {{'src' is 16x64 but 'dst' is 32x64}}
  pto.tfillpad %d, %s : !pto.tile<mat, 32x64xf16, blayout = col_major, slayout = row_major, pad = zero>, !pto.tile<mat, 16x64xf16, blayout = col_major, slayout = row_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32, pad = zero>, %s: !pto.tile<vec, 16x64xf16>) {
  // expected-error @+1 {{element type of 'src' ('f16') differs from 'dst' ('f32')}}
  pto.tfillpad %d, %s : !pto.tile<vec, 16x64xf32, pad = zero>, !pto.tile<vec, 16x64xf16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x4xi64, pad = zero>, %s: !pto.tile<vec, 16x4xi64>) {
  // expected-error @+1 {{pads elements of 1, 2 or 4 bytes, got 'i64'}}
  pto.tfillpad %d, %s : !pto.tile<vec, 16x4xi64, pad = zero>, !pto.tile<vec, 16x4xi64>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32, blayout = col_major, pad = zero>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{'src' has blayout = row_major, slayout = none but 'dst' blayout = col_major, slayout = none}}
  pto.tfillpad %d, %s : !pto.tile<vec, 16x64xf32, blayout = col_major, pad = zero>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<mat, 16x64xf32, pad = zero>, %s: !pto.tile<mat, 16x64xf32>) {
  // expected-error @+1 {{pads mat tiles only in NZ layout (blayout = col_major, slayout = row_major) with pad = zero}}
  pto.tfillpad %d, %s : !pto.tile<mat, 16x64xf32, pad = zero>, !pto.tile<mat, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major, pad = max>, %s: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>) {
  // expected-error @+1 {{pads mat tiles only in NZ layout (blayout = col_major, slayout = row_major) with pad = zero}}
  pto.tfillpad %d, %s : !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major, pad = max>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
  return
}

// -----

func.func @f(%d: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major, pad = zero>, %s: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major, pad = zero>) {
  // expected-error @+1 {{pads mat tiles in place: 'dst' and 'src' must be the same tile}}
  pto.tfillpad %d, %s : !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major, pad = zero>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major, pad = zero>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 64x16xf32>, %s: !pto.tile<vec, 16x64xf32, blayout = col_major>) {
  // expected-error @+1 {{'src' must be row_major with slayout = none (ND)}}
  pto.ttrans %d, %s, %d : !pto.tile<vec, 64x16xf32>, !pto.tile<vec, 16x64xf32, blayout = col_major>, !pto.tile<vec, 64x16xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{the valid region of 'dst' must mirror that of 'src': dst dimension 1 is 64 but src dimension 0 is 16}}
  pto.ttrans %d, %s, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x8xf32, valid = 16x?>, %s: !pto.tile<vec, 1x16xf32, valid = 1x16>) {
  // expected-error @+1 {{the valid region of 'dst' must mirror that of 'src': dst dimension 1 is ? but src dimension 0 is 1}}
  pto.ttrans %d, %s, %s : !pto.tile<vec, 16x8xf32, valid = 16x?>, !pto.tile<vec, 1x16xf32, valid = 1x16>, !pto.tile<vec, 1x16xf32, valid = 1x16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 64x16xf16>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{element sizes differ: 'f16' and 'f32'}}
  pto.ttrans %d, %s, %s : !pto.tile<vec, 64x16xf16>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 64x16xf32>, %s: !pto.tile<vec, 16x64xf32>, %t: !pto.tile<mat, 16x64xf32>) {
  // expected-error @+1 {{'tmp' must be a vec tile, got mat}}
  pto.ttrans %d, %s, %t : !pto.tile<vec, 64x16xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<mat, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 4x16xi64>, %s: !pto.tile<vec, 16x4xi64>) {
  // expected-error @+1 {{element type 'i64' is not supported on A2/A3}}
  pto.ttrans %d, %s, %s : !pto.tile<vec, 4x16xi64>, !pto.tile<vec, 16x4xi64>, !pto.tile<vec, 16x4xi64>
  return
}

// -----

func.func @f(%d: !pto.tile<mat, 1x16xf32>, %s: !pto.tile<vec, 16x1xf32, blayout = col_major>) {
  // expected-error @+1 {{cannot move a tile from vec to mat (treshape keeps the location)}}
  pto.treshape %d, %s : !pto.tile<mat, 1x16xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x8xf32>, %s: !pto.tile<vec, 16x1xf32, blayout = col_major>) {
  // expected-error @+1 {{'dst' has 32 bytes but 'src' has 64}}
  pto.treshape %d, %s : !pto.tile<vec, 1x8xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x16xf16, blayout = col_major, slayout = row_major>, %s: !pto.tile<vec, 16x16xf16>) {
  // expected-error @+1 {{cannot reshape between boxed and unboxed layouts}}
  pto.treshape %d, %s : !pto.tile<vec, 16x16xf16, blayout = col_major, slayout = row_major>, !pto.tile<vec, 16x16xf16>
  return
}

// -----

// PTO-ISA's TCI static_asserts Rows == 1 and fills row 0's valid columns.
func.func @f(%d: !pto.tile<vec, 2x64xi32>, %s: i32) {
  // expected-error @+1 {{fills a one-row tile (PTO-ISA TCI), got 2 rows}}
  pto.tci %d, %s : !pto.tile<vec, 2x64xi32>, i32
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x64xf32>, %s: f32) {
  // expected-error @+1 {{element type 'f32' is not supported on A2/A3 (supported: i32, ui32, i16, ui16)}}
  pto.tci %d, %s : !pto.tile<vec, 1x64xf32>, f32
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x64xi32>, %s: i16) {
  // expected-error @+1 {{scalar type 'i16' is not the tile element type 'i32'}}
  pto.tci %d, %s descending : !pto.tile<vec, 1x64xi32>, i16
  return
}

// -----

func.func @f(%d: !pto.tile<mat, 1x64xi32>, %s: i32) {
  // expected-error @+1 {{'dst' must be a vec tile, got mat}}
  pto.tci %d, %s : !pto.tile<mat, 1x64xi32>, i32
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{needs two different pipes, got v -> v}}
  pto.set_flag <v -> v>, 0
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{takes two single pipes, not all}}
  pto.wait_flag <all -> v>, 0
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{attribute 'event_id' failed to satisfy constraint: 32-bit signless integer attribute whose minimum value is 0 whose maximum value is 7}}
  pto.set_flag <mte2 -> v>, 8
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{unknown pipe 'vec' (expected s, v, mte1, mte2, mte3, m, fix or all)}}
  pto.barrier <vec>
  return
}

// -----

// expected-error @+1 {{'pto.core' must be "aiv" or "aic", got "aiu"}}
func.func @k() attributes {pto.core = "aiu"} {
  return
}

// -----

// expected-error @+1 {{'pto.core' must be "aiv" or "aic", got 1 : i64}}
func.func @k() attributes {pto.core = 1} {
  return
}

// -----

// expected-error @+1 {{'pto.core' marks a kernel function, not 'builtin.module'}}
module attributes {pto.core = "aiv"} {
}

// -----

// expected-error @+1 {{unknown pto attribute 'pto.kernel' (the pto dialect defines only 'pto.core', 'pto.fifo', 'pto.cluster', 'pto.cluster_slots', 'pto.orchestration' and 'pto.runtime_env')}}
func.func @k() attributes {pto.kernel} {
  return
}

// -----

// An aiv kernel: no matmul, only vec tiles.
func.func @k(%c: !pto.tile<acc, 64x128xf32>, %a: !pto.tile<left, 64x32xf16>, %b: !pto.tile<right, 32x128xf16>) attributes {pto.core = "aiv"} {
  // expected-error @+1 {{cannot run in an aiv kernel: the cube unit is on the aic core}}
  pto.tmatmul %c, %a, %b : !pto.tile<acc, 64x128xf32>, !pto.tile<left, 64x32xf16>, !pto.tile<right, 32x128xf16>
  return
}

// -----

func.func @k() attributes {pto.core = "aiv"} {
  // expected-error @+1 {{cannot hold a mat tile in an aiv kernel: the aiv core has only vec tiles (UB)}}
  %m = pto.alloc_tile : !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
  return
}

// -----

// expected-error @+1 {{cannot hold a acc tile in an aiv kernel}}
func.func @k(%c: !pto.tile<acc, 64x128xf32>) attributes {pto.core = "aiv"} {
  return
}

// -----

// An aic kernel: no vector arithmetic, no vec tiles.
func.func @k(%v: !pto.tile<vec, 16x64xf32>) attributes {pto.core = "aic"} {
  // expected-error @+1 {{cannot run in an aic kernel: vector arithmetic runs on the aiv core}}
  pto.tadd %v, %v, %v : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @k() attributes {pto.core = "aic"} {
  // expected-error @+1 {{cannot hold a vec tile in an aic kernel: the aic core has no vec tiles (UB)}}
  %v = pto.alloc_tile : !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func private @k(memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>) attributes {pto.core = "aiv"}
func.func @orch(%a: memref<16xf32>) {
  // expected-error @+1 {{a pto-runtime task takes at most 32 tensors and 16 scalars, got 33 tensors and 0 scalars}}
  pto.submit @k ins(%a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a, %a : memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>, memref<16xf32>) outs()
  return
}

// -----

func.func private @k(memref<16xf32>, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index) attributes {pto.core = "aiv"}
func.func @orch(%a: memref<16xf32>, %n: index) {
  // expected-error @+1 {{a pto-runtime task takes at most 32 tensors and 16 scalars, got 1 tensors and 17 scalars}}
  pto.submit @k ins(%a : memref<16xf32>) outs() scalars(%n, %n, %n, %n, %n, %n, %n, %n, %n, %n, %n, %n, %n, %n, %n, %n, %n : index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index, index)
  return
}

// -----

func.func @orch(%a: memref<16xf32>) {
  // expected-error @+1 {{'nope' does not name a function}}
  pto.submit @nope ins(%a : memref<16xf32>) outs()
  return
}

// -----

func.func private @k(memref<16xf32>)
func.func @orch(%a: memref<16xf32>) {
  // expected-error @+1 {{callee 'k' is not a kernel: it has no 'pto.core' attribute}}
  pto.submit @k ins(%a : memref<16xf32>) outs()
  return
}

// -----

func.func private @k(memref<16xf32>, memref<16xf32>) attributes {pto.core = "aiv"}
func.func @orch(%a: memref<16xf32>) {
  // expected-error @+1 {{callee 'k' takes 2 arguments but the task passes 1 tensors and 0 scalars}}
  pto.submit @k ins() outs(%a : memref<16xf32>)
  return
}

// -----

// Tensors come first, then scalars.
func.func private @k(index, memref<16xf32>) attributes {pto.core = "aiv"}
func.func @orch(%a: memref<16xf32>, %n: index) {
  // expected-error @+1 {{callee argument 0 is 'index' but the task passes a tensor there}}
  pto.submit @k ins(%a : memref<16xf32>) outs() scalars(%n : index)
  return
}

// -----

func.func @orch(%a: memref<16xf32>, %v: vector<4xf32>) {
  // expected-error @+1 {{operand #1 must be variadic of index or signless integer or floating-point}}
  pto.submit @orch ins(%a : memref<16xf32>) outs() scalars(%v : vector<4xf32>)
  return
}

// -----

func.func @view_location() {
  %t = pto.alloc_tile : !pto.tile<mat, 16x64xf16, blayout = col_major, slayout = row_major>
  // expected-error @+1 {{views a mat tile as a vec tile; a view stays in its location}}
  %v = pto.tile_view %t : !pto.tile<mat, 16x64xf16, blayout = col_major, slayout = row_major> -> !pto.tile<vec, 16x64xf16>
  return
}

// -----

func.func @view_larger() {
  %t = pto.alloc_tile : !pto.tile<vec, 16x64xf32>
  // expected-error @+1 {{view of 8192 bytes is larger than its 4096-byte source}}
  %v = pto.tile_view %t : !pto.tile<vec, 16x64xf32> -> !pto.tile<vec, 32x64xf32>
  return
}

// -----

func.func @view_valid_count(%n: index) {
  %t = pto.alloc_tile : !pto.tile<vec, 16x64xf32>
  // expected-error @+1 {{needs one index operand per '?' valid size of '!pto.tile<vec, 16x64xf32, valid = ?x?>' (2), got 1}}
  %v = pto.tile_view %t valid [%n] : !pto.tile<vec, 16x64xf32> -> !pto.tile<vec, 16x64xf32, valid = ?x?>
  return
}

// -----

func.func @cores() {
  // expected-error @+1 {{core must be "aiv" or "aic", got "npu"}}
  %n = pto.available_cores "npu"
  return
}

// -----

// expected-error @+1 {{'pto.orchestration' is a unit attribute of a function}}
func.func @orchestration_marker() attributes {pto.orchestration = 1 : i32} {
  return
}

// -----

func.func private @k_aic(memref<16xf32>) attributes {pto.core = "aiv"}
func.func private @k_aiv(memref<16xf32>) attributes {pto.core = "aiv"}
func.func @orch(%a: memref<16xf32>) {
  // expected-error @+1 {{in a cluster task 'k_aic' must be an aic kernel, not aiv}}
  pto.submit @k_aic ins(%a : memref<16xf32>) outs() {aiv_callee = @k_aiv}
  return
}

// -----

func.func private @k_aic(memref<16xf32>) attributes {pto.core = "aic"}
func.func private @k_aiv(memref<16xf32>, index) attributes {pto.core = "aiv"}
func.func @orch(%a: memref<16xf32>) {
  // expected-error @+1 {{callee 'k_aiv' takes 2 arguments but the task passes 1 tensors and 0 scalars}}
  pto.submit @k_aic ins(%a : memref<16xf32>) outs() {aiv_callee = @k_aiv}
  return
}

// -----

func.func @f(%s: !pto.tile<vec, 32x32xf32>) attributes {pto.core = "aiv"} {
  // expected-error @+1 {{a c2v push runs on the aic core, but this kernel is aiv}}
  pto.tpush c2v %s : !pto.tile<vec, 32x32xf32>
  return
}

// -----

func.func @f(%s: !pto.tile<vec, 32x32xf32>) {
  // expected-error @+1 {{a c2v push takes a acc tile, got '!pto.tile<vec, 32x32xf32>'}}
  pto.tpush c2v %s : !pto.tile<vec, 32x32xf32>
  return
}

// -----

func.func @f(%s: !pto.tile<acc, 32x32xf32>) {
  // expected-error @+1 {{a v2c push takes a vec tile, got '!pto.tile<acc, 32x32xf32>'}}
  pto.tpush v2c %s : !pto.tile<acc, 32x32xf32>
  return
}

// -----

func.func @f(%s: !pto.tile<mat, 32x32xf32, blayout = col_major, slayout = row_major>) attributes {pto.core = "aic"} {
  // expected-error @+1 {{a c2v pop runs on the aiv core, but this kernel is aic}}
  pto.tpop c2v %s : !pto.tile<mat, 32x32xf32, blayout = col_major, slayout = row_major>
  return
}

// -----

func.func @f(%s: !pto.tile<vec, 32x32xf32>) {
  // expected-error @+1 {{a v2c pop fills a mat tile, got '!pto.tile<vec, 32x32xf32>'}}
  pto.tpop v2c %s : !pto.tile<vec, 32x32xf32>
  return
}

// -----

func.func @f(%s: !pto.tile<mat, 32x32xf32>) attributes {pto.core = "aic"} {
  // expected-error @+1 {{pops into a mat tile in NZ layout (blayout = col_major, slayout = row_major)}}
  pto.tpop v2c %s : !pto.tile<mat, 32x32xf32>
  return
}

// -----

func.func @f(%s: !pto.tile<vec, 32x1xf32, blayout = col_major>) attributes {pto.core = "aiv"} {
  // expected-error @+1 {{moves vec tiles in row_major (ND) layout}}
  pto.tpop c2v %s : !pto.tile<vec, 32x1xf32, blayout = col_major>
  return
}

// -----

func.func @f() attributes {pto.core = "aiv"} {
  // expected-error @+1 {{a v2c pop runs on the aic core, but this kernel is aiv}}
  pto.tfree v2c
  return
}

// -----

// expected-error @+1 {{'pto.fifo' is array<i64: ring argument, c2v slot bytes, v2c slot bytes[, c2v slots, v2c slots]> on a kernel}}
func.func private @k(memref<16xf32>) attributes {pto.core = "aiv", pto.fifo = array<i64: 0, 16>}

// -----

// expected-error @+1 {{'pto.fifo' names argument 1, which is not a static 1-D memref}}
func.func private @k(memref<1024xf32>, index) attributes {pto.core = "aiv", pto.fifo = array<i64: 1, 64, 64>}

// -----

// expected-error @+1 {{'pto.fifo' needs 512 bytes (its slots), the ring has 256}}
func.func private @k(memref<64xf32>) attributes {pto.core = "aiv", pto.fifo = array<i64: 0, 128, 128>}

// -----

// Slot counts: 3 c2v slots of 128 bytes and one v2c slot of 64 need 448 bytes.
// expected-error @+1 {{'pto.fifo' needs 448 bytes (its slots), the ring has 256}}
func.func private @k(memref<64xf32>) attributes {pto.core = "aiv", pto.fifo = array<i64: 0, 128, 64, 3, 1>}

// -----

// expected-error @+1 {{'pto.fifo' slots have a size of at least 0 bytes and a count of at least 1}}
func.func private @k(memref<64xf32>) attributes {pto.core = "aiv", pto.fifo = array<i64: 0, 16, 16, 0, 1>}

// -----

// expected-error @+1 {{'pto.cluster' names the cluster program of a kernel function with 'pto.core'}}
func.func private @k(memref<64xf32>) attributes {pto.cluster = "p"}

// -----

// expected-error @+1 {{'pto.cluster_slots' is array<i64: c2v slots, v2c slots> on a kernel with 'pto.cluster'}}
func.func private @k(memref<64xf32>) attributes {pto.core = "aiv", pto.cluster = "p", pto.cluster_slots = array<i64: 2>}

// -----

func.func @k() attributes {pto.core = "aiv", pto.cluster = "p"} {
  // expected-error @+1 {{carries a tile value (!tile.tile), got 'f32'}}
  %x = pto.cluster_recv c2v : f32
  return
}

// -----

func.func @k(%t: !tile.tile<16x16xf32>) attributes {pto.core = "aiv", pto.cluster = "p"} {
  // expected-error @+1 {{a c2v push runs on the aic core, but this kernel is aiv}}
  pto.cluster_send c2v %t : !tile.tile<16x16xf32>
  return
}

// -----

func.func @k() attributes {pto.core = "aic", pto.cluster = "p"} {
  // expected-error @+1 {{a c2v pop runs on the aiv core, but this kernel is aic}}
  %t = pto.cluster_recv c2v : !tile.tile<16x16xf32>
  return
}

// -----

// expected-error @+1 {{'pto.runtime_env' is a dictionary of integers on an orchestration function}}
func.func @o() attributes {pto.orchestration, pto.runtime_env = {ring_task_window = "big"}} {
  return
}

// -----

func.func @s() attributes {pto.orchestration} {
  // expected-error @+1 {{a task window holds at least 1 task, got 0}}
  pto.schedule window 0 lanes 0 dispatch "dynamic"
  return
}

// -----

func.func @s() attributes {pto.orchestration} {
  // expected-error @+1 {{lanes is a cluster count, 0 (none) or -1 (one per available cluster), got -2}}
  pto.schedule window 8 lanes -2 dispatch "dynamic"
  return
}

// -----

func.func @s() {
  // expected-error @+1 {{belongs in an orchestration function (one with 'pto.orchestration')}}
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  return
}

// -----

func.func @s() attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  // expected-error @+1 {{is the second of its function: a function has one schedule}}
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  return
}

// -----

func.func @s(%n: index) attributes {pto.orchestration} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{belongs at the top of its function's body}}
    pto.schedule window 8 lanes 0 dispatch "dynamic"
  }
  return
}

// -----

func.func @s() attributes {pto.orchestration} {
  // expected-error @+1 {{needs a 'pto.schedule' in its function: it is submitted through the schedule's submitter}}
  pto.scope "w.py:1:1" {
  }
  return
}

// -----

func.func @s() attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  pto.scope "w.py:1:1" {
    // expected-error @+1 {{is inside another scope: scopes do not nest here}}
    pto.scope "w.py:2:1" {
    }
  }
  return
}

// -----

func.func @s() attributes {pto.orchestration} {
  // expected-error @+1 {{needs a 'pto.schedule' in its function}}
  pto.ordered {
  }
  return
}

// -----

func.func @s() attributes {pto.orchestration} {
  // expected-error @+1 {{is outside a 'pto.ordered': it ends one of its iterations}}
  pto.order_barrier
  return
}

// -----

func.func @s(%t: memref<8xi32>, %b: index) attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  // expected-error @+1 {{needs 1 indices for a rank-1 tensor, got 0}}
  pto.guard %t[] "ne" %b : memref<8xi32>, index {
  }
  return
}

// -----

func.func @s(%t: memref<8xf32>, %i: index, %b: index) attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  // expected-error @+1 {{compares elements of an integer tensor, got 'f32'}}
  pto.guard %t[%i] "ne" %b : memref<8xf32>, index {
  }
  return
}

// -----

func.func @s(%t: memref<8xi32>, %i: index, %b: index) attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  // expected-error @+1 {{predicate must be eq, ne, lt, le, gt or ge, got "neq"}}
  pto.guard %t[%i] "neq" %b : memref<8xi32>, index {
  }
  return
}

// -----

func.func @s(%t: memref<?x64xf32>, %i: index) attributes {pto.orchestration} {
  // expected-error @+1 {{needs 2 offsets for a rank-2 tensor, got 1}}
  %v = pto.tensor_view %t[%i] sizes [%i, %i] {at = ""} : memref<?x64xf32> -> memref<16x64xf32>
  return
}

// -----

func.func @s(%t: memref<?x64xf32>, %i: index) attributes {pto.orchestration} {
  // expected-error @+1 {{needs 2 sizes for a rank-2 view, got 1}}
  %v = pto.tensor_view %t[%i, %i] sizes [%i] {at = ""} : memref<?x64xf32> -> memref<16x64xf32>
  return
}

// -----

func.func @s(%t: memref<?x64xf32>, %i: index) attributes {pto.orchestration} {
  // expected-error @+1 {{a view has 1 to 2 dimensions (its tensor's), got 3}}
  %v = pto.tensor_view %t[%i, %i] sizes [%i, %i, %i] {at = ""} : memref<?x64xf32> -> memref<1x16x64xf32>
  return
}

// -----

func.func @s(%t: memref<?x64xf32>, %i: index) attributes {pto.orchestration} {
  // expected-error @+1 {{views 'f32' elements as 'f16'}}
  %v = pto.tensor_view %t[%i, %i] sizes [%i, %i] {at = ""} : memref<?x64xf32> -> memref<16x64xf16>
  return
}

// -----

func.func @s(%t: memref<?x64xf32>, %i: index) {
  // expected-error @+1 {{belongs in an orchestration function (one with 'pto.orchestration')}}
  %v = pto.tensor_view %t[%i, %i] sizes [%i, %i] {at = ""} : memref<?x64xf32> -> memref<16x64xf32>
  return
}

// -----

func.func @s() attributes {pto.orchestration} {
  // expected-error @+1 {{a pto-runtime tensor has 1 to 5 dimensions, got 6}}
  %r = pto.alloc_tensor : memref<1x1x1x1x1x2xf32>
  return
}

// -----

func.func @s() attributes {pto.orchestration} {
  // expected-error @+1 {{element type 'f64' is not a PTO element type}}
  %r = pto.alloc_tensor : memref<2x16xf64>
  return
}

// -----

func.func @s() attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  pto.scope "w.py:1:1" {
    // expected-error @+1 {{is inside a scope: it is allocated once for the run}}
    %r = pto.alloc_tensor : memref<2x16xf32>
  }
  return
}

// -----

func.func @o(%a: memref<16xf32>) attributes {pto.orchestration} {
  return
}
func.func @s(%a: memref<16xf32>) attributes {pto.orchestration} {
  // expected-error @+1 {{needs a 'pto.schedule' in its function}}
  pto.task @o(%a) {access = ["in"], at = ""} : memref<16xf32>
  return
}

// -----

func.func @o(%a: memref<16xf32>) attributes {pto.orchestration} {
  return
}
func.func @s(%a: memref<16xf32>) attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  // expected-error @+1 {{needs one access per argument (1), got 2}}
  pto.task @o(%a) {access = ["in", "out"], at = ""} : memref<16xf32>
  return
}

// -----

func.func @o(%a: memref<16xf32>, %s: f32) attributes {pto.orchestration} {
  return
}
func.func @s(%a: memref<16xf32>, %s: f32) attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  // expected-error @+1 {{argument 0 is a tensor: its access is in, out or inout, got "none"}}
  pto.task @o(%a, %s) {access = ["none", "none"], at = ""} : memref<16xf32>, f32
  return
}

// -----

func.func @o(%a: memref<16xf32>, %s: f32) attributes {pto.orchestration} {
  return
}
func.func @s(%a: memref<16xf32>, %s: f32) attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  // expected-error @+1 {{argument 1 is a scalar: its access is none, got "in"}}
  pto.task @o(%a, %s) {access = ["in", "in"], at = ""} : memref<16xf32>, f32
  return
}

// -----

func.func @s(%a: memref<16xf32>) attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  // expected-error @+1 {{'missing' does not name a function}}
  pto.task @missing(%a) {access = ["in"], at = ""} : memref<16xf32>
  return
}

// -----

func.func @k(%a: memref<16xf32>) attributes {pto.core = "aiv"} {
  return
}
func.func @s(%a: memref<16xf32>) attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  // expected-error @+1 {{'k' is not an orchestration function: a task calls a kernel's orchestration}}
  pto.task @k(%a) {access = ["in"], at = ""} : memref<16xf32>
  return
}

// -----

func.func @o(%a: memref<16xf32>, %b: memref<16xf32>) attributes {pto.orchestration} {
  return
}
func.func @s(%a: memref<16xf32>) attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  // expected-error @+1 {{'o' takes 2 arguments, the task passes 1}}
  pto.task @o(%a) {access = ["in"], at = ""} : memref<16xf32>
  return
}

// -----

func.func @o(%a: memref<16xf32>, %b: f32) attributes {pto.orchestration} {
  return
}
func.func @s(%a: memref<16xf32>) attributes {pto.orchestration} {
  pto.schedule window 8 lanes 0 dispatch "dynamic"
  // expected-error @+1 {{argument 1 of 'o' is 'f32', the task passes 'memref<16xf32>'}}
  pto.task @o(%a, %a) {access = ["in", "in"], at = ""} : memref<16xf32>, memref<16xf32>
  return
}

// -----

func.func @s() {
  // expected-error @+1 {{belongs in an orchestration function (one with 'pto.orchestration')}}
  pto.scope "w.py:1:1" {
  }
  return
}

// -----

func.func @s(%t: memref<8xi32>, %i: index, %b: index) attributes {pto.orchestration} {
  // expected-error @+1 {{needs a 'pto.schedule' in its function}}
  pto.guard %t[%i] "ne" %b : memref<8xi32>, index {
  }
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 32x1xi32, blayout = col_major>, %s: !pto.tile<vec, 32x32xi8>) {
  // expected-error @+1 {{'pto.trowargmax' op element type 'i8' is not supported on A2/A3 (supported: f16, f32, i32, i16)}}
  pto.trowargmax %d, %s, %s : !pto.tile<vec, 32x1xi32, blayout = col_major>, !pto.tile<vec, 32x32xi8>, !pto.tile<vec, 32x32xi8>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x8xi32>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{'pto.trowargmin' op 'dst' must be an Rx1 col_major vec tile or a row_major vec tile with valid columns 1, got '!pto.tile<vec, 16x8xi32>'}}
  pto.trowargmin %d, %s, %s : !pto.tile<vec, 16x8xi32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x1xf32, blayout = col_major>, %s: !pto.tile<vec, 16x64xf32>) {
  // expected-error @+1 {{'pto.trowargmax' op 'dst' holds column indices: i32 or ui32, got 'f32'}}
  pto.trowargmax %d, %s, %s : !pto.tile<vec, 16x1xf32, blayout = col_major>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x1xi32, blayout = col_major>, %s: !pto.tile<vec, 16x64xf32, valid = 8x64>) {
  // expected-error @+1 {{'pto.trowargmax' op valid rows of 'src' (8) differ from valid rows of 'dst' (16)}}
  pto.trowargmax %d, %s, %s : !pto.tile<vec, 16x1xi32, blayout = col_major>, !pto.tile<vec, 16x64xf32, valid = 8x64>, !pto.tile<vec, 16x64xf32, valid = 8x64>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x1xi32, blayout = col_major>, %s: !pto.tile<vec, 16x64xf32>, %t: !pto.tile<vec, 16x64xf16>) {
  // expected-error @+1 {{'pto.trowargmax' op 'tmp' must have the shape and element type of 'src', got '!pto.tile<vec, 16x64xf16>'}}
  pto.trowargmax %d, %s, %t : !pto.tile<vec, 16x1xi32, blayout = col_major>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x1xi32, blayout = col_major>, %s: !pto.tile<vec, 16x64xf32, blayout = col_major>) {
  // expected-error @+1 {{'pto.trowargmax' op 'src' must be row_major with slayout = none (ND)}}
  pto.trowargmax %d, %s, %s : !pto.tile<vec, 16x1xi32, blayout = col_major>, !pto.tile<vec, 16x64xf32, blayout = col_major>, !pto.tile<vec, 16x64xf32, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x128xi32>, %s: !pto.tile<vec, 16x64xi32>, %i: !pto.tile<vec, 16x64xui32>) {
  // expected-error @+1 {{'pto.tsort32' op element type 'i32' is not supported on A2/A3 (supported: f16, f32)}}
  pto.tsort32 %d, %s, %i : !pto.tile<vec, 16x128xi32>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xui32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x128xf32>, %s: !pto.tile<vec, 16x64xf32, valid = 16x40>, %i: !pto.tile<vec, 16x64xui32, valid = 16x40>) {
  // expected-error @+1 {{'pto.tsort32' op sorts whole blocks of 32: the valid columns of 'src' must be a multiple of 32, got 40}}
  pto.tsort32 %d, %s, %i : !pto.tile<vec, 16x128xf32>, !pto.tile<vec, 16x64xf32, valid = 16x40>, !pto.tile<vec, 16x64xui32, valid = 16x40>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x128xf32>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xi32>) {
  // expected-error @+1 {{'pto.tsort32' op 'idx' must be a ui32 tile, got '!pto.tile<vec, 16x64xi32>'}}
  pto.tsort32 %d, %s, %i : !pto.tile<vec, 16x128xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x128xf32>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x32xui32>) {
  // expected-error @+1 {{'pto.tsort32' op 'idx' is 16x32 but 'src' is 16x64}}
  pto.tsort32 %d, %s, %i : !pto.tile<vec, 16x128xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x32xui32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xui32>) {
  // expected-error @+1 {{'pto.tsort32' op 'dst' holds 8-byte (value, index) pairs: it must be 16x128, got 16x64}}
  pto.tsort32 %d, %s, %i : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xui32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x128xf32, valid = 8x128>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xui32>) {
  // expected-error @+1 {{'pto.tsort32' op valid rows of 'src' (16) differ from valid rows of 'dst' (8)}}
  pto.tsort32 %d, %s, %i : !pto.tile<vec, 16x128xf32, valid = 8x128>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xui32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x128xf16>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xui32>) {
  // expected-error @+1 {{'pto.tsort32' op element type of 'dst' ('f16') differs from 'src' ('f32')}}
  pto.tsort32 %d, %s, %i : !pto.tile<vec, 16x128xf16>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xui32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 2x256xf32>, %s: !pto.tile<vec, 2x256xf32>) {
  // expected-error @+1 {{'pto.tmrgsort' op merges one-row tiles, got 2 and 2 rows}}
  pto.tmrgsort %d, %s block 64 : !pto.tile<vec, 2x256xf32>, !pto.tile<vec, 2x256xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x256xi32>, %s: !pto.tile<vec, 1x256xi32>) {
  // expected-error @+1 {{'pto.tmrgsort' op element type 'i32' is not supported on A2/A3 (supported: f16, f32)}}
  pto.tmrgsort %d, %s block 64 : !pto.tile<vec, 1x256xi32>, !pto.tile<vec, 1x256xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x512xf32>, %s: !pto.tile<vec, 1x256xf32>) {
  // expected-error @+1 {{'pto.tmrgsort' op 'dst' has 512 columns but 'src' has 256}}
  pto.tmrgsort %d, %s block 64 : !pto.tile<vec, 1x512xf32>, !pto.tile<vec, 1x256xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x256xf32>, %s: !pto.tile<vec, 1x256xf32>) {
  // expected-error @+1 {{'pto.tmrgsort' op block_len must be a multiple of 64, got 32}}
  pto.tmrgsort %d, %s block 32 : !pto.tile<vec, 1x256xf32>, !pto.tile<vec, 1x256xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x384xf32>, %s: !pto.tile<vec, 1x384xf32>) {
  // expected-error @+1 {{'pto.tmrgsort' op merges groups of 4 runs: the valid columns of 'src' (384) must be a multiple of 4 x 64}}
  pto.tmrgsort %d, %s block 64 : !pto.tile<vec, 1x384xf32>, !pto.tile<vec, 1x384xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x65536xf16>, %s: !pto.tile<vec, 1x65536xf16>) {
  // expected-error @+1 {{'pto.tmrgsort' op merges at most 255 groups of 4 runs at once, got 256}}
  pto.tmrgsort %d, %s block 64 : !pto.tile<vec, 1x65536xf16>, !pto.tile<vec, 1x65536xf16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x32768xf32>, %s: !pto.tile<vec, 1x32768xf32>) {
  // expected-error @+1 {{'pto.tmrgsort' op 'src' and 'dst' take 262144 bytes together; A2/A3's TMRGSORT needs them in 196608 (its UB)}}
  pto.tmrgsort %d, %s block 256 : !pto.tile<vec, 1x32768xf32>, !pto.tile<vec, 1x32768xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 8x256xf32, blayout = col_major>, %s: !pto.tile<vec, 1x256xf32>) {
  // expected-error @+1 {{'pto.tmrgsort' op 'dst' must be row_major with slayout = none (ND)}}
  pto.tmrgsort %d, %s block 64 : !pto.tile<vec, 8x256xf32, blayout = col_major>, !pto.tile<vec, 1x256xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 1x256xf16>, %s: !pto.tile<vec, 1x256xf32>) {
  // expected-error @+1 {{'pto.tmrgsort' op element type of 'dst' ('f16') differs from 'src' ('f32')}}
  pto.tmrgsort %d, %s block 64 : !pto.tile<vec, 1x256xf16>, !pto.tile<vec, 1x256xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<mat, 16x64xf32>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xi32>) {
  // expected-error @+1 {{'pto.tscatter' op scatters into a vec tile}}
  pto.tscatter %d, %s, %i : !pto.tile<mat, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x64xf16>, %i: !pto.tile<vec, 16x64xi32>) {
  // expected-error @+1 {{'pto.tscatter' op element type of 'src' ('f16') differs from 'dst' ('f32')}}
  pto.tscatter %d, %s, %i : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x8xi64>, %s: !pto.tile<vec, 16x8xi64>, %i: !pto.tile<vec, 16x8xi32>) {
  // expected-error @+1 {{'pto.tscatter' op element type 'i64' is not supported on A2/A3 (supported: i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32)}}
  pto.tscatter %d, %s, %i : !pto.tile<vec, 16x8xi64>, !pto.tile<vec, 16x8xi64>, !pto.tile<vec, 16x8xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf16>, %s: !pto.tile<vec, 16x64xf16>, %i: !pto.tile<vec, 16x64xi32>) {
  // expected-error @+1 {{'pto.tscatter' op offsets of 'f16' elements must be i16 or ui16 (A2/A3's TSCATTER), got '!pto.tile<vec, 16x64xi32>'}}
  pto.tscatter %d, %s, %i : !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xi16>) {
  // expected-error @+1 {{'pto.tscatter' op offsets of 'f32' elements must be i32 or ui32 (A2/A3's TSCATTER), got '!pto.tile<vec, 16x64xi16>'}}
  pto.tscatter %d, %s, %i : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xi32, blayout = col_major>) {
  // expected-error @+1 {{'pto.tscatter' op 'idx' must be row_major with slayout = none (ND), got blayout = col_major, slayout = none}}
  pto.tscatter %d, %s, %i : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi32, blayout = col_major>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x64xf32, valid = 16x8>, %i: !pto.tile<vec, 16x64xi32>) {
  // expected-error @+1 {{'pto.tscatter' op valid columns of 'src' (8) differ from valid columns of 'idx' (64)}}
  pto.tscatter %d, %s, %i : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32, valid = 16x8>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

func.func @f(%t: !pto.gtensor<?x128xf16>, %s: !pto.tile<vec, 16x128xf16, blayout = col_major>, %i: !pto.tile<vec, 1x16xi32>) {
  // expected-error @+1 {{'pto.mscatter' op 'src' must be row_major with slayout = none (ND), got blayout = col_major, slayout = none}}
  pto.mscatter %t, %s, %i : !pto.gtensor<?x128xf16>, !pto.tile<vec, 16x128xf16, blayout = col_major>, !pto.tile<vec, 1x16xi32>
  return
}

// -----

func.func @f(%t: !pto.gtensor<?x128xf16>, %s: !pto.tile<vec, 8x128xf16>, %i: !pto.tile<vec, 8x1xi32, blayout = col_major>) {
  // expected-error @+1 {{'pto.mscatter' op indices must be a 1xR row_major vec i32 tile (what A2/A3's MSCATTER reads), got '!pto.tile<vec, 8x1xi32, blayout = col_major>'}}
  pto.mscatter %t, %s, %i : !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x128xf16>, !pto.tile<vec, 8x1xi32, blayout = col_major>
  return
}

// -----

func.func @f(%t: !pto.gtensor<?x128xf16>, %s: !pto.tile<vec, 8x128xf16>, %i: !pto.tile<vec, 1x8xi32, valid = 1x6>) {
  // expected-error @+1 {{'pto.mscatter' op scatters 8 rows of 'src' by 6 valid indices}}
  pto.mscatter %t, %s, %i : !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x128xf16>, !pto.tile<vec, 1x8xi32, valid = 1x6>
  return
}

// -----

func.func @f(%t: !pto.gtensor<?x128xf16>, %s: !pto.tile<vec, 16x128xf16>, %i: !pto.tile<vec, 1x8xi32, valid = 1x?>) {
  // expected-error @+1 {{'pto.mscatter' op 'src' has 16 valid rows but 'idx' holds 8 indices}}
  pto.mscatter %t, %s, %i : !pto.gtensor<?x128xf16>, !pto.tile<vec, 16x128xf16>, !pto.tile<vec, 1x8xi32, valid = 1x?>
  return
}


// -----

func.func @f(%t: !pto.gtensor<?x128xf32>, %s: !pto.tile<vec, 8x128xf16>, %i: !pto.tile<vec, 1x8xi32>) {
  // expected-error @+1 {{'pto.mscatter' op tile element type 'f16' differs from the table's 'f32'}}
  pto.mscatter %t, %s, %i : !pto.gtensor<?x128xf32>, !pto.tile<vec, 8x128xf16>, !pto.tile<vec, 1x8xi32>
  return
}

// -----

func.func @f(%t: !pto.gtensor<?x4xi64>, %s: !pto.tile<vec, 8x4xi64>, %i: !pto.tile<vec, 1x8xi32>) {
  // expected-error @+1 {{'pto.mscatter' op element type 'i64' is not supported on A2/A3}}
  pto.mscatter %t, %s, %i : !pto.gtensor<?x4xi64>, !pto.tile<vec, 8x4xi64>, !pto.tile<vec, 1x8xi32>
  return
}

// -----

func.func @f(%t: !pto.gtensor<?x64xf16>, %s: !pto.tile<vec, 8x128xf16>, %i: !pto.tile<vec, 1x8xi32>) {
  // expected-error @+1 {{'pto.mscatter' op 'src' has 128 valid columns but the table has 64}}
  pto.mscatter %t, %s, %i : !pto.gtensor<?x64xf16>, !pto.tile<vec, 8x128xf16>, !pto.tile<vec, 1x8xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<mat, 16x64xf32>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xi32>) {
  // expected-error @+1 {{'pto.tgather' op gathers between vec tiles}}
  pto.tgather %d, %s, %i, %i : !pto.tile<mat, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf16>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xi32>) {
  // expected-error @+1 {{'pto.tgather' op element type of 'src' ('f32') differs from 'dst' ('f16')}}
  pto.tgather %d, %s, %i, %i : !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xi8>, %s: !pto.tile<vec, 16x64xi8>, %i: !pto.tile<vec, 16x64xi32>) {
  // expected-error @+1 {{'pto.tgather' op gathers 16- or 32-bit elements, got 'i8'}}
  pto.tgather %d, %s, %i, %i : !pto.tile<vec, 16x64xi8>, !pto.tile<vec, 16x64xi8>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xi16>) {
  // expected-error @+1 {{'pto.tgather' op 'indices' must be a vec i32 or ui32 tile, got '!pto.tile<vec, 16x64xi16>'}}
  pto.tgather %d, %s, %i, %i : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi16>, !pto.tile<vec, 16x64xi16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32, valid = 8x64>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xi32>) {
  // expected-error @+1 {{'pto.tgather' op valid rows of 'dst' (8) differ from valid rows of 'indices' (16)}}
  pto.tgather %d, %s, %i, %i : !pto.tile<vec, 16x64xf32, valid = 8x64>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xi32>, %t: !pto.tile<vec, 16x32xi32>) {
  // expected-error @+1 {{'pto.tgather' op 'tmp' must be a vec tile of the element type of 'indices' with at least the rows and columns of 'dst', got '!pto.tile<vec, 16x32xi32>'}}
  pto.tgather %d, %s, %i, %t : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x32xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x64xf32>, %i: !pto.tile<vec, 16x64xi32>, %t: !pto.tile<vec, 16x64xi32, valid = 16x8>) {
  // expected-error @+1 {{'pto.tgather' op valid columns of 'indices' (64) differ from valid columns of 'tmp' (8)}}
  pto.tgather %d, %s, %i, %t : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32, valid = 16x8>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x32xi8>, %s: !pto.tile<vec, 16x64xi8>) {
  // expected-error @+1 {{'pto.tgather_mask' op gathers 16- or 32-bit elements, got 'i8'}}
  pto.tgather_mask p0101 %d, %s : !pto.tile<vec, 16x32xi8>, !pto.tile<vec, 16x64xi8>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf16>, %s: !pto.tile<vec, 16x128xf32>) {
  // expected-error @+1 {{'pto.tgather_mask' op 'dst' elements ('f16') must have the size of 'src' elements ('f32')}}
  pto.tgather_mask p0101 %d, %s : !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 8x64xf32>, %s: !pto.tile<vec, 16x128xf32>) {
  // expected-error @+1 {{'pto.tgather_mask' op 'dst' has 8 rows but 'src' has 16}}
  pto.tgather_mask p1010 %d, %s : !pto.tile<vec, 8x64xf32>, !pto.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32, valid = 16x8>, %s: !pto.tile<vec, 16x128xf32>) {
  // expected-error @+1 {{'pto.tgather_mask' op writes 'dst' as one stream: all of its 64 columns must be valid}}
  pto.tgather_mask p1010 %d, %s : !pto.tile<vec, 16x64xf32, valid = 16x8>, !pto.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x128xf32>) {
  // expected-error @+1 {{'pto.tgather_mask' op keeps 1 of every 4 elements: each row of 'src' must fill a row of 'dst', so src's valid columns must be 256, got 128}}
  pto.tgather_mask p0001 %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x128xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x128xf32, valid = 8x128>) {
  // expected-error @+1 {{'pto.tgather_mask' op valid rows of 'src' (8) differ from valid rows of 'dst' (16)}}
  pto.tgather_mask p0101 %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x128xf32, valid = 8x128>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %s: !pto.tile<vec, 16x128xf32>) {
  // expected-error @+1 {{custom op 'pto.tgather_mask' expected string or keyword containing one of the following enum values for attribute 'pattern' [p0101, p1010, p0001, p0010, p0100, p1000]}}
  pto.tgather_mask p1111 %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x128xf32>
  return
}

// -----

// TEXTRACT / TINSERT between vec tiles (A2/A3's vec -> vec forms).
func.func @f(%d: !pto.tile<vec, 16x1xf32, blayout = col_major>, %s: !pto.tile<vec, 16x64xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pto.textract' op 'dst' must be row_major with slayout = none (ND), got blayout = col_major, slayout = none}}
  pto.textract %d, %s[%c0, %c0] : !pto.tile<vec, 16x1xf32, blayout = col_major>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x32xf16>, %s: !pto.tile<vec, 16x64xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pto.textract' op element type of 'dst' ('f16') differs from 'src' ('f32')}}
  pto.textract %d, %s[%c0, %c0] : !pto.tile<vec, 16x32xf16>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x32xi64>, %s: !pto.tile<vec, 16x64xi64>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pto.textract' op element type 'i64' is not supported on A2/A3 (supported: i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32)}}
  pto.textract %d, %s[%c0, %c0] : !pto.tile<vec, 16x32xi64>, !pto.tile<vec, 16x64xi64>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 32x32xf32>, %s: !pto.tile<vec, 16x64xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pto.textract' op a 32x32 block does not fit in the 16x64 'src'}}
  pto.textract %d, %s[%c0, %c0] : !pto.tile<vec, 32x32xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x32xi8, valid = 16x7>, %s: !pto.tile<vec, 16x64xi8>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pto.textract' op moves rows of 7 'i8' elements: A2/A3 copies whole 2-byte units}}
  pto.textract %d, %s[%c0, %c0] : !pto.tile<vec, 16x32xi8, valid = 16x7>, !pto.tile<vec, 16x64xi8>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 8x32xf32>, %s: !pto.tile<vec, 16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c12 = arith.constant 12 : index
  // expected-error @+1 {{'pto.textract' op rows [12, 20) lie outside the 16 rows of 'src'}}
  pto.textract %d, %s[%c12, %c0] : !pto.tile<vec, 8x32xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 8x32xf32>, %s: !pto.tile<vec, 16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c40 = arith.constant 40 : index
  // expected-error @+1 {{'pto.textract' op columns [40, 72) lie outside the 64 columns of 'src'}}
  pto.textract %d, %s[%c0, %c40] : !pto.tile<vec, 8x32xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 8x32xf32>, %s: !pto.tile<vec, 16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'pto.textract' op column offset 4 is 16 bytes: A2/A3 moves vec blocks from 32-byte-aligned columns (a multiple of 8 'f32' elements) unless the block is one element}}
  pto.textract %d, %s[%c0, %c4] : !pto.tile<vec, 8x32xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 8x32xf32>, %s: !pto.tile<vec, 16x64xf32>, %j: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pto.textract' op needs a constant column offset (A2/A3 moves vec blocks from 32-byte-aligned columns)}}
  pto.textract %d, %s[%c0, %j] : !pto.tile<vec, 8x32xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 32x64xf32>, %s: !pto.tile<vec, 16x64xf16>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'pto.tinsert' op element type of 'src' ('f16') differs from 'dst' ('f32')}}
  pto.tinsert %d, %s[%c0, %c0] : !pto.tile<vec, 32x64xf32>, !pto.tile<vec, 16x64xf16>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 32x64xf32>, %s: !pto.tile<vec, 16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c24 = arith.constant 24 : index
  // expected-error @+1 {{'pto.tinsert' op rows [24, 40) lie outside the 32 rows of 'dst'}}
  pto.tinsert %d, %s[%c24, %c0] : !pto.tile<vec, 32x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf16>, %s: !pto.tile<vec, 16x32xf16>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{'pto.tinsert' op column offset 8 is 16 bytes: A2/A3 moves vec blocks from 32-byte-aligned columns (a multiple of 16 'f16' elements) unless the block is one element}}
  pto.tinsert %d, %s[%c0, %c8] : !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x32xf16>
  return
}

// -----

// TCONCAT: ND vec tiles of one element type and valid rows.
func.func @f(%d: !pto.tile<vec, 16x64xf32>, %a: !pto.tile<mat, 16x32xf32>, %b: !pto.tile<vec, 16x32xf32>) {
  // expected-error @+1 {{'pto.tconcat' op 'src0' must be a vec tile, got mat}}
  pto.tconcat %d, %a, %b : !pto.tile<vec, 16x64xf32>, !pto.tile<mat, 16x32xf32>, !pto.tile<vec, 16x32xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %a: !pto.tile<vec, 16x32xf32>, %b: !pto.tile<vec, 16x32xi32>) {
  // expected-error @+1 {{'pto.tconcat' op element type of 'src1' ('i32') differs from 'dst' ('f32')}}
  pto.tconcat %d, %a, %b : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x32xf32>, !pto.tile<vec, 16x32xi32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xi64>, %a: !pto.tile<vec, 16x32xi64>, %b: !pto.tile<vec, 16x32xi64>) {
  // expected-error @+1 {{'pto.tconcat' op element type 'i64' is not supported on A2/A3}}
  pto.tconcat %d, %a, %b : !pto.tile<vec, 16x64xi64>, !pto.tile<vec, 16x32xi64>, !pto.tile<vec, 16x32xi64>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %a: !pto.tile<vec, 16x32xf32, valid = 8x32>, %b: !pto.tile<vec, 16x32xf32>) {
  // expected-error @+1 {{'pto.tconcat' op valid rows of 'dst' (16) differ from valid rows of 'src0' (8)}}
  pto.tconcat %d, %a, %b : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x32xf32, valid = 8x32>, !pto.tile<vec, 16x32xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %a: !pto.tile<vec, 16x32xf32>, %b: !pto.tile<vec, 16x40xf32>) {
  // expected-error @+1 {{'pto.tconcat' op joins 32 + 40 columns, more than the 64 of 'dst'}}
  pto.tconcat %d, %a, %b : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x32xf32>, !pto.tile<vec, 16x40xf32>
  return
}

// -----

func.func @f(%d: !pto.tile<vec, 16x64xf32>, %a: !pto.tile<vec, 16x32xf32>, %b: !pto.tile<vec, 16x24xf32>) {
  // expected-error @+1 {{'pto.tconcat' op valid columns of 'dst' (64) must be the sources' 32 + 24}}
  pto.tconcat %d, %a, %b : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x32xf32>, !pto.tile<vec, 16x24xf32>
  return
}

// -----

// A row step: an nd view of source rows only.
func.func @f(%A: memref<128x1xf32>, %i: index) {
  // expected-error @+1 {{'pto.global_view' op takes a row step in an nd view of source rows only (its columns are contiguous, its rows a stride apart)}}
  %g = pto.global_view %A[%i, %i] dims [0, 1] row_step 2 : memref<128x1xf32> -> !pto.gtensor<16x1xf32, layout = dn>
  return
}

// -----

func.func @f(%A: memref<128xf32>, %i: index) {
  // expected-error @+1 {{'pto.global_view' op takes a row step in an nd view of source rows only}}
  %g = pto.global_view %A[%i] dims [-1, 0] row_step 2 : memref<128xf32> -> !pto.gtensor<1x64xf32>
  return
}

// -----

func.func @f(%A: memref<128x64xf32>, %i: index) {
  // expected-error @+1 {{'pto.global_view' op attribute 'row_step' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %g = pto.global_view %A[%i, %i] dims [0, 1] row_step 0 : memref<128x64xf32> -> !pto.gtensor<16x64xf32>
  return
}

// -----

func.func @f(%g: !pto.gtensor<16x64xf32>, %t: !pto.tile<mat, 16x64xf32>, %p: index, %ctx: i64) {
  // expected-error @+1 {{'pto.comm_put' op puts a vec tile (UB), got a mat tile}}
  pto.comm_put %g, %t peer %p comm %ctx : !pto.gtensor<16x64xf32>, !pto.tile<mat, 16x64xf32>
  return
}

// -----

func.func @f(%g: !pto.gtensor<16x64xf16>, %t: !pto.tile<vec, 16x64xf32>, %p: index, %ctx: i64) {
  // expected-error @+1 {{'pto.comm_put' op tile element type 'f32' differs from the gtensor's 'f16'}}
  pto.comm_put %g, %t peer %p comm %ctx : !pto.gtensor<16x64xf16>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%g: !pto.gtensor<16x64xf32, layout = dn>, %t: !pto.tile<vec, 16x64xf32>, %p: index, %ctx: i64) {
  // expected-error @+1 {{'pto.comm_put' op cannot store a vec tile with}}
  pto.comm_put %g, %t peer %p comm %ctx : !pto.gtensor<16x64xf32, layout = dn>, !pto.tile<vec, 16x64xf32>
  return
}

// -----

func.func @f(%s: memref<4xi32>, %i: index, %v: i32, %ctx: i64) {
  // expected-error @+1 {{'pto.comm_notify' op op is "add" or "set", got "max"}}
  pto.comm_notify "max" %s[%i], %v peer %i comm %ctx : memref<4xi32>
  return
}

// -----

func.func @f(%s: memref<4xf32>, %i: index, %v: i32, %ctx: i64) {
  // expected-error @+1 {{'pto.comm_notify' op signals are i32, got 'f32'}}
  pto.comm_notify "add" %s[%i], %v peer %i comm %ctx : memref<4xf32>
  return
}

// -----

func.func @f(%s: memref<4x4xi32>, %i: index, %v: i32) {
  // expected-error @+1 {{'pto.comm_wait' op needs 2 indices (one per dimension), got 1}}
  pto.comm_wait %s[%i] "ge" %v : memref<4x4xi32>
  return
}

// -----

func.func @f(%s: memref<4xi32>, %i: index, %v: i32) {
  // expected-error @+1 {{'pto.comm_wait' op cmp is one of eq, ne, gt, ge, lt, le, got ">="}}
  pto.comm_wait %s[%i] ">=" %v : memref<4xi32>
  return
}

// -----

func.func @f(%ctx: i32) {
  // expected-error @+1 {{'pto.comm_rank' op operand #0 must be 64-bit signless integer}}
  %r = "pto.comm_rank"(%ctx) : (i32) -> index
  return
}
