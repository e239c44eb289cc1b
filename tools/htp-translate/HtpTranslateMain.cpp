//===- HtpTranslateMain.cpp - htp-translate's MlirTranslateMain ----------===//
//
// Exists because MlirTranslateMain is C++ only. HTP's own translations
// (importers and emitters, written in Rust) register here as they arrive,
// each naming the dialects it reads; MLIR's translations (e.g.
// --mlir-to-llvmir) are available from the start.
//
//===----------------------------------------------------------------------===//

#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

extern "C" int htpTranslateMain(int argc, char **argv) {
  mlir::registerAllTranslations();
  return mlir::failed(mlir::mlirTranslateMain(
             argc, argv, "HTP translation driver: HTP and MLIR translations\n"))
             ? 1
             : 0;
}
