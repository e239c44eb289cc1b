//===- SampleCAPI.cpp - C API of the sample dialect ----------------------===//
//
// Exists because melior reaches a C++ dialect only through MLIR's C API.
//
//===----------------------------------------------------------------------===//

#include "sample/SampleCAPI.h"
#include "sample/SampleDialect.h"

#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Sample, sample, htp::sample::SampleDialect)
