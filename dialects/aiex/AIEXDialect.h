//===- AIEXDialect.h - HTP aiex dialect -------------------------*- C++ -*-===//
//
// The one header C++ users include for the aiex dialect.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_DIALECT_AIEX_AIEXDIALECT_H
#define HTP_DIALECT_AIEX_AIEXDIALECT_H

#include "aie/AIEDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "aiex/AIEXDialect.h.inc"

#define GET_OP_CLASSES
#include "aiex/AIEXOps.h.inc"

#endif // HTP_DIALECT_AIEX_AIEXDIALECT_H
