//===- CellsCAPI.cpp - C API of the cells dialect ------------------------===//
//
// Exists because melior reaches a C++ dialect and its types only through
// MLIR's C API.
//
//===----------------------------------------------------------------------===//

#include "cells/CellsCAPI.h"
#include "cells/CellsDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Cells, cells, htp::cells::CellsDialect)

bool htpCellsTypeIsACell(MlirType type) {
  return llvm::isa<htp::cells::CellType>(unwrap(type));
}

MlirType htpCellsCellTypeGet(MlirType element) {
  mlir::Type inner = unwrap(element);
  return wrap(htp::cells::CellType::get(inner.getContext(), inner));
}

MlirType htpCellsCellTypeGetElement(MlirType type) {
  return wrap(llvm::cast<htp::cells::CellType>(unwrap(type)).getElement());
}
