//===- TileOps.cpp - tile op verifiers, folders and effects --------------===//
//
// Each verifier rule here has a matching case in
// test/lit/Dialect/tile/invalid.mlir; each folder one in canonicalize.mlir.
//
//===----------------------------------------------------------------------===//

#include "tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace htp::tile;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

/// Prints a valid size the way the type syntax does.
static std::string dimString(int64_t dim) {
  return ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
}

/// Builds a tile type, omitting a valid region that covers the whole tile so
/// that equal tiles have equal types.
static TileType makeTile(MLIRContext *ctx, ArrayRef<int64_t> shape,
                         Type elementType, ArrayRef<int64_t> valid) {
  if (!valid.empty() && valid == shape)
    valid = {};
  return TileType::get(ctx, shape, elementType, valid);
}

/// An op with no operand for them cannot produce `?` valid sizes.
static LogicalResult verifyStaticValidRegion(Operation *op, TileType tile) {
  if (tile.getNumDynamicValidDims() != 0)
    return op->emitOpError() << "result " << tile
                             << " has '?' valid sizes but no operand gives them";
  return success();
}

static bool isArithmeticElement(Type type) { return !type.isInteger(1); }

/// The strides of a `strides [SR, SC]` attribute (1, 1 without one), or
/// an error when it is not two positive numbers.
static FailureOr<std::array<int64_t, 2>>
verifyStrides(Operation *op, std::optional<ArrayRef<int64_t>> strides) {
  std::array<int64_t, 2> result = {1, 1};
  if (!strides)
    return result;
  if (strides->size() != 2) {
    op->emitOpError() << "needs 2 strides (rows, columns), got "
                      << strides->size();
    return failure();
  }
  for (unsigned dim = 0; dim < 2; ++dim) {
    if ((*strides)[dim] < 1) {
      op->emitOpError() << "stride " << (*strides)[dim] << " of dimension "
                        << dim << " must be positive";
      return failure();
    }
    result[dim] = (*strides)[dim];
  }
  return result;
}

/// Checks a memref/tensor view accessed by a tile at `numIndices` indices,
/// every `strides[d]`-th element along the view's last two dimensions.
static LogicalResult verifyViewAccess(Operation *op, Type viewType,
                                      size_t numIndices, TileType tile,
                                      StringRef viewName,
                                      std::array<int64_t, 2> strides = {1, 1}) {
  auto view = cast<ShapedType>(viewType);
  int64_t rank = view.getRank();
  if (rank < 2)
    return op->emitOpError() << "needs a " << viewName
                             << " of rank 2 or more, got rank " << rank;
  if (static_cast<int64_t>(numIndices) != rank)
    return op->emitOpError() << "needs " << rank << " indices for a rank-"
                             << rank << " " << viewName << ", got "
                             << numIndices;
  if (view.getElementType() != tile.getElementType())
    return op->emitOpError()
           << viewName << " element type " << view.getElementType()
           << " differs from the tile element type " << tile.getElementType();
  for (unsigned dim = 0; dim < 2; ++dim) {
    int64_t extent = tile.getValidDim(dim);
    int64_t viewDim = view.getDimSize(rank - 2 + dim);
    if (ShapedType::isDynamic(extent) || ShapedType::isDynamic(viewDim))
      continue;
    // The elements a strided access spans: the first, then a stride each.
    int64_t span = (extent - 1) * strides[dim] + 1;
    if (span > viewDim)
      return op->emitOpError()
             << "tile extent " << extent
             << (strides[dim] == 1 ? std::string()
                                   : " at stride " + std::to_string(strides[dim]) +
                                         " (" + std::to_string(span) + " elements)")
             << " along dimension " << dim << " exceeds the " << viewName
             << " size " << viewDim;
  }
  return success();
}

/// Ops that only change a tile's valid region keep its shape and elements.
static LogicalResult verifySameShapeAndElement(Operation *op, TileType input,
                                               TileType result) {
  if (input.getShape() != result.getShape() ||
      input.getElementType() != result.getElementType())
    return op->emitOpError() << "result " << result << " must have the shape "
                             << "and element type of " << input;
  return success();
}

/// One `index` operand per `?` valid size of the tile an op creates.
static LogicalResult verifyValidSizeOperands(Operation *op, TileType tile,
                                             size_t count) {
  if (count != tile.getNumDynamicValidDims())
    return op->emitOpError() << "needs one valid size for each '?' in " << tile
                             << " (" << tile.getNumDynamicValidDims()
                             << "), got " << count;
  return success();
}

/// A tile-or-scalar right operand is the lhs tile type or its element type.
static LogicalResult verifyRhs(Operation *op, TileType lhs, Type rhs) {
  if (isa<TileType>(rhs)) {
    if (rhs != lhs)
      return op->emitOpError() << "operand types differ: " << lhs << " and "
                               << rhs;
    return success();
  }
  if (rhs != lhs.getElementType())
    return op->emitOpError() << "scalar operand type " << rhs
                             << " differs from the tile element type "
                             << lhs.getElementType();
  return success();
}

/// custom<RhsType>: `: T` when both operands are tiles of type T,
/// `: T, S` when the right operand is a scalar of type S.
static ParseResult parseRhsType(OpAsmParser &parser, Type &rhsType,
                                Type lhsType) {
  if (succeeded(parser.parseOptionalComma()))
    return parser.parseType(rhsType);
  rhsType = lhsType;
  return success();
}

