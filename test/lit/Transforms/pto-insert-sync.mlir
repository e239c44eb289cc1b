// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(pto-insert-sync))' | FileCheck %s
// With transitive-order=false every conflict gets its own flag (a debugging aid).
// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(pto-insert-sync{transitive-order=false}))' | FileCheck %s --check-prefix=ALL
// An option the pass does not have is a pipeline error naming the options it has.
// RUN: not htp-opt %s --pass-pipeline='builtin.module(func.func(pto-insert-sync{unknown=1}))' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: 'pto-insert-sync' has no option 'unknown' (its options: transitive-order)
// A flag takes true or false (or 1, 0); anything else is an error of the pipeline.
// RUN: not htp-opt %s --pass-pipeline='builtin.module(func.func(pto-insert-sync{transitive-order=maybe}))' 2>&1 | FileCheck %s --check-prefix=NOTFLAG
// NOTFLAG: error: pto-insert-sync: transitive-order must be true or false, got 'maybe'

// load -> exp -> store in a loop: MTE2->V and V->MTE3 flags inside the body;
// the next iteration's TLOAD/TEXP reuse bytes the previous TEXP/TSTORE read,
// so V->MTE2 and MTE3->V are back-edge flags, primed before the loop and
// drained after it. The previous TEXP wrote the bytes this one writes, but
// no barrier orders them: the TSTORE that read those bytes waited for that
// TEXP, and this TEXP waits for the TSTORE (transitive order).
// CHECK-LABEL: func.func @loop
// CHECK: pto.set_flag <v -> mte2>, [[VM:[0-9]]]
// CHECK-NEXT: pto.set_flag <mte3 -> v>, [[MV:[0-9]]]
// CHECK-NEXT: scf.for
// CHECK: pto.wait_flag <v -> mte2>, [[VM]]
// CHECK-NEXT: pto.tload
// CHECK-NEXT: pto.set_flag <mte2 -> v>, [[LV:[0-9]]]
// CHECK: pto.wait_flag <mte2 -> v>, [[LV]]
// CHECK-NEXT: pto.wait_flag <mte3 -> v>, [[MV]]
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

