/*===- AIEXCAPI.h - C API of the aiex dialect ---------------------*- C -*-===*\
|* The dialect handle, for Rust. Implemented in AIEXCAPI.cpp.                *|
\*===----------------------------------------------------------------------===*/

#ifndef HTP_DIALECT_AIEX_AIEXCAPI_H
#define HTP_DIALECT_AIEX_AIEXCAPI_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(AIEX, aiex);

#ifdef __cplusplus
}
#endif

#endif // HTP_DIALECT_AIEX_AIEXCAPI_H
