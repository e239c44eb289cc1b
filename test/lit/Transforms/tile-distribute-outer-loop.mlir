// RUN: htp-opt %s --pass-pipeline='builtin.module(tile-distribute-outer-loop{level=cluster units=24})' --split-input-file --verify-diagnostics | FileCheck %s
// RUN: htp-opt %s --pass-pipeline='builtin.module(tile-distribute-outer-loop{level=core})' --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=OPEN
// RUN: not htp-opt %s --pass-pipeline='builtin.module(tile-distribute-outer-loop)' 2>&1 | FileCheck %s --check-prefix=NOLEVEL
// RUN: not htp-opt %s --pass-pipeline='builtin.module(tile-distribute-outer-loop{level=core units=0})' 2>&1 | FileCheck %s --check-prefix=UNITS

// NOLEVEL: error: tile-distribute-outer-loop: give the parallel level, level=<name>
// UNITS: error: tile-distribute-outer-loop: units must be a positive integer or ?, got '0'
// RUN: not htp-opt %s --pass-pipeline='builtin.module(tile-distribute-outer-loop{level=core units=many})' 2>&1 | FileCheck %s --check-prefix=UNITS-TYPE
// UNITS-TYPE: error: tile-distribute-outer-loop: units must be a positive integer or ?, got 'many'

// An independent outer loop: blocks of its trips over the level's units.
// CHECK-LABEL: func.func @rows
// CHECK: scf.for
// CHECK: } {htp.distribution = #layout.axe<[24@cluster:1, ?@iter:1]>}
// OPEN-LABEL: func.func @rows
// OPEN: } {htp.distribution = #layout.axe<[?@core:1, ?@iter:1]>}
func.func @rows(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    tile.store %t, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

// The user's grain (htp.range(..., grain=4)): tasks of 4 trips, as many as it takes.
// CHECK-LABEL: func.func @grain
// CHECK: } {htp.distribution = #layout.axe<[?@cluster:1, 4@iter:1]>, htp.grain = 4 : i64}
func.func @grain(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    tile.store %t, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  } {htp.grain = 4 : i64}
  return
}

// -----

// parallel=False: left alone.
// CHECK-LABEL: func.func @serial
// CHECK-NOT: htp.distribution
func.func @serial(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    tile.store %t, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  } {htp.serial}
  return
}

// -----

// Iterations that store the same rows are not distributed; a grain on
// such a loop is an error at the loop.
func.func @same_rows(%x: memref<?x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  // expected-error @+1 {{htp.range(..., grain=...) asks to distribute this loop over cores, but its iterations are not independent}}
  scf.for %i = %c0 to %n step %c16 {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    tile.store %t, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
  } {htp.grain = 2 : i64}
  return
}

// -----

// A grain on an inner loop is an error there.
func.func @inner(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    // expected-error @+1 {{only a kernel's outermost loop is distributed}}
    scf.for %j = %c0 to %c64 step %c16 {
      %t = tile.load %x[%i, %j] : memref<?x64xf32> -> !tile.tile<16x16xf32>
      tile.store %t, %y[%i, %j] : !tile.tile<16x16xf32>, memref<?x64xf32>
    } {htp.grain = 2 : i64}
  }
  return
}

// -----

// Scalar state passed between iterations (a cursor kept in a kernel-local
// array, read, searched from with scf.while and written back) makes them
// dependent, although each stores its own rows; a grain on such a loop is
// an error at the loop.
func.func @cursor(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %y, %c0 : memref<?x64xf32>
  %cur = memref.alloca() : memref<1xindex>
  memref.store %c0, %cur[%c0] : memref<1xindex>
  // expected-error @+1 {{htp.range(..., grain=...) asks to distribute this loop over cores, but its iterations are not independent}}
  scf.for %i = %c0 to %n step %c16 {
    %start = memref.load %cur[%c0] : memref<1xindex>
    %t = scf.while (%k = %start) : (index) -> index {
      %odd = arith.andi %k, %c1 : index
      %even = arith.cmpi eq, %odd, %c0 : index
      scf.condition(%even) %k : index
    } do {
    ^bb0(%k: index):
      %next = arith.addi %k, %c1 : index
      scf.yield %next : index
    }
    %row = arith.muli %t, %c16 : index
    %tile = tile.load %x[%row, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    tile.store %tile, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
    %after = arith.addi %t, %c1 : index
    memref.store %after, %cur[%c0] : memref<1xindex>
  } {htp.grain = 2 : i64}
  return
}

// -----

// One store to a kernel-local array in the loop is enough; so is a
// scf.while alone (what it searches may depend on earlier iterations).
// CHECK-LABEL: func.func @store_only
// CHECK-NOT: htp.distribution
// CHECK-LABEL: func.func @while_only
// CHECK-NOT: htp.distribution
func.func @store_only(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %seen = memref.alloca() : memref<1xindex>
    memref.store %i, %seen[%c0] : memref<1xindex>
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    tile.store %t, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  }
  return
}
func.func @while_only(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %t = scf.while (%k = %i) : (index) -> index {
      %more = arith.cmpi slt, %k, %c0 : index
      scf.condition(%more) %k : index
    } do {
    ^bb0(%k: index):
      scf.yield %k : index
    }
    %tile = tile.load %x[%t, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    tile.store %tile, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

// A kernel-local array made outside the loop keeps it whole too: a split
// replays the code before the loop (PTO computes the tasks' bounds from it).
// CHECK-LABEL: func.func @array_outside
// CHECK-NOT: htp.distribution
func.func @array_outside(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %base = memref.alloca() : memref<1xindex>
  memref.store %c0, %base[%c0] : memref<1xindex>
  scf.for %i = %c0 to %n step %c16 {
    %b = memref.load %base[%c0] : memref<1xindex>
    %row = arith.addi %i, %b : index
    %t = tile.load %x[%row, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    tile.store %t, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

// Tiles computed before the loop from tensors it does not store (a weight
// row every iteration reads, scaled): the loop is still distributed, each
// part replaying them once.
// CHECK-LABEL: func.func @weight_before
// CHECK: tile.load %arg1
// CHECK: tile.mul
// CHECK: scf.for
// CHECK: } {htp.distribution = #layout.axe<[24@cluster:1, ?@iter:1]>}
func.func @weight_before(%x: memref<?x64xf32>, %w: memref<1x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %wt = tile.load %w[%c0, %c0] : memref<1x64xf32> -> !tile.tile<1x64xf32>
  %w2 = tile.mul %wt, %wt : !tile.tile<1x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    %b = tile.broadcast %w2 : !tile.tile<1x64xf32> -> !tile.tile<16x64xf32>
    %m = tile.mul %t, %b : !tile.tile<16x64xf32>
    tile.store %m, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

// A tile loaded before the loop from a tensor the loop stores: a part
// started later would read what earlier parts wrote, so the loop stays whole.
// CHECK-LABEL: func.func @read_then_written
// CHECK-NOT: htp.distribution
func.func @read_then_written(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %first = tile.load %y[%c0, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    %s = tile.add %t, %first : !tile.tile<16x64xf32>
    tile.store %s, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

// A store before the loop is work a split would repeat: the loop stays whole.
// CHECK-LABEL: func.func @store_before
// CHECK-NOT: htp.distribution
func.func @store_before(%x: memref<?x64xf32>, %y: memref<?x64xf32>, %z: memref<16x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %first = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
  tile.store %first, %z[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    tile.store %t, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  }
  return
}
