//===- LayoutDialect.h - HTP layout dialect ---------------------*- C++ -*-===//
//
// The one header C++ users include for the layout dialect: the dialect and
// its attributes, generated from the .td files beside it.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_DIALECT_LAYOUT_LAYOUTDIALECT_H
#define HTP_DIALECT_LAYOUT_LAYOUTDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "layout/LayoutDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "layout/LayoutAttrs.h.inc"

namespace htp::layout {
/// `AxeAttr::getChecked`, callable where the attribute's storage class is
/// not visible (it is defined in the generated LayoutAttrs.cpp.inc).
AxeAttr getCheckedAxe(mlir::function_ref<mlir::InFlightDiagnostic()> emitError,
                      mlir::MLIRContext *context,
                      llvm::ArrayRef<int64_t> partsPerDim,
                      llvm::ArrayRef<int64_t> extents,
                      llvm::ArrayRef<mlir::StringAttr> axes,
                      llvm::ArrayRef<int64_t> strides,
                      llvm::ArrayRef<mlir::StringAttr> replicas, int64_t offset);
} // namespace htp::layout

#endif // HTP_DIALECT_LAYOUT_LAYOUTDIALECT_H
