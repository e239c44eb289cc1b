/*===- LayoutCAPI.h - C API of the layout dialect -----------------*- C -*-===*\
|* What Rust (and any C client) needs: the dialect handle, building an Axe     *|
|* layout and reading its parts. Implemented in LayoutCAPI.cpp.               *|
\*===----------------------------------------------------------------------===*/

#ifndef HTP_DIALECT_LAYOUT_LAYOUTCAPI_H
#define HTP_DIALECT_LAYOUT_LAYOUTCAPI_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Layout, layout);

/// Whether `attr` is a `#layout.axe`.
MLIR_CAPI_EXPORTED bool htpAttributeIsAAxeLayout(MlirAttribute attr);

/// `#layout.axe`: `rank` dimensions of `partsPerDim[d]` parts each; part `p`
/// (over all dimensions, outermost first) has `extents[p]`, `axes[p]`,
/// `strides[p]` (`mlirShapedTypeGetDynamicSize()` for `?`). A null attribute
/// (and a diagnostic on the context) when they are not a valid layout.
MLIR_CAPI_EXPORTED MlirAttribute htpAxeLayoutGet(
    MlirContext context, intptr_t rank, const int64_t *partsPerDim,
    const int64_t *extents, const MlirStringRef *axes, const int64_t *strides,
    intptr_t numReplicas, const MlirStringRef *replicas, int64_t offset);

MLIR_CAPI_EXPORTED intptr_t htpAxeLayoutGetRank(MlirAttribute attr);
MLIR_CAPI_EXPORTED intptr_t htpAxeLayoutGetNumParts(MlirAttribute attr,
                                                    intptr_t dim);
/// Part `part` of dimension `dim`: its extent, axis and stride.
MLIR_CAPI_EXPORTED void htpAxeLayoutGetPart(MlirAttribute attr, intptr_t dim,
                                            intptr_t part, int64_t *extent,
                                            MlirStringRef *axis,
                                            int64_t *stride);
MLIR_CAPI_EXPORTED intptr_t htpAxeLayoutGetNumReplicas(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirStringRef htpAxeLayoutGetReplica(MlirAttribute attr,
                                                        intptr_t index);
MLIR_CAPI_EXPORTED int64_t htpAxeLayoutGetOffset(MlirAttribute attr);

#ifdef __cplusplus
}
#endif

#endif // HTP_DIALECT_LAYOUT_LAYOUTCAPI_H
