//===- Registration.cpp - name Rust passes and pipelines in MLIR ---------===//
//
// Exists because MLIR's C API can create an external pass but cannot add it
// to the global pass registry, and has no PassPipelineRegistration: only
// registered passes and pipelines can be named in --pass-pipeline strings,
// listed by --help and built by parsePassPipeline.
//
//===----------------------------------------------------------------------===//

#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

extern "C" void htpRegisterExternalPass(MlirPass (*create)(void)) {
  mlir::registerPass([create]() -> std::unique_ptr<mlir::Pass> {
    return std::unique_ptr<mlir::Pass>(unwrap(create()));
  });
}

// Registers `name` as a pipeline whose passes are `passes` (the text inside
// `builtin.module(...)`). The strings are copied: MLIR keeps the argument and
// description as StringRefs for the life of the process.
extern "C" void htpRegisterPassPipeline(const char *name, const char *description, const char *passes) {
  auto *argument = new std::string(name);
  auto *help = new std::string(description);
  std::string text(passes);
  mlir::PassPipelineRegistration<>(*argument, *help, [text](mlir::OpPassManager &pm) {
    if (mlir::failed(mlir::parsePassPipeline(text, pm, llvm::errs())))
      llvm::errs() << "error: the registered pipeline's passes do not parse: " << text << "\n";
  });
}
