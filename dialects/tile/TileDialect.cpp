//===- TileDialect.cpp - tile dialect registration and constants ---------===//

#include "tile/TileDialect.h"

using namespace mlir;
using namespace htp::tile;

#include "tile/TileDialect.cpp.inc"

void TileDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "tile/TileOps.cpp.inc"
      >();
}

/// Folders return a scalar attribute for a splat tile (see ConstantOp::fold);
/// scalars become arith constants.
Operation *TileDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed)
    return nullptr;
  if (auto tileType = dyn_cast<TileType>(type)) {
    if (typed.getType() != tileType.getElementType())
      return nullptr;
    return ConstantOp::create(builder, loc, tileType, typed);
  }
  if (typed.getType() == type)
    return arith::ConstantOp::create(builder, loc, type, typed);
  return nullptr;
}
