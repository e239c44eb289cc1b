//===- AIEDialect.cpp - aie dialect: registration, device model, device ---===//
//
// The dialect's registration, the device model the verifiers check against
// (mlir-aie's AIETargetModel for NPU1/NPU2 at the pin of
// docs/targets/aie-contract.md), `aie.runtime_sequence`'s custom syntax
// (mlir-aie's, copied in behaviour) and the design-wide rules of
// `aie.device`: each tile's data memory and DMA channels.
//
//===----------------------------------------------------------------------===//

#include "aie/AIEDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace htp::aie;

#include "aie/AIEDialect.cpp.inc"
#include "aie/AIEEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "aie/AIETypes.cpp.inc"

void AIEDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "aie/AIEOps.cpp.inc"
      >();
}

void AIEDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "aie/AIETypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Device model (AIETargetModel.h/.cpp of mlir-aie at the pin)
//===----------------------------------------------------------------------===//

DeviceModel DeviceModel::get(AIEDevice device) {
  // VirtualizedNPU1TargetModel(cols) / NPU2TargetModel (8 columns) /
  // VirtualizedNPU2TargetModel(cols); every NPU model has 6 rows.
  switch (device) {
  case AIEDevice::npu1:
    return {4, 6, "AIE2"};
  case AIEDevice::npu1_1col:
    return {1, 6, "AIE2"};
  case AIEDevice::npu1_2col:
    return {2, 6, "AIE2"};
  case AIEDevice::npu1_3col:
    return {3, 6, "AIE2"};
  case AIEDevice::npu2:
    return {8, 6, "AIE2P"};
  case AIEDevice::npu2_1col:
  case AIEDevice::npu2_2col:
  case AIEDevice::npu2_3col:
  case AIEDevice::npu2_4col:
  case AIEDevice::npu2_5col:
  case AIEDevice::npu2_6col:
  case AIEDevice::npu2_7col:
    return {static_cast<int>(device) - static_cast<int>(AIEDevice::npu2), 6, "AIE2P"};
  }
  llvm_unreachable("unknown device");
}

int64_t DeviceModel::memoryBytes(TileKind kind) {
  // getLocalMemorySize() = 0x10000, getMemTileSize() = 0x80000 (AIE2TargetModel).
  switch (kind) {
  case TileKind::Compute:
    return 64 * 1024;
  case TileKind::MemTile:
    return 512 * 1024;
  case TileKind::Shim:
    return 0;
  }
  llvm_unreachable("unknown tile kind");
}

int64_t DeviceModel::alignment(TileKind kind) {
  // getComputeTileLoadStoreBusWidth() = 256 bits; memtiles 4 bytes.
  return kind == TileKind::Compute ? 32 : 4;
}

int DeviceModel::dmaChannels(TileKind kind) {
  // Switchbox DMA connections: 2 per direction on compute tiles, 6 on
  // memtiles; shim mux DMA connections: 2 per direction.
  return kind == TileKind::MemTile ? 6 : 2;
}

StringRef DeviceModel::name(TileKind kind) {
  switch (kind) {
  case TileKind::Compute:
    return "compute tile";
  case TileKind::MemTile:
    return "memtile";
  case TileKind::Shim:
    return "shim tile";
  }
  llvm_unreachable("unknown tile kind");
}

bool DeviceModel::sharesMemory(int c, int r, int mc, int mr) {
  // AIE2TargetModel::isLegalMemAffinity for a core: its own memory (east
  // is internal on AIE-ML), west, north, south (not a memtile).
  if (kind(r) != TileKind::Compute || kind(mr) != TileKind::Compute)
    return false;
  return (mc == c && mr == r) || (mc == c - 1 && mr == r) ||
         (mc == c && mr == r + 1) || (mc == c && mr == r - 1);
}

TileOp htp::aie::getTile(Value value) {
  return value ? value.getDefiningOp<TileOp>() : TileOp();
}

DeviceOp htp::aie::enclosingDevice(Operation *op) {
  return op->getParentOfType<DeviceOp>();
}

ObjectFifoCreateOp htp::aie::lookupFifo(Operation *from, SymbolRefAttr name) {
  return dyn_cast_or_null<ObjectFifoCreateOp>(
      SymbolTable::lookupNearestSymbolFrom(from, name));
}

