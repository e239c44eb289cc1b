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
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "rows and columns">:$shape,
    "::mlir::Type":$elementType,
    ArrayRefParameter<"int64_t", "valid rows and columns; empty when the whole tile is valid">:$validShape
  );
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
                                        "::mlir::Type":$elementType), [{
      return $_get(elementType.getContext(), shape, elementType,
                   ::llvm::ArrayRef<int64_t>{});
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
    /// The same tile with another element type.
    TileType withElementType(::mlir::Type elementType) const;
    /// The same element type with shape and valid region transposed.
    TileType transposed() const;
  }];
}

#endif // HTP_TILE_TYPES
