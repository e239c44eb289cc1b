//===- CellsDialect.h - the sample model's dialect --------------*- C++ -*-===//

#ifndef HTP_DIALECT_CELLS_CELLSDIALECT_H
#define HTP_DIALECT_CELLS_CELLSDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "cells/CellsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "cells/CellsTypes.h.inc"

#define GET_OP_CLASSES
#include "cells/CellsOps.h.inc"

#endif // HTP_DIALECT_CELLS_CELLSDIALECT_H
