//===- PTODialect.cpp - pto dialect registration and kernel attribute ----===//

#include "pto/PTODialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace htp::pto;

#include "pto/PTODialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "pto/PTOAttrs.cpp.inc"

void PTODialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "pto/PTOOps.cpp.inc"
      >();
}

void PTODialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "pto/PTOAttrs.cpp.inc"
      >();
}

// A2/A3 buffer sizes (docs/targets/pto-contract.md section 3). The last 8 KB
// of the 192 KB UB (from TMP_UB_OFFSET = 184 KB) is scratch that some
// instructions use without being told (TROWEXPAND<OP> without tmp, TCVT,
// TEXTRACT paths), so tiles never go there.
int64_t htp::pto::getUsableCapacity(TileLocation location) {
  switch (location) {
  case TileLocation::vec:
    return 184 * 1024;
  case TileLocation::mat:
    return 512 * 1024;
  case TileLocation::left:
  case TileLocation::right:
    return 64 * 1024;
  case TileLocation::acc:
    return 128 * 1024;
  case TileLocation::bias:
    return 1024;
  }
  llvm_unreachable("unknown tile location");
}

StringRef htp::pto::getBufferName(TileLocation location) {
  switch (location) {
  case TileLocation::vec:
    return "UB";
  case TileLocation::mat:
    return "L1";
  case TileLocation::left:
    return "L0A";
  case TileLocation::right:
    return "L0B";
  case TileLocation::acc:
    return "L0C";
  case TileLocation::bias:
    return "bias table";
  }
  llvm_unreachable("unknown tile location");
}

/// The first pto tile among an op's operand, result and block-argument types
/// whose location `allowed` rejects.
static std::optional<TileType>
findTile(Operation *op, function_ref<bool(TileLocation)> allowed) {
  auto bad = [&](Type type) -> std::optional<TileType> {
    if (auto tile = dyn_cast<TileType>(type))
      if (!allowed(tile.getLocation()))
        return tile;
    return std::nullopt;
  };
  for (Type type : op->getOperandTypes())
    if (auto tile = bad(type))
      return tile;
  for (Type type : op->getResultTypes())
    if (auto tile = bad(type))
      return tile;
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (Type type : block.getArgumentTypes())
        if (auto tile = bad(type))
          return tile;
  return std::nullopt;
}

