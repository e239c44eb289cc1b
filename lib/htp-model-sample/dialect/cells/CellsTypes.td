//===- CellsTypes.td - the sample model's types -------------*- tablegen -*-===//

#ifndef HTP_CELLS_TYPES
#define HTP_CELLS_TYPES

include "CellsDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Cells_CellType : TypeDef<Cells_Dialect, "Cell"> {
  let mnemonic = "cell";
  let summary = "A mutable cell holding one scalar";
  let parameters = (ins "::mlir::Type":$element);
  let assemblyFormat = "`<` $element `>`";
}

#endif // HTP_CELLS_TYPES
