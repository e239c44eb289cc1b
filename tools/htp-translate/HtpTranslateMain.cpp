//===- HtpTranslateMain.cpp - htp-translate's MlirTranslateMain ----------===//
//
// Exists because MlirTranslateMain (and TranslateToMLIRRegistration /
// TranslateFromMLIRRegistration) are C++ only. It names no translation: it
// registers every one in HTP's translation registry (htp_api::translation,
// Rust), whichever crate registered it (the front end's --import-python, a
// backend's package writer), each with the --<option> flags it declares.
// MLIR's translations (e.g. --mlir-to-llvmir) are available too.
//
//===----------------------------------------------------------------------===//

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllTranslations.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>
#include <vector>

extern "C" {
void htpRegisterDialects(MlirDialectRegistry registry);
size_t htpTranslationCount();
bool htpTranslationInfo(size_t index, MlirStringRef *name,
                        MlirStringRef *description, bool *imports,
                        size_t *options);
bool htpTranslationOption(size_t index, size_t option, MlirStringRef *name,
                          MlirStringRef *description, MlirStringRef *defaultValue,
                          bool *repeatable);
MlirLogicalResult htpTranslationExport(size_t index, MlirOperation module,
                                       const char *options, size_t optionsLen,
                                       MlirStringCallback callback,
                                       void *userData);
MlirModule htpTranslationImport(size_t index, MlirContext context,
                                const char *source, size_t sourceLen,
                                const char *fileName, size_t fileNameLen,
                                const char *options, size_t optionsLen);
}

namespace {
llvm::StringRef str(MlirStringRef ref) { return {ref.data, ref.length}; }

/// One --<option> flag: a list, so that repeatable options keep every value
/// and single ones their last. Flags are shared by the translations that
/// declare the same name.
struct Flag {
  std::unique_ptr<llvm::cl::list<std::string>> values;
  std::string defaultValue;
};
llvm::StringMap<Flag> &flags() {
  static llvm::StringMap<Flag> all;
  return all;
}

/// The `name=value` lines of translation `index`'s options.
std::string optionsOf(size_t index, size_t count) {
  std::string text;
  for (size_t option = 0; option < count; ++option) {
    MlirStringRef name, description, defaultValue;
    bool repeatable;
    if (!htpTranslationOption(index, option, &name, &description,
                              &defaultValue, &repeatable))
      continue;
    const Flag &flag = flags()[str(name)];
    if (flag.values->empty()) {
      if (!flag.defaultValue.empty())
        text += str(name).str() + "=" + flag.defaultValue + "\n";
      continue;
    }
    for (const std::string &value : *flag.values)
      text += str(name).str() + "=" + value + "\n";
  }
  return text;
}

void registerDialects(mlir::DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  // The dialects' extensions too: the AIE lowering runs transform scripts
  // (aie-vectorize-cores), whose structured ops linalg's extension adds.
  mlir::registerAllExtensions(registry);
  htpRegisterDialects(wrap(&registry));
}

void registerTranslation(size_t index) {
  MlirStringRef name, description;
  bool imports;
  size_t options;
  if (!htpTranslationInfo(index, &name, &description, &imports, &options))
    return;
  for (size_t option = 0; option < options; ++option) {
    MlirStringRef optionName, optionDescription, defaultValue;
    bool repeatable;
    if (!htpTranslationOption(index, option, &optionName, &optionDescription,
                              &defaultValue, &repeatable))
      continue;
    Flag &flag = flags()[str(optionName)];
    if (flag.values)
      continue;
    // Registered before MlirTranslateMain parses the command line; they live
    // as long as the process, like the static options of any LLVM tool.
    flag.values = std::make_unique<llvm::cl::list<std::string>>(
        str(optionName), llvm::cl::desc(str(optionDescription)),
        llvm::cl::ZeroOrMore);
    flag.defaultValue = str(defaultValue).str();
  }
  // The registration objects copy the strings they are given.
  if (imports) {
    mlir::TranslateToMLIRRegistration(
        str(name), str(description),
        [index, options](llvm::SourceMgr &sourceMgr, mlir::MLIRContext *context)
            -> mlir::OwningOpRef<mlir::Operation *> {
          const llvm::MemoryBuffer *buffer =
              sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
          std::string optionText = optionsOf(index, options);
          context->loadAllAvailableDialects();
          llvm::StringRef file = buffer->getBufferIdentifier();
          MlirModule module = htpTranslationImport(
              index, wrap(context), buffer->getBufferStart(),
              buffer->getBufferSize(), file.data(), file.size(),
              optionText.data(), optionText.size());
          if (mlirModuleIsNull(module))
            return nullptr;
          return mlir::OwningOpRef<mlir::Operation *>(
              unwrap(module).getOperation());
        },
        registerDialects);
  } else {
    mlir::TranslateFromMLIRRegistration(
        str(name), str(description),
        [index, options](mlir::Operation *op,
                         llvm::raw_ostream &output) -> llvm::LogicalResult {
          std::string optionText = optionsOf(index, options);
          auto write = [](MlirStringRef text, void *stream) {
            *static_cast<llvm::raw_ostream *>(stream) << str(text);
          };
          return unwrap(htpTranslationExport(index, wrap(op), optionText.data(),
                                             optionText.size(), write,
                                             &output));
        },
        registerDialects);
  }
}
} // namespace

extern "C" int htpTranslateMain(int argc, char **argv) {
  mlir::registerAllTranslations();
  for (size_t index = 0, count = htpTranslationCount(); index < count; ++index)
    registerTranslation(index);
  return mlir::failed(mlir::mlirTranslateMain(
             argc, argv, "HTP translation driver: HTP and MLIR translations\n"))
             ? 1
             : 0;
}
