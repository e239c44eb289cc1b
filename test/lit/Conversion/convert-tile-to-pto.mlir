// RUN: htp-opt %s --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s

// Row softmax: the kernel runs on the vector core over [task_begin, task_end),
// broadcasts fuse into TROWEXPANDSUB/DIV, and the orchestration splits the
// independent outer loop across the available AIV cores.
// CHECK-LABEL: func.func @softmax_aiv
// CHECK-SAME: (%{{.*}}: memref<?x256xf32>, %{{.*}}: memref<?x256xf32>, %[[LO:.*]]: index, %[[HI:.*]]: index) attributes {pto.core = "aiv"}
// CHECK: scf.for %{{.*}} = %[[LO]] to %[[HI]]
// CHECK: pto.tload
// CHECK: pto.trowmax %[[MAX:.*]], %[[T:.*]], %{{.*}} : !pto.tile<vec, 16x1xf32, valid = ?x1, blayout = col_major>
// CHECK: pto.trowexpand_op sub %{{.*}}, %[[T]], %[[MAX]]
// CHECK: pto.texp
// CHECK: pto.trowsum
// CHECK: pto.trowexpand_op div
// CHECK: pto.tstore
// CHECK-LABEL: func.func @softmax(%{{.*}}: memref<?x256xf32>, %{{.*}}: memref<?x256xf32>) attributes {htp.distribution = #layout.axe<[?@vector_core:1, ?@iter:1]>, pto.orchestration}
// CHECK: pto.available_cores "aiv"
// CHECK: scf.for
// CHECK: pto.submit @softmax_aiv ins(%{{.*}} : memref<?x256xf32>) outs(%{{.*}} : memref<?x256xf32>) scalars(
// tile.iota along the columns: TCI fills one 1x64 row (from 0), TCOLEXPAND
// copies it down the rows; `+ j` on an i32 tile is TADDS.
// CHECK-LABEL: func.func @iota_cols_aiv
// CHECK: %[[COLS:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xi32>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[ROW:.*]] = pto.alloc_tile : !pto.tile<vec, 1x64xi32>
// CHECK-NEXT: pto.tci %[[ROW]], %[[ZERO]] : !pto.tile<vec, 1x64xi32>, i32
// CHECK-NEXT: pto.tcolexpand %[[COLS]], %[[ROW]] : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 1x64xi32>
// CHECK: pto.tadds %{{.*}}, %[[COLS]], %arg1 : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>, i32
// CHECK: pto.tstore

// tile.iota along the rows: TCI fills a 1x16 row, seen (same bytes) as the
// 16x1 col_major column TROWEXPAND broadcasts along each row. A float iota
// is made in i32 and converted (TCVT); an iota along an extent of 1 is zeros.
// CHECK-LABEL: func.func @iota_rows_aiv
// CHECK: %[[ROWS:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xi32>
// CHECK: %[[R:.*]] = pto.alloc_tile : !pto.tile<vec, 1x16xi32>
// CHECK-NEXT: pto.tci %[[R]], %{{.*}} : !pto.tile<vec, 1x16xi32>, i32
// CHECK-NEXT: %[[C:.*]] = pto.tile_view %[[R]] : !pto.tile<vec, 1x16xi32> -> !pto.tile<vec, 16x1xi32, blayout = col_major>
// CHECK-NEXT: pto.trowexpand %[[ROWS]], %[[C]] : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x1xi32, blayout = col_major>
// CHECK: %[[F:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: %[[I:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xi32>
// CHECK: pto.tci %{{.*}} : !pto.tile<vec, 1x64xi32>, i32
// CHECK-NEXT: pto.tcolexpand %[[I]], %{{.*}}
// CHECK-NEXT: pto.tcvt %[[F]], %[[I]] round rint : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi32>
// CHECK: %[[Z:.*]] = pto.alloc_tile : !pto.tile<vec, 1x64xi32>
// CHECK: pto.texpands %[[Z]], %{{.*}} : !pto.tile<vec, 1x64xi32>, i32
// CHECK: pto.tstore

