//===- PTOOps.cpp - pto op verifiers ---------------------------------------===//
//
// The A2/A3 rules of docs/targets/pto-contract.md sections 2-4, one check per
// rule; each has a case in test/lit/Dialect/pto/invalid.mlir. Unless an op
// says otherwise its tiles are vec, ND (row_major, no boxes), of one element
// type and static shape, and static valid sizes agree.
//
//===----------------------------------------------------------------------===//

#include "pto/PTODialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSwitch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace htp::pto;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

static std::string dimString(int64_t dim) {
  return ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
}

static std::string typeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// Whether `type` prints as one of the names in `list` ("i32, f16, f32").
static bool isOneOf(Type type, StringRef list) {
  SmallVector<StringRef, 10> names;
  list.split(names, ", ");
  return llvm::is_contained(names, typeName(type));
}

static StringRef locationName(TileType tile) {
  return stringifyTileLocation(tile.getLocation());
}

static std::string layoutString(TileType tile) {
  return ("blayout = " + stringifyBLayout(tile.getBlayout()) +
          ", slayout = " + stringifySLayout(tile.getSlayout()))
      .str();
}

/// The A2/A3 element types of an op.
static LogicalResult checkElement(Operation *op, TileType tile,
                                  StringRef allowed) {
  Type element = tile.getElementType();
  if (isOneOf(element, allowed))
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "element type " << element
                            << " is not supported on A2/A3 (supported: "
                            << allowed << ")";
  if (element.isBF16())
    diag << "; A2/A3 has no bf16 vector arithmetic: convert to f32 with "
            "pto.tcvt";
  return diag;
}

/// A vec tile in ND layout (row_major, no boxes).
static LogicalResult requireVecND(Operation *op, TileType tile,
                                  StringRef role) {
  if (tile.getLocation() != TileLocation::vec)
    return op->emitOpError() << "'" << role << "' must be a vec tile, got "
                             << locationName(tile);
  if (!tile.isND())
    return op->emitOpError() << "'" << role
                             << "' must be row_major with slayout = none "
                                "(ND), got "
                             << layoutString(tile);
  return success();
}

/// Two valid sizes agree when both are static.
static LogicalResult checkValidDim(Operation *op, TileType a, StringRef roleA,
                                   unsigned dimA, TileType b, StringRef roleB,
                                   unsigned dimB) {
  int64_t va = a.getValidDim(dimA), vb = b.getValidDim(dimB);
  if (ShapedType::isDynamic(va) || ShapedType::isDynamic(vb) || va == vb)
    return success();
  const char *names[] = {"rows", "columns"};
  return op->emitOpError() << "valid " << names[dimA] << " of '" << roleA
                           << "' (" << va << ") differ from valid "
                           << names[dimB] << " of '" << roleB << "' (" << vb
                           << ")";
}

/// Same element type, static shape and (where static) valid region.
static LogicalResult checkSameTile(Operation *op, TileType a, StringRef roleA,
                                   TileType b, StringRef roleB,
                                   bool sameElement = true) {
  if (sameElement && a.getElementType() != b.getElementType())
    return op->emitOpError() << "element type of '" << roleB << "' ("
                             << b.getElementType() << ") differs from '"
                             << roleA << "' (" << a.getElementType() << ")";
  if (a.getShape() != b.getShape())
    return op->emitOpError() << "'" << roleB << "' is " << b.getRows() << "x"
                             << b.getCols() << " but '" << roleA << "' is "
                             << a.getRows() << "x" << a.getCols();
  for (unsigned dim = 0; dim < 2; ++dim)
    if (failed(checkValidDim(op, a, roleA, dim, b, roleB, dim)))
      return failure();
  return success();
}

static LogicalResult checkSameElement(Operation *op, TileType a,
                                      StringRef roleA, TileType b,
                                      StringRef roleB) {
  if (a.getElementType() != b.getElementType())
    return op->emitOpError() << "element type of '" << roleB << "' ("
                             << b.getElementType() << ") differs from '"
                             << roleA << "' (" << a.getElementType() << ")";
  return success();
}

/// A scalar operand has the tile's element type; for an unsigned element
/// type the signless integer of its width is accepted too (arith constants
/// are signless).
static LogicalResult checkScalar(Operation *op, TileType tile, Type scalar) {
  Type element = tile.getElementType();
  if (scalar == element)
    return success();
  if (element.isUnsignedInteger() &&
      scalar.isSignlessInteger(element.getIntOrFloatBitWidth()))
    return success();
  return op->emitOpError() << "scalar type " << scalar
                           << " is not the tile element type " << element;
}

/// Vec tiles ND of one type and shape (elementwise ops).
static LogicalResult checkElementwise(Operation *op,
                                      ArrayRef<std::pair<TileType, StringRef>> tiles) {
  for (auto [tile, role] : tiles)
    if (failed(requireVecND(op, tile, role)))
      return failure();
  for (auto [tile, role] : tiles.drop_front())
    if (failed(checkSameTile(op, tiles[0].first, tiles[0].second, tile, role)))
      return failure();
  return success();
}

/// pto-isa's CPU model (the simulator's kernels) declares some instructions
/// over one tile type for the destination and every tile source
/// (`TADD_IMPL(tile_shape &dst, tile_shape &src0, tile_shape &src1)` in
/// pto/cpu/TAdd.hpp; TABS, TSEL): there the types, pad value and static or
/// run-time valid sizes included, must be one.
static LogicalResult checkOneType(Operation *op, StringRef isa,
                                  ArrayRef<std::pair<TileType, StringRef>> tiles) {
  for (auto [tile, role] : tiles.drop_front())
    if (tile != tiles[0].first)
      return op->emitOpError()
             << isa << " takes one tile type for its destination and sources "
             << "(pto-isa's CPU model: " << isa << "_IMPL(tile_shape &...)); '"
             << role << "' is " << Type(tile) << " but '" << tiles[0].second
             << "' is " << Type(tiles[0].first);
  return success();
}

/// One value per row: an Rx1 col_major tile, or a row_major tile whose valid
/// columns are 1 (or, when `blockRow`, one 32-byte block).
static LogicalResult checkPerRow(Operation *op, TileType tile, StringRef role,
                                 bool blockRow) {
  if (tile.getLocation() == TileLocation::vec) {
    if (tile.isDN() && tile.getCols() == 1)
      return success();
    int64_t validCols = tile.getValidDim(1);
    if (tile.isND() && (validCols == 1 ||
                        (blockRow && validCols == 32 / tile.getElementBytes())))
      return success();
  }
  return op->emitOpError()
         << "'" << role << "' must hold one value per row: an Rx1 col_major "
         << "vec tile or a row_major vec tile with valid columns 1"
         << (blockRow ? " or 32 / sizeof(T)" : "") << ", got "
         << Type(tile);
}

/// A packed predicate tile: vec ui8, ND, one row per source row and a bit per
/// source column.
static LogicalResult checkMask(Operation *op, TileType mask, TileType src) {
  if (mask.getLocation() != TileLocation::vec ||
      !mask.getElementType().isUnsignedInteger(8))
    return op->emitOpError() << "mask must be a vec ui8 tile (packed bits), got "
                             << Type(mask);
  if (failed(requireVecND(op, mask, "mask")))
    return failure();
  if (mask.getRows() != src.getRows())
    return op->emitOpError() << "mask has " << mask.getRows()
                             << " rows but the data has " << src.getRows();
  if (mask.getCols() * 8 < src.getCols())
    return op->emitOpError() << "mask has " << mask.getCols()
                             << " columns (8 bits each), too few for "
                             << src.getCols() << " data columns";
  return success();
}

//===----------------------------------------------------------------------===//
// alloc_tile / global_view / create_tensor
//===----------------------------------------------------------------------===//

LogicalResult AllocTileOp::verify() {
  TileType tile = getType();
  unsigned dynamic = tile.getNumDynamicValidDims();
  if (getValidSizes().size() != dynamic)
    return emitOpError() << "needs one index operand per '?' valid size of "
                         << Type(tile) << " (" << dynamic << "), got "
                         << getValidSizes().size();
  int64_t size = tile.getSizeInBytes();
  int64_t capacity = getUsableCapacity(tile.getLocation());
  std::optional<int64_t> addr = getAddr();
  if (addr && *addr < 0)
    return emitOpError() << "addr must not be negative, got " << *addr;
  if (addr && *addr % 32 != 0)
    return emitOpError() << "addr " << *addr
                         << " is not a multiple of 32 bytes (TASSIGN alignment)";
  if (addr.value_or(0) + size > capacity) {
    InFlightDiagnostic diag = emitOpError() << "tile of " << size << " bytes";
    if (addr)
      diag << " at addr " << *addr;
    diag << " exceeds the " << capacity << "-byte " << locationName(tile)
         << " buffer (" << getBufferName(tile.getLocation()) << ") on A2/A3";
    if (tile.getLocation() == TileLocation::vec)
      diag.attachNote() << "the last 8192 bytes of the 196608-byte UB are "
                           "PTO-ISA's hidden scratch (TMP_UB_OFFSET)";
    return diag;
  }
  return success();
}

