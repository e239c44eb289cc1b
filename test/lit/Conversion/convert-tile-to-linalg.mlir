// RUN: htp-opt %s --convert-tile-to-linalg --split-input-file | FileCheck %s
// And every lowered case goes on to LLVM with the CPU target's registered pipeline.
// RUN: htp-opt %s --split-input-file --pass-pipeline='builtin.module(htp-cpu-lowering)' | FileCheck %s --check-prefix=LLVM

// LLVM-NOT: tile.
// LLVM-NOT: {{[^-]linalg\.}}
// LLVM-NOT: tensor.

// A tile is its valid region: a dynamic valid size is a dynamic tensor dim.
// A load is a subview of that region, read as a tensor and copied.
// CHECK-LABEL: func.func @load_store_ragged(
// CHECK-SAME:    %[[X:.*]]: memref<?x256xf32>, %[[Y:.*]]: memref<?x256xf32>, %[[I:.*]]: index, %[[N:.*]]: index)
// CHECK:         %[[SV:.*]] = memref.subview %[[X]][%[[I]], %{{.*}}] [%[[N]], 256] [1, 1] : memref<?x256xf32> to memref<?x256xf32, strided<[256, 1], offset: ?>>
// CHECK:         %[[T:.*]] = bufferization.to_tensor %[[SV]] restrict
// CHECK:         %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x256xf32>
// CHECK:         %[[C:.*]] = linalg.generic {{.*}} ins(%[[T]] : tensor<?x256xf32>) outs(%[[E]] : tensor<?x256xf32>)
// CHECK-NOT:     tensor.dim
// CHECK:         %[[OV:.*]] = memref.subview %[[Y]][%[[I]], %{{.*}}] [%[[N]], 256] [1, 1]
// CHECK:         bufferization.materialize_in_destination %[[C]] in restrict writable %[[OV]]
// CHECK-NOT:     tile.
func.func @load_store_ragged(%x: memref<?x256xf32>, %y: memref<?x256xf32>, %i: index, %n: index) {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%i, %c0] valid [%n] : memref<?x256xf32> -> !tile.tile<16x256xf32, valid = ?x256>
  tile.store %t, %y[%i, %c0] : !tile.tile<16x256xf32, valid = ?x256>, memref<?x256xf32>
  return
}

// -----

// Rank-3 views: leading indices select the 2-D slice (rank-reducing subview).
// CHECK-LABEL: func.func @load_rank3(
// CHECK:         memref.subview %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] [1, 8, 32] [1, 1, 1] : memref<4x?x64xf16> to memref<8x32xf16, strided<[64, 1], offset: ?>>
func.func @load_rank3(%x: memref<4x?x64xf16>, %b: index, %i: index) -> !tile.tile<8x32xf16> {
  %t = tile.load %x[%b, %i, %i] : memref<4x?x64xf16> -> !tile.tile<8x32xf16>
  return %t : !tile.tile<8x32xf16>
}

// -----

