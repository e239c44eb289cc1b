// RUN: htp-opt %s | htp-opt | FileCheck %s
// RUN: htp-opt %s --mlir-print-op-generic | htp-opt | FileCheck %s
//
// Round trip of every pto op and of the !pto.tile / !pto.gtensor types,
// through both the custom and the generic form. Ops write their destination
// in place (they have memory effects), so nothing here is dead.

!v = !pto.tile<vec, 16x64xf32>
!vh = !pto.tile<vec, 16x64xf16>
!vi = !pto.tile<vec, 16x64xi32>
!col = !pto.tile<vec, 16x1xf32, blayout = col_major>
!row = !pto.tile<vec, 1x64xf32>
!nz = !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
!g = !pto.gtensor<16x64xf32>

// The tile type: every location, element type and parameter; defaults
// (including a valid region equal to the shape) are not printed.
// CHECK-LABEL: func.func private @tile_locations(!pto.tile<vec, 16x64xf32>, !pto.tile<mat, 16x64xf32>, !pto.tile<left, 16x16xf16>, !pto.tile<right, 16x16xbf16>, !pto.tile<acc, 16x16xi32>, !pto.tile<bias, 1x64xf32>)
func.func private @tile_locations(!pto.tile<vec, 16x64xf32>, !pto.tile<mat, 16x64xf32>, !pto.tile<left, 16x16xf16>, !pto.tile<right, 16x16xbf16>, !pto.tile<acc, 16x16xi32>, !pto.tile<bias, 1x64xf32>)
// CHECK-LABEL: func.func private @tile_elements(!pto.tile<vec, 1x8xf32>, !pto.tile<vec, 1x16xf16>, !pto.tile<vec, 1x16xbf16>, !pto.tile<vec, 1x32xi8>, !pto.tile<vec, 1x16xi16>, !pto.tile<vec, 1x8xi32>, !pto.tile<vec, 1x4xi64>, !pto.tile<vec, 1x32xui8>, !pto.tile<vec, 1x16xui16>, !pto.tile<vec, 1x8xui32>)
func.func private @tile_elements(!pto.tile<vec, 1x8xf32>, !pto.tile<vec, 1x16xf16>, !pto.tile<vec, 1x16xbf16>, !pto.tile<vec, 1x32xi8>, !pto.tile<vec, 1x16xi16>, !pto.tile<vec, 1x8xi32>, !pto.tile<vec, 1x4xi64>, !pto.tile<vec, 1x32xui8>, !pto.tile<vec, 1x16xui16>, !pto.tile<vec, 1x8xui32>)
// CHECK-LABEL: func.func private @tile_valid(!pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x64xf32, valid = 8x?>, !pto.tile<vec, 16x64xf32, valid = ?x?>, !pto.tile<vec, 16x64xf32>)
func.func private @tile_valid(!pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x64xf32, valid = 8x?>, !pto.tile<vec, 16x64xf32, valid = ?x?>, !pto.tile<vec, 16x64xf32, valid = 16x64>)
// CHECK-LABEL: func.func private @tile_layouts(!pto.tile<vec, 8x1xf32, valid = 3x1, blayout = col_major>, !pto.tile<mat, 32x32xf16, blayout = col_major, slayout = row_major>, !pto.tile<mat, 32x32xf16, slayout = col_major>, !pto.tile<mat, 32x16xf32, blayout = col_major, slayout = row_major, fractal = 1024>, !pto.tile<vec, 3x16xf16, slayout = row_major>, !pto.tile<vec, 16x64xf32>)
func.func private @tile_layouts(!pto.tile<vec, 8x1xf32, valid = 3x1, blayout = col_major>, !pto.tile<mat, 32x32xf16, blayout = col_major, slayout = row_major>, !pto.tile<mat, 32x32xf16, slayout = col_major>, !pto.tile<mat, 32x16xf32, blayout = col_major, slayout = row_major, fractal = 1024>, !pto.tile<vec, 3x16xf16, slayout = row_major>, !pto.tile<vec, 16x64xf32, blayout = row_major, slayout = none, fractal = 512, pad = null>)
// CHECK-LABEL: func.func private @tile_pads(!pto.tile<vec, 16x64xf32, pad = zero>, !pto.tile<vec, 16x64xf32, valid = ?x?, pad = max>, !pto.tile<vec, 16x64xf32, pad = min>)
func.func private @tile_pads(!pto.tile<vec, 16x64xf32, pad = zero>, !pto.tile<vec, 16x64xf32, valid = ?x?, pad = max>, !pto.tile<vec, 16x64xf32, pad = min>)
// CHECK-LABEL: func.func private @gtensors(!pto.gtensor<16x64xf32>, !pto.gtensor<?x64xf16>, !pto.gtensor<?x1xf32, layout = dn>, !pto.gtensor<?x?xbf16, layout = nz>, !pto.gtensor<1x8xui32>)
func.func private @gtensors(!pto.gtensor<16x64xf32>, !pto.gtensor<?x64xf16, layout = nd>, !pto.gtensor<?x1xf32, layout = dn>, !pto.gtensor<?x?xbf16, layout = nz>, !pto.gtensor<1x8xui32>)

// CHECK-LABEL: func.func @alloc(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: index, %[[ARG1:[a-zA-Z0-9_]+]]: index) {
// CHECK-NEXT: %[[V0:[a-zA-Z0-9_]+]] = pto.alloc_tile : !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: %[[V1:[a-zA-Z0-9_]+]] = pto.alloc_tile addr 0 : !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: %[[V2:[a-zA-Z0-9_]+]] = pto.alloc_tile valid [%[[ARG0]]] addr 4096 : !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK-NEXT: %[[V3:[a-zA-Z0-9_]+]] = pto.alloc_tile valid [%[[ARG0]], %[[ARG1]]] : !pto.tile<vec, 16x64xf32, valid = ?x?>
// CHECK-NEXT: %[[V4:[a-zA-Z0-9_]+]] = pto.alloc_tile addr 184320 : !pto.tile<vec, 8x256xf16>
// CHECK-NEXT: %[[V5:[a-zA-Z0-9_]+]] = pto.alloc_tile addr 0 : !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
// CHECK-NEXT: %[[V6:[a-zA-Z0-9_]+]] = pto.alloc_tile addr 0 : !pto.tile<left, 128x256xf16>
// CHECK-NEXT: %[[V7:[a-zA-Z0-9_]+]] = pto.alloc_tile addr 32768 : !pto.tile<right, 128x128xf16>
// CHECK-NEXT: %[[V8:[a-zA-Z0-9_]+]] = pto.alloc_tile addr 0 : !pto.tile<acc, 256x128xf32>
// CHECK-NEXT: %[[V9:[a-zA-Z0-9_]+]] = pto.alloc_tile addr 768 : !pto.tile<bias, 1x64xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @alloc(%r: index, %c: index) {
  %a = pto.alloc_tile : !v
  %b = pto.alloc_tile addr 0 : !v
  %d = pto.alloc_tile valid [%r] addr 4096 : !pto.tile<vec, 16x64xf32, valid = ?x64>
  %e = pto.alloc_tile valid [%r, %c] : !pto.tile<vec, 16x64xf32, valid = ?x?>
  %f = pto.alloc_tile addr 184320 : !pto.tile<vec, 8x256xf16>
  %m = pto.alloc_tile addr 0 : !nz
  %l = pto.alloc_tile addr 0 : !pto.tile<left, 128x256xf16>
  %rr = pto.alloc_tile addr 32768 : !pto.tile<right, 128x128xf16>
  %acc = pto.alloc_tile addr 0 : !pto.tile<acc, 256x128xf32>
  %bias = pto.alloc_tile addr 768 : !pto.tile<bias, 1x64xf32>
  return
}

