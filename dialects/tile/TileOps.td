//===- TileOps.td - HTP tile dialect operations ------------*- tablegen -*-===//
//
// Every rule a user can break is checked by a verifier (see TileOps.cpp) and
// has a case in test/lit/Dialect/tile/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_TILE_OPS
#define HTP_TILE_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "TileDialect.td"
include "TileTypes.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_AnyTile : Type<CPred<"::llvm::isa<::htp::tile::TileType>($_self)">,
                        "tile", "::htp::tile::TileType">;

def Tile_MaskTile : Type<
    And<[CPred<"::llvm::isa<::htp::tile::TileType>($_self)">,
         CPred<"::llvm::cast<::htp::tile::TileType>($_self).getElementType().isInteger(1)">]>,
    "tile of i1", "::htp::tile::TileType">;

def Tile_Scalar : AnyTypeOf<[F32, F16, BF16, I64, I32, I16, I8, I1]>;

/// A tile, or a scalar that is broadcast to every element.
def Tile_TileOrScalar : AnyTypeOf<[Tile_AnyTile, Tile_Scalar]>;

def Tile_View : AnyTypeOf<[AnyRankedTensor, AnyMemRef]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Tile_ReductionKind : I32EnumAttr<"ReductionKind", "how a reduction combines elements", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>
  ]> {
  let cppNamespace = "::htp::tile";
}

def Tile_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "element comparison (ordered for floats, signed for integers)", [
    I32EnumAttrCase<"eq", 0>,
    I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>,
    I32EnumAttrCase<"ge", 5>
  ]> {
  let cppNamespace = "::htp::tile";
}

//===----------------------------------------------------------------------===//
// Memory: load, store, gather, scatter
//===----------------------------------------------------------------------===//

