//===- HtpOptMain.cpp - htp-opt's MlirOptMain -----------------------------===//
//
// Exists because MlirOptMain (and with it --verify-diagnostics,
// --split-input-file, --pass-pipeline parsing) is C++ only. The Rust main
// registers HTP's Rust passes and every crate's dialects first, then
// calls this.
//
//===----------------------------------------------------------------------===//

#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

// Every HTP dialect: the core's and those crates registered (htp_dialects).
extern "C" void htpRegisterDialects(MlirDialectRegistry registry);

extern "C" int htpOptMain(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  htpRegisterDialects(wrap(&registry));
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "HTP optimizer driver: HTP and MLIR dialects and passes\n",
      registry));
}
