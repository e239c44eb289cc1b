//===- WSPOps.cpp - workload op verifiers ----------------------------------===//
//
// Exists because ODS declares op verifiers and `wsp.task`'s symbol check
// (the task's arguments against its kernel's signature) in C++.
//
//===----------------------------------------------------------------------===//

#include "wsp/WSPDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace htp::wsp;

#define GET_OP_CLASSES
#include "wsp/WSPOps.cpp.inc"

/// How many indices a loop over an axis of type `type` binds.
static unsigned indicesOf(Type type) {
  return isa<DenseAxisType>(type) ? 1 : 2;
}

/// The body's arguments are `expected` indices.
static LogicalResult verifyIndices(Operation *op, Region &body, unsigned expected) {
  Block &block = body.front();
  if (block.getNumArguments() != expected)
    return op->emitOpError() << "binds " << expected << " indices (one per dense axis, two per ragged or sparse axis) but its body has "
                             << block.getNumArguments() << " arguments";
  for (BlockArgument argument : block.getArguments())
    if (!argument.getType().isIndex())
      return op->emitOpError() << "body argument #" << argument.getArgNumber() << " must be an index, got " << argument.getType();
  return success();
}

LogicalResult ParallelOp::verify() {
  if (getAxes().empty())
    return emitOpError() << "needs at least one axis";
  unsigned expected = 0;
  for (Type type : getAxes().getTypes())
    expected += indicesOf(type);
  return verifyIndices(*this, getBody(), expected);
}

LogicalResult SequentialOp::verify() {
  return verifyIndices(*this, getBody(), indicesOf(getAxis().getType()));
}

LogicalResult SelectOp::verify() {
  return verifyIndices(*this, getBody(), 1);
}

static bool isPredicate(StringRef name) {
  return llvm::is_contained({"eq", "ne", "lt", "le", "gt", "ge"}, name);
}

LogicalResult WhenOp::verify() {
  if (!isPredicate(getPredicate()))
    return emitOpError() << "predicate must be one of eq, ne, lt, le, gt, ge; got '" << getPredicate() << "'";
  if (!getElement().getDefiningOp<ElementOp>())
    return emitOpError() << "condition must read a tensor element with wsp.element (it is read when the tasks run)";
  if (getElement().getType() != getBound().getType())
    return emitOpError() << "compares a " << getElement().getType() << " element with a " << getBound().getType() << " bound";
  if (getBody().front().getNumArguments() != 0)
    return emitOpError() << "body takes no arguments";
  return success();
}

LogicalResult ElementOp::verify() {
  auto tensor = cast<MemRefType>(getTensor().getType());
  if ((int64_t)getIndices().size() != tensor.getRank())
    return emitOpError() << "takes " << tensor.getRank() << " indices for a rank-" << tensor.getRank() << " tensor, got " << getIndices().size();
  if (tensor.getElementType() != getValue().getType())
    return emitOpError() << "result must be the tensor's element type " << tensor.getElementType() << ", got " << getValue().getType();
  return success();
}

LogicalResult ViewOp::verify() {
  auto tensor = cast<MemRefType>(getTensor().getType());
  auto view = cast<MemRefType>(getView().getType());
  if ((int64_t)getOffsets().size() != tensor.getRank())
    return emitOpError() << "takes one offset per dimension of the rank-" << tensor.getRank() << " tensor, got " << getOffsets().size();
  if ((int64_t)getSizes().size() != view.getRank())
    return emitOpError() << "takes one size per dimension of the rank-" << view.getRank() << " view, got " << getSizes().size();
  if (view.getRank() < 1 || view.getRank() > tensor.getRank())
    return emitOpError() << "a view of a rank-" << tensor.getRank() << " tensor has rank 1 to " << tensor.getRank() << ", got " << view.getRank();
  if (view.getElementType() != tensor.getElementType())
    return emitOpError() << "a view holds the tensor's " << tensor.getElementType() << ", got " << view.getElementType();
  int64_t dropped = tensor.getRank() - view.getRank();
  for (int64_t d = 0; d < view.getRank(); ++d)
    if (!view.isDynamicDim(d) && !tensor.isDynamicDim(d + dropped) && view.getDimSize(d) > tensor.getDimSize(d + dropped))
      return emitOpError() << "dimension " << d << " of the view holds " << view.getDimSize(d) << " elements, more than the tensor's "
                           << tensor.getDimSize(d + dropped);
  return success();
}

LogicalResult TaskOp::verify() {
  if (std::optional<ArrayAttr> access = getAccess()) {
    if (access->size() != getArguments().size())
      return emitOpError() << "has " << access->size() << " access modes for " << getArguments().size() << " arguments";
    for (auto [index, mode] : llvm::enumerate(access->getAsValueRange<StringAttr>()))
      if (!llvm::is_contained({"in", "out", "inout", "none"}, mode))
        return emitOpError() << "access mode of argument #" << index << " must be in, out, inout or none; got '" << mode << "'";
  }
  return success();
}

