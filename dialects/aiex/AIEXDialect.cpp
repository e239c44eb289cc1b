//===- AIEXDialect.cpp - aiex dialect: registration and verifiers ---------===//
//
// ODS declares the dialect's initialize(), the DynamicIndexList syntax of
// `aiex.npu.dma_memcpy_nd` (MLIR's, from ViewLikeInterface) and the
// verifiers in C++: the transfer's FIFO has a shim end, its window lies
// inside the host buffer, and its sizes fit a shim buffer descriptor
// (mlir-aie's ShimBdFieldWidths at the pin).
//
//===----------------------------------------------------------------------===//

#include "aiex/AIEXDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace htp::aiex;
namespace aie = htp::aie;

#include "aiex/AIEXDialect.cpp.inc"

#define GET_OP_CLASSES
#include "aiex/AIEXOps.cpp.inc"

void AIEXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "aiex/AIEXOps.cpp.inc"
      >();
}

namespace {
/// The FIFO a host op names; it must have a shim tile at one end.
FailureOr<aie::ObjectFifoCreateOp> shimFifo(Operation *op, SymbolRefAttr name) {
  auto fifo = aie::lookupFifo(op, name);
  if (!fifo)
    return op->emitOpError("names ")
           << name << ", which is not an aie.objectfifo of the device";
  auto isShim = [](Value value) {
    aie::TileOp tile = aie::getTile(value);
    return tile && tile.getRow() == 0;
  };
  if (!isShim(fifo.getProducerTile()) && llvm::none_of(fifo.getConsumerTiles(), isShim))
    return op->emitOpError("names @")
           << fifo.getSymName()
           << ", which has no shim tile at either end (host transfers go "
              "through a shim tile's DMA)";
  return fifo;
}
} // namespace

LogicalResult NpuDmaMemcpyNdOp::verify() {
  auto fifo = shimFifo(*this, getMetadata());
  if (failed(fifo))
    return failure();
  auto type = dyn_cast<MemRefType>(getMemref().getType());
  if (!type || !type.hasStaticShape())
    return emitOpError("needs a host buffer of static shape");
  auto argument = dyn_cast<BlockArgument>(getMemref());
  if (!argument || !isa<aie::RuntimeSequenceOp>(argument.getOwner()->getParentOp()))
    return emitOpError("moves a buffer that is not an argument of the runtime sequence");
  if (!type.getElementType().isIntOrFloat())
    return emitOpError("moves ") << type.getElementType() << " elements; the shim DMA moves integers and floats";
  unsigned bits = type.getElementTypeBitWidth();
  if (bits > 32)
    return emitOpError("moves ") << bits << "-bit elements; the shim DMA moves at most 32-bit ones";
  // Objects of 64-bit elements travel from and to a host buffer of their
  // 32-bit words (mlir-aie's buffer descriptors move them as word pairs).
  Type object = fifo->getElementMemRef().getElementType();
  bool wide = object.isIntOrFloat() && object.getIntOrFloatBitWidth() == 64;
  bool wordPairs = wide && type.getElementType().isInteger(32);
  if (object != type.getElementType() && !wordPairs)
    return emitOpError("moves ")
           << type.getElementType() << " elements through @"
           << fifo->getSymName() << ", whose objects hold " << object
           << (wide ? " (moved as the words of a host buffer of i32)" : "");
  // Run-time offsets, sizes or strides: mlir-aie checks them when it
  // lowers; HTP emits static ones.
  if (!getOffsets().empty() || !getSizes().empty() || !getStrides().empty())
    return success();
  ArrayRef<int64_t> offsets = getStaticOffsets(), sizes = getStaticSizes(),
                    strides = getStaticStrides();
  for (int64_t i = 0; i < 4; ++i) {
    if (offsets[i] < 0 || sizes[i] < 1 || strides[i] < 0)
      return emitOpError("needs offsets and strides >= 0 and sizes >= 1 (dimension ")
             << i << ")";
  }
  if (strides[3] != 1)
    return emitOpError("innermost stride is ") << strides[3] << "; it must be 1";
  if ((sizes[3] * bits) % 32 != 0)
    return emitOpError("innermost size of ")
           << sizes[3] << " elements is not a whole number of 32-bit words";
  int64_t words = sizes[3] * bits / 32;
  if (words > 1023)
    return emitOpError("innermost size of ")
           << sizes[3] << " elements is " << words
           << " 32-bit words; a shim buffer descriptor moves at most 1023";
  if (sizes[2] > 1023)
    return emitOpError("second-innermost size ") << sizes[2] << " exceeds 1023";
  if (sizes[0] > 64)
    return emitOpError("outermost (repeat) size ") << sizes[0] << " exceeds 64";
  int64_t last = 0;
  for (int64_t i = 0; i < 4; ++i)
    last += (offsets[i] + sizes[i] - 1) * strides[i];
  // The offsets are in elements of each dimension's stride, as mlir-aie
  // reads them.
  if (last >= type.getNumElements())
    return emitOpError("reaches element ")
           << last << " of a host buffer of " << type.getNumElements()
           << " elements";
  int64_t moved = sizes[0] * sizes[1] * sizes[2] * sizes[3];
  // In the host buffer's elements (a 64-bit object is two of its words).
  int64_t objectElements = fifo->getElementMemRef().getNumElements() * (wordPairs ? 2 : 1);
  if (moved % objectElements != 0)
    return emitOpError("moves ")
           << moved << " elements through @" << fifo->getSymName()
           << ", not a whole number of its " << objectElements << "-element objects";
  return success();
}

LogicalResult NpuDmaWaitOp::verify() {
  return shimFifo(*this, getSymbolAttr());
}
