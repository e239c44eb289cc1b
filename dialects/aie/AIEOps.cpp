//===- AIEOps.cpp - aie dialect op verifiers ------------------------------===//
//
// The per-op rules of docs/targets/aie-contract.md: tiles inside the device,
// cores on compute tiles with balanced acquire/release, FIFO ends that are
// tiles, acquires within the FIFO's depth and at the core's own end, links
// through one shared tile with offsets inside the objects.
//
//===----------------------------------------------------------------------===//

#include "aie/AIEDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace htp::aie;

#define GET_OP_CLASSES
#include "aie/AIEOps.cpp.inc"

namespace {
std::string where(TileOp tile) {
  return "(" + std::to_string(tile.getCol()) + ", " +
         std::to_string(tile.getRow()) + ")";
}

StringRef portName(ObjectFifoPort port) { return stringifyObjectFifoPort(port); }
} // namespace

//===----------------------------------------------------------------------===//
// aie.tile
//===----------------------------------------------------------------------===//

LogicalResult TileOp::verify() {
  DeviceOp device = enclosingDevice(*this);
  DeviceModel model = DeviceModel::get(device.getDevice());
  if (!model.contains(getCol(), getRow()))
    return emitOpError("(")
           << getCol() << ", " << getRow() << ") is outside the device "
           << stringifyAIEDevice(device.getDevice()) << ", which has "
           << model.columns << " column" << (model.columns == 1 ? "" : "s")
           << " (0-" << model.columns - 1 << ") and rows 0-" << model.rows - 1
           << " (0 shim, 1 memtile, 2-" << model.rows - 1 << " compute)";
  return success();
}

void TileOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  // mlir-aie's names: tile_C_R, mem_tile_C_R, shim_noc_tile_C_R.
  std::string prefix = getRow() == 0 ? "shim_noc_tile_" : getRow() == 1 ? "mem_tile_" : "tile_";
  setNameFn(getResult(), prefix + std::to_string(getCol()) + "_" + std::to_string(getRow()));
}

//===----------------------------------------------------------------------===//
// aie.core
//===----------------------------------------------------------------------===//

namespace {
/// Within `block` (a loop body, a branch or the core's body), every FIFO
/// port releases as many objects as it acquires; nested regions are
/// checked on their own. Regions of several blocks (unstructured control
/// flow) are not checked.
LogicalResult checkBalanced(Block &block) {
  struct Count {
    int64_t acquired = 0, released = 0;
    Operation *first = nullptr;
    StringRef fifo;
    ObjectFifoPort port;
  };
  llvm::MapVector<std::pair<StringRef, int>, Count> counts;
  for (Operation &op : block) {
    if (auto acquire = dyn_cast<ObjectFifoAcquireOp>(op)) {
      Count &count = counts[{acquire.getObjFifoName(), static_cast<int>(acquire.getPort())}];
      count.acquired += acquire.getSize();
      if (!count.first)
        count = {count.acquired, count.released, &op, acquire.getObjFifoName(), acquire.getPort()};
    } else if (auto release = dyn_cast<ObjectFifoReleaseOp>(op)) {
      Count &count = counts[{release.getObjFifoName(), static_cast<int>(release.getPort())}];
      count.released += release.getSize();
      if (!count.first)
        count = {count.acquired, count.released, &op, release.getObjFifoName(), release.getPort()};
    }
    for (Region &region : op.getRegions())
      if (region.hasOneBlock() && failed(checkBalanced(region.front())))
        return failure();
  }
  Operation *parent = block.getParentOp();
  std::string scope = isa<CoreOp>(parent)
                          ? "the core's body"
                          : (parent->getName().getStringRef() == "scf.for" ||
                             parent->getName().getStringRef() == "scf.while" ||
                             parent->getName().getStringRef() == "scf.forall")
                                ? "each iteration of the enclosing '" +
                                      parent->getName().getStringRef().str() + "'"
                                : "a region of '" +
                                      parent->getName().getStringRef().str() + "'";
  for (auto &[_, count] : counts) {
    if (count.acquired == count.released)
      continue;
    return count.first->emitError("@")
           << count.fifo << " (" << portName(count.port) << ") is acquired "
           << count.acquired << " time" << (count.acquired == 1 ? "" : "s")
           << " but released " << count.released << " time"
           << (count.released == 1 ? "" : "s") << " in " << scope
           << ": every acquire needs its release in the same block, or the "
              "FIFO stops (a hang on the device)";
  }
  return success();
}
} // namespace