static void printRhsType(OpAsmPrinter &printer, Operation *, Type rhsType,
                         Type lhsType) {
  if (rhsType != lhsType)
    printer << ", " << rhsType;
}

static void addMemoryEffect(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects,
    MemoryEffects::Effect *effect, OpOperand &view) {
  // Tensors are values: reading or "writing" one touches no memory.
  if (isa<BaseMemRefType>(view.get().getType()))
    effects.emplace_back(effect, &view, SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// load / store / gather
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  TileType tile = getResult().getType();
  auto strides = verifyStrides(*this, getStrides());
  if (failed(strides) ||
      failed(verifyViewAccess(*this, getSource().getType(),
                              getIndices().size(), tile, "source", *strides)))
    return failure();
  return verifyValidSizeOperands(*this, tile, getValidSizes().size());
}

void LoadOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addMemoryEffect(effects, MemoryEffects::Read::get(), getSourceMutable());
}

LogicalResult StoreOp::verify() {
  auto strides = verifyStrides(*this, getStrides());
  if (failed(strides) ||
      failed(verifyViewAccess(*this, getDest().getType(), getIndices().size(),
                              getValue().getType(), "destination", *strides)))
    return failure();
  bool isTensor = isa<RankedTensorType>(getDest().getType());
  if (isTensor && !getResult())
    return emitOpError("storing into a tensor must yield the updated tensor");
  if (!isTensor && getResult())
    return emitOpError("storing into a memref has no result");
  if (getResult() && getResult().getType() != getDest().getType())
    return emitOpError() << "result type " << getResult().getType()
                         << " differs from the destination type "
                         << getDest().getType();
  return success();
}

void StoreOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addMemoryEffect(effects, MemoryEffects::Write::get(), getDestMutable());
}

/// An index tile's element type: i32 or i64 (`what`: "row", "column").
static LogicalResult verifyIndexElements(Operation *op, TileType indices,
                                         StringRef what) {
  auto indexType = dyn_cast<IntegerType>(indices.getElementType());
  if (!indexType || indexType.getWidth() < 32)
    return op->emitOpError() << what << " indices must be i32 or i64, got "
                             << indices.getElementType();
  return success();
}

/// What tile.gather and tile.scatter share: rows of a rank-2 `memory` (the
/// gather's source, the scatter's destination) moved to or from the rows of
/// `tile` (the gather's result, the scatter's value) by an Rx1 index tile.
static LogicalResult verifyRowIndexed(Operation *op, ShapedType memory,
                                      TileType tile, TileType indices,
                                      bool scatter) {
  StringRef verb = scatter ? "scatters" : "gathers";
  StringRef memoryRole = scatter ? "destination" : "source";
  StringRef tileRole = scatter ? "value" : "result";
  if (memory.getRank() != 2)
    return op->emitOpError()
           << verb << (scatter ? " rows into a rank-2 " : " rows of a rank-2 ")
           << memoryRole << ", got rank " << memory.getRank();
  if (indices.getCols() != 1)
    return op->emitOpError() << "row indices must be an Rx1 tile, got "
                             << indices;
  if (failed(verifyIndexElements(op, indices, "row")))
    return failure();
  if (tile.getRows() != indices.getRows())
    return op->emitOpError() << verb << " " << tile.getRows() << " rows by "
                             << indices.getRows() << " row indices";
  if (memory.getElementType() != tile.getElementType())
    return op->emitOpError()
           << memoryRole << " element type " << memory.getElementType()
           << " differs from the " << tileRole << "'s element type "
           << tile.getElementType();
  int64_t memoryCols = memory.getDimSize(1);
  if (!ShapedType::isDynamic(memoryCols) && tile.getCols() > memoryCols)
    return op->emitOpError()
           << verb << " " << tile.getCols() << " columns"
           << (scatter ? " into a " : " from a ") << memoryRole << " with "
           << memoryCols;
  if (tile.getValidDim(0) != indices.getValidDim(0))
    return op->emitOpError()
           << tileRole << " valid rows " << dimString(tile.getValidDim(0))
           << " differ from the index tile's "
           << dimString(indices.getValidDim(0));
  return success();
}

LogicalResult GatherOp::verify() {
  TileType result = getResult().getType();
  if (failed(verifyRowIndexed(*this, cast<ShapedType>(getSource().getType()),
                              result, getRowIndices().getType(),
                              /*scatter=*/false)))
    return failure();
  if (ShapedType::isDynamic(result.getValidDim(1)))
    return emitOpError("result valid columns cannot be '?': no operand gives them");
  return success();
}

void GatherOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  addMemoryEffect(effects, MemoryEffects::Read::get(), getSourceMutable());
}

LogicalResult ScatterOp::verify() {
  return verifyRowIndexed(*this, cast<ShapedType>(getDest().getType()),
                          getValue().getType(), getRowIndices().getType(),
                          /*scatter=*/true);
}

//===----------------------------------------------------------------------===//
// constant / fill / iota
//===----------------------------------------------------------------------===//