// CHECK-LABEL: func.func @views(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: memref<128x256xf32>, %[[ARG1:[a-zA-Z0-9_]+]]: memref<?x64xf16>, %[[ARG2:[a-zA-Z0-9_]+]]: memref<1024xf32>, %[[ARG3:[a-zA-Z0-9_]+]]: memref<4x128x256xf32>, %[[ARG4:[a-zA-Z0-9_]+]]: index, %[[ARG5:[a-zA-Z0-9_]+]]: index) {
// CHECK-NEXT: %[[C0:[a-zA-Z0-9_]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[V0:[a-zA-Z0-9_]+]] = pto.global_view %[[ARG0]][%[[ARG4]], %[[C0]]] dims [0, 1] : memref<128x256xf32> -> !pto.gtensor<16x256xf32>
// CHECK-NEXT: %[[V1:[a-zA-Z0-9_]+]] = pto.global_view %[[ARG1]][%[[ARG4]], %[[C0]]] sizes [%[[ARG5]]] dims [0, 1] : memref<?x64xf16> -> !pto.gtensor<?x64xf16>
// CHECK-NEXT: %[[V2:[a-zA-Z0-9_]+]] = pto.global_view %[[ARG2]][%[[ARG4]]] dims [-1, 0] : memref<1024xf32> -> !pto.gtensor<1x64xf32>
// CHECK-NEXT: %[[V3:[a-zA-Z0-9_]+]] = pto.global_view %[[ARG3]][%[[ARG4]], %[[C0]], %[[C0]]] sizes [%[[ARG5]], %[[ARG5]]] dims [1, 2] : memref<4x128x256xf32> -> !pto.gtensor<?x?xf32>
// CHECK-NEXT: %[[V4:[a-zA-Z0-9_]+]] = pto.global_view %[[ARG0]][%[[C0]], %[[ARG4]]] dims [1, 0] : memref<128x256xf32> -> !pto.gtensor<64x16xf32, layout = dn>
// CHECK-NEXT: %[[V5:[a-zA-Z0-9_]+]] = pto.global_view %[[ARG0]][%[[C0]], %[[C0]]] dims [0, 1] : memref<128x256xf32> -> !pto.gtensor<128x256xf32, layout = nz>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @views(%A: memref<128x256xf32>, %B: memref<?x64xf16>, %x: memref<1024xf32>, %C: memref<4x128x256xf32>, %i: index, %n: index) {
  %c0 = arith.constant 0 : index
  %g = pto.global_view %A[%i, %c0] dims [0, 1] : memref<128x256xf32> -> !pto.gtensor<16x256xf32>
  %h = pto.global_view %B[%i, %c0] sizes [%n] dims [0, 1] : memref<?x64xf16> -> !pto.gtensor<?x64xf16>
  %v = pto.global_view %x[%i] dims [-1, 0] : memref<1024xf32> -> !pto.gtensor<1x64xf32>
  %w = pto.global_view %C[%i, %c0, %c0] sizes [%n, %n] dims [1, 2] : memref<4x128x256xf32> -> !pto.gtensor<?x?xf32>
  %dn = pto.global_view %A[%c0, %i] dims [1, 0] : memref<128x256xf32> -> !pto.gtensor<64x16xf32, layout = dn>
  %nz = pto.global_view %A[%c0, %c0] dims [0, 1] : memref<128x256xf32> -> !pto.gtensor<128x256xf32, layout = nz>
  return
}

// A column of an [N, 1] tensor: its rows are contiguous, so a dn view walks
// them along dimension 0.
// CHECK-LABEL: func.func @column_view(
// CHECK: pto.global_view %{{.*}}[%{{.*}}, %{{.*}}] dims [0, 1] : memref<64x1xf32> -> !pto.gtensor<16x1xf32, layout = dn>
func.func @column_view(%S: memref<64x1xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %col = pto.global_view %S[%i, %c0] dims [0, 1] : memref<64x1xf32> -> !pto.gtensor<16x1xf32, layout = dn>
  return
}

// A bool tensor is one byte per element in GM: viewed as i8.
// CHECK-LABEL: func.func @bool_bytes(
// CHECK: pto.global_view %{{.*}}[%{{.*}}, %{{.*}}] dims [0, 1] : memref<?x64xi1> -> !pto.gtensor<16x64xi8>
func.func @bool_bytes(%M: memref<?x64xi1>, %i: index) {
  %c0 = arith.constant 0 : index
  %bytes = pto.global_view %M[%i, %c0] dims [0, 1] : memref<?x64xi1> -> !pto.gtensor<16x64xi8>
  return
}

// CHECK-LABEL: func.func @create_tensor() {
// CHECK-NEXT: %[[V0:[a-zA-Z0-9_]+]] = pto.create_tensor : memref<128x256xf32>
// CHECK-NEXT: %[[V1:[a-zA-Z0-9_]+]] = pto.create_tensor : memref<2x3x4x5x8xbf16>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @create_tensor() {
  %t = pto.create_tensor : memref<128x256xf32>
  %u = pto.create_tensor : memref<2x3x4x5x8xbf16>
  return
}

// CHECK-LABEL: func.func @load_store(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.gtensor<16x64xf32>, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, %[[ARG3:[a-zA-Z0-9_]+]]: !pto.gtensor<64x64xf16>, %[[ARG4:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x1xf32, blayout = col_major>, %[[ARG5:[a-zA-Z0-9_]+]]: !pto.gtensor<16x1xf32, layout = dn>, %[[ARG6:[a-zA-Z0-9_]+]]: !pto.gtensor<64x64xf16, layout = nz>, %[[ARG7:[a-zA-Z0-9_]+]]: !pto.tile<acc, 128x128xf32>, %[[ARG8:[a-zA-Z0-9_]+]]: !pto.gtensor<128x128xf16>, %[[ARG9:[a-zA-Z0-9_]+]]: !pto.gtensor<128x128xf32, layout = nz>, %[[ARG10:[a-zA-Z0-9_]+]]: !pto.tile<vec, 1x64xf32>, %[[ARG11:[a-zA-Z0-9_]+]]: !pto.gtensor<1x64xf32, layout = dn>) {
// CHECK-NEXT: pto.tload %[[ARG0]], %[[ARG1]] : !pto.tile<vec, 16x64xf32>, !pto.gtensor<16x64xf32>
// CHECK-NEXT: pto.tload %[[ARG2]], %[[ARG3]] : !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, !pto.gtensor<64x64xf16>
// CHECK-NEXT: pto.tload %[[ARG2]], %[[ARG6]] : !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, !pto.gtensor<64x64xf16, layout = nz>
// CHECK-NEXT: pto.tload %[[ARG4]], %[[ARG5]] : !pto.tile<vec, 16x1xf32, blayout = col_major>, !pto.gtensor<16x1xf32, layout = dn>
// CHECK-NEXT: pto.tstore %[[ARG1]], %[[ARG0]] : !pto.gtensor<16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tstore %[[ARG1]], %[[ARG0]] atomic_add : !pto.gtensor<16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tstore %[[ARG8]], %[[ARG7]] : !pto.gtensor<128x128xf16>, !pto.tile<acc, 128x128xf32>
// CHECK-NEXT: pto.tstore %[[ARG9]], %[[ARG7]] atomic_add : !pto.gtensor<128x128xf32, layout = nz>, !pto.tile<acc, 128x128xf32>
// CHECK-NEXT: pto.tstore %[[ARG11]], %[[ARG10]] : !pto.gtensor<1x64xf32, layout = dn>, !pto.tile<vec, 1x64xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @load_store(%t: !v, %g: !g, %m: !nz, %gh: !pto.gtensor<64x64xf16>, %col: !col, %gdn: !pto.gtensor<16x1xf32, layout = dn>, %gnz: !pto.gtensor<64x64xf16, layout = nz>, %acc: !pto.tile<acc, 128x128xf32>, %gacc: !pto.gtensor<128x128xf16>, %gaccnz: !pto.gtensor<128x128xf32, layout = nz>, %row: !row, %growdn: !pto.gtensor<1x64xf32, layout = dn>) {
  pto.tload %t, %g : !v, !g
  pto.tload %m, %gh : !nz, !pto.gtensor<64x64xf16>
  pto.tload %m, %gnz : !nz, !pto.gtensor<64x64xf16, layout = nz>
  pto.tload %col, %gdn : !col, !pto.gtensor<16x1xf32, layout = dn>
  pto.tstore %g, %t : !g, !v
  pto.tstore %g, %t atomic_add : !g, !v
  pto.tstore %gacc, %acc : !pto.gtensor<128x128xf16>, !pto.tile<acc, 128x128xf32>
  pto.tstore %gaccnz, %acc atomic_add : !pto.gtensor<128x128xf32, layout = nz>, !pto.tile<acc, 128x128xf32>
  pto.tstore %growdn, %row : !pto.gtensor<1x64xf32, layout = dn>, !row
  return
}

// CHECK-LABEL: func.func @gather(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<vec, 8x128xf16>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.gtensor<?x128xf16>, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<vec, 8x1xi32, blayout = col_major>, %[[ARG3:[a-zA-Z0-9_]+]]: !pto.tile<vec, 1x8xi32>) {
// CHECK-NEXT: pto.mgather %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 8x128xf16>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x1xi32, blayout = col_major>
// CHECK-NEXT: pto.mgather %[[ARG0]], %[[ARG1]], %[[ARG3]] : !pto.tile<vec, 8x128xf16>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 1x8xi32>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @gather(%dst: !pto.tile<vec, 8x128xf16>, %table: !pto.gtensor<?x128xf16>, %idx: !pto.tile<vec, 8x1xi32, blayout = col_major>, %idxrow: !pto.tile<vec, 1x8xi32>) {
  pto.mgather %dst, %table, %idx : !pto.tile<vec, 8x128xf16>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x1xi32, blayout = col_major>
  pto.mgather %dst, %table, %idxrow : !pto.tile<vec, 8x128xf16>, !pto.gtensor<?x128xf16>, !pto.tile<vec, 1x8xi32>
  return
}

