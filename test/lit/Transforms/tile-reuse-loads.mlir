// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(tile-reuse-loads{budget-bytes=65536}))' --split-input-file | FileCheck %s

// Two sibling passes over a read-only row (statistics, then scale): both
// unrolled, the second pass's loads replaced by the first's (2 x 8 KiB kept
// live). w's loads, in bounds and invariant once unrolled, leave even the
// function's own row loop: a backend splitting that loop replays them once
// per part (a PTO task), not once per row block.
// CHECK-LABEL: func.func @two_pass
// CHECK: %[[W0:.*]] = tile.load %arg1[%{{.*}}, %{{.*}}] : memref<1x512xf32> -> !tile.tile<1x256xf32>
// CHECK: %[[W1:.*]] = tile.load %arg1[%{{.*}}, %{{.*}}] : memref<1x512xf32> -> !tile.tile<1x256xf32>
// CHECK: scf.for %[[I:.*]] =
// CHECK-NOT: scf.for
// CHECK: %[[X0:.*]] = tile.load %arg0[%[[I]], %{{.*}}] valid
// CHECK: %[[X1:.*]] = tile.load %arg0[%[[I]], %{{.*}}] valid
// CHECK-NOT: tile.load
// CHECK: tile.pad %[[X0]]
// CHECK: tile.broadcast %[[W0]]
// CHECK: tile.pad %[[X1]]
// CHECK: tile.broadcast %[[W1]]
// CHECK: return
func.func @two_pass(%x: memref<?x512xf32>, %w: memref<1x512xf32>, %y: memref<?x512xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x512xf32>
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %n step %c8 {
    %zero = tile.constant 0.0 : !tile.tile<8x1xf32>
    %c0a = arith.constant 0 : index
    %c512 = arith.constant 512 : index
    %c256 = arith.constant 256 : index
    %sum = scf.for %j = %c0a to %c512 step %c256 iter_args(%acc = %zero) -> (!tile.tile<8x1xf32>) {
      %r = arith.subi %n, %i : index
      %v = arith.minsi %r, %c8 : index
      %t = tile.load %x[%i, %j] valid [%v] : memref<?x512xf32> -> !tile.tile<8x256xf32, valid = ?x256>
      %f = arith.constant 0.0 : f32
      %p = tile.pad %t, %f : !tile.tile<8x256xf32, valid = ?x256> -> !tile.tile<8x256xf32>
      %s = tile.row_reduce sum %p : !tile.tile<8x256xf32> -> !tile.tile<8x1xf32>
      %a = tile.add %acc, %s : !tile.tile<8x1xf32>
      scf.yield %a : !tile.tile<8x1xf32>
    }
    %c0b = arith.constant 0 : index
    %c512b = arith.constant 512 : index
    %c256b = arith.constant 256 : index
    scf.for %j = %c0b to %c512b step %c256b {
      %r = arith.subi %n, %i : index
      %v = arith.minsi %r, %c8 : index
      %t = tile.load %x[%i, %j] valid [%v] : memref<?x512xf32> -> !tile.tile<8x256xf32, valid = ?x256>
      %f = arith.constant 0.0 : f32
      %p = tile.pad %t, %f : !tile.tile<8x256xf32, valid = ?x256> -> !tile.tile<8x256xf32>
      %b = tile.broadcast %sum : !tile.tile<8x1xf32> -> !tile.tile<8x256xf32>
      %m = tile.mul %p, %b : !tile.tile<8x256xf32>
      %c0c = arith.constant 0 : index
      %wt = tile.load %w[%c0c, %j] : memref<1x512xf32> -> !tile.tile<1x256xf32>
      %wb = tile.broadcast %wt : !tile.tile<1x256xf32> -> !tile.tile<8x256xf32>
      %o = tile.mul %m, %wb : !tile.tile<8x256xf32>
      %sv = tile.set_valid %o valid [%v] : !tile.tile<8x256xf32> -> !tile.tile<8x256xf32, valid = ?x256>
      tile.store %sv, %y[%i, %j] : !tile.tile<8x256xf32, valid = ?x256>, memref<?x512xf32>
    }
  }
  return
}

// -----

// The tensor is written (an in-place update): neither unrolled nor hoisted.
// CHECK-LABEL: func.func @written
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tile.load %arg0
// CHECK: scf.for
// CHECK: tile.load %arg0
// CHECK: tile.load %arg1
// CHECK: tile.store
func.func @written(%x: memref<64x512xf32>, %w: memref<1x512xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c8 = arith.constant 8 : index
  %c512 = arith.constant 512 : index
  %c256 = arith.constant 256 : index
  scf.for %i = %c0 to %c64 step %c8 {
    %zero = tile.constant 0.0 : !tile.tile<8x1xf32>
    %sum = scf.for %j = %c0 to %c512 step %c256 iter_args(%acc = %zero) -> (!tile.tile<8x1xf32>) {
      %t = tile.load %x[%i, %j] : memref<64x512xf32> -> !tile.tile<8x256xf32>
      %s = tile.row_reduce sum %t : !tile.tile<8x256xf32> -> !tile.tile<8x1xf32>
      %a = tile.add %acc, %s : !tile.tile<8x1xf32>
      scf.yield %a : !tile.tile<8x1xf32>
    }
    scf.for %j = %c0 to %c512 step %c256 {
      %t = tile.load %x[%i, %j] : memref<64x512xf32> -> !tile.tile<8x256xf32>
      %b = tile.broadcast %sum : !tile.tile<8x1xf32> -> !tile.tile<8x256xf32>
      %m = tile.mul %t, %b : !tile.tile<8x256xf32>
      %wt = tile.load %w[%c0, %j] : memref<1x512xf32> -> !tile.tile<1x256xf32>
      tile.store %m, %x[%i, %j] : !tile.tile<8x256xf32>, memref<64x512xf32>
    }
  }
  return
}

