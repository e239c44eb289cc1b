//===- LayoutAttrs.cpp - Axe layout parsing, printing, verification ------===//

#include "layout/LayoutDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace htp::layout;

#define GET_ATTRDEF_CLASSES
#include "layout/LayoutAttrs.cpp.inc"

/// The memory axis: an element offset in the buffer.
static constexpr llvm::StringLiteral kMemoryAxis = "m";

/// `?` or an integer.
static ParseResult parseSize(AsmParser &parser, int64_t &size) {
  if (succeeded(parser.parseOptionalQuestion())) {
    size = ShapedType::kDynamic;
    return success();
  }
  return parser.parseInteger(size);
}

static void printSize(llvm::raw_ostream &os, int64_t size) {
  if (ShapedType::isDynamic(size))
    os << '?';
  else
    os << size;
}

/// `[axis, ...]` (identifiers).
static ParseResult parseAxisList(AsmParser &parser,
                                 SmallVectorImpl<StringAttr> &axes) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        std::string name;
        if (parser.parseKeywordOrString(&name))
          return failure();
        axes.push_back(StringAttr::get(parser.getContext(), name));
        return success();
      });
}

// #layout.axe<[E@axis:S, ...] x [...], replica = [a, ...], offset = O>
Attribute AxeAttr::parse(AsmParser &parser, Type) {
  SmallVector<int64_t> partsPerDim, extents, strides;
  SmallVector<StringAttr> axes, replicas;
  int64_t offset = 0;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess())
    return {};
  do {
    size_t before = extents.size();
    if (parser.parseCommaSeparatedList(
            AsmParser::Delimiter::Square, [&]() -> ParseResult {
              int64_t extent, stride;
              StringAttr axis;
              if (parseSize(parser, extent) || parser.parseSymbolName(axis) ||
                  parser.parseColon() || parseSize(parser, stride))
                return failure();
              extents.push_back(extent);
              axes.push_back(axis);
              strides.push_back(stride);
              return success();
            }))
      return {};
    partsPerDim.push_back(extents.size() - before);
  } while (succeeded(parser.parseOptionalKeyword("x")));
  while (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("replica"))) {
      if (parser.parseEqual() || parseAxisList(parser, replicas))
        return {};
    } else if (succeeded(parser.parseOptionalKeyword("offset"))) {
      if (parser.parseEqual() || parser.parseInteger(offset))
        return {};
    } else {
      parser.emitError(parser.getCurrentLocation(),
                       "expected `replica = [...]` or `offset = N`");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<AxeAttr>(loc, parser.getContext(), partsPerDim,
                                    extents, axes, strides, replicas, offset);
}

void AxeAttr::print(AsmPrinter &printer) const {
  llvm::raw_ostream &os = printer.getStream();
  os << '<';
  for (unsigned dim = 0; dim < getRank(); ++dim) {
    if (dim)
      os << " x ";
    os << '[';
    unsigned first = getFirstPart(dim);
    for (unsigned part = first; part < first + getPartsPerDim()[dim]; ++part) {
      if (part != first)
        os << ", ";
      printSize(os, getExtents()[part]);
      os << '@' << getAxes()[part].getValue() << ':';
      printSize(os, getStrides()[part]);
    }
    os << ']';
  }
  if (!getReplicas().empty()) {
    os << ", replica = [";
    llvm::interleaveComma(getReplicas(), os,
                          [&](StringAttr axis) { os << axis.getValue(); });
    os << ']';
  }
  if (getOffset() != 0)
    os << ", offset = " << getOffset();
  os << '>';
}

static bool isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

LogicalResult AxeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              ArrayRef<int64_t> partsPerDim,
                              ArrayRef<int64_t> extents,
                              ArrayRef<StringAttr> axes,
                              ArrayRef<int64_t> strides,
                              ArrayRef<StringAttr> replicas, int64_t offset) {
  if (partsPerDim.empty())
    return emitError() << "a layout has at least one dimension";
  int64_t total = 0;
  for (int64_t parts : partsPerDim) {
    if (parts < 1)
      return emitError() << "every dimension has at least one part";
    total += parts;
  }
  if (static_cast<size_t>(total) != extents.size() ||
      extents.size() != axes.size() || axes.size() != strides.size())
    return emitError() << "the parts' extents, axes and strides must number "
                       << total;
  for (auto [extent, axis, stride] : llvm::zip(extents, axes, strides)) {
    if (!ShapedType::isDynamic(extent) && extent < 1)
      return emitError() << "part extents must be positive or ?, got " << extent;
    if (!ShapedType::isDynamic(stride) && stride < 0)
      return emitError() << "part strides must be non-negative or ?, got "
                         << stride;
    if (!axis || !isIdentifier(axis.getValue()))
      return emitError() << "axis names are identifiers, got '"
                         << (axis ? axis.getValue() : "") << "'";
  }
  llvm::StringSet<> seen;
  for (StringAttr axis : replicas) {
    if (!isIdentifier(axis.getValue()))
      return emitError() << "axis names are identifiers, got '"
                         << axis.getValue() << "'";
    if (axis.getValue() == kMemoryAxis)
      return emitError() << "the memory axis `m` cannot hold replicas";
    if (!seen.insert(axis.getValue()).second)
      return emitError() << "replica axis '" << axis.getValue()
                         << "' is listed twice";
    if (llvm::is_contained(axes, axis))
      return emitError() << "axis '" << axis.getValue()
                         << "' both places parts and holds replicas";
  }
  if (offset < 0)
    return emitError() << "the offset must be non-negative, got " << offset;
  return success();
}

AxeAttr htp::layout::getCheckedAxe(function_ref<InFlightDiagnostic()> emitError,
                                   MLIRContext *context,
                                   ArrayRef<int64_t> partsPerDim,
                                   ArrayRef<int64_t> extents,
                                   ArrayRef<StringAttr> axes,
                                   ArrayRef<int64_t> strides,
                                   ArrayRef<StringAttr> replicas,
                                   int64_t offset) {
  return AxeAttr::getChecked(emitError, context, partsPerDim, extents, axes,
                             strides, replicas, offset);
}

unsigned AxeAttr::getFirstPart(unsigned dim) const {
  unsigned first = 0;
  for (unsigned d = 0; d < dim; ++d)
    first += getPartsPerDim()[d];
  return first;
}

int64_t AxeAttr::getDimSize(unsigned dim) const {
  unsigned first = getFirstPart(dim);
  int64_t size = 1;
  for (unsigned part = first; part < first + getPartsPerDim()[dim]; ++part) {
    if (ShapedType::isDynamic(getExtents()[part]))
      return ShapedType::kDynamic;
    size *= getExtents()[part];
  }
  return size;
}

bool AxeAttr::isMemoryOnly() const {
  return getReplicas().empty() &&
         llvm::all_of(getAxes(), [](StringAttr axis) {
           return axis.getValue() == kMemoryAxis;
         });
}

void LayoutDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "layout/LayoutAttrs.cpp.inc"
      >();
}
