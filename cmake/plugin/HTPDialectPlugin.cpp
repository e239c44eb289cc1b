//===- HTPDialectPlugin.cpp - HTP's dialects as an mlir-opt plugin --------===//
//
// Exists to prove HTP's dialect sources compose with stock MLIR tools: Debian's
// mlir-opt loads this with --load-dialect-plugin (test/lit/Plugin).
//
//===----------------------------------------------------------------------===//

#include "Registration.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "HTPDialects", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            htp::registerAllDialects(*registry);
          }};
}
