//===- LayoutOps.td - HTP layout dialect ops ---------------*- tablegen -*-===//
//
// The layout dialect has attributes only; this file exists because every HTP
// dialect has an Ops.td (the build's convention, docs/architecture.md).
//
//===----------------------------------------------------------------------===//

#ifndef HTP_LAYOUT_OPS
#define HTP_LAYOUT_OPS

include "LayoutDialect.td"

#endif // HTP_LAYOUT_OPS
