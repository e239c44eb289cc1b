//===- Registration.h - register every HTP dialect --------------*- C++ -*-===//

#ifndef HTP_DIALECTS_REGISTRATION_H
#define HTP_DIALECTS_REGISTRATION_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace htp {
/// Inserts every dialect listed in HTPDialects.def into `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);
} // namespace htp

extern "C" {
#endif

/// C API form of htp::registerAllDialects, used by the Rust crates.
MLIR_CAPI_EXPORTED void htpRegisterAllDialects(MlirDialectRegistry registry);

#ifdef __cplusplus
}
#endif

#endif // HTP_DIALECTS_REGISTRATION_H