// tile.constant <literal> : !tile.tile<...>. The literal is written without
// a type and takes the element type: an integer, a decimal float, true,
// false, nan, inf or -inf (non-finite values are keywords so that printing
// never produces a hex bit pattern that would read back as an integer).
ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  SMLoc valueLoc = parser.getCurrentLocation();
  std::optional<APInt> intValue;
  std::optional<double> floatValue;
  bool negative = succeeded(parser.parseOptionalMinus());
  bool isBool = false;
  if (negative && (succeeded(parser.parseOptionalMinus()) ||
                   succeeded(parser.parseOptionalKeyword("true")) ||
                   succeeded(parser.parseOptionalKeyword("false")) ||
                   succeeded(parser.parseOptionalKeyword("nan"))))
    return parser.emitError(valueLoc, "'-' must be followed by a number or inf");
  if (succeeded(parser.parseOptionalKeyword("true"))) {
    intValue = APInt(2, 1);
    isBool = true;
  } else if (succeeded(parser.parseOptionalKeyword("false"))) {
    intValue = APInt(2, 0);
    isBool = true;
  } else if (succeeded(parser.parseOptionalKeyword("nan"))) {
    floatValue = std::numeric_limits<double>::quiet_NaN();
  } else if (succeeded(parser.parseOptionalKeyword("inf"))) {
    floatValue = std::numeric_limits<double>::infinity();
  } else {
    APInt parsed;
    OptionalParseResult isInt = parser.parseOptionalInteger(parsed);
    if (isInt.has_value()) {
      if (failed(*isInt))
        return failure();
      intValue = parsed.sext(parsed.getBitWidth() + 1);
    } else {
      double parsedFloat;
      if (parser.parseFloat(parsedFloat))
        return failure();
      floatValue = parsedFloat;
    }
  }
  if (negative && intValue)
    intValue = -*intValue;
  if (negative && floatValue)
    floatValue = -*floatValue;
  Type type;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(type))
    return failure();
  auto tile = dyn_cast<TileType>(type);
  if (!tile)
    return parser.emitError(valueLoc, "expected a tile type, got ") << type;
  Type element = tile.getElementType();
  TypedAttr value;
  if (isBool && !element.isInteger(1))
    return parser.emitError(valueLoc, "true and false initialize i1 elements only, not ")
           << element;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
    APFloat v(semantics);
    APFloat::opStatus status;
    if (floatValue) {
      v = APFloat(*floatValue);
      bool losesInfo = false;
      status = v.convert(semantics, APFloat::rmNearestTiesToEven, &losesInfo);
    } else {
      status = v.convertFromAPInt(*intValue, /*IsSigned=*/true,
                                  APFloat::rmNearestTiesToEven);
    }
    if ((status & APFloat::opOverflow) && !(floatValue && std::isinf(*floatValue)))
      return parser.emitError(valueLoc, "value overflows ") << element;
    value = FloatAttr::get(element, v);
  } else {
    if (floatValue)
      return parser.emitError(valueLoc, "a float value cannot initialize ")
             << element << " elements";
    unsigned width = element.getIntOrFloatBitWidth();
    if (!intValue->isSignedIntN(width) &&
        !(intValue->isNonNegative() && intValue->isIntN(width)))
      return parser.emitError(valueLoc, "value does not fit ") << element;
    value = IntegerAttr::get(element, intValue->sextOrTrunc(width));
  }
  result.addAttribute(getValueAttrName(result.name), value);
  result.addTypes(tile);
  return success();
}

/// A decimal form of `value` (6 significant digits when that suffices, else
/// full precision) that reads back, through a double as the parser does, to
/// the same bits.
static std::string formatFloat(const APFloat &value) {
  SmallString<32> text;
  for (unsigned precision : {6u, 0u}) {
    text.clear();
    value.toString(text, precision);
    // Keep a float looking like one: "5" -> "5.0".
    if (llvm::all_of(text, [](char c) { return llvm::isDigit(c) || c == '-'; }))
      text.append(".0");
    APFloat back(APFloat::IEEEdouble());
    auto status = back.convertFromString(text, APFloat::rmNearestTiesToEven);
    if (!status) {
      llvm::consumeError(status.takeError());
      continue;
    }
    bool losesInfo = false;
    back.convert(value.getSemantics(), APFloat::rmNearestTiesToEven, &losesInfo);
    if (back.bitwiseIsEqual(value))
      break;
  }
  return std::string(text);
}

void ConstantOp::print(OpAsmPrinter &printer) {
  printer << ' ';
  if (auto f = dyn_cast<FloatAttr>(getValue())) {
    const APFloat &v = f.getValue();
    if (v.isNaN())
      printer << "nan";
    else if (v.isInfinity())
      printer << (v.isNegative() ? "-inf" : "inf");
    else
      printer << formatFloat(v);
  } else if (getType().getElementType().isInteger(1)) {
    printer << (cast<IntegerAttr>(getValue()).getValue().isOne() ? "true"
                                                                 : "false");
  } else {
    printer << cast<IntegerAttr>(getValue()).getValue().getSExtValue();
  }
  printer.printOptionalAttrDict((*this)->getAttrs(), {"value"});
  printer << " : " << getType();
}

LogicalResult ConstantOp::verify() {
  if (failed(verifyStaticValidRegion(*this, getType())))
    return failure();
  Type element = getType().getElementType();
  if (!isa<FloatAttr, IntegerAttr>(getValue()) ||
      getValue().getType() != element)
    return emitOpError() << "value " << getValue()
                         << " must be a scalar of the element type " << element;
  return success();
}

