/*===- SampleCAPI.h - C API of the sample dialect -----------------*- C -*-===*\
|* The dialect handle, for Rust (melior reaches C++ dialects only this way).  *|
\*===----------------------------------------------------------------------===*/

#ifndef HTP_DIALECT_SAMPLE_SAMPLECAPI_H
#define HTP_DIALECT_SAMPLE_SAMPLECAPI_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Sample, sample);

#ifdef __cplusplus
}
#endif

#endif // HTP_DIALECT_SAMPLE_SAMPLECAPI_H