// Tensor views use extract_slice / insert_slice.
// CHECK-LABEL: func.func @tensor_views(
// CHECK:         %[[S:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}] [16, 64] [1, 1] : tensor<64x64xf32> to tensor<16x64xf32>
// CHECK:         %[[R:.*]] = tensor.insert_slice %[[S]] into %{{.*}}[%{{.*}}, %{{.*}}] [16, 64] [1, 1] : tensor<16x64xf32> into tensor<64x64xf32>
// CHECK:         return %[[R]]
func.func @tensor_views(%t: tensor<64x64xf32>, %u: tensor<64x64xf32>, %i: index) -> tensor<64x64xf32> {
  %a = tile.load %t[%i, %i] : tensor<64x64xf32> -> !tile.tile<16x64xf32>
  %r = tile.store %a, %u[%i, %i] : !tile.tile<16x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

// Binary ops: tile-tile reads both tensors; tile-scalar captures the scalar.
// CHECK-LABEL: func.func @binary(
// CHECK-SAME:    %[[A:.*]]: tensor<16x64xf32>, %[[B:.*]]: tensor<16x64xf32>, %[[S:.*]]: f32, %[[I:.*]]: tensor<16x64xi32>
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<16x64xf32>, tensor<16x64xf32>)
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} ins(%[[A]] : tensor<16x64xf32>)
// CHECK:           arith.mulf %{{.*}}, %[[S]] : f32
// CHECK:         arith.divsi
// CHECK:         arith.maximumf
// CHECK:         arith.minsi
func.func @binary(%a: !tile.tile<16x64xf32>, %b: !tile.tile<16x64xf32>, %s: f32, %i: !tile.tile<16x64xi32>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xi32>, !tile.tile<16x64xf32>, !tile.tile<16x64xi32>) {
  %0 = tile.add %a, %b : !tile.tile<16x64xf32>
  %1 = tile.mul %a, %s : !tile.tile<16x64xf32>, f32
  %2 = tile.div %i, %i : !tile.tile<16x64xi32>
  %3 = tile.max %a, %b : !tile.tile<16x64xf32>
  %4 = tile.min %i, %i : !tile.tile<16x64xi32>
  return %0, %1, %2, %3, %4 : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>, !tile.tile<16x64xi32>, !tile.tile<16x64xf32>, !tile.tile<16x64xi32>
}

// -----

// Unary ops map to math/arith; recip is 1/x; relu is max(x, 0); integer neg is 0 - x.
// CHECK-LABEL: func.func @unary(
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: math.rsqrt
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f16
// CHECK: arith.divf %[[ONE]]
// CHECK: math.absf
// CHECK: arith.negf
// CHECK: arith.maximumf
// CHECK: math.absi
// CHECK: arith.subi
// CHECK: arith.maxsi
func.func @unary(%x: !tile.tile<8x32xf16>, %i: !tile.tile<8x32xi8>) -> (!tile.tile<8x32xf16>, !tile.tile<8x32xi8>) {
  %0 = tile.exp %x : !tile.tile<8x32xf16>
  %1 = tile.log %0 : !tile.tile<8x32xf16>
  %2 = tile.sqrt %1 : !tile.tile<8x32xf16>
  %3 = tile.rsqrt %2 : !tile.tile<8x32xf16>
  %4 = tile.recip %3 : !tile.tile<8x32xf16>
  %5 = tile.abs %4 : !tile.tile<8x32xf16>
  %6 = tile.neg %5 : !tile.tile<8x32xf16>
  %7 = tile.relu %6 : !tile.tile<8x32xf16>
  %8 = tile.abs %i : !tile.tile<8x32xi8>
  %9 = tile.neg %8 : !tile.tile<8x32xi8>
  %10 = tile.relu %9 : !tile.tile<8x32xi8>
  return %7, %10 : !tile.tile<8x32xf16>, !tile.tile<8x32xi8>
}

// -----

// Row reduction: a 1-D reduce from the identity, expanded back to Rx1; the
// broadcast pins the broadcast dim to 0 in its input map.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[BCAST:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @reduce_broadcast(
// CHECK:         %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[INIT:.*]] = tensor.splat %[[NINF]][%{{.*}}] : tensor<?xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]} {{.*}} outs(%[[INIT]] : tensor<?xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[R]] {{\[\[}}0, 1]] output_shape [%{{.*}}, 1] : tensor<?xf32> into tensor<?x1xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[BCAST]], #[[ID]]], {{.*}} ins(%[[E]] : tensor<?x1xf32>) outs(%{{.*}} : tensor<?x64xf32>)
func.func @reduce_broadcast(%x: !tile.tile<16x64xf32, valid = ?x64>) -> !tile.tile<16x64xf32, valid = ?x64> {
  %m = tile.row_reduce max %x : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x1xf32, valid = ?x1>
  %b = tile.broadcast %m : !tile.tile<16x1xf32, valid = ?x1> -> !tile.tile<16x64xf32, valid = ?x64>
  return %b : !tile.tile<16x64xf32, valid = ?x64>
}

