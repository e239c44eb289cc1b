//===- CellsOps.td - the sample model's ops -----------------*- tablegen -*-===//

#ifndef HTP_CELLS_OPS
#define HTP_CELLS_OPS

include "CellsDialect.td"
include "CellsTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Cells_Op<string mnemonic, list<Trait> traits = []> : Op<Cells_Dialect, mnemonic, traits>;

def Cells_NewOp : Cells_Op<"new", [
    TypesMatchWith<"the cell holds the initial value's type", "init", "cell", "::htp::cells::CellType::get($_self.getContext(), $_self)">]> {
  let summary = "A new cell holding `init`";
  let arguments = (ins AnyTypeOf<[AnyFloat, AnySignlessInteger, Index]>:$init);
  let results = (outs Cells_CellType:$cell);
  let assemblyFormat = "$init attr-dict `:` type($init)";
}

def Cells_PutOp : Cells_Op<"put", [
    TypesMatchWith<"the value has the cell's element type", "cell", "value", "::llvm::cast<::htp::cells::CellType>($_self).getElement()">]> {
  let summary = "Writes `value` into `cell`";
  let arguments = (ins Cells_CellType:$cell, AnyType:$value);
  let assemblyFormat = "$cell `,` $value attr-dict `:` type($cell)";
}

def Cells_GetOp : Cells_Op<"get", [
    TypesMatchWith<"the result has the cell's element type", "cell", "value", "::llvm::cast<::htp::cells::CellType>($_self).getElement()">]> {
  let summary = "The value `cell` holds";
  let arguments = (ins Cells_CellType:$cell);
  let results = (outs AnyType:$value);
  let assemblyFormat = "$cell attr-dict `:` type($cell)";
}

#endif // HTP_CELLS_OPS