bool htp::aie::isSharedMemoryFifo(ObjectFifoCreateOp fifo) {
  if (fifo.getConsumerTiles().size() != 1)
    return false;
  TileOp producer = getTile(fifo.getProducerTile());
  TileOp consumer = getTile(fifo.getConsumerTiles()[0]);
  if (!producer || !consumer)
    return false;
  int pc = producer.getCol(), pr = producer.getRow();
  int cc = consumer.getCol(), cr = consumer.getRow();
  return DeviceModel::sharesMemory(cc, cr, pc, pr) ||
         DeviceModel::sharesMemory(pc, pr, cc, cr);
}

//===----------------------------------------------------------------------===//
// aie.runtime_sequence: mlir-aie's syntax
//===----------------------------------------------------------------------===//

ParseResult RuntimeSequenceOp::parse(OpAsmParser &parser, OperationState &result) {
  StringAttr name;
  (void)parser.parseOptionalSymbolName(name, SymbolTable::getSymbolAttrName(),
                                       result.attributes);
  SmallVector<OpAsmParser::Argument> arguments;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
            OpAsmParser::Argument argument;
            if (parser.parseArgument(argument, /*allowType=*/true,
                                     /*allowAttrs=*/true))
              return failure();
            arguments.push_back(argument);
            return success();
          }))
    return failure();
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, arguments, /*enableNameShadowing=*/false))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}

void RuntimeSequenceOp::print(OpAsmPrinter &printer) {
  Region &body = getBody();
  if (getSymName() != "sequence") {
    printer << ' ';
    printer.printSymbolName(getSymName());
  }
  printer << '(';
  for (unsigned i = 0, n = body.getNumArguments(); i < n; ++i) {
    if (i > 0)
      printer << ", ";
    printer.printRegionArgument(body.getArgument(i));
  }
  printer << ')';
  printer.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                           {SymbolTable::getSymbolAttrName()});
  printer << ' ';
  printer.printRegion(body, /*printEntryBlockArgs=*/false,
                      /*printBlockTerminators=*/false);
}

//===----------------------------------------------------------------------===//
// aie.device: tile memory and DMA channels over the whole design
//===----------------------------------------------------------------------===//

namespace {
/// One buffer placed in a tile's memory: the op it comes from and bytes.
struct Placed {
  Operation *owner;
  int64_t bytes;
};

struct TileUse {
  TileOp tile;
  SmallVector<Placed> buffers;
  /// DMA channels in use per direction and the op that took each.
  SmallVector<Operation *> inputs, outputs;
};

std::string describe(TileOp tile) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "the " << DeviceModel::name(DeviceModel::kind(tile.getRow())) << " ("
     << tile.getCol() << ", " << tile.getRow() << ")";
  return text;
}

int64_t elementBytes(MemRefType type) {
  int64_t bits = type.getElementTypeBitWidth();
  return (type.getNumElements() * bits + 7) / 8;
}
} // namespace