LogicalResult TaskOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto kernel = symbolTable.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!kernel)
    return emitOpError() << "calls '" << getCallee() << "', which is not a function of the module";
  ArrayRef<Type> parameters = kernel.getFunctionType().getInputs();
  // Trailing arguments the target supplies (`htp.implicit`: a chip's communication context) are
  // not the task's to pass.
  size_t implicit = 0;
  while (implicit < parameters.size() && kernel.getArgAttr(parameters.size() - 1 - implicit, "htp.implicit"))
    ++implicit;
  parameters = parameters.drop_back(implicit);
  if (parameters.size() != getArguments().size()) {
    InFlightDiagnostic error = emitOpError() << "passes " << getArguments().size() << " arguments to '" << getCallee() << "', which takes "
                                             << parameters.size();
    if (implicit)
      error << " (and " << implicit << " the target supplies)";
    return error;
  }
  for (auto [index, pair] : llvm::enumerate(llvm::zip(getArguments().getTypes(), parameters))) {
    auto [given, expected] = pair;
    auto view = dyn_cast<MemRefType>(given);
    auto parameter = dyn_cast<MemRefType>(expected);
    if (!view || !parameter) {
      if (given != expected)
        return emitOpError() << "argument #" << index << " of '" << getCallee() << "' is " << expected << ", got " << given;
      continue;
    }
    if (view.getElementType() != parameter.getElementType())
      return emitOpError() << "argument #" << index << " of '" << getCallee() << "' holds " << parameter.getElementType() << ", the view holds "
                           << view.getElementType();
    if (view.getRank() != parameter.getRank())
      return emitOpError() << "argument #" << index << " of '" << getCallee() << "' is a rank-" << parameter.getRank() << " tensor, the view has rank "
                           << view.getRank();
    for (int64_t d = 0; d < view.getRank(); ++d)
      if (!view.isDynamicDim(d) && !parameter.isDynamicDim(d) && view.getDimSize(d) != parameter.getDimSize(d))
        return emitOpError() << "argument #" << index << " of '" << getCallee() << "' has " << parameter.getDimSize(d) << " elements in dimension " << d
                             << ", the view " << view.getDimSize(d);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Pipes
//===----------------------------------------------------------------------===//

/// The process `op` is in, if any.
static ProcessOp processOf(Operation *op) {
  return op->getParentOfType<ProcessOp>();
}

LogicalResult ChannelOp::verify() {
  MemRefType ring = getRing().getType();
  if (ring.getRank() < 2)
    return emitOpError() << "is a ring of slots: its type has the depth first, then the slot's shape; got " << ring;
  if (getDepth() < 1)
    return emitOpError() << "needs a depth of at least 1, got " << getDepth();
  for (int64_t d = 1; d < ring.getRank(); ++d)
    if (ring.getDimSize(d) < 1)
      return emitOpError() << "has an empty slot (" << ring << ")";
  // (No parent yet while the front end builds the workload's body.)
  if (Operation *parent = (*this)->getParentOp(); parent && !isa<func::FuncOp>(parent))
    return emitOpError() << "belongs at the top of the workload (one ring per call), not inside a loop or block";
  // One process fills the channel and another reads it (CSP's rule: one
  // sender and one receiver per channel), in program order so that the
  // second process at an end is the one named.
  Operation *workload = (*this)->getParentOp();
  if (!workload)
    return success();
  ProcessOp producer, consumer;
  WalkResult walked = workload->walk<WalkOrder::PreOrder>([&](Operation *user) {
    if (isa<ViewOp>(user) || !llvm::is_contained(user->getOperands(), getRing()))
      return WalkResult::advance(); // a view: after wsp-lower-pipes
    bool produces = isa<ProduceOp>(user);
    if (!produces && !isa<ConsumeOp>(user)) {
      user->emitOpError() << "uses the channel '" << getName() << "': only wsp.produce, wsp.send and wsp.consume take a channel";
      return WalkResult::interrupt();
    }
    ProcessOp process = processOf(user);
    ProcessOp &end = produces ? producer : consumer;
    if (end && process != end) {
      user->emitOpError() << (produces ? "fills" : "reads") << " the channel '" << getName() << "' from the process '"
                          << process.getName() << "', but the process '" << end.getName() << "' already does: a channel has one "
                          << (produces ? "producing" : "consuming") << " process";
      return WalkResult::interrupt();
    }
    end = process;
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  if (producer && producer == consumer)
    return emitOpError() << "is filled and read by the same process '" << producer.getName() << "': a channel connects two processes";
  return success();
}

LogicalResult PipeOp::verify() {
  // (Tasks between the processes are refused by wsp-lower-pipes, at their line.)
  if (getBody().getOps<ProcessOp>().empty())
    return emitOpError() << "holds no wsp.process";
  return success();
}

/// Whether `op` is in a function but in no process (an op the front end is
/// still building, not yet in a function, is not).
static bool outsideProcess(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp()) {
    if (isa<ProcessOp>(parent))
      return false;
    if (isa<func::FuncOp>(parent))
      return true;
  }
  return false;
}

/// A produce or consume: inside a process, on a channel, its body's one
/// argument a slot of the channel.
static LogicalResult verifySlot(Operation *op, Value channel, Region &body) {
  if (outsideProcess(op))
    return op->emitOpError() << "belongs in a wsp.process of a wsp.pipe";
  if (!channel.getDefiningOp<ChannelOp>())
    return op->emitOpError() << "takes a channel (wsp.channel)";
  auto ring = cast<MemRefType>(channel.getType());
  auto slot = MemRefType::get(ring.getShape().drop_front(), ring.getElementType());
  if (body.getNumArguments() != 1 || body.getArgument(0).getType() != slot)
    return op->emitOpError() << "body takes one argument, the slot " << slot;
  return success();
}

LogicalResult ProduceOp::verify() {
  return verifySlot(*this, getChannel(), getBody());
}

LogicalResult ConsumeOp::verify() {
  return verifySlot(*this, getChannel(), getBody());
}
