// RUN: htp-opt %s --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s

// Shape ops on the vector core (conversion/shapes.rs, memory.rs).
// RoPE's rotate_half: blocks of a tile ragged in rows are TEXTRACTs at
// 32-byte-aligned columns (the rows' run-time size carried), joined by TCONCAT.
// CHECK-LABEL: func.func @rope_aiv
// CHECK: %[[T:.*]] = pto.alloc_tile valid [%[[N:.*]]] : !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK: pto.tload %[[T]]
// CHECK: %[[HI:.*]] = pto.alloc_tile valid [%[[N]]] : !pto.tile<vec, 16x32xf32, valid = ?x32>
// CHECK: pto.textract %[[HI]], %[[T]][%{{.*}}, %c32] : !pto.tile<vec, 16x32xf32, valid = ?x32>, !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK: %[[LO:.*]] = pto.alloc_tile valid [%[[N]]] : !pto.tile<vec, 16x32xf32, valid = ?x32>
// CHECK: pto.textract %[[LO]], %[[T]]
// CHECK: %[[NEG:.*]] = pto.alloc_tile valid [%[[N]]]
// CHECK: pto.tneg %[[NEG]], %[[HI]]
// CHECK: %[[R:.*]] = pto.alloc_tile valid [%[[N]]] : !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK: pto.tconcat %[[R]], %[[NEG]], %[[LO]] : !pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x32xf32, valid = ?x32>, !pto.tile<vec, 16x32xf32, valid = ?x32>
// CHECK: pto.tstore %{{.*}}, %[[R]]
func.func @rope(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %left = arith.subi %n, %i : index
    %v = arith.minsi %left, %c16 : index
    %t = tile.load %x[%i, %c0] valid [%v] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
    %hi = tile.slice %t [0, 32] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x32xf32, valid = ?x32>
    %lo = tile.slice %t [0, 0] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x32xf32, valid = ?x32>
    %neg = tile.neg %hi : !tile.tile<16x32xf32, valid = ?x32>
    %r = tile.concat %neg, %lo axis 1 : !tile.tile<16x32xf32, valid = ?x32>, !tile.tile<16x32xf32, valid = ?x32> -> !tile.tile<16x64xf32, valid = ?x64>
    tile.store %r, %y[%i, %c0] : !tile.tile<16x64xf32, valid = ?x64>, memref<?x64xf32>
  }
  return

