//===- CSPCAPI.cpp - C API of the csp dialect ------------------------------===//
//
// Exists because melior reaches a C++ dialect and its types only through
// MLIR's C API.
//
//===----------------------------------------------------------------------===//

#include "csp/CSPCAPI.h"
#include "csp/CSPDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(CSP, csp, htp::csp::CSPDialect)

MlirType htpCspChannelTypeGet(MlirType element, int64_t count) {
  mlir::Type type = unwrap(element);
  type.getContext()->getOrLoadDialect<htp::csp::CSPDialect>();
  return wrap(htp::csp::ChannelType::get(type.getContext(), type, count));
}

bool htpCspTypeIsAChannel(MlirType type) {
  return llvm::isa<htp::csp::ChannelType>(unwrap(type));
}

MlirType htpCspChannelTypeGetElement(MlirType type) {
  return wrap(llvm::cast<htp::csp::ChannelType>(unwrap(type)).getElement());
}

int64_t htpCspChannelTypeGetCount(MlirType type) {
  return llvm::cast<htp::csp::ChannelType>(unwrap(type)).getCount();
}