/// A splat tile folds to its scalar; TileDialect::materializeConstant turns
/// the scalar back into a tile.constant of the right type.
OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult FillOp::verify() {
  return verifyStaticValidRegion(*this, getType());
}

OpFoldResult FillOp::fold(FoldAdaptor adaptor) { return adaptor.getValue(); }

LogicalResult IotaOp::verify() {
  TileType tile = getType();
  uint64_t dim = getDimension();
  if (dim > 1)
    return emitOpError() << "dimension must be 0 (rows) or 1 (columns), got "
                         << dim;
  if (failed(verifyStaticValidRegion(*this, tile)))
    return failure();
  Type element = tile.getElementType();
  if (element.isInteger(1))
    return emitOpError("needs numeric elements, got i1");
  int64_t largest = tile.getShape()[dim] - 1;
  if (auto intType = dyn_cast<IntegerType>(element)) {
    if (intType.getWidth() < 64 &&
        largest > (int64_t(1) << (intType.getWidth() - 1)) - 1)
      return emitOpError() << "index " << largest << " does not fit in "
                           << element;
  } else {
    // Floats hold every integer up to 2^precision exactly.
    unsigned precision = APFloat::semanticsPrecision(
        cast<FloatType>(element).getFloatSemantics());
    if (largest > (int64_t(1) << precision))
      return emitOpError() << "index " << largest << " is not exact in "
                           << element;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops
//===----------------------------------------------------------------------===//

template <typename BinaryOp>
static LogicalResult verifyBinary(BinaryOp op) {
  TileType lhs = op.getLhs().getType();
  if (!isArithmeticElement(lhs.getElementType()))
    return op.emitOpError("needs numeric elements, got i1 (use tile.select)");
  return verifyRhs(op, lhs, op.getRhs().getType());
}

namespace {
/// How one binary op folds: its identity right operand and constant math.
struct BinaryFoldRules {
  /// Right operand `r` with `x op r == x` for every x (nullopt: none).
  std::function<bool(Attribute)> isRightIdentity;
  std::function<std::optional<APFloat>(const APFloat &, const APFloat &)> onFloats;
  std::function<std::optional<APInt>(const APInt &, const APInt &)> onInts;
  bool idempotent = false;  // x op x == x
  bool commutative = false; // an identity on the left folds too
};
} // namespace

static bool isFloatValue(Attribute attr, double value, bool negativeZero = false) {
  auto f = dyn_cast_or_null<FloatAttr>(attr);
  if (!f)
    return false;
  if (negativeZero)
    return f.getValue().isNegZero();
  return f.getValue().isExactlyValue(value);
}

static bool isIntValue(Attribute attr, int64_t value) {
  auto i = dyn_cast_or_null<IntegerAttr>(attr);
  return i && i.getValue().getSExtValue() == value;
}

static OpFoldResult foldBinary(Value lhs, Value rhs, Type resultType,
                               Attribute lhsConst, Attribute rhsConst,
                               const BinaryFoldRules &rules) {
  if (rules.idempotent && lhs == rhs)
    return lhs;
  if (rules.isRightIdentity && rhsConst && rules.isRightIdentity(rhsConst))
    return lhs;
  // Folding to `rhs` needs it to be a tile of the result type, not a scalar.
  if (rules.commutative && rules.isRightIdentity && lhsConst &&
      rules.isRightIdentity(lhsConst) && rhs.getType() == resultType)
    return rhs;
  Type element = cast<TileType>(resultType).getElementType();
  if (auto l = dyn_cast_or_null<FloatAttr>(lhsConst))
    if (auto r = dyn_cast_or_null<FloatAttr>(rhsConst))
      if (auto v = rules.onFloats(l.getValue(), r.getValue()))
        return FloatAttr::get(element, *v);
  if (auto l = dyn_cast_or_null<IntegerAttr>(lhsConst))
    if (auto r = dyn_cast_or_null<IntegerAttr>(rhsConst))
      if (auto v = rules.onInts(l.getValue(), r.getValue()))
        return IntegerAttr::get(element, *v);
  return {};
}

static constexpr APFloat::roundingMode kRound = APFloat::rmNearestTiesToEven;

#define TILE_BINARY_OP(OP, RULES)                                              \
  LogicalResult OP::verify() { return verifyBinary(*this); }                   \
  OpFoldResult OP::fold(FoldAdaptor adaptor) {                                 \
    static const BinaryFoldRules rules = RULES;                                \
    return foldBinary(getLhs(), getRhs(), getType(), adaptor.getLhs(),         \
                      adaptor.getRhs(), rules);                                \
  }

// x + (-0.0) == x exactly; x + 0.0 is not (it turns -0.0 into +0.0).
TILE_BINARY_OP(AddOp, (BinaryFoldRules{
    [](Attribute r) { return isFloatValue(r, 0, true) || isIntValue(r, 0); },
    [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
      APFloat v = a; v.add(b, kRound); return v; },
    [](const APInt &a, const APInt &b) -> std::optional<APInt> { return a + b; },
    /*idempotent=*/false, /*commutative=*/true}))
TILE_BINARY_OP(SubOp, (BinaryFoldRules{
    [](Attribute r) { return isFloatValue(r, 0) || isIntValue(r, 0); },
    [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
      APFloat v = a; v.subtract(b, kRound); return v; },
    [](const APInt &a, const APInt &b) -> std::optional<APInt> { return a - b; }}))
TILE_BINARY_OP(MulOp, (BinaryFoldRules{
    [](Attribute r) { return isFloatValue(r, 1) || isIntValue(r, 1); },
    [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
      APFloat v = a; v.multiply(b, kRound); return v; },
    [](const APInt &a, const APInt &b) -> std::optional<APInt> { return a * b; },
    /*idempotent=*/false, /*commutative=*/true}))
TILE_BINARY_OP(DivOp, (BinaryFoldRules{
    [](Attribute r) { return isFloatValue(r, 1) || isIntValue(r, 1); },
    [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
      APFloat v = a; v.divide(b, kRound); return v; },
    [](const APInt &a, const APInt &b) -> std::optional<APInt> {
      // Leave division by zero and INT_MIN / -1 to run time.
      if (b.isZero() || (a.isMinSignedValue() && b.isAllOnes()))
        return std::nullopt;
      return a.sdiv(b); }}))
TILE_BINARY_OP(MaxOp, (BinaryFoldRules{
    nullptr,
    [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
      return llvm::maximum(a, b); },
    [](const APInt &a, const APInt &b) -> std::optional<APInt> {
      return a.sge(b) ? a : b; },
    /*idempotent=*/true}))
TILE_BINARY_OP(MinOp, (BinaryFoldRules{
    nullptr,
    [](const APFloat &a, const APFloat &b) -> std::optional<APFloat> {
      return llvm::minimum(a, b); },
    [](const APInt &a, const APInt &b) -> std::optional<APInt> {
      return a.sle(b) ? a : b; },
    /*idempotent=*/true}))
#undef TILE_BINARY_OP

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

template <typename UnaryOp>
static LogicalResult verifyUnary(UnaryOp op) {
  Type element = op.getType().getElementType();
  if (UnaryOp::kFloatOnly && !isa<FloatType>(element))
    return op.emitOpError() << "needs floating-point elements, got "
                            << element;
  if (!isArithmeticElement(element))
    return op.emitOpError("needs numeric elements, got i1");
  return success();
}

#define TILE_UNARY_VERIFY(OP)                                                  \
  LogicalResult OP::verify() { return verifyUnary(*this); }
TILE_UNARY_VERIFY(ExpOp)
TILE_UNARY_VERIFY(LogOp)
TILE_UNARY_VERIFY(SqrtOp)
TILE_UNARY_VERIFY(RsqrtOp)
TILE_UNARY_VERIFY(RecipOp)
TILE_UNARY_VERIFY(AbsOp)
TILE_UNARY_VERIFY(NegOp)
TILE_UNARY_VERIFY(ReluOp)
#undef TILE_UNARY_VERIFY

/// neg(neg(x)) == x
OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  if (auto inner = getInput().getDefiningOp<NegOp>())
    return inner.getInput();
  if (auto f = dyn_cast_or_null<FloatAttr>(adaptor.getInput()))
    return FloatAttr::get(f.getType(), -f.getValue());
  if (auto i = dyn_cast_or_null<IntegerAttr>(adaptor.getInput()))
    return IntegerAttr::get(i.getType(), -i.getValue());
  return {};
}

/// abs(abs(x)) == abs(x)
OpFoldResult AbsOp::fold(FoldAdaptor) {
  if (getInput().getDefiningOp<AbsOp>())
    return getInput();
  return {};
}

/// relu(relu(x)) == relu(x)
OpFoldResult ReluOp::fold(FoldAdaptor) {
  if (getInput().getDefiningOp<ReluOp>())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Reductions and broadcast
//===----------------------------------------------------------------------===//

/// Reducing dimension `dim` leaves a tile of size 1 there, valid elsewhere as
/// the input.
static LogicalResult verifyReduce(Operation *op, TileType input,
                                  TileType result, unsigned dim) {
  if (!isArithmeticElement(input.getElementType()))
    return op->emitOpError("needs numeric elements, got i1");
  SmallVector<int64_t, 2> shape(input.getShape());
  shape[dim] = 1;
  SmallVector<int64_t, 2> valid;
  if (!input.isFullyValid()) {
    valid.assign(input.getValidShape().begin(), input.getValidShape().end());
    valid[dim] = 1;
  }
  TileType expected = makeTile(op->getContext(), shape,
                               input.getElementType(), valid);
  if (result != expected)
    return op->emitOpError() << "result type must be " << expected << ", got "
                             << result;
  return success();
}

LogicalResult RowReduceOp::verify() {
  return verifyReduce(*this, getInput().getType(), getType(), /*dim=*/1);
}

LogicalResult ColReduceOp::verify() {
  return verifyReduce(*this, getInput().getType(), getType(), /*dim=*/0);
}

LogicalResult BroadcastOp::verify() {
  TileType input = getInput().getType();
  TileType result = getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "element type changes from "
                         << input.getElementType() << " to "
                         << result.getElementType();
  for (unsigned dim = 0; dim < 2; ++dim) {
    int64_t from = input.getShape()[dim], to = result.getShape()[dim];
    if (from != 1 && from != to)
      return emitOpError() << "cannot broadcast dimension " << dim
                           << " from size " << from << " to " << to
                           << " (only a size-1 dimension broadcasts)";
    if (from != to && ShapedType::isDynamic(result.getValidDim(dim)))
      return emitOpError() << "valid size of broadcast dimension " << dim
                           << " cannot be '?': no operand gives it";
    if (from == to && input.getValidDim(dim) != result.getValidDim(dim))
      return emitOpError() << "valid size of unbroadcast dimension " << dim
                           << " changes from "
                           << dimString(input.getValidDim(dim)) << " to "
                           << dimString(result.getValidDim(dim));
  }
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  // Broadcasting a splat is the same splat.
  if (auto attr = dyn_cast_or_null<TypedAttr>(adaptor.getInput()))
    return attr;
  return {};
}

//===----------------------------------------------------------------------===//
// row_arg_reduce / sort / take
//===----------------------------------------------------------------------===//

LogicalResult RowArgReduceOp::verify() {
  TileType input = getInput().getType();
  TileType result = getType();
  if (getKind() == ReductionKind::sum)
    return emitOpError("finds the column of a row's max or min; a sum has none");
  if (!isArithmeticElement(input.getElementType()))
    return emitOpError("needs numeric elements, got i1");
  SmallVector<int64_t, 2> valid;
  if (!input.isFullyValid())
    valid = {input.getValidDim(0), 1};
  TileType expected = makeTile(getContext(), {input.getRows(), 1},
                               IntegerType::get(getContext(), 32), valid);
  if (result != expected)
    return emitOpError() << "result type must be " << expected << ", got "
                         << result;
  return success();
}

LogicalResult SortOp::verify() {
  TileType input = getInput().getType();
  TileType values = getValues().getType();
  TileType indices = getIndices().getType();
  if (!isArithmeticElement(input.getElementType()))
    return emitOpError("needs numeric elements, got i1");
  if (input.getValidDim(1) != input.getCols())
    return emitOpError() << "sorts whole rows: every column of " << input
                         << " must be valid";
  int64_t keep = values.getCols();
  if (keep < 1 || keep > input.getCols())
    return emitOpError() << "keeps " << keep << " elements of rows of "
                         << input.getCols() << " (1 to " << input.getCols()
                         << ")";
  SmallVector<int64_t, 2> valid;
  if (!input.isFullyValid())
    valid = {input.getValidDim(0), keep};
  TileType expectedValues =
      makeTile(getContext(), {input.getRows(), keep}, input.getElementType(), valid);
  if (values != expectedValues)
    return emitOpError() << "values must be " << expectedValues << ", got "
                         << values;
  TileType expectedIndices = makeTile(getContext(), {input.getRows(), keep},
                                      IntegerType::get(getContext(), 32), valid);
  if (indices != expectedIndices)
    return emitOpError() << "indices must be " << expectedIndices << ", got "
                         << indices;
  return success();
}

/// What tile.take and tile.put share: per-row column indices, one index row
/// per input row, valid over the same rows.
static LogicalResult verifyColumnIndexed(Operation *op, TileType input,
                                         TileType indices, StringRef verb) {
  if (failed(verifyIndexElements(op, indices, "column")))
    return failure();
  if (indices.getRows() != input.getRows())
    return op->emitOpError() << verb << " " << input.getRows()
                             << " rows by indices of " << indices.getRows();
  if (indices.getValidDim(0) != input.getValidDim(0))
    return op->emitOpError() << "valid rows of the input ("
                             << dimString(input.getValidDim(0))
                             << ") and of the indices ("
                             << dimString(indices.getValidDim(0)) << ") differ";
  return success();
}

LogicalResult TakeOp::verify() {
  TileType input = getInput().getType();
  TileType indices = getIndices().getType();
  TileType result = getType();
  if (failed(verifyColumnIndexed(*this, input, indices, "takes from")))
    return failure();
  TileType expected = indices.withElementType(input.getElementType());
  if (result != expected)
    return emitOpError() << "result type must be " << expected << ", got "
                         << result;
  return success();
}

LogicalResult PutOp::verify() {
  TileType input = getInput().getType();
  TileType indices = getIndices().getType();
  TileType values = getValues().getType();
  TileType result = getType();
  if (failed(verifyColumnIndexed(*this, input, indices, "puts into")))
    return failure();
  // Layouts aside: a tile's layout does not change what it holds.
  auto unlaid = [](TileType t) { return t.withLayout(htp::layout::AxeAttr()); };
  TileType expected = indices.withElementType(input.getElementType());
  if (unlaid(values) != expected)
    return emitOpError() << "values must be a " << expected
                         << " (the indices' shape and valid region, the "
                            "input's element type), got "
                         << values;
  if (unlaid(result) != unlaid(input))
    return emitOpError() << "result type must be " << unlaid(input)
                         << ", got " << result;
  return success();
}

//===----------------------------------------------------------------------===//
// pad / set_valid
//===----------------------------------------------------------------------===//

LogicalResult PadOp::verify() {
  TileType input = getInput().getType(), result = getType();
  if (failed(verifySameShapeAndElement(*this, input, result)))
    return failure();
  if (!result.isFullyValid())
    return emitOpError() << "result " << result
                         << " must have no valid region: padding fills it";
  return success();
}

/// Padding a fully valid tile changes nothing.
OpFoldResult PadOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

LogicalResult SetValidOp::verify() {
  TileType input = getInput().getType(), result = getType();
  if (failed(verifySameShapeAndElement(*this, input, result)) ||
      failed(verifyValidSizeOperands(*this, result, getValidSizes().size())))
    return failure();
  for (unsigned dim = 0; dim < 2; ++dim) {
    int64_t from = input.getValidDim(dim), to = result.getValidDim(dim);
    if (!ShapedType::isDynamic(from) && !ShapedType::isDynamic(to) && to > from)
      return emitOpError() << "valid size " << to << " of dimension " << dim
                           << " is larger than the input's " << from
                           << ": set_valid only narrows";
  }
  return success();
}

/// Setting the valid region a tile already has (statically) changes nothing.
OpFoldResult SetValidOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() && getType().getNumDynamicValidDims() == 0)
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// matmul / cast / cmp / select / transpose
//===----------------------------------------------------------------------===//

/// (lhs, rhs) element types and the result element types each may produce.
static bool isSupportedMatmul(Type lhs, Type rhs, Type result) {
  if (lhs != rhs)
    return false;
  if (lhs.isF16())
    return result.isF32() || result.isF16();
  if (lhs.isBF16() || lhs.isF32())
    return result.isF32();
  if (lhs.isInteger(8))
    return result.isInteger(32);
  return false;
}

LogicalResult MatmulOp::verify() {
  TileType lhs = getLhs().getType(), rhs = getRhs().getType();
  TileType result = getType();
  if (lhs.getCols() != rhs.getRows())
    return emitOpError() << "contracting sizes differ: lhs has "
                         << lhs.getCols() << " columns, rhs has "
                         << rhs.getRows() << " rows";
  if (result.getRows() != lhs.getRows() || result.getCols() != rhs.getCols())
    return emitOpError() << "result must be " << lhs.getRows() << "x"
                         << rhs.getCols() << ", got " << result.getRows()
                         << "x" << result.getCols();
  if (!isSupportedMatmul(lhs.getElementType(), rhs.getElementType(),
                         result.getElementType()))
    return emitOpError() << "unsupported element types " << lhs.getElementType()
                         << " x " << rhs.getElementType() << " -> "
                         << result.getElementType()
                         << " (supported: f16 x f16 -> f32|f16, bf16 x bf16 "
                            "-> f32, f32 x f32 -> f32, i8 x i8 -> i32)";
  if (lhs.getValidDim(1) != rhs.getValidDim(0))
    return emitOpError() << "valid contracting sizes differ: lhs "
                         << dimString(lhs.getValidDim(1)) << ", rhs "
                         << dimString(rhs.getValidDim(0));
  if (result.getValidDim(0) != lhs.getValidDim(0) ||
      result.getValidDim(1) != rhs.getValidDim(1))
    return emitOpError() << "result valid region must be "
                         << dimString(lhs.getValidDim(0)) << "x"
                         << dimString(rhs.getValidDim(1));
  return success();
}

LogicalResult CastOp::verify() {
  TileType input = getInput().getType();
  TileType result = getType();
  if (input.getShape() != result.getShape() ||
      input.getValidShape() != result.getValidShape())
    return emitOpError() << "changes shape or valid region from " << input
                         << " to " << result << "; only the element type may "
                         << "change";
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

LogicalResult CmpOp::verify() {
  return verifyRhs(*this, getLhs().getType(), getRhs().getType());
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getTrueValue() == getFalseValue())
    return getTrueValue();
  if (auto mask = dyn_cast_or_null<IntegerAttr>(adaptor.getMask()))
    return mask.getValue().isOne() ? getTrueValue() : getFalseValue();
  return {};
}

LogicalResult TransposeOp::verify() {
  TileType expected = getInput().getType().transposed();
  if (getType() != expected)
    return emitOpError() << "result type must be " << expected << ", got "
                         << getType();
  return success();
}

/// transpose(transpose(x)) == x
OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (auto inner = getInput().getDefiningOp<TransposeOp>())
    return inner.getInput();
  return {};
}

