/*===- WSPCAPI.h - C API of the wsp dialect -----------------------*- C -*-===*\
|* The dialect handle and the axis types, for Rust.                           *|
\*===----------------------------------------------------------------------===*/

#ifndef HTP_DIALECT_WSP_WSPCAPI_H
#define HTP_DIALECT_WSP_WSPCAPI_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(WSP, wsp);

/// The axis type of `kind` (0 dense, 1 ragged, 2 sparse).
MLIR_CAPI_EXPORTED MlirType htpWspAxisTypeGet(MlirContext context, int kind);
/// The kind of an axis type (0 dense, 1 ragged, 2 sparse), -1 for another type.
MLIR_CAPI_EXPORTED int htpWspAxisTypeKind(MlirType type);

#ifdef __cplusplus
}
#endif

#endif // HTP_DIALECT_WSP_WSPCAPI_H