// Every 2nd column of a tensor: the window of 63 columns loaded, seen as 64,
// TGATHER's P0101 picks the first of each pair. Every 2nd row: the view's row step.
// CHECK-LABEL: func.func @deinterleave_aiv
// CHECK: %[[W:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xf16, valid = 16x63>
// CHECK: %[[G:.*]] = pto.global_view %arg0[%{{.*}}, %{{.*}}] dims [0, 1] : memref<64x64xf16> -> !pto.gtensor<16x63xf16>
// CHECK: pto.tload %[[W]], %[[G]]
// CHECK: %[[PAIRS:.*]] = pto.tile_view %[[W]] : !pto.tile<vec, 16x64xf16, valid = 16x63> -> !pto.tile<vec, 16x64xf16>
// CHECK: %[[E:.*]] = pto.alloc_tile : !pto.tile<vec, 16x32xf16>
// CHECK: pto.tgather_mask p0101 %[[E]], %[[PAIRS]] : !pto.tile<vec, 16x32xf16>, !pto.tile<vec, 16x64xf16>
// CHECK: pto.global_view %arg0[%{{.*}}, %{{.*}}] dims [0, 1] row_step 2 : memref<64x64xf16> -> !pto.gtensor<32x64xf16>
}
func.func @deinterleave(%x: memref<64x64xf16>, %e: memref<64x32xf16>, %o: memref<32x64xf16>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tile.load %x[%c0, %c0] strides [1, 2] : memref<64x64xf16> -> !tile.tile<16x32xf16>
  tile.store %a, %e[%c0, %c0] : !tile.tile<16x32xf16>, memref<64x32xf16>
  %b = tile.load %x[%c1, %c0] strides [2, 1] : memref<64x64xf16> -> !tile.tile<32x64xf16>
  tile.store %b, %o[%c0, %c0] : !tile.tile<32x64xf16>, memref<32x64xf16>
  return

// A reshape of a tile whose rows have no padding: the result's buffer seen
// as the source's shape (TRESHAPE's reinterpretation), a TMOV into it.
// Rows stacked: TINSERT at each tile's row offset. A column step of a tile
// from an odd column: its rows (TEXTRACT), TGATHER's P1010.
// CHECK-LABEL: func.func @stack_reshape_aiv
// CHECK: %[[X:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xi32>
// CHECK: %[[R:.*]] = pto.alloc_tile : !pto.tile<vec, 32x32xi32>
// CHECK: %[[AS:.*]] = pto.tile_view %[[R]] : !pto.tile<vec, 32x32xi32> -> !pto.tile<vec, 16x64xi32>
// CHECK: pto.tmov %[[AS]], %[[X]] : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
// CHECK: pto.tstore %{{.*}}, %[[R]]
// CHECK: %[[A:.*]] = pto.alloc_tile : !pto.tile<vec, 8x32xi32>
// CHECK: pto.textract %[[A]], %[[X]]
// CHECK: %[[B:.*]] = pto.alloc_tile : !pto.tile<vec, 8x32xi32>
// CHECK: %[[ROWS:.*]] = pto.alloc_tile : !pto.tile<vec, 8x64xi32>
// CHECK: pto.textract %[[ROWS]], %[[X]][%c8, %{{.*}}] : !pto.tile<vec, 8x64xi32>, !pto.tile<vec, 16x64xi32>
// CHECK-NEXT: pto.tgather_mask p1010 %[[B]], %[[ROWS]] : !pto.tile<vec, 8x32xi32>, !pto.tile<vec, 8x64xi32>
// CHECK: %[[S:.*]] = pto.alloc_tile : !pto.tile<vec, 16x32xi32>
// CHECK: pto.tinsert %[[S]], %[[A]][%{{.*}}, %{{.*}}] : !pto.tile<vec, 16x32xi32>, !pto.tile<vec, 8x32xi32>
// CHECK: pto.tinsert %[[S]], %[[B]][%c8{{.*}}, %{{.*}}] : !pto.tile<vec, 16x32xi32>, !pto.tile<vec, 8x32xi32>
}
func.func @stack_reshape(%x: memref<16x64xi32>, %y: memref<32x32xi32>, %z: memref<16x32xi32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<16x64xi32> -> !tile.tile<16x64xi32>
  %r = tile.reshape %t : !tile.tile<16x64xi32> -> !tile.tile<32x32xi32>
  tile.store %r, %y[%c0, %c0] : !tile.tile<32x32xi32>, memref<32x32xi32>
  %a = tile.slice %t [0, 0] : !tile.tile<16x64xi32> -> !tile.tile<8x32xi32>
  %b = tile.slice %t [8, 1] strides [1, 2] : !tile.tile<16x64xi32> -> !tile.tile<8x32xi32>
  %s = tile.concat %a, %b axis 0 : !tile.tile<8x32xi32>, !tile.tile<8x32xi32> -> !tile.tile<16x32xi32>
  tile.store %s, %z[%c0, %c0] : !tile.tile<16x32xi32>, memref<16x32xi32>
  return
}