LogicalResult RelayoutOp::verify() {
  TileType input = getInput().getType();
  TileType expected = input.withLayout(getType().getLayout());
  if (getType() != expected)
    return emitOpError() << "changes only the layout: the result must be "
                         << expected << ", got " << getType();
  return success();
}

/// relayout to the same type is the input; relayout(relayout(x)) is one
/// relayout of x.
OpFoldResult RelayoutOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<RelayoutOp>()) {
    if (inner.getInput().getType() == getType())
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// slice / concat / reshape
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  TileType input = getInput().getType(), result = getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "element type changes from "
                         << input.getElementType() << " to "
                         << result.getElementType();
  ArrayRef<int64_t> offsets = getOffsets();
  if (offsets.size() != 2)
    return emitOpError() << "needs 2 offsets (row, column), got "
                         << offsets.size();
  auto strides = verifyStrides(*this, getStrides());
  if (failed(strides))
    return failure();
  SmallVector<int64_t, 2> valid;
  for (unsigned dim = 0; dim < 2; ++dim) {
    int64_t offset = offsets[dim], stride = (*strides)[dim];
    int64_t size = result.getShape()[dim], extent = input.getShape()[dim];
    if (offset < 0)
      return emitOpError() << "offset " << offset << " of dimension " << dim
                           << " is negative";
    int64_t last = offset + (size - 1) * stride;
    if (last >= extent)
      return emitOpError() << "takes element " << last << " of dimension "
                           << dim << ", outside the input's " << extent;
    int64_t from = input.getValidDim(dim);
    if (ShapedType::isDynamic(from)) {
      if (offset != 0 || stride != 1 || size != extent)
        return emitOpError()
               << "slices part of dimension " << dim
               << ", whose valid size is only known at run time: take it "
                  "whole (offset 0, stride 1, size "
               << extent << ") or pad the input first";
      valid.push_back(ShapedType::kDynamic);
      continue;
    }
    if (from <= offset)
      return emitOpError() << "starts at " << offset << " of dimension " << dim
                           << ", past the input's valid size " << from
                           << ": it would hold no valid element";
    valid.push_back(std::min(size, (from - offset + stride - 1) / stride));
  }
  TileType expected =
      makeTile(getContext(), result.getShape(), input.getElementType(), valid);
  if (result != expected)
    return emitOpError() << "result type must be " << expected << ", got "
                         << result;
  return success();
}

