//===- AIEXDialect.td - HTP aiex dialect definition --------*- tablegen -*-===//
//
// mlir-aie's `aiex` ops HTP emits in an `aie.runtime_sequence`: the host's
// DMAs through the shim tiles, in mlir-aie's syntax at the pin of
// docs/targets/aie-contract.md.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_AIEX_DIALECT
#define HTP_AIEX_DIALECT

include "mlir/IR/OpBase.td"

def AIEX_Dialect : Dialect {
  let name = "aiex";
  let cppNamespace = "::htp::aiex";
  let summary = "Host-side NPU instructions of mlir-aie's aiex dialect.";
  let description = [{
    `aiex.npu.dma_memcpy_nd` moves a 4-D strided window of a host buffer
    through the shim DMA that serves an object FIFO, `aiex.npu.dma_wait`
    waits for one to finish. Both name the FIFO (`metadata`, `symbol`).
  }];
  let dependentDialects = ["::htp::aie::AIEDialect"];
}

class AIEX_Op<string mnemonic, list<Trait> traits = []>
    : Op<AIEX_Dialect, mnemonic, traits>;

#endif // HTP_AIEX_DIALECT
