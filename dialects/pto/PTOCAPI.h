/*===- PTOCAPI.h - C API of the pto dialect -----------------------*- C -*-===*\
|* What Rust (and any C client) needs: the dialect handle and queries of     *|
|* !pto.tile and !pto.gtensor. Enums cross as their ODS values:              *|
|*   location vec 0, mat 1, left 2, right 3, acc 4, bias 5;                  *|
|*   blayout row_major 0, col_major 1; slayout none 0, row_major 1,          *|
|*   col_major 2; pad null 0, zero 1, max 2, min 3; layout nd 0, dn 1, nz 2. *|
|* Implemented in PTOCAPI.cpp.                                               *|
\*===----------------------------------------------------------------------===*/

#ifndef HTP_DIALECT_PTO_PTOCAPI_H
#define HTP_DIALECT_PTO_PTOCAPI_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(PTO, pto);

/// Whether `type` is a `!pto.tile`.
MLIR_CAPI_EXPORTED bool htpTypeIsAPTOTile(MlirType type);

/// `!pto.tile<...>` with every parameter; a valid size equal to the
/// dimension means "whole dimension", `mlirShapedTypeGetDynamicSize()` means
/// `?`. A null type (and a diagnostic on the context) when invalid.
MLIR_CAPI_EXPORTED MlirType htpPTOTileTypeGet(
    MlirContext context, int32_t location, int64_t rows, int64_t cols,
    MlirType elementType, int64_t validRows, int64_t validCols,
    int32_t blayout, int32_t slayout, int64_t fractal, int32_t pad);

MLIR_CAPI_EXPORTED int32_t htpPTOTileTypeGetLocation(MlirType type);
MLIR_CAPI_EXPORTED int64_t htpPTOTileTypeGetRows(MlirType type);
MLIR_CAPI_EXPORTED int64_t htpPTOTileTypeGetCols(MlirType type);
MLIR_CAPI_EXPORTED MlirType htpPTOTileTypeGetElementType(MlirType type);
/// The valid size of dimension `dim` (0 rows, 1 columns): static, or
/// `mlirShapedTypeGetDynamicSize()` for `?`.
MLIR_CAPI_EXPORTED int64_t htpPTOTileTypeGetValidDim(MlirType type,
                                                     unsigned dim);
MLIR_CAPI_EXPORTED int32_t htpPTOTileTypeGetBLayout(MlirType type);
MLIR_CAPI_EXPORTED int32_t htpPTOTileTypeGetSLayout(MlirType type);
MLIR_CAPI_EXPORTED int64_t htpPTOTileTypeGetFractal(MlirType type);
MLIR_CAPI_EXPORTED int32_t htpPTOTileTypeGetPad(MlirType type);
/// rows * cols * sizeof(element).
MLIR_CAPI_EXPORTED int64_t htpPTOTileTypeGetSizeInBytes(MlirType type);
/// The A2/A3 bytes HTP may use in the buffer of `location` (UB: 188416).
MLIR_CAPI_EXPORTED int64_t htpPTOGetUsableCapacity(int32_t location);

/// Whether `type` is a `!pto.gtensor`.
MLIR_CAPI_EXPORTED bool htpTypeIsAPTOGlobalTensor(MlirType type);
/// `!pto.gtensor<rows x cols x elementType, layout>`; a dimension may be
/// `mlirShapedTypeGetDynamicSize()`. Null when invalid.
MLIR_CAPI_EXPORTED MlirType htpPTOGlobalTensorTypeGet(MlirContext context,
                                                      int64_t rows,
                                                      int64_t cols,
                                                      MlirType elementType,
                                                      int32_t layout);
MLIR_CAPI_EXPORTED int64_t htpPTOGlobalTensorTypeGetDim(MlirType type,
                                                        unsigned dim);
MLIR_CAPI_EXPORTED MlirType htpPTOGlobalTensorTypeGetElementType(MlirType type);
MLIR_CAPI_EXPORTED int32_t htpPTOGlobalTensorTypeGetLayout(MlirType type);

#ifdef __cplusplus
}
#endif

#endif // HTP_DIALECT_PTO_PTOCAPI_H
