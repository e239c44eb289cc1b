//===- CSPDialect.h - processes and channels ----------------------*- C++ -*-===//

#ifndef HTP_DIALECT_CSP_CSPDIALECT_H
#define HTP_DIALECT_CSP_CSPDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "csp/CSPDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "csp/CSPTypes.h.inc"

#define GET_OP_CLASSES
#include "csp/CSPOps.h.inc"

#endif // HTP_DIALECT_CSP_CSPDIALECT_H
