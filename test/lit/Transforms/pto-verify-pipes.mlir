// RUN: htp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(pto-verify-pipes)' | FileCheck %s

// A cluster task whose vector kernel pushes an operand once before a loop
// and a product back every trip: the cube pops the operand once (freed in
// the same block) and pushes every trip; the vector kernel pops every trip.
// The pass changes nothing.
// CHECK-LABEL: func.func @k_aic(
// CHECK:         pto.tpop v2c
// CHECK-NEXT:    pto.tfree v2c
// CHECK:         scf.for
// CHECK:           pto.tpush c2v
// CHECK-LABEL: func.func @k_aiv(
func.func @k_aic(%ring: memref<1024xf32>, %n: index) attributes {pto.core = "aic", pto.fifo = array<i64: 0, 1024, 1024>} {
  %slot = pto.alloc_tile : !pto.tile<mat, 16x16xf32, blayout = col_major, slayout = row_major>
  %acc = pto.alloc_tile : !pto.tile<acc, 16x16xf32>
  pto.tpop v2c %slot : !pto.tile<mat, 16x16xf32, blayout = col_major, slayout = row_major>
  pto.tfree v2c
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    pto.tpush c2v %acc : !pto.tile<acc, 16x16xf32>
  }
  return
}
func.func @k_aiv(%ring: memref<1024xf32>, %n: index) attributes {pto.core = "aiv", pto.fifo = array<i64: 0, 1024, 1024>} {
  %slot = pto.alloc_tile : !pto.tile<vec, 16x16xf32>
  %t = pto.alloc_tile : !pto.tile<vec, 16x16xf32>
  pto.tpush v2c %t : !pto.tile<vec, 16x16xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    pto.tpop c2v %slot : !pto.tile<vec, 16x16xf32>
    pto.tfree c2v
  }
  return
}

// -----

// Popped once before the loop, freed on every trip: the runtime stalls.
func.func @k_aic(%ring: memref<1024xf32>, %n: index) attributes {pto.core = "aic", pto.fifo = array<i64: 0, 0, 1024>} {
  %slot = pto.alloc_tile : !pto.tile<mat, 16x16xf32, blayout = col_major, slayout = row_major>
  // expected-error @+1 {{this v2c pop is not freed in its block}}
  pto.tpop v2c %slot : !pto.tile<mat, 16x16xf32, blayout = col_major, slayout = row_major>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    pto.tfree v2c
  }
  return
}
func.func @k_aiv(%ring: memref<1024xf32>, %n: index) attributes {pto.core = "aiv", pto.fifo = array<i64: 0, 0, 1024>} {
  %t = pto.alloc_tile : !pto.tile<vec, 16x16xf32>
  pto.tpush v2c %t : !pto.tile<vec, 16x16xf32>
  return
}

// -----

func.func @k_aic(%ring: memref<1024xf32>, %n: index) attributes {pto.core = "aic", pto.fifo = array<i64: 0, 0, 1024>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{this v2c free has no pop before it in its block (a loop would free a slot it did not pop)}}
    pto.tfree v2c
  }
  return
}
func.func @k_aiv(%ring: memref<1024xf32>, %n: index) attributes {pto.core = "aiv", pto.fifo = array<i64: 0, 0, 1024>} {
  return
}

// -----

// Two operands popped into one slot before either is read: the second
// overwrites the first.
func.func @k_aic(%ring: memref<1024xf32>) attributes {pto.core = "aic", pto.fifo = array<i64: 0, 0, 1024>} {
  %slot = pto.alloc_tile : !pto.tile<mat, 16x16xf32, blayout = col_major, slayout = row_major>
  pto.tpop v2c %slot : !pto.tile<mat, 16x16xf32, blayout = col_major, slayout = row_major>
  // expected-error @+1 {{this v2c pop comes before the previous pop was freed: it would overwrite a tile still to be read}}
  pto.tpop v2c %slot : !pto.tile<mat, 16x16xf32, blayout = col_major, slayout = row_major>
  pto.tfree v2c
  pto.tfree v2c
  return
}
func.func @k_aiv(%ring: memref<1024xf32>) attributes {pto.core = "aiv", pto.fifo = array<i64: 0, 0, 1024>} {
  return
}

// -----

// Pushed on every trip, popped once.
func.func @k_aic(%ring: memref<1024xf32>, %n: index) attributes {pto.core = "aic", pto.fifo = array<i64: 0, 1024, 0>} {
  %acc = pto.alloc_tile : !pto.tile<acc, 16x16xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    pto.tpush c2v %acc : !pto.tile<acc, 16x16xf32>
  }
  return
}
// expected-error @+1 {{the c2v hand-overs of cluster task k do not match: aic pushes for{P} but aiv pops P (P = one tile; for{..}, if{..|..}: the control flow around it)}}
func.func @k_aiv(%ring: memref<1024xf32>, %n: index) attributes {pto.core = "aiv", pto.fifo = array<i64: 0, 1024, 0>} {
  %slot = pto.alloc_tile : !pto.tile<vec, 16x16xf32>
  pto.tpop c2v %slot : !pto.tile<vec, 16x16xf32>
  pto.tfree c2v
  return
}

// -----

// expected-error @+1 {{cluster task k has only its aic kernel: a pipe needs both cores}}
func.func @k_aic(%ring: memref<1024xf32>) attributes {pto.core = "aic", pto.fifo = array<i64: 0, 1024, 0>} {
  return
}