// Ten rows gathered by an index row allocated for sixteen: the valid regions pair up.
// CHECK-LABEL: func.func @gather_ten(
// CHECK-NEXT: pto.mgather %{{.*}}, %{{.*}}, %{{.*}} : !pto.tile<vec, 10x64xf32>, !pto.gtensor<?x64xf32>, !pto.tile<vec, 1x16xi32, valid = 1x10>
func.func @gather_ten(%dst: !pto.tile<vec, 10x64xf32>, %table: !pto.gtensor<?x64xf32>, %idx: !pto.tile<vec, 1x16xi32, valid = 1x10>) {
  pto.mgather %dst, %table, %idx : !pto.tile<vec, 10x64xf32>, !pto.gtensor<?x64xf32>, !pto.tile<vec, 1x16xi32, valid = 1x10>
  return
}

// Rows scattered into a GM table by a 1xR index row (what A2/A3 reads); ten
// valid rows of an i8 tile whose rows are padded.
// CHECK-LABEL: func.func @scatter(
// CHECK-NEXT: pto.mscatter %{{.*}}, %{{.*}}, %{{.*}} : !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x128xf16>, !pto.tile<vec, 1x8xi32>
// CHECK-NEXT: pto.mscatter %{{.*}}, %{{.*}}, %{{.*}} : !pto.gtensor<?x1xi8>, !pto.tile<vec, 32x32xi8, valid = 10x1>, !pto.tile<vec, 1x16xi32, valid = 1x10>
func.func @scatter(%table: !pto.gtensor<?x128xf16>, %src: !pto.tile<vec, 8x128xf16>, %idx: !pto.tile<vec, 1x8xi32>,
                   %bytes: !pto.gtensor<?x1xi8>, %b: !pto.tile<vec, 32x32xi8, valid = 10x1>, %ten: !pto.tile<vec, 1x16xi32, valid = 1x10>) {
  pto.mscatter %table, %src, %idx : !pto.gtensor<?x128xf16>, !pto.tile<vec, 8x128xf16>, !pto.tile<vec, 1x8xi32>
  pto.mscatter %bytes, %b, %ten : !pto.gtensor<?x1xi8>, !pto.tile<vec, 32x32xi8, valid = 10x1>, !pto.tile<vec, 1x16xi32, valid = 1x10>
  return
}

// CHECK-LABEL: func.func @moves(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.tile<left, 64x64xf16>, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<right, 64x64xf16>, %[[ARG3:[a-zA-Z0-9_]+]]: !pto.tile<mat, 1x64xf32>, %[[ARG4:[a-zA-Z0-9_]+]]: !pto.tile<bias, 1x64xf32>, %[[ARG5:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG6:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG7:[a-zA-Z0-9_]+]]: !pto.tile<acc, 64x64xf32>, %[[ARG8:[a-zA-Z0-9_]+]]: index) {
// CHECK-NEXT: pto.tmov %[[ARG1]], %[[ARG0]] : !pto.tile<left, 64x64xf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
// CHECK-NEXT: pto.tmov %[[ARG2]], %[[ARG0]] : !pto.tile<right, 64x64xf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
// CHECK-NEXT: pto.tmov %[[ARG4]], %[[ARG3]] : !pto.tile<bias, 1x64xf32>, !pto.tile<mat, 1x64xf32>
// CHECK-NEXT: pto.tmov %[[ARG6]], %[[ARG5]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tmov %[[ARG0]], %[[ARG7]] : !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, !pto.tile<acc, 64x64xf32>
// CHECK-NEXT: %[[C0:[a-zA-Z0-9_]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[C32:[a-zA-Z0-9_]+]] = arith.constant 32 : index
// CHECK-NEXT: pto.textract %[[ARG1]], %[[ARG0]][%[[C0]], %[[C0]]] : !pto.tile<left, 64x64xf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
// CHECK-NEXT: pto.textract %[[ARG2]], %[[ARG0]][%[[ARG8]], %[[ARG8]]] : !pto.tile<right, 64x64xf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
// CHECK-NEXT: %[[V0:[a-zA-Z0-9_]+]] = pto.alloc_tile : !pto.tile<left, 32x32xf16>
// CHECK-NEXT: pto.textract %[[V0]], %[[ARG0]][%[[C32]], %[[C32]]] : !pto.tile<left, 32x32xf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @moves(%m: !nz, %l: !pto.tile<left, 64x64xf16>, %r: !pto.tile<right, 64x64xf16>, %mb: !pto.tile<mat, 1x64xf32>, %b: !pto.tile<bias, 1x64xf32>, %v: !v, %w: !v, %acc: !pto.tile<acc, 64x64xf32>, %i: index) {
  pto.tmov %l, %m : !pto.tile<left, 64x64xf16>, !nz
  pto.tmov %r, %m : !pto.tile<right, 64x64xf16>, !nz
  pto.tmov %b, %mb : !pto.tile<bias, 1x64xf32>, !pto.tile<mat, 1x64xf32>
  pto.tmov %w, %v : !v, !v
  pto.tmov %m, %acc : !nz, !pto.tile<acc, 64x64xf32>
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  pto.textract %l, %m[%c0, %c0] : !pto.tile<left, 64x64xf16>, !nz
  pto.textract %r, %m[%i, %i] : !pto.tile<right, 64x64xf16>, !nz
  %small = pto.alloc_tile : !pto.tile<left, 32x32xf16>
  pto.textract %small, %m[%c32, %c32] : !pto.tile<left, 32x32xf16>, !nz
  return
}

// CHECK-LABEL: func.func @binary(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG3:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf16>, %[[ARG4:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xi32>, %[[ARG5:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xi16>) {
// CHECK-NEXT: pto.tadd %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tsub %[[ARG0]], %[[ARG0]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tmul %[[ARG3]], %[[ARG3]], %[[ARG3]] : !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xf16>
// CHECK-NEXT: pto.tdiv %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tmax %[[ARG4]], %[[ARG4]], %[[ARG4]] : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
// CHECK-NEXT: pto.tmin %[[ARG5]], %[[ARG5]], %[[ARG5]] : !pto.tile<vec, 16x64xi16>, !pto.tile<vec, 16x64xi16>, !pto.tile<vec, 16x64xi16>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @binary(%d: !v, %a: !v, %b: !v, %h: !vh, %i: !vi, %s16: !pto.tile<vec, 16x64xi16>) {
  pto.tadd %d, %a, %b : !v, !v, !v
  pto.tsub %d, %d, %b : !v, !v, !v
  pto.tmul %h, %h, %h : !vh, !vh, !vh
  pto.tdiv %d, %a, %b : !v, !v, !v
  pto.tmax %i, %i, %i : !vi, !vi, !vi
  pto.tmin %s16, %s16, %s16 : !pto.tile<vec, 16x64xi16>, !pto.tile<vec, 16x64xi16>, !pto.tile<vec, 16x64xi16>
  return
}

// CHECK-LABEL: func.func @valid_regions(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32, valid = ?x64>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32, valid = 8x64>, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>) {
// CHECK-NEXT: pto.tmul %[[ARG0]], %[[ARG1]], %[[ARG0]] : !pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x64xf32, valid = 8x64>, !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @valid_regions(%d: !pto.tile<vec, 16x64xf32, valid = ?x64>, %a: !pto.tile<vec, 16x64xf32, valid = 8x64>, %b: !v) {
  pto.tmul %d, %a, %d : !pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x64xf32, valid = 8x64>, !pto.tile<vec, 16x64xf32, valid = ?x64>
  return
}

// CHECK-LABEL: func.func @tile_scalar(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG2:[a-zA-Z0-9_]+]]: f32, %[[ARG3:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xi32>, %[[ARG4:[a-zA-Z0-9_]+]]: i32, %[[ARG5:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xui16>, %[[ARG6:[a-zA-Z0-9_]+]]: i16, %[[ARG7:[a-zA-Z0-9_]+]]: ui16) {
// CHECK-NEXT: pto.tadds %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, f32
// CHECK-NEXT: pto.tsubs %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, f32
// CHECK-NEXT: pto.tmuls %[[ARG3]], %[[ARG3]], %[[ARG4]] : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>, i32
// CHECK-NEXT: pto.tdivs %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, f32
// CHECK-NEXT: pto.tdivs %[[ARG0]], %[[ARG1]], %[[ARG2]] reverse : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, f32
// CHECK-NEXT: pto.tmaxs %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, f32
// CHECK-NEXT: pto.tmins %[[ARG3]], %[[ARG3]], %[[ARG4]] : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>, i32
// CHECK-NEXT: pto.texpands %[[ARG0]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, f32
// CHECK-NEXT: pto.texpands %[[ARG5]], %[[ARG6]] : !pto.tile<vec, 16x64xui16>, i16
// CHECK-NEXT: pto.texpands %[[ARG5]], %[[ARG7]] : !pto.tile<vec, 16x64xui16>, ui16
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @tile_scalar(%d: !v, %a: !v, %s: f32, %i: !vi, %n: i32, %u: !pto.tile<vec, 16x64xui16>, %c: i16, %uc: ui16) {
  pto.tadds %d, %a, %s : !v, !v, f32
  pto.tsubs %d, %a, %s : !v, !v, f32
  pto.tmuls %i, %i, %n : !vi, !vi, i32
  pto.tdivs %d, %a, %s : !v, !v, f32
  pto.tdivs %d, %a, %s reverse : !v, !v, f32
  pto.tmaxs %d, %a, %s : !v, !v, f32
  pto.tmins %i, %i, %n : !vi, !vi, i32
  pto.texpands %d, %s : !v, f32
  pto.texpands %u, %c : !pto.tile<vec, 16x64xui16>, i16
  pto.texpands %u, %uc : !pto.tile<vec, 16x64xui16>, ui16
  return
}