// -----

// Column sums start from 0 and reduce d0; integer min starts from INT_MAX.
// CHECK-LABEL: func.func @col_reduce(
// CHECK:         iterator_types = ["reduction", "parallel"]
// CHECK:           arith.addf
// CHECK:         tensor.expand_shape {{.*}} output_shape [1, 64] : tensor<64xf32> into tensor<1x64xf32>
// CHECK:         arith.constant 2147483647 : i32
// CHECK:           arith.minsi
func.func @col_reduce(%x: !tile.tile<16x64xf32>, %i: !tile.tile<4x4xi32>) -> (!tile.tile<1x64xf32>, !tile.tile<4x1xi32>) {
  %s = tile.col_reduce sum %x : !tile.tile<16x64xf32> -> !tile.tile<1x64xf32>
  %m = tile.row_reduce min %i : !tile.tile<4x4xi32> -> !tile.tile<4x1xi32>
  return %s, %m : !tile.tile<1x64xf32>, !tile.tile<4x1xi32>
}

// -----

// Matmul: an (m, k, n) contraction widening f16 to the f32 accumulator; the
// contiguous n dim is innermost so that the loop along rows vectorises.
// CHECK-DAG: #[[MAP_A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[MAP_B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MAP_C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[A:.*]]: tensor<64x32xf16>, %[[B:.*]]: tensor<32x64xf16>, %[[C:.*]]: tensor<64x64xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[MAP_A]], #[[MAP_B]], #[[MAP_C]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[A]], %[[B]] : {{.*}}) outs(%[[C]] : tensor<64x64xf32>)
// CHECK:           arith.extf
// CHECK:           arith.extf
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[Z:.*]] = tensor.splat %{{.*}} : tensor<64x64xf32>
// CHECK:         linalg.generic {{.*}} outs(%[[Z]] : tensor<64x64xf32>)
func.func @matmul(%a: !tile.tile<64x32xf16>, %b: !tile.tile<32x64xf16>, %c: !tile.tile<64x64xf32>) -> (!tile.tile<64x64xf32>, !tile.tile<64x64xf32>) {
  %0 = tile.matmul %a, %b, %c : !tile.tile<64x32xf16>, !tile.tile<32x64xf16> -> !tile.tile<64x64xf32>
  %1 = tile.matmul %a, %b : !tile.tile<64x32xf16>, !tile.tile<32x64xf16> -> !tile.tile<64x64xf32>
  return %0, %1 : !tile.tile<64x64xf32>, !tile.tile<64x64xf32>
}

// -----

// Creation: a splat dense constant, a splat of a scalar, an iota generate.
// CHECK-LABEL: func.func @create(
// CHECK:         arith.constant dense<1.500000e+00> : tensor<4x8xf32>
// CHECK:         tensor.splat %{{.*}} : tensor<4x8xf32>
// CHECK:         tensor.generate
// CHECK:         ^bb0(%[[R:.*]]: index, %[[C:.*]]: index):
// CHECK:           arith.index_cast %[[C]] : index to i64
// CHECK:           arith.trunci {{.*}} : i64 to i32
func.func @create(%s: f32) -> (!tile.tile<4x8xf32>, !tile.tile<4x8xf32>, !tile.tile<4x8xi32>) {
  %0 = tile.constant 1.5 : !tile.tile<4x8xf32>
  %1 = tile.fill %s : !tile.tile<4x8xf32>
  %2 = tile.iota 1 : !tile.tile<4x8xi32>
  return %0, %1, %2 : !tile.tile<4x8xf32>, !tile.tile<4x8xf32>, !tile.tile<4x8xi32>
}

// -----

