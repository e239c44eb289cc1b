//===- CellsDialect.td - the sample model's dialect ---------*- tablegen -*-===//
//
// The dialect of `htp-model-sample`, the smallest programming model built
// only through HTP's extension API (docs/architecture.md, "How to add a
// programming model"): mutable scalar cells a model function creates,
// passes to the functions it calls, writes and reads.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_CELLS_DIALECT
#define HTP_CELLS_DIALECT

include "mlir/IR/OpBase.td"

def Cells_Dialect : Dialect {
  let name = "cells";
  let cppNamespace = "::htp::cells";
  let summary = "Mutable scalar cells (the sample programming model)";
  let useDefaultTypePrinterParser = 1;
}

#endif // HTP_CELLS_DIALECT
