//===- SampleDialect.cpp - the sample backend's dialect ------------------===//
//
// Exists because ODS declares the dialect's initialize() and the op classes'
// definitions in C++.
//
//===----------------------------------------------------------------------===//

#include "sample/SampleDialect.h"

using namespace mlir;
using namespace htp::sample;

#include "sample/SampleDialect.cpp.inc"

void SampleDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "sample/SampleOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "sample/SampleOps.cpp.inc"
