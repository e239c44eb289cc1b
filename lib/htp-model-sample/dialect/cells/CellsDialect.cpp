//===- CellsDialect.cpp - the sample model's dialect ---------------------===//
//
// Exists because ODS declares the dialect's initialize() and the type and
// op classes' definitions in C++.
//
//===----------------------------------------------------------------------===//

#include "cells/CellsDialect.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace htp::cells;

#include "cells/CellsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "cells/CellsTypes.cpp.inc"

#define GET_OP_CLASSES
#include "cells/CellsOps.cpp.inc"

void CellsDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "cells/CellsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "cells/CellsOps.cpp.inc"
      >();
}
