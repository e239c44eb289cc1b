//===- RegisterExternalPass.cpp - name Rust passes in MLIR's registry ----===//
//
// Exists because MLIR's C API can create an external pass but cannot add it
// to the global pass registry, and only registered passes can be named in
// --pass-pipeline strings, listed by --help and built by parsePassPipeline.
//
//===----------------------------------------------------------------------===//

#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/PassRegistry.h"

extern "C" void htpRegisterExternalPass(MlirPass (*create)(void)) {
  mlir::registerPass([create]() -> std::unique_ptr<mlir::Pass> {
    return std::unique_ptr<mlir::Pass>(unwrap(create()));
  });
}