LogicalResult TileViewOp::verify() {
  TileType source = getSource().getType();
  TileType result = getType();
  if (source.getLocation() != result.getLocation())
    return emitOpError() << "views a " << locationName(source)
                         << " tile as a " << locationName(result)
                         << " tile; a view stays in its location";
  if (result.getSizeInBytes() > source.getSizeInBytes())
    return emitOpError() << "view of " << result.getSizeInBytes()
                         << " bytes is larger than its " << source.getSizeInBytes()
                         << "-byte source";
  unsigned dynamic = result.getNumDynamicValidDims();
  if (getValidSizes().size() != dynamic)
    return emitOpError() << "needs one index operand per '?' valid size of "
                         << Type(result) << " (" << dynamic << "), got "
                         << getValidSizes().size();
  return success();
}

LogicalResult AvailableCoresOp::verify() {
  if (getCore() != "aiv" && getCore() != "aic")
    return emitOpError() << "core must be \"aiv\" or \"aic\", got \"" << getCore() << "\"";
  return success();
}

LogicalResult GlobalViewOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  GlobalTensorType result = getType();
  int64_t rank = source.getRank();
  if (rank < 1)
    return emitOpError("needs a source of rank 1 or more");
  if (static_cast<int64_t>(getOffsets().size()) != rank)
    return emitOpError() << "needs " << rank << " offsets for a rank-" << rank
                         << " source, got " << getOffsets().size();
  // A bool (i1) tensor holds one byte per element in GM: it is viewed as
  // i8 or ui8 bytes.
  Type sourceElement = source.getElementType();
  bool boolBytes = sourceElement.isInteger(1) &&
                   result.getElementType().isInteger(8);
  if (sourceElement != result.getElementType() && !boolBytes)
    return emitOpError() << "source element type " << sourceElement
                         << " differs from the view's "
                         << result.getElementType()
                         << " (an i1 tensor is viewed as i8 or ui8 bytes)";
  if (getSizes().size() != result.getNumDynamicDims())
    return emitOpError() << "needs one index operand per '?' in "
                         << Type(result) << " ("
                         << result.getNumDynamicDims() << "), got "
                         << getSizes().size();
  ArrayRef<int64_t> dims = getDims();
  if (dims.size() != 2)
    return emitOpError() << "dims names the rows' and the columns' source "
                            "dimensions (2 entries), got "
                         << dims.size();
  int64_t rowDim = dims[0], colDim = dims[1];
  if (colDim < 0 || colDim >= rank)
    return emitOpError() << "column dimension " << colDim
                         << " is not a dimension of the rank-" << rank
                         << " source";
  if (rowDim < -1 || rowDim >= rank)
    return emitOpError() << "row dimension " << rowDim
                         << " is not -1 (unit) or a dimension of the rank-"
                         << rank << " source";
  if (rowDim == colDim)
    return emitOpError() << "rows and columns cannot both be source "
                            "dimension "
                         << colDim << " (a rank-1 source takes dims [-1, 0])";
  if (rowDim == -1 && result.getRows() != 1)
    return emitOpError() << "a unit row dimension (-1) gives 1 row, but the "
                            "view has "
                         << dimString(result.getRows());
  for (auto [dim, extent, name] :
       {std::tuple{rowDim, result.getRows(), "rows"},
        std::tuple{colDim, result.getCols(), "columns"}}) {
    if (dim < 0 || ShapedType::isDynamic(extent))
      continue;
    int64_t sourceSize = source.getDimSize(dim);
    if (!ShapedType::isDynamic(sourceSize) && extent > sourceSize)
      return emitOpError() << "view " << name << " (" << extent
                           << ") exceed source dimension " << dim << " ("
                           << sourceSize << ")";
  }
  if (result.getLayout() == GTLayout::nd && colDim != rank - 1)
    return emitOpError() << "an nd view needs the columns to be the innermost "
                            "source dimension ("
                         << rank - 1 << "), got " << colDim;
  if (getRowStep() && (result.getLayout() != GTLayout::nd || rowDim < 0))
    return emitOpError("takes a row step in an nd view of source rows only "
                       "(its columns are contiguous, its rows a stride apart)");
  // A dn view walks its rows with stride 1: along the innermost dimension,
  // or along the one before it when the innermost has size 1 (the rows of
  // an [N, 1] tensor are contiguous).
  bool unitInnermost = rank >= 2 && source.getDimSize(rank - 1) == 1;
  if (result.getLayout() == GTLayout::dn && rowDim != rank - 1 &&
      !(unitInnermost && rowDim == rank - 2))
    return emitOpError() << "a dn view needs the rows to be the innermost "
                            "source dimension ("
                         << rank - 1
                         << ", or the one before it when the innermost has "
                            "size 1), got "
                         << rowDim;
  return success();
}

/// A tensor pto-runtime allocates: 1 to 5 dimensions of a PTO element type.
static LogicalResult verifyRuntimeTensor(Operation *op, MemRefType type) {
  if (type.getRank() < 1 || type.getRank() > 5)
    return op->emitOpError() << "a pto-runtime tensor has 1 to 5 dimensions, got "
                             << type.getRank();
  if (!isPTOElementType(type.getElementType()))
    return op->emitOpError() << "element type " << type.getElementType()
                             << " is not a PTO element type";
  return success();
}

LogicalResult CreateTensorOp::verify() { return verifyRuntimeTensor(*this, getType()); }

//===----------------------------------------------------------------------===//
// tload / tstore / mgather / tmov / textract
//===----------------------------------------------------------------------===//

/// How a tile of `tile`'s layout and a GM tensor of `layout` correspond
/// (TLOAD/TSTORE): equal layouts always; a mat tile also ND <-> NZ and
/// DN <-> ZN (the MTE converts).
static bool layoutsMatch(TileType tile, GTLayout layout) {
  bool zn = tile.getBlayout() == BLayout::row_major &&
            tile.getSlayout() == SLayout::col_major;
  switch (layout) {
  case GTLayout::nd:
    return tile.isND() ||
           (tile.getLocation() == TileLocation::mat && tile.isNZ());
  case GTLayout::dn:
    return tile.isDN() || (tile.getLocation() == TileLocation::mat && zn);
  case GTLayout::nz:
    return tile.isNZ();
  }
  return false;
}

static LogicalResult checkLayouts(Operation *op, TileType tile,
                                  GlobalTensorType gm, bool isStore) {
  if (layoutsMatch(tile, gm.getLayout()))
    return success();
  // A 1-row or 1-column unboxed tile is both ND and DN.
  bool vector = !tile.isBoxed() && (tile.getRows() == 1 || tile.getCols() == 1);
  if (isStore && vector && gm.getLayout() != GTLayout::nz)
    return success();
  return op->emitOpError()
         << (isStore ? "cannot store a " : "cannot load a ")
         << locationName(tile) << " tile with " << layoutString(tile)
         << (isStore ? " into a " : " from a ")
         << stringifyGTLayout(gm.getLayout())
         << " gtensor (nd <-> row_major/none, dn <-> col_major/none, nz <-> "
            "col_major/row_major; mat tiles also nd <-> col_major/row_major "
            "and dn <-> row_major/col_major)";
}

LogicalResult TLoadOp::verify() {
  TileType dst = getDst().getType();
  GlobalTensorType src = getSrc().getType();
  if (dst.getLocation() != TileLocation::vec &&
      dst.getLocation() != TileLocation::mat)
    return emitOpError() << "loads into a vec or mat tile, not "
                         << locationName(dst);
  if (dst.getElementType() != src.getElementType())
    return emitOpError() << "tile element type " << dst.getElementType()
                         << " differs from the gtensor's "
                         << src.getElementType();
  if (dst.getElementType().isSignlessInteger(64) &&
      src.getLayout() == GTLayout::nz)
    return emitOpError("loads i64 only from nd or dn gtensors");
  if (failed(checkLayouts(*this, dst, src, /*isStore=*/false)))
    return failure();
  int64_t maxRows = dst.getLocation() == TileLocation::vec ? 4095 : 16384;
  if (dst.getRows() > maxRows)
    return emitOpError() << "loads at most " << maxRows << " rows into a "
                         << locationName(dst) << " tile, got "
                         << dst.getRows();
  return success();
}

LogicalResult TStoreOp::verify() {
  GlobalTensorType dst = getDst().getType();
  TileType src = getSrc().getType();
  Type gmElement = dst.getElementType();
  if (getAtomicAdd() && !isOneOf(gmElement, "f16, f32, i16, i32, i8, bf16"))
    return emitOpError() << "atomic_add stores f16, f32, i16, i32, i8 or "
                            "bf16, got "
                         << gmElement;
  switch (src.getLocation()) {
  case TileLocation::vec:
  case TileLocation::mat:
    if (src.getElementType() != gmElement)
      return emitOpError() << "tile element type " << src.getElementType()
                           << " differs from the gtensor's " << gmElement;
    return checkLayouts(*this, src, dst, /*isStore=*/true);
  case TileLocation::acc: {
    // The fixpipe converts f32 to f16/bf16 on the way out.
    bool f32 = src.getElementType().isF32();
    if (f32 && !isOneOf(gmElement, "f32, f16, bf16"))
      return emitOpError() << "an f32 acc tile stores as f32, f16 or bf16, "
                              "got "
                           << gmElement;
    if (!f32 && gmElement != src.getElementType())
      return emitOpError() << "an i32 acc tile stores as i32, got "
                           << gmElement;
    if (dst.getLayout() == GTLayout::dn)
      return emitOpError("stores an acc tile into nd or nz, not dn");
    if (src.getCols() > 4095)
      return emitOpError() << "stores at most 4095 columns from an acc tile, "
                              "got "
                           << src.getCols();
    if (dst.getLayout() == GTLayout::nd && src.getRows() > 8192)
      return emitOpError() << "stores at most 8192 rows from an acc tile "
                              "into nd, got "
                           << src.getRows();
    return success();
  }
  default:
    return emitOpError() << "stores from a vec, mat or acc tile, not "
                         << locationName(src);
  }
}

