// RUN: htp-opt %s --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s

// How tiles change shape on the vector core: transposes (TTRANS with its
// scratch tile; a row <-> column is a TMOV between views of the same bytes),
// one-column tiles meeting row-major tensors (through column 0 of an ND
// tile), gathers (MGATHER by whole rows, the indices seen as a row) and an
// outer broadcast (one operand expanded, the other fused).

// CHECK-LABEL: func.func @transpose_aiv
// CHECK: %[[X:.*]] = pto.alloc_tile : !pto.tile<vec, 32x64xf32>
// CHECK: pto.tload %[[X]]
// CHECK: %[[T:.*]] = pto.alloc_tile : !pto.tile<vec, 64x32xf32>
// CHECK-NEXT: %[[TMP:.*]] = pto.alloc_tile : !pto.tile<vec, 64x32xf32>
// CHECK-NEXT: pto.ttrans %[[T]], %[[X]], %[[TMP]] : !pto.tile<vec, 64x32xf32>, !pto.tile<vec, 32x64xf32>, !pto.tile<vec, 64x32xf32>
// CHECK: pto.tstore %{{.*}}, %[[T]]

// CHECK-LABEL: func.func @row_to_column_aiv
// CHECK: %[[ROW:.*]] = pto.alloc_tile : !pto.tile<vec, 1x64xf32>
// CHECK: %[[COL:.*]] = pto.alloc_tile : !pto.tile<vec, 64x1xf32, blayout = col_major>
// CHECK-NEXT: %[[SEEN:.*]] = pto.tile_view %[[COL]] : !pto.tile<vec, 64x1xf32, blayout = col_major> -> !pto.tile<vec, 1x64xf32>
// CHECK-NEXT: pto.tmov %[[SEEN]], %[[ROW]]
// A column into an [N, 1] tensor: a dn view along dimension 0.
// CHECK: %[[V:.*]] = pto.global_view %{{.*}} dims [0, 1] : memref<64x1xf32> -> !pto.gtensor<64x1xf32, layout = dn>
// CHECK-NEXT: pto.tstore %[[V]], %[[COL]]

// CHECK-LABEL: func.func @column_of_row_major_aiv
// Load column 3 of a row-major [N, 64] tensor: into column 0 of a 16x8 ND
// tile, then transposed (as a 1x16 row) into the column's bytes.
// CHECK: %[[C:.*]] = pto.alloc_tile : !pto.tile<vec, 16x1xf32, blayout = col_major>
// CHECK-NEXT: %[[STAGED:.*]] = pto.alloc_tile : !pto.tile<vec, 16x8xf32, valid = 16x1>
// CHECK-NEXT: %[[IN:.*]] = pto.global_view %{{.*}} dims [0, 1] : memref<?x64xf32> -> !pto.gtensor<16x1xf32>
// CHECK-NEXT: pto.tload %[[STAGED]], %[[IN]]
// CHECK-NEXT: %[[CROW:.*]] = pto.tile_view %[[C]] : !pto.tile<vec, 16x1xf32, blayout = col_major> -> !pto.tile<vec, 1x16xf32>
// CHECK-NEXT: %[[TMP1:.*]] = pto.alloc_tile : !pto.tile<vec, 8x16xf32>
// CHECK-NEXT: pto.ttrans %[[CROW]], %[[STAGED]], %[[TMP1]] : !pto.tile<vec, 1x16xf32>, !pto.tile<vec, 16x8xf32, valid = 16x1>, !pto.tile<vec, 8x16xf32>
// Store a row sum into column 5 of a row-major [N, 8] tensor: the reverse.
// CHECK: pto.tadd
// CHECK: %[[OUT:.*]] = pto.alloc_tile : !pto.tile<vec, 16x8xf32, valid = 16x1>
// CHECK-NEXT: %[[SROW:.*]] = pto.tile_view %{{.*}} : !pto.tile<vec, 16x1xf32, blayout = col_major> -> !pto.tile<vec, 1x16xf32>
// CHECK-NEXT: %[[TMP2:.*]] = pto.alloc_tile : !pto.tile<vec, 16x16xf32>
// CHECK-NEXT: pto.ttrans %[[OUT]], %[[SROW]], %[[TMP2]] : !pto.tile<vec, 16x8xf32, valid = 16x1>, !pto.tile<vec, 1x16xf32>, !pto.tile<vec, 16x16xf32>
// CHECK-NEXT: %[[G:.*]] = pto.global_view %{{.*}} dims [0, 1] : memref<?x8xf32> -> !pto.gtensor<16x1xf32>
// CHECK-NEXT: pto.tstore %[[G]], %[[OUT]]

// CHECK-LABEL: func.func @gather_aiv
// CHECK: %[[IDX:.*]] = pto.alloc_tile : !pto.tile<vec, 16x1xi32, blayout = col_major>
// CHECK: %[[ROWS:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: %[[N:.*]] = memref.dim %{{.*}}, %[[ZERO:.*]] : memref<?x128xf32>
// CHECK-NEXT: %[[TABLE:.*]] = pto.global_view %{{.*}}[%[[ZERO]], %{{.*}}] sizes [%[[N]]] dims [0, 1] : memref<?x128xf32> -> !pto.gtensor<?x64xf32>
// CHECK-NEXT: %[[IROW:.*]] = pto.tile_view %[[IDX]] : !pto.tile<vec, 16x1xi32, blayout = col_major> -> !pto.tile<vec, 1x16xi32>
// CHECK-NEXT: pto.mgather %[[ROWS]], %[[TABLE]], %[[IROW]]

