//===- WSPDialect.h - workloads and schedules ---------------------*- C++ -*-===//

#ifndef HTP_DIALECT_WSP_WSPDIALECT_H
#define HTP_DIALECT_WSP_WSPDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "wsp/WSPDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "wsp/WSPTypes.h.inc"

#define GET_OP_CLASSES
#include "wsp/WSPOps.h.inc"

#endif // HTP_DIALECT_WSP_WSPDIALECT_H