LogicalResult MGatherOp::verify() {
  TileType dst = getDst().getType(), idx = getIdx().getType();
  GlobalTensorType table = getTable().getType();
  if (failed(requireVecND(*this, dst, "dst")))
    return failure();
  if (idx.getLocation() != TileLocation::vec ||
      !idx.getElementType().isSignlessInteger(32))
    return emitOpError() << "indices must be a vec i32 tile, got "
                         << Type(idx);
  bool column = idx.isDN() && idx.getCols() == 1;
  bool row = idx.isND() && idx.getRows() == 1;
  if (!column && !row)
    return emitOpError() << "indices must be an Rx1 col_major or a 1xR "
                            "row_major tile, got "
                         << Type(idx);
  // pto-isa pairs the valid regions (one gathered row per valid index): the
  // index tile may be allocated longer (a column tile's rows are rounded up).
  int64_t count = column ? idx.getValidDim(0) : idx.getValidDim(1);
  int64_t slots = column ? idx.getRows() : idx.getCols();
  int64_t rows = dst.getValidDim(0);
  if (!ShapedType::isDynamic(count) && !ShapedType::isDynamic(rows) &&
      count != rows)
    return emitOpError() << "gathers " << count
                         << " rows (one per valid index) but 'dst' has "
                         << rows << " valid rows";
  if (dst.getRows() > slots)
    return emitOpError() << "'dst' has " << dst.getRows()
                         << " rows but 'idx' holds " << slots << " indices";
  if (dst.getElementType() != table.getElementType())
    return emitOpError() << "tile element type " << dst.getElementType()
                         << " differs from the table's "
                         << table.getElementType();
  if (failed(checkElement(*this, dst,
                          "i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32")))
    return failure();
  if (!ShapedType::isDynamic(table.getCols()) &&
      dst.getCols() > table.getCols())
    return emitOpError() << "'dst' has " << dst.getCols()
                         << " columns but the table has " << table.getCols();
  return success();
}

LogicalResult MScatterOp::verify() {
  TileType src = getSrc().getType(), idx = getIdx().getType();
  GlobalTensorType table = getTable().getType();
  if (failed(requireVecND(*this, src, "src")))
    return failure();
  if (idx.getLocation() != TileLocation::vec ||
      !idx.getElementType().isSignlessInteger(32) || !idx.isND() ||
      idx.getRows() != 1)
    return emitOpError() << "indices must be a 1xR row_major vec i32 tile "
                            "(what A2/A3's MSCATTER reads), got "
                         << Type(idx);
  // One written row per valid index.
  int64_t count = idx.getValidDim(1), rows = src.getValidDim(0);
  if (!ShapedType::isDynamic(count) && !ShapedType::isDynamic(rows) &&
      count != rows)
    return emitOpError() << "scatters " << rows << " rows of 'src' by "
                         << count << " valid indices";
  // A2/A3 reads one index per valid row of 'src' (its rows may be padded).
  if (!ShapedType::isDynamic(rows) && rows > idx.getCols())
    return emitOpError() << "'src' has " << rows
                         << " valid rows but 'idx' holds " << idx.getCols()
                         << " indices";
  if (src.getElementType() != table.getElementType())
    return emitOpError() << "tile element type " << src.getElementType()
                         << " differs from the table's "
                         << table.getElementType();
  if (failed(checkElement(*this, src,
                          "i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32")))
    return failure();
  int64_t width = src.getValidDim(1);
  if (!ShapedType::isDynamic(table.getCols()) && !ShapedType::isDynamic(width) &&
      width > table.getCols())
    return emitOpError() << "'src' has " << width
                         << " valid columns but the table has "
                         << table.getCols();
  return success();
}

LogicalResult TMovOp::verify() {
  TileType dst = getDst().getType(), src = getSrc().getType();
  TileLocation from = src.getLocation(), to = dst.getLocation();
  bool allowed =
      (from == TileLocation::mat &&
       (to == TileLocation::left || to == TileLocation::right ||
        to == TileLocation::bias)) ||
      (from == TileLocation::vec && to == TileLocation::vec) ||
      (from == TileLocation::acc && to == TileLocation::mat);
  if (!allowed) {
    InFlightDiagnostic diag = emitOpError()
                              << "tmov from " << locationName(src) << " to "
                              << locationName(dst)
                              << " does not exist on A2/A3";
    if (from == TileLocation::acc && to == TileLocation::vec)
      diag << " (results reach vector code through GM)";
    else if (from == TileLocation::vec && to == TileLocation::mat)
      diag << " (vector results reach the cube through GM)";
    else
      diag << " (A2/A3 moves mat -> left, right or bias, vec -> vec and acc "
              "-> mat)";
    return diag;
  }
  if (dst.getShape() != src.getShape())
    return emitOpError() << "'dst' is " << dst.getRows() << "x"
                         << dst.getCols() << " but 'src' is " << src.getRows()
                         << "x" << src.getCols();
  if (from == TileLocation::acc && src.getElementType().isF32()) {
    if (!isOneOf(dst.getElementType(), "f32, f16, bf16"))
      return emitOpError() << "an f32 acc tile moves into f32, f16 or bf16, "
                              "got "
                           << dst.getElementType();
    return success();
  }
  return checkSameElement(*this, src, "src", dst, "dst");
}

/// The element types A2/A3's vec -> vec TEXTRACT and TINSERT move (A3's
/// `CheckTExtractVecToVecCommon` / `CheckTInsertVecToVecCommon`).
static constexpr StringLiteral kVecMoveTypes =
    "i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32";

/// The rules A2/A3's ND vec -> vec TEXTRACT (`block` = dst) and TINSERT
/// (`block` = src) share, `whole` the other tile: both ND vec tiles of one
/// element type; a column offset whose bytes are a multiple of 32 (A3's
/// limitation) unless the block's valid region is 1x1 (a scalar copy); the
/// block's valid columns a whole number of 2-byte units; the block inside
/// `whole` where the offsets are constants.
static LogicalResult verifyVecBlockMove(Operation *op, TileType block,
                                        StringRef blockRole, TileType whole,
                                        StringRef wholeRole, Value row,
                                        Value col) {
  if (failed(requireVecND(op, block, blockRole)) ||
      failed(requireVecND(op, whole, wholeRole)) ||
      failed(checkSameElement(op, whole, wholeRole, block, blockRole)) ||
      failed(checkElement(op, block, kVecMoveTypes)))
    return failure();
  if (block.getRows() > whole.getRows() || block.getCols() > whole.getCols())
    return op->emitOpError() << "a " << block.getRows() << "x"
                             << block.getCols() << " block does not fit in the "
                             << whole.getRows() << "x" << whole.getCols()
                             << " '" << wholeRole << "'";
  bool scalar = block.getValidDim(0) == 1 && block.getValidDim(1) == 1;
  int64_t bytes = block.getElementBytes();
  int64_t validCols = block.getValidDim(1);
  if (!scalar && !ShapedType::isDynamic(validCols) && (validCols * bytes) % 2)
    return op->emitOpError() << "moves rows of " << validCols << " "
                             << block.getElementType()
                             << " elements: A2/A3 copies whole 2-byte units";
  // The block's extent at the offsets: its valid size where static (what
  // pto-isa asserts: `idxRow + ValidRow <= Rows`), else its size.
  auto extent = [&](unsigned dim) {
    int64_t valid = block.getValidDim(dim);
    return ShapedType::isDynamic(valid) ? block.getShape()[dim] : valid;
  };
  APInt offset;
  if (matchPattern(row, m_ConstantInt(&offset)) &&
      offset.getSExtValue() + extent(0) > whole.getRows())
    return op->emitOpError() << "rows [" << offset.getSExtValue() << ", "
                             << offset.getSExtValue() + extent(0)
                             << ") lie outside the " << whole.getRows()
                             << " rows of '" << wholeRole << "'";
  if (matchPattern(col, m_ConstantInt(&offset))) {
    int64_t at = offset.getSExtValue();
    if (at + extent(1) > whole.getCols())
      return op->emitOpError() << "columns [" << at << ", " << at + extent(1)
                               << ") lie outside the " << whole.getCols()
                               << " columns of '" << wholeRole << "'";
    if (!scalar && (at * bytes) % 32)
      return op->emitOpError()
             << "column offset " << at << " is " << at * bytes
             << " bytes: A2/A3 moves vec blocks from 32-byte-aligned columns "
                "(a multiple of "
             << 32 / bytes << " " << block.getElementType()
             << " elements) unless the block is one element";
  } else if (!scalar) {
    return op->emitOpError("needs a constant column offset (A2/A3 moves vec "
                           "blocks from 32-byte-aligned columns)");
  }
  return success();
}

