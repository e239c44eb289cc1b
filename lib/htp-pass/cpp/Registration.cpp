//===- Registration.cpp - name Rust passes and pipelines in MLIR ---------===//
//
// Exists because MLIR's C API can create an external pass but cannot add it
// to the global pass registry, and has no PassPipelineRegistration: only
// registered passes and pipelines can be named in --pass-pipeline strings,
// listed by --help and built by parsePassPipeline.
//
//===----------------------------------------------------------------------===//

#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

extern "C" void htpRegisterExternalPass(MlirPass (*create)(void)) {
  mlir::registerPass([create]() -> std::unique_ptr<mlir::Pass> {
    return std::unique_ptr<mlir::Pass>(unwrap(create()));
  });
}

namespace {
// A Rust pass's options as MLIR's, for --help only: Rust parses the values.
struct DeclaredOptions : mlir::detail::PassOptions {
  std::vector<std::unique_ptr<Option<std::string>>> options;
};
} // namespace

// Registers a Rust pass that has options: MLIR cannot give an external pass
// options, so `name{key=value ...}` is registered as a pipeline entry that
// hands the option text to Rust, which creates the pass with the values set
// (or returns a null pass and a message for an unknown option or a bad
// value). `declared` holds (name, description, default, what a value is) of each of the
// `count` options, listed under the pass in --help; its strings live as
// long as the process.
extern "C" void htpRegisterPassWithOptions(
    const char *name, const char *description, const void *definition,
    MlirPass (*create)(const void *, MlirStringRef, MlirStringRef *),
    const MlirStringRef *declared, size_t count) {
  auto *argument = new std::string(name);
  auto *help = new std::string(description);
  auto *shown = new DeclaredOptions();
  for (size_t i = 0; i < count; ++i) {
    auto text = [&](size_t field) { return llvm::StringRef(declared[4 * i + field].data, declared[4 * i + field].length); };
    auto *help = new std::string(text(1).str() + (text(2).empty() ? "" : " (default: " + text(2).str() + ")"));
    shown->options.push_back(std::make_unique<mlir::detail::PassOptions::Option<std::string>>(
        *shown, text(0), llvm::cl::desc(*help), llvm::cl::value_desc(text(3)), llvm::cl::init(text(2).str())));
  }
  mlir::registerPassPipeline(
      *argument, *help,
      [definition, create](mlir::OpPassManager &pm, llvm::StringRef options,
                           llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) {
        MlirStringRef error{nullptr, 0};
        MlirPass pass = create(definition, MlirStringRef{options.data(), options.size()}, &error);
        if (!pass.ptr)
          return errorHandler(llvm::StringRef(error.data, error.length));
        pm.addPass(std::unique_ptr<mlir::Pass>(unwrap(pass)));
        return mlir::success();
      },
      [shown](llvm::function_ref<void(const mlir::detail::PassOptions &)> print) { print(*shown); });
}

// Registers `name` as a pipeline whose passes are `passes` (the text inside
// `builtin.module(...)`). The strings are copied: MLIR keeps the argument and
// description as StringRefs for the life of the process.
// A pipeline whose text does not parse (say, an extension's naming a pass
// nobody registered) is an error of the pipeline using it, with MLIR's
// message, not a silently empty pipeline.
extern "C" void htpRegisterPassPipeline(const char *name, const char *description, const char *passes) {
  auto *argument = new std::string(name);
  auto *help = new std::string(description);
  std::string text(passes);
  mlir::registerPassPipeline(
      *argument, *help,
      [text, argument](mlir::OpPassManager &pm, llvm::StringRef options,
                       llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> errorHandler) {
        if (!options.empty())
          return errorHandler("the pipeline '" + *argument + "' takes no options");
        std::string message;
        llvm::raw_string_ostream stream(message);
        if (mlir::failed(mlir::parsePassPipeline(text, pm, stream)))
          return errorHandler("the pipeline '" + *argument + "' does not parse (" + text + "): " + stream.str());
        return mlir::success();
      },
      [](llvm::function_ref<void(const mlir::detail::PassOptions &)>) {});
}
