// 30000 nested regions: MLIR's parser, verifier and printer recurse once per
// level, past the 8 MiB main-thread stack; the tools run their driver on a
// thread with a large stack (htp_tool::run_c_main, issue 21).
// RUN: python3 -c "n = 30000; print('func.func @f(%%c: i1) {' + ' scf.if %%c {' * n + ' }' * n + ' return }')" > %t.mlir
// RUN: htp-opt %t.mlir | FileCheck %s
// CHECK-LABEL: func.func @f
// CHECK-COUNT-3: scf.if