// A column of a tile: the row of its transpose (TTRANS), extracted into the
// column's bytes seen as a row. A block at a column TEXTRACT cannot start
// at (5: 20 bytes) is taken from the transpose and transposed back (its
// rows first, at column 0, when it does not take them all: rows 3 to 8).
// One element: TEXTRACT's scalar form, at any offset.
// CHECK-LABEL: func.func @columns_aiv
// CHECK: %[[X:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xf32>
// CHECK: %[[C:.*]] = pto.alloc_tile : !pto.tile<vec, 16x1xf32, blayout = col_major>
// CHECK: %[[T:.*]] = pto.alloc_tile : !pto.tile<vec, 64x16xf32>
// CHECK: pto.ttrans %[[T]], %[[X]]
// CHECK: %[[CROW:.*]] = pto.tile_view %[[C]] : !pto.tile<vec, 16x1xf32, blayout = col_major> -> !pto.tile<vec, 1x16xf32>
// CHECK: pto.textract %[[CROW]], %[[T]][%c3, %{{.*}}] : !pto.tile<vec, 1x16xf32>, !pto.tile<vec, 64x16xf32>
// CHECK: %[[U:.*]] = pto.alloc_tile : !pto.tile<vec, 16x24xf32, valid = 16x20>
// CHECK: %[[T2:.*]] = pto.alloc_tile : !pto.tile<vec, 64x16xf32>
// CHECK: pto.ttrans %[[T2]], %[[X]]
// CHECK: %[[PART:.*]] = pto.alloc_tile : !pto.tile<vec, 20x16xf32>
// CHECK: pto.textract %[[PART]], %[[T2]][%c5, %{{.*}}] : !pto.tile<vec, 20x16xf32>, !pto.tile<vec, 64x16xf32>
// CHECK: pto.ttrans %[[U]], %[[PART]]
// CHECK: %[[ONE:.*]] = pto.alloc_tile : !pto.tile<vec, 8x1xf32, valid = 1x1, blayout = col_major>
// CHECK: %[[OROW:.*]] = pto.tile_view %[[ONE]]
// CHECK: pto.textract %[[OROW]], %[[X]][%c3{{.*}}, %c7] : !pto.tile<vec, 1x8xf32, valid = 1x1>, !pto.tile<vec, 16x64xf32>
// CHECK: %[[B:.*]] = pto.alloc_tile : !pto.tile<vec, 5x16xf32, valid = 5x15>
// CHECK: %[[R:.*]] = pto.alloc_tile : !pto.tile<vec, 5x64xf32>
// CHECK: pto.textract %[[R]], %[[X]][%c3{{.*}}, %c0{{.*}}] : !pto.tile<vec, 5x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK: %[[RT:.*]] = pto.alloc_tile : !pto.tile<vec, 64x8xf32, valid = 64x5>
// CHECK: pto.ttrans %[[RT]], %[[R]]
// CHECK: %[[P:.*]] = pto.alloc_tile : !pto.tile<vec, 15x8xf32, valid = 15x5>
// CHECK: pto.textract %[[P]], %[[RT]][%c5{{.*}}, %c0{{.*}}]
// CHECK: pto.ttrans %[[B]], %[[P]]
func.func @columns(%x: memref<16x64xf32>, %y: memref<16x1xf32>, %z: memref<16x20xf32>, %w: memref<1x1xf32>, %v: memref<5x15xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  %c = tile.slice %t [0, 3] : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
  tile.store %c, %y[%c0, %c0] : !tile.tile<16x1xf32>, memref<16x1xf32>
  %u = tile.slice %t [0, 5] : !tile.tile<16x64xf32> -> !tile.tile<16x20xf32>
  tile.store %u, %z[%c0, %c0] : !tile.tile<16x20xf32>, memref<16x20xf32>
  %e = tile.slice %t [3, 7] : !tile.tile<16x64xf32> -> !tile.tile<1x1xf32>
  tile.store %e, %w[%c0, %c0] : !tile.tile<1x1xf32>, memref<1x1xf32>
  %b = tile.slice %t [3, 5] : !tile.tile<16x64xf32> -> !tile.tile<5x15xf32>
  tile.store %b, %v[%c0, %c0] : !tile.tile<5x15xf32>, memref<5x15xf32>
  return
}