LogicalResult TExtractOp::verify() {
  TileType dst = getDst().getType(), src = getSrc().getType();
  if (src.getLocation() == TileLocation::vec &&
      dst.getLocation() == TileLocation::vec)
    return verifyVecBlockMove(*this, dst, "dst", src, "src", getRow(),
                              getCol());
  if (src.getLocation() != TileLocation::mat)
    return emitOpError() << "extracts from a mat tile, not "
                         << locationName(src);
  if (dst.getLocation() != TileLocation::left &&
      dst.getLocation() != TileLocation::right)
    return emitOpError() << "extracts into a left or right tile, not "
                         << locationName(dst);
  if (failed(checkSameElement(*this, src, "src", dst, "dst")))
    return failure();
  if (dst.getRows() > src.getRows() || dst.getCols() > src.getCols())
    return emitOpError() << "a " << dst.getRows() << "x" << dst.getCols()
                         << " block does not fit in the " << src.getRows()
                         << "x" << src.getCols() << " source";
  APInt offset;
  if (matchPattern(getRow(), m_ConstantInt(&offset)) &&
      offset.getSExtValue() + dst.getRows() > src.getRows())
    return emitOpError() << "rows [" << offset.getSExtValue() << ", "
                         << offset.getSExtValue() + dst.getRows()
                         << ") lie outside the source's " << src.getRows()
                         << " rows";
  if (matchPattern(getCol(), m_ConstantInt(&offset)) &&
      offset.getSExtValue() + dst.getCols() > src.getCols())
    return emitOpError() << "columns [" << offset.getSExtValue() << ", "
                         << offset.getSExtValue() + dst.getCols()
                         << ") lie outside the source's " << src.getCols()
                         << " columns";
  return success();
}

LogicalResult TInsertOp::verify() {
  return verifyVecBlockMove(*this, getSrc().getType(), "src",
                            getDst().getType(), "dst", getRow(), getCol());
}

