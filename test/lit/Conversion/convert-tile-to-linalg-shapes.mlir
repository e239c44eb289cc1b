// RUN: htp-opt %s --convert-tile-to-linalg --split-input-file | FileCheck %s
// And every lowered case goes on to LLVM with the CPU target's registered pipeline.
// RUN: htp-opt %s --split-input-file --pass-pipeline='builtin.module(htp-cpu-lowering)' | FileCheck %s --check-prefix=LLVM

// LLVM-NOT: tile.
// LLVM-NOT: {{[^-]linalg\.}}
// LLVM-NOT: tensor.

// Shape ops (convert_tile_to_linalg/shapes.rs). A slice is a tensor.generate
// reading element [r, c] of the result at [R0 + r * SR, C0 + c * SC] of the
// input: a ragged dimension is taken whole (its size the input's tensor.dim).
// CHECK-LABEL: func.func @slices(
// CHECK-SAME:    %[[X:[a-zA-Z0-9_]+]]: tensor<?x64xf32>
// CHECK:         %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x64xf32>
// CHECK:         %[[H:.*]] = tensor.generate %[[D]] {
// CHECK-NEXT:    ^bb0(%[[R:.*]]: index, %[[C:.*]]: index):
// CHECK-NEXT:      %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT:      %[[AT:.*]] = arith.addi %[[C]], %[[C32]] : index
// CHECK-NEXT:      %[[V:.*]] = tensor.extract %[[X]][%[[R]], %[[AT]]] : tensor<?x64xf32>
// CHECK-NEXT:      tensor.yield %[[V]] : f32
// CHECK-NEXT:    } : tensor<?x32xf32>
// CHECK:         %[[E:.*]] = tensor.generate %{{.*}} {
// CHECK:           %[[TWICE:.*]] = arith.muli %{{.*}}, %c2 : index
// CHECK:           arith.addi %[[TWICE]], %c1 : index
// CHECK:         } : tensor<?x32xf32>
// CHECK:         %[[P:.*]] = tensor.generate  {
// CHECK:           arith.muli %{{.*}}, %c2{{.*}} : index
// CHECK:           arith.addi %{{.*}}, %c3 : index
// CHECK:           arith.addi %{{.*}}, %c8 : index
// CHECK:         } : tensor<2x4xf32>
// CHECK:         return %[[H]], %[[E]], %[[P]]
// LLVM-LABEL:  llvm.func @slices
func.func @slices(%x: !tile.tile<16x64xf32, valid = ?x64>, %y: !tile.tile<16x64xf32, valid = 16x40>) -> (!tile.tile<16x32xf32, valid = ?x32>, !tile.tile<16x32xf32, valid = ?x32>, !tile.tile<2x4xf32>) {
  %h = tile.slice %x [0, 32] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x32xf32, valid = ?x32>
  %e = tile.slice %x [0, 1] strides [1, 2] : !tile.tile<16x64xf32, valid = ?x64> -> !tile.tile<16x32xf32, valid = ?x32>
  %p = tile.slice %y [3, 8] strides [2, 1] : !tile.tile<16x64xf32, valid = 16x40> -> !tile.tile<2x4xf32>
  return %h, %e, %p : !tile.tile<16x32xf32, valid = ?x32>, !tile.tile<16x32xf32, valid = ?x32>, !tile.tile<2x4xf32>
}

// -----

