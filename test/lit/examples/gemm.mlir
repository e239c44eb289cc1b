// examples/gemm.mlir verifies; the zero accumulator is hoisted out of both
// output loops by canonicalization (constants move to the entry block), and
// the analysis counts init + iter_arg + A/B tiles + new accumulator.
// RUN: htp-opt %repo/examples/gemm.mlir --pass-pipeline='builtin.module(canonicalize,cse,func.func(tile-peak-live-bytes))' | FileCheck %s

// CHECK-LABEL: func.func @gemm
// CHECK-SAME: tile.peak_live_bytes = 57344 : i64
// CHECK-NEXT: %[[ZERO:.*]] = tile.constant 0.0 : !tile.tile<64x64xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args(%[[SUM:.*]] = %[[ZERO]])
// CHECK: tile.matmul %{{.*}}, %{{.*}}, %[[SUM]] : !tile.tile<64x32xf16>, !tile.tile<32x64xf16> -> !tile.tile<64x64xf32>
