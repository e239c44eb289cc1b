//===- PTOTypes.td - HTP pto dialect types -----------------*- tablegen -*-===//

#ifndef HTP_PTO_TYPES
#define HTP_PTO_TYPES

include "mlir/IR/AttrTypeBase.td"
include "PTODialect.td"
include "PTOEnums.td"

def PTO_TileType : TypeDef<PTO_Dialect, "Tile"> {
  let mnemonic = "tile";
  let summary = "A PTO-ISA tile: location, static shape, valid region, layout";
  let description = [{
    ```
    !pto.tile<LOC, RxCxT[, valid = VRxVC][, blayout = row_major|col_major]
              [, slayout = none|row_major|col_major][, fractal = N]
              [, pad = null|zero|max|min]>
    ```
    PTO-ISA's `Tile<Loc, T, R, C, BLayout, VR, VC, SLayout, Fractal, Pad>`.
    `LOC` is `vec` (UB), `mat` (L1), `left` (L0A), `right` (L0B), `acc`
    (L0C) or `bias`. `R` and `C` are static and positive; `T` is one of f32,
    f16, bf16, i8, i16, i32, i64, ui8, ui16, ui32 (signless integers are
    signed, as `int8_t` ... `int64_t`). Each valid size is static (at most
    the dimension) or `?` (set at run time); the default is the whole tile.

    Defaults, omitted by the printer: `blayout = row_major`,
    `slayout = none`, `fractal = 512`, `pad = null`. `left`, `right`, `acc`
    and `bias` tiles have the layout PTO-ISA's `TileLeft`/`TileRight`/
    `TileAcc` aliases give them, so `blayout`, `slayout` and `fractal` must
    not be written for them.

    The verifier applies the `Tile` struct's static_asserts: an unboxed
    row-major (ND) tile has `C * sizeof(T) % 32 == 0`; an unboxed column-major
    (DN) tile `R * sizeof(T) % 32 == 0`; a boxed tile (`slayout` not `none`,
    `vec`/`mat` only) has `C` a multiple of `32 / sizeof(T)` (fractal 512) or
    16 (fractal 1024) and `R` a multiple of 16 unless it is `vec` or `R == 1`.
    `left`, `right` and `acc` tiles need `R` and `C` multiples of 16 (HTP's
    rule, stricter than the ISA's per-alias boxes), `acc` holds f32 or i32,
    `left`/`right` hold f16, bf16, f32 or i8.

    ```mlir
    !pto.tile<vec, 16x64xf32>
    !pto.tile<vec, 16x64xf16, valid = ?x64, pad = min>
    !pto.tile<vec, 64x1xf32, valid = ?x1, blayout = col_major>
    !pto.tile<mat, 128x128xbf16, blayout = col_major, slayout = row_major>
    !pto.tile<acc, 128x128xf32>
    ```
  }];
  let parameters = (ins
    "::htp::pto::TileLocation":$location,
    ArrayRefParameter<"int64_t", "rows and columns">:$shape,
    "::mlir::Type":$elementType,
    ArrayRefParameter<"int64_t", "valid rows and columns; empty when the whole tile is valid">:$validShape,
    "::htp::pto::BLayout":$blayout,
    "::htp::pto::SLayout":$slayout,
    "int64_t":$fractal,
    "::htp::pto::PadValue":$pad
  );
  let builders = [
    // Defaults for everything but location, shape and element type.
    TypeBuilderWithInferredContext<(ins "::htp::pto::TileLocation":$location,
                                        "::llvm::ArrayRef<int64_t>":$shape,
                                        "::mlir::Type":$elementType), [{
      return $_get(elementType.getContext(), location, shape, elementType,
                   ::llvm::ArrayRef<int64_t>{}, ::htp::pto::BLayout::row_major,
                   ::htp::pto::SLayout::none, 512, ::htp::pto::PadValue::null);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static constexpr int64_t kDefaultFractal = 512;
    int64_t getRows() const { return getShape()[0]; }
    int64_t getCols() const { return getShape()[1]; }
    /// True when the whole tile is valid (no valid region was given).
    bool isFullyValid() const { return getValidShape().empty(); }
    /// The valid size of dimension `dim`: static, or `ShapedType::kDynamic`.
    int64_t getValidDim(unsigned dim) const {
      return isFullyValid() ? getShape()[dim] : getValidShape()[dim];
    }
    /// How many valid sizes are `?` (each an operand of pto.alloc_tile).
    unsigned getNumDynamicValidDims() const;
    /// sizeof(T) in bytes.
    int64_t getElementBytes() const;
    /// R * C * sizeof(T).
    int64_t getSizeInBytes() const;
    /// left/right/acc/bias: layout implied by the location (no blayout,
    /// slayout or fractal may be written).
    bool hasImpliedLayout() const;
    /// slayout is not `none` (fractal boxes).
    bool isBoxed() const { return getSlayout() != ::htp::pto::SLayout::none; }
    /// row_major + none (ND).
    bool isND() const {
      return getBlayout() == ::htp::pto::BLayout::row_major && !isBoxed();
    }
    /// col_major + none (DN).
    bool isDN() const {
      return getBlayout() == ::htp::pto::BLayout::col_major && !isBoxed();
    }
    /// col_major + row_major boxes (the cube fractal NZ).
    bool isNZ() const {
      return getBlayout() == ::htp::pto::BLayout::col_major &&
             getSlayout() == ::htp::pto::SLayout::row_major;
    }
  }];
}

def PTO_GlobalTensorType : TypeDef<PTO_Dialect, "GlobalTensor"> {
  let mnemonic = "gtensor";
  let summary = "A 2-D view of a global-memory tensor";
  let description = [{
    `!pto.gtensor<RxCxT[, layout = nd|dn|nz]>` is PTO-ISA's `GlobalTensor`
    seen as rows x columns: `R` and `C` are static or `?`; `layout` is `nd`
    (row-major, the default), `dn` (column-major) or `nz` (cube fractal).
    Made by `pto.global_view` from a memref; read by `pto.tload` and
    `pto.mgather`, written by `pto.tstore`.

    ```mlir
    !pto.gtensor<16x64xf32>
    !pto.gtensor<?x1xf32, layout = dn>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "rows and columns (`ShapedType::kDynamic` for ?)">:$shape,
    "::mlir::Type":$elementType,
    "::htp::pto::GTLayout":$layout
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getRows() const { return getShape()[0]; }
    int64_t getCols() const { return getShape()[1]; }
    unsigned getNumDynamicDims() const;
  }];
}

#endif // HTP_PTO_TYPES