LogicalResult DeviceOp::verifyRegions() {
  Block &body = getBodyRegion().front();
  llvm::MapVector<Operation *, TileUse> uses;
  auto use = [&](TileOp tile) -> TileUse & {
    TileUse &entry = uses[tile.getOperation()];
    entry.tile = tile;
    return entry;
  };
  // Link points: a FIFO end at the tile that forwards it holds no buffers
  // of its own; the link holds the larger side's objects there once.
  llvm::DenseSet<std::pair<Operation *, Operation *>> linkEnds; // (fifo, tile)
  for (auto link : body.getOps<ObjectFifoLinkOp>()) {
    int64_t in = 0, out = 0;
    TileOp at;
    for (Attribute name : link.getFifoOuts()) {
      auto fifo = lookupFifo(link, cast<SymbolRefAttr>(name));
      if (!fifo)
        return success(); // the link's own verifier reports it
      at = getTile(fifo.getProducerTile());
      out += elementBytes(fifo.getElementMemRef()) * fifo.getDepth();
    }
    if (!at)
      return success();
    for (Attribute name : link.getFifoIns()) {
      auto fifo = lookupFifo(link, cast<SymbolRefAttr>(name));
      if (!fifo)
        return success();
      in += elementBytes(fifo.getElementMemRef()) * fifo.getDepth();
      linkEnds.insert({fifo.getOperation(), at.getOperation()});
    }
    for (Attribute name : link.getFifoOuts())
      linkEnds.insert({lookupFifo(link, cast<SymbolRefAttr>(name)).getOperation(),
                       at.getOperation()});
    if (DeviceModel::kind(at.getRow()) != TileKind::Shim)
      use(at).buffers.push_back({link, std::max(in, out)});
  }

  llvm::DenseMap<Operation *, CoreOp> cores;
  for (Operation &op : body) {
    if (auto core = dyn_cast<CoreOp>(op)) {
      TileOp tile = getTile(core.getTile());
      if (!tile)
        continue;
      auto [it, inserted] = cores.try_emplace(tile.getOperation(), core);
      if (!inserted)
        return core.emitOpError("is a second core on ")
               << describe(tile) << " (a tile runs one core)";
      use(tile);
    } else if (auto buffer = dyn_cast<BufferOp>(op)) {
      if (TileOp tile = getTile(buffer.getTile()))
        use(tile).buffers.push_back(
            {buffer, elementBytes(cast<MemRefType>(buffer.getType()))});
    } else if (auto fifo = dyn_cast<ObjectFifoCreateOp>(op)) {
      TileOp producer = getTile(fifo.getProducerTile());
      if (!producer)
        continue;
      int64_t bytes = elementBytes(fifo.getElementMemRef());
      auto place = [&](TileOp tile) {
        if (DeviceModel::kind(tile.getRow()) == TileKind::Shim ||
            linkEnds.contains({fifo.getOperation(), tile.getOperation()}))
          return;
        for (int64_t i = 0; i < fifo.getDepth(); ++i)
          use(tile).buffers.push_back({fifo, bytes});
      };
      if (isSharedMemoryFifo(fifo)) {
        // One set of objects, in the memory both cores reach.
        TileOp consumer = getTile(fifo.getConsumerTiles()[0]);
        bool consumerReachesProducer = DeviceModel::sharesMemory(
            consumer.getCol(), consumer.getRow(), producer.getCol(),
            producer.getRow());
        place(consumerReachesProducer ? producer : consumer);
        continue;
      }
      place(producer);
      use(producer).outputs.push_back(fifo);
      for (Value value : fifo.getConsumerTiles()) {
        if (TileOp consumer = getTile(value)) {
          place(consumer);
          use(consumer).inputs.push_back(fifo);
        }
      }
    }
  }

  for (auto &[_, entry] : uses) {
    TileKind kind = DeviceModel::kind(entry.tile.getRow());
    int channels = DeviceModel::dmaChannels(kind);
    for (auto [list, direction] :
         {std::pair{&entry.inputs, "input (S2MM)"},
          std::pair{&entry.outputs, "output (MM2S)"}}) {
      if (static_cast<int>(list->size()) > channels)
        return (*list)[channels]->emitOpError("needs ")
               << list->size() << " " << direction << " DMA channels on "
               << describe(entry.tile) << ", which has " << channels
               << " (one per FIFO end that does not share memory)";
    }
    int64_t capacity = DeviceModel::memoryBytes(kind);
    int64_t align = DeviceModel::alignment(kind);
    int64_t stack = 0;
    if (auto it = cores.find(entry.tile.getOperation()); it != cores.end())
      stack = it->second.getEffectiveStackSize();
    // mlir-aie's basic-sequential placement: the stack first, then each
    // buffer at the next aligned address.
    int64_t address = stack;
    for (const Placed &buffer : entry.buffers) {
      address = llvm::alignTo(address, align) + buffer.bytes;
      if (address > capacity)
        return buffer.owner->emitOpError("needs ")
               << address << " bytes of " << describe(entry.tile)
               << "'s data memory with everything placed there before it"
               << (stack ? " (a core's stack of " + std::to_string(stack) +
                               " bytes first)"
                         : std::string())
               << ", which has " << capacity;
    }
  }
  return success();
}
