//===- TileTypes.td - HTP tile dialect types ---------------*- tablegen -*-===//

#ifndef HTP_TILE_TYPES
#define HTP_TILE_TYPES

include "mlir/IR/AttrTypeBase.td"
include "TileDialect.td"

def Tile_TileType : TypeDef<Tile_Dialect, "Tile"> {
  let mnemonic = "tile";
  let summary = "A statically shaped 2-D tile with an optional valid region";
  let description = [{
    `!tile.tile<RxCxT>` is a tile of `R` rows and `C` columns of element type
    `T`, which is one of `f32`, `f16`, `bf16`, `i64`, `i32`, `i16`, `i8` or
    `i1`. Both dimensions are static and positive.

    `!tile.tile<RxCxT, valid = VRxVC>` additionally says that only the
    leading `VR` rows and `VC` columns hold data (the valid region). Each of
    `VR` and `VC` is either a static size no larger than the dimension, or
    `?`, meaning the size is known only at run time; the op that creates such
    a tile (for example `tile.load`) takes it as an `index` operand.

    ```mlir
    !tile.tile<16x64xf32>
    !tile.tile<16x64xf16, valid = ?x64>
    !tile.tile<16x64xf32, layout = #layout.axe<[16@m:1] x [64@m:16]>>
    ```

    `layout = #layout.axe<...>` fixes how the elements are laid out (a
    layout facet, `docs/dialects/layout.md`); without it the target chooses.
    The layout has two dimensions of the tile's sizes, and its parts are on
    the memory axis `m` only (a tile lives in one memory).
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "rows and columns">:$shape,
    "::mlir::Type":$elementType,
    ArrayRefParameter<"int64_t", "valid rows and columns; empty when the whole tile is valid">:$validShape,
    OptionalParameter<"::htp::layout::AxeAttr", "how the tile's elements are laid out (a layout facet); none when the target chooses">:$layout
  );
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
                                        "::mlir::Type":$elementType), [{
      return $_get(elementType.getContext(), shape, elementType,
                   ::llvm::ArrayRef<int64_t>{}, ::htp::layout::AxeAttr());
    }]>,
    TypeBuilder<(ins "::llvm::ArrayRef<int64_t>":$shape,
                     "::mlir::Type":$elementType,
                     "::llvm::ArrayRef<int64_t>":$validShape), [{
      return $_get($_ctxt, shape, elementType, validShape,
                   ::htp::layout::AxeAttr());
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRows() const { return getShape()[0]; }
    int64_t getCols() const { return getShape()[1]; }
    /// True when the whole tile is valid (no valid region was given).
    bool isFullyValid() const { return getValidShape().empty(); }
    /// The valid size of dimension `dim`: a static size, or
    /// `ShapedType::kDynamic` when it is only known at run time.
    int64_t getValidDim(unsigned dim) const {
      return isFullyValid() ? getShape()[dim] : getValidShape()[dim];
    }
    /// How many valid sizes are `?` (each is an `index` operand of the op
    /// that creates a tile of this type).
    unsigned getNumDynamicValidDims() const;
    /// Storage of the full tile in bytes (i1 elements are bit-packed).
    int64_t getSizeInBytes() const;
    /// The same tile with another element type (no layout: one laid out for
    /// the old element size may not fit the new one).
    TileType withElementType(::mlir::Type elementType) const;
    /// The same element type with shape and valid region transposed (no
    /// layout: the target chooses one for the transposed tile).
    TileType transposed() const;
    /// The same tile with another layout (null: none).
    TileType withLayout(::htp::layout::AxeAttr layout) const;
  }];
}

#endif // HTP_TILE_TYPES