/// A slice of the whole tile is the tile.
OpFoldResult SliceOp::fold(FoldAdaptor) {
  auto strides = getStrides();
  bool unit = !strides || llvm::all_of(*strides, [](int64_t s) { return s == 1; });
  if (unit && getType() == getInput().getType() &&
      llvm::all_of(getOffsets(), [](int64_t o) { return o == 0; }))
    return getInput();
  return {};
}

LogicalResult ConcatOp::verify() {
  OperandRange inputs = getInputs();
  TileType result = getType();
  if (inputs.empty())
    return emitOpError("needs at least one input");
  unsigned axis = getAxis(), other = 1 - axis;
  int64_t total = 0;
  for (auto [index, value] : llvm::enumerate(inputs)) {
    auto input = cast<TileType>(value.getType());
    if (input.getElementType() != result.getElementType())
      return emitOpError() << "input " << index << " has element type "
                           << input.getElementType() << ", the result "
                           << result.getElementType();
    if (input.getShape()[other] != result.getShape()[other])
      return emitOpError() << "input " << index << " has size "
                           << input.getShape()[other] << " along dimension "
                           << other << ", the result "
                           << result.getShape()[other];
    if (input.getValidDim(other) != result.getValidDim(other))
      return emitOpError() << "input " << index << " has valid size "
                           << dimString(input.getValidDim(other))
                           << " along dimension " << other << ", the result "
                           << dimString(result.getValidDim(other));
    if (input.getValidDim(axis) != input.getShape()[axis])
      return emitOpError() << "input " << index << " is not fully valid along "
                           << "the joined dimension " << axis << " (valid "
                           << dimString(input.getValidDim(axis)) << " of "
                           << input.getShape()[axis] << "): pad it first";
    total += input.getShape()[axis];
  }
  if (result.getShape()[axis] != total)
    return emitOpError() << "result size along dimension " << axis << " must "
                         << "be the inputs' total " << total << ", got "
                         << result.getShape()[axis];
  if (result.getValidDim(axis) != total)
    return emitOpError() << "result must be fully valid along dimension "
                         << axis;
  return success();
}

