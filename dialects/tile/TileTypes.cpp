//===- TileTypes.cpp - tile type parsing, printing, verification ---------===//

#include <limits>
#include "tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace htp::tile;

#define GET_TYPEDEF_CLASSES
#include "tile/TileTypes.cpp.inc"

/// `?` for a dynamic size, the number otherwise.
static void printDim(llvm::raw_ostream &os, int64_t dim) {
  if (ShapedType::isDynamic(dim))
    os << '?';
  else
    os << dim;
}

// !tile.tile<RxCxT[, valid = VRxVC][, layout = #layout.axe<...>]>
Type TileType::parse(AsmParser &parser) {
  SmallVector<int64_t, 2> shape, valid;
  Type elementType;
  htp::layout::AxeAttr layout;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    if (succeeded(parser.parseOptionalKeyword("layout"))) {
      if (layout) {
        parser.emitError(keyLoc, "the layout is given twice");
        return {};
      }
      if (parser.parseEqual() || parser.parseAttribute(layout))
        return {};
      continue;
    }
    if (!valid.empty() || layout) {
      parser.emitError(keyLoc, "expected `layout = #layout.axe<...>` (the "
                               "valid region comes first, once)");
      return {};
    }
    if (parser.parseKeyword("valid") || parser.parseEqual() ||
        parser.parseDimensionList(valid, /*allowDynamic=*/true,
                                  /*withTrailingX=*/false))
      return {};
    if (valid.size() != 2) {
      parser.emitError(keyLoc, "expected two valid sizes, e.g. `valid = ?x64`");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<TileType>(loc, parser.getContext(), shape,
                                     elementType, valid, layout);
}

void TileType::print(AsmPrinter &printer) const {
  llvm::raw_ostream &os = printer.getStream();
  os << '<' << getRows() << 'x' << getCols() << 'x';
  printer.printType(getElementType());
  if (!isFullyValid()) {
    os << ", valid = ";
    printDim(os, getValidShape()[0]);
    os << 'x';
    printDim(os, getValidShape()[1]);
  }
  if (getLayout()) {
    os << ", layout = ";
    printer.printAttribute(getLayout());
  }
  os << '>';
}

static bool isTileElementType(Type type) {
  if (type.isF32() || type.isF16() || type.isBF16())
    return true;
  auto intType = dyn_cast<IntegerType>(type);
  return intType && intType.isSignless() &&
         llvm::is_contained({1u, 8u, 16u, 32u, 64u}, intType.getWidth());
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               ArrayRef<int64_t> validShape,
                               htp::layout::AxeAttr layout) {
  if (shape.size() != 2)
    return emitError() << "a tile has exactly 2 dimensions, got "
                       << shape.size();
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitError() << "tile dimensions must be positive, got " << dim;
  if (!isTileElementType(elementType))
    return emitError() << "tile element type must be f32, f16, bf16, i64, "
                          "i32, i16, i8 or i1, got "
                       << elementType;
  if (layout) {
    if (layout.getRank() != 2)
      return emitError() << "a tile's layout has 2 dimensions, got "
                         << layout.getRank();
    for (unsigned dim = 0; dim < 2; ++dim)
      if (layout.getDimSize(dim) != shape[dim])
        return emitError() << "the layout's dimension " << dim << " covers "
                           << (ShapedType::isDynamic(layout.getDimSize(dim))
                                   ? std::string("?")
                                   : std::to_string(layout.getDimSize(dim)))
                           << " elements, the tile's " << shape[dim];
    if (!layout.isMemoryOnly())
      return emitError() << "a tile's layout places parts on the memory axis "
                            "`m` only (a tile lives in one memory)";
  }
  if (validShape.empty())
    return success();
  if (validShape.size() != 2)
    return emitError() << "a valid region has 2 sizes, got "
                       << validShape.size();
  if (validShape == shape)
    return emitError() << "valid region " << validShape[0] << "x"
                       << validShape[1]
                       << " covers the whole tile; omit it";
  for (unsigned i = 0; i < 2; ++i) {
    int64_t valid = validShape[i];
    if (ShapedType::isDynamic(valid))
      continue;
    if (valid <= 0 || valid > shape[i])
      return emitError() << "valid size " << valid << " of dimension " << i
                         << " must be in [1, " << shape[i] << "]";
  }
  return success();
}

unsigned TileType::getNumDynamicValidDims() const {
  return llvm::count_if(getValidShape(), ShapedType::isDynamic);
}

int64_t TileType::getSizeInBytes() const {
  // Checked: a size past int64_t saturates (signed overflow is undefined).
  int64_t elements, bits;
  if (__builtin_mul_overflow(getRows(), getCols(), &elements) ||
      __builtin_mul_overflow(
          elements,
          static_cast<int64_t>(getElementType().getIntOrFloatBitWidth()),
          &bits))
    return std::numeric_limits<int64_t>::max();
  return bits / 8 + (bits % 8 != 0);
}

TileType TileType::withElementType(Type elementType) const {
  return TileType::get(getContext(), getShape(), elementType, getValidShape());
}

TileType TileType::withLayout(htp::layout::AxeAttr layout) const {
  return TileType::get(getContext(), getShape(), getElementType(),
                       getValidShape(), layout);
}

TileType TileType::transposed() const {
  SmallVector<int64_t, 2> valid(getValidShape().rbegin(),
                                getValidShape().rend());
  return TileType::get(getContext(), {getCols(), getRows()}, getElementType(),
                       valid);
}

void TileDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "tile/TileTypes.cpp.inc"
      >();
}