LogicalResult CoreOp::verify() {
  TileOp tile = htp::aie::getTile(getTile());
  if (!tile)
    return emitOpError("needs a tile made by aie.tile");
  TileKind kind = DeviceModel::kind(tile.getRow());
  if (kind != TileKind::Compute)
    return emitOpError("runs on a compute tile (rows 2-5), not on the ")
           << DeviceModel::name(kind) << " " << where(tile);
  if (getEffectiveStackSize() >= DeviceModel::memoryBytes(kind))
    return emitOpError("stack_size ")
           << getEffectiveStackSize() << " leaves no memory for buffers ("
           << DeviceModel::memoryBytes(kind) << " bytes in all)";
  if (getBody().empty() || getBody().back().empty() ||
      !isa<EndOp>(getBody().back().back()))
    return emitOpError("body must end with aie.end");
  return success();
}

LogicalResult CoreOp::verifyRegions() {
  if (getBody().hasOneBlock())
    return checkBalanced(getBody().front());
  return success();
}

//===----------------------------------------------------------------------===//
// aie.buffer
//===----------------------------------------------------------------------===//

LogicalResult BufferOp::verify() {
  TileOp tile = htp::aie::getTile(getTile());
  if (!tile)
    return emitOpError("needs a tile made by aie.tile");
  if (DeviceModel::kind(tile.getRow()) == TileKind::Shim)
    return emitOpError("is on the shim tile ")
           << where(tile) << ", which has no data memory";
  return success();
}

//===----------------------------------------------------------------------===//
// aie.objectfifo
//===----------------------------------------------------------------------===//

LogicalResult ObjectFifoCreateOp::verify() {
  TileOp producer = getTile(getProducerTile());
  if (!producer)
    return emitOpError("producer must be a tile made by aie.tile");
  if (getConsumerTiles().empty())
    return emitOpError("needs at least one consumer tile");
  llvm::SmallPtrSet<Operation *, 4> seen;
  for (Value value : getConsumerTiles()) {
    TileOp consumer = getTile(value);
    if (!consumer)
      return emitOpError("consumers must be tiles made by aie.tile");
    if (consumer == producer)
      return emitOpError("has the tile ")
             << where(consumer) << " as both producer and consumer";
    if (!seen.insert(consumer).second)
      return emitOpError("names the consumer tile ")
             << where(consumer) << " twice";
    if (DeviceModel::kind(producer.getRow()) == TileKind::Shim &&
        DeviceModel::kind(consumer.getRow()) == TileKind::Shim)
      return emitOpError("connects two shim tiles (host memory to host memory)");
  }
  MemRefType type = getElementMemRef();
  if (!type.hasStaticShape())
    return emitOpError("element type ") << type << " needs a static shape";
  if (!type.getElementType().isIntOrFloat())
    return emitOpError("element type ")
           << type << " needs integer or float elements";
  return success();
}

//===----------------------------------------------------------------------===//
// aie.objectfifo.link
//===----------------------------------------------------------------------===//

