//===- SampleDialect.h - the sample backend's dialect -----------*- C++ -*-===//

#ifndef HTP_DIALECT_SAMPLE_SAMPLEDIALECT_H
#define HTP_DIALECT_SAMPLE_SAMPLEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "sample/SampleDialect.h.inc"

#define GET_OP_CLASSES
#include "sample/SampleOps.h.inc"

#endif // HTP_DIALECT_SAMPLE_SAMPLEDIALECT_H
