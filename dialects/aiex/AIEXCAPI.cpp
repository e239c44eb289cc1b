//===- AIEXCAPI.cpp - C API of the aiex dialect --------------------------===//
//
// Exists because melior reaches a C++ dialect only through MLIR's C API.
//
//===----------------------------------------------------------------------===//

#include "aiex/AIEXCAPI.h"
#include "aiex/AIEXDialect.h"

#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(AIEX, aiex, htp::aiex::AIEXDialect)