LogicalResult ObjectFifoLinkOp::verify() {
  auto resolve = [&](ArrayAttr names, SmallVectorImpl<ObjectFifoCreateOp> &out) -> LogicalResult {
    if (names.empty())
      return emitOpError("needs at least one FIFO on each side");
    for (Attribute name : names) {
      auto fifo = lookupFifo(*this, cast<SymbolRefAttr>(name));
      if (!fifo)
        return emitOpError("names ") << name << ", which is not an aie.objectfifo";
      out.push_back(fifo);
    }
    return success();
  };
  SmallVector<ObjectFifoCreateOp> ins, outs;
  if (failed(resolve(getFifoIns(), ins)) || failed(resolve(getFifoOuts(), outs)))
    return failure();
  if (ins.size() > 1 && outs.size() > 1)
    return emitOpError("either joins several FIFOs into one or splits one into "
                       "several, not both");
  TileOp at = getTile(outs.front().getProducerTile());
  for (ObjectFifoCreateOp fifo : outs)
    if (getTile(fifo.getProducerTile()) != at)
      return emitOpError("output FIFOs must all be produced by one tile (the link point)");
  for (ObjectFifoCreateOp fifo : ins)
    if (!llvm::is_contained(fifo.getConsumerTiles(), at.getResult()))
      return emitOpError("input FIFO @")
             << fifo.getSymName() << " is not consumed by the link point "
             << where(at) << ", which produces the outputs";
  auto offsets = [](ArrayAttr attr) {
    SmallVector<int64_t> values;
    for (Attribute a : attr)
      values.push_back(cast<IntegerAttr>(a).getInt());
    return values;
  };
  auto check = [&](MutableArrayRef<ObjectFifoCreateOp> parts, ObjectFifoCreateOp whole,
                   ArrayAttr attr, StringRef side) -> LogicalResult {
    SmallVector<int64_t> at = offsets(attr);
    if (parts.size() == 1)
      return attr.empty() ? success()
                          : emitOpError(side) << " offsets need several " << side
                                              << " FIFOs";
    if (at.size() != parts.size())
      return emitOpError("has ")
             << parts.size() << " " << side << " FIFOs but " << at.size()
             << " " << side << " offsets";
    int64_t total = whole.getElementMemRef().getNumElements();
    for (auto [fifo, offset] : llvm::zip(parts, at)) {
      int64_t size = fifo.getElementMemRef().getNumElements();
      if (offset < 0 || offset + size > total)
        return emitOpError("places @")
               << fifo.getSymName() << " (" << size << " elements) at offset "
               << offset << " of @" << whole.getSymName() << "'s " << total
               << "-element objects";
    }
    return success();
  };
  if (failed(check(ins, outs.front(), getSrcOffsets(), "input")) ||
      failed(check(outs, ins.front(), getDstOffsets(), "output")))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// acquire / release / subview.access
//===----------------------------------------------------------------------===//

namespace {
/// The FIFO an acquire or release names, checked against the core it is
/// in: the core's tile is the end `port` names, and `size` is at most the
/// depth.
FailureOr<ObjectFifoCreateOp> checkFifoEnd(Operation *op, FlatSymbolRefAttr name,
                                           ObjectFifoPort port, int64_t size,
                                           StringRef verb) {
  auto fifo = lookupFifo(op, name);
  if (!fifo)
    return op->emitOpError("names @")
           << name.getValue() << ", which is not an aie.objectfifo";
  auto core = op->getParentOfType<CoreOp>();
  if (!core)
    return op->emitOpError("must be inside an aie.core");
  TileOp tile = getTile(core.getTile());
  if (port == ObjectFifoPort::Produce) {
    if (tile && getTile(fifo.getProducerTile()) != tile)
      return op->emitOpError("produces into @")
             << fifo.getSymName() << " from the core of " << where(tile)
             << ", which is not its producer";
  } else if (tile && !llvm::is_contained(fifo.getConsumerTiles(), tile.getResult())) {
    return op->emitOpError("consumes from @")
           << fifo.getSymName() << " in the core of " << where(tile)
           << ", which is not one of its consumers";
  }
  if (size > fifo.getDepth())
    return op->emitOpError() << verb << " " << size << " objects of @"
                             << fifo.getSymName() << ", whose depth is "
                             << fifo.getDepth()
                             << " (mlir-aie would silently enlarge the FIFO)";
  return fifo;
}
} // namespace

LogicalResult ObjectFifoAcquireOp::verify() {
  auto fifo = checkFifoEnd(*this, getObjFifoNameAttr(), getPort(), getSize(), "acquires");
  if (failed(fifo))
    return failure();
  auto type = cast<AIEObjectFifoSubviewType>(getSubview().getType());
  if (type.getMemref() != fifo->getElementMemRef())
    return emitOpError("returns objects of type ")
           << type.getMemref() << ", but @" << fifo->getSymName()
           << " holds " << fifo->getElementMemRef();
  return success();
}

LogicalResult ObjectFifoReleaseOp::verify() {
  return checkFifoEnd(*this, getObjFifoNameAttr(), getPort(), getSize(), "releases");
}

LogicalResult ObjectFifoSubviewAccessOp::verify() {
  auto type = cast<AIEObjectFifoSubviewType>(getSubview().getType());
  if (getOutput().getType() != type.getMemref())
    return emitOpError("result type ")
           << getOutput().getType() << " is not the objects' type "
           << type.getMemref();
  auto acquire = getSubview().getDefiningOp<ObjectFifoAcquireOp>();
  if (!acquire)
    return emitOpError("subview must come straight from an aie.objectfifo.acquire");
  if (getIndex() >= acquire.getSize())
    return emitOpError("accesses object ")
           << getIndex() << " of a subview of " << acquire.getSize()
           << " object" << (acquire.getSize() == 1 ? "" : "s");
  return success();
}

//===----------------------------------------------------------------------===//
// aie.runtime_sequence
//===----------------------------------------------------------------------===//

LogicalResult RuntimeSequenceOp::verify() {
  for (BlockArgument argument : getBody().getArguments())
    if (!isa<MemRefType>(argument.getType()))
      return emitOpError("argument #")
             << argument.getArgNumber() << " is " << argument.getType()
             << ": host buffers are memrefs";
  return success();
}
