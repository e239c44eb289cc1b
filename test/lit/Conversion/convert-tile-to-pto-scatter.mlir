// RUN: htp-opt %s --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s

// htp.scatter on the vector core (conversion/selection.rs `put`, vector.rs
// `scatter`; docs/targets/pto.md, "Selection"; D76).

// Elements into each row: one TSCATTER of each row of the input followed by
// the values (TCONCAT), by flat offsets joined the same way: the input's
// own (TCI columns, TCOLEXPAND, plus the rows' starts r x 64 by
// TROWEXPANDADD), then the indices plus the rows' starts. A2/A3 writes them
// in that order: the input's value, then the picked values, the last winning.
// The loop is independent (put is pure): split into tasks.
// CHECK-LABEL: func.func @put_aiv(
// CHECK: %[[T:.*]] = pto.alloc_tile valid [%[[N:.*]]] : !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK: %[[J:.*]] = pto.alloc_tile valid [%[[N]]] : !pto.tile<vec, 16x8xi32, valid = ?x8>
// CHECK: %[[S:.*]] = pto.alloc_tile valid [%[[N]]] : !pto.tile<vec, 16x8xf32, valid = ?x8>
// CHECK: %[[D:.*]] = pto.alloc_tile valid [%[[N]]] : !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK: %[[LINE:.*]] = pto.alloc_tile : !pto.tile<vec, 1x16xi32>
// CHECK: pto.tci %[[LINE]]
// CHECK: pto.tmuls %[[LINE]], %[[LINE]], %c64_i32
// CHECK: %[[STARTS:.*]] = pto.tile_view %[[LINE]] valid [%[[N]]] : !pto.tile<vec, 1x16xi32> -> !pto.tile<vec, 16x1xi32, valid = ?x1, blayout = col_major>
// CHECK: %[[COLS:.*]] = pto.alloc_tile : !pto.tile<vec, 1x64xi32>
// CHECK: pto.tci %[[COLS]]
// CHECK: pto.tcolexpand %[[GRID:.*]], %[[COLS]] : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 1x64xi32>
// CHECK: pto.trowexpand_op add %[[OWN:.*]], %{{.*}}, %[[STARTS]] : !pto.tile<vec, 16x64xi32, valid = ?x64>
// CHECK: pto.trowexpand_op add %[[THEIRS:.*]], %[[J]], %[[STARTS]] : !pto.tile<vec, 16x8xi32, valid = ?x8>
// CHECK: pto.tconcat %[[OFF:.*]], %[[OWN]], %[[THEIRS]] : !pto.tile<vec, 16x96xi32, valid = ?x72>, !pto.tile<vec, 16x64xi32, valid = ?x64>, !pto.tile<vec, 16x8xi32, valid = ?x8>
// CHECK: pto.tconcat %[[ALL:.*]], %[[T]], %[[S]] : !pto.tile<vec, 16x96xf32, valid = ?x72>, !pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x8xf32, valid = ?x8>
// CHECK: pto.tscatter %[[D]], %[[ALL]], %[[OFF]] : !pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x96xf32, valid = ?x72>, !pto.tile<vec, 16x96xi32, valid = ?x72>
// CHECK: pto.tstore %{{.*}}, %[[D]]
// CHECK-LABEL: func.func @put(
// CHECK: pto.submit @put_aiv ins(%arg0, %arg1, %arg2 : {{.*}}) outs(%arg3 : memref<?x64xf32>) scalars(
func.func @put(%x: memref<?x64xf32>, %ix: memref<?x8xi32>, %v: memref<?x8xf32>, %y: memref<?x64xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?x64xf32>
  scf.for %i = %c0 to %n step %c16 {
    %left = arith.subi %n, %i : index
    %r = arith.minsi %left, %c16 : index
    %t = tile.load %x[%i, %c0] valid [%r] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
    %j = tile.load %ix[%i, %c0] valid [%r] : memref<?x8xi32> -> !tile.tile<16x8xi32, valid = ?x8>
    %s = tile.load %v[%i, %c0] valid [%r] : memref<?x8xf32> -> !tile.tile<16x8xf32, valid = ?x8>
    %p = tile.put %t[%j], %s : !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x8xi32, valid = ?x8>, !tile.tile<16x8xf32, valid = ?x8> -> !tile.tile<16x64xf32, valid = ?x64>
    tile.store %p, %y[%i, %c0] : !tile.tile<16x64xf32, valid = ?x64>, memref<?x64xf32>
  }
  return
}

