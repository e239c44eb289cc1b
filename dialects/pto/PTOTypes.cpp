//===- PTOTypes.cpp - pto type parsing, printing, verification -----------===//
//
// The tile type's verifier is PTO-ISA's `Tile` static_asserts plus HTP's
// per-location element-type rules; each has a case in
// test/lit/Dialect/pto/invalid.mlir.
//
//===----------------------------------------------------------------------===//

#include "pto/PTODialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace htp::pto;

#define GET_TYPEDEF_CLASSES
#include "pto/PTOTypes.cpp.inc"

/// `?` for a dynamic size, the number otherwise.
static void printDim(llvm::raw_ostream &os, int64_t dim) {
  if (ShapedType::isDynamic(dim))
    os << '?';
  else
    os << dim;
}

/// f32, f16, bf16, i8, i16, i32, i64 (signless = signed), ui8, ui16, ui32.
bool htp::pto::isPTOElementType(Type type) {
  if (type.isF32() || type.isF16() || type.isBF16())
    return true;
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return false;
  unsigned width = intType.getWidth();
  if (intType.isSignless())
    return llvm::is_contained({8u, 16u, 32u, 64u}, width);
  if (intType.isUnsigned())
    return llvm::is_contained({8u, 16u, 32u}, width);
  return false;
}

static constexpr llvm::StringLiteral kElementTypes =
    "f32, f16, bf16, i8, i16, i32, i64, ui8, ui16 or ui32";

//===----------------------------------------------------------------------===//
// !pto.tile
//===----------------------------------------------------------------------===//

// !pto.tile<LOC, RxCxT[, valid = VRxVC][, blayout = ..][, slayout = ..]
//           [, fractal = N][, pad = ..]>
Type TileType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  TileLocation location;
  SmallVector<int64_t, 2> shape, valid;
  Type elementType;
  if (parser.parseLess() ||
      parseEnumKeyword(parser, location, symbolizeTileLocation, "tile location") ||
      parser.parseComma() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  BLayout blayout = BLayout::row_major;
  SLayout slayout = SLayout::none;
  int64_t fractal = kDefaultFractal;
  PadValue pad = PadValue::null;
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (!seen.insert(key).second) {
      parser.emitError(keyLoc) << "'" << key << "' is given twice";
      return {};
    }
    bool layoutKey = key == "blayout" || key == "slayout" || key == "fractal";
    if (layoutKey && location != TileLocation::vec && location != TileLocation::mat) {
      parser.emitError(keyLoc)
          << "a " << stringifyTileLocation(location)
          << " tile's layout is implied by its location; do not give '" << key
          << "'";
      return {};
    }
    ParseResult result = failure();
    if (key == "valid") {
      SMLoc validLoc = parser.getCurrentLocation();
      result = parser.parseDimensionList(valid, /*allowDynamic=*/true,
                                         /*withTrailingX=*/false);
      if (succeeded(result) && valid.size() != 2) {
        parser.emitError(validLoc,
                         "expected two valid sizes, e.g. `valid = ?x64`");
        return {};
      }
    } else if (key == "blayout") {
      result = parseEnumKeyword(parser, blayout, symbolizeBLayout, "blayout");
    } else if (key == "slayout") {
      result = parseEnumKeyword(parser, slayout, symbolizeSLayout, "slayout");
    } else if (key == "fractal") {
      result = parser.parseInteger(fractal);
    } else if (key == "pad") {
      result = parseEnumKeyword(parser, pad, symbolizePadValue, "pad value");
    } else {
      parser.emitError(keyLoc)
          << "unknown tile parameter '" << key
          << "' (expected valid, blayout, slayout, fractal or pad)";
      return {};
    }
    if (failed(result))
      return {};
  }
  if (parser.parseGreater())
    return {};
  // The whole tile is the default valid region: keep one spelling per type.
  if (valid == ArrayRef<int64_t>(shape))
    valid.clear();
  return parser.getChecked<TileType>(loc, parser.getContext(), location, shape,
                                     elementType, valid, blayout, slayout,
                                     fractal, pad);
}

