//===- WSPDialect.cpp - workloads and schedules ----------------------------===//
//
// Exists because ODS declares the dialect's initialize() and the axis types'
// definitions in C++.
//
//===----------------------------------------------------------------------===//

#include "wsp/WSPDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace htp::wsp;

#include "wsp/WSPDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "wsp/WSPTypes.cpp.inc"

void WSPDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "wsp/WSPTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "wsp/WSPOps.cpp.inc"
      >();
}