// 16-bit elements: i64 indices narrowed to i32 (TCVT), the joined offsets to
// i16 (what TSCATTER pairs with 2-byte elements); rows of 48 (40 valid).
// CHECK-LABEL: func.func @put_f16_aiv(
// CHECK: pto.tcvt %[[J32:.*]], %{{.*}} round rint : !pto.tile<vec, 16x8xi32, valid = 16x4>, !pto.tile<vec, 16x4xi64>
// CHECK: pto.tmuls %{{.*}}, %{{.*}}, %c48_i32
// CHECK: pto.tconcat %[[OFF:.*]], %{{.*}}, %{{.*}} : !pto.tile<vec, 16x64xi32, valid = 16x44>, !pto.tile<vec, 16x40xi32>, !pto.tile<vec, 16x8xi32, valid = 16x4>
// CHECK: pto.tconcat %[[ALL:.*]], %{{.*}}, %{{.*}} : !pto.tile<vec, 16x64xf16, valid = 16x44>, !pto.tile<vec, 16x48xf16, valid = 16x40>, !pto.tile<vec, 16x16xf16, valid = 16x4>
// CHECK: pto.tcvt %[[OFF16:.*]], %[[OFF]] round rint : !pto.tile<vec, 16x64xi16, valid = 16x44>, !pto.tile<vec, 16x64xi32, valid = 16x44>
// CHECK: pto.tscatter %{{.*}}, %[[ALL]], %[[OFF16]] : !pto.tile<vec, 16x48xf16, valid = 16x40>, !pto.tile<vec, 16x64xf16, valid = 16x44>, !pto.tile<vec, 16x64xi16, valid = 16x44>
func.func @put_f16(%x: memref<16x40xf16>, %ix: memref<16x4xi64>, %y: memref<16x40xf16>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<16x40xf16> -> !tile.tile<16x40xf16>
  %j = tile.load %ix[%c0, %c0] : memref<16x4xi64> -> !tile.tile<16x4xi64>
  %s = tile.constant 1.0 : !tile.tile<16x4xf16>
  %p = tile.put %t[%j], %s : !tile.tile<16x40xf16>, !tile.tile<16x4xi64>, !tile.tile<16x4xf16> -> !tile.tile<16x40xf16>
  tile.store %p, %y[%c0, %c0] : !tile.tile<16x40xf16>, memref<16x40xf16>
  return
}

// A one-column tile (DN): staged as column 0 of an ND tile (TTRANS) to be
// joined; its rows are 1 apart in the DN result.
// CHECK-LABEL: func.func @put_column_aiv(
// CHECK: pto.ttrans %[[STAGED:.*]], %{{.*}}, %{{.*}} : !pto.tile<vec, 16x8xf32, valid = 16x1>, !pto.tile<vec, 1x16xf32>
// CHECK: pto.tmuls %{{.*}}, %{{.*}}, %c1_i32
// CHECK: pto.tconcat %[[ALL:.*]], %[[STAGED]], %{{.*}} : !pto.tile<vec, 16x32xf32, valid = 16x4>, !pto.tile<vec, 16x8xf32, valid = 16x1>, !pto.tile<vec, 16x8xf32, valid = 16x3>
// CHECK: pto.tscatter %{{.*}}, %[[ALL]], %{{.*}} : !pto.tile<vec, 16x1xf32, blayout = col_major>, !pto.tile<vec, 16x32xf32, valid = 16x4>, !pto.tile<vec, 16x32xi32, valid = 16x4>
func.func @put_column(%x: memref<16x1xf32>, %ix: memref<16x3xi32>, %y: memref<16x1xf32>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<16x1xf32> -> !tile.tile<16x1xf32>
  %j = tile.load %ix[%c0, %c0] : memref<16x3xi32> -> !tile.tile<16x3xi32>
  %s = tile.constant 2.0 : !tile.tile<16x3xf32>
  %p = tile.put %t[%j], %s : !tile.tile<16x1xf32>, !tile.tile<16x3xi32>, !tile.tile<16x3xf32> -> !tile.tile<16x1xf32>
  tile.store %p, %y[%c0, %c0] : !tile.tile<16x1xf32>, memref<16x1xf32>
  return
}