// Compare (une for `ne`: NaN != x), select, cast, transpose.
// CHECK-LABEL: func.func @cmp_select_cast_transpose(
// CHECK:         arith.cmpf olt
// CHECK:         arith.cmpf une
// CHECK:         arith.select
// CHECK:         arith.truncf {{.*}} : f32 to bf16
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}]{{.*}} ins(%{{.*}} : tensor<8x16xf32>) outs(%{{.*}} : tensor<16x8xf32>)
func.func @cmp_select_cast_transpose(%a: !tile.tile<8x16xf32>, %b: !tile.tile<8x16xf32>, %s: f32) -> (!tile.tile<8x16xbf16>, !tile.tile<16x8xf32>, !tile.tile<8x16xi1>) {
  %m = tile.cmp lt, %a, %b : !tile.tile<8x16xf32>
  %n = tile.cmp ne, %a, %s : !tile.tile<8x16xf32>, f32
  %r = tile.select %m, %a, %b : !tile.tile<8x16xf32>
  %h = tile.cast %r : !tile.tile<8x16xf32> to !tile.tile<8x16xbf16>
  %t = tile.transpose %a : !tile.tile<8x16xf32> -> !tile.tile<16x8xf32>
  return %h, %t, %n : !tile.tile<8x16xbf16>, !tile.tile<16x8xf32>, !tile.tile<8x16xi1>
}

// -----

// Gather reads source[rows[r, 0], column + c] element by element; each
// index is checked against the source (outside: the site is reported and
// element [0, 0] read instead).
// CHECK-LABEL: func.func @gather(
// CHECK:         tensor.generate
// CHECK:           %[[IDX:.*]] = tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<8x1xi32>
// CHECK:           %[[ROW:.*]] = arith.index_cast %[[IDX]] : i32 to index
// CHECK:           %[[COL:.*]] = arith.addi
// CHECK:           scf.if %[[BAD:.*]] {
// CHECK-NEXT:        func.call @htpRuntimeError(
// CHECK:           %[[SR:.*]] = arith.select %{{.*}}, %[[ROW]], %{{.*}} : index
// CHECK:           %[[SC:.*]] = arith.select %{{.*}}, %[[COL]], %{{.*}} : index
// CHECK:           memref.load %{{.*}}[%[[SR]], %[[SC]]] : memref<?x128xf16>
func.func @gather(%m: memref<?x128xf16>, %rows: !tile.tile<8x1xi32>, %c: index) -> !tile.tile<8x64xf16> {
  %g = tile.gather %m[%rows, %c] : memref<?x128xf16>, !tile.tile<8x1xi32> -> !tile.tile<8x64xf16>
  return %g : !tile.tile<8x64xf16>
}

// -----

// Scatter writes rows[r, 0] of the memref, one row after the other (the last
// of equal row indices wins), element by element; each row's index and the
// column window are checked (outside: the site is reported, the row skipped).
// CHECK-LABEL: func.func @scatter(
// CHECK-SAME:    %[[M:.*]]: memref<?x128xf16>, %[[T:.*]]: tensor<8x64xf16>, %[[ROWS:.*]]: tensor<8x1xi64>, %[[C:.*]]: index)
// CHECK:         %[[END:.*]] = arith.addi %[[C]], %{{.*}} : index
// CHECK:         scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           %[[IDX:.*]] = tensor.extract %[[ROWS]][%[[R]], %{{.*}}] : tensor<8x1xi64>
// CHECK:           %[[ROW:.*]] = arith.index_cast %[[IDX]] : i64 to index
// CHECK:           arith.cmpi sle, %[[END]], %{{.*}} : index
// CHECK:           scf.if %[[BAD:.*]] {
// CHECK-NEXT:        func.call @htpRuntimeError(
// CHECK:           scf.if %[[OK:.*]] {
// CHECK-NEXT:        scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:          %[[X:.*]] = tensor.extract %[[T]][%[[R]], %[[J]]] : tensor<8x64xf16>
// CHECK-NEXT:          %[[AT:.*]] = arith.addi %[[C]], %[[J]] : index
// CHECK-NEXT:          memref.store %[[X]], %[[M]][%[[ROW]], %[[AT]]] : memref<?x128xf16>
func.func @scatter(%m: memref<?x128xf16>, %t: !tile.tile<8x64xf16>, %rows: !tile.tile<8x1xi64>, %c: index) {
  tile.scatter %t, %m[%rows, %c] : !tile.tile<8x64xf16>, memref<?x128xf16>, !tile.tile<8x1xi64>
  return
}

