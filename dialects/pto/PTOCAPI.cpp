//===- PTOCAPI.cpp - C API of the pto dialect ----------------------------===//

#include "pto/PTOCAPI.h"
#include "pto/PTODialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"

using namespace htp::pto;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(PTO, pto, PTODialect)

static TileType tile(MlirType type) { return mlir::cast<TileType>(unwrap(type)); }

static GlobalTensorType gtensor(MlirType type) {
  return mlir::cast<GlobalTensorType>(unwrap(type));
}

bool htpTypeIsAPTOTile(MlirType type) {
  return mlir::isa<TileType>(unwrap(type));
}

MlirType htpPTOTileTypeGet(MlirContext context, int32_t location, int64_t rows,
                           int64_t cols, MlirType elementType,
                           int64_t validRows, int64_t validCols,
                           int32_t blayout, int32_t slayout, int64_t fractal,
                           int32_t pad) {
  mlir::MLIRContext *ctx = unwrap(context);
  auto emitError = [ctx] { return mlir::emitError(mlir::UnknownLoc::get(ctx)); };
  auto loc = symbolizeTileLocation(location);
  auto b = symbolizeBLayout(blayout);
  auto s = symbolizeSLayout(slayout);
  auto p = symbolizePadValue(pad);
  if (!loc || !b || !s || !p) {
    emitError() << "invalid pto tile enum value";
    return MlirType{nullptr};
  }
  llvm::SmallVector<int64_t, 2> valid;
  if (validRows != rows || validCols != cols)
    valid = {validRows, validCols};
  return wrap(TileType::getChecked(emitError, ctx, *loc,
                                   llvm::ArrayRef<int64_t>{rows, cols},
                                   unwrap(elementType),
                                   llvm::ArrayRef<int64_t>(valid), *b, *s,
                                   fractal, *p));
}

int32_t htpPTOTileTypeGetLocation(MlirType type) {
  return static_cast<int32_t>(tile(type).getLocation());
}
int64_t htpPTOTileTypeGetRows(MlirType type) { return tile(type).getRows(); }
int64_t htpPTOTileTypeGetCols(MlirType type) { return tile(type).getCols(); }
MlirType htpPTOTileTypeGetElementType(MlirType type) {
  return wrap(tile(type).getElementType());
}
int64_t htpPTOTileTypeGetValidDim(MlirType type, unsigned dim) {
  return tile(type).getValidDim(dim);
}
int32_t htpPTOTileTypeGetBLayout(MlirType type) {
  return static_cast<int32_t>(tile(type).getBlayout());
}
int32_t htpPTOTileTypeGetSLayout(MlirType type) {
  return static_cast<int32_t>(tile(type).getSlayout());
}
int64_t htpPTOTileTypeGetFractal(MlirType type) {
  return tile(type).getFractal();
}
int32_t htpPTOTileTypeGetPad(MlirType type) {
  return static_cast<int32_t>(tile(type).getPad());
}
int64_t htpPTOTileTypeGetSizeInBytes(MlirType type) {
  return tile(type).getSizeInBytes();
}
int64_t htpPTOGetUsableCapacity(int32_t location) {
  auto loc = symbolizeTileLocation(location);
  return loc ? getUsableCapacity(*loc) : 0;
}

bool htpTypeIsAPTOGlobalTensor(MlirType type) {
  return mlir::isa<GlobalTensorType>(unwrap(type));
}

MlirType htpPTOGlobalTensorTypeGet(MlirContext context, int64_t rows,
                                   int64_t cols, MlirType elementType,
                                   int32_t layout) {
  mlir::MLIRContext *ctx = unwrap(context);
  auto emitError = [ctx] { return mlir::emitError(mlir::UnknownLoc::get(ctx)); };
  auto l = symbolizeGTLayout(layout);
  if (!l) {
    emitError() << "invalid pto gtensor layout " << layout;
    return MlirType{nullptr};
  }
  return wrap(GlobalTensorType::getChecked(
      emitError, ctx, llvm::ArrayRef<int64_t>{rows, cols}, unwrap(elementType),
      *l));
}

int64_t htpPTOGlobalTensorTypeGetDim(MlirType type, unsigned dim) {
  return gtensor(type).getShape()[dim];
}
MlirType htpPTOGlobalTensorTypeGetElementType(MlirType type) {
  return wrap(gtensor(type).getElementType());
}
int32_t htpPTOGlobalTensorTypeGetLayout(MlirType type) {
  return static_cast<int32_t>(gtensor(type).getLayout());
}