/// Joining one tile is the tile.
OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

LogicalResult ReshapeOp::verify() {
  TileType input = getInput().getType(), result = getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "element type changes from "
                         << input.getElementType() << " to "
                         << result.getElementType();
  int64_t from = input.getRows() * input.getCols();
  int64_t to = result.getRows() * result.getCols();
  if (from != to)
    return emitOpError() << "changes the element count from " << from
                         << " (" << input.getRows() << "x" << input.getCols()
                         << ") to " << to << " (" << result.getRows() << "x"
                         << result.getCols() << ")";
  auto full = [](TileType tile) {
    return tile.getValidDim(0) == tile.getRows() &&
           tile.getValidDim(1) == tile.getCols();
  };
  if (!full(input))
    return emitOpError() << "input " << input
                         << " must be fully valid: pad it first";
  if (!full(result))
    return emitOpError() << "result " << result << " must be fully valid";
  return success();
}

/// Reshaping to the same type changes nothing; reshape(reshape(x)) is one
/// reshape of x.
OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    if (inner.getInput().getType() == getType())
      return inner.getInput();
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

LogicalResult IntrinsicOp::verify() {
  StringRef callee = getCallee();
  auto dot = callee.find('.');
  if (dot == StringRef::npos || dot == 0 || dot + 1 == callee.size())
    return emitOpError() << "callee must be '<set>.<name>', got '" << callee
                         << "'";
  if (getOperands().empty())
    return emitOpError("needs at least one operand");
  return success();
}

LogicalResult IntrinsicEffectOp::verify() {
  StringRef callee = getCallee();
  auto dot = callee.find('.');
  if (dot == StringRef::npos || dot == 0 || dot + 1 == callee.size())
    return emitOpError() << "callee must be '<set>.<name>', got '" << callee
                         << "'";
  if (getResults().size() > 1)
    return emitOpError("has at most one result (a scalar)");
  return success();
}

#define GET_OP_CLASSES
#include "tile/TileOps.cpp.inc"

#include "tile/TileEnums.cpp.inc"
