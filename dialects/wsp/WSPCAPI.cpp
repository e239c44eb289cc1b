//===- WSPCAPI.cpp - C API of the wsp dialect ------------------------------===//
//
// Exists because melior reaches a C++ dialect and its types only through
// MLIR's C API.
//
//===----------------------------------------------------------------------===//

#include "wsp/WSPCAPI.h"
#include "wsp/WSPDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(WSP, wsp, htp::wsp::WSPDialect)

MlirType htpWspAxisTypeGet(MlirContext context, int kind) {
  mlir::MLIRContext *ctx = unwrap(context);
  ctx->getOrLoadDialect<htp::wsp::WSPDialect>();
  switch (kind) {
  case 0:
    return wrap(htp::wsp::DenseAxisType::get(ctx));
  case 1:
    return wrap(htp::wsp::RaggedAxisType::get(ctx));
  default:
    return wrap(htp::wsp::SparseAxisType::get(ctx));
  }
}

int htpWspAxisTypeKind(MlirType type) {
  mlir::Type t = unwrap(type);
  if (llvm::isa<htp::wsp::DenseAxisType>(t))
    return 0;
  if (llvm::isa<htp::wsp::RaggedAxisType>(t))
    return 1;
  if (llvm::isa<htp::wsp::SparseAxisType>(t))
    return 2;
  return -1;
}