// A concat is a tensor.generate reading each input at its position,
// clamped into it, and selecting the one whose part holds the element; a
// ragged other dimension is the first input's size.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME:    %[[A:[a-zA-Z0-9_]+]]: tensor<?x32xf32>, %[[B:[a-zA-Z0-9_]+]]: tensor<?x32xf32>)
// CHECK:         %[[D:.*]] = tensor.dim %[[A]], %{{.*}}
// CHECK:         %[[G:.*]] = tensor.generate %[[D]] {
// CHECK-NEXT:    ^bb0(%[[R:.*]]: index, %[[C:.*]]: index):
// CHECK:           %[[BC:.*]] = arith.subi %[[C]], %c32 : index
// CHECK:           %[[FROM_B:.*]] = tensor.extract %[[B]][%[[R]], %{{.*}}] : tensor<?x32xf32>
// CHECK:           %[[FROM_A:.*]] = tensor.extract %[[A]][%[[R]], %{{.*}}] : tensor<?x32xf32>
// CHECK:           %[[IN_A:.*]] = arith.cmpi slt, %[[C]], %{{.*}} : index
// CHECK:           %[[V:.*]] = arith.select %[[IN_A]], %[[FROM_A]], %[[FROM_B]] : f32
// CHECK-NEXT:      tensor.yield %[[V]] : f32
// CHECK-NEXT:    } : tensor<?x64xf32>
// CHECK:         return %[[G]]
// LLVM-LABEL:  llvm.func @concat
func.func @concat(%a: !tile.tile<16x32xf32, valid = ?x32>, %b: !tile.tile<16x32xf32, valid = ?x32>) -> !tile.tile<16x64xf32, valid = ?x64> {
  %c = tile.concat %a, %b axis 1 : !tile.tile<16x32xf32, valid = ?x32>, !tile.tile<16x32xf32, valid = ?x32> -> !tile.tile<16x64xf32, valid = ?x64>
  return %c : !tile.tile<16x64xf32, valid = ?x64>
}

// -----

// Rows stacked: the same along dimension 0.
// CHECK-LABEL: func.func @stack(
// CHECK:         tensor.generate  {
// CHECK:           arith.subi %{{.*}}, %c8 : index
// CHECK:           arith.minsi %{{.*}}, %c15 : index
// CHECK:           arith.minsi %{{.*}}, %c7 : index
// CHECK:           arith.cmpi slt, %{{.*}}, %c8{{.*}} : index
// CHECK:         } : tensor<24x64xf16>
// LLVM-LABEL:  llvm.func @stack
func.func @stack(%a: !tile.tile<8x64xf16>, %b: !tile.tile<16x64xf16>) -> !tile.tile<24x64xf16> {
  %c = tile.concat %a, %b axis 0 : !tile.tile<8x64xf16>, !tile.tile<16x64xf16> -> !tile.tile<24x64xf16>
  return %c : !tile.tile<24x64xf16>
}

// -----

// A reshape collapses to one dimension and expands to the new shape (row-major).
// CHECK-LABEL: func.func @reshape(
// CHECK:         %[[F:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<16x64xi32> into tensor<1024xi32>
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [32, 32] : tensor<1024xi32> into tensor<32x32xi32>
// CHECK:         return %[[R]]
// LLVM-LABEL:  llvm.func @reshape
func.func @reshape(%a: !tile.tile<16x64xi32>) -> !tile.tile<32x32xi32> {
  %r = tile.reshape %a : !tile.tile<16x64xi32> -> !tile.tile<32x32xi32>
  return %r : !tile.tile<32x32xi32>
}

// -----

// A strided load or store is a subview with the steps as its strides (the
// memref's strides times the steps). The store overwrites elements other
// than those the load read: the loaded tile is a buffer of its own.
// CHECK-LABEL: func.func @strided(
// CHECK-SAME:    %[[M:.*]]: memref<?x256xf32>, %[[I:.*]]: index, %[[N:.*]]: index)
// CHECK:         memref.subview %[[M]][%[[I]], %[[I]]] [%[[N]], 64] [2, 2] : memref<?x256xf32> to memref<?x64xf32, strided<[512, 2], offset: ?>>
// CHECK:         bufferization.alloc_tensor() copy(
// CHECK:         %[[S:.*]] = memref.subview %[[M]][%[[I]], %[[I]]] [%{{.*}}, 64] [1, 4] : memref<?x256xf32> to memref<?x64xf32, strided<[256, 4], offset: ?>>
// CHECK:         bufferization.materialize_in_destination %{{.*}} in restrict writable %[[S]]
// LLVM-LABEL:  llvm.func @strided
func.func @strided(%m: memref<?x256xf32>, %i: index, %n: index) {
  %l = tile.load %m[%i, %i] strides [2, 2] valid [%n] : memref<?x256xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  tile.store %l, %m[%i, %i] strides [1, 4] : !tile.tile<16x64xf32, valid = ?x64>, memref<?x256xf32>
  return
}