// tile.cmp into packed ui8 masks (a bit per column, 16x64 -> 16 rows of 8
// valid bytes in 32-byte rows). i32 compares only for equality on A2/A3:
// `eq` with a scalar is TCMPS on the i32 tile; `ge` with a scalar converts
// tile (TCVT) and scalar (sitofp) to f32; `gt` of two i32 tiles converts
// both. tile.select is TSEL with a ui32 scratch.
// CHECK-LABEL: func.func @compare_aiv
// CHECK: %[[EQ:.*]] = pto.alloc_tile : !pto.tile<vec, 16x32xui8, valid = 16x8>
// CHECK-NEXT: pto.tcmps eq %[[EQ]], %[[X:.*]], %arg2 : !pto.tile<vec, 16x32xui8, valid = 16x8>, !pto.tile<vec, 16x64xi32>, i32
// CHECK: %[[XF:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcvt %[[XF]], %[[X]] round rint : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi32>
// CHECK-NEXT: %[[GE:.*]] = pto.alloc_tile : !pto.tile<vec, 16x32xui8, valid = 16x8>
// CHECK-NEXT: %[[S:.*]] = arith.sitofp %arg2 : i32 to f32
// CHECK-NEXT: pto.tcmps ge %[[GE]], %[[XF]], %[[S]] : !pto.tile<vec, 16x32xui8, valid = 16x8>, !pto.tile<vec, 16x64xf32>, f32
// CHECK: pto.tcvt %[[A:.*]], %[[X]] round rint
// CHECK: %[[GT:.*]] = pto.alloc_tile : !pto.tile<vec, 16x32xui8, valid = 16x8>
// CHECK: pto.tcvt %[[B:.*]], %{{.*}} round rint
// CHECK-NEXT: pto.tcmp gt %[[GT]], %[[A]], %[[B]] : !pto.tile<vec, 16x32xui8, valid = 16x8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK: %[[TMP:.*]] = pto.alloc_tile : !pto.tile<vec, 1x8xui32>
// CHECK-NEXT: pto.tsel %{{.*}}, %[[GE]], %[[X]], %{{.*}}, %[[TMP]] : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x32xui8, valid = 16x8>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 1x8xui32>
// CHECK: pto.tsel %{{.*}}, %[[GT]],
// CHECK: pto.tsel %{{.*}}, %[[EQ]],
// CHECK: pto.tstore

// A ragged f32 tile: TCMPS on f32 directly; the mask keeps the run-time
// valid rows. dst, src0 and src1 of TSEL have one tile type (PTO-ISA's TSEL
// takes one C++ type for the three).
// CHECK-LABEL: func.func @select_ragged_aiv
// CHECK: %[[T:.*]] = pto.alloc_tile valid [%[[N:.*]]] : !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK: %[[M:.*]] = pto.alloc_tile valid [%[[N]]] : !pto.tile<vec, 16x32xui8, valid = ?x8>
// CHECK-NEXT: pto.tcmps ge %[[M]], %[[T]], %arg2 : !pto.tile<vec, 16x32xui8, valid = ?x8>, !pto.tile<vec, 16x64xf32, valid = ?x64>, f32
// CHECK: %[[V:.*]] = pto.tile_view %{{.*}} valid [%[[N]]] : !pto.tile<vec, 16x64xf32> -> !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK-NEXT: %[[DST:.*]] = pto.alloc_tile valid [%[[N]]] : !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK-NEXT: %[[TMP2:.*]] = pto.alloc_tile : !pto.tile<vec, 1x8xui32>
// CHECK-NEXT: pto.tsel %[[DST]], %[[M]], %[[V]], %[[T]], %[[TMP2]] : !pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x32xui8, valid = ?x8>, !pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 1x8xui32>

// A weight row loaded before the split loop (`tile-reuse-loads` hoists it
// there): each task's kernel loads it once, before its trips; the
// orchestration replays only the scalar code that bounds the tasks.
// CHECK-LABEL: func.func @scale_rows_aiv
// CHECK-SAME: %[[LO:[^:]*]]: index, %[[HI:[^:]*]]: index) attributes {pto.core = "aiv"}
// CHECK: %[[W:.*]] = pto.global_view %arg1
// CHECK: pto.tload %{{.*}}, %[[W]]
// CHECK: scf.for %{{.*}} = %[[LO]] to %[[HI]]
// CHECK: pto.global_view %arg0
// CHECK-NOT: %arg1
// CHECK: pto.tstore
// CHECK-LABEL: func.func @scale_rows(
// CHECK-NOT: pto.tload
// CHECK: pto.available_cores "aiv"
// CHECK: pto.submit @scale_rows_aiv

