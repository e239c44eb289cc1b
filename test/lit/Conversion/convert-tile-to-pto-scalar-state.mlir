// RUN: htp-opt %s --pass-pipeline='builtin.module(convert-tile-to-pto)' --split-input-file --verify-diagnostics

// Scalar state a PTO kernel cannot hold is refused at its op
// (conversion/scalars.rs); what it can hold: test/lit/Target/pto/scalar-state.mlir.

// An element read of a tensor the kernel also writes: the vector pipe's
// stores are not ordered before the scalar unit's read of GM.
func.func @tensor_element(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
  tile.store %t, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  // expected-error @+1 {{this kernel reads an element of a tensor it also writes: on PTO the scalar unit reads GM, and the tile stores of this kernel are not ordered before it}}
  %v = memref.load %y[%c0, %c0] : memref<?x64xf32>
  %s = tile.mul %t, %v : !tile.tile<16x64xf32>, f32
  tile.store %s, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  return
}

// -----

// A memref.store into a tensor: tensors are written with tile stores.
func.func @tensor_store(%x: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{'memref.store' of memref<?x64xf32>: a PTO kernel moves tensor data with tile loads and stores}}
  memref.store %f, %x[%c0, %c0] : memref<?x64xf32>
  return
}

// -----

// A kernel-local array holds integers or indices.
func.func @float_array(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a kernel-local array is a static 1-D memref of index, i32 or i64 (memref<N x index>, N >= 1), not memref<4xf32>}}
  %a = memref.alloca() : memref<4xf32>
  %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
  tile.store %t, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  return
}

// -----

// A `while` loop of tile work.
func.func @tile_while(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{this `while` loop holds 'tile.load': a PTO kernel's `while` loops are scalar code (tile work goes in `for` loops)}}
  %r = scf.while (%k = %c0) : (index) -> index {
    %more = arith.cmpi slt, %k, %c16 : index
    scf.condition(%more) %k : index
  } do {
  ^bb0(%k: index):
    %t = tile.load %x[%k, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    tile.store %t, %y[%k, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
    %next = arith.addi %k, %c16 : index
    scf.yield %next : index
  }
  return
}

// -----

// A `while` loop carrying a float.
func.func @float_while(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  // expected-error @+1 {{this `while` loop carries f32: a PTO kernel's `while` loops carry integers (and indices) only}}
  %r = scf.while (%v = %f) : (f32) -> f32 {
    %small = arith.cmpf olt, %v, %f : f32
    scf.condition(%small) %v : f32
  } do {
  ^bb0(%v: f32):
    scf.yield %v : f32
  }
  %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
  tile.store %t, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  return
}