def Tile_LoadOp : Tile_Op<"load", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Load a tile from a memref or tensor view";
  let description = [{
    Reads the tile whose top-left element is `source[indices...]`: the tile's
    rows and columns run along the last two dimensions of the view, and the
    leading indices select the 2-D slice. Only the valid region is read; a
    tile whose valid region has `?` sizes takes them as `valid [...]` operands,
    in order (rows, then columns).

    With `strides [SR, SC]` (positive, along the view's last two dimensions)
    element `[r, c]` of the tile is `source[..., i + r * SR, j + c * SC]`:
    every SR-th row and SC-th column (a slice with a step, `x[:, 0::2]`).
    Without it both strides are 1.

    ```mlir
    %t = tile.load %A[%i, %j] : memref<128x256xf32> -> !tile.tile<16x64xf32>
    %u = tile.load %A[%i, %j] valid [%n] : memref<?x256xf32> -> !tile.tile<16x64xf32, valid = ?x64>
    %e = tile.load %A[%i, %c1] strides [1, 2] : memref<128x256xf32> -> !tile.tile<16x128xf32>
    ```
  }];
  let arguments = (ins Tile_View:$source, Variadic<Index>:$indices,
                       Variadic<Index>:$validSizes,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` (`strides` $strides^)? (`valid` ` ` `[` $validSizes^ `]`)?
    attr-dict `:` type($source) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Store a tile's valid region into a memref or tensor view";
  let description = [{
    Writes the valid region of `value` to `dest` with its top-left element at
    `dest[indices...]`. Storing into a memref writes memory and has no
    result; storing into a tensor yields the updated tensor. `strides [SR, SC]`
    spreads the tile's rows and columns as `tile.load`'s do: element `[r, c]`
    goes to `dest[..., i + r * SR, j + c * SC]`.

    ```mlir
    tile.store %t, %B[%i, %j] : !tile.tile<16x64xf32>, memref<128x256xf32>
    tile.store %t, %B[%i, %c0] strides [2, 1] : !tile.tile<16x64xf32>, memref<128x256xf32>
    %T2 = tile.store %t, %T[%i, %j] : !tile.tile<16x64xf32>, tensor<128x256xf32> -> tensor<128x256xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$value, Tile_View:$dest,
                       Variadic<Index>:$indices,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Optional<AnyRankedTensor>:$result);
  let assemblyFormat = [{
    $value `,` $dest `[` $indices `]` (`strides` $strides^)? attr-dict `:`
    qualified(type($value)) `,` type($dest) (`->` type($result)^)?
  }];
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Gather rows of a 2-D view by a tile of row indices";
  let description = [{
    Row `r` of the result is `source[rowIndices[r, 0], column + c]` for every
    column `c`: the building block for MoE token routing and paged KV caches,
    where the rows a kernel needs are named by data. `rowIndices` is an
    `Rx1` integer tile; the result has `R` rows.

    ```mlir
    %g = tile.gather %A[%rows, %c0] : memref<?x128xf16>, !tile.tile<8x1xi32> -> !tile.tile<8x128xf16>
    ```
  }];
  let arguments = (ins Tile_View:$source, Tile_AnyTile:$rowIndices,
                       Index:$column);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $source `[` $rowIndices `,` $column `]` attr-dict `:` type($source) `,`
    qualified(type($rowIndices)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_ScatterOp : Tile_Op<"scatter"> {
  let summary = "Store rows of a tile into rows of a 2-D memref chosen by a tile of row indices";
  let description = [{
    The inverse of `tile.gather`: row `r` of the value's valid region is
    written to `dest[rowIndices[r, 0], column + c]` for each valid column
    `c`, rows in ascending order, so that when two indices name the same
    row the later one's row is what the memref holds afterwards (the last
    row wins). `rowIndices` is an `Rx1` `i32` or `i64` tile with the
    value's rows and valid rows. A row index outside the memref, or a
    column window that does not fit, is the program's error (the CPU
    target reports it and skips that row).

    ```mlir
    tile.scatter %t, %A[%rows, %c0] : !tile.tile<8x128xf16>, memref<?x128xf16>, !tile.tile<8x1xi32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$value,
                       Arg<AnyMemRef, "the memref written", [MemWrite]>:$dest,
                       Tile_AnyTile:$rowIndices, Index:$column);
  let assemblyFormat = [{
    $value `,` $dest `[` $rowIndices `,` $column `]` attr-dict `:`
    qualified(type($value)) `,` type($dest) `,` qualified(type($rowIndices))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Creating tiles: constant, fill, iota
//===----------------------------------------------------------------------===//

def Tile_ConstantOp : Tile_Op<"constant", [ConstantLike, Pure]> {
  let summary = "A tile with every element equal to a constant";
  let description = [{
    ```mlir
    %z = tile.constant 0.0 : !tile.tile<16x64xf32>
    %o = tile.constant 1 : !tile.tile<16x1xi32>
    ```
    The value is written without a type; it takes the tile's element type.
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs Tile_AnyTile:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_FillOp : Tile_Op<"fill", [Pure,
    TypesMatchWith<"the value has the tile's element type", "result", "value",
                   "::llvm::cast<::htp::tile::TileType>($_self).getElementType()">]> {
  let summary = "A tile with every element equal to a scalar value";
  let description = [{
    ```mlir
    %t = tile.fill %x : !tile.tile<16x64xf32>
    ```
    Folds to `tile.constant` when the scalar is a constant.
  }];
  let arguments = (ins Tile_Scalar:$value);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$value attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "A tile holding each element's index along one dimension";
  let description = [{
    Element `[r, c]` is `r` when `dimension` is 0 and `c` when it is 1.

    ```mlir
    %cols = tile.iota 1 : !tile.tile<16x64xi32>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>]>:$dimension);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$dimension attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops (tile op tile, tile op scalar)
//===----------------------------------------------------------------------===//

// Not `Commutative`: the right operand may be a scalar, and the trait's
// canonicalization would move a constant tile into its place.
class Tile_BinaryOp<string mnemonic, string what, string note = "">
    : Tile_Op<mnemonic, [Pure, AllTypesMatch<["lhs", "result"]>]> {
  let summary = "Elementwise " # what;
  let description = [{
    Elementwise }] # what # [{ of two tiles of the same type, or of a tile and
    a scalar of its element type (the scalar applies to every element).
    Integer operands are treated as signed.}] # note # [{

    ```mlir
    %c = tile.}] # mnemonic # [{ %a, %b : !tile.tile<16x64xf32>
    %d = tile.}] # mnemonic # [{ %a, %s : !tile.tile<16x64xf32>, f32
    ```
  }];
  let arguments = (ins Tile_AnyTile:$lhs, Tile_TileOrScalar:$rhs);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` qualified(type($lhs))
    `` custom<RhsType>(type($rhs), ref(type($lhs)))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_AddOp : Tile_BinaryOp<"add", "addition">;
def Tile_SubOp : Tile_BinaryOp<"sub", "subtraction">;
def Tile_MulOp : Tile_BinaryOp<"mul", "multiplication">;
def Tile_DivOp : Tile_BinaryOp<"div", "division",
    " Integer division truncates toward zero.">;
def Tile_MaxOp : Tile_BinaryOp<"max", "maximum",
    " Floats follow IEEE 754-2019 `maximum`: NaN wins and -0.0 < +0.0.">;
def Tile_MinOp : Tile_BinaryOp<"min", "minimum",
    " Floats follow IEEE 754-2019 `minimum`: NaN wins and -0.0 < +0.0.">;

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

class Tile_UnaryOp<string mnemonic, string what, bit floatOnly>
    : Tile_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "Elementwise " # what;
  let description = "Elementwise " # what # " of a tile"
      # !if(floatOnly, " of floating-point elements.", " (integers are signed).")
      # "\n\n```mlir\n%y = tile." # mnemonic # " %x : !tile.tile<16x64xf32>\n```";
  let arguments = (ins Tile_AnyTile:$input);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input))";
  let hasVerifier = 1;
  let extraClassDeclaration = "static constexpr bool kFloatOnly = "
      # !if(floatOnly, "true", "false") # ";";
}

def Tile_ExpOp : Tile_UnaryOp<"exp", "exponential", 1>;
def Tile_LogOp : Tile_UnaryOp<"log", "natural logarithm", 1>;
def Tile_SqrtOp : Tile_UnaryOp<"sqrt", "square root", 1>;
def Tile_RsqrtOp : Tile_UnaryOp<"rsqrt", "reciprocal square root", 1>;
def Tile_RecipOp : Tile_UnaryOp<"recip", "reciprocal", 1>;
def Tile_AbsOp : Tile_UnaryOp<"abs", "absolute value", 0> { let hasFolder = 1; }
def Tile_NegOp : Tile_UnaryOp<"neg", "negation", 0> { let hasFolder = 1; }
def Tile_ReluOp : Tile_UnaryOp<"relu", "max(x, 0)", 0> { let hasFolder = 1; }

//===----------------------------------------------------------------------===//
// Reductions and broadcast
//===----------------------------------------------------------------------===//

def Tile_RowReduceOp : Tile_Op<"row_reduce", [Pure]> {
  let summary = "Reduce each row of a tile to one element";
  let description = [{
    Combines the valid elements of each row with `sum`, `max` or `min`; an
    `RxC` tile becomes an `Rx1` tile with the same valid rows.

    ```mlir
    %m = tile.row_reduce max %x : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
    ```
  }];
  let arguments = (ins Tile_ReductionKind:$kind, Tile_AnyTile:$input);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $kind $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_ColReduceOp : Tile_Op<"col_reduce", [Pure]> {
  let summary = "Reduce each column of a tile to one element";
  let description = [{
    Combines the valid elements of each column with `sum`, `max` or `min`; an
    `RxC` tile becomes a `1xC` tile with the same valid columns.

    ```mlir
    %s = tile.col_reduce sum %x : !tile.tile<16x64xf32> -> !tile.tile<1x64xf32>
    ```
  }];
  let arguments = (ins Tile_ReductionKind:$kind, Tile_AnyTile:$input);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $kind $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure]> {
  let summary = "Repeat a row or column tile across the other dimension";
  let description = [{
    Every dimension of the input is either 1 (repeated) or equal to the
    result's. An `Rx1` input repeats each row's value along the row (the
    partner of `tile.row_reduce`); a `1xC` input repeats down the columns.

    ```mlir
    %b = tile.broadcast %m : !tile.tile<16x1xf32> -> !tile.tile<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$input);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Selection: arg reductions, sort, take, put
