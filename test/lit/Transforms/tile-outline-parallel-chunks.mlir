// RUN: htp-opt %s --pass-pipeline='builtin.module(tile-distribute-outer-loop{level=core},tile-outline-parallel-chunks)' --split-input-file | FileCheck %s
// RUN: htp-opt %s --pass-pipeline='builtin.module(tile-outline-parallel-chunks)' --split-input-file | FileCheck %s --check-prefix=UNDISTRIBUTED

// Without a distribution (tile-distribute-outer-loop) no loop is outlined.
// UNDISTRIBUTED-NOT: htp.parallel_chunks

// Each iteration stores the 16 rows its index selects: the kernel gains a
// chunk function (the loop over [begin, end)) and a bounds function.
// The kernel keeps the code before the loop and calls the chunk over all of it.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: htp.distribution = #layout.axe<[?@core:1, ?@iter:1]>
// CHECK-SAME: htp.parallel_chunks = "rows__chunk"
// CHECK: %[[LO:.*]] = arith.constant 0 : index
// CHECK: %[[HI:.*]] = memref.dim
// CHECK-NEXT: call @rows__chunk(%{{.*}}, %{{.*}}, %[[LO]], %[[HI]])
// CHECK-NEXT: return
// CHECK: func.func @rows__chunk(%[[X:.*]]: memref<?x64xf32>, %[[Y:.*]]: memref<?x64xf32>, %[[BEGIN:.*]]: index, %[[END:.*]]: index)
// CHECK-NOT: htp.kernel
// CHECK: scf.for %[[I:.*]] = %[[BEGIN]] to %[[END]] step %{{.*}}
// CHECK: tile.store {{.*}}[%[[I]],
// CHECK: func.func @rows__bounds(%{{.*}}: memref<?x64xf32>, %{{.*}}: memref<?x64xf32>, %[[B:.*]]: memref<3xindex>)
// CHECK: %[[N:.*]] = memref.dim
// CHECK: memref.store %{{.*}}, %[[B]][%{{.*}}] : memref<3xindex>
// CHECK: memref.store %[[N]], %[[B]][%{{.*}}] : memref<3xindex>
// CHECK: memref.store %{{.*}}, %[[B]][%{{.*}}] : memref<3xindex>
// CHECK-NOT: scf.for
// CHECK: return
func.func @rows(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    %e = tile.exp %t : !tile.tile<16x64xf32>
    tile.store %e, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

// Every iteration stores the same rows: not independent, nothing added.
// CHECK-LABEL: func.func @same_rows
// CHECK-NOT: htp.parallel_chunks
// CHECK-NOT: func.func @same_rows__chunk
func.func @same_rows(%x: memref<?x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    tile.store %t, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
  }
  return
}

// -----

// A tensor both loaded and stored: iterations could see each other's writes.
// CHECK-LABEL: func.func @in_place
// CHECK-NOT: htp.parallel_chunks
func.func @in_place(%x: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    %e = tile.exp %t : !tile.tile<16x64xf32>
    tile.store %e, %x[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

// A value carried from one iteration to the next: not independent.
// CHECK-LABEL: func.func @carried
// CHECK-NOT: htp.parallel_chunks
func.func @carried(%x: memref<?x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  %z = tile.constant 0.0 : !tile.tile<16x64xf32>
  %s = scf.for %i = %c0 to %n step %c16 iter_args(%acc = %z) -> (!tile.tile<16x64xf32>) {
    %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    %a = tile.add %acc, %t : !tile.tile<16x64xf32>
    scf.yield %a : !tile.tile<16x64xf32>
  }
  tile.store %s, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
  return
}

// -----

// Functions that are not kernels (helpers) are left alone.
// CHECK-LABEL: func.func @helper
// CHECK-NOT: htp.parallel_chunks
func.func @helper(%x: memref<?x64xf32>, %y: memref<?x64xf32>) {
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

// The user kept the loop on one core (htp.range(..., parallel=False)).
// CHECK-LABEL: func.func @serial
// CHECK-NOT: htp.parallel_chunks
// CHECK: scf.for
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
