//===- PTODialect.h - HTP pto dialect ---------------------------*- C++ -*-===//
//
// The one header C++ users include for the pto dialect: dialect, enums,
// attributes, types and ops, all generated from the .td files beside it.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_DIALECT_PTO_PTODIALECT_H
#define HTP_DIALECT_PTO_PTODIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "pto/PTODialect.h.inc"
#include "pto/PTOEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "pto/PTOAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "pto/PTOTypes.h.inc"

namespace htp::pto {
/// f32, f16, bf16, i8, i16, i32, i64 (signless = signed), ui8, ui16, ui32:
/// the element types of tiles and GM tensors.
bool isPTOElementType(mlir::Type type);
/// The A2/A3 capacity in bytes of the buffer that holds tiles of `location`
/// as HTP may use it (UB without PTO-ISA's hidden 8 KB scratch).
int64_t getUsableCapacity(TileLocation location);
/// The hardware name of that buffer ("UB", "L1", "L0A", ...).
llvm::StringRef getBufferName(TileLocation location);

/// Parses an enum keyword through its generated symbolizer; an unknown one
/// is "unknown <what> '<keyword>'", followed by ` (expected <expected>)`
/// when given.
template <typename EnumT>
mlir::ParseResult
parseEnumKeyword(mlir::AsmParser &parser, EnumT &value,
                 std::optional<EnumT> (*symbolize)(llvm::StringRef),
                 llvm::StringRef what, llvm::StringRef expected = "") {
  llvm::SMLoc loc = parser.getCurrentLocation();
  llvm::StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return mlir::failure();
  std::optional<EnumT> parsed = symbolize(keyword);
  if (!parsed) {
    mlir::InFlightDiagnostic diag = parser.emitError(loc)
                                    << "unknown " << what << " '" << keyword
                                    << "'";
    if (!expected.empty())
      diag << " (expected " << expected << ")";
    return diag;
  }
  value = *parsed;
  return mlir::success();
}

namespace OpTrait {
/// Marks ops that run on the vector pipe (not allowed in an aic kernel).
template <typename ConcreteType>
class VectorArithmetic
    : public mlir::OpTrait::TraitBase<ConcreteType, VectorArithmetic> {};
} // namespace OpTrait
} // namespace htp::pto

#define GET_OP_CLASSES
#include "pto/PTOOps.h.inc"

#endif // HTP_DIALECT_PTO_PTODIALECT_H