// -----

// Put: loops over the index tile's valid rows and columns, in order (the
// last of equal indices wins), inserting into the input; an index outside
// the row's valid columns is reported and writes nothing.
// CHECK-LABEL: func.func @put(
// CHECK-SAME:    %[[X:.*]]: tensor<?x64xf32>, %[[I:.*]]: tensor<?x8xi32>, %[[V:.*]]: tensor<?x8xf32>) -> tensor<?x64xf32>
// CHECK:         %[[ROWS:.*]] = tensor.dim %[[I]], %{{.*}} : tensor<?x8xi32>
// CHECK:         %[[OUT:.*]] = scf.for %[[R:.*]] = %{{.*}} to %[[ROWS]] step %{{.*}} iter_args(%[[A:.*]] = %[[X]]) -> (tensor<?x64xf32>) {
// CHECK:           scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %[[A]]) -> (tensor<?x64xf32>) {
// CHECK:             %[[RAW:.*]] = tensor.extract %[[I]][%[[R]], %[[J]]] : tensor<?x8xi32>
// CHECK:             %[[COL:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK:             %[[NEW:.*]] = tensor.extract %[[V]][%[[R]], %[[J]]] : tensor<?x8xf32>
// CHECK:             scf.if %{{.*}} {
// CHECK-NEXT:          func.call @htpRuntimeError(
// CHECK:             %[[SAFE:.*]] = arith.select %[[IN:.*]], %[[COL]], %{{.*}} : index
// CHECK:             %[[OLD:.*]] = tensor.extract %[[B]][%[[R]], %[[SAFE]]] : tensor<?x64xf32>
// CHECK:             %[[W:.*]] = arith.select %[[IN]], %[[NEW]], %[[OLD]] : f32
// CHECK:             tensor.insert %[[W]] into %[[B]][%[[R]], %[[SAFE]]] : tensor<?x64xf32>
// CHECK:         return %[[OUT]] : tensor<?x64xf32>
func.func @put(%x: !tile.tile<16x64xf32, valid = ?x64>, %i: !tile.tile<16x8xi32, valid = ?x8>, %v: !tile.tile<16x8xf32, valid = ?x8>) -> !tile.tile<16x64xf32, valid = ?x64> {
  %r = tile.put %x[%i], %v : !tile.tile<16x64xf32, valid = ?x64>, !tile.tile<16x8xi32, valid = ?x8>, !tile.tile<16x8xf32, valid = ?x8> -> !tile.tile<16x64xf32, valid = ?x64>
  return %r : !tile.tile<16x64xf32, valid = ?x64>
}

// -----

// Loop-carried tiles: iter_args, yields and loop results become tensors.
// CHECK-LABEL: func.func @loop_carried(
// CHECK:         %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<16x1xf32>)
// CHECK:           scf.yield %{{.*}} : tensor<16x1xf32>
// CHECK:         return %[[R]] : tensor<16x1xf32>
func.func @loop_carried(%x: memref<16x256xf32>) -> !tile.tile<16x1xf32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %zero = tile.constant 0.0 : !tile.tile<16x1xf32>
  %sum = scf.for %j = %c0 to %c256 step %c64 iter_args(%acc = %zero) -> (!tile.tile<16x1xf32>) {
    %t = tile.load %x[%c0, %j] : memref<16x256xf32> -> !tile.tile<16x64xf32>
    %s = tile.row_reduce sum %t : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
    %next = tile.add %acc, %s : !tile.tile<16x1xf32>
    scf.yield %next : !tile.tile<16x1xf32>
  }
  return %sum : !tile.tile<16x1xf32>
}