// CHECK-LABEL: func.func @unary(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf16>, %[[ARG3:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xi32>) {
// CHECK-NEXT: pto.texp %[[ARG0]], %[[ARG1]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tlog %[[ARG0]], %[[ARG0]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tsqrt %[[ARG2]], %[[ARG2]] : !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xf16>
// CHECK-NEXT: pto.trsqrt %[[ARG0]], %[[ARG1]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.trecip %[[ARG0]], %[[ARG1]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tabs %[[ARG0]], %[[ARG1]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tneg %[[ARG3]], %[[ARG3]] : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
// CHECK-NEXT: pto.trelu %[[ARG3]], %[[ARG3]] : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @unary(%d: !v, %a: !v, %h: !vh, %i: !vi) {
  pto.texp %d, %a : !v, !v
  pto.tlog %d, %d : !v, !v
  pto.tsqrt %h, %h : !vh, !vh
  pto.trsqrt %d, %a : !v, !v
  pto.trecip %d, %a : !v, !v
  pto.tabs %d, %a : !v, !v
  pto.tneg %i, %i : !vi, !vi
  pto.trelu %i, %i : !vi, !vi
  return
}

// CHECK-LABEL: func.func @reductions(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x1xf32, blayout = col_major>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG3:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x8xf32, valid = 16x1>, %[[ARG4:[a-zA-Z0-9_]+]]: !pto.tile<vec, 1x64xf32>) {
// CHECK-NEXT: pto.trowsum %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x1xf32, blayout = col_major>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.trowmax %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x1xf32, blayout = col_major>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.trowmin %[[ARG3]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x8xf32, valid = 16x1>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcolsum %[[ARG4]], %[[ARG1]] : !pto.tile<vec, 1x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcolmax %[[ARG4]], %[[ARG1]] : !pto.tile<vec, 1x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcolmin %[[ARG4]], %[[ARG1]] : !pto.tile<vec, 1x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @reductions(%col: !col, %x: !v, %tmp: !v, %rowdst: !pto.tile<vec, 16x8xf32, valid = 16x1>, %row: !row) {
  pto.trowsum %col, %x, %tmp : !col, !v, !v
  pto.trowmax %col, %x, %tmp : !col, !v, !v
  pto.trowmin %rowdst, %x, %tmp : !pto.tile<vec, 16x8xf32, valid = 16x1>, !v, !v
  pto.tcolsum %row, %x : !row, !v
  pto.tcolmax %row, %x : !row, !v
  pto.tcolmin %row, %x : !row, !v
  return
}

// CHECK-LABEL: func.func @expands(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x1xf32, blayout = col_major>, %[[ARG3:[a-zA-Z0-9_]+]]: !pto.tile<vec, 1x64xf32>, %[[ARG4:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x8xf32>, %[[ARG5:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x8xf32, valid = 16x1>) {
// CHECK-NEXT: pto.trowexpand %[[ARG0]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
// CHECK-NEXT: pto.trowexpand %[[ARG0]], %[[ARG5]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x8xf32, valid = 16x1>
// CHECK-NEXT: pto.tcolexpand %[[ARG0]], %[[ARG3]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 1x64xf32>
// CHECK-NEXT: pto.trowexpand_op add %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
// CHECK-NEXT: pto.trowexpand_op sub %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
// CHECK-NEXT: pto.trowexpand_op mul %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
// CHECK-NEXT: pto.trowexpand_op div %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
// CHECK-NEXT: pto.trowexpand_op max %[[ARG0]], %[[ARG1]], %[[ARG4]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x8xf32>
// CHECK-NEXT: pto.trowexpand_op min %[[ARG0]], %[[ARG1]], %[[ARG5]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x8xf32, valid = 16x1>
// CHECK-NEXT: pto.trowexpand_op expdif %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
// CHECK-NEXT: pto.tcolexpand_op add %[[ARG0]], %[[ARG1]], %[[ARG3]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 1x64xf32>
// CHECK-NEXT: pto.tcolexpand_op expdif %[[ARG0]], %[[ARG1]], %[[ARG3]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 1x64xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @expands(%d: !v, %x: !v, %col: !col, %row: !row, %block: !pto.tile<vec, 16x8xf32>, %one: !pto.tile<vec, 16x8xf32, valid = 16x1>) {
  pto.trowexpand %d, %col : !v, !col
  pto.trowexpand %d, %one : !v, !pto.tile<vec, 16x8xf32, valid = 16x1>
  pto.tcolexpand %d, %row : !v, !row
  pto.trowexpand_op add %d, %x, %col : !v, !v, !col
  pto.trowexpand_op sub %d, %x, %col : !v, !v, !col
  pto.trowexpand_op mul %d, %x, %col : !v, !v, !col
  pto.trowexpand_op div %d, %x, %col : !v, !v, !col
  pto.trowexpand_op max %d, %x, %block : !v, !v, !pto.tile<vec, 16x8xf32>
  pto.trowexpand_op min %d, %x, %one : !v, !v, !pto.tile<vec, 16x8xf32, valid = 16x1>
  pto.trowexpand_op expdif %d, %x, %col : !v, !v, !col
  pto.tcolexpand_op add %d, %x, %row : !v, !v, !row
  pto.tcolexpand_op expdif %d, %x, %row : !v, !v, !row
  return
}

// CHECK-LABEL: func.func @tcvt(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf16>, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xi32>, %[[ARG3:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xbf16>) {
// CHECK-NEXT: pto.tcvt %[[ARG1]], %[[ARG0]] round none : !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcvt %[[ARG1]], %[[ARG0]] round rint : !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcvt %[[ARG2]], %[[ARG0]] round round : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcvt %[[ARG2]], %[[ARG0]] round floor : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcvt %[[ARG2]], %[[ARG0]] round ceil : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcvt %[[ARG2]], %[[ARG1]] round trunc : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xf16>
// CHECK-NEXT: pto.tcvt %[[ARG3]], %[[ARG0]] round odd : !pto.tile<vec, 16x64xbf16>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcvt %[[ARG0]], %[[ARG3]] round none : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xbf16>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @tcvt(%f: !v, %h: !vh, %i: !vi, %b: !pto.tile<vec, 16x64xbf16>) {
  pto.tcvt %h, %f round none : !vh, !v
  pto.tcvt %h, %f round rint : !vh, !v
  pto.tcvt %i, %f round round : !vi, !v
  pto.tcvt %i, %f round floor : !vi, !v
  pto.tcvt %i, %f round ceil : !vi, !v
  pto.tcvt %i, %h round trunc : !vi, !vh
  pto.tcvt %b, %f round odd : !pto.tile<vec, 16x64xbf16>, !v
  pto.tcvt %f, %b round none : !v, !pto.tile<vec, 16x64xbf16>
  return
}

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<acc, 64x128xf32>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.tile<left, 64x32xf16>, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<right, 32x128xf16>, %[[ARG3:[a-zA-Z0-9_]+]]: !pto.tile<acc, 16x16xi32>, %[[ARG4:[a-zA-Z0-9_]+]]: !pto.tile<left, 16x32xi8>, %[[ARG5:[a-zA-Z0-9_]+]]: !pto.tile<right, 32x16xi8>) {
// CHECK-NEXT: pto.tmatmul %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<acc, 64x128xf32>, !pto.tile<left, 64x32xf16>, !pto.tile<right, 32x128xf16>
// CHECK-NEXT: pto.tmatmul_acc %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<acc, 64x128xf32>, !pto.tile<left, 64x32xf16>, !pto.tile<right, 32x128xf16>
// CHECK-NEXT: pto.tmatmul %[[ARG3]], %[[ARG4]], %[[ARG5]] : !pto.tile<acc, 16x16xi32>, !pto.tile<left, 16x32xi8>, !pto.tile<right, 32x16xi8>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @matmul(%c: !pto.tile<acc, 64x128xf32>, %a: !pto.tile<left, 64x32xf16>, %b: !pto.tile<right, 32x128xf16>, %ci: !pto.tile<acc, 16x16xi32>, %ai: !pto.tile<left, 16x32xi8>, %bi: !pto.tile<right, 32x16xi8>) {
  pto.tmatmul %c, %a, %b : !pto.tile<acc, 64x128xf32>, !pto.tile<left, 64x32xf16>, !pto.tile<right, 32x128xf16>
  pto.tmatmul_acc %c, %a, %b : !pto.tile<acc, 64x128xf32>, !pto.tile<left, 64x32xf16>, !pto.tile<right, 32x128xf16>
  pto.tmatmul %ci, %ai, %bi : !pto.tile<acc, 16x16xi32>, !pto.tile<left, 16x32xi8>, !pto.tile<right, 32x16xi8>
  return
}

