//===- PTOOps.td - HTP pto dialect operations --------------*- tablegen -*-===//
//
// One op per PTO-ISA instruction, destination first. Every A2/A3 rule is
// checked by a verifier (PTOOps.cpp) and has a case in
// test/lit/Dialect/pto/invalid.mlir.
//
// Memory effects: tiles are buffers, so each tile operand carries the effect
// the instruction has on it (MemWrite on the destination, MemRead on the
// sources, both on scratch and accumulators), on the default resource. An op
// with no result therefore is never dead, and no pass reorders two ops that
// touch the same tile. Sync ops read and write the default resource so that
// nothing moves across them.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_PTO_OPS
#define HTP_PTO_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "PTODialect.td"
include "PTOEnums.td"
include "PTOAttrs.td"
include "PTOTypes.td"

//===----------------------------------------------------------------------===//
// Constraints and traits
//===----------------------------------------------------------------------===//

def PTO_Tile : Type<CPred<"::llvm::isa<::htp::pto::TileType>($_self)">,
                    "pto tile", "::htp::pto::TileType">;

def PTO_GTensor : Type<CPred<"::llvm::isa<::htp::pto::GlobalTensorType>($_self)">,
                       "pto global tensor", "::htp::pto::GlobalTensorType">;

/// A scalar operand; the verifier ties it to the tile's element type.
def PTO_Scalar : AnyTypeOf<[AnyInteger, F32, F16, BF16]>;

/// Runs on the vector pipe (AIV only): rejected in a `pto.core = "aic"`
/// kernel.
def PTO_VectorArithmetic : NativeOpTrait<"VectorArithmetic"> {
  let cppNamespace = "::htp::pto::OpTrait";
}

def PTO_Dst : Arg<PTO_Tile, "destination tile", [MemWrite]>;
def PTO_Src : Arg<PTO_Tile, "source tile", [MemRead]>;
def PTO_Tmp : Arg<PTO_Tile, "scratch tile", [MemRead, MemWrite]>;

//===----------------------------------------------------------------------===//
// Allocation and GM views
//===----------------------------------------------------------------------===//