// -----

// pad: tensor.pad from the valid region up to the tile; set_valid: a slice.
// CHECK-LABEL: func.func @pad_set_valid(
// CHECK-SAME:    %[[T:.*]]: tensor<?x64xf32>, %[[Z:.*]]: f32, %[[N:.*]]: index)
// CHECK:         %[[D:.*]] = tensor.dim %[[T]], %{{.*}} : tensor<?x64xf32>
// CHECK:         %[[HIGH:.*]] = arith.subi %{{.*}}, %[[D]] : index
// CHECK:         %[[P:.*]] = tensor.pad %[[T]] low[0, 0] high[%[[HIGH]], 0]
// CHECK:           tensor.yield %[[Z]] : f32
// CHECK:         } : tensor<?x64xf32> to tensor<16x64xf32>
// CHECK:         tensor.extract_slice %[[P]][0, 0] [%[[N]], 64] [1, 1] : tensor<16x64xf32> to tensor<?x64xf32>
func.func @pad_set_valid(%t: !tile.tile<16x64xf32, valid = ?x64>, %z: f32, %n: index) -> !tile.tile<16x64xf32, valid = ?x64> {
  %p = tile.pad %t, %z : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x64xf32>
  %s = tile.set_valid %p valid [%n] : !tile.tile<16x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  return %s : !tile.tile<16x64xf32, valid = ?x64>
}

// -----

// HTP's elementwise fusion: one-input ops of the same type extend the
// generic that makes their input (used only by them), so a chain is one
// generic; the scalar defined between the ops is still visible (the generic
// moves down to the last op of the chain).
// CHECK-LABEL: func.func @chain(
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: math.exp
// CHECK-NEXT: linalg.yield
func.func @chain(%a: !tile.tile<16x64xf32>) -> !tile.tile<16x64xf32> {
  %c = arith.constant 1.5 : f32
  %x = tile.mul %a, %c : !tile.tile<16x64xf32>, f32
  %d = arith.constant 0.25 : f32
  %y = tile.add %x, %d : !tile.tile<16x64xf32>, f32
  %z = tile.exp %y : !tile.tile<16x64xf32>
  return %z : !tile.tile<16x64xf32>
}

// -----

// A value used twice is not extended: its generic stays whole.
// CHECK-LABEL: func.func @shared(
// CHECK-COUNT-3: linalg.generic
func.func @shared(%a: !tile.tile<16x64xf32>) -> (!tile.tile<16x64xf32>, !tile.tile<16x64xf32>) {
  %x = tile.exp %a : !tile.tile<16x64xf32>
  %y = tile.neg %x : !tile.tile<16x64xf32>
  %z = tile.abs %x : !tile.tile<16x64xf32>
  return %y, %z : !tile.tile<16x64xf32>, !tile.tile<16x64xf32>
}

// -----

// A tile still used after a store overwrites its elements is copied out of
// the tensor at the load (a buffer of its own); the other load, whose tile
// is stored back before the store to its elements, reads in place.
// CHECK-LABEL: func.func @swap(
// CHECK:         %[[A:.*]] = bufferization.to_tensor %{{.*}} restrict
// CHECK-NEXT:    bufferization.alloc_tensor() copy(%[[A]])
// CHECK:         %[[X:.*]] = bufferization.to_tensor %{{.*}} restrict
// CHECK-NOT:     bufferization.alloc_tensor
// CHECK:         return
// LLVM-LABEL:  llvm.func @swap
func.func @swap(%x: memref<16x64xf32>, %acc: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %a = tile.load %acc[%c0, %c0] : memref<16x64xf32> -> !tile.tile<8x64xf32>
  %t = tile.load %x[%c0, %c0] : memref<16x64xf32> -> !tile.tile<8x64xf32>
  tile.store %t, %acc[%c0, %c0] : !tile.tile<8x64xf32>, memref<16x64xf32>
  tile.store %a, %acc[%c8, %c0] : !tile.tile<8x64xf32>, memref<16x64xf32>
  return
}

