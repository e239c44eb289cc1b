//===- PTODialect.td - HTP pto dialect definition ----------*- tablegen -*-===//
//
// The `pto` dialect models Huawei's PTO-ISA (Ascend A2/A3) at instruction
// level: one op per PTO-ISA instruction, destination first, on tiles that
// carry the ISA's placement and layout. Its verifiers enforce the A2/A3
// rules of docs/targets/pto-contract.md, which PTO-ISA's CPU simulation does
// not check.
//
//===----------------------------------------------------------------------===//

#ifndef HTP_PTO_DIALECT
#define HTP_PTO_DIALECT

include "mlir/IR/OpBase.td"

def PTO_Dialect : Dialect {
  let name = "pto";
  let cppNamespace = "::htp::pto";
  let summary = "Huawei PTO-ISA (Ascend A2/A3) at instruction level.";
  let description = [{
    One op per PTO-ISA instruction (`TADD` is `pto.tadd`, `TLOAD` is
    `pto.tload`, ...). Ops work in destination-passing style, as the ISA
    does: the destination tile is the first operand and is written in place;
    only `pto.alloc_tile`, `pto.global_view` and `pto.create_tensor` return a
    value. A `!pto.tile` says where a tile lives (`vec` = UB, `mat` = L1,
    `left`/`right` = L0A/L0B, `acc` = L0C, `bias`) and its layout; a
    `!pto.gtensor` is a 2-D view of global memory (GM).

    The verifiers enforce what the A2/A3 chip headers static_assert (element
    types, layouts, tile shapes, buffer capacities, TMOV pairs, TCVT pairs),
    because PTO-ISA's CPU simulation checks almost none of it. Sources:
    `docs/targets/pto-contract.md`.

    Kernels are `func.func`s with `pto.core = "aiv"` (vector core) or
    `pto.core = "aic"` (cube core); the orchestration function submits them
    as pto-runtime tasks with `pto.submit`.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
    /// The discardable attribute naming a kernel's core type.
    static constexpr ::llvm::StringLiteral kCoreAttrName = "pto.core";
  }];
}

class PTO_Op<string mnemonic, list<Trait> traits = []>
    : Op<PTO_Dialect, mnemonic, traits>;

#endif // HTP_PTO_DIALECT