LogicalResult TConcatOp::verify() {
  TileType dst = getDst().getType(), src0 = getSrc0().getType(),
           src1 = getSrc1().getType();
  if (failed(requireVecND(*this, dst, "dst")) ||
      failed(requireVecND(*this, src0, "src0")) ||
      failed(requireVecND(*this, src1, "src1")) ||
      failed(checkSameElement(*this, dst, "dst", src0, "src0")) ||
      failed(checkSameElement(*this, dst, "dst", src1, "src1")) ||
      failed(checkElement(*this, dst, kVecMoveTypes)) ||
      failed(checkValidDim(*this, dst, "dst", 0, src0, "src0", 0)) ||
      failed(checkValidDim(*this, dst, "dst", 0, src1, "src1", 0)))
    return failure();
  int64_t a = src0.getValidDim(1), b = src1.getValidDim(1),
          joined = dst.getValidDim(1);
  if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
    return success();
  if (a + b > dst.getCols())
    return emitOpError() << "joins " << a << " + " << b
                         << " columns, more than the " << dst.getCols()
                         << " of 'dst'";
  if (!ShapedType::isDynamic(joined) && joined != a + b)
    return emitOpError() << "valid columns of 'dst' (" << joined
                         << ") must be the sources' " << a << " + " << b;
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

template <typename BinaryOp>
static LogicalResult verifyBinary(BinaryOp op) {
  TileType dst = op.getDst().getType();
  if (failed(checkElementwise(op, {{dst, "dst"},
                                   {op.getSrc0().getType(), "src0"},
                                   {op.getSrc1().getType(), "src1"}})))
    return failure();
  return checkElement(op, dst, BinaryOp::kTypes);
}

template <typename ScalarOp>
static LogicalResult verifyTileScalar(ScalarOp op) {
  TileType dst = op.getDst().getType();
  if (failed(checkElementwise(
          op, {{dst, "dst"}, {op.getSrc().getType(), "src"}})) ||
      failed(checkElement(op, dst, ScalarOp::kTypes)))
    return failure();
  return checkScalar(op, dst, op.getScalar().getType());
}

template <typename UnaryOp>
static LogicalResult verifyUnary(UnaryOp op) {
  TileType dst = op.getDst().getType();
  if (failed(checkElementwise(
          op, {{dst, "dst"}, {op.getSrc().getType(), "src"}})))
    return failure();
  return checkElement(op, dst, UnaryOp::kTypes);
}

#define PTO_VERIFY(OP, FN)                                                     \
  LogicalResult OP::verify() { return FN(*this); }
PTO_VERIFY(TSubOp, verifyBinary)
PTO_VERIFY(TMulOp, verifyBinary)
PTO_VERIFY(TDivOp, verifyBinary)
PTO_VERIFY(TMaxOp, verifyBinary)
PTO_VERIFY(TMinOp, verifyBinary)
PTO_VERIFY(TAddSOp, verifyTileScalar)
PTO_VERIFY(TSubSOp, verifyTileScalar)
PTO_VERIFY(TMulSOp, verifyTileScalar)
PTO_VERIFY(TDivSOp, verifyTileScalar)
PTO_VERIFY(TMaxSOp, verifyTileScalar)
PTO_VERIFY(TMinSOp, verifyTileScalar)
PTO_VERIFY(TExpOp, verifyUnary)
PTO_VERIFY(TLogOp, verifyUnary)
PTO_VERIFY(TSqrtOp, verifyUnary)
PTO_VERIFY(TRsqrtOp, verifyUnary)
PTO_VERIFY(TNegOp, verifyUnary)
PTO_VERIFY(TReluOp, verifyUnary)
#undef PTO_VERIFY

LogicalResult TAddOp::verify() {
  if (failed(verifyBinary(*this)))
    return failure();
  return checkOneType(*this, "TADD", {{getDst().getType(), "dst"},
                                      {getSrc0().getType(), "src0"},
                                      {getSrc1().getType(), "src1"}});
}

LogicalResult TAbsOp::verify() {
  if (failed(verifyUnary(*this)))
    return failure();
  return checkOneType(*this, "TABS", {{getDst().getType(), "dst"},
                                      {getSrc().getType(), "src"}});
}

LogicalResult TRecipOp::verify() {
  if (getDst() == getSrc())
    return emitOpError("trecip cannot run in place on A2/A3 (dst and src "
                       "must be different tiles)");
  return verifyUnary(*this);
}

LogicalResult TExpandSOp::verify() {
  TileType dst = getDst().getType();
  if (failed(requireVecND(*this, dst, "dst")) ||
      failed(checkElement(*this, dst,
                          "i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32")))
    return failure();
  return checkScalar(*this, dst, getScalar().getType());
}

//===----------------------------------------------------------------------===//
// Reductions and broadcasts
//===----------------------------------------------------------------------===//

/// What every row reduction (to a value or to a column index) needs: a vec
/// `src` of `elements`, an Rx1 `dst` with `src`'s valid rows, and a `tmp`
/// of `src`'s shape and element type.
template <typename Op>
static LogicalResult verifyRowToColumn(Op op, llvm::StringRef elements) {
  TileType dst = op.getDst().getType(), src = op.getSrc().getType();
  TileType tmp = op.getTmp().getType();
  if (failed(requireVecND(op, src, "src")) ||
      failed(checkElement(op, src, elements)))
    return failure();
  bool dn = dst.isDN() && dst.getCols() == 1;
  bool nd = dst.isND() && dst.getValidDim(1) == 1;
  if (dst.getLocation() != TileLocation::vec || (!dn && !nd))
    return op.emitOpError() << "'dst' must be an Rx1 col_major vec tile or a "
                               "row_major vec tile with valid columns 1, got "
                            << Type(dst);
  if (failed(checkValidDim(op, src, "src", 0, dst, "dst", 0)) ||
      failed(requireVecND(op, tmp, "tmp")))
    return failure();
  if (tmp.getShape() != src.getShape() ||
      tmp.getElementType() != src.getElementType())
    return op.emitOpError() << "'tmp' must have the shape and element type "
                               "of 'src', got "
                            << Type(tmp);
  return success();
}

template <typename RowReduceOp>
static LogicalResult verifyRowReduce(RowReduceOp op) {
  if (failed(verifyRowToColumn(op, "f16, f32, i32, i16")))
    return failure();
  return checkSameElement(op, op.getSrc().getType(), "src",
                          op.getDst().getType(), "dst");
}

LogicalResult TRowSumOp::verify() { return verifyRowReduce(*this); }
LogicalResult TRowMaxOp::verify() { return verifyRowReduce(*this); }
LogicalResult TRowMinOp::verify() { return verifyRowReduce(*this); }

template <typename RowArgReduceOp>
static LogicalResult verifyRowArgReduce(RowArgReduceOp op) {
  if (failed(verifyRowToColumn(op, "f16, f32, i32, i16")))
    return failure();
  Type index = op.getDst().getType().getElementType();
  if (!index.isInteger(32))
    return op.emitOpError() << "'dst' holds column indices: i32 or ui32, got "
                            << index;
  return success();
}

LogicalResult TRowArgMaxOp::verify() { return verifyRowArgReduce(*this); }
LogicalResult TRowArgMinOp::verify() { return verifyRowArgReduce(*this); }

template <typename ColReduceOp>
static LogicalResult verifyColReduce(ColReduceOp op) {
  TileType dst = op.getDst().getType(), src = op.getSrc().getType();
  if (failed(requireVecND(op, dst, "dst")) ||
      failed(requireVecND(op, src, "src")) ||
      failed(checkSameElement(op, src, "src", dst, "dst")) ||
      failed(checkElement(op, src, "f16, f32, i16, i32")))
    return failure();
  if (dst.getRows() != 1)
    return op.emitOpError() << "'dst' must have 1 row, got " << dst.getRows();
  if (dst.getCols() != src.getCols())
    return op.emitOpError() << "'dst' has " << dst.getCols()
                            << " columns but 'src' has " << src.getCols();
  return checkValidDim(op, src, "src", 1, dst, "dst", 1);
}

LogicalResult TColSumOp::verify() { return verifyColReduce(*this); }
LogicalResult TColMaxOp::verify() { return verifyColReduce(*this); }
LogicalResult TColMinOp::verify() { return verifyColReduce(*this); }

LogicalResult TRowExpandOp::verify() {
  TileType dst = getDst().getType(), src = getSrc().getType();
  if (failed(requireVecND(*this, dst, "dst")) ||
      failed(checkPerRow(*this, src, "src", /*blockRow=*/false)) ||
      failed(checkSameElement(*this, dst, "dst", src, "src")) ||
      failed(checkElement(*this, dst,
                          "i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32")))
    return failure();
  return checkValidDim(*this, dst, "dst", 0, src, "src", 0);
}

/// A one-row ND source with dst's columns.
static LogicalResult checkPerColumn(Operation *op, TileType dst,
                                    TileType src, StringRef role) {
  if (failed(requireVecND(op, src, role)) ||
      failed(checkSameElement(op, dst, "dst", src, role)))
    return failure();
  if (src.getRows() != 1)
    return op->emitOpError() << "'" << role << "' must have 1 row, got "
                             << src.getRows();
  if (src.getCols() != dst.getCols())
    return op->emitOpError() << "'" << role << "' has " << src.getCols()
                             << " columns but 'dst' has " << dst.getCols();
  return checkValidDim(op, dst, "dst", 1, src, role, 1);
}

LogicalResult TColExpandOp::verify() {
  TileType dst = getDst().getType();
  if (failed(requireVecND(*this, dst, "dst")) ||
      failed(checkPerColumn(*this, dst, getSrc().getType(), "src")))
    return failure();
  return checkElement(*this, dst,
                      "i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32");
}

static LogicalResult checkExpandKind(Operation *op, ExpandKind kind,
                                     TileType dst) {
  return checkElement(op, dst,
                      kind == ExpandKind::expdif ? "f16, f32"
                                                 : "f16, f32, i16, i32");
}

LogicalResult TRowExpandBinOp::verify() {
  TileType dst = getDst().getType(), src1 = getSrc1().getType();
  if (failed(checkElementwise(
          *this, {{dst, "dst"}, {getSrc0().getType(), "src0"}})) ||
      failed(checkExpandKind(*this, getKind(), dst)) ||
      failed(checkPerRow(*this, src1, "src1", /*blockRow=*/true)) ||
      failed(checkSameElement(*this, dst, "dst", src1, "src1")))
    return failure();
  return checkValidDim(*this, dst, "dst", 0, src1, "src1", 0);
}

LogicalResult TColExpandBinOp::verify() {
  TileType dst = getDst().getType();
  if (failed(checkElementwise(
          *this, {{dst, "dst"}, {getSrc0().getType(), "src0"}})) ||
      failed(checkExpandKind(*this, getKind(), dst)))
    return failure();
  return checkPerColumn(*this, dst, getSrc1().getType(), "src1");
}

//===----------------------------------------------------------------------===//
// tcvt / matmul / compare / select / pad / transpose / reshape / tci
//===----------------------------------------------------------------------===//

/// TCVT's A2/A3 pairs (tcvt.md, "Supported Conversions"); int4 is not a PTO
/// element type here.
static bool isSupportedCvt(Type from, Type to) {
  std::string f = typeName(from);
  StringRef targets = llvm::StringSwitch<StringRef>(f)
                          .Case("f32", "f16, f32, bf16, i16, i32, i64")
                          .Case("f16", "f32, i32, i16, i8, ui8")
                          .Case("bf16", "f32, i32")
                          .Case("i16", "f16, f32")
                          .Case("i32", "f32, i16, i64, f16")
                          .Case("i64", "f32, i32")
                          .Case("ui8", "f16")
                          .Case("i8", "f16")
                          .Default("");
  return isOneOf(to, targets);
}

LogicalResult TCvtOp::verify() {
  TileType dst = getDst().getType(), src = getSrc().getType();
  // TCVT walks each tile with its own row stride: the shapes may differ
  // (a row of 32 bytes holds 8 f32 but 16 f16), the valid regions not.
  if (failed(requireVecND(*this, dst, "dst")) ||
      failed(requireVecND(*this, src, "src")))
    return failure();
  for (unsigned dim = 0; dim < 2; ++dim)
    if (failed(checkValidDim(*this, dst, "dst", dim, src, "src", dim)))
      return failure();
  if (!isSupportedCvt(src.getElementType(), dst.getElementType()))
    return emitOpError() << "tcvt from " << src.getElementType() << " to "
                         << dst.getElementType()
                         << " does not exist on A2/A3; convert through f32";
  return success();
}

template <typename MatmulOp>
static LogicalResult verifyMatmul(MatmulOp op) {
  TileType acc = op.getAcc().getType(), left = op.getLeft().getType(),
           right = op.getRight().getType();
  for (auto [tile, role, location] :
       {std::tuple{acc, "acc", TileLocation::acc},
        std::tuple{left, "left", TileLocation::left},
        std::tuple{right, "right", TileLocation::right}})
    if (tile.getLocation() != location)
      return op.emitOpError() << "'" << role << "' must be "
                              << (location == TileLocation::acc ? "an " : "a ")
                              << stringifyTileLocation(location)
                              << " tile, got " << locationName(tile);
  Type c = acc.getElementType(), a = left.getElementType(),
       b = right.getElementType();
  bool supported = a == b && ((c.isSignlessInteger(32) &&
                               a.isSignlessInteger(8)) ||
                              (c.isF32() && (a.isF16() || a.isF32() ||
                                             a.isBF16())));
  if (!supported)
    return op.emitOpError()
           << "element types (" << c << ", " << a << ", " << b
           << ") are not an A2/A3 (acc, left, right) triple: (i32, i8, i8), "
              "(f32, f16, f16), (f32, f32, f32) or (f32, bf16, bf16)";
  if (acc.getRows() != left.getRows() || acc.getCols() != right.getCols() ||
      left.getCols() != right.getRows())
    return op.emitOpError() << "shapes do not multiply: acc " << acc.getRows()
                            << "x" << acc.getCols() << ", left "
                            << left.getRows() << "x" << left.getCols()
                            << ", right " << right.getRows() << "x"
                            << right.getCols();
  return success();
}

LogicalResult TMatmulOp::verify() { return verifyMatmul(*this); }
LogicalResult TMatmulAccOp::verify() { return verifyMatmul(*this); }

static LogicalResult checkCmpMode(Operation *op, TileType src, CmpMode mode) {
  if (src.getElementType().isSignlessInteger(32) && mode != CmpMode::eq)
    return op->emitOpError() << "A2/A3 compares i32 tiles only for equality, "
                                "got "
                             << stringifyCmpMode(mode);
  return success();
}

LogicalResult TCmpOp::verify() {
  TileType src0 = getSrc0().getType();
  if (failed(checkElementwise(
          *this, {{src0, "src0"}, {getSrc1().getType(), "src1"}})) ||
      failed(checkElement(*this, src0, "i32, f16, f32")) ||
      failed(checkCmpMode(*this, src0, getMode())))
    return failure();
  return checkMask(*this, getMask().getType(), src0);
}

LogicalResult TCmpSOp::verify() {
  TileType src = getSrc().getType();
  if (failed(requireVecND(*this, src, "src")) ||
      failed(checkElement(*this, src, "i32, i16, ui16, f16, f32")) ||
      failed(checkScalar(*this, src, getScalar().getType())) ||
      failed(checkCmpMode(*this, src, getMode())))
    return failure();
  // PTO-ISA accepts 16-bit integers but A2/A3 compares their bit patterns
  // as f16 (so -1 < 0 fails and 0x8000 == 0), which no integer compare means.
  if (isOneOf(src.getElementType(), "i16, ui16"))
    return emitOpError() << "A2/A3 compares " << src.getElementType()
                         << " bit patterns as f16, not as integers: convert "
                            "to f32 with pto.tcvt first";
  return checkMask(*this, getMask().getType(), src);
}

LogicalResult TSelOp::verify() {
  TileType dst = getDst().getType(), tmp = getTmp().getType();
  if (failed(checkElementwise(*this, {{dst, "dst"},
                                      {getSrc0().getType(), "src0"},
                                      {getSrc1().getType(), "src1"}})) ||
      failed(checkElement(*this, dst, "i16, ui16, i32, ui32, f16, bf16, f32")) ||
      failed(checkMask(*this, getMask().getType(), dst)) ||
      failed(checkOneType(*this, "TSEL", {{dst, "dst"},
                                          {getSrc0().getType(), "src0"},
                                          {getSrc1().getType(), "src1"}})))
    return failure();
  if (tmp.getLocation() != TileLocation::vec ||
      !tmp.getElementType().isUnsignedInteger(32))
    return emitOpError() << "'tmp' must be a vec ui32 tile, got "
                         << Type(tmp);
  // A2/A3 copies each row's compare mask (at most 16 bytes) into `tmp`;
  // every vec tile is at least one 32-byte block, so any `tmp` holds it.
  return success();
}

LogicalResult TFillPadOp::verify() {
  TileType dst = getDst().getType(), src = getSrc().getType();
  if (dst.getLocation() != TileLocation::vec &&
      dst.getLocation() != TileLocation::mat)
    return emitOpError() << "pads vec or mat tiles, not " << locationName(dst);
  if (src.getLocation() != dst.getLocation())
    return emitOpError() << "'src' is a " << locationName(src)
                         << " tile but 'dst' is " << locationName(dst);
  if (dst.getPad() == PadValue::null)
    return emitOpError("'dst' needs a pad value (zero, max or min): it is "
                       "what fills the rest of the tile");
  if (failed(checkSameElement(*this, dst, "dst", src, "src")))
    return failure();
  // A larger vec 'dst' is TFILLPAD_EXPAND: 'src' lands in its top-left
  // corner, the rest is the pad.
  bool expands = dst.getLocation() == TileLocation::vec &&
                 dst.getRows() >= src.getRows() &&
                 dst.getCols() >= src.getCols();
  if (dst.getShape() != src.getShape() && !expands)
    return emitOpError() << "'src' is " << src.getRows() << "x"
                         << src.getCols() << " but 'dst' is " << dst.getRows()
                         << "x" << dst.getCols()
                         << (dst.getLocation() == TileLocation::vec
                                 ? " (a vec 'dst' may be larger, not smaller)"
                                 : "");
  if (dst.getElementBytes() > 4)
    return emitOpError() << "pads elements of 1, 2 or 4 bytes, got "
                         << dst.getElementType();
  if (dst.getBlayout() != src.getBlayout() ||
      dst.getSlayout() != src.getSlayout())
    return emitOpError() << "'src' has " << layoutString(src) << " but 'dst' "
                         << layoutString(dst);
  if (dst.getLocation() == TileLocation::mat &&
      (!dst.isNZ() || dst.getPad() != PadValue::zero))
    return emitOpError("pads mat tiles only in NZ layout (blayout = "
                       "col_major, slayout = row_major) with pad = zero");
  // The cube's TFILLPAD reads only 'dst' (its valid region stays, the rest
  // becomes zero), so a mat tile can only be padded in place.
  if (dst.getLocation() == TileLocation::mat && getDst() != getSrc())
    return emitOpError("pads mat tiles in place: 'dst' and 'src' must be the "
                       "same tile");
  return success();
}

LogicalResult TTransOp::verify() {
  TileType dst = getDst().getType(), src = getSrc().getType();
  TileType tmp = getTmp().getType();
  if (failed(requireVecND(*this, src, "src")) ||
      failed(requireVecND(*this, dst, "dst")) ||
      failed(checkElement(*this, src,
                          "i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32")))
    return failure();
  if (tmp.getLocation() != TileLocation::vec)
    return emitOpError() << "'tmp' must be a vec tile, got "
                         << locationName(tmp);
  if (dst.getElementBytes() != src.getElementBytes())
    return emitOpError() << "element sizes differ: " << dst.getElementType()
                         << " and " << src.getElementType();
  // TTRANS moves src's valid region (A2/A3 takes its sizes from there; the
  // simulator static_asserts that the two valid regions mirror): the
  // buffers themselves may be padded differently (a [1,R] row into an
  // [R,8] ND tile whose column 0 holds it).
  for (unsigned dim = 0; dim < 2; ++dim) {
    int64_t from = src.getValidDim(dim), to = dst.getValidDim(1 - dim);
    if (ShapedType::isDynamic(from) != ShapedType::isDynamic(to) ||
        (!ShapedType::isDynamic(from) && from != to))
      return emitOpError() << "the valid region of 'dst' must mirror that of "
                              "'src': dst dimension "
                           << (1 - dim) << " is " << dimString(to)
                           << " but src dimension " << dim << " is "
                           << dimString(from);
  }
  return success();
}

LogicalResult TSort32Op::verify() {
  TileType dst = getDst().getType(), src = getSrc().getType();
  TileType idx = getIdx().getType();
  if (failed(requireVecND(*this, src, "src")) ||
      failed(requireVecND(*this, idx, "idx")) ||
      failed(requireVecND(*this, dst, "dst")) ||
      failed(checkElement(*this, src, "f16, f32")) ||
      failed(checkSameElement(*this, src, "src", dst, "dst")))
    return failure();
  int64_t validCols = src.getValidDim(1);
  if (!ShapedType::isDynamic(validCols) && validCols % 32 != 0)
    return emitOpError() << "sorts whole blocks of 32: the valid columns of "
                            "'src' must be a multiple of 32, got "
                         << validCols;
  if (!idx.getElementType().isUnsignedInteger(32))
    return emitOpError() << "'idx' must be a ui32 tile, got " << Type(idx);
  if (failed(checkSameTile(*this, src, "src", idx, "idx",
                           /*sameElement=*/false)))
    return failure();
  int64_t factor = 8 / src.getElementBytes();
  if (dst.getRows() != src.getRows() ||
      dst.getCols() != src.getCols() * factor)
    return emitOpError() << "'dst' holds 8-byte (value, index) pairs: it must "
                            "be "
                         << src.getRows() << "x" << src.getCols() * factor
                         << ", got " << dst.getRows() << "x" << dst.getCols();
  return checkValidDim(*this, src, "src", 0, dst, "dst", 0);
}

LogicalResult TMrgSortOp::verify() {
  TileType dst = getDst().getType(), src = getSrc().getType();
  if (failed(requireVecND(*this, dst, "dst")) ||
      failed(requireVecND(*this, src, "src")) ||
      failed(checkElement(*this, src, "f16, f32")) ||
      failed(checkSameElement(*this, src, "src", dst, "dst")))
    return failure();
  if (dst.getRows() != 1 || src.getRows() != 1)
    return emitOpError() << "merges one-row tiles, got " << dst.getRows()
                         << " and " << src.getRows() << " rows";
  if (dst.getCols() != src.getCols())
    return emitOpError() << "'dst' has " << dst.getCols()
                         << " columns but 'src' has " << src.getCols();
  int64_t blockLen = getBlockLen();
  if (blockLen % 64 != 0)
    return emitOpError() << "block_len must be a multiple of 64, got "
                         << blockLen;
  int64_t validCols = src.getValidDim(1);
  if (!ShapedType::isDynamic(validCols)) {
    if (validCols % (4 * blockLen) != 0)
      return emitOpError() << "merges groups of 4 runs: the valid columns of "
                              "'src' ("
                           << validCols << ") must be a multiple of 4 x "
                           << blockLen;
    if (validCols / (4 * blockLen) > 255)
      return emitOpError() << "merges at most 255 groups of 4 runs at once, got "
                           << validCols / (4 * blockLen);
  }
  int64_t bytes = dst.getSizeInBytes() + src.getSizeInBytes();
  if (bytes > 196608)
    return emitOpError() << "'src' and 'dst' take " << bytes
                         << " bytes together; A2/A3's TMRGSORT needs them in "
                            "196608 (its UB)";
  return success();
}

LogicalResult TGatherOp::verify() {
  TileType dst = getDst().getType(), src = getSrc().getType();
  TileType indices = getIndices().getType(), tmp = getTmp().getType();
  if (dst.getLocation() != TileLocation::vec ||
      src.getLocation() != TileLocation::vec)
    return emitOpError("gathers between vec tiles");
  if (failed(checkSameElement(*this, dst, "dst", src, "src")))
    return failure();
  int64_t bytes = dst.getElementBytes();
  if (bytes != 2 && bytes != 4)
    return emitOpError() << "gathers 16- or 32-bit elements, got "
                         << dst.getElementType();
  if (indices.getLocation() != TileLocation::vec ||
      !indices.getElementType().isInteger(32))
    return emitOpError() << "'indices' must be a vec i32 or ui32 tile, got "
                         << Type(indices);
  for (unsigned dim = 0; dim < 2; ++dim)
    if (failed(checkValidDim(*this, dst, "dst", dim, indices, "indices", dim)))
      return failure();
  // A2/A3 writes each row's byte offsets into tmp with dst's row stride.
  if (tmp.getLocation() != TileLocation::vec ||
      tmp.getElementType() != indices.getElementType() ||
      tmp.getRows() < dst.getRows() || tmp.getCols() < dst.getCols())
    return emitOpError() << "'tmp' must be a vec tile of the element type of "
                            "'indices' with at least the rows and columns of "
                            "'dst', got "
                         << Type(tmp);
  for (unsigned dim = 0; dim < 2; ++dim)
    if (failed(checkValidDim(*this, indices, "indices", dim, tmp, "tmp", dim)))
      return failure();
  return success();
}

LogicalResult TScatterOp::verify() {
  TileType dst = getDst().getType(), src = getSrc().getType();
  TileType idx = getIdx().getType();
  if (dst.getLocation() != TileLocation::vec)
    return emitOpError("scatters into a vec tile");
  if (failed(requireVecND(*this, src, "src")) ||
      failed(requireVecND(*this, idx, "idx")) ||
      failed(checkSameElement(*this, dst, "dst", src, "src")) ||
      failed(checkElement(*this, dst,
                          "i8, i16, i32, ui8, ui16, ui32, f16, bf16, f32")))
    return failure();
  int64_t bytes = dst.getElementBytes();
  bool wide = bytes == 4;
  if (!idx.getElementType().isInteger(wide ? 32 : 16))
    return emitOpError() << "offsets of " << dst.getElementType()
                         << " elements must be " << (wide ? "i32 or ui32" : "i16 or ui16")
                         << " (A2/A3's TSCATTER), got " << Type(idx);
  for (unsigned dim = 0; dim < 2; ++dim)
    if (failed(checkValidDim(*this, src, "src", dim, idx, "idx", dim)))
      return failure();
  return success();
}

LogicalResult TGatherMaskOp::verify() {
  TileType dst = getDst().getType(), src = getSrc().getType();
  if (failed(requireVecND(*this, dst, "dst")) ||
      failed(requireVecND(*this, src, "src")))
    return failure();
  int64_t bytes = src.getElementBytes();
  if (bytes != 2 && bytes != 4)
    return emitOpError() << "gathers 16- or 32-bit elements, got "
                         << src.getElementType();
  if (dst.getElementBytes() != bytes)
    return emitOpError() << "'dst' elements (" << dst.getElementType()
                         << ") must have the size of 'src' elements ("
                         << src.getElementType() << ")";
  if (dst.getRows() != src.getRows())
    return emitOpError() << "'dst' has " << dst.getRows()
                         << " rows but 'src' has " << src.getRows();
  if (dst.getValidDim(1) != dst.getCols())
    return emitOpError() << "writes 'dst' as one stream: all of its "
                         << dst.getCols() << " columns must be valid";
  int64_t step = getPattern() == MaskPattern::p0101 ||
                         getPattern() == MaskPattern::p1010
                     ? 2
                     : 4;
  int64_t validCols = src.getValidDim(1);
  if (!ShapedType::isDynamic(validCols) && validCols != dst.getCols() * step)
    return emitOpError() << "keeps 1 of every " << step
                         << " elements: each row of 'src' must fill a row of "
                            "'dst', so src's valid columns must be "
                         << dst.getCols() * step << ", got " << validCols;
  return checkValidDim(*this, src, "src", 0, dst, "dst", 0);
}

LogicalResult TReshapeOp::verify() {
  TileType dst = getDst().getType(), src = getSrc().getType();
  if (dst.getLocation() != src.getLocation())
    return emitOpError() << "cannot move a tile from " << locationName(src)
                         << " to " << locationName(dst)
                         << " (treshape keeps the location)";
  if (dst.getSizeInBytes() != src.getSizeInBytes())
    return emitOpError() << "'dst' has " << dst.getSizeInBytes()
                         << " bytes but 'src' has " << src.getSizeInBytes();
  if (dst.isBoxed() != src.isBoxed())
    return emitOpError("cannot reshape between boxed and unboxed layouts");
  return success();
}

LogicalResult TCiOp::verify() {
  TileType dst = getDst().getType();
  if (failed(requireVecND(*this, dst, "dst")) ||
      failed(checkElement(*this, dst, "i32, ui32, i16, ui16")))
    return failure();
  if (dst.getRows() != 1)
    return emitOpError() << "fills a one-row tile (PTO-ISA TCI), got "
                         << dst.getRows() << " rows";
  return checkScalar(*this, dst, getStart().getType());
}

//===----------------------------------------------------------------------===//
// Sync and orchestration
//===----------------------------------------------------------------------===//

/// A pipe keyword (the ops print `#pto<pipe mte2>` as `mte2`).
static ParseResult parsePipeKeyword(OpAsmParser &parser, PipeAttr &attr) {
  Pipe pipe;
  if (parseEnumKeyword(parser, pipe, symbolizePipe, "pipe",
                       "s, v, mte1, mte2, mte3, m, fix or all"))
    return failure();
  attr = PipeAttr::get(parser.getContext(), pipe);
  return success();
}

/// custom<Pipe>: `<v>`.
static ParseResult parsePipe(OpAsmParser &parser, PipeAttr &pipe) {
  return failure(parser.parseLess() || parsePipeKeyword(parser, pipe) ||
                 parser.parseGreater());
}

static void printPipe(OpAsmPrinter &printer, Operation *, PipeAttr pipe) {
  printer << '<' << stringifyPipe(pipe.getValue()) << '>';
}

/// custom<PipePair>: `<mte2 -> v>`.
static ParseResult parsePipePair(OpAsmParser &parser, PipeAttr &src,
                                 PipeAttr &dst) {
  return failure(parser.parseLess() || parsePipeKeyword(parser, src) ||
                 parser.parseArrow() || parsePipeKeyword(parser, dst) ||
                 parser.parseGreater());
}

static void printPipePair(OpAsmPrinter &printer, Operation *, PipeAttr src,
                          PipeAttr dst) {
  printer << '<' << stringifyPipe(src.getValue()) << " -> "
          << stringifyPipe(dst.getValue()) << '>';
}

template <typename FlagOp>
static LogicalResult verifyFlag(FlagOp op) {
  Pipe src = op.getSrcPipe(), dst = op.getDstPipe();
  if (src == Pipe::all || dst == Pipe::all)
    return op.emitOpError("takes two single pipes, not all");
  if (src == dst)
    return op.emitOpError() << "needs two different pipes, got "
                            << stringifyPipe(src) << " -> "
                            << stringifyPipe(dst);
  return success();
}

LogicalResult SetFlagOp::verify() { return verifyFlag(*this); }
LogicalResult WaitFlagOp::verify() { return verifyFlag(*this); }

LogicalResult SubmitOp::verify() {
  if (getNumTensors() > kMaxTensors || getScalars().size() > kMaxScalars)
    return emitOpError() << "a pto-runtime task takes at most " << kMaxTensors
                         << " tensors and " << kMaxScalars
                         << " scalars, got " << getNumTensors()
                         << " tensors and " << getScalars().size()
                         << " scalars";
  return success();
}

/// Checks one kernel a `pto.submit` runs: it exists, has `pto.core` (equal
/// to `core` when given) and takes the task's tensors then scalars.
static LogicalResult verifyTaskKernel(SubmitOp op,
                                      SymbolTableCollection &symbolTable,
                                      FlatSymbolRefAttr name,
                                      StringRef core) {
  auto callee =
      symbolTable.lookupNearestSymbolFrom<FunctionOpInterface>(op, name);
  if (!callee)
    return op.emitOpError() << "'" << name.getValue()
                            << "' does not name a function";
  auto coreAttr = callee->getAttrOfType<StringAttr>(PTODialect::kCoreAttrName);
  if (!coreAttr)
    return op.emitOpError() << "callee '" << name.getValue()
                            << "' is not a kernel: it has no '"
                            << PTODialect::kCoreAttrName << "' attribute";
  if (!core.empty() && coreAttr.getValue() != core)
    return op.emitOpError() << "in a cluster task '" << name.getValue()
                            << "' must be an " << core << " kernel, not "
                            << coreAttr.getValue();
  unsigned tensors = op.getNumTensors(), scalars = op.getScalars().size();
  ArrayRef<Type> argTypes = callee.getArgumentTypes();
  if (argTypes.size() != tensors + scalars)
    return op.emitOpError() << "callee '" << name.getValue() << "' takes "
                            << argTypes.size() << " arguments but the task "
                            << "passes " << tensors << " tensors and "
                            << scalars << " scalars";
  for (auto [i, type] : llvm::enumerate(argTypes)) {
    bool tensorSlot = i < tensors;
    if (tensorSlot != isa<MemRefType>(type))
      return op.emitOpError() << "callee argument " << i << " is " << type
                              << " but the task passes a "
                              << (tensorSlot ? "tensor" : "scalar")
                              << " there";
  }
  return success();
}

LogicalResult SubmitOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (!getAivCalleeAttr())
    return verifyTaskKernel(*this, symbolTable, getCalleeAttr(), "");
  if (failed(verifyTaskKernel(*this, symbolTable, getCalleeAttr(), "aic")))
    return failure();
  return verifyTaskKernel(*this, symbolTable, getAivCalleeAttr(), "aiv");
}