module {
  func.func @softmax(%arg0: memref<?x256xf32>, %arg1: memref<?x256xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>, llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %dim = memref.dim %arg0, %c0 : memref<?x256xf32>
    %c0_0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    scf.for %arg2 = %c0_0 to %dim step %c16 {
      %0 = arith.subi %dim, %arg2 : index
      %c16_1 = arith.constant 16 : index
      %1 = arith.minsi %0, %c16_1 : index
      %c0_2 = arith.constant 0 : index
      %2 = tile.load %arg0[%arg2, %c0_2] valid [%1] : memref<?x256xf32> -> !tile.tile<16x256xf32, valid = ?x256>
      %3 = tile.row_reduce max %2 : !tile.tile<16x256xf32, valid = ?x256> -> !tile.tile<16x1xf32, valid = ?x1>
      %4 = tile.broadcast %3 : !tile.tile<16x1xf32, valid = ?x1> -> !tile.tile<16x256xf32, valid = ?x256>
      %5 = tile.sub %2, %4 : !tile.tile<16x256xf32, valid = ?x256>
      %6 = tile.exp %5 : !tile.tile<16x256xf32, valid = ?x256>
      %7 = tile.row_reduce sum %6 : !tile.tile<16x256xf32, valid = ?x256> -> !tile.tile<16x1xf32, valid = ?x1>
      %8 = tile.broadcast %7 : !tile.tile<16x1xf32, valid = ?x1> -> !tile.tile<16x256xf32, valid = ?x256>
      %9 = tile.div %6, %8 : !tile.tile<16x256xf32, valid = ?x256>
      %10 = arith.subi %dim, %arg2 : index
      %c16_3 = arith.constant 16 : index
      %11 = arith.minsi %10, %c16_3 : index
      %c0_4 = arith.constant 0 : index
      tile.store %9, %arg1[%arg2, %c0_4] : !tile.tile<16x256xf32, valid = ?x256>, memref<?x256xf32>
    }
    return
  }
  func.func @iota_cols(%out: memref<16x64xi32>, %j: i32) attributes {htp.kernel, htp.outputs = array<i64: 0>} {
    %c0 = arith.constant 0 : index
    %cols = tile.iota 1 : !tile.tile<16x64xi32>
    %s = tile.add %cols, %j : !tile.tile<16x64xi32>, i32
    tile.store %s, %out[%c0, %c0] : !tile.tile<16x64xi32>, memref<16x64xi32>
    return
  }
  func.func @iota_rows(%out: memref<16x64xi32>, %outf: memref<16x64xf32>, %outz: memref<1x64xi32>) attributes {htp.kernel, htp.outputs = array<i64: 0, 1, 2>} {
    %c0 = arith.constant 0 : index
    %rows = tile.iota 0 : !tile.tile<16x64xi32>
    tile.store %rows, %out[%c0, %c0] : !tile.tile<16x64xi32>, memref<16x64xi32>
    %f = tile.iota 1 : !tile.tile<16x64xf32>
    tile.store %f, %outf[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
    %z = tile.iota 0 : !tile.tile<1x64xi32>
    tile.store %z, %outz[%c0, %c0] : !tile.tile<1x64xi32>, memref<1x64xi32>
    return
  }
  func.func @compare(%in: memref<16x64xi32>, %out: memref<16x64xi32>, %s: i32) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
    %c0 = arith.constant 0 : index
    %x = tile.load %in[%c0, %c0] : memref<16x64xi32> -> !tile.tile<16x64xi32>
    %eq = tile.cmp eq, %x, %s : !tile.tile<16x64xi32>, i32
    %ge = tile.cmp ge, %x, %s : !tile.tile<16x64xi32>, i32
    %rows = tile.iota 0 : !tile.tile<16x64xi32>
    %gt = tile.cmp gt, %x, %rows : !tile.tile<16x64xi32>
    %zero = tile.constant 0 : !tile.tile<16x64xi32>
    %a = tile.select %ge, %x, %zero : !tile.tile<16x64xi32>
    %b = tile.select %gt, %a, %rows : !tile.tile<16x64xi32>
    %c = tile.select %eq, %zero, %b : !tile.tile<16x64xi32>
    tile.store %c, %out[%c0, %c0] : !tile.tile<16x64xi32>, memref<16x64xi32>
    return
  }
  func.func @select_ragged(%in: memref<?x64xf32>, %out: memref<?x64xf32>, %limit: f32) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %dim = memref.dim %in, %c0 : memref<?x64xf32>
    %n = arith.minsi %dim, %c16 : index
    %t = tile.load %in[%c0, %c0] valid [%n] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
    %m = tile.cmp ge, %t, %limit : !tile.tile<16x64xf32, valid = ?x64>, f32
    %big = tile.constant -1.0e30 : !tile.tile<16x64xf32>
    %bigv = tile.set_valid %big valid [%n] : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
    %r = tile.select %m, %bigv, %t : !tile.tile<16x64xf32, valid = ?x64>
    tile.store %r, %out[%c0, %c0] : !tile.tile<16x64xf32, valid = ?x64>, memref<?x64xf32>
    return
  }
  func.func @scale_rows(%x: memref<?x64xf32>, %w: memref<1x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 2>} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %n = memref.dim %x, %c0 : memref<?x64xf32>
    %wt = tile.load %w[%c0, %c0] : memref<1x64xf32> -> !tile.tile<1x64xf32>
    scf.for %i = %c0 to %n step %c16 {
      %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
      %b = tile.broadcast %wt : !tile.tile<1x64xf32> -> !tile.tile<16x64xf32>
      %m = tile.mul %t, %b : !tile.tile<16x64xf32>
      tile.store %m, %y[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
    }
    return
  }
}
