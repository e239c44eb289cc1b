// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(pto-allocate-tiles))' --split-input-file --verify-diagnostics | FileCheck %s

// A dead tile's bytes are reused: the third tile takes the first's offset.
// CHECK-LABEL: func.func @reuse
// CHECK: pto.alloc_tile addr 0 :
// CHECK: pto.alloc_tile addr 16384 :
// CHECK: pto.alloc_tile addr 0 :
func.func @reuse(%a: memref<64x256xf32>, %n: index) attributes {pto.core = "aiv"} {
  %c0 = arith.constant 0 : index
  %g = pto.global_view %a[%c0, %c0] dims [0, 1] : memref<64x256xf32> -> !pto.gtensor<16x256xf32>
  %t0 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.tload %t0, %g : !pto.tile<vec, 16x256xf32>, !pto.gtensor<16x256xf32>
  %t1 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texp %t1, %t0 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  %t2 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.tadd %t2, %t1, %t1 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  pto.tstore %g, %t2 : !pto.gtensor<16x256xf32>, !pto.tile<vec, 16x256xf32>
  return
}

// -----

// Twelve live 16 KiB tiles do not fit the 188416 usable bytes of UB.
func.func @overflow(%x: f32) attributes {pto.core = "aiv"} {
  %t0 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texpands %t0, %x : !pto.tile<vec, 16x256xf32>, f32
  %t1 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texpands %t1, %x : !pto.tile<vec, 16x256xf32>, f32
  %t2 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texpands %t2, %x : !pto.tile<vec, 16x256xf32>, f32
  %t3 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texpands %t3, %x : !pto.tile<vec, 16x256xf32>, f32
  %t4 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texpands %t4, %x : !pto.tile<vec, 16x256xf32>, f32
  %t5 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texpands %t5, %x : !pto.tile<vec, 16x256xf32>, f32
  %t6 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texpands %t6, %x : !pto.tile<vec, 16x256xf32>, f32
  %t7 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texpands %t7, %x : !pto.tile<vec, 16x256xf32>, f32
  %t8 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texpands %t8, %x : !pto.tile<vec, 16x256xf32>, f32
  %t9 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texpands %t9, %x : !pto.tile<vec, 16x256xf32>, f32
  %t10 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texpands %t10, %x : !pto.tile<vec, 16x256xf32>, f32
  // expected-error @+1 {{this tile (16384 bytes) does not fit in UB (vec): 180224 bytes of it are held by 11 other live tile(s) and A2/A3 has 188416 usable bytes}}
  %t11 = pto.alloc_tile : !pto.tile<vec, 16x256xf32>
  pto.texpands %t11, %x : !pto.tile<vec, 16x256xf32>, f32
  pto.tadd %t11, %t11, %t0 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  pto.tadd %t11, %t11, %t1 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  pto.tadd %t11, %t11, %t2 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  pto.tadd %t11, %t11, %t3 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  pto.tadd %t11, %t11, %t4 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  pto.tadd %t11, %t11, %t5 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  pto.tadd %t11, %t11, %t6 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  pto.tadd %t11, %t11, %t7 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  pto.tadd %t11, %t11, %t8 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  pto.tadd %t11, %t11, %t9 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  pto.tadd %t11, %t11, %t10 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  pto.tadd %t11, %t11, %t11 : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  return
}
