//===- AIEDialect.h - HTP aie dialect ---------------------------*- C++ -*-===//
//
// The one header C++ users include for the aie dialect: dialect, enums,
// types and ops generated from the .td files beside it, and the device
// model the verifiers check against (docs/targets/aie-contract.md).
//
//===----------------------------------------------------------------------===//

#ifndef HTP_DIALECT_AIE_AIEDIALECT_H
#define HTP_DIALECT_AIE_AIEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "aie/AIEDialect.h.inc"
#include "aie/AIEEnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "aie/AIETypes.h.inc"

#define GET_OP_CLASSES
#include "aie/AIEOps.h.inc"

namespace htp::aie {

/// The kind of a tile, by row (NPU1 and NPU2 alike).
enum class TileKind { Shim, MemTile, Compute };

/// What the verifiers know of a device: mlir-aie's AIETargetModel for the
/// NPU1 (AIE2) and NPU2 (AIE2P) families at the pinned commit.
struct DeviceModel {
  int columns;
  int rows;
  /// "AIE2" or "AIE2P".
  llvm::StringRef arch;

  static DeviceModel get(AIEDevice device);
  bool contains(int col, int row) const {
    return col >= 0 && col < columns && row >= 0 && row < rows;
  }
  static TileKind kind(int row) {
    return row == 0 ? TileKind::Shim : row == 1 ? TileKind::MemTile : TileKind::Compute;
  }
  /// Data memory of one tile in bytes (shim: none).
  static int64_t memoryBytes(TileKind kind);
  /// Placement alignment of buffers in bytes (the load/store bus width).
  static int64_t alignment(TileKind kind);
  /// DMA channels per direction (S2MM in = MM2S out).
  static int dmaChannels(TileKind kind);
  static llvm::StringRef name(TileKind kind);
  /// Whether the core of compute tile (c, r) addresses the memory of tile
  /// (mc, mr) directly (AIE-ML: its own, west, north, south).
  static bool sharesMemory(int c, int r, int mc, int mr);
};

/// The aie.tile defining `value`, or null.
TileOp getTile(mlir::Value value);
/// The device an op is in, or null.
DeviceOp enclosingDevice(mlir::Operation *op);
/// The objectfifo `name` refers to from `from`, or null.
ObjectFifoCreateOp lookupFifo(mlir::Operation *from, mlir::SymbolRefAttr name);
/// Whether a FIFO's ends share memory (one compute consumer the producer's
/// core reaches, or the reverse), so it needs no DMA and one set of
/// buffers.
bool isSharedMemoryFifo(ObjectFifoCreateOp fifo);

} // namespace htp::aie

#endif // HTP_DIALECT_AIE_AIEDIALECT_H
