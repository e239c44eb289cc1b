// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(pto-insert-sync))' | FileCheck %s

// load -> exp -> store in a loop: MTE2->V and V->MTE3 flags inside the body;
// the next iteration's TLOAD/TEXP reuse bytes the previous TEXP/TSTORE read,
// so V->MTE2 and MTE3->V are back-edge flags, primed before the loop and
// drained after it.
// CHECK-LABEL: func.func @loop
// CHECK: pto.set_flag <v -> mte2>, [[VM:[0-9]]]
// CHECK-NEXT: pto.set_flag <mte3 -> v>, [[MV:[0-9]]]
// CHECK-NEXT: scf.for
// CHECK: pto.wait_flag <v -> mte2>, [[VM]]
// CHECK-NEXT: pto.tload
// CHECK-NEXT: pto.set_flag <mte2 -> v>, [[LV:[0-9]]]
// CHECK: pto.wait_flag <mte2 -> v>, [[LV]]
// CHECK-NEXT: pto.wait_flag <mte3 -> v>, [[MV]]
// CHECK-NEXT: pto.barrier <v>
// CHECK-NEXT: pto.texp
// CHECK-NEXT: pto.set_flag <v -> mte2>, [[VM]]
// CHECK-NEXT: pto.set_flag <v -> mte3>, [[VS:[0-9]]]
// CHECK: pto.wait_flag <v -> mte3>, [[VS]]
// CHECK-NEXT: pto.tstore
// CHECK-NEXT: pto.set_flag <mte3 -> v>, [[MV]]
// CHECK-NEXT: }
// CHECK-NEXT: pto.wait_flag <mte3 -> v>, [[MV]]
// CHECK-NEXT: pto.wait_flag <v -> mte2>, [[VM]]
// CHECK-NEXT: return
func.func @loop(%a: memref<?x256xf32>, %b: memref<?x256xf32>, %lo: index, %hi: index) attributes {pto.core = "aiv"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %lo to %hi step %c16 {
    %g = pto.global_view %a[%i, %c0] dims [0, 1] : memref<?x256xf32> -> !pto.gtensor<16x256xf32>
    %t = pto.alloc_tile addr 0 : !pto.tile<vec, 16x256xf32>
    pto.tload %t, %g : !pto.tile<vec, 16x256xf32>, !pto.gtensor<16x256xf32>
    %e = pto.alloc_tile addr 16384 : !pto.tile<vec, 16x256xf32>
    pto.texp %e, %t : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
    %h = pto.global_view %b[%i, %c0] dims [0, 1] : memref<?x256xf32> -> !pto.gtensor<16x256xf32>
    pto.tstore %h, %e : !pto.gtensor<16x256xf32>, !pto.tile<vec, 16x256xf32>
  }
  return
}
