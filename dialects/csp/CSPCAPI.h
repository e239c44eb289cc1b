/*===- CSPCAPI.h - C API of the csp dialect -----------------------*- C -*-===*\
|* The dialect handle and the channel type, for Rust.                         *|
\*===----------------------------------------------------------------------===*/

#ifndef HTP_DIALECT_CSP_CSPCAPI_H
#define HTP_DIALECT_CSP_CSPCAPI_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(CSP, csp);

/// `!csp.channel<element, count>`.
MLIR_CAPI_EXPORTED MlirType htpCspChannelTypeGet(MlirType element, int64_t count);
/// Whether `type` is a `!csp.channel<...>`.
MLIR_CAPI_EXPORTED bool htpCspTypeIsAChannel(MlirType type);
/// The element type of a channel type.
MLIR_CAPI_EXPORTED MlirType htpCspChannelTypeGetElement(MlirType type);
/// How many channels a channel type is an array of (1 for one channel).
MLIR_CAPI_EXPORTED int64_t htpCspChannelTypeGetCount(MlirType type);

#ifdef __cplusplus
}
#endif

#endif // HTP_DIALECT_CSP_CSPCAPI_H
