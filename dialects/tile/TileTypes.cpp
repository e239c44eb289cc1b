//===- TileTypes.cpp - tile type parsing, printing, verification ---------===//

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

// !tile.tile<RxCxT> or !tile.tile<RxCxT, valid = VRxVC>
Type TileType::parse(AsmParser &parser) {
  SmallVector<int64_t, 2> shape, valid;
  Type elementType;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc validLoc = parser.getCurrentLocation();
    if (parser.parseKeyword("valid") || parser.parseEqual() ||
        parser.parseDimensionList(valid, /*allowDynamic=*/true,
                                  /*withTrailingX=*/false))
      return {};
    if (valid.size() != 2) {
      parser.emitError(validLoc, "expected two valid sizes, e.g. `valid = ?x64`");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<TileType>(loc, parser.getContext(), shape,
                                     elementType, valid);
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
                               ArrayRef<int64_t> validShape) {
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
  int64_t bits = getRows() * getCols() *
                 static_cast<int64_t>(getElementType().getIntOrFloatBitWidth());
  return (bits + 7) / 8;
}

TileType TileType::withElementType(Type elementType) const {
  return TileType::get(getContext(), getShape(), elementType, getValidShape());
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
