//===- HtpOptMain.cpp - htp-opt's MlirOptMain -----------------------------===//
//
// Exists because MlirOptMain (and with it --verify-diagnostics,
// --split-input-file, --pass-pipeline parsing) is C++ only. The Rust main
// registers HTP's Rust passes first, then calls this.
//
//===----------------------------------------------------------------------===//

#include "Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

extern "C" int htpOptMain(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  htp::registerAllDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "HTP optimizer driver: HTP and MLIR dialects and passes\n",
      registry));
}
