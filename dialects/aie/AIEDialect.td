//===- AIEDialect.td - HTP aie dialect definition ----------*- tablegen -*-===//
//
// The `aie` dialect is the object-FIFO level of AMD's mlir-aie (AI Engine
// arrays of the Ryzen AI NPUs, AIE-ML / AIE2 and AIE2P), printed exactly as
// mlir-aie parses it at the commit pinned in docs/targets/aie-contract.md.
// Its verifiers hold the resource and protocol rules mlir-aie checks late
// (or not at all): tiles inside the device, tile memory, DMA channels,
// acquire counts and balanced acquire/release per loop iteration.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_AIE_DIALECT
#define HTP_AIE_DIALECT

include "mlir/IR/OpBase.td"

def AIE_Dialect : Dialect {
  let name = "aie";
  let cppNamespace = "::htp::aie";
  let summary = "AMD AI Engine arrays at mlir-aie's object-FIFO level.";
  let description = [{
    A design is an `aie.device(npu1|npu2|npu1_Ncol|npu2_Ncol)` whose region
    declares tiles (`aie.tile(col, row)`: row 0 shim, row 1 memtile, rows
    2-5 compute), object FIFOs between them (`aie.objectfifo`, forwarded
    through memtiles by `aie.objectfifo.link`), the code of each compute
    tile (`aie.core`, which acquires and releases FIFO objects) and the
    host's transfers (`aie.runtime_sequence` with `aiex.npu.dma_memcpy_nd`).
    The syntax is mlir-aie's (docs/targets/aie-contract.md); HTP hands the
    text to `aie-opt`/`aiecc`.
  }];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

class AIE_Op<string mnemonic, list<Trait> traits = []>
    : Op<AIE_Dialect, mnemonic, traits>;

#endif // HTP_AIE_DIALECT