// -----

// Trip counts not constant: nothing to unroll; w's index is the loop's
// variable, so its load stays in the loop too.
// CHECK-LABEL: func.func @dynamic_trips
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tile.load %arg0
// CHECK: scf.for
// CHECK: tile.load %arg0
// CHECK: tile.load %arg1
func.func @dynamic_trips(%x: memref<64x512xf32>, %w: memref<1x512xf32>, %y: memref<64x512xf32>, %h: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c8 = arith.constant 8 : index
  %c256 = arith.constant 256 : index
  scf.for %i = %c0 to %c64 step %c8 {
    %zero = tile.constant 0.0 : !tile.tile<8x1xf32>
    %sum = scf.for %j = %c0 to %h step %c256 iter_args(%acc = %zero) -> (!tile.tile<8x1xf32>) {
      %t = tile.load %x[%i, %j] : memref<64x512xf32> -> !tile.tile<8x256xf32>
      %s = tile.row_reduce sum %t : !tile.tile<8x256xf32> -> !tile.tile<8x1xf32>
      %a = tile.add %acc, %s : !tile.tile<8x1xf32>
      scf.yield %a : !tile.tile<8x1xf32>
    }
    scf.for %j = %c0 to %h step %c256 {
      %t = tile.load %x[%i, %j] : memref<64x512xf32> -> !tile.tile<8x256xf32>
      %b = tile.broadcast %sum : !tile.tile<8x1xf32> -> !tile.tile<8x256xf32>
      %m = tile.mul %t, %b : !tile.tile<8x256xf32>
      %wt = tile.load %w[%c0, %j] : memref<1x512xf32> -> !tile.tile<1x256xf32>
      %wb = tile.broadcast %wt : !tile.tile<1x256xf32> -> !tile.tile<8x256xf32>
      %o = tile.mul %m, %wb : !tile.tile<8x256xf32>
      tile.store %o, %y[%i, %j] : !tile.tile<8x256xf32>, memref<64x512xf32>
    }
  }
  return
}

// -----

// An 8 x 2048 f32 row block (4 x 16 KiB kept live) does not fit what the
// 64 KiB budget leaves beside the kernel's own tiles: both passes stay loops (the hardware's limit, not the pass's).
// The loop-invariant, in-bounds load of w is still hoisted (2 KiB), out of
// the row loop and then out of the batch loop.
// CHECK-LABEL: func.func @over_budget
// CHECK: tile.load %arg1
// CHECK-NEXT: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: tile.load %arg0
// CHECK: scf.for
// CHECK: tile.load %arg0
// CHECK-NOT: tile.load
// CHECK: return
func.func @over_budget(%x: memref<8x2048xf32>, %w: memref<1x512xf32>, %y: memref<8x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c2048 = arith.constant 2048 : index
  %c512 = arith.constant 512 : index
  %c64 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %batch = %c0 to %c2 step %c1 {
  scf.for %i = %c0 to %c64 step %c64 {
    %zero = tile.constant 0.0 : !tile.tile<8x1xf32>
    %sum = scf.for %j = %c0 to %c2048 step %c512 iter_args(%acc = %zero) -> (!tile.tile<8x1xf32>) {
      %t = tile.load %x[%i, %j] : memref<8x2048xf32> -> !tile.tile<8x512xf32>
      %s = tile.row_reduce sum %t : !tile.tile<8x512xf32> -> !tile.tile<8x1xf32>
      %a = tile.add %acc, %s : !tile.tile<8x1xf32>
      scf.yield %a : !tile.tile<8x1xf32>
    }
    scf.for %j = %c0 to %c2048 step %c512 {
      %t = tile.load %x[%i, %j] : memref<8x2048xf32> -> !tile.tile<8x512xf32>
      %b = tile.broadcast %sum : !tile.tile<8x1xf32> -> !tile.tile<8x512xf32>
      %m = tile.mul %t, %b : !tile.tile<8x512xf32>
      %wt = tile.load %w[%c0, %c0] : memref<1x512xf32> -> !tile.tile<1x512xf32>
      %wb = tile.broadcast %wt : !tile.tile<1x512xf32> -> !tile.tile<8x512xf32>
      %o = tile.mul %m, %wb : !tile.tile<8x512xf32>
      tile.store %o, %y[%i, %j] : !tile.tile<8x512xf32>, memref<8x2048xf32>
    }
  }
  }
  return
}

// -----

// A 1-D tensor read through its `1 x N` view is read-only too: its
// in-bounds load leaves the row loop.
// CHECK-LABEL: func.func @vector_weight
// CHECK: %[[V:.*]] = memref.expand_shape %arg1
// CHECK: tile.load %[[V]]
// CHECK: scf.for
// CHECK-NOT: tile.load %[[V]]
// CHECK: return
func.func @vector_weight(%x: memref<?x64xf32>, %w: memref<64xf32>, %y: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %v = memref.expand_shape %w [[0, 1]] output_shape [1, 64] : memref<64xf32> into memref<1x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    %wt = tile.load %v[%c0, %c0] : memref<1x64xf32> -> !tile.tile<1x64xf32>
    %b = tile.broadcast %wt : !tile.tile<1x64xf32> -> !tile.tile<16x64xf32>
    %m = tile.mul %t, %b : !tile.tile<16x64xf32>
    tile.store %m, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  }
  return
}