// CHECK-LABEL: func.func @compare_select(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x32xui8>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG3:[a-zA-Z0-9_]+]]: f32, %[[ARG4:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xi32>, %[[ARG5:[a-zA-Z0-9_]+]]: i32, %[[ARG6:[a-zA-Z0-9_]+]]: !pto.tile<vec, 1x16xui32>) {
// CHECK-NEXT: pto.tcmp eq %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcmp ne %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcmp lt %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcmp le %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcmp gt %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcmp ge %[[ARG0]], %[[ARG1]], %[[ARG2]] : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tcmp eq %[[ARG0]], %[[ARG4]], %[[ARG4]] : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
// CHECK-NEXT: pto.tcmps ge %[[ARG0]], %[[ARG1]], %[[ARG3]] : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, f32
// CHECK-NEXT: pto.tcmps eq %[[ARG0]], %[[ARG4]], %[[ARG5]] : !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xi32>, i32
// CHECK-NEXT: pto.tsel %[[ARG1]], %[[ARG0]], %[[ARG1]], %[[ARG2]], %[[ARG6]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x32xui8>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 1x16xui32>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @compare_select(%m: !pto.tile<vec, 16x32xui8>, %a: !v, %b: !v, %s: f32, %i: !vi, %n: i32, %tmp: !pto.tile<vec, 1x16xui32>) {
  pto.tcmp eq %m, %a, %b : !pto.tile<vec, 16x32xui8>, !v, !v
  pto.tcmp ne %m, %a, %b : !pto.tile<vec, 16x32xui8>, !v, !v
  pto.tcmp lt %m, %a, %b : !pto.tile<vec, 16x32xui8>, !v, !v
  pto.tcmp le %m, %a, %b : !pto.tile<vec, 16x32xui8>, !v, !v
  pto.tcmp gt %m, %a, %b : !pto.tile<vec, 16x32xui8>, !v, !v
  pto.tcmp ge %m, %a, %b : !pto.tile<vec, 16x32xui8>, !v, !v
  pto.tcmp eq %m, %i, %i : !pto.tile<vec, 16x32xui8>, !vi, !vi
  pto.tcmps ge %m, %a, %s : !pto.tile<vec, 16x32xui8>, !v, f32
  pto.tcmps eq %m, %i, %n : !pto.tile<vec, 16x32xui8>, !vi, i32
  pto.tsel %a, %m, %a, %b, %tmp : !v, !pto.tile<vec, 16x32xui8>, !v, !v, !pto.tile<vec, 1x16xui32>
  return
}

// CHECK-LABEL: func.func @pad_trans_reshape(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32, pad = min>, %[[ARG1:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32, valid = ?x64>, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<mat, 64x64xf16, valid = ?x?, blayout = col_major, slayout = row_major, pad = zero>, %[[ARG3:[a-zA-Z0-9_]+]]: !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, %[[ARG4:[a-zA-Z0-9_]+]]: !pto.tile<vec, 64x16xf32>, %[[ARG5:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG6:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x64xf32>, %[[ARG7:[a-zA-Z0-9_]+]]: !pto.tile<vec, 1x16xf32>, %[[ARG8:[a-zA-Z0-9_]+]]: !pto.tile<vec, 16x1xf32, blayout = col_major>) {
// CHECK-NEXT: pto.tfillpad %[[ARG0]], %[[ARG1]] : !pto.tile<vec, 16x64xf32, pad = min>, !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK-NEXT: pto.tfillpad %[[ARG2]], %[[ARG2]] : !pto.tile<mat, 64x64xf16, valid = ?x?, blayout = col_major, slayout = row_major, pad = zero>, !pto.tile<mat, 64x64xf16, valid = ?x?, blayout = col_major, slayout = row_major, pad = zero>
// CHECK-NEXT: pto.tfillpad %[[ARG0]], %[[ARG7]] : !pto.tile<vec, 16x64xf32, pad = min>, !pto.tile<vec, 1x16xf32>
// CHECK-NEXT: pto.ttrans %[[ARG4]], %[[ARG5]], %[[ARG6]] : !pto.tile<vec, 64x16xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.treshape %[[ARG7]], %[[ARG8]] : !pto.tile<vec, 1x16xf32>, !pto.tile<vec, 16x1xf32, blayout = col_major>
// CHECK-NEXT: pto.treshape %[[ARG8]], %[[ARG7]] : !pto.tile<vec, 16x1xf32, blayout = col_major>, !pto.tile<vec, 1x16xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @pad_trans_reshape(%full: !pto.tile<vec, 16x64xf32, pad = min>, %part: !pto.tile<vec, 16x64xf32, valid = ?x64>, %mz: !pto.tile<mat, 64x64xf16, valid = ?x?, blayout = col_major, slayout = row_major, pad = zero>, %m: !nz, %t: !pto.tile<vec, 64x16xf32>, %x: !v, %tmp: !v, %r: !pto.tile<vec, 1x16xf32>, %col: !col) {
  pto.tfillpad %full, %part : !pto.tile<vec, 16x64xf32, pad = min>, !pto.tile<vec, 16x64xf32, valid = ?x64>
  pto.tfillpad %mz, %mz : !pto.tile<mat, 64x64xf16, valid = ?x?, blayout = col_major, slayout = row_major, pad = zero>, !pto.tile<mat, 64x64xf16, valid = ?x?, blayout = col_major, slayout = row_major, pad = zero>
  pto.tfillpad %full, %r : !pto.tile<vec, 16x64xf32, pad = min>, !pto.tile<vec, 1x16xf32>
  pto.ttrans %t, %x, %tmp : !pto.tile<vec, 64x16xf32>, !v, !v
  pto.treshape %r, %col : !pto.tile<vec, 1x16xf32>, !col
  pto.treshape %col, %r : !col, !pto.tile<vec, 1x16xf32>
  return
}

// CHECK-LABEL: func.func @tci(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: !pto.tile<vec, 1x64xi32>, %[[ARG1:[a-zA-Z0-9_]+]]: i32, %[[ARG2:[a-zA-Z0-9_]+]]: !pto.tile<vec, 1x32xui16>, %[[ARG3:[a-zA-Z0-9_]+]]: i16) {
// CHECK-NEXT: pto.tci %[[ARG0]], %[[ARG1]] : !pto.tile<vec, 1x64xi32>, i32
// CHECK-NEXT: pto.tci %[[ARG0]], %[[ARG1]] descending : !pto.tile<vec, 1x64xi32>, i32
// CHECK-NEXT: pto.tci %[[ARG2]], %[[ARG3]] : !pto.tile<vec, 1x32xui16>, i16
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @tci(%d: !pto.tile<vec, 1x64xi32>, %s: i32, %u: !pto.tile<vec, 1x32xui16>, %c: i16) {
  pto.tci %d, %s : !pto.tile<vec, 1x64xi32>, i32
  pto.tci %d, %s descending : !pto.tile<vec, 1x64xi32>, i32
  pto.tci %u, %c : !pto.tile<vec, 1x32xui16>, i16
  return
}

