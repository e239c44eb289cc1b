//===- TileCAPI.cpp - C API of the tile dialect --------------------------===//

#include "tile/TileCAPI.h"
#include "tile/TileDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

using namespace htp::tile;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tile, tile, TileDialect)

bool htpTypeIsATile(MlirType type) { return mlir::isa<TileType>(unwrap(type)); }

MlirType htpTileTypeGet(MlirContext context, int64_t rows, int64_t cols,
                        MlirType elementType) {
  mlir::MLIRContext *ctx = unwrap(context);
  return wrap(TileType::getChecked(
      [ctx] { return mlir::emitError(mlir::UnknownLoc::get(ctx)); }, ctx,
      llvm::ArrayRef<int64_t>{rows, cols}, unwrap(elementType),
      llvm::ArrayRef<int64_t>{}));
}

int64_t htpTileTypeGetRows(MlirType type) {
  return mlir::cast<TileType>(unwrap(type)).getRows();
}

int64_t htpTileTypeGetCols(MlirType type) {
  return mlir::cast<TileType>(unwrap(type)).getCols();
}

MlirType htpTileTypeGetElementType(MlirType type) {
  return wrap(mlir::cast<TileType>(unwrap(type)).getElementType());
}

int64_t htpTileTypeGetValidDim(MlirType type, unsigned dim) {
  return mlir::cast<TileType>(unwrap(type)).getValidDim(dim);
}

int64_t htpTileTypeGetSizeInBytes(MlirType type) {
  return mlir::cast<TileType>(unwrap(type)).getSizeInBytes();
}

MlirAttribute htpTileTypeGetLayout(MlirType type) {
  return wrap(mlir::cast<TileType>(unwrap(type)).getLayout());
}

MlirType htpTileTypeWithLayout(MlirType type, MlirAttribute layout) {
  auto tile = mlir::cast<TileType>(unwrap(type));
  mlir::MLIRContext *ctx = tile.getContext();
  auto axe = mlir::dyn_cast_or_null<htp::layout::AxeAttr>(unwrap(layout));
  if (!mlirAttributeIsNull(layout) && !axe) {
    mlir::emitError(mlir::UnknownLoc::get(ctx)) << "a tile's layout is a #layout.axe";
    return {nullptr};
  }
  return wrap(TileType::getChecked(
      [ctx] { return mlir::emitError(mlir::UnknownLoc::get(ctx)); }, ctx,
      tile.getShape(), tile.getElementType(), tile.getValidShape(), axe));
}
