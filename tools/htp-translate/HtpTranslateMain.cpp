//===- HtpTranslateMain.cpp - htp-translate's MlirTranslateMain ----------===//
//
// Exists because MlirTranslateMain is C++ only. HTP's own translations
// (importers and emitters, written in Rust) register here as they arrive,
// each naming the dialects it reads; MLIR's translations (e.g.
// --mlir-to-llvmir) are available from the start.
//
// --import-python: the Python front end (lib/htp-frontend, Rust). This file
// only hands it the buffer and the --htp-const values and takes back the
// module (or null after the front end emitted its diagnostics).
//
// --pto-to-cpp: the PTO package writer (lib/htp-backend-pto, Rust) for a
// module already lowered to `pto`; prints every file of the package.
//
//===----------------------------------------------------------------------===//

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

#include <string>

extern "C" MlirModule htpImportPython(MlirContext context, const char *source,
                                      size_t sourceLen, const char *fileName,
                                      size_t fileNameLen,
                                      const char *constants,
                                      size_t constantsLen);
extern "C" void htpRegisterAllDialects(MlirDialectRegistry registry);
extern "C" MlirLogicalResult htpTranslatePtoToCpp(MlirOperation module,
                                                  bool chip,
                                                  MlirStringCallback callback,
                                                  void *userData);

static llvm::cl::list<std::string> htpConstants(
    "htp-const",
    llvm::cl::desc("Value of a compile-time constant for --import-python "
                   "(NAME=VALUE, repeatable)"));

static llvm::cl::opt<std::string> ptoTarget(
    "pto-target",
    llvm::cl::desc("Target of --pto-to-cpp: pto-a2a3sim (default) or pto-a2a3"),
    llvm::cl::init("pto-a2a3sim"));

static void registerPtoToCpp() {
  mlir::TranslateFromMLIRRegistration ptoToCpp(
      "pto-to-cpp",
      "Write the PTO-ISA C++ kernels, orchestration and manifest of a module "
      "lowered to pto",
      [](mlir::Operation *op,
         llvm::raw_ostream &output) -> llvm::LogicalResult {
        if (ptoTarget != "pto-a2a3sim" && ptoTarget != "pto-a2a3")
          return op->emitError() << "--pto-target must be pto-a2a3sim or "
                                    "pto-a2a3, got '"
                                 << ptoTarget << "'";
        auto write = [](MlirStringRef text, void *stream) {
          *static_cast<llvm::raw_ostream *>(stream)
              << llvm::StringRef(text.data, text.length);
        };
        return unwrap(htpTranslatePtoToCpp(wrap(op), ptoTarget == "pto-a2a3",
                                           write, &output));
      },
      [](mlir::DialectRegistry &registry) {
        mlir::registerAllDialects(registry);
        htpRegisterAllDialects(wrap(&registry));
      });
}

static void registerImportPython() {
  mlir::TranslateToMLIRRegistration importPython(
      "import-python", "Import HTP kernels from Python source",
      [](llvm::SourceMgr &sourceMgr,
         mlir::MLIRContext *context) -> mlir::OwningOpRef<mlir::Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        std::string constants;
        for (const std::string &c : htpConstants)
          constants += c + "\n";
        context->loadAllAvailableDialects();
        llvm::StringRef name = buffer->getBufferIdentifier();
        MlirModule module = htpImportPython(
            wrap(context), buffer->getBufferStart(), buffer->getBufferSize(),
            name.data(), name.size(), constants.data(), constants.size());
        if (mlirModuleIsNull(module))
          return nullptr;
        return mlir::OwningOpRef<mlir::Operation *>(
            unwrap(module).getOperation());
      },
      [](mlir::DialectRegistry &registry) {
        mlir::registerAllDialects(registry);
        htpRegisterAllDialects(wrap(&registry));
      });
}

extern "C" int htpTranslateMain(int argc, char **argv) {
  mlir::registerAllTranslations();
  registerImportPython();
  registerPtoToCpp();
  return mlir::failed(mlir::mlirTranslateMain(
             argc, argv, "HTP translation driver: HTP and MLIR translations\n"))
             ? 1
             : 0;
}
