//===- Registration.cpp - register every HTP dialect ---------------------===//
//
// Exists so that every consumer (htp-opt, the Rust crates through the C API,
// the mlir-opt plugin) registers the same dialects from HTPDialects.def.
//
//===----------------------------------------------------------------------===//

#include "Registration.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"

// Every dialect's C API header declares mlirGetDialectHandle__<ns>__.
extern "C" {
#define HTP_DIALECT(ns, Prefix) MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Prefix, ns);
#include "HTPDialects.def"
#undef HTP_DIALECT
}

void htpRegisterAllDialects(MlirDialectRegistry registry) {
#define HTP_DIALECT(ns, Prefix)                                                \
  mlirDialectHandleInsertDialect(mlirGetDialectHandle__##ns##__(), registry);
#include "HTPDialects.def"
#undef HTP_DIALECT
}

void htp::registerAllDialects(mlir::DialectRegistry &registry) {
  htpRegisterAllDialects(wrap(&registry));
}
