//===- WSPTypes.td - iteration-space axes -------------------*- tablegen -*-===//

#ifndef HTP_WSP_TYPES
#define HTP_WSP_TYPES

include "WSPDialect.td"
include "mlir/IR/AttrTypeBase.td"

class WSP_Type<string name, string typeMnemonic> : TypeDef<WSP_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def WSP_DenseAxisType : WSP_Type<"DenseAxis", "dense_axis"> {
  let summary = "An axis of n elements (n known now or at run time); a loop over it binds one index";
}

def WSP_RaggedAxisType : WSP_Type<"RaggedAxis", "ragged_axis"> {
  let summary = "n elements, element i of lengths[i] positions; a loop over it binds (i, position)";
}

def WSP_SparseAxisType : WSP_Type<"SparseAxis", "sparse_axis"> {
  let summary = "CSR: row i holds the columns indices[indptr[i] .. indptr[i + 1]]; a loop over it binds (row, column)";
}

def WSP_AnyAxis : AnyTypeOf<[WSP_DenseAxisType, WSP_RaggedAxisType, WSP_SparseAxisType], "an iteration-space axis">;

#endif // HTP_WSP_TYPES