// CHECK-LABEL: func.func @outer_aiv
// CHECK: pto.trowsum %[[RS:[^,]*]],
// CHECK: pto.tcolmax %[[CM:[^,]*]],
// CHECK: %[[E:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.trowexpand %[[E]], %[[RS]]
// CHECK: pto.tcolexpand_op mul %{{.*}}, %[[E]], %[[CM]]

// A bool tensor is a byte per element in GM, a mask tile packed bits: its
// bytes are loaded, converted to f16 and compared with 0 (TCMPS); stored, the
// mask selects 1 or 0 in f16 (TSEL) converted back to bytes.
// CHECK-LABEL: func.func @bool_tensors_aiv
// CHECK: %[[IN:.*]] = pto.global_view %{{.*}} : memref<?x64xi1> -> !pto.gtensor<16x64xi8>
// CHECK-NEXT: %[[BYTES:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xi8>
// CHECK-NEXT: pto.tload %[[BYTES]], %[[IN]]
// CHECK-NEXT: %[[HALF:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xf16>
// CHECK-NEXT: pto.tcvt %[[HALF]], %[[BYTES]] round rint
// CHECK-NEXT: %[[MASK:.*]] = pto.alloc_tile : !pto.tile<vec, 16x32xui8, valid = 16x8>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK-NEXT: pto.tcmps ne %[[MASK]], %[[HALF]], %[[ZERO]]
// CHECK: pto.tsel %[[SEL:[^,]*]], %[[MASK]],
// CHECK-NEXT: %[[OUT:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xi8>
// CHECK-NEXT: pto.tcvt %[[OUT]], %[[SEL]] round rint
// CHECK-NEXT: %[[V:.*]] = pto.global_view %{{.*}} : memref<?x64xi1> -> !pto.gtensor<16x64xi8>
// CHECK-NEXT: pto.tstore %[[V]], %[[OUT]]

// A broadcast mask is rewritten as a comparison of broadcast values: the
// column is expanded along the rows (TROWEXPAND), then compared whole.
// CHECK-LABEL: func.func @column_mask_aiv
// CHECK: pto.trowexpand %[[WIDE:[^,]*]], %{{.*}} : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
// CHECK: pto.tcmps gt %{{.*}}, %[[WIDE]]
// CHECK: pto.tsel

module {
  func.func @transpose(%x: memref<32x64xf32>, %y: memref<64x32xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
    %c0 = arith.constant 0 : index
    %t = tile.load %x[%c0, %c0] : memref<32x64xf32> -> !tile.tile<32x64xf32>
    %u = tile.transpose %t : !tile.tile<32x64xf32> -> !tile.tile<64x32xf32>
    tile.store %u, %y[%c0, %c0] : !tile.tile<64x32xf32>, memref<64x32xf32>
    return
  }
  func.func @row_to_column(%x: memref<16x64xf32>, %y: memref<64x1xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
    %c0 = arith.constant 0 : index
    %t = tile.load %x[%c0, %c0] : memref<16x64xf32> -> !tile.tile<1x64xf32>
    %u = tile.transpose %t : !tile.tile<1x64xf32> -> !tile.tile<64x1xf32>
    tile.store %u, %y[%c0, %c0] : !tile.tile<64x1xf32>, memref<64x1xf32>
    return
  }
  func.func @column_of_row_major(%x: memref<?x64xf32>, %y: memref<?x8xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %col = tile.load %x[%c0, %c3] : memref<?x64xf32> -> !tile.tile<16x1xf32>
    %t = tile.load %x[%c0, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
    %s = tile.row_reduce sum %t : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
    %v = tile.add %s, %col : !tile.tile<16x1xf32>, !tile.tile<16x1xf32>
    tile.store %v, %y[%c0, %c5] : !tile.tile<16x1xf32>, memref<?x8xf32>
    return
  }
  func.func @gather(%table: memref<?x128xf32>, %ids: memref<16x1xi32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 2>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %i = tile.load %ids[%c0, %c0] : memref<16x1xi32> -> !tile.tile<16x1xi32>
    %g = tile.gather %table[%i, %c64] : memref<?x128xf32>, !tile.tile<16x1xi32> -> !tile.tile<16x64xf32>
    tile.store %g, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
    return
  }
  func.func @outer(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
    %c0 = arith.constant 0 : index
    %t = tile.load %x[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
    %r = tile.row_reduce sum %t : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
    %c = tile.col_reduce max %t : !tile.tile<16x64xf32> -> !tile.tile<1x64xf32>
    %br = tile.broadcast %r : !tile.tile<16x1xf32> -> !tile.tile<16x64xf32>
    %bc = tile.broadcast %c : !tile.tile<1x64xf32> -> !tile.tile<16x64xf32>
    %p = tile.mul %br, %bc : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
    tile.store %p, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
    return
  }
  func.func @bool_tensors(%m: memref<?x64xi1>, %y: memref<?x64xi1>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
    %c0 = arith.constant 0 : index
    %mask = tile.load %m[%c0, %c0] : memref<?x64xi1> -> !tile.tile<16x64xi1>
    tile.store %mask, %y[%c0, %c0] : !tile.tile<16x64xi1>, memref<?x64xi1>
    return
  }
  func.func @column_mask(%x: memref<16x64xf32>, %y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %col = tile.load %x[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x1xf32>
    %t = tile.load %x[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
    %m = tile.cmp gt, %col, %zero : !tile.tile<16x1xf32>, f32
    %wide = tile.broadcast %m : !tile.tile<16x1xi1> -> !tile.tile<16x64xi1>
    %n = tile.neg %t : !tile.tile<16x64xf32>
    %s = tile.select %wide, %t, %n : !tile.tile<16x64xf32>
    tile.store %s, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
    return
  }
}