/// The core (`pto.core`) of the kernel around `op`, or "" outside one.
static StringRef enclosingCore(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (auto core = parent->getAttrOfType<StringAttr>(PTODialect::kCoreAttrName))
      return core.getValue();
  return "";
}

/// A cross-core op runs in a kernel of the core `producer ? producing :
/// consuming` side of `dir`, on a tile of the location that side holds.
static LogicalResult verifyCrossCore(Operation *op, CrossCore dir,
                                     bool producer, TileType tile) {
  bool cubeSide = (dir == CrossCore::c2v) == producer;
  StringRef core = cubeSide ? "aic" : "aiv";
  StringRef kernelCore = enclosingCore(op);
  if (!kernelCore.empty() && kernelCore != core)
    return op->emitOpError() << "a " << stringifyCrossCore(dir) << " "
                             << (producer ? "push" : "pop")
                             << " runs on the " << core << " core, but this "
                             << "kernel is " << kernelCore;
  if (!tile)
    return success();
  TileLocation expected = producer ? (cubeSide ? TileLocation::acc
                                               : TileLocation::vec)
                                   : (cubeSide ? TileLocation::mat
                                               : TileLocation::vec);
  if (tile.getLocation() != expected)
    return op->emitOpError() << "a " << stringifyCrossCore(dir) << " "
                             << (producer ? "push takes" : "pop fills")
                             << " a " << stringifyTileLocation(expected)
                             << " tile, got " << Type(tile);
  if (expected == TileLocation::mat && !tile.isNZ())
    return op->emitOpError("pops into a mat tile in NZ layout (blayout = "
                           "col_major, slayout = row_major)");
  if (expected == TileLocation::vec && !tile.isND())
    return op->emitOpError("moves vec tiles in row_major (ND) layout");
  return success();
}