/// `pto.core = "aiv" | "aic"` on a function: the core type of a kernel.
/// Deliberately simple: an aiv kernel may hold only vec tiles and may not
/// run a matmul; an aic kernel may not run vector-pipe ops (the ops with the
/// VectorArithmetic trait) and may not hold vec tiles (the cube core has no
/// UB). Which pipe moves data between the two is not checked here.
LogicalResult PTODialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  // `pto.orchestration` (unit) marks the function that submits the tasks.
  if (attr.getName() == "pto.orchestration") {
    if (!isa<UnitAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'pto.orchestration' is a unit attribute of "
                                "a function";
    return success();
  }
  // `pto.fifo = array<i64: arg, c2v, v2c[, c2v slots, v2c slots]>` on a
  // cluster task's kernels: the GM ring argument, the slot bytes of each
  // pipe direction and their slot counts (two when not given).
  if (attr.getName() == "pto.fifo") {
    auto fifo = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!fifo || (fifo.size() != 3 && fifo.size() != 5) || !function)
      return op->emitError() << "'pto.fifo' is array<i64: ring argument, c2v "
                                "slot bytes, v2c slot bytes[, c2v slots, v2c "
                                "slots]> on a kernel";
    int64_t arg = fifo[0];
    ArrayRef<Type> args = function.getArgumentTypes();
    auto ring = arg >= 0 && arg < (int64_t)args.size()
                    ? dyn_cast<MemRefType>(args[arg])
                    : MemRefType();
    if (!ring || !ring.hasStaticShape() || ring.getRank() != 1)
      return op->emitError() << "'pto.fifo' names argument " << arg
                              << ", which is not a static 1-D memref";
    int64_t c2vSlots = fifo.size() == 5 ? fifo[3] : 2;
    int64_t v2cSlots = fifo.size() == 5 ? fifo[4] : 2;
    if (fifo[1] < 0 || fifo[2] < 0 || c2vSlots < 1 || v2cSlots < 1)
      return op->emitError() << "'pto.fifo' slots have a size of at least 0 "
                                "bytes and a count of at least 1";
    int64_t bytes = ring.getNumElements() *
                    (ring.getElementTypeBitWidth() / 8);
    int64_t needed = c2vSlots * fifo[1] + v2cSlots * fifo[2];
    if (bytes < needed)
      return op->emitError() << "'pto.fifo' needs " << needed
                              << " bytes (its slots), the ring has " << bytes;
    return success();
  }
  // `pto.cluster = "name"` (with `pto.core`) on a tile kernel that is one
  // core of a cluster program; `pto.cluster_slots = array<i64: c2v, v2c>`
  // its pipes' slot counts.
  if (attr.getName() == "pto.cluster") {
    if (!isa<StringAttr>(attr.getValue()) || !isa<FunctionOpInterface>(op) || !op->hasAttr(kCoreAttrName))
      return op->emitError() << "'pto.cluster' names the cluster program of a "
                                "kernel function with 'pto.core'";
    return success();
  }
  if (attr.getName() == "pto.cluster_slots") {
    auto slots = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!slots || slots.size() != 2 || slots[0] < 0 || slots[1] < 0 || !op->hasAttr("pto.cluster"))
      return op->emitError() << "'pto.cluster_slots' is array<i64: c2v slots, "
                                "v2c slots> on a kernel with 'pto.cluster'";
    return success();
  }
  // `pto.runtime_env = {ring_task_window = 64 : i64}` on an orchestration
  // function: CallConfig.runtime_env settings of a run (the manifest's).
  if (attr.getName() == "pto.runtime_env") {
    auto env = dyn_cast<DictionaryAttr>(attr.getValue());
    bool integers = env && llvm::all_of(env, [](NamedAttribute entry) {
                      return isa<IntegerAttr>(entry.getValue());
                    });
    if (!integers || !isa<FunctionOpInterface>(op))
      return op->emitError() << "'pto.runtime_env' is a dictionary of "
                                "integers on an orchestration function";
    return success();
  }
  if (attr.getName() != kCoreAttrName)
    return op->emitError() << "unknown pto attribute '" << attr.getName().getValue()
                           << "' (the pto dialect defines only '"
                           << kCoreAttrName << "', 'pto.fifo', 'pto.cluster', 'pto.cluster_slots', 'pto.orchestration' and 'pto.runtime_env')";
  auto core = dyn_cast<StringAttr>(attr.getValue());
  if (!core || (core.getValue() != "aiv" && core.getValue() != "aic"))
    return op->emitError() << "'" << kCoreAttrName
                           << "' must be \"aiv\" or \"aic\", got "
                           << attr.getValue();
  if (!isa<FunctionOpInterface>(op))
    return op->emitError() << "'" << kCoreAttrName
                           << "' marks a kernel function, not '"
                           << op->getName() << "'";
  bool aiv = core.getValue() == "aiv";
  WalkResult result = op->walk([&](Operation *inner) {
    if (aiv && isa<TMatmulOp, TMatmulAccOp>(inner)) {
      inner->emitOpError()
          << "cannot run in an aiv kernel: the cube unit is on the aic core";
      return WalkResult::interrupt();
    }
    if (!aiv && inner->hasTrait<OpTrait::VectorArithmetic>()) {
      inner->emitOpError() << "cannot run in an aic kernel: vector "
                              "arithmetic runs on the aiv core";
      return WalkResult::interrupt();
    }
    auto tile = findTile(inner, [&](TileLocation location) {
      return aiv == (location == TileLocation::vec);
    });
    if (tile) {
      inner->emitOpError() << "cannot hold a "
                           << stringifyTileLocation(tile->getLocation())
                           << " tile in an " << core.getValue() << " kernel: "
                           << (aiv ? "the aiv core has only vec tiles (UB)"
                                   : "the aic core has no vec tiles (UB)");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
