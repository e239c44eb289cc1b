// Bad pass pipelines and options are reported and make htp-opt fail; the
// input itself is valid.
//
// RUN: not htp-opt %s --pass-pipeline='builtin.module(frobnicate)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN --implicit-check-not=error:
// UNKNOWN: error: MLIR Textual PassPipeline Parser:1:1: error: 'frobnicate' does not refer to a registered pass or pass pipeline
//
// RUN: not htp-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,frobnicate))' 2>&1 | FileCheck %s --check-prefix=NESTED --implicit-check-not=error:
// NESTED: error: MLIR Textual PassPipeline Parser:1:24: error: 'frobnicate' does not refer to a registered pass or pass pipeline
//
// RUN: not htp-opt %s --pass-pipeline='builtin.module(func.func(canonicalize)' 2>&1 | FileCheck %s --check-prefix=UNBALANCED --implicit-check-not=error:
// UNBALANCED: error: MLIR Textual PassPipeline Parser:1:11: error: encountered unbalanced parentheses while parsing pipeline
//
// tile-peak-live-bytes runs on functions, not on the module.
// RUN: not htp-opt %s --pass-pipeline='builtin.module(tile-peak-live-bytes)' 2>&1 | FileCheck %s --check-prefix=NESTING --implicit-check-not=error:
// NESTING: error: Can't add pass 'TilePeakLiveBytes' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?
//
// RUN: not htp-opt %s --pass-pipeline='builtin.module(canonicalize{frob=1})' 2>&1 | FileCheck %s --check-prefix=OPTION --implicit-check-not=error:
// OPTION: error: <Pass-Options-Parser>: no such option frob
//
// RUN: not htp-opt %s --frobnicate 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: htp-opt: Unknown command line argument '--frobnicate'.
//
// RUN: not htp-opt %s.does-not-exist 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: cannot open input file '{{.*}}unknown-pass.mlir.does-not-exist': No such file or directory
//
// The same input and tile pass, spelled correctly, succeed.
// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,tile-peak-live-bytes))' | FileCheck %s --check-prefix=OK
// OK: func.func @f() attributes {tile.peak_live_bytes = 0 : i64}

func.func @f() {
  return
}
