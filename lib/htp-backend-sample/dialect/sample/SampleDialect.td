//===- SampleDialect.td - the sample backend's dialect ------*- tablegen -*-===//
//
// The dialect of `htp-backend-sample`, the smallest backend built only
// through HTP's extension API (docs/architecture.md, "How to add a backend"):
// its crate builds and registers this dialect, a pass that writes it and a
// target that reads it.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_SAMPLE_DIALECT
#define HTP_SAMPLE_DIALECT

include "mlir/IR/OpBase.td"

def Sample_Dialect : Dialect {
  let name = "sample";
  let cppNamespace = "::htp::sample";
  let summary = "The sample backend's dialect: what it learned about each kernel.";
}

#endif // HTP_SAMPLE_DIALECT
