/*===- AIECAPI.h - C API of the aie dialect -----------------------*- C -*-===*\
|* The dialect handle, for Rust (melior reaches a C++ dialect only through   *|
|* MLIR's C API). Implemented in AIECAPI.cpp.                                *|
\*===----------------------------------------------------------------------===*/

#ifndef HTP_DIALECT_AIE_AIECAPI_H
#define HTP_DIALECT_AIE_AIECAPI_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(AIE, aie);

#ifdef __cplusplus
}
#endif

#endif // HTP_DIALECT_AIE_AIECAPI_H
