//===- PTOAttrs.td - HTP pto dialect attributes ------------*- tablegen -*-===//

#ifndef HTP_PTO_ATTRS
#define HTP_PTO_ATTRS

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "PTODialect.td"
include "PTOEnums.td"

/// `#pto<pipe mte2>`; ops print just the keyword.
def PTO_PipeAttr : EnumAttr<PTO_Dialect, PTO_Pipe, "pipe">;

#endif // HTP_PTO_ATTRS
