//===- LayoutCAPI.cpp - C API of the layout dialect ----------------------===//

#include "layout/LayoutCAPI.h"
#include "layout/LayoutDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"

using namespace mlir;
using namespace htp::layout;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Layout, layout, LayoutDialect)

bool htpAttributeIsAAxeLayout(MlirAttribute attr) {
  return isa<AxeAttr>(unwrap(attr));
}

MlirAttribute htpAxeLayoutGet(MlirContext context, intptr_t rank,
                              const int64_t *partsPerDim,
                              const int64_t *extents, const MlirStringRef *axes,
                              const int64_t *strides, intptr_t numReplicas,
                              const MlirStringRef *replicas, int64_t offset) {
  MLIRContext *ctx = unwrap(context);
  ArrayRef<int64_t> parts(partsPerDim, rank);
  int64_t total = 0;
  for (int64_t count : parts)
    total += count;
  SmallVector<StringAttr> axisNames, replicaNames;
  for (int64_t i = 0; i < total; ++i)
    axisNames.push_back(StringAttr::get(ctx, unwrap(axes[i])));
  for (intptr_t i = 0; i < numReplicas; ++i)
    replicaNames.push_back(StringAttr::get(ctx, unwrap(replicas[i])));
  return wrap(getCheckedAxe(
      [ctx] { return emitError(UnknownLoc::get(ctx)); }, ctx, parts,
      ArrayRef<int64_t>(extents, total), axisNames,
      ArrayRef<int64_t>(strides, total), replicaNames, offset));
}

intptr_t htpAxeLayoutGetRank(MlirAttribute attr) {
  return cast<AxeAttr>(unwrap(attr)).getRank();
}

intptr_t htpAxeLayoutGetNumParts(MlirAttribute attr, intptr_t dim) {
  return cast<AxeAttr>(unwrap(attr)).getPartsPerDim()[dim];
}

void htpAxeLayoutGetPart(MlirAttribute attr, intptr_t dim, intptr_t part,
                         int64_t *extent, MlirStringRef *axis,
                         int64_t *stride) {
  auto layout = cast<AxeAttr>(unwrap(attr));
  unsigned index = layout.getFirstPart(dim) + part;
  *extent = layout.getExtents()[index];
  *axis = wrap(layout.getAxes()[index].getValue());
  *stride = layout.getStrides()[index];
}

intptr_t htpAxeLayoutGetNumReplicas(MlirAttribute attr) {
  return cast<AxeAttr>(unwrap(attr)).getReplicas().size();
}

MlirStringRef htpAxeLayoutGetReplica(MlirAttribute attr, intptr_t index) {
  return wrap(cast<AxeAttr>(unwrap(attr)).getReplicas()[index].getValue());
}

int64_t htpAxeLayoutGetOffset(MlirAttribute attr) {
  return cast<AxeAttr>(unwrap(attr)).getOffset();
}
