// REQUIRES: aie-opt
// RUN: htp-opt %S/../../Dialect/aie/ops.mlir | %aie_opt | htp-opt | FileCheck %S/../../Dialect/aie/ops.mlir
// RUN: htp-opt %S/../../Dialect/aiex/ops.mlir | %aie_opt | htp-opt | FileCheck %S/../../Dialect/aiex/ops.mlir
//
// HTP's aie/aiex text is mlir-aie's: every op of the round-trip tests,
// printed by HTP, parses and verifies in mlir-aie's aie-opt (HTP_AIE_OPT),
// and what aie-opt prints parses back into HTP with the same checks.