LogicalResult TPushOp::verify() {
  return verifyCrossCore(*this, getDir(), true, getSrc().getType());
}

LogicalResult TPopOp::verify() {
  return verifyCrossCore(*this, getDir(), false, getDst().getType());
}

LogicalResult TFreeOp::verify() {
  return verifyCrossCore(*this, getDir(), false, TileType());
}

/// A cluster hand-over carries a value of the `tile` dialect (tile IR,
/// before convert-tile-to-pto), on the core that direction allows.
static LogicalResult verifyClusterTransfer(Operation *op, CrossCore dir, bool producer, Type value) {
  if (value.getDialect().getNamespace() != "tile")
    return op->emitOpError() << "carries a tile value (!tile.tile), got " << value;
  return verifyCrossCore(op, dir, producer, TileType());
}

LogicalResult ClusterSendOp::verify() {
  return verifyClusterTransfer(*this, getDir(), true, getValue().getType());
}

LogicalResult ClusterRecvOp::verify() {
  return verifyClusterTransfer(*this, getDir(), false, getValue().getType());
}

//===----------------------------------------------------------------------===//
// Communication between chips
//===----------------------------------------------------------------------===//

LogicalResult CommPutOp::verify() {
  TileType src = getSrc().getType();
  if (src.getLocation() != TileLocation::vec)
    return emitOpError() << "puts a vec tile (UB), got a "
                         << stringifyTileLocation(src.getLocation()) << " tile";
  if (src.getElementType() != getDst().getType().getElementType())
    return emitOpError() << "tile element type " << src.getElementType()
                         << " differs from the gtensor's "
                         << getDst().getType().getElementType();
  return checkLayouts(*this, src, getDst().getType(), /*isStore=*/true);
}