// The cube chain: TLOAD (MTE2) -> in-place TFILLPAD on L1 (also MTE2, so in
// order without a flag) -> TMOV L1->L0 (MTE1; one flag after both moves) -> TMATMUL (M) -> TSTORE
// from L0C (FIX). `pto.tile_view` is no instruction: it gets no flag of its own.
// CHECK-LABEL: func.func @cube
// CHECK: pto.tload
// CHECK-NEXT: pto.tile_view
// CHECK-NEXT: pto.tfillpad
// CHECK-NEXT: pto.set_flag <mte2 -> mte1>, [[A:[0-9]]]
// CHECK-NEXT: pto.tile_view
// CHECK: pto.tload
// CHECK-NEXT: pto.set_flag <mte2 -> mte1>, [[B:[0-9]]]
// CHECK: pto.wait_flag <mte2 -> mte1>, [[A]]
// CHECK-NEXT: pto.tmov
// CHECK: pto.wait_flag <mte2 -> mte1>, [[B]]
// CHECK-NEXT: pto.tmov
// CHECK-NEXT: pto.set_flag <mte1 -> m>, [[C:[0-9]]]
// CHECK: pto.wait_flag <mte1 -> m>, [[C]]
// CHECK-NEXT: pto.tmatmul
// CHECK-NEXT: pto.set_flag <m -> fix>, [[D:[0-9]]]
// CHECK: pto.wait_flag <m -> fix>, [[D]]
// CHECK-NEXT: pto.tstore
// CHECK-NEXT: return
func.func @cube(%a: memref<?x32xf16>, %b: memref<32x64xf16>, %c: memref<?x64xf32>, %m: index) attributes {pto.core = "aic"} {
  %c0 = arith.constant 0 : index
  %ga = pto.global_view %a[%c0, %c0] sizes [%m] dims [0, 1] : memref<?x32xf16> -> !pto.gtensor<?x32xf16>
  %la = pto.alloc_tile valid [%m] addr 0 : !pto.tile<mat, 64x32xf16, valid = ?x32, blayout = col_major, slayout = row_major>
  pto.tload %la, %ga : !pto.tile<mat, 64x32xf16, valid = ?x32, blayout = col_major, slayout = row_major>, !pto.gtensor<?x32xf16>
  %pa = pto.tile_view %la valid [%m] : !pto.tile<mat, 64x32xf16, valid = ?x32, blayout = col_major, slayout = row_major> -> !pto.tile<mat, 64x32xf16, valid = ?x32, blayout = col_major, slayout = row_major, pad = zero>
  pto.tfillpad %pa, %pa : !pto.tile<mat, 64x32xf16, valid = ?x32, blayout = col_major, slayout = row_major, pad = zero>, !pto.tile<mat, 64x32xf16, valid = ?x32, blayout = col_major, slayout = row_major, pad = zero>
  %fa = pto.tile_view %pa : !pto.tile<mat, 64x32xf16, valid = ?x32, blayout = col_major, slayout = row_major, pad = zero> -> !pto.tile<mat, 64x32xf16, blayout = col_major, slayout = row_major, pad = zero>
  %gb = pto.global_view %b[%c0, %c0] dims [0, 1] : memref<32x64xf16> -> !pto.gtensor<32x64xf16>
  %lb = pto.alloc_tile addr 4096 : !pto.tile<mat, 32x64xf16, blayout = col_major, slayout = row_major>
  pto.tload %lb, %gb : !pto.tile<mat, 32x64xf16, blayout = col_major, slayout = row_major>, !pto.gtensor<32x64xf16>
  %l = pto.alloc_tile addr 0 : !pto.tile<left, 64x32xf16>
  pto.tmov %l, %fa : !pto.tile<left, 64x32xf16>, !pto.tile<mat, 64x32xf16, blayout = col_major, slayout = row_major, pad = zero>
  %r = pto.alloc_tile addr 0 : !pto.tile<right, 32x64xf16>
  pto.tmov %r, %lb : !pto.tile<right, 32x64xf16>, !pto.tile<mat, 32x64xf16, blayout = col_major, slayout = row_major>
  %acc = pto.alloc_tile addr 0 : !pto.tile<acc, 64x64xf32>
  pto.tmatmul %acc, %l, %r : !pto.tile<acc, 64x64xf32>, !pto.tile<left, 64x32xf16>, !pto.tile<right, 32x64xf16>
  %gc = pto.global_view %c[%c0, %c0] sizes [%m] dims [0, 1] : memref<?x64xf32> -> !pto.gtensor<?x64xf32>
  %vc = pto.tile_view %acc valid [%m] : !pto.tile<acc, 64x64xf32> -> !pto.tile<acc, 64x64xf32, valid = ?x64>
  pto.tstore %gc, %vc : !pto.gtensor<?x64xf32>, !pto.tile<acc, 64x64xf32, valid = ?x64>
  return
}

// TCI stores its indices from the scalar unit (PIPE_S): the vector
// instruction reading them waits on S -> V, and a TCI into bytes a vector
// instruction read waits on V -> S.
// CHECK-LABEL: func.func @tci_scalar_pipe
// CHECK: pto.tci %[[ROW:.*]], %{{.*}} : !pto.tile<vec, 1x64xi32>, i32
// CHECK-NEXT: pto.set_flag <s -> v>, [[SV:[0-9]]]
// CHECK: pto.wait_flag <s -> v>, [[SV]]
// CHECK-NEXT: pto.tcolexpand %{{.*}}, %[[ROW]]
// CHECK-NEXT: pto.set_flag <v -> s>, [[VS:[0-9]]]
// CHECK: pto.wait_flag <v -> s>, [[VS]]
// CHECK-NEXT: pto.tci
// CHECK-NEXT: pto.barrier <v>
// CHECK-NEXT: pto.tadd
func.func @tci_scalar_pipe(%b: memref<16x64xi32>) attributes {pto.core = "aiv"} {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i32
  %row = pto.alloc_tile addr 0 : !pto.tile<vec, 1x64xi32>
  pto.tci %row, %z : !pto.tile<vec, 1x64xi32>, i32
  %t = pto.alloc_tile addr 256 : !pto.tile<vec, 16x64xi32>
  pto.tcolexpand %t, %row : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 1x64xi32>
  %row2 = pto.alloc_tile addr 0 : !pto.tile<vec, 1x64xi32>
  pto.tci %row2, %z : !pto.tile<vec, 1x64xi32>, i32
  pto.tadd %t, %t, %t : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
  %h = pto.global_view %b[%c0, %c0] dims [0, 1] : memref<16x64xi32> -> !pto.gtensor<16x64xi32>
  pto.tstore %h, %t : !pto.gtensor<16x64xi32>, !pto.tile<vec, 16x64xi32>
  return
}

