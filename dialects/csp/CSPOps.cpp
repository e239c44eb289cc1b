//===- CSPOps.cpp - process and channel verifiers --------------------------===//
//
// Exists because ODS declares op verifiers in C++. The rules a single op
// can see are here; the protocol of a whole program (how often each
// process sends and receives, whether the network can block) is the pass
// `csp-verify-protocol`'s.
//
//===----------------------------------------------------------------------===//

#include "csp/CSPDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace htp::csp;

#define GET_OP_CLASSES
#include "csp/CSPOps.cpp.inc"

/// The process an op belongs to, if any.
static ProcessOp processOf(Operation *op) {
  return op->getParentOfType<ProcessOp>();
}

/// Whether `op` is directly in a function's body (or in a body the front
/// end is still building, not yet attached to its function).
static bool atTop(Operation *op) {
  Operation *parent = op->getParentOp();
  return !parent || isa<func::FuncOp>(parent);
}

/// Whether `op`'s ancestors reach a function (a body being built by the
/// front end may not be attached yet; it is verified again once it is).
static bool attachedToFunction(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent; parent = parent->getParentOp())
    if (isa<func::FuncOp>(parent))
      return true;
  return false;
}

/// The name diagnostics give a channel: its `csp.channel`'s, or "the channel".
static std::string nameOf(Value channel) {
  if (auto made = channel.getDefiningOp<ChannelOp>())
    return ("'" + made.getName() + "'").str();
  return "the channel";
}

/// The rules of a channel operand at `op`: inside a process, an index
/// when the channel is an array of several (an array of one may take one).
static LogicalResult verifyEndpoint(Operation *op, Value channel, Value index) {
  if (!processOf(op) && attachedToFunction(op))
    return op->emitOpError() << "must be inside a csp.process (only processes talk on channels)";
  int64_t count = cast<ChannelType>(channel.getType()).getCount();
  if (count > 1 && !index)
    return op->emitOpError() << "uses " << nameOf(channel) << ", an array of " << count << " channels, without an index (at=)";
  return success();
}

LogicalResult ChannelOp::verify() {
  if (getDepth() < 1)
    return emitOpError() << "depth must be at least 1 (a channel holds at least one element), got " << getDepth();
  if (!atTop(*this))
    return emitOpError() << "must be made at the top of the program, not inside a process or a loop";

  // One sending and one receiving process per channel (per channel of an
  // array: checked per replica by csp-verify-protocol).
  ProcessOp sender, receiver;
  // In program order (a use list is not), so the later process is blamed.
  SmallVector<Operation *> users;
  if (Operation *program = (*this)->getParentOp())
    program->walk([&](Operation *user) {
      if (llvm::is_contained(user->getOperands(), getChannel()))
        users.push_back(user);
    });
  for (Operation *user : users) {
    ProcessOp process = processOf(user);
    if (!process)
      continue;
    bool sends = isa<SendOp>(user);
    ProcessOp &seen = sends ? sender : receiver;
    const char *role = sends ? "sends on" : "receives from";
    if (seen && seen != process)
      return user->emitOpError() << "process '" << process.getName() << "' " << role << " channel '" << getName() << "', which process '"
                                 << seen.getName() << "' already " << (sends ? "sends on" : "receives from")
                                 << ": a channel has one sending and one receiving process";
    if (process.getReplicas() > 1 && getChannel().getType().getCount() == 1)
      return user->emitOpError() << "the " << process.getReplicas() << " replicas of process '" << process.getName() << "' all "
                                 << (sends ? "send on" : "receive from")
                                 << " channel '" << getName() << "': give each replica its own channel (an array of "
                                 << process.getReplicas() << ", indexed by the replica)";
    // Elements of an array may have different processes at their ends.
    if (getChannel().getType().getCount() == 1)
      seen = process;
  }
  return success();
}

LogicalResult ProcessOp::verify() {
  if (getReplicas() < 1)
    return emitOpError() << "replicas must be at least 1, got " << getReplicas();
  if (!atTop(*this))
    return emitOpError() << "must be at the top of the program (processes are not nested in loops or other processes)";
  Block &body = getBody().front();
  if (body.getNumArguments() > 1 || (getReplicas() > 1 && body.getNumArguments() != 1))
    return emitOpError() << "body takes the replica index as its one argument" << (getReplicas() > 1 ? "" : ", or no argument");
  if (body.getNumArguments() == 1 && !body.getArgument(0).getType().isIndex())
    return emitOpError() << "replica index must be an index, got " << body.getArgument(0).getType();
  if (!cast<YieldOp>(body.getTerminator()).getValues().empty())
    return emitOpError() << "body yields nothing (a process talks through channels)";
  return success();
}

LogicalResult SendOp::verify() {
  Type element = getChannel().getType().getElement();
  if (getValue().getType() != element)
    return emitOpError() << "sends a " << getValue().getType() << " on " << nameOf(getChannel()) << ", a channel of " << element;
  return verifyEndpoint(*this, getChannel(), getIndex());
}

LogicalResult RecvOp::verify() {
  Type element = getChannel().getType().getElement();
  if (getValue().getType() != element)
    return emitOpError() << "receives a " << getValue().getType() << " from " << nameOf(getChannel()) << ", a channel of " << element;
  return verifyEndpoint(*this, getChannel(), getIndex());
}

LogicalResult ConsumeOp::verify() {
  Type element = getChannel().getType().getElement();
  Block &body = getBody().front();
  if (body.getNumArguments() != getInits().size() + 1)
    return emitOpError() << "body takes the element and " << getInits().size() << " carried values, got " << body.getNumArguments() << " arguments";
  if (body.getArgument(0).getType() != element)
    return emitOpError() << "body's element is a " << body.getArgument(0).getType() << ", the channel carries " << element;
  if (getResults().size() != getInits().size())
    return emitOpError() << "has " << getResults().size() << " results for " << getInits().size() << " carried values";
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().size() != getInits().size())
    return emitOpError() << "body yields " << yield.getValues().size() << " values for " << getInits().size() << " carried values";
  for (auto [index, init] : llvm::enumerate(getInits())) {
    Type type = init.getType();
    if (body.getArgument(index + 1).getType() != type || getResult(index).getType() != type || yield.getValues()[index].getType() != type)
      return emitOpError() << "carried value #" << index << " is a " << type << " on entry; its argument, yield and result must be too";
  }
  return verifyEndpoint(*this, getChannel(), getIndex());
}