//===----------------------------------------------------------------------===//

def Tile_RowArgReduceOp : Tile_Op<"row_arg_reduce", [Pure]> {
  let summary = "The column of each row's maximum or minimum";
  let description = [{
    For each valid row, the column index (an `i32`) of its largest (`max`)
    or smallest (`min`) valid element; ties give the first such column. A
    float NaN counts as both the largest and the smallest value (the first
    NaN's column), as `tile.max`/`tile.min` and numpy's `argmax`/`argmin`
    let NaN win. An `RxC` tile becomes an `Rx1` `i32` tile with the input's
    valid rows.

    ```mlir
    %i = tile.row_arg_reduce max %x : !tile.tile<16x64xf32> -> !tile.tile<16x1xi32>
    ```
  }];
  let arguments = (ins Tile_ReductionKind:$kind, Tile_AnyTile:$input);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $kind $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_SortOp : Tile_Op<"sort", [Pure]> {
  let summary = "Sort each row; keep its first K elements and their columns";
  let description = [{
    Sorts each valid row of the input, ascending (or `descending`), and
    gives the first `K` elements of the sorted row (`values`, the input's
    element type) and the columns they came from (`indices`, `i32`): `K`
    equal to the input's columns is a full sort, a smaller `K` the top-`K`
    (with `descending`) or bottom-`K`. The sort is stable: equal elements
    keep their column order, so ties go to the lower column in both
    directions. A float NaN sorts above +inf (last ascending, first
    descending); -0.0 and +0.0 are equal. The row's columns must all be
    valid; its valid rows carry over to both results.

    ```mlir
    %v, %i = tile.sort %x descending : !tile.tile<16x64xf32> -> !tile.tile<16x8xf32>, !tile.tile<16x8xi32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$input, UnitAttr:$descending);
  let results = (outs Tile_AnyTile:$values, Tile_AnyTile:$indices);
  let assemblyFormat = [{
    $input (`descending` $descending^)? attr-dict `:` qualified(type($input)) `->`
    qualified(type($values)) `,` qualified(type($indices))
  }];
  let hasVerifier = 1;
}

def Tile_TakeOp : Tile_Op<"take", [Pure]> {
  let summary = "Pick elements of each row by column index";
  let description = [{
    `result[r, j] = input[r, indices[r, j]]` (numpy's `take_along_axis` on
    axis 1, PyTorch's `gather` on dim 1): `indices` is an `RxK` tile of
    `i32` or `i64` columns of the input, and the result has its shape and
    valid region and the input's element type. The input and the indices
    have the same rows and valid rows. An index outside the input's valid
    columns is the program's error (the CPU target reports it).

    ```mlir
    %g = tile.take %x[%i] : !tile.tile<16x64xf32>, !tile.tile<16x8xi32> -> !tile.tile<16x8xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$input, Tile_AnyTile:$indices);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $input `[` $indices `]` attr-dict `:` qualified(type($input)) `,`
    qualified(type($indices)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_PutOp : Tile_Op<"put", [Pure]> {
  let summary = "Write elements into each row at column indices (the inverse of take)";
  let description = [{
    The input with `result[r, indices[r, j]] = values[r, j]` for each valid
    `(r, j)`, every other element kept (numpy's `put_along_axis` on axis 1,
    PyTorch's `scatter` on dim 1). `indices` is an `RxK` tile of `i32` or
    `i64` columns of the input; `values` has its shape and valid region and
    the input's element type. The input and the indices have the same rows
    and valid rows; the result has the input's shape, element type and
    valid region. The writes happen in order of `j` within a row, so when
    two indices of a row name the same column the later one's value is the
    result's (the last one wins). An index outside the input's valid
    columns is the program's error (the CPU target reports it and skips
    that write).

    ```mlir
    %r = tile.put %x[%i], %v : !tile.tile<16x64xf32>, !tile.tile<16x8xi32>, !tile.tile<16x8xf32> -> !tile.tile<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$input, Tile_AnyTile:$indices,
                       Tile_AnyTile:$values);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $input `[` $indices `]` `,` $values attr-dict `:` qualified(type($input)) `,`
    qualified(type($indices)) `,` qualified(type($values)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Valid regions: pad, set_valid
//===----------------------------------------------------------------------===//

def Tile_PadOp : Tile_Op<"pad", [Pure,
    TypesMatchWith<"the value has the tile's element type", "input", "value",
                   "::llvm::cast<::htp::tile::TileType>($_self).getElementType()">]> {
  let summary = "Fill a tile outside its valid region, making it fully valid";
  let description = [{
    The result has the input's shape and element type and no valid region:
    elements inside the input's valid region are the input's, the others
    are `value`. This is how a ragged tile (the tail of a loop over a
    dimension the tile size does not divide) joins full tiles: pad loads
    with 0 before a matmul or a sum, with -inf before a max.

    ```mlir
    %full = tile.pad %t, %zero : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$input, Tile_Scalar:$value);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $input `,` $value attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_SetValidOp : Tile_Op<"set_valid", [Pure]> {
  let summary = "Narrow a tile's valid region";
  let description = [{
    The same elements with the valid region of the result type; its `?`
    sizes are the `valid [...]` operands, in order. The new region must lie
    within the input's (static sizes are checked; run-time ones are the
    program's promise). Storing a full tile into a ragged slice narrows it
    first, so only the in-bounds part is written.

    ```mlir
    %r = tile.set_valid %t valid [%n] : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$input, Variadic<Index>:$validSizes);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $input (`valid` ` ` `[` $validSizes^ `]`)? attr-dict `:` qualified(type($input)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Matmul, cast, compare/select, transpose
//===----------------------------------------------------------------------===//

def Tile_MatmulOp : Tile_Op<"matmul", [Pure,
    OptionalTypesMatchWith<"the accumulator has the result type", "result", "acc", "$_self">]> {
  let summary = "Matrix product with optional accumulation";
  let description = [{
    `result = lhs x rhs (+ acc)` for an `MxK` lhs, a `KxN` rhs and an `MxN`
    result. Supported element types (lhs, rhs -> result): f16 x f16 -> f32 or
    f16, bf16 x bf16 -> f32, f32 x f32 -> f32, i8 x i8 -> i32. `acc`, when
    given, has the result's type.

    ```mlir
    %c = tile.matmul %a, %b : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf32>
    %d = tile.matmul %a, %b, %c : !tile.tile<64x32xf16>, !tile.tile<32x128xf16> -> !tile.tile<64x128xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$lhs, Tile_AnyTile:$rhs,
                       Optional<Tile_AnyTile>:$acc);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`,` $acc^)? attr-dict `:` qualified(type($lhs)) `,`
    qualified(type($rhs)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_CastOp : Tile_Op<"cast", [Pure]> {
  let summary = "Convert each element to another element type";
  let description = [{
    Float-to-float conversions round to nearest even; float-to-integer
    truncates toward zero; integer conversions are signed. Shape and valid
    region are unchanged.

    ```mlir
    %h = tile.cast %x : !tile.tile<16x64xf32> to !tile.tile<16x64xf16>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$input);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $input attr-dict `:` qualified(type($input)) `to` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_CmpOp : Tile_Op<"cmp", [Pure,
    TypesMatchWith<"the result is an i1 tile shaped like lhs", "lhs", "result",
        "::llvm::cast<::htp::tile::TileType>($_self).withElementType("
        "::mlir::IntegerType::get($_self.getContext(), 1))">]> {
  let summary = "Elementwise comparison producing a mask tile";
  let description = [{
    Compares a tile with a tile of the same type or with a scalar of its
    element type, giving an `i1` tile of the same shape and valid region.
    Floats compare ordered (NaN compares false except for `ne`); integers
    compare signed.

    ```mlir
    %m = tile.cmp lt, %a, %b : !tile.tile<16x64xf32>
    %n = tile.cmp ge, %a, %s : !tile.tile<16x64xf32>, f32
    ```
  }];
  let arguments = (ins Tile_ComparePredicate:$predicate, Tile_AnyTile:$lhs,
                       Tile_TileOrScalar:$rhs);
  let results = (outs Tile_MaskTile:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` qualified(type($lhs))
    `` custom<RhsType>(type($rhs), ref(type($lhs)))
  }];
  let hasVerifier = 1;
}

def Tile_SelectOp : Tile_Op<"select", [Pure,
    AllTypesMatch<["trueValue", "falseValue", "result"]>,
    TypesMatchWith<"the mask is an i1 tile shaped like the result", "result", "mask",
        "::llvm::cast<::htp::tile::TileType>($_self).withElementType("
        "::mlir::IntegerType::get($_self.getContext(), 1))">]> {
  let summary = "Choose elements from two tiles by a mask";
  let description = [{
    Element `i` of the result is `trueValue[i]` where `mask[i]` is true and
    `falseValue[i]` elsewhere.

    ```mlir
    %r = tile.select %m, %a, %b : !tile.tile<16x64xf32>
    ```
  }];
  let arguments = (ins Tile_MaskTile:$mask, Tile_AnyTile:$trueValue,
                       Tile_AnyTile:$falseValue);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $mask `,` $trueValue `,` $falseValue attr-dict `:` qualified(type($result))
  }];
  let hasFolder = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose", [Pure]> {
  let summary = "Swap a tile's rows and columns";
  let description = [{
    ```mlir
    %t = tile.transpose %x : !tile.tile<16x64xf32> -> !tile.tile<64x16xf32>
    ```
    The valid region is transposed with the shape.
  }];
  let arguments = (ins Tile_AnyTile:$input);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_RelayoutOp : Tile_Op<"relayout", [Pure]> {
  let summary = "The same tile in another layout";
  let description = [{
    ```mlir
    %d = tile.relayout %x : !tile.tile<16x64xf32>
           -> !tile.tile<16x64xf32, layout = #layout.axe<[16@m:1] x [64@m:16]>>
    ```
    The elements and the valid region stay; only how the tile is laid out
    (its `layout`, a layout facet) changes, or is dropped so that the target
    chooses. A target that cannot hold the result's layout refuses the
    program in the capability check.
  }];
  let arguments = (ins Tile_AnyTile:$input);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Shapes: slice, concat, reshape
//===----------------------------------------------------------------------===//

def Tile_SliceOp : Tile_Op<"slice", [Pure]> {
  let summary = "A block of a tile (every element, or every n-th)";
  let description = [{
    Element `[r, c]` of the result is `input[R0 + r * SR, C0 + c * SC]`:
    the block of the result's shape starting at `offsets [R0, C0]`, taking
    every `SR`-th row and `SC`-th column with `strides [SR, SC]` (1 without
    it). The block lies inside the input tile. Its valid region is the part
    of the input's it covers: along a dimension whose valid size `V` is
    static, `min(size, ceil((V - offset) / stride))`, at least 1; along a
    dimension whose valid size is `?` (a ragged tail), the slice takes the
    whole dimension (offset 0, stride 1) and keeps the `?`. The element type
    is the input's.

    ```mlir
    %h = tile.slice %x [0, 32] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x32xf32, valid = ?x32>
    %e = tile.slice %x [0, 1] strides [1, 2] : !tile.tile<16x64xf32> -> !tile.tile<16x32xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$input, DenseI64ArrayAttr:$offsets,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $input $offsets (`strides` $strides^)? attr-dict `:` qualified(type($input))
    `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ConcatOp : Tile_Op<"concat", [Pure]> {
  let summary = "Tiles joined along one dimension";
  let description = [{
    The inputs one after the other along `axis` (0: their rows stacked, 1:
    their columns side by side), as numpy's `concatenate`. They have the
    result's element type and the same size and valid size along the other
    dimension, which the result keeps; along `axis` each input is fully
    valid (a ragged tile is padded first), and the result's size is the sum
    of theirs.

    ```mlir
    %r = tile.concat %a, %b axis 1 : !tile.tile<16x32xf32, valid = ?x32>, !tile.tile<16x32xf32, valid = ?x32> -> !tile.tile<16x64xf32, valid = ?x64>
    ```
  }];
  let arguments = (ins Variadic<Tile_AnyTile>:$inputs,
                       ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<1>]>:$axis);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $inputs `axis` $axis attr-dict `:` qualified(type($inputs)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure]> {
  let summary = "The same elements in another shape, in row-major order";
  let description = [{
    The input's elements read row by row fill the result row by row
    (numpy's `reshape` in C order): the element count and type stay. Both
    tiles are fully valid (a ragged tile is padded first).

    ```mlir
    %r = tile.reshape %x : !tile.tile<16x64xf32> -> !tile.tile<32x32xf32>
    ```
  }];
  let arguments = (ins Tile_AnyTile:$input);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $input attr-dict `:` qualified(type($input)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Intrinsics
//===----------------------------------------------------------------------===//

def Tile_IntrinsicOp : Tile_Op<"intrinsic", [Pure]> {
  let summary = "A target intrinsic applied to tiles and scalars";
  let description = [{
    An operation of an intrinsic set (`pto.add(a, b)` in Python is the PTO
    set's `pto.tadd`), carried at the tile level by name until a backend
    that provides it lowers it. Which targets provide which intrinsics is
    HTP's capability model: compiling for a target that lacks one is a
    diagnostic at the user's line, before any lowering.

    ```mlir
    %s = tile.intrinsic "pto.tadd"(%a, %b) : (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32>
    ```
  }];
  let arguments = (ins StrAttr:$callee, Variadic<Tile_TileOrScalar>:$operands);
  let results = (outs Tile_AnyTile:$result);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $result)
  }];
  let hasVerifier = 1;
}

def Tile_IntrinsicEffectOp : Tile_Op<"intrinsic_effect"> {
  let summary = "A target intrinsic with effects: tiles, scalars and tensors in, at most one scalar out";
  let description = [{
    An operation of an intrinsic set that does more than compute a tile
    from tiles: it reads or writes memory another agent sees (the `comm`
    set's puts to a peer chip's window, its signals), or asks the target a
    question (`comm.rank()`). Its operands are scalars, tiles and tensors
    (a tensor block or element is the memref followed by one index per
    dimension), in the order its set defines; it has no result or one
    scalar. Like `tile.intrinsic` it is carried by name until a backend
    that provides it lowers it (the capability `intrinsic:<callee>`); it
    has unknown effects, so nothing moves or removes it.

    ```mlir
    %me = tile.intrinsic_effect "comm.rank"() : () -> index
    tile.intrinsic_effect "comm.put"(%peer, %win, %c0, %i, %c0, %t) : (index, memref<4x16x64xf32>, index, index, index, !tile.tile<16x64xf32>) -> ()
    tile.intrinsic_effect "comm.notify"(%peer, %sig, %me, %one) {op = "add"} : (index, memref<4xi32>, index, i32) -> ()
    ```
  }];
  let arguments = (ins StrAttr:$callee, Variadic<AnyType>:$operands);
  let results = (outs Variadic<AnyTypeOf<[Index, AnySignlessInteger, AnyFloat]>>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
  let hasVerifier = 1;
}

#endif // HTP_TILE_OPS