// Cross-core pipes: a pop writes its tile on MTE2, a push reads its tile on
// MTE3 (from UB) or FIX (from L0C); the hand-over between the cores is the
// pipe's own business, so only the on-core pipes get flags.
// CHECK-LABEL: func.func @vector_side
// CHECK:      pto.tpop c2v
// CHECK-NEXT: pto.set_flag <mte2 -> v>, [[A:[0-9]]]
// CHECK:      pto.wait_flag <mte2 -> v>, [[A]]
// CHECK-NEXT: pto.tmov
// CHECK-NEXT: pto.set_flag <v -> mte3>, [[B:[0-9]]]
// CHECK-NEXT: pto.tfree c2v
// CHECK-NEXT: pto.wait_flag <v -> mte3>, [[B]]
// CHECK-NEXT: pto.tpush v2c
// CHECK-NEXT: return
func.func @vector_side() attributes {pto.core = "aiv"} {
  %slot = pto.alloc_tile addr 0 : !pto.tile<vec, 32x32xf32>
  pto.tpop c2v %slot : !pto.tile<vec, 32x32xf32>
  %copy = pto.alloc_tile addr 4096 : !pto.tile<vec, 32x32xf32>
  pto.tmov %copy, %slot : !pto.tile<vec, 32x32xf32>, !pto.tile<vec, 32x32xf32>
  pto.tfree c2v
  pto.tpush v2c %copy : !pto.tile<vec, 32x32xf32>
  return
}

// CHECK-LABEL: func.func @cube_side
// CHECK:      pto.tmatmul
// CHECK-NEXT: pto.set_flag <m -> fix>, [[C:[0-9]]]
// CHECK-NEXT: pto.wait_flag <m -> fix>, [[C]]
// CHECK-NEXT: pto.tpush c2v
// CHECK-NEXT: return
func.func @cube_side() attributes {pto.core = "aic"} {
  %l = pto.alloc_tile addr 0 : !pto.tile<left, 32x32xf32>
  %r = pto.alloc_tile addr 0 : !pto.tile<right, 32x32xf32>
  %acc = pto.alloc_tile addr 0 : !pto.tile<acc, 32x32xf32>
  pto.tmatmul %acc, %l, %r : !pto.tile<acc, 32x32xf32>, !pto.tile<left, 32x32xf32>, !pto.tile<right, 32x32xf32>
  pto.tpush c2v %acc : !pto.tile<acc, 32x32xf32>
  return
}

// Transitive order: the TCI (PIPE_S) overwrites bytes the TLOAD wrote and
// the TEXP wrote; the TEXP already waited for the TLOAD, so waiting for the
// TEXP (V -> S) covers the TLOAD too, and no MTE2 -> S flag is set.
// CHECK-LABEL: func.func @transitive
// CHECK:      pto.tload
// CHECK-NEXT: pto.set_flag <mte2 -> v>, [[LV:[0-9]]]
// CHECK:      pto.wait_flag <mte2 -> v>, [[LV]]
// CHECK-NEXT: pto.texp
// CHECK-NEXT: pto.set_flag <v -> s>, [[VS:[0-9]]]
// CHECK:      pto.wait_flag <v -> s>, [[VS]]
// CHECK-NEXT: pto.tci
// CHECK-NOT:  pto.set_flag <mte2 -> s>
// CHECK:      return
// ALL-LABEL: func.func @transitive
// ALL:      pto.tload
// ALL-NEXT: pto.set_flag <mte2 -> s>, [[LS:[0-9]]]
// ALL:      pto.wait_flag <mte2 -> s>, [[LS]]
// ALL:      pto.tci
func.func @transitive(%a: memref<16x256xf32>) attributes {pto.core = "aiv"} {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i32
  %g = pto.global_view %a[%c0, %c0] dims [0, 1] : memref<16x256xf32> -> !pto.gtensor<16x256xf32>
  %t = pto.alloc_tile addr 0 : !pto.tile<vec, 16x256xf32>
  pto.tload %t, %g : !pto.tile<vec, 16x256xf32>, !pto.gtensor<16x256xf32>
  %e = pto.alloc_tile addr 16384 : !pto.tile<vec, 16x256xf32>
  pto.texp %e, %t : !pto.tile<vec, 16x256xf32>, !pto.tile<vec, 16x256xf32>
  %row = pto.alloc_tile addr 0 : !pto.tile<vec, 1x8192xi32>
  pto.tci %row, %z : !pto.tile<vec, 1x8192xi32>, i32
  return
}