// Rows into a tensor: MSCATTER (Coalesce::Row) into the view of columns
// 32..96 of the whole tensor, the row indices seen as one 1xR row. The loop
// scatters, so it stays in order: one task (no scalars), the tensor an output.
// CHECK-LABEL: func.func @scatter_aiv(
// CHECK: %[[T:.*]] = pto.alloc_tile valid [%[[N:.*]]] : !pto.tile<vec, 16x64xf16, valid = ?x64>
// CHECK: %[[J:.*]] = pto.alloc_tile valid [%[[N]]] : !pto.tile<vec, 16x1xi32, valid = ?x1, blayout = col_major>
// CHECK: %[[ROWS:.*]] = memref.dim %arg2, %{{.*}} : memref<?x128xf16>
// CHECK: %[[VIEW:.*]] = pto.global_view %arg2[%{{.*}}, %c32] sizes [%[[ROWS]]] dims [0, 1] : memref<?x128xf16> -> !pto.gtensor<?x64xf16>
// CHECK: %[[ROW:.*]] = pto.tile_view %[[J]] valid [%[[N]]] : !pto.tile<vec, 16x1xi32, valid = ?x1, blayout = col_major> -> !pto.tile<vec, 1x16xi32, valid = 1x?>
// CHECK: pto.mscatter %[[VIEW]], %[[T]], %[[ROW]] : !pto.gtensor<?x64xf16>, !pto.tile<vec, 16x64xf16, valid = ?x64>, !pto.tile<vec, 1x16xi32, valid = 1x?>
// CHECK-LABEL: func.func @scatter(
// CHECK: pto.submit @scatter_aiv ins(%arg0, %arg1 : memref<?x64xf16>, memref<?x1xi32>) outs(%arg2 : memref<?x128xf16>)
// CHECK-NOT: scalars
func.func @scatter(%x: memref<?x64xf16>, %rows: memref<?x1xi32>, %y: memref<?x128xf16>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %n = memref.dim %x, %c0 : memref<?x64xf16>
  scf.for %i = %c0 to %n step %c16 {
    %left = arith.subi %n, %i : index
    %r = arith.minsi %left, %c16 : index
    %t = tile.load %x[%i, %c0] valid [%r] : memref<?x64xf16> -> !tile.tile<16x64xf16, valid = ?x64>
    %j = tile.load %rows[%i, %c0] valid [%r] : memref<?x1xi32> -> !tile.tile<16x1xi32, valid = ?x1>
    tile.scatter %t, %y[%j, %c32] : !tile.tile<16x64xf16, valid = ?x64>, memref<?x128xf16>, !tile.tile<16x1xi32, valid = ?x1>
  }
  return
}

// A one-column i8 tile by i64 rows: the rows narrowed to i32 (TCVT), the
// column staged as column 0 of an ND tile (MSCATTER copies ND rows).
// CHECK-LABEL: func.func @scatter_column_aiv(
// CHECK: pto.tcvt %{{.*}}, %{{.*}} round rint : !pto.tile<vec, 1x16xi32>, !pto.tile<vec, 1x16xi64>
// CHECK: pto.ttrans %[[STAGED:.*]], %{{.*}}, %{{.*}} : !pto.tile<vec, 32x32xi8, valid = 16x1>
// CHECK: %[[VIEW:.*]] = pto.global_view %arg2[%{{.*}}, %c2] sizes [%{{.*}}] dims [0, 1] : memref<?x4xi8> -> !pto.gtensor<?x1xi8>
// CHECK: pto.mscatter %[[VIEW]], %[[STAGED]], %{{.*}} : !pto.gtensor<?x1xi8>, !pto.tile<vec, 32x32xi8, valid = 16x1>, !pto.tile<vec, 1x16xi32>
func.func @scatter_column(%x: memref<16x1xi8>, %rows: memref<16x1xi64>, %y: memref<?x4xi8>) attributes {htp.kernel} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %t = tile.load %x[%c0, %c0] : memref<16x1xi8> -> !tile.tile<16x1xi8>
  %j = tile.load %rows[%c0, %c0] : memref<16x1xi64> -> !tile.tile<16x1xi64>
  tile.scatter %t, %y[%j, %c2] : !tile.tile<16x1xi8>, memref<?x4xi8>, !tile.tile<16x1xi64>
  return
}