// -----

// Stored back to the same elements through ops that keep positions: read in
// place (no copy); stored back transposed: copied.
// CHECK-LABEL: func.func @in_place(
// CHECK-NOT:     bufferization.alloc_tensor
// CHECK:         return
// CHECK-LABEL: func.func @transposed_in_place(
// CHECK:         bufferization.alloc_tensor() copy(
// LLVM-LABEL:  llvm.func @in_place
func.func @in_place(%x: memref<?x64xf32>, %acc: memref<?x64xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %half = arith.constant 0.5 : f32
  %a = tile.load %acc[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
  %t = tile.load %x[%i, %c0] : memref<?x64xf32> -> !tile.tile<16x64xf32>
  %h = tile.mul %a, %half : !tile.tile<16x64xf32>, f32
  %s = tile.add %h, %t : !tile.tile<16x64xf32>
  tile.store %s, %acc[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  return
}
func.func @transposed_in_place(%a: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %t = tile.load %a[%c0, %c0] : memref<16x16xf32> -> !tile.tile<16x16xf32>
  %r = tile.transpose %t : !tile.tile<16x16xf32> -> !tile.tile<16x16xf32>
  tile.store %r, %a[%c0, %c0] : !tile.tile<16x16xf32>, memref<16x16xf32>
  return
}

// -----

// Reduced before the store (the sum is a buffer of its own): read in place.
// CHECK-LABEL: func.func @normalise_in_place(
// CHECK-NOT:     bufferization.alloc_tensor
// CHECK:         return
// LLVM-LABEL:  llvm.func @normalise_in_place
func.func @normalise_in_place(%acc: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %a = tile.load %acc[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  %s = tile.row_reduce sum %a : !tile.tile<16x64xf32> -> !tile.tile<16x1xf32>
  %b = tile.broadcast %s : !tile.tile<16x1xf32> -> !tile.tile<16x64xf32>
  %d = tile.div %a, %b : !tile.tile<16x64xf32>
  tile.store %d, %acc[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
  return
}

// -----

// As `tile-check-bounds` leaves an in-place update (the load's operands
// clamped to 0 under one condition, the store guarded): the same elements,
// read in place. A load whose operands are the user's own selects is read
// as written: a different place, copied.
// CHECK-LABEL: func.func @checked_in_place(
// CHECK-NOT:     bufferization.alloc_tensor
// CHECK:         return
// CHECK-LABEL: func.func @selected_elsewhere(
// CHECK:         bufferization.alloc_tensor() copy(
// LLVM-LABEL:  llvm.func @checked_in_place
func.func @checked_in_place(%acc: memref<?x64xf32>, %i: index, %ok: i1) {
  %c0 = arith.constant 0 : index
  %c0b = arith.constant 0 : index
  %si = arith.select %ok, %i, %c0 : index
  %sj = arith.select %ok, %c0b, %c0 : index
  %a = tile.load %acc[%si, %sj] : memref<?x64xf32> -> !tile.tile<16x64xf32>
  %two = arith.constant 2.0 : f32
  %d = tile.mul %a, %two : !tile.tile<16x64xf32>, f32
  scf.if %ok {
    tile.store %d, %acc[%i, %c0b] : !tile.tile<16x64xf32>, memref<?x64xf32>
  }
  return
}
func.func @selected_elsewhere(%acc: memref<?x64xf32>, %i: index, %j: index, %ok: i1, %other: i1) {
  %c0 = arith.constant 0 : index
  %si = arith.select %ok, %i, %c0 : index
  %sj = arith.select %other, %c0, %c0 : index
  %a = tile.load %acc[%si, %sj] : memref<?x64xf32> -> !tile.tile<16x64xf32>
  %two = arith.constant 2.0 : f32
  %d = tile.mul %a, %two : !tile.tile<16x64xf32>, f32
  tile.store %d, %acc[%i, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>
  return
}