// Selection: arg reductions, TSORT32 + TMRGSORT, TGATHER by offsets and by pattern.
// CHECK-LABEL: func.func @selection(
// CHECK-NEXT: pto.trowargmax %[[I:[a-zA-Z0-9_]+]], %[[X:[a-zA-Z0-9_]+]], %[[T:[a-zA-Z0-9_]+]] : !pto.tile<vec, 16x1xi32, blayout = col_major>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.trowargmin %[[I]], %[[H:[a-zA-Z0-9_]+]], %[[TH:[a-zA-Z0-9_]+]] : !pto.tile<vec, 16x1xi32, blayout = col_major>, !pto.tile<vec, 16x64xf16>, !pto.tile<vec, 16x64xf16>
// CHECK-NEXT: pto.tsort32 %[[P:[a-zA-Z0-9_]+]], %[[X]], %[[C:[a-zA-Z0-9_]+]] : !pto.tile<vec, 16x128xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xui32>
// CHECK-NEXT: pto.tmrgsort %[[O:[a-zA-Z0-9_]+]], %[[F:[a-zA-Z0-9_]+]] block 64 : !pto.tile<vec, 1x2048xf32>, !pto.tile<vec, 1x2048xf32>
// CHECK-NEXT: pto.tgather_mask p0101 %[[V:[a-zA-Z0-9_]+]], %[[P]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x128xf32>
// CHECK-NEXT: pto.tgather_mask p1010 %[[J:[a-zA-Z0-9_]+]], %[[P]] : !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x128xf32>
// CHECK-NEXT: pto.tgather %[[V]], %[[X]], %[[J]], %[[J]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xi32>, !pto.tile<vec, 16x64xi32>
// CHECK-NEXT: return
func.func @selection(%i: !pto.tile<vec, 16x1xi32, blayout = col_major>, %x: !v, %t: !v, %h: !vh, %th: !vh,
                     %p: !pto.tile<vec, 16x128xf32>, %c: !pto.tile<vec, 16x64xui32>, %o: !pto.tile<vec, 1x2048xf32>,
                     %f: !pto.tile<vec, 1x2048xf32>, %v: !v, %j: !vi) {
  pto.trowargmax %i, %x, %t : !pto.tile<vec, 16x1xi32, blayout = col_major>, !v, !v
  pto.trowargmin %i, %h, %th : !pto.tile<vec, 16x1xi32, blayout = col_major>, !vh, !vh
  pto.tsort32 %p, %x, %c : !pto.tile<vec, 16x128xf32>, !v, !pto.tile<vec, 16x64xui32>
  pto.tmrgsort %o, %f block 64 : !pto.tile<vec, 1x2048xf32>, !pto.tile<vec, 1x2048xf32>
  pto.tgather_mask p0101 %v, %p : !v, !pto.tile<vec, 16x128xf32>
  pto.tgather_mask p1010 %j, %p : !vi, !pto.tile<vec, 16x128xf32>
  pto.tgather %v, %x, %j, %j : !v, !v, !vi, !vi
  return
}

// TSCATTER by flat offsets: i32 offsets for 32-bit elements, i16 for 16- and
// 8-bit ones; a one-column (DN) destination.
// CHECK-LABEL: func.func @scatter_elements(
// CHECK-NEXT: pto.tscatter %{{.*}}, %{{.*}}, %{{.*}} : !pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x96xf32, valid = ?x72>, !pto.tile<vec, 16x96xi32, valid = ?x72>
// CHECK-NEXT: pto.tscatter %{{.*}}, %{{.*}}, %{{.*}} : !pto.tile<vec, 16x64xi8>, !pto.tile<vec, 16x96xi8, valid = 16x72>, !pto.tile<vec, 16x96xi16, valid = 16x72>
// CHECK-NEXT: pto.tscatter %{{.*}}, %{{.*}}, %{{.*}} : !pto.tile<vec, 16x1xbf16, blayout = col_major>, !pto.tile<vec, 16x32xbf16, valid = 16x4>, !pto.tile<vec, 16x32xui16, valid = 16x4>
func.func @scatter_elements(%d: !pto.tile<vec, 16x64xf32, valid = ?x64>, %s: !pto.tile<vec, 16x96xf32, valid = ?x72>, %o: !pto.tile<vec, 16x96xi32, valid = ?x72>,
                            %db: !pto.tile<vec, 16x64xi8>, %sb: !pto.tile<vec, 16x96xi8, valid = 16x72>, %ob: !pto.tile<vec, 16x96xi16, valid = 16x72>,
                            %dc: !pto.tile<vec, 16x1xbf16, blayout = col_major>, %sc: !pto.tile<vec, 16x32xbf16, valid = 16x4>, %oc: !pto.tile<vec, 16x32xui16, valid = 16x4>) {
  pto.tscatter %d, %s, %o : !pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x96xf32, valid = ?x72>, !pto.tile<vec, 16x96xi32, valid = ?x72>
  pto.tscatter %db, %sb, %ob : !pto.tile<vec, 16x64xi8>, !pto.tile<vec, 16x96xi8, valid = 16x72>, !pto.tile<vec, 16x96xi16, valid = 16x72>
  pto.tscatter %dc, %sc, %oc : !pto.tile<vec, 16x1xbf16, blayout = col_major>, !pto.tile<vec, 16x32xbf16, valid = 16x4>, !pto.tile<vec, 16x32xui16, valid = 16x4>
  return
}

// CHECK-LABEL: func.func @sync() {
// CHECK-NEXT: pto.set_flag <mte2 -> v>, 0
// CHECK-NEXT: pto.wait_flag <mte2 -> v>, 0
// CHECK-NEXT: pto.set_flag <v -> mte3>, 7
// CHECK-NEXT: pto.wait_flag <mte1 -> m>, 3
// CHECK-NEXT: pto.set_flag <m -> fix>, 1
// CHECK-NEXT: pto.wait_flag <fix -> s>, 2
// CHECK-NEXT: pto.barrier <s>
// CHECK-NEXT: pto.barrier <v>
// CHECK-NEXT: pto.barrier <mte1>
// CHECK-NEXT: pto.barrier <mte2>
// CHECK-NEXT: pto.barrier <mte3>
// CHECK-NEXT: pto.barrier <m>
// CHECK-NEXT: pto.barrier <fix>
// CHECK-NEXT: pto.barrier <all>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @sync() {
  pto.set_flag <mte2 -> v>, 0
  pto.wait_flag <mte2 -> v>, 0
  pto.set_flag <v -> mte3>, 7
  pto.wait_flag <mte1 -> m>, 3
  pto.set_flag <m -> fix>, 1
  pto.wait_flag <fix -> s>, 2
  pto.barrier <s>
  pto.barrier <v>
  pto.barrier <mte1>
  pto.barrier <mte2>
  pto.barrier <mte3>
  pto.barrier <m>
  pto.barrier <fix>
  pto.barrier <all>
  return
}

// CHECK-LABEL: func.func @vector_kernel(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: memref<16x64xf32>, %[[ARG1:[a-zA-Z0-9_]+]]: memref<16x64xf32>, %[[ARG2:[a-zA-Z0-9_]+]]: index) attributes {pto.core = "aiv"} {
// CHECK-NEXT: %[[C0:[a-zA-Z0-9_]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[V0:[a-zA-Z0-9_]+]] = pto.alloc_tile addr 0 : !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: %[[V1:[a-zA-Z0-9_]+]] = pto.global_view %[[ARG0]][%[[C0]], %[[C0]]] dims [0, 1] : memref<16x64xf32> -> !pto.gtensor<16x64xf32>
// CHECK-NEXT: pto.tload %[[V0]], %[[V1]] : !pto.tile<vec, 16x64xf32>, !pto.gtensor<16x64xf32>
// CHECK-NEXT: pto.texp %[[V0]], %[[V0]] : !pto.tile<vec, 16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: %[[V2:[a-zA-Z0-9_]+]] = pto.global_view %[[ARG1]][%[[C0]], %[[C0]]] dims [0, 1] : memref<16x64xf32> -> !pto.gtensor<16x64xf32>
// CHECK-NEXT: pto.tstore %[[V2]], %[[V0]] : !pto.gtensor<16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @vector_kernel(%x: memref<16x64xf32>, %y: memref<16x64xf32>, %n: index) attributes {pto.core = "aiv"} {
  %c0 = arith.constant 0 : index
  %t = pto.alloc_tile addr 0 : !v
  %g = pto.global_view %x[%c0, %c0] dims [0, 1] : memref<16x64xf32> -> !g
  pto.tload %t, %g : !v, !g
  pto.texp %t, %t : !v, !v
  %h = pto.global_view %y[%c0, %c0] dims [0, 1] : memref<16x64xf32> -> !g
  pto.tstore %h, %t : !g, !v
  return
}

