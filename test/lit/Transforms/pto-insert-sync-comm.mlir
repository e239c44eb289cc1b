// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(pto-insert-sync))' | FileCheck %s

// Communication with other chips is a full barrier: pto-insert-sync puts a
// `pto.barrier <all>` before and after each put, notify and wait, and no
// flag crosses it (everything before has drained when it runs). The loads
// around the put need no flag of their own; the TADD after the wait waits
// for its TLOAD (MTE2 -> V) as usual.
// CHECK-LABEL: func.func @exchange
// CHECK: pto.tload %[[T:.*]], %{{.*}}
// CHECK-NOT: pto.set_flag
// CHECK: pto.barrier <all>
// CHECK-NEXT: pto.comm_put %{{.*}}, %[[T]] peer
// CHECK-NEXT: pto.barrier <all>
// CHECK-NEXT: pto.barrier <all>
// CHECK-NEXT: pto.comm_notify "add"
// CHECK-NEXT: pto.barrier <all>
// CHECK-NEXT: pto.barrier <all>
// CHECK-NEXT: pto.comm_wait
// CHECK-NEXT: pto.barrier <all>
// CHECK-NOT: pto.set_flag
// CHECK: pto.tload %[[U:.*]], %{{.*}}
// CHECK-NEXT: pto.set_flag <mte2 -> v>, [[F:[0-9]]]
// CHECK-NEXT: pto.wait_flag <mte2 -> v>, [[F]]
// CHECK-NEXT: pto.tadd
// CHECK-NOT: pto.set_flag <mte3
// CHECK: return
func.func @exchange(%x: memref<16x64xf32>, %w: memref<2x16x64xf32>, %s: memref<2xi32>, %ctx: i64) attributes {pto.core = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %g = pto.global_view %x[%c0, %c0] dims [0, 1] : memref<16x64xf32> -> !pto.gtensor<16x64xf32>
  %t = pto.alloc_tile addr 0 : !pto.tile<vec, 16x64xf32>
  pto.tload %t, %g : !pto.tile<vec, 16x64xf32>, !pto.gtensor<16x64xf32>
  %b = pto.global_view %w[%c1, %c0, %c0] dims [1, 2] : memref<2x16x64xf32> -> !pto.gtensor<16x64xf32>
  pto.comm_put %b, %t peer %c1 comm %ctx : !pto.gtensor<16x64xf32>, !pto.tile<vec, 16x64xf32>
  pto.comm_notify "add" %s[%c0], %one peer %c1 comm %ctx : memref<2xi32>
  pto.comm_wait %s[%c1] "ge" %one : memref<2xi32>
  %mine = pto.global_view %w[%c0, %c0, %c0] dims [1, 2] : memref<2x16x64xf32> -> !pto.gtensor<16x64xf32>
  %u = pto.alloc_tile addr 4096 : !pto.tile<vec, 16x64xf32>
  pto.tload %u, %mine : !pto.tile<vec, 16x64xf32>, !pto.gtensor<16x64xf32>
  pto.tadd %t, %t, %u : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
  return
}

// In a loop, the previous iteration is pending only up to the body's first
// barrier: the next iteration's put reads the tile this one's TLOAD wrote
// and its TLOAD overwrites what this one's TSTORE reads, but the put's
// barriers order both, so no back-edge flag is primed, set or drained; the
// TLOAD -> TSTORE of one iteration still gets its MTE2 -> MTE3 flag. (A
// TLOAD before the put would get its back-edge flag: the previous
// iteration's TSTORE is not ordered before it.)
// CHECK-LABEL: func.func @loop
// CHECK-NOT: pto.set_flag
// CHECK: scf.for
// CHECK-NEXT: pto.barrier <all>
// CHECK-NEXT: pto.comm_put
// CHECK-NEXT: pto.barrier <all>
// CHECK-NEXT: pto.tload
// CHECK-NEXT: pto.set_flag <mte2 -> mte3>, [[F:[0-9]]]
// CHECK-NEXT: pto.wait_flag <mte2 -> mte3>, [[F]]
// CHECK-NEXT: pto.tstore
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @loop(%x: memref<16x64xf32>, %y: memref<16x64xf32>, %w: memref<2x16x64xf32>, %n: index, %ctx: i64) attributes {pto.core = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g = pto.global_view %x[%c0, %c0] dims [0, 1] : memref<16x64xf32> -> !pto.gtensor<16x64xf32>
  %h = pto.global_view %y[%c0, %c0] dims [0, 1] : memref<16x64xf32> -> !pto.gtensor<16x64xf32>
  %b = pto.global_view %w[%c1, %c0, %c0] dims [1, 2] : memref<2x16x64xf32> -> !pto.gtensor<16x64xf32>
  %t = pto.alloc_tile addr 0 : !pto.tile<vec, 16x64xf32>
  scf.for %p = %c0 to %n step %c1 {
    pto.comm_put %b, %t peer %p comm %ctx : !pto.gtensor<16x64xf32>, !pto.tile<vec, 16x64xf32>
    pto.tload %t, %g : !pto.tile<vec, 16x64xf32>, !pto.gtensor<16x64xf32>
    pto.tstore %h, %t : !pto.gtensor<16x64xf32>, !pto.tile<vec, 16x64xf32>
  }
  return
}