def PTO_AllocTileOp : PTO_Op<"alloc_tile"> {
  let summary = "A tile (PTO-ISA `Tile` object, placed with `TASSIGN`)";
  let description = [{
    Declares a tile of the result type. Each `?` in its valid region takes an
    `index` operand, in order (rows, then columns): the run-time valid sizes
    given to the `Tile` constructor. `addr`, when present, is the tile's byte
    offset in its location's buffer (`TASSIGN<addr>(tile)`): a multiple of 32,
    and the tile must fit the A2/A3 buffer (UB 192 KB minus the last 8 KB that
    PTO-ISA uses as hidden scratch = 188416 bytes; L1 512 KB; L0A/L0B 64 KB;
    L0C 128 KB; bias table 1 KB). Without `addr`, the tile must still fit.

    ```mlir
    %t = pto.alloc_tile addr 0 : !pto.tile<vec, 16x64xf32>
    %u = pto.alloc_tile valid [%n] addr 4096 : !pto.tile<vec, 16x64xf32, valid = ?x64>
    ```
  }];
  let arguments = (ins Variadic<Index>:$validSizes, OptionalAttr<I64Attr>:$addr);
  let results = (outs Res<PTO_Tile, "", [MemAlloc]>:$result);
  let assemblyFormat = [{
    (`valid` ` ` `[` $validSizes^ `]`)? (`addr` $addr^)? attr-dict `:`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

def PTO_TileViewOp : PTO_Op<"tile_view", [Pure]> {
  let summary = "The bytes of another tile seen as a tile of another type";
  let description = [{
    A second `Tile` object on the first one's address (two `TASSIGN`s to one
    offset): the usual PTO way to narrow a valid region before a store, to
    give a padded view, or to see a one-column tile of per-row values as one
    row for elementwise instructions. Same location; the view covers no more
    bytes than the source. Each `?` valid size of the result takes an `index`.

    ```mlir
    %v = pto.tile_view %t valid [%n] : !pto.tile<vec, 16x64xf32> -> !pto.tile<vec, 16x64xf32, valid = ?x64>
    ```
  }];
  let arguments = (ins PTO_Tile:$source, Variadic<Index>:$validSizes);
  let results = (outs PTO_Tile:$result);
  let assemblyFormat = [{
    $source (`valid` ` ` `[` $validSizes^ `]`)? attr-dict `:`
    qualified(type($source)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def PTO_GlobalViewOp : PTO_Op<"global_view", [Pure, AttrSizedOperandSegments]> {
  let summary = "A 2-D GM view (`GlobalTensor`) of a memref";
  let description = [{
    The view starts at `source[offsets...]` (one offset per source
    dimension). `dims = [DR, DC]` names the source dimensions that are the
    view's rows and columns; every other dimension has extent 1. `DR = -1`
    makes the rows a unit dimension (then `R` is 1), which is how a rank-1
    source is viewed: `dims [-1, 0]`. Each `?` in the result shape takes an
    `index` operand in `sizes [...]`.

    Layout `nd` needs the columns to be the source's innermost dimension;
    `dn` needs the rows innermost. Static sizes may not exceed static source
    dimensions. `row_step S` (an `nd` view with source rows) takes every
    S-th row: the GlobalTensor's row stride is S rows of the source (TLOAD
    and TSTORE move each row as one burst, at any stride, on A2/A3; the
    columns of a row are contiguous).

    ```mlir
    %g = pto.global_view %A[%i, %c0] dims [0, 1] : memref<128x256xf32> -> !pto.gtensor<16x256xf32>
    %h = pto.global_view %B[%c0, %j] sizes [%n] dims [0, 1] : memref<?x64xf16> -> !pto.gtensor<?x64xf16>
    %v = pto.global_view %x[%i] dims [-1, 0] : memref<1024xf32> -> !pto.gtensor<1x64xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, Variadic<Index>:$offsets,
                       Variadic<Index>:$sizes, DenseI64ArrayAttr:$dims,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$row_step);
  let results = (outs PTO_GTensor:$result);
  let assemblyFormat = [{
    $source `[` $offsets `]` (`sizes` ` ` `[` $sizes^ `]`)? `dims` $dims
    (`row_step` $row_step^)? attr-dict `:` type($source) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def PTO_CreateTensorOp : PTO_Op<"create_tensor"> {
  let summary = "A GM intermediate allocated by pto-runtime (`TensorCreateInfo`)";
  let description = [{
    In the orchestration function: a static-shaped tensor of at most 5
    dimensions that the runtime allocates and releases at the end of its
    scope, passed to tasks with `pto.submit`.

    ```mlir
    %t = pto.create_tensor : memref<128x256xf32>
    ```
  }];
  let results = (outs Res<AnyStaticShapeMemRef, "", [MemAlloc]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement: TLOAD, TSTORE, MGATHER, TMOV, TEXTRACT
//===----------------------------------------------------------------------===//

def PTO_TLoadOp : PTO_Op<"tload"> {
  let summary = "TLOAD: GM -> vec/mat tile (the tile's valid region)";
  let description = [{
    `TLOAD(dst, src)`. `dst` is `vec` or `mat` with the GM element type.
    Layouts must match (`nd` to row_major/none, `dn` to col_major/none, `nz`
    to col_major/row_major); a `mat` tile also takes `nd` into NZ
    (col_major/row_major) and `dn` into ZN (row_major/col_major). i64 only
    from `nd`/`dn`. Rows: at most 4095 (vec) or 16384 (mat).

    ```mlir
    pto.tload %t, %g : !pto.tile<vec, 16x64xf32>, !pto.gtensor<16x64xf32>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, Arg<PTO_GTensor, "", [MemRead]>:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_TStoreOp : PTO_Op<"tstore"> {
  let summary = "TSTORE: vec/mat/acc tile -> GM";
  let description = [{
    `TSTORE(dst, src)`, or with `atomic_add`
    `TSTORE<TileT, GlobalT, AtomicType::AtomicAdd>(dst, src)` (GM element
    f16, f32, i16, i32, i8 or bf16). From `vec`/`mat`: the element types and
    layouts match as for `pto.tload`, and a 1-row or 1-column unboxed tile
    may go to `nd` or `dn`. From `acc` (through the fixpipe): f32 to f32, f16
    or bf16; i32 to i32; into `nd` or `nz` (not `dn`); at most 4095 columns,
    and at most 8192 rows into `nd`.

    ```mlir
    pto.tstore %g, %t : !pto.gtensor<16x64xf32>, !pto.tile<vec, 16x64xf32>
    pto.tstore %g, %c atomic_add : !pto.gtensor<128x128xf32>, !pto.tile<acc, 128x128xf32>
    ```
  }];
  let arguments = (ins Arg<PTO_GTensor, "", [MemWrite]>:$dst, PTO_Src:$src,
                       UnitAttr:$atomic_add);
  let assemblyFormat = [{
    $dst `,` $src (`atomic_add` $atomic_add^)? attr-dict `:`
    qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_MGatherOp : PTO_Op<"mgather"> {
  let summary = "MGATHER: gather rows of a GM table by an index tile";
  let description = [{
    `MGATHER(dst, table, idx)` with `Coalesce::Row`: row `r` of `dst` is row
    `idx[r]` of `table`. `idx` is a `vec` i32 tile holding one index per row:
    an `Rx1` col_major tile or a `1xR` row_major tile; `dst` (vec, ND) has one
    row per index and the table's element type (u/i8, u/i16, u/i32, f16,
    bf16, f32).

    ```mlir
    pto.mgather %dst, %table, %idx : !pto.tile<vec, 8x128xf16>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x1xi32, blayout = col_major>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, Arg<PTO_GTensor, "", [MemRead]>:$table,
                       PTO_Src:$idx);
  let assemblyFormat = [{
    $dst `,` $table `,` $idx attr-dict `:` qualified(type($dst)) `,`
    qualified(type($table)) `,` qualified(type($idx))
  }];
  let hasVerifier = 1;
}

def PTO_MScatterOp : PTO_Op<"mscatter"> {
  let summary = "MSCATTER: store rows of a tile into rows of a GM table by an index tile";
  let description = [{
    `MSCATTER(table, src, idx)` with `Coalesce::Row`: row `r` of `src`'s
    valid region is written to row `idx[r]` of `table`, one row after the
    other (A2/A3 walks the indices in order from its scalar pipe, one DMA
    per row, so when two indices are equal the later row is what the table
    holds: the last row wins). `idx` is a `vec` i32 tile holding one index
    per row as a `1xR` row_major tile (what A2/A3 reads); `src` (vec, ND)
    has the table's element type
    (u/i8, u/i16, u/i32, f16, bf16, f32). Indices are not checked.

    ```mlir
    pto.mscatter %table, %src, %idx : !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x128xf16>, !pto.tile<vec, 1x8xi32>
    ```
  }];
  let arguments = (ins Arg<PTO_GTensor, "", [MemWrite]>:$table, PTO_Src:$src,
                       PTO_Src:$idx);
  let assemblyFormat = [{
    $table `,` $src `,` $idx attr-dict `:` qualified(type($table)) `,`
    qualified(type($src)) `,` qualified(type($idx))
  }];
  let hasVerifier = 1;
}

def PTO_TMovOp : PTO_Op<"tmov"> {
  let summary = "TMOV: move a tile between locations";
  let description = [{
    `TMOV(dst, src)`. The (src -> dst) pairs that exist on A2/A3 are
    mat -> left, mat -> right, mat -> bias, vec -> vec and acc -> mat (acc ->
    vec and vec -> mat exist only on A5: on A2/A3 data crosses between cube
    and vector cores through GM). Same rows and columns; the element type is
    kept except from acc, where the fixpipe converts f32 to f16/bf16.

    ```mlir
    pto.tmov %left, %a : !pto.tile<left, 64x64xf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_TExtractOp : PTO_Op<"textract"> {
  let summary = "TEXTRACT: a sub-block of a mat tile into left/right, or of a vec tile";
  let description = [{
    `TEXTRACT(dst, src, row, col)`: the block of `dst`'s shape whose top-left
    element is `src[row, col]`. `src` is `mat` and `dst` `left` or `right`
    (same element type: i8, f16, bf16 or f32), or both are ND `vec` tiles
    (A2/A3's vec -> vec form: i8, i16, i32, f16, bf16 or f32, ui of those
    widths; the column offset's bytes a multiple of 32 unless `dst`'s valid
    region is 1x1, and `dst`'s valid columns a whole number of 2-byte
    units; `dst` is no larger than `src`); the block lies inside `src`
    (checked when `row`/`col` are constants, with `dst`'s valid size where
    it is static, as pto-isa asserts `row + dst ValidRow <= src Rows`).

    ```mlir
    pto.textract %l, %a[%c0, %k] : !pto.tile<left, 64x32xf16>, !pto.tile<mat, 64x128xf16, blayout = col_major, slayout = row_major>
    pto.textract %h, %x[%c0, %c32] : !pto.tile<vec, 16x32xf32>, !pto.tile<vec, 16x64xf32>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src, Index:$row, Index:$col);
  let assemblyFormat = [{
    $dst `,` $src `[` $row `,` $col `]` attr-dict `:` qualified(type($dst))
    `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_TInsertOp : PTO_Op<"tinsert"> {
  let summary = "TINSERT: a vec tile written into a block of another";
  let description = [{
    `TINSERT(dst, src, row, col)`: `src`'s valid region written into `dst`
    with its top-left element at `dst[row, col]`, the rest of `dst` kept.
    A2/A3's vec -> vec form: both ND `vec` tiles of one element type (i8,
    i16, i32, f16, bf16, f32 or their ui widths); the column offset's bytes a
    multiple of 32 unless `src`'s valid region is 1x1; `src`'s valid columns
    a whole number of 2-byte units; `src` is no larger than `dst`; the
    block (`src`'s valid size where static) lies inside `dst` (checked when
    `row`/`col` are constants).

    ```mlir
    pto.tinsert %d, %x[%c16, %c0] : !pto.tile<vec, 32x64xf32>, !pto.tile<vec, 16x64xf32>
    ```
  }];
  let arguments = (ins Arg<PTO_Tile, "destination tile", [MemRead, MemWrite]>:$dst,
                       PTO_Src:$src, Index:$row, Index:$col);
  let assemblyFormat = [{
    $dst `,` $src `[` $row `,` $col `]` attr-dict `:` qualified(type($dst))
    `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_TConcatOp : PTO_Op<"tconcat", [PTO_VectorArithmetic]> {
  let summary = "TCONCAT: two vec tiles side by side, row by row";
  let description = [{
    `TCONCAT(dst, src0, src1)`: each valid row of `dst` is the valid columns
    of `src0`'s row followed by those of `src1`'s. ND `vec` tiles of one
    element type (i8, i16, i32, f16, bf16, f32 or their ui widths); the three
    have the same valid rows, `dst`'s valid columns are the sum of the
    sources' and fit its columns.

    ```mlir
    pto.tconcat %d, %a, %b : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x32xf32>, !pto.tile<vec, 16x32xf32>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src0, PTO_Src:$src1);
  let assemblyFormat = [{
    $dst `,` $src0 `,` $src1 attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src0)) `,` qualified(type($src1))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise (vec tiles, ND, same shape, equal valid regions)
//===----------------------------------------------------------------------===//

class PTO_BinaryOp<string mnemonic, string isa, string types>
    : PTO_Op<mnemonic, [PTO_VectorArithmetic]> {
  let summary = isa # ": elementwise tile-tile (A2/A3: " # types # ")";
  let description = "`" # isa # "(dst, src0, src1)` over dst's valid region. "
      # "All three are vec ND tiles of one element type (" # types # ") and "
      # "shape; static valid sizes are equal. `dst` may be a source.\n\n"
      # "```mlir\npto." # mnemonic # " %d, %a, %b : !pto.tile<vec, 16x64xf32>, "
      # "!pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>\n```";
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src0, PTO_Src:$src1);
  let assemblyFormat = [{
    $dst `,` $src0 `,` $src1 attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src0)) `,` qualified(type($src1))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = "static constexpr ::llvm::StringLiteral kTypes = \""
      # types # "\";";
}

def PTO_TAddOp : PTO_BinaryOp<"tadd", "TADD", "i32, i16, f16, f32">;
def PTO_TSubOp : PTO_BinaryOp<"tsub", "TSUB", "i32, i16, f16, f32">;
def PTO_TMulOp : PTO_BinaryOp<"tmul", "TMUL", "i32, i16, f16, f32">;
def PTO_TDivOp : PTO_BinaryOp<"tdiv", "TDIV", "f16, f32">;
def PTO_TMaxOp : PTO_BinaryOp<"tmax", "TMAX", "i32, i16, f16, f32">;
def PTO_TMinOp : PTO_BinaryOp<"tmin", "TMIN", "i32, i16, f16, f32">;

class PTO_ScalarOp<string mnemonic, string isa, string types>
    : PTO_Op<mnemonic, [PTO_VectorArithmetic]> {
  let summary = isa # ": elementwise tile-scalar (A2/A3: " # types # ")";
  let description = "`" # isa # "(dst, src, scalar)`: as the tile-tile op "
      # "with a scalar of the element type (for an unsigned element type the "
      # "signless integer of its width is accepted too).\n\n"
      # "```mlir\npto." # mnemonic # " %d, %a, %s : !pto.tile<vec, 16x64xf32>, "
      # "!pto.tile<vec, 16x64xf32>, f32\n```";
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src, PTO_Scalar:$scalar);
  let assemblyFormat = [{
    $dst `,` $src `,` $scalar attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` type($scalar)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = "static constexpr ::llvm::StringLiteral kTypes = \""
      # types # "\";";
}

def PTO_TAddSOp : PTO_ScalarOp<"tadds", "TADDS", "i32, i16, f16, f32">;
def PTO_TSubSOp : PTO_ScalarOp<"tsubs", "TSUBS", "i32, i16, f16, f32">;
def PTO_TMulSOp : PTO_ScalarOp<"tmuls", "TMULS", "i32, i16, f16, f32">;
def PTO_TMaxSOp : PTO_ScalarOp<"tmaxs", "TMAXS", "i32, i16, f16, f32">;
def PTO_TMinSOp : PTO_ScalarOp<"tmins", "TMINS", "i32, i16, f16, f32">;

def PTO_TDivSOp : PTO_Op<"tdivs", [PTO_VectorArithmetic]> {
  let summary = "TDIVS: tile / scalar, or scalar / tile with `reverse`";
  let description = [{
    `TDIVS(dst, src, scalar)` (x / s), or `TDIVS(dst, scalar, src)` (s / x)
    when `reverse` is given. A2/A3 types: i32, i16, f16, f32.

    ```mlir
    pto.tdivs %d, %a, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, f32
    pto.tdivs %d, %a, %one reverse : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, f32
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src, PTO_Scalar:$scalar,
                       UnitAttr:$reverse);
  let assemblyFormat = [{
    $dst `,` $src `,` $scalar (`reverse` $reverse^)? attr-dict `:`
    qualified(type($dst)) `,` qualified(type($src)) `,` type($scalar)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kTypes = "i32, i16, f16, f32";
  }];
}

def PTO_TExpandSOp : PTO_Op<"texpands", [PTO_VectorArithmetic]> {
  let summary = "TEXPANDS: fill a tile's valid region with a scalar";
  let description = [{
    `TEXPANDS(dst, scalar)`. A2/A3 vec types: i8, i16, i32, ui8, ui16, ui32,
    f16, bf16, f32.

    ```mlir
    pto.texpands %d, %zero : !pto.tile<vec, 16x64xf32>, f32
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Scalar:$scalar);
  let assemblyFormat = [{
    $dst `,` $scalar attr-dict `:` qualified(type($dst)) `,` type($scalar)
  }];
  let hasVerifier = 1;
}

class PTO_UnaryOp<string mnemonic, string isa, string types>
    : PTO_Op<mnemonic, [PTO_VectorArithmetic]> {
  let summary = isa # ": elementwise unary (A2/A3: " # types # ")";
  let description = "`" # isa # "(dst, src)`; vec ND tiles of one element "
      # "type (" # types # ") and shape.\n\n"
      # "```mlir\npto." # mnemonic # " %d, %a : !pto.tile<vec, 16x64xf32>, "
      # "!pto.tile<vec, 16x64xf32>\n```";
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = "static constexpr ::llvm::StringLiteral kTypes = \""
      # types # "\";";
}

def PTO_TExpOp : PTO_UnaryOp<"texp", "TEXP", "f16, f32">;
def PTO_TLogOp : PTO_UnaryOp<"tlog", "TLOG", "f16, f32">;
def PTO_TSqrtOp : PTO_UnaryOp<"tsqrt", "TSQRT", "f16, f32">;
def PTO_TRsqrtOp : PTO_UnaryOp<"trsqrt", "TRSQRT", "f16, f32">;
def PTO_TAbsOp : PTO_UnaryOp<"tabs", "TABS", "f16, f32">;
def PTO_TNegOp : PTO_UnaryOp<"tneg", "TNEG", "i32, i16, f16, f32">;
def PTO_TReluOp : PTO_UnaryOp<"trelu", "TRELU", "f16, f32, i32">;
def PTO_TRecipOp : PTO_UnaryOp<"trecip", "TRECIP", "f16, f32"> {
  let description = [{
    `TRECIP(dst, src)` (1 / x; implemented as `TDIVS(dst, 1, src)`). f16 or
    f32. On A2/A3 `dst` and `src` must be different tiles, so the same SSA
    value may not be both.

    ```mlir
    pto.trecip %d, %a : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Reductions and broadcasts
//===----------------------------------------------------------------------===//

class PTO_RowReduceOp<string mnemonic, string isa>
    : PTO_Op<mnemonic, [PTO_VectorArithmetic]> {
  let summary = isa # ": reduce each row to one element";
  let description = "`" # isa # "(dst, src, tmp)`. `src` is a vec ND tile "
      # "(f16, f32, i32, i16); `dst` (same element type) has one column: "
      # "either an `Rx1` col_major tile (DN) or a row_major tile with valid "
      # "columns 1; its valid rows are src's. `tmp` (mandatory scratch on A2/A3) "
      # "is a vec ND tile of src's shape and element type.\n\n"
      # "```mlir\npto." # mnemonic # " %m, %x, %tmp : !pto.tile<vec, 16x1xf32, "
      # "blayout = col_major>, !pto.tile<vec, 16x64xf32>, "
      # "!pto.tile<vec, 16x64xf32>\n```";
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src, PTO_Tmp:$tmp);
  let assemblyFormat = [{
    $dst `,` $src `,` $tmp attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` qualified(type($tmp))
  }];
  let hasVerifier = 1;
}

def PTO_TRowSumOp : PTO_RowReduceOp<"trowsum", "TROWSUM">;
def PTO_TRowMaxOp : PTO_RowReduceOp<"trowmax", "TROWMAX">;
def PTO_TRowMinOp : PTO_RowReduceOp<"trowmin", "TROWMIN">;

class PTO_ColReduceOp<string mnemonic, string isa>
    : PTO_Op<mnemonic, [PTO_VectorArithmetic]> {
  let summary = isa # ": reduce each column to one element";
  let description = "`" # isa # "(dst, src)`. Vec ND tiles of one element "
      # "type (f16, f32, i16, i32) and column count; `dst` has one row and "
      # "src's valid columns.\n\n"
      # "```mlir\npto." # mnemonic # " %s, %x : !pto.tile<vec, 1x64xf32>, "
      # "!pto.tile<vec, 16x64xf32>\n```";
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_TColSumOp : PTO_ColReduceOp<"tcolsum", "TCOLSUM">;
def PTO_TColMaxOp : PTO_ColReduceOp<"tcolmax", "TCOLMAX">;
def PTO_TColMinOp : PTO_ColReduceOp<"tcolmin", "TCOLMIN">;

class PTO_RowArgReduceOp<string mnemonic, string isa, string what>
    : PTO_Op<mnemonic, [PTO_VectorArithmetic]> {
  let summary = isa # ": the column of each row's " # what;
  let description = "`" # isa # "(dst, src, tmp)`: `dst[r]` is the column of "
      # "the " # what # " of row `r` of `src`'s valid region (the first of "
      # "equal ones in PTO-ISA's CPU model). `src` is a vec ND tile (f16, "
      # "f32, i32, i16); `dst` is an i32 or ui32 tile with one column: an `Rx1` "
      # "col_major vec tile or a row_major vec tile with valid columns 1; its "
      # "valid rows are src's. `tmp` (scratch on A2/A3) is a vec ND tile of "
      # "src's shape and element type.\n\n"
      # "```mlir\npto." # mnemonic # " %i, %x, %tmp : !pto.tile<vec, 16x1xi32, "
      # "blayout = col_major>, !pto.tile<vec, 16x64xf32>, "
      # "!pto.tile<vec, 16x64xf32>\n```";
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src, PTO_Tmp:$tmp);
  let assemblyFormat = [{
    $dst `,` $src `,` $tmp attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` qualified(type($tmp))
  }];
  let hasVerifier = 1;
}

def PTO_TRowArgMaxOp : PTO_RowArgReduceOp<"trowargmax", "TROWARGMAX", "maximum">;
def PTO_TRowArgMinOp : PTO_RowArgReduceOp<"trowargmin", "TROWARGMIN", "minimum">;

def PTO_TRowExpandOp : PTO_Op<"trowexpand", [PTO_VectorArithmetic]> {
  let summary = "TROWEXPAND: fill each row with src[i, 0]";
  let description = [{
    `TROWEXPAND(dst, src)`. `dst` is a vec ND tile; `src` holds one value per
    row: an `Rx1` col_major tile, or a row_major tile with valid columns 1.
    Same element type (i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32);
    static valid rows equal.

    ```mlir
    pto.trowexpand %d, %m : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_TColExpandOp : PTO_Op<"tcolexpand", [PTO_VectorArithmetic]> {
  let summary = "TCOLEXPAND: fill each column with src[0, j]";
  let description = [{
    `TCOLEXPAND(dst, src)`. Vec ND tiles of one element type (1, 2 or 4
    bytes) and column count; `src` has one row; static valid columns equal.

    ```mlir
    pto.tcolexpand %d, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 1x64xf32>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_TRowExpandBinOp : PTO_Op<"trowexpand_op", [PTO_VectorArithmetic]> {
  let summary = "TROWEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF}: dst = op(src0, src1[i, 0])";
  let description = [{
    `dst[i, j] = kind(src0[i, j], src1[i, 0])` (`expdif`: `exp(src0 - src1)`).
    `dst` and `src0` are vec ND tiles of one shape; `src1` is the per-row
    operand: an `Rx1` col_major tile, or a row_major tile whose valid columns
    are 1 or `32 / sizeof(T)` (one 32-byte block per row, the ISA's second
    mode). Types f16, f32, i16, i32 (`expdif`: f16, f32). Emitted without
    `tmp`, the A2/A3 col_major form uses the hidden UB scratch that
    `pto.alloc_tile` keeps free.

    ```mlir
    pto.trowexpand_op sub %d, %x, %m : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
    ```
  }];
  let arguments = (ins PTO_ExpandKind:$kind, PTO_Dst:$dst, PTO_Src:$src0,
                       PTO_Src:$src1);
  let assemblyFormat = [{
    $kind $dst `,` $src0 `,` $src1 attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src0)) `,` qualified(type($src1))
  }];
  let hasVerifier = 1;
}

def PTO_TColExpandBinOp : PTO_Op<"tcolexpand_op", [PTO_VectorArithmetic]> {
  let summary = "TCOLEXPAND{ADD,SUB,MUL,DIV,MAX,MIN,EXPDIF}: dst = op(src0, src1[0, j])";
  let description = [{
    `dst[i, j] = kind(src0[i, j], src1[0, j])`. `dst` and `src0` are vec ND
    tiles of one shape; `src1` is a one-row vec ND tile with dst's columns.
    Types f16, f32, i16, i32 (`expdif`: f16, f32).

    ```mlir
    pto.tcolexpand_op mul %d, %x, %s : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 1x64xf32>
    ```
  }];
  let arguments = (ins PTO_ExpandKind:$kind, PTO_Dst:$dst, PTO_Src:$src0,
                       PTO_Src:$src1);
  let assemblyFormat = [{
    $kind $dst `,` $src0 `,` $src1 attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src0)) `,` qualified(type($src1))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// TCVT, matmul, compare/select, pad, transpose, reshape, TCI
//===----------------------------------------------------------------------===//

def PTO_TCvtOp : PTO_Op<"tcvt", [PTO_VectorArithmetic]> {
  let summary = "TCVT: convert elements with an explicit rounding mode";
  let description = [{
    `TCVT(dst, src, RoundMode::CAST_<ROUND>)`. Vec ND tiles of one shape.
    The A2/A3 pairs: f32 -> f16, f32, bf16, i16, i32, i64; f16 -> f32, i32,
    i16, i8, ui8; bf16 -> f32, i32; i16 -> f16, f32; i32 -> f32, i16, i64,
    f16; i64 -> f32, i32; ui8 -> f16; i8 -> f16. Others go through f32.

    ```mlir
    pto.tcvt %h, %x round rint : !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xf32>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src, PTO_RoundMode:$round);
  let assemblyFormat = [{
    $dst `,` $src `round` $round attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src))
  }];
  let hasVerifier = 1;
}

class PTO_MatmulOp<string mnemonic, string isa, string what,
                   list<MemoryEffect> accEffects>
    : PTO_Op<mnemonic> {
  let summary = isa # ": " # what;
  let description = "`" # isa # "(acc, left, right)`: " # what # ". "
      # "Locations acc, left, right; (acc, left, right) element types "
      # "(i32, i8, i8), (f32, f16, f16), (f32, f32, f32) or (f32, bf16, bf16); "
      # "acc is MxN, left MxK, right KxN.\n\n"
      # "```mlir\npto." # mnemonic # " %c, %a, %b : !pto.tile<acc, 64x128xf32>, "
      # "!pto.tile<left, 64x32xf16>, !pto.tile<right, 32x128xf16>\n```";
  let arguments = (ins Arg<PTO_Tile, "accumulator", accEffects>:$acc,
                       PTO_Src:$left, PTO_Src:$right);
  let assemblyFormat = [{
    $acc `,` $left `,` $right attr-dict `:` qualified(type($acc)) `,`
    qualified(type($left)) `,` qualified(type($right))
  }];
  let hasVerifier = 1;
}

def PTO_TMatmulOp : PTO_MatmulOp<"tmatmul", "TMATMUL", "acc = left x right",
                                 [MemWrite]>;
def PTO_TMatmulAccOp : PTO_MatmulOp<"tmatmul_acc", "TMATMUL_ACC",
                                    "acc += left x right", [MemRead, MemWrite]>;

def PTO_TCmpOp : PTO_Op<"tcmp", [PTO_VectorArithmetic]> {
  let summary = "TCMP: compare two tiles into a packed predicate tile";
  let description = [{
    `TCMP(mask, src0, src1, CmpMode::MODE)`. Sources: vec ND tiles of one
    type (i32, f16, f32) and shape; i32 only with `eq` (A2/A3 ignores the
    mode for i32). `mask` is a vec ui8 tile of bits: src's rows and at least
    `ceil(cols / 8)` columns.

    ```mlir
    pto.tcmp lt %m, %a, %b : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
    ```
  }];
  let arguments = (ins PTO_CmpMode:$mode, PTO_Dst:$mask, PTO_Src:$src0,
                       PTO_Src:$src1);
  let assemblyFormat = [{
    $mode $mask `,` $src0 `,` $src1 attr-dict `:` qualified(type($mask)) `,`
    qualified(type($src0)) `,` qualified(type($src1))
  }];
  let hasVerifier = 1;
}

def PTO_TCmpSOp : PTO_Op<"tcmps", [PTO_VectorArithmetic]> {
  let summary = "TCMPS: compare a tile with a scalar into a packed predicate tile";
  let description = [{
    `TCMPS(mask, src, scalar, CmpMode::MODE)`: as `pto.tcmp`, with types
    i32, i16, ui16, f16, f32 (i32 only `eq`).

    ```mlir
    pto.tcmps ge %m, %a, %s : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, f32
    ```
  }];
  let arguments = (ins PTO_CmpMode:$mode, PTO_Dst:$mask, PTO_Src:$src,
                       PTO_Scalar:$scalar);
  let assemblyFormat = [{
    $mode $mask `,` $src `,` $scalar attr-dict `:` qualified(type($mask)) `,`
    qualified(type($src)) `,` type($scalar)
  }];
  let hasVerifier = 1;
}

def PTO_TSelOp : PTO_Op<"tsel", [PTO_VectorArithmetic]> {
  let summary = "TSEL: choose elements by a packed predicate tile";
  let description = [{
    `TSEL(dst, mask, src0, src1, tmp)`: `src0` where the mask bit is set,
    else `src1`. `dst`, `src0`, `src1`: vec ND tiles of one type (i16, ui16,
    i32, ui32, f16, bf16, f32) and shape; `mask` as for `pto.tcmp`; `tmp`
    (mandatory on A2/A3) a vec ui32 tile.

    ```mlir
    pto.tsel %d, %m, %a, %b, %tmp : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 1x16xui32>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$mask, PTO_Src:$src0,
                       PTO_Src:$src1, PTO_Tmp:$tmp);
  let assemblyFormat = [{
    $dst `,` $mask `,` $src0 `,` $src1 `,` $tmp attr-dict `:`
    qualified(type($dst)) `,` qualified(type($mask)) `,` qualified(type($src0))
    `,` qualified(type($src1)) `,` qualified(type($tmp))
  }];
  let hasVerifier = 1;
}

def PTO_TFillPadOp : PTO_Op<"tfillpad"> {
  let summary = "TFILLPAD: copy the valid region, fill the rest with dst's pad";
  let description = [{
    `TFILLPAD(dst, src)`: `dst` gets `src`'s valid region and the rest of
    `dst` is set to `dst`'s `pad` (not `null`). Same location, rows, columns
    and element type (1, 2 or 4 bytes), except that a `vec` `dst` may have
    more rows and columns (`TFILLPAD_EXPAND`: `src` is copied into its
    top-left corner). `mat` tiles: NZ (col_major/row_major)
    and `pad = zero` only. `dst` and `src` may be the same bytes
    (`TFILLPAD_INPLACE`) when two tiles are allocated at one `addr`.

    ```mlir
    pto.tfillpad %full, %part : !pto.tile<vec, 16x64xf32, pad = min>, !pto.tile<vec, 16x64xf32, valid = ?x64>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_TTransOp : PTO_Op<"ttrans", [PTO_VectorArithmetic]> {
  let summary = "TTRANS: transpose";
  let description = [{
    `TTRANS(dst, src, tmp)`: `dst` (C x R) is `src` (R x C, row_major)
    transposed. Vec tiles with elements of one size (u/i8, u/i16, u/i32,
    f16, bf16, f32); `tmp` is a vec scratch tile.

    ```mlir
    pto.ttrans %t, %x, %tmp : !pto.tile<vec, 64x16xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src, PTO_Tmp:$tmp);
  let assemblyFormat = [{
    $dst `,` $src `,` $tmp attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` qualified(type($tmp))
  }];
  let hasVerifier = 1;
}

def PTO_TSort32Op : PTO_Op<"tsort32", [PTO_VectorArithmetic]> {
  let summary = "TSORT32: sort each row in blocks of 32, as (value, index) pairs";
  let description = [{
    `TSORT32(dst, src, idx)`: each block of 32 elements of a row of `src` is
    sorted descending, each element paired with its entry of `idx` (equal
    values: the lower index first), and written to `dst` as pairs of 8
    bytes (f32: the value, then the index as ui32; f16: the value, a zero
    half, the index). `src` is a vec ND tile of f16 or f32 whose valid
    columns are a multiple of 32 (this form, without a scratch tile, sorts
    whole blocks only); `idx` is a vec ND ui32 tile of src's shape and valid
    region; `dst` is a vec ND tile of src's element type, src's rows and
    valid rows, and 2 (f32) or 4 (f16) times src's columns.

    ```mlir
    pto.tsort32 %pairs, %x, %idx : !pto.tile<vec, 16x128xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xui32>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src, PTO_Src:$idx);
  let assemblyFormat = [{
    $dst `,` $src `,` $idx attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` qualified(type($idx))
  }];
  let hasVerifier = 1;
}

def PTO_TMrgSortOp : PTO_Op<"tmrgsort", [PTO_VectorArithmetic]> {
  let summary = "TMRGSORT: merge sorted runs of (value, index) pairs, four at a time";
  let description = [{
    `TMRGSORT(dst, src, blockLen)`: `src` holds runs of `block_len` elements
    (`block_len / 2` f32 pairs as TSORT32 writes them), each sorted
    descending; every group of 4 neighbouring runs is merged into one
    descending run of `4 x block_len` elements in `dst` (equal values: the
    earlier run first, in PTO-ISA's CPU model). `dst` and `src` are one-row
    vec ND tiles of f16 or f32 with the same element type and columns;
    `block_len` is a multiple of 64; src's valid columns are a multiple of
    `4 x block_len`, at most 255 groups; the two tiles together take at most
    196608 bytes (A2/A3's UB).

    ```mlir
    pto.tmrgsort %out, %runs block 64 : !pto.tile<vec, 1x2048xf32>, !pto.tile<vec, 1x2048xf32>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src,
                       ConfinedAttr<I64Attr, [IntPositive]>:$block_len);
  let assemblyFormat = [{
    $dst `,` $src `block` $block_len attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_TGatherOp : PTO_Op<"tgather", [PTO_VectorArithmetic]> {
  let summary = "TGATHER: elements of a tile at the offsets an index tile holds";
  let description = [{
    `TGATHER(dst, src, indices, tmp)`: each valid element of `dst` is the
    element of `src` at the flat offset (in elements, row-major over src's
    buffer: row `offset / columns`, column `offset % columns`) that the same
    element of `indices` holds. `dst` and `src`: vec tiles of one 16- or
    32-bit element type; `indices`: a vec i32 or ui32 tile of dst's valid
    region; `tmp` (scratch on A2/A3, which walks it with dst's row
    stride): a vec tile of indices' element type and valid region, with at
    least dst's rows and columns.

    ```mlir
    pto.tgather %d, %x, %offsets, %tmp : !pto.tile<vec, 16x8xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x8xi32>, !pto.tile<vec, 16x8xi32>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src, PTO_Src:$indices,
                       PTO_Tmp:$tmp);
  let assemblyFormat = [{
    $dst `,` $src `,` $indices `,` $tmp attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` qualified(type($indices)) `,` qualified(type($tmp))
  }];
  let hasVerifier = 1;
}

def PTO_TScatterOp : PTO_Op<"tscatter", [PTO_VectorArithmetic]> {
  let summary = "TSCATTER: elements of a tile written at the offsets an index tile holds";
  let description = [{
    `TSCATTER(dst, src, idx)`: for each valid `(i, j)` of `idx`, in
    row-major order, the element of `dst` at the flat offset `idx[i, j]`
    (in elements, over dst's buffer) becomes `src[i, j]`. A2/A3 first
    zeroes the whole of `dst` and then walks the indices in order from its
    scalar pipe, so when two offsets are equal the later element is what
    `dst` holds (the last one wins); pto-isa's CPU model walks them the same
    way but keeps what `dst` held. `dst` and `src`: vec tiles of one
    element type (u/i8, u/i16, u/i32, f16, bf16, f32); `idx`: a vec tile of
    i32 or ui32 offsets for 32-bit elements, of i16 or ui16 offsets for 16-
    and 8-bit elements, with src's valid region. Offsets are not checked.

    ```mlir
    pto.tscatter %d, %v, %offsets : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x72xf32>, !pto.tile<vec, 16x72xi32>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src, PTO_Src:$idx);
  let assemblyFormat = [{
    $dst `,` $src `,` $idx attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src)) `,` qualified(type($idx))
  }];
  let hasVerifier = 1;
}

def PTO_TGatherMaskOp : PTO_Op<"tgather_mask", [PTO_VectorArithmetic]> {
  let summary = "TGATHER by a mask pattern: every 2nd or 4th element of each row";
  let description = [{
    `TGATHER<DstT, SrcT, MaskPattern::P>(dst, src)`: the elements of each
    valid row of `src` that the pattern keeps (`p0101`/`p1010`: the first or
    second of every 2; `p0001` ... `p1000`: one of every 4), written one
    after the other into `dst`, as bits (the element types may differ in
    kind, not in size: an f32 pair's index read as i32). Vec ND tiles of 16-
    or 32-bit elements with the same rows; dst's valid columns are all its
    columns; src's valid columns, when static, are dst's columns times the
    pattern's step (2 or 4), so that each row of src fills one row of dst.

    ```mlir
    pto.tgather_mask p1010 %i, %pairs : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x128xf32>
    ```
  }];
  let arguments = (ins PTO_MaskPattern:$pattern, PTO_Dst:$dst, PTO_Src:$src);
  let assemblyFormat = [{
    $pattern $dst `,` $src attr-dict `:` qualified(type($dst)) `,`
    qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_TReshapeOp : PTO_Op<"treshape"> {
  let summary = "TRESHAPE: view the same bytes as another tile type";
  let description = [{
    `TRESHAPE(dst, src)` (no data movement): same location, same total
    bytes, both boxed or both unboxed. Typical use: an `Rx1` col_major
    per-row vector seen as a `1xR` row_major tile.

    ```mlir
    pto.treshape %r, %m : !pto.tile<vec, 1x16xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Src:$src);
  let assemblyFormat = [{
    $dst `,` $src attr-dict `:` qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_TCiOp : PTO_Op<"tci", [PTO_VectorArithmetic]> {
  let summary = "TCI: an integer sequence start, start + 1, ... (or - with descending)";
  let description = [{
    `TCI<TileT, T, descending>(dst, start)`: `dst[0, j] = start + j`
    (`start - j` with `descending`) for each valid column `j`. As in
    PTO-ISA (`TCI.hpp`: "TCI only support 1 row tile"), `dst` is a one-row
    vec ND tile of i32, ui32, i16 or ui16 and the start has its element type.

    ```mlir
    pto.tci %d, %c0 : !pto.tile<vec, 1x64xi32>, i32
    pto.tci %d, %c9 descending : !pto.tile<vec, 1x64xi32>, i32
    ```
  }];
  let arguments = (ins PTO_Dst:$dst, PTO_Scalar:$start, UnitAttr:$descending);
  let assemblyFormat = [{
    $dst `,` $start (`descending` $descending^)? attr-dict `:`
    qualified(type($dst)) `,` type($start)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Synchronisation
//===----------------------------------------------------------------------===//

class PTO_FlagOp<string mnemonic, string what>
    : PTO_Op<mnemonic, [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = what;
  let description = "`" # mnemonic # "(PIPE_SRC, PIPE_DST, EVENT_IDn)`: "
      # what # ". Pipes `s`, `v`, `mte1`, `mte2`, `mte3`, `m`, `fix` (not "
      # "`all`), two different ones; event id 0 to 7.\n\n"
      # "```mlir\npto." # mnemonic # " <mte2 -> v>, 0\n```";
  let arguments = (ins PTO_PipeAttr:$src_pipe, PTO_PipeAttr:$dst_pipe,
                       ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<7>]>:$event_id);
  let assemblyFormat = [{
    custom<PipePair>($src_pipe, $dst_pipe) `,` $event_id attr-dict
  }];
  let hasVerifier = 1;
}

def PTO_SetFlagOp : PTO_FlagOp<"set_flag", "signal an event from one pipe to another">;
def PTO_WaitFlagOp : PTO_FlagOp<"wait_flag", "wait for an event set by another pipe">;

def PTO_BarrierOp : PTO_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "pipe_barrier: wait until a pipe (or all) has drained";
  let description = [{
    `pipe_barrier(PIPE_X)`.

    ```mlir
    pto.barrier <v>
    pto.barrier <all>
    ```
  }];
  let arguments = (ins PTO_PipeAttr:$pipe);
  let assemblyFormat = "custom<Pipe>($pipe) attr-dict";
}

//===----------------------------------------------------------------------===//
// Cross-core pipes: TPUSH/TPOP/TFREE between the cube and the vector core
//===----------------------------------------------------------------------===//

def PTO_TPushOp : PTO_Op<"tpush"> {
  let summary = "TPUSH: hand a tile to the other core of the cluster";
  let description = [{
    `TPUSH<Pipe, TileT, TileSplitAxis::TILE_NO_SPLIT>(pipe, src)` on the
    pipe of direction `dir`. On A2/A3 the tile travels through a GM ring
    (the kernel's `pto.fifo` tensor): `c2v` pushes an `acc` tile from the
    cube core (fixpipe, L0C -> GM), `v2c` a `vec` tile from the vector core
    (MTE3, UB -> GM). The kernel must run on the producing core.

    ```mlir
    pto.tpush c2v %s : !pto.tile<acc, 32x32xf32>
    pto.tpush v2c %p : !pto.tile<vec, 32x32xf32>
    ```
  }];
  let arguments = (ins PTO_CrossCore:$dir, PTO_Src:$src);
  let assemblyFormat = "$dir $src attr-dict `:` qualified(type($src))";
  let hasVerifier = 1;
}

def PTO_TPopOp : PTO_Op<"tpop"> {
  let summary = "TPOP: take the next tile the other core pushed";
  let description = [{
    `TPOP<Pipe, TileT, TileSplitAxis::TILE_NO_SPLIT>(pipe, dst)`: waits for
    the producer, then loads the tile from the GM ring (MTE2) into the
    pipe's consumer slot, which `dst` must be (the emitter passes its address
    to the pipe): `c2v` into a `vec` tile on the vector core, `v2c` into a
    `mat` NZ tile on the cube core. Pops happen in push order.

    ```mlir
    pto.tpop c2v %s : !pto.tile<vec, 32x32xf32>
    ```
  }];
  let arguments = (ins PTO_CrossCore:$dir, PTO_Dst:$dst);
  let assemblyFormat = "$dir $dst attr-dict `:` qualified(type($dst))";
  let hasVerifier = 1;
}

def PTO_TFreeOp : PTO_Op<"tfree"> {
  let summary = "TFREE: give the popped slot back to the producer";
  let description = [{
    `TFREE<Pipe, TileSplitAxis::TILE_NO_SPLIT>(pipe)` after a `pto.tpop` of
    direction `dir` (on A2/A3 hardware TPOP already frees; the simulator
    needs TFREE).

    ```mlir
    pto.tfree c2v
    ```
  }];
  let arguments = (ins PTO_CrossCore:$dir);
  let assemblyFormat = "$dir attr-dict";
  let hasVerifier = 1;
}

def PTO_ClusterSendOp : PTO_Op<"cluster_send"> {
  let summary = "Hand a tile value to the other core of the cluster (a process's send, before convert-tile-to-pto)";
  let description = [{
    In a tile kernel that is one core of a cluster program (`pto.cluster`,
    `pto.core`; what a CSP program's processes become on PTO): at this point
    the value goes to the other core over the pipe of direction `dir`.
    `convert-tile-to-pto` makes it a `pto.tpush` of the value's buffer (the
    cube core sends matmul results, from L0C; the vector core UB tiles).

    ```mlir
    pto.cluster_send c2v %s : !tile.tile<64x64xf32>
    ```
  }];
  let arguments = (ins PTO_CrossCore:$dir, AnyType:$value);
  let assemblyFormat = "$dir $value attr-dict `:` type($value)";
  let hasVerifier = 1;
}

def PTO_ClusterRecvOp : PTO_Op<"cluster_recv"> {
  let summary = "The next tile the other core of the cluster sent (a process's receive, before convert-tile-to-pto)";
  let description = [{
    The receiving side of `pto.cluster_send`: `convert-tile-to-pto` makes
    it a `pto.tpop` into the pipe's consumer slot, a move out of it (into a
    UB tile on the vector core, into L0A/L0B for the matmuls that read it on
    the cube core) and a `pto.tfree`. Receives come in send order.

    ```mlir
    %p = pto.cluster_recv v2c : !tile.tile<64x64xf16>
    ```
  }];
  let arguments = (ins PTO_CrossCore:$dir);
  let results = (outs AnyType:$value);
  let assemblyFormat = "$dir attr-dict `:` type($value)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Orchestration
//===----------------------------------------------------------------------===//

def PTO_AvailableCoresOp : PTO_Op<"available_cores", [Pure]> {
  let summary = "How many cores of a kind the runtime can give this program";
  let description = [{
    In an orchestration: `rt_available_aiv_count()` for `"aiv"`,
    `rt_available_cluster_count()` for `"aic"` (one cube core per cluster).
    Tasks are sized from it rather than from a hard-coded core count.

    ```mlir
    %n = pto.available_cores "aiv"
    ```
  }];
  let arguments = (ins StrAttr:$core);
  let results = (outs Index:$count);
  let assemblyFormat = "$core attr-dict";
  let hasVerifier = 1;
}

def PTO_SubmitOp : PTO_Op<"submit", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Submit a kernel as a pto-runtime task";
  let description = [{
    `rt_submit_aiv_task`/`rt_submit_aic_task` of `callee` (a function with
    `pto.core`) with a `CoreTaskArgs` built by `add_input` (ins),
    `add_output` (outs), `add_inout` (inouts) and then `add_scalar`
    (scalars). The callee's arguments are the tensors in that order, then
    the scalars. A task takes at most 32 tensors and 16 scalars.

    With `aiv_callee`, the task is a cluster (`MixedKernels`): `callee` (an
    `aic` kernel) on the cube core and `aiv_callee` (an `aiv` kernel, same
    arguments) on both vector cores, exchanging tiles with `pto.tpush` /
    `pto.tpop`.

    ```mlir
    pto.submit @kernel ins(%a, %b : memref<128xf32>, memref<128xf32>) outs(%c : memref<128xf32>) scalars(%n : index)
    pto.submit @k_aic ins(%a : memref<64x64xf32>) outs(%c, %fifo : memref<64x64xf32>, memref<4096xf32>) {aiv_callee = @k_aiv}
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       OptionalAttr<FlatSymbolRefAttr>:$aiv_callee,
                       Arg<Variadic<AnyMemRef>, "", [MemRead]>:$ins,
                       Arg<Variadic<AnyMemRef>, "", [MemWrite]>:$outs,
                       Arg<Variadic<AnyMemRef>, "", [MemRead, MemWrite]>:$inouts,
                       Variadic<AnyTypeOf<[Index, AnySignlessInteger, AnyFloat]>>:$scalars);
  let assemblyFormat = [{
    $callee `ins` `(` ($ins^ `:` type($ins))? `)` `outs` `(` ($outs^ `:` type($outs))? `)`
    (`inouts` `(` $inouts^ `:` type($inouts) `)`)?
    (`scalars` `(` $scalars^ `:` type($scalars) `)`)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static constexpr unsigned kMaxTensors = 32;
    static constexpr unsigned kMaxScalars = 16;
    unsigned getNumTensors() {
      return getIns().size() + getOuts().size() + getInouts().size();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Orchestration: scheduled tasks (what a programming model's conversion
// produces: WSP workloads, htp-conversion-wsp-to-pto)
//===----------------------------------------------------------------------===//

def PTO_ScheduleOp : PTO_Op<"schedule"> {
  let summary = "How an orchestration's scheduled tasks are submitted";
  let description = [{
    At the start of an orchestration entry: its `pto.task`s go through one
    submitter that adds what pto-runtime's TensorMap does not infer — WAR
    edges between the tasks' tensors, the barriers of `pto.ordered`,
    streams, round-robin lanes over `lanes` clusters (0: none; -1: one per
    cluster available at run time), the dispatch predicates of `pto.guard` —
    and counts each `pto.scope`'s tasks against `window`, the ring's task
    window. `dispatch` names the policy (for the reader of the C++).

    ```mlir
    pto.schedule window 64 lanes -1 dispatch "round_robin"
    ```
  }];
  let arguments = (ins I64Attr:$window, I64Attr:$lanes, StrAttr:$dispatch);
  let assemblyFormat = "`window` $window `lanes` $lanes `dispatch` $dispatch attr-dict";
  let hasVerifier = 1;
}

def PTO_ScopeOp : PTO_Op<"scope", [NoTerminator, SingleBlock]> {
  let summary = "A pto-runtime scope: the tasks submitted in its body";
  let description = [{
    `scope_begin` / `scope_end` around the body (an outermost loop's
    iteration): the runtime releases the scope's intermediate tensors at its
    end, and the schedule counts its tasks against the task window (a
    scope with more tasks than the window stops the run at `at`, the
    user's file:line:col). Needs a `pto.schedule` in its function.

    ```mlir
    pto.scope "work.py:12:5" {
      pto.task @k(%v) {access = ["inout"], at = "work.py:13:9"} : memref<16x64xf32>
    }
    ```
  }];
  let arguments = (ins StrAttr:$at);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$at attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def PTO_OrderedOp : PTO_Op<"ordered", [NoTerminator, SingleBlock]> {
  let summary = "Tasks in order: each `pto.order_barrier` waits for all before it";
  let description = [{
    The body (a loop whose iterations end with `pto.order_barrier`) runs its
    iterations' tasks in order: the tasks after a barrier depend on every
    task before it (a WSP sequential loop). Needs a `pto.schedule`.

    ```mlir
    pto.ordered {
      scf.for %i = %c0 to %n step %c1 {
        pto.task @k(%v) {access = ["inout"], at = "w.py:3:5"} : memref<16x64xf32>
        pto.order_barrier
      }
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def PTO_OrderBarrierOp : PTO_Op<"order_barrier"> {
  let summary = "The end of an iteration of a `pto.ordered` body";
  let description = [{
    The tasks submitted after it (in program order) wait for every task of
    the enclosing `pto.ordered` submitted before it.
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def PTO_GuardOp : PTO_Op<"guard", [NoTerminator, SingleBlock]> {
  let summary = "Tasks dispatched only where an element compares true";
  let description = [{
    The tasks submitted in the body carry the dispatch predicate
    `tensor[indices] <predicate> bound` (`eq`, `ne`, `lt`, `le`, `gt`,
    `ge`), which the scheduler evaluates when each task is ready (the
    element may be written by an earlier task): a false one completes
    without running. Guards nest (the innermost applies). Needs a
    `pto.schedule`.

    ```mlir
    pto.guard %counts[%e] "ne" %c0 : memref<8xi32>, index {
      pto.task @expert(%v) {access = ["inout"], at = "moe.py:20:9"} : memref<16x64xf32>
    }
    ```
  }];
  let arguments = (ins AnyMemRef:$tensor, Variadic<Index>:$indices, StrAttr:$predicate, AnyTypeOf<[Index, AnySignlessInteger]>:$bound);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$tensor `[` $indices `]` $predicate $bound attr-dict-with-keyword `:` type($tensor) `,` type($bound) $body";
  let hasVerifier = 1;
}

def PTO_TensorViewOp : PTO_Op<"tensor_view", [Pure, AttrSizedOperandSegments]> {
  let summary = "A block of an orchestration tensor (`ChipTensor::view`)";
  let description = [{
    The block of `source` at `offsets` (one per dimension) with `sizes`
    (one per dimension of the result, whose rank may be lower: the leading
    dimensions of the source are then indexed by the first offsets and
    merged, the tensor being contiguous). A block starting past the end of
    its tensor stops the run at `at` (the user's file:line:col); one
    reaching past the end is cut there (its extent below the result's).

    ```mlir
    %v = pto.tensor_view %x[%r, %c0] sizes [%c16, %c64] {at = "w.py:4:9"} : memref<?x64xf32> -> memref<16x64xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$source, Variadic<Index>:$offsets, Variadic<Index>:$sizes, StrAttr:$at);
  let results = (outs AnyMemRef:$result);
  let assemblyFormat = "$source `[` $offsets `]` `sizes` `[` $sizes `]` attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def PTO_AllocTensorOp : PTO_Op<"alloc_tensor"> {
  let summary = "A GM tensor allocated at once (`alloc_tensors`), alive for the run";
  let description = [{
    In an orchestration entry, outside any scope: a static-shaped tensor of
    1 to 5 dimensions the runtime allocates when the orchestration reaches
    it and releases when the run ends; tasks take views of it (a pipe's
    ring of slots).

    ```mlir
    %ring = pto.alloc_tensor : memref<2x16x64xf32>
    ```
  }];
  let results = (outs Res<AnyStaticShapeMemRef, "", [MemAlloc]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def PTO_TaskOp : PTO_Op<"task", [AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A scheduled task: an orchestration function called on views";
  let description = [{
    Calls the orchestration function `callee` (a kernel's, submitting its
    PTO task or tasks) on `arguments` through the function's
    `pto.schedule`: each tensor argument is accessed as `access` says
    (`in`, `out`, `inout`; `none` for a scalar), which gives the WAR edges
    and order the schedule adds; `stream` (optional) puts the task on that
    stream (tasks of one stream run in submission order). A tensor of
    another extent than the callee's static one stops the run at `at`.

    ```mlir
    pto.task @k(%vx, %vy, %s) {access = ["in", "out", "none"], at = "w.py:9:9"} : memref<16x64xf32>, memref<16x64xf32>, f32
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$arguments, Optional<AnyTypeOf<[Index, AnySignlessInteger]>>:$stream,
                       StrArrayAttr:$access, StrAttr:$at);
  let assemblyFormat = [{
    $callee `(` $arguments `)` (`stream` `(` $stream^ `:` type($stream) `)`)? attr-dict `:` type($arguments)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Communication between chips: pto-runtime's communication windows (L3) and
// PTO-ISA's pto::comm instructions. `comm` (an operand) is the kernel's
// `CommContext *` argument (its rank, its group's size, the base address of
// every rank's window); a peer's copy of a window byte is at the same offset
// from `windowsIn[peer]` as the local one from `windowsIn[rankId]`.
// pto-insert-sync makes each put, notify and wait a full barrier (a
// `pto.barrier <all>` before and after it), so what the kernel wrote has
// landed before a notify and what it reads after a wait is read after it.
//===----------------------------------------------------------------------===//

class PTO_CommQueryOp<string mnemonic, string member, string what>
    : PTO_Op<mnemonic, [Pure]> {
  let summary = what # " (`CommContext::" # member # "`)";
  let description = "`static_cast<int64_t>(ctx->" # member # ")`: " # what #
      ".\n\n```mlir\n%r = pto." # mnemonic # " %comm\n```";
  let arguments = (ins I64:$comm);
  let results = (outs Index:$result);
  let assemblyFormat = "$comm attr-dict";
}

def PTO_CommRankOp : PTO_CommQueryOp<"comm_rank", "rankId",
    "this chip's rank in its communication domain">;
def PTO_CommSizeOp : PTO_CommQueryOp<"comm_size", "rankNum",
    "the number of chips in the domain">;

def PTO_CommPutOp : PTO_Op<"comm_put"> {
  let summary = "A tile stored to a peer chip's copy of a window block (TPUT's store)";
  let description = [{
    `TSTORE(remote, src)`, `remote` being `dst` moved to `peer`'s copy of
    the window `dst` views (the same offset from `windowsIn[peer]`): the
    second half of `pto::comm::TPUT` (whose TLOAD into its staging tile the
    tile already is). `src` is a `vec` tile of the gtensor's element type,
    laid out as for `pto.tstore`. A peer equal to the chip's own rank
    stores locally. A full barrier (pto-insert-sync: `pto.barrier <all>`
    before and after it).

    ```mlir
    pto.comm_put %g, %t peer %p comm %ctx : !pto.gtensor<16x64xf32>, !pto.tile<vec, 16x64xf32>
    ```
  }];
  let arguments = (ins Arg<PTO_GTensor, "", [MemWrite]>:$dst, PTO_Src:$src,
                       Index:$peer, I64:$comm);
  let assemblyFormat = [{
    $dst `,` $src `peer` $peer `comm` $comm attr-dict `:`
    qualified(type($dst)) `,` qualified(type($src))
  }];
  let hasVerifier = 1;
}

def PTO_CommNotifyOp : PTO_Op<"comm_notify", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "TNOTIFY: add to or set a peer chip's copy of a signal";
  let description = [{
    `pto::comm::TNOTIFY(Signal(remote), value, NotifyOp::AtomicAdd | Set)`
    (`op` is `"add"` or `"set"`), `remote` being the `i32` element
    `signals[indices]` of the window in `peer`'s copy. A full barrier
    (pto-insert-sync: `pto.barrier <all>` before and after it): every write
    the kernel issued before it has landed when the peer sees the signal.

    ```mlir
    pto.comm_notify "add" %sig[%me], %one peer %p comm %ctx : memref<16xi32>
    ```
  }];
  let arguments = (ins StrAttr:$op, AnyMemRef:$signals, Variadic<Index>:$indices,
                       I32:$value, Index:$peer, I64:$comm);
  let assemblyFormat = [{
    $op $signals `[` $indices `]` `,` $value `peer` $peer `comm` $comm
    attr-dict `:` type($signals)
  }];
  let hasVerifier = 1;
}

def PTO_CommWaitOp : PTO_Op<"comm_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "TWAIT: until this chip's copy of a signal compares true";
  let description = [{
    `pto::comm::TWAIT(Signal(&signals[indices]), value, WaitCmp::<cmp>)`
    (`cmp`: `eq`, `ne`, `gt`, `ge`, `lt`, `le`) on the `i32` element of
    the chip's own window. A full barrier (pto-insert-sync: `pto.barrier
    <all>` before and after it): nothing after it starts before the signal
    holds.

    ```mlir
    pto.comm_wait %sig[%p] "ge" %one : memref<16xi32>
    ```
  }];
  let arguments = (ins AnyMemRef:$signals, Variadic<Index>:$indices, StrAttr:$cmp,
                       I32:$value);
  let assemblyFormat = [{
    $signals `[` $indices `]` $cmp $value attr-dict `:` type($signals)
  }];
  let hasVerifier = 1;
}

#endif // HTP_PTO_OPS