// CHECK-LABEL: func.func @cube_kernel(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: memref<64x64xf16>, %[[ARG1:[a-zA-Z0-9_]+]]: memref<64x64xf32>) attributes {pto.core = "aic"} {
// CHECK-NEXT: %[[C0:[a-zA-Z0-9_]+]] = arith.constant 0 : index
// CHECK-NEXT: %[[V0:[a-zA-Z0-9_]+]] = pto.alloc_tile addr 0 : !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
// CHECK-NEXT: %[[V1:[a-zA-Z0-9_]+]] = pto.alloc_tile addr 0 : !pto.tile<left, 64x64xf16>
// CHECK-NEXT: %[[V2:[a-zA-Z0-9_]+]] = pto.alloc_tile addr 0 : !pto.tile<right, 64x64xf16>
// CHECK-NEXT: %[[V3:[a-zA-Z0-9_]+]] = pto.alloc_tile addr 0 : !pto.tile<acc, 64x64xf32>
// CHECK-NEXT: %[[V4:[a-zA-Z0-9_]+]] = pto.global_view %[[ARG0]][%[[C0]], %[[C0]]] dims [0, 1] : memref<64x64xf16> -> !pto.gtensor<64x64xf16>
// CHECK-NEXT: pto.tload %[[V0]], %[[V4]] : !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>, !pto.gtensor<64x64xf16>
// CHECK-NEXT: pto.tmov %[[V1]], %[[V0]] : !pto.tile<left, 64x64xf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
// CHECK-NEXT: pto.tmov %[[V2]], %[[V0]] : !pto.tile<right, 64x64xf16>, !pto.tile<mat, 64x64xf16, blayout = col_major, slayout = row_major>
// CHECK-NEXT: pto.tmatmul %[[V3]], %[[V1]], %[[V2]] : !pto.tile<acc, 64x64xf32>, !pto.tile<left, 64x64xf16>, !pto.tile<right, 64x64xf16>
// CHECK-NEXT: %[[V5:[a-zA-Z0-9_]+]] = pto.global_view %[[ARG1]][%[[C0]], %[[C0]]] dims [0, 1] : memref<64x64xf32> -> !pto.gtensor<64x64xf32>
// CHECK-NEXT: pto.tstore %[[V5]], %[[V3]] : !pto.gtensor<64x64xf32>, !pto.tile<acc, 64x64xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @cube_kernel(%a: memref<64x64xf16>, %c: memref<64x64xf32>) attributes {pto.core = "aic"} {
  %c0 = arith.constant 0 : index
  %m = pto.alloc_tile addr 0 : !nz
  %l = pto.alloc_tile addr 0 : !pto.tile<left, 64x64xf16>
  %r = pto.alloc_tile addr 0 : !pto.tile<right, 64x64xf16>
  %acc = pto.alloc_tile addr 0 : !pto.tile<acc, 64x64xf32>
  %ga = pto.global_view %a[%c0, %c0] dims [0, 1] : memref<64x64xf16> -> !pto.gtensor<64x64xf16>
  pto.tload %m, %ga : !nz, !pto.gtensor<64x64xf16>
  pto.tmov %l, %m : !pto.tile<left, 64x64xf16>, !nz
  pto.tmov %r, %m : !pto.tile<right, 64x64xf16>, !nz
  pto.tmatmul %acc, %l, %r : !pto.tile<acc, 64x64xf32>, !pto.tile<left, 64x64xf16>, !pto.tile<right, 64x64xf16>
  %gc = pto.global_view %c[%c0, %c0] dims [0, 1] : memref<64x64xf32> -> !pto.gtensor<64x64xf32>
  pto.tstore %gc, %acc : !pto.gtensor<64x64xf32>, !pto.tile<acc, 64x64xf32>
  return
}

// CHECK-LABEL: func.func private @task(memref<16x64xf32>, memref<16x64xf32>, memref<16x64xf32>, index, f32) attributes {pto.core = "aiv"}
func.func private @task(memref<16x64xf32>, memref<16x64xf32>, memref<16x64xf32>, index, f32) attributes {pto.core = "aiv"}
// CHECK-LABEL: func.func private @fill(memref<16x64xf32>) attributes {pto.core = "aiv"}
func.func private @fill(memref<16x64xf32>) attributes {pto.core = "aiv"}

// A view of a tile's bytes (narrowed valid region; one column seen as a row),
// the core count an orchestration sizes tasks by, and the orchestration marker.
// CHECK-LABEL: func.func @views_and_cores
// CHECK-SAME: attributes {pto.orchestration}
// CHECK: %[[T:.*]] = pto.alloc_tile addr 0 : !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.tile_view %[[T]] valid [%{{.*}}] : !pto.tile<vec, 16x64xf32> -> !pto.tile<vec, 16x64xf32, valid = ?x64>
// CHECK: %[[C:.*]] = pto.alloc_tile : !pto.tile<vec, 16x1xf32, blayout = col_major>
// CHECK-NEXT: pto.tile_view %[[C]] : !pto.tile<vec, 16x1xf32, blayout = col_major> -> !pto.tile<vec, 1x16xf32>
// CHECK-NEXT: pto.available_cores "aiv"
// CHECK-NEXT: pto.available_cores "aic"
func.func @views_and_cores(%n: index) attributes {pto.orchestration} {
  %t = pto.alloc_tile addr 0 : !pto.tile<vec, 16x64xf32>
  %v = pto.tile_view %t valid [%n] : !pto.tile<vec, 16x64xf32> -> !pto.tile<vec, 16x64xf32, valid = ?x64>
  %c = pto.alloc_tile : !pto.tile<vec, 16x1xf32, blayout = col_major>
  %r = pto.tile_view %c : !pto.tile<vec, 16x1xf32, blayout = col_major> -> !pto.tile<vec, 1x16xf32>
  %a = pto.available_cores "aiv"
  %b = pto.available_cores "aic"
  return
}

// CHECK-LABEL: func.func @orchestration(
// CHECK-SAME:  %[[ARG0:[a-zA-Z0-9_]+]]: memref<16x64xf32>, %[[ARG1:[a-zA-Z0-9_]+]]: memref<16x64xf32>, %[[ARG2:[a-zA-Z0-9_]+]]: index, %[[ARG3:[a-zA-Z0-9_]+]]: f32) {
// CHECK-NEXT: %[[V0:[a-zA-Z0-9_]+]] = pto.create_tensor : memref<16x64xf32>
// CHECK-NEXT: pto.submit @fill ins() outs(%[[V0]] : memref<16x64xf32>)
// CHECK-NEXT: pto.submit @task ins(%[[ARG0]] : memref<16x64xf32>) outs(%[[V0]] : memref<16x64xf32>) inouts(%[[ARG1]] : memref<16x64xf32>) scalars(%[[ARG2]], %[[ARG3]] : index, f32)
// CHECK-NEXT: pto.submit @vector_kernel ins(%[[ARG0]] : memref<16x64xf32>) outs(%[[ARG1]] : memref<16x64xf32>) scalars(%[[ARG2]] : index)
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @orchestration(%x: memref<16x64xf32>, %y: memref<16x64xf32>, %n: index, %s: f32) {
  %t = pto.create_tensor : memref<16x64xf32>
  pto.submit @fill ins() outs(%t : memref<16x64xf32>)
  pto.submit @task ins(%x : memref<16x64xf32>) outs(%t : memref<16x64xf32>) inouts(%y : memref<16x64xf32>) scalars(%n, %s : index, f32)
  pto.submit @vector_kernel ins(%x : memref<16x64xf32>) outs(%y : memref<16x64xf32>) scalars(%n : index)
  return
}


// CHECK-LABEL: func.func @cube_side(
// CHECK:      pto.tpush c2v %{{.*}} : !pto.tile<acc, 32x32xf32>
// CHECK-NEXT: pto.tpop v2c %{{.*}} : !pto.tile<mat, 32x32xf32, blayout = col_major, slayout = row_major>
// CHECK-NEXT: pto.tfree v2c
func.func @cube_side(%f: memref<4096xf32>) attributes {pto.core = "aic", pto.fifo = array<i64: 0, 4096, 4096>} {
  %s = pto.alloc_tile : !pto.tile<acc, 32x32xf32>
  %p = pto.alloc_tile : !pto.tile<mat, 32x32xf32, blayout = col_major, slayout = row_major>
  pto.tpush c2v %s : !pto.tile<acc, 32x32xf32>
  pto.tpop v2c %p : !pto.tile<mat, 32x32xf32, blayout = col_major, slayout = row_major>
  pto.tfree v2c
  return
}

// CHECK-LABEL: func.func @vector_side(
// CHECK:      pto.tpop c2v %{{.*}} : !pto.tile<vec, 32x32xf32>
// CHECK-NEXT: pto.tfree c2v
// CHECK-NEXT: pto.tpush v2c %{{.*}} : !pto.tile<vec, 32x32xf32>
func.func @vector_side(%f: memref<4096xf32>) attributes {pto.core = "aiv", pto.fifo = array<i64: 0, 4096, 4096>} {
  %s = pto.alloc_tile : !pto.tile<vec, 32x32xf32>
  pto.tpop c2v %s : !pto.tile<vec, 32x32xf32>
  pto.tfree c2v
  pto.tpush v2c %s : !pto.tile<vec, 32x32xf32>
  return
}

// CHECK-LABEL: func.func @cluster_task(
// CHECK: pto.submit @cube_side ins() outs(%{{.*}} : memref<4096xf32>) {aiv_callee = @vector_side}
func.func @cluster_task() attributes {pto.orchestration} {
  %f = pto.create_tensor : memref<4096xf32>
  pto.submit @cube_side ins() outs(%f : memref<4096xf32>) {aiv_callee = @vector_side}
  return
}

// TCVT between tiles whose rows hold different numbers of elements (one
// 32-byte block: 32 i8, 16 f16): the shapes differ, the valid regions agree.
// CHECK-LABEL: func.func @cvt_across_strides(
// CHECK: pto.tcvt %{{.*}}, %{{.*}} round rint : !pto.tile<vec, 32x16xf16>, !pto.tile<vec, 32x32xi8, valid = 32x16>
func.func @cvt_across_strides(%d: !pto.tile<vec, 32x16xf16>, %s: !pto.tile<vec, 32x32xi8, valid = 32x16>) {
  pto.tcvt %d, %s round rint : !pto.tile<vec, 32x16xf16>, !pto.tile<vec, 32x32xi8, valid = 32x16>
  return
}

