// RUN: htp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s

// A kernel that communicates (the comm intrinsic set) takes its chip's
// CommContext as one more argument (an i64, last), runs as one task (its
// independent outer loop is not split across cores), passes its windows
// inout, and the entry orchestration marks the windows and the context.
// CHECK-LABEL: func.func @exchange_aiv
// CHECK-SAME: (%[[X:.*]]: memref<?x64xf32>, %[[W:.*]]: memref<4x?x64xf32>, %[[S:.*]]: memref<4xi32>, %[[C:.*]]: i64) attributes {pto.core = "aiv"}
// CHECK: %[[ME:.*]] = pto.comm_rank %[[C]]
// CHECK: %[[N:.*]] = pto.comm_size %[[C]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[T:.*]] = pto.alloc_tile valid [%{{.*}}] : !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK: pto.tload %[[T]]
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %[[N]]
// CHECK: %[[G:.*]] = pto.global_view %[[W]][%[[ME]], %[[I]], %{{.*}}] sizes [%{{.*}}] dims [1, 2] : memref<4x?x64xf32> -> !pto.gtensor<?x64xf32>
// CHECK: pto.comm_put %[[G]], %[[T]] peer %[[P]] comm %[[C]] : !pto.gtensor<?x64xf32>, !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK: pto.comm_notify "add" %[[S]][%[[ME]]], %{{.*}} peer %{{.*}} comm %[[C]] : memref<4xi32>
// CHECK: pto.comm_wait %[[S]][%{{.*}}] "ge" %{{.*}} : memref<4xi32>
// CHECK-LABEL: func.func @exchange
// CHECK-SAME: (%{{.*}}: memref<?x64xf32>, %{{.*}}: memref<4x?x64xf32> {pto.comm = "window"}, %{{.*}}: memref<4xi32> {pto.comm = "window"}, %{{.*}}: i64 {htp.implicit, pto.comm = "context"}) attributes {pto.orchestration}
// CHECK-NOT: scf.for
// CHECK: pto.submit @exchange_aiv ins(%{{.*}} : memref<?x64xf32>) outs() inouts(%{{.*}}, %{{.*}} : memref<4x?x64xf32>, memref<4xi32>) scalars(%{{.*}} : i64)
func.func @exchange(%x: memref<?x64xf32>, %w: memref<4x?x64xf32>, %s: memref<4xi32>) attributes {htp.kernel, htp.outputs = array<i64>, htp.windows = array<i64: 1, 2>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1 : i32
  %rows = memref.dim %x, %c0 : memref<?x64xf32>
  %me = tile.intrinsic_effect "comm.rank"() : () -> index
  %n = tile.intrinsic_effect "comm.size"() : () -> index
  scf.for %i = %c0 to %rows step %c16 {
    %left = arith.subi %rows, %i : index
    %r = arith.minsi %left, %c16 : index
    %t = tile.load %x[%i, %c0] valid [%r] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
    scf.for %p = %c0 to %n step %c1 {
      tile.intrinsic_effect "comm.put"(%p, %w, %me, %i, %c0, %t) : (index, memref<4x?x64xf32>, index, index, index, !tile.tile<16x64xf32, valid = ?x64>) -> ()
    }
  }
  scf.for %p = %c0 to %n step %c1 {
    tile.intrinsic_effect "comm.notify"(%p, %s, %me, %one) {op = "add"} : (index, memref<4xi32>, index, i32) -> ()
  }
  scf.for %p = %c0 to %n step %c1 {
    tile.intrinsic_effect "comm.wait"(%s, %p, %one) {cmp = "ge"} : (memref<4xi32>, index, i32) -> ()
  }
  return
}

// -----

// A kernel with a window and nothing else still takes the context.
// CHECK-LABEL: func.func @window_only_aiv
// CHECK-SAME: (%{{.*}}: memref<16x64xf32>, %{{.*}}: memref<16x64xf32>, %{{.*}}: i64)
// CHECK-LABEL: func.func @window_only
// CHECK-SAME: %{{.*}}: memref<16x64xf32> {pto.comm = "window"}, %{{.*}}: i64 {htp.implicit, pto.comm = "context"}
// CHECK: pto.submit @window_only_aiv ins() outs(%{{.*}} : memref<16x64xf32>) inouts(%{{.*}} : memref<16x64xf32>) scalars(%{{.*}} : i64)
func.func @window_only(%y: memref<16x64xf32>, %w: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 0>, htp.windows = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %w[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  tile.store %t, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
  return
}

// -----

// Communication runs on the vector core alone.
// expected-error @+1 {{a kernel that communicates (comm.*) runs on the vector core alone; this one also multiplies matrices: split it into two kernels}}
func.func @with_matmul(%a: memref<16x16xf16>, %y: memref<16x16xf32>, %s: memref<4xi32>) attributes {htp.kernel, htp.outputs = array<i64: 1>, htp.windows = array<i64: 2>} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  %t = tile.load %a[%c0, %c0] : memref<16x16xf16> -> !tile.tile<16x16xf16>
  %m = tile.matmul %t, %t : !tile.tile<16x16xf16>, !tile.tile<16x16xf16> -> !tile.tile<16x16xf32>
  %e = tile.exp %m : !tile.tile<16x16xf32>
  tile.store %e, %y[%c0, %c0] : !tile.tile<16x16xf32>, memref<16x16xf32>
  tile.intrinsic_effect "comm.notify"(%c0, %s, %c0, %one) {op = "add"} : (index, memref<4xi32>, index, i32) -> ()
  return
}
