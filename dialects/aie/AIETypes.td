//===- AIETypes.td - HTP aie dialect types -----------------*- tablegen -*-===//

#ifndef HTP_AIE_TYPES
#define HTP_AIE_TYPES

include "mlir/IR/AttrTypeBase.td"
include "AIEDialect.td"

def AIE_ObjectFifoType : TypeDef<AIE_Dialect, "AIEObjectFifo"> {
  let mnemonic = "objectfifo";
  let summary = "The element type of an object FIFO";
  let description = [{
    `!aie.objectfifo<memref<...>>`: each object of the FIFO is a buffer of
    this (static) memref type.
  }];
  let parameters = (ins "::mlir::MemRefType":$memref);
  let assemblyFormat = "`<` $memref `>`";
}

def AIE_ObjectFifoSubviewType : TypeDef<AIE_Dialect, "AIEObjectFifoSubview"> {
  let mnemonic = "objectfifosubview";
  let summary = "The objects one acquire holds";
  let description = [{
    `!aie.objectfifosubview<memref<...>>`: what `aie.objectfifo.acquire`
    returns; `aie.objectfifo.subview.access` takes one object out of it.
  }];
  let parameters = (ins "::mlir::MemRefType":$memref);
  let assemblyFormat = "`<` $memref `>`";
}

#endif // HTP_AIE_TYPES
