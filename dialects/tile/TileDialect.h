//===- TileDialect.h - HTP tile dialect -------------------------*- C++ -*-===//
//
// The one header C++ users include for the tile dialect: dialect, types,
// enums and ops, all generated from the .td files beside it.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_DIALECT_TILE_TILEDIALECT_H
#define HTP_DIALECT_TILE_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "layout/LayoutDialect.h"

#include "tile/TileDialect.h.inc"
#include "tile/TileEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tile/TileTypes.h.inc"

#define GET_OP_CLASSES
#include "tile/TileOps.h.inc"

#endif // HTP_DIALECT_TILE_TILEDIALECT_H
