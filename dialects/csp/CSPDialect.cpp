//===- CSPDialect.cpp - processes and channels -----------------------------===//
//
// Exists because ODS declares the dialect's initialize() and the channel
// type's definition and verifier in C++.
//
//===----------------------------------------------------------------------===//

#include "csp/CSPDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace htp::csp;

#include "csp/CSPDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "csp/CSPTypes.cpp.inc"

void CSPDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "csp/CSPTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "csp/CSPOps.cpp.inc"
      >();
}

LogicalResult ChannelType::verify(function_ref<InFlightDiagnostic()> emitError, Type element, int64_t count) {
  if (count < 1)
    return emitError() << "an array of channels has at least one channel, got " << count;
  if (isa<ChannelType>(element))
    return emitError() << "a channel carries values, not channels";
  return success();
}