/// A signal: one `i32` element of a memref, one index per dimension.
static LogicalResult verifySignal(Operation *op, Value signals,
                                  OperandRange indices) {
  auto memref = cast<MemRefType>(signals.getType());
  if (!memref.getElementType().isInteger(32))
    return op->emitOpError() << "signals are i32, got "
                             << memref.getElementType();
  if ((int64_t)indices.size() != memref.getRank())
    return op->emitOpError() << "needs " << memref.getRank()
                             << " indices (one per dimension), got "
                             << indices.size();
  return success();
}

LogicalResult CommNotifyOp::verify() {
  if (getOp() != "add" && getOp() != "set")
    return emitOpError() << "op is \"add\" or \"set\", got \"" << getOp()
                         << "\"";
  return verifySignal(*this, getSignals(), getIndices());
}

LogicalResult CommWaitOp::verify() {
  StringRef cmp = getCmp();
  if (!llvm::is_contained(ArrayRef<StringRef>{"eq", "ne", "gt", "ge", "lt", "le"}, cmp))
    return emitOpError() << "cmp is one of eq, ne, gt, ge, lt, le, got \""
                         << cmp << "\"";
  return verifySignal(*this, getSignals(), getIndices());
}

#define GET_OP_CLASSES
#include "pto/PTOOps.cpp.inc"

#include "pto/PTOEnums.cpp.inc"

//===----------------------------------------------------------------------===//
// Orchestration: scheduled tasks
//===----------------------------------------------------------------------===//

static constexpr llvm::StringLiteral kOrchestrationAttrName = "pto.orchestration";

/// The function around `op`, if it is an orchestration (`pto.orchestration`).
static FunctionOpInterface orchestrationOf(Operation *op) {
  auto function = op->getParentOfType<FunctionOpInterface>();
  if (!function || !function->hasAttr(kOrchestrationAttrName))
    return {};
  return function;
}

/// Whether `function`'s entry block has a `pto.schedule`.
static bool hasSchedule(FunctionOpInterface function) {
  if (function.isExternal())
    return false;
  for (Operation &op : function.getFunctionBody().front())
    if (isa<ScheduleOp>(op))
      return true;
  return false;
}

/// A scheduled construct is in an orchestration with a `pto.schedule`.
static LogicalResult verifyScheduled(Operation *op) {
  FunctionOpInterface function = orchestrationOf(op);
  if (!function)
    return op->emitOpError("belongs in an orchestration function (one with '")
           << kOrchestrationAttrName << "')";
  if (!hasSchedule(function))
    return op->emitOpError("needs a 'pto.schedule' in its function: it is "
                           "submitted through the schedule's submitter");
  return success();
}

LogicalResult ScheduleOp::verify() {
  // Signed: I64Attr's accessor is unsigned.
  int64_t window = getWindowAttr().getInt(), lanes = getLanesAttr().getInt();
  if (window < 1)
    return emitOpError() << "a task window holds at least 1 task, got " << window;
  if (lanes < -1)
    return emitOpError() << "lanes is a cluster count, 0 (none) or -1 (one per available cluster), got " << lanes;
  FunctionOpInterface function = orchestrationOf(*this);
  if (!function)
    return emitOpError("belongs in an orchestration function (one with '")
           << kOrchestrationAttrName << "')";
  if ((*this)->getBlock() != &function.getFunctionBody().front())
    return emitOpError("belongs at the top of its function's body");
  for (Operation &op : function.getFunctionBody().front()) {
    if (&op == getOperation())
      break;
    if (isa<ScheduleOp>(op))
      return emitOpError("is the second of its function: a function has one schedule");
  }
  return success();
}

LogicalResult ScopeOp::verify() {
  if (failed(verifyScheduled(*this)))
    return failure();
  if ((*this)->getParentOfType<ScopeOp>())
    return emitOpError("is inside another scope: scopes do not nest here");
  return success();
}

LogicalResult OrderedOp::verify() { return verifyScheduled(*this); }

LogicalResult OrderBarrierOp::verify() {
  if (!(*this)->getParentOfType<OrderedOp>())
    return emitOpError("is outside a 'pto.ordered': it ends one of its iterations");
  return success();
}

LogicalResult GuardOp::verify() {
  if (failed(verifyScheduled(*this)))
    return failure();
  auto type = cast<MemRefType>(getTensor().getType());
  if (static_cast<int64_t>(getIndices().size()) != type.getRank())
    return emitOpError() << "needs " << type.getRank() << " indices for a rank-"
                         << type.getRank() << " tensor, got " << getIndices().size();
  if (!type.getElementType().isSignlessInteger())
    return emitOpError() << "compares elements of an integer tensor, got "
                         << type.getElementType();
  StringRef predicate = getPredicate();
  if (!llvm::is_contained({"eq", "ne", "lt", "le", "gt", "ge"}, predicate))
    return emitOpError() << "predicate must be eq, ne, lt, le, gt or ge, got \""
                         << predicate << "\"";
  return success();
}

LogicalResult TensorViewOp::verify() {
  auto source = cast<MemRefType>(getSource().getType());
  auto result = cast<MemRefType>(getResult().getType());
  if (static_cast<int64_t>(getOffsets().size()) != source.getRank())
    return emitOpError() << "needs " << source.getRank() << " offsets for a rank-"
                         << source.getRank() << " tensor, got " << getOffsets().size();
  if (static_cast<int64_t>(getSizes().size()) != result.getRank())
    return emitOpError() << "needs " << result.getRank() << " sizes for a rank-"
                         << result.getRank() << " view, got " << getSizes().size();
  if (result.getRank() < 1 || result.getRank() > source.getRank())
    return emitOpError() << "a view has 1 to " << source.getRank()
                         << " dimensions (its tensor's), got " << result.getRank();
  if (source.getElementType() != result.getElementType())
    return emitOpError() << "views " << source.getElementType()
                         << " elements as " << result.getElementType();
  if (!orchestrationOf(*this))
    return emitOpError("belongs in an orchestration function (one with '")
           << kOrchestrationAttrName << "')";
  return success();
}

LogicalResult AllocTensorOp::verify() {
  if (failed(verifyRuntimeTensor(*this, getType())))
    return failure();
  if ((*this)->getParentOfType<ScopeOp>())
    return emitOpError("is inside a scope: it is allocated once for the run");
  return success();
}

LogicalResult TaskOp::verify() {
  if (failed(verifyScheduled(*this)))
    return failure();
  ArrayAttr access = getAccess();
  if (access.size() != getArguments().size())
    return emitOpError() << "needs one access per argument (" << getArguments().size()
                         << "), got " << access.size();
  for (auto [i, value, mode] : llvm::enumerate(getArguments(), access.getAsValueRange<StringAttr>())) {
    bool tensor = isa<MemRefType>(value.getType());
    if (tensor && !llvm::is_contained({"in", "out", "inout"}, mode))
      return emitOpError() << "argument " << i << " is a tensor: its access is in, out or inout, got \"" << mode << "\"";
    if (!tensor && mode != "none")
      return emitOpError() << "argument " << i << " is a scalar: its access is none, got \"" << mode << "\"";
  }
  return success();
}

LogicalResult TaskOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee = symbolTable.lookupNearestSymbolFrom<FunctionOpInterface>(*this, getCalleeAttr());
  if (!callee)
    return emitOpError() << "'" << getCallee() << "' does not name a function";
  if (!callee->hasAttr(kOrchestrationAttrName))
    return emitOpError() << "'" << getCallee() << "' is not an orchestration function: a task calls a kernel's orchestration";
  ArrayRef<Type> types = callee.getArgumentTypes();
  if (types.size() != getArguments().size())
    return emitOpError() << "'" << getCallee() << "' takes " << types.size()
                         << " arguments, the task passes " << getArguments().size();
  for (auto [i, type, value] : llvm::enumerate(types, getArguments()))
    if (isa<MemRefType>(type) != isa<MemRefType>(value.getType()))
      return emitOpError() << "argument " << i << " of '" << getCallee() << "' is " << type
                           << ", the task passes " << value.getType();
  return success();
}