void TileType::print(AsmPrinter &printer) const {
  llvm::raw_ostream &os = printer.getStream();
  os << '<' << stringifyTileLocation(getLocation()) << ", " << getRows() << 'x'
     << getCols() << 'x';
  printer.printType(getElementType());
  if (!isFullyValid()) {
    os << ", valid = ";
    printDim(os, getValidShape()[0]);
    os << 'x';
    printDim(os, getValidShape()[1]);
  }
  if (getBlayout() != BLayout::row_major)
    os << ", blayout = " << stringifyBLayout(getBlayout());
  if (getSlayout() != SLayout::none)
    os << ", slayout = " << stringifySLayout(getSlayout());
  if (getFractal() != kDefaultFractal)
    os << ", fractal = " << getFractal();
  if (getPad() != PadValue::null)
    os << ", pad = " << stringifyPadValue(getPad());
  os << '>';
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               TileLocation location, ArrayRef<int64_t> shape,
                               Type elementType, ArrayRef<int64_t> validShape,
                               BLayout blayout, SLayout slayout,
                               int64_t fractal, PadValue pad) {
  if (shape.size() != 2)
    return emitError() << "a pto tile has exactly 2 dimensions, got "
                       << shape.size();
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitError() << "pto tile dimensions must be positive, got "
                         << dim;
  if (!isPTOElementType(elementType))
    return emitError() << "pto tile element type must be " << kElementTypes
                       << ", got " << elementType;
  int64_t rows = shape[0], cols = shape[1];
  if (!validShape.empty()) {
    if (validShape.size() != 2)
      return emitError() << "a valid region has 2 sizes, got "
                         << validShape.size();
    if (validShape == shape)
      return emitError() << "valid region covers the whole tile; omit it";
    for (unsigned i = 0; i < 2; ++i) {
      int64_t valid = validShape[i];
      if (!ShapedType::isDynamic(valid) && (valid <= 0 || valid > shape[i]))
        return emitError() << "valid size " << valid << " of dimension " << i
                           << " must be in [1, " << shape[i] << "]";
    }
  }
  StringRef loc = stringifyTileLocation(location);
  bool implied = location != TileLocation::vec && location != TileLocation::mat;
  if (implied && (blayout != BLayout::row_major || slayout != SLayout::none ||
                  fractal != kDefaultFractal))
    return emitError() << "a " << loc
                       << " tile's layout is implied by its location; "
                          "blayout, slayout and fractal must keep their "
                          "defaults";
  if (fractal != 512 && fractal != 1024)
    return emitError() << "fractal must be 512 or 1024 bytes on A2/A3, got "
                       << fractal;
  int64_t bytes = (elementType.getIntOrFloatBitWidth() + 7) / 8;
  switch (location) {
  case TileLocation::acc:
    if (!elementType.isF32() && !elementType.isSignlessInteger(32))
      return emitError() << "an acc tile holds f32 or i32, got "
                         << elementType;
    break;
  case TileLocation::left:
  case TileLocation::right:
    if (!elementType.isF32() && !elementType.isF16() &&
        !elementType.isBF16() && !elementType.isSignlessInteger(8))
      return emitError() << "a " << loc
                         << " tile holds f16, bf16, f32 or i8, got "
                         << elementType;
    break;
  default:
    break;
  }
  if (location == TileLocation::left || location == TileLocation::right ||
      location == TileLocation::acc) {
    // HTP's rule: whole 16x16 boxes (PTO-ISA asks only for its alias's box).
    if (rows % 16 != 0 || cols % 16 != 0)
      return emitError() << "a " << loc << " tile needs rows and columns "
                         << "that are multiples of 16, got " << rows << "x"
                         << cols;
    return success();
  }
  if (implied)
    return success();
  if (slayout == SLayout::none) {
    if (blayout == BLayout::row_major && (cols * bytes) % 32 != 0)
      return emitError() << "a row_major tile needs columns * sizeof(T) to "
                         << "be a multiple of 32 bytes, got " << cols << " x "
                         << bytes;
    if (blayout == BLayout::col_major && (rows * bytes) % 32 != 0)
      return emitError() << "a col_major tile needs rows * sizeof(T) to be "
                         << "a multiple of 32 bytes, got " << rows << " x "
                         << bytes;
    return success();
  }
  int64_t boxCols = fractal == 512 ? 32 / bytes : 16;
  if (boxCols == 0 || cols % boxCols != 0)
    return emitError() << "a boxed tile with fractal " << fractal
                       << " needs columns that are a multiple of " << boxCols
                       << ", got " << cols;
  if (location != TileLocation::vec && rows != 1 && rows % 16 != 0)
    return emitError() << "a boxed " << loc << " tile needs rows that are a "
                       << "multiple of 16 (or 1), got " << rows;
  return success();
}

unsigned TileType::getNumDynamicValidDims() const {
  return llvm::count_if(getValidShape(), ShapedType::isDynamic);
}

int64_t TileType::getElementBytes() const {
  return (getElementType().getIntOrFloatBitWidth() + 7) / 8;
}

int64_t TileType::getSizeInBytes() const {
  return getRows() * getCols() * getElementBytes();
}

bool TileType::hasImpliedLayout() const {
  return getLocation() != TileLocation::vec && getLocation() != TileLocation::mat;
}

//===----------------------------------------------------------------------===//
// !pto.gtensor
//===----------------------------------------------------------------------===//

// !pto.gtensor<RxCxT[, layout = nd|dn|nz]>
Type GlobalTensorType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t, 2> shape;
  Type elementType;
  GTLayout layout = GTLayout::nd;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("layout") || parser.parseEqual() ||
        parseEnumKeyword(parser, layout, symbolizeGTLayout, "gtensor layout"))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<GlobalTensorType>(loc, parser.getContext(), shape,
                                             elementType, layout);
}

void GlobalTensorType::print(AsmPrinter &printer) const {
  llvm::raw_ostream &os = printer.getStream();
  os << '<';
  printDim(os, getRows());
  os << 'x';
  printDim(os, getCols());
  os << 'x';
  printer.printType(getElementType());
  if (getLayout() != GTLayout::nd)
    os << ", layout = " << stringifyGTLayout(getLayout());
  os << '>';
}

LogicalResult
GlobalTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                         ArrayRef<int64_t> shape, Type elementType,
                         GTLayout layout) {
  if (shape.size() != 2)
    return emitError() << "a pto gtensor has exactly 2 dimensions, got "
                       << shape.size();
  for (int64_t dim : shape)
    if (!ShapedType::isDynamic(dim) && dim <= 0)
      return emitError() << "pto gtensor dimensions must be positive or ?, got "
                         << dim;
  if (!isPTOElementType(elementType))
    return emitError() << "pto gtensor element type must be " << kElementTypes
                       << ", got " << elementType;
  return success();
}

unsigned GlobalTensorType::getNumDynamicDims() const {
  return llvm::count_if(getShape(), ShapedType::isDynamic);
}

void PTODialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "pto/PTOTypes.cpp.inc"
      >();
}
