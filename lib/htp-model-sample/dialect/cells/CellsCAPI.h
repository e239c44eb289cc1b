/*===- CellsCAPI.h - C API of the cells dialect -------------------*- C -*-===*\
|* The dialect handle and the cell type, for Rust.                            *|
\*===----------------------------------------------------------------------===*/

#ifndef HTP_DIALECT_CELLS_CELLSCAPI_H
#define HTP_DIALECT_CELLS_CELLSCAPI_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Cells, cells);

/// Whether `type` is a `!cells.cell<T>`.
MLIR_CAPI_EXPORTED bool htpCellsTypeIsACell(MlirType type);
/// `!cells.cell<element>`.
MLIR_CAPI_EXPORTED MlirType htpCellsCellTypeGet(MlirType element);
/// The element type of a `!cells.cell<T>`.
MLIR_CAPI_EXPORTED MlirType htpCellsCellTypeGetElement(MlirType type);

#ifdef __cplusplus
}
#endif

#endif // HTP_DIALECT_CELLS_CELLSCAPI_H
