//===- AIECAPI.cpp - C API of the aie dialect ----------------------------===//
//
// Exists because melior reaches a C++ dialect only through MLIR's C API.
//
//===----------------------------------------------------------------------===//

#include "aie/AIECAPI.h"
#include "aie/AIEDialect.h"

#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(AIE, aie, htp::aie::AIEDialect)
