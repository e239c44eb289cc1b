/*===- TileCAPI.h - C API of the tile dialect ---------------------*- C -*-===*\
|* What Rust (and any C client) needs: the dialect handle and tile type       *|
|* queries. Implemented in TileCAPI.cpp.                                      *|
\*===----------------------------------------------------------------------===*/

#ifndef HTP_DIALECT_TILE_TILECAPI_H
#define HTP_DIALECT_TILE_TILECAPI_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tile, tile);

/// Whether `type` is a `!tile.tile`.
MLIR_CAPI_EXPORTED bool htpTypeIsATile(MlirType type);

/// `!tile.tile<rows x cols x elementType>` with no valid region; a null type
/// (and a diagnostic on the context) when the arguments are invalid.
MLIR_CAPI_EXPORTED MlirType htpTileTypeGet(MlirContext context, int64_t rows,
                                           int64_t cols, MlirType elementType);

MLIR_CAPI_EXPORTED int64_t htpTileTypeGetRows(MlirType type);
MLIR_CAPI_EXPORTED int64_t htpTileTypeGetCols(MlirType type);
MLIR_CAPI_EXPORTED MlirType htpTileTypeGetElementType(MlirType type);
/// The valid size of dimension `dim` (0 rows, 1 columns): the static size,
/// or `mlirShapedTypeGetDynamicSize()` for `?`. A tile with no valid region
/// is valid everywhere, so this is then the dimension itself.
MLIR_CAPI_EXPORTED int64_t htpTileTypeGetValidDim(MlirType type, unsigned dim);
/// The tile's layout (`#layout.axe`), or a null attribute when it has none.
MLIR_CAPI_EXPORTED MlirAttribute htpTileTypeGetLayout(MlirType type);
/// The same tile with `layout` (a `#layout.axe`, or null for none); a null
/// type (and a diagnostic on the context) when the layout does not fit.
MLIR_CAPI_EXPORTED MlirType htpTileTypeWithLayout(MlirType type,
                                                  MlirAttribute layout);
/// Storage of the whole tile in bytes (i1 elements bit-packed).
MLIR_CAPI_EXPORTED int64_t htpTileTypeGetSizeInBytes(MlirType type);

#ifdef __cplusplus
}
#endif

#endif // HTP_DIALECT_TILE_TILECAPI_H