// A cluster program's tile kernels (before convert-tile-to-pto): one core
// each, tiles handed over in tile IR.
// CHECK-LABEL: func.func @cluster_cube
// CHECK-SAME: pto.cluster = "p", pto.cluster_slots = array<i64: 2, 1>, pto.core = "aic"
// CHECK: pto.cluster_send c2v %{{.*}} : !tile.tile<16x16xf32>
// CHECK: %{{.*}} = pto.cluster_recv v2c : !tile.tile<16x16xf32>
func.func @cluster_cube(%t: !tile.tile<16x16xf32>) attributes {pto.core = "aic", pto.cluster = "p", pto.cluster_slots = array<i64: 2, 1>} {
  pto.cluster_send c2v %t : !tile.tile<16x16xf32>
  %p = pto.cluster_recv v2c : !tile.tile<16x16xf32>
  return
}

// CHECK-LABEL: func.func @cluster_vector
// CHECK: %{{.*}} = pto.cluster_recv c2v : !tile.tile<16x16xf32>
// CHECK: pto.cluster_send v2c %{{.*}} : !tile.tile<16x16xf32>
func.func @cluster_vector() attributes {pto.core = "aiv", pto.cluster = "p"} {
  %s = pto.cluster_recv c2v : !tile.tile<16x16xf32>
  pto.cluster_send v2c %s : !tile.tile<16x16xf32>
  return
}

// A pipe's slot counts in pto.fifo: three c2v slots, one v2c.
// CHECK-LABEL: func.func private @fifo_counts
// CHECK-SAME: pto.fifo = array<i64: 0, 128, 64, 3, 1>
func.func private @fifo_counts(memref<112xf32>) attributes {pto.core = "aiv", pto.fifo = array<i64: 0, 128, 64, 3, 1>}

// Scheduled tasks (what a model's conversion produces: WSP workloads): a
// schedule, a scope per outer iteration, an ordered loop with its barrier, a
// guard, views, a ring allocated for the run, tasks with access modes and a stream.
// CHECK-LABEL: func.func @scheduled
// CHECK-NEXT: pto.schedule window 64 lanes -1 dispatch "round_robin"
// CHECK-NEXT: %[[RING:.*]] = pto.alloc_tensor : memref<2x16x64xf32>
// CHECK: pto.scope "w.py:3:5" {
// CHECK-NEXT: %[[V:.*]] = pto.tensor_view %{{.*}}[%{{.*}}, %{{.*}}] sizes[%{{.*}}, %{{.*}}] {at = "w.py:4:9"} : memref<?x64xf32> -> memref<16x64xf32>
// CHECK-NEXT: %[[S:.*]] = pto.tensor_view %[[RING]][%{{.*}}, %{{.*}}, %{{.*}}] sizes[%{{.*}}, %{{.*}}] {at = "w.py:5:9"} : memref<2x16x64xf32> -> memref<16x64xf32>
// CHECK-NEXT: pto.task @orchestrated(%[[V]], %[[S]], %{{.*}}) stream(%{{.*}} : index) {access = ["in", "out", "none"], at = "w.py:6:9"} : memref<16x64xf32>, memref<16x64xf32>, f32
// CHECK: pto.ordered {
// CHECK: pto.guard %{{.*}}[%{{.*}}] "ne" %{{.*}} : memref<8xi32>, index {
// CHECK: pto.order_barrier
func.func @orchestrated(%a: memref<16x64xf32>, %b: memref<16x64xf32>, %s: f32) attributes {pto.orchestration} {
  return
}
func.func @scheduled(%x: memref<?x64xf32>, %flags: memref<8xi32>, %s: f32) attributes {pto.orchestration} {
  pto.schedule window 64 lanes -1 dispatch "round_robin"
  %ring = pto.alloc_tensor : memref<2x16x64xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c4 step %c1 {
    pto.scope "w.py:3:5" {
      %v = pto.tensor_view %x[%i, %c0] sizes [%c16, %c64] {at = "w.py:4:9"} : memref<?x64xf32> -> memref<16x64xf32>
      %slot = pto.tensor_view %ring[%c1, %c0, %c0] sizes [%c16, %c64] {at = "w.py:5:9"} : memref<2x16x64xf32> -> memref<16x64xf32>
      pto.task @orchestrated(%v, %slot, %s) stream(%i : index) {access = ["in", "out", "none"], at = "w.py:6:9"} : memref<16x64xf32>, memref<16x64xf32>, f32
    }
  }
  pto.ordered {
    scf.for %i = %c0 to %c4 step %c1 {
      pto.guard %flags[%i] "ne" %c0 : memref<8xi32>, index {
        %v = pto.tensor_view %x[%i, %c0] sizes [%c16, %c64] {at = "w.py:9:9"} : memref<?x64xf32> -> memref<16x64xf32>
        pto.task @orchestrated(%v, %v, %s) {access = ["in", "out", "none"], at = "w.py:10:9"} : memref<16x64xf32>, memref<16x64xf32>, f32
      }
      pto.order_barrier
    }
  }
  return
}

// Blocks of vec tiles: TEXTRACT and TINSERT (vec -> vec), TCONCAT, and a
// GM view taking every 2nd row.
// CHECK-LABEL: func.func @vec_blocks
// CHECK: pto.textract %{{.*}}, %{{.*}}[%{{.*}}, %[[C32:.*]]] : !pto.tile<vec, 16x32xf32>, !pto.tile<vec, 16x64xf32>
// CHECK: pto.tinsert %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : !pto.tile<vec, 32x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK: pto.tconcat %{{.*}}, %{{.*}}, %{{.*}} : !pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x32xf32, valid = ?x32>, !pto.tile<vec, 16x32xf32, valid = ?x32>
// CHECK: pto.global_view %{{.*}}[%{{.*}}, %{{.*}}] dims [0, 1] row_step 2 : memref<128x64xf32> -> !pto.gtensor<16x64xf32>
func.func @vec_blocks(%h: !pto.tile<vec, 16x32xf32>, %x: !pto.tile<vec, 16x64xf32>, %d: !pto.tile<vec, 32x64xf32>,
                      %j: !pto.tile<vec, 16x64xf32, valid = ?x64>, %a: !pto.tile<vec, 16x32xf32, valid = ?x32>, %A: memref<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  pto.textract %h, %x[%c0, %c32] : !pto.tile<vec, 16x32xf32>, !pto.tile<vec, 16x64xf32>
  pto.tinsert %d, %x[%c16, %c0] : !pto.tile<vec, 32x64xf32>, !pto.tile<vec, 16x64xf32>
  pto.tconcat %j, %a, %a : !pto.tile<vec, 16x64xf32, valid = ?x64>, !pto.tile<vec, 16x32xf32, valid = ?x32>, !pto.tile<vec, 16x32xf32, valid = ?x32>
  %g = pto.global_view %A[%c16, %c0] dims [0, 1] row_step 2 : memref<128x64xf32> -> !pto.gtensor<16x64xf32>
  return
}

// Communication between chips: the CommContext queries, a put to a peer's
// window block, a signal added to / set in a peer's window, a wait.
// CHECK-LABEL: func.func @comm(
// CHECK: %[[R:.*]] = pto.comm_rank %[[C:.*]]
// CHECK-NEXT: %{{.*}} = pto.comm_size %[[C]]
// CHECK-NEXT: pto.comm_put %{{.*}}, %{{.*}} peer %[[R]] comm %[[C]] : !pto.gtensor<16x64xf32>, !pto.tile<vec, 16x64xf32>
// CHECK-NEXT: pto.comm_notify "add" %{{.*}}[%[[R]]], %{{.*}} peer %[[R]] comm %[[C]] : memref<4xi32>
// CHECK-NEXT: pto.comm_notify "set" %{{.*}}[%[[R]], %[[R]]], %{{.*}} peer %[[R]] comm %[[C]] : memref<4x4xi32>
// CHECK-NEXT: pto.comm_wait %{{.*}}[%[[R]]] "ge" %{{.*}} : memref<4xi32>
func.func @comm(%g: !pto.gtensor<16x64xf32>, %t: !pto.tile<vec, 16x64xf32>, %s: memref<4xi32>, %s2: memref<4x4xi32>, %one: i32, %ctx: i64) {
  %me = pto.comm_rank %ctx
  %n = pto.comm_size %ctx
  pto.comm_put %g, %t peer %me comm %ctx : !pto.gtensor<16x64xf32>, !pto.tile<vec, 16x64xf32>
  pto.comm_notify "add" %s[%me], %one peer %me comm %ctx : memref<4xi32>
  pto.comm_notify "set" %s2[%me, %me], %one peer %me comm %ctx : memref<4x4xi32>
  pto.comm_wait %s[%me] "ge" %one : memref<4xi32>
  return
}
