// RUN: htp-opt %s --pass-pipeline='builtin.module(cpu-vectorize-matmul)' | FileCheck %s

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#bt = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>

// CHECK: #[[TRANSPOSE:map[0-9]*]] = affine_map<(d0, d1) -> (d1, d0)>

// The f32 contraction calls the micro-kernel on operands cast to dynamic
// strided memrefs.
// CHECK-LABEL: func.func @plain
// CHECK: %[[A:.*]] = memref.cast %arg0 : memref<16x32xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: %[[B:.*]] = memref.cast %arg1
// CHECK: %[[C:.*]] = memref.cast %arg2
// CHECK: call @__htp_matmul_4x64_f32(%[[A]], %[[B]], %[[C]])
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @plain(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// f16 operands go through a function that widens them into f32 buffers;
// a transposed B (a tile.transpose fused into the matmul) is transposed there.
// CHECK-LABEL: func.func @widened
// CHECK: call @__htp_matmul_f16_f16(
// CHECK-LABEL: func.func @transposed
// CHECK: call @__htp_matmul_bt_f32_f32(
func.func @widened(%a: memref<?x?xf16, strided<[?, 1], offset: ?>>, %b: memref<?x?xf16>, %c: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<?x?xf16>) outs(%c : memref<?x?xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xw = arith.extf %x : f16 to f32
    %yw = arith.extf %y : f16 to f32
    %p = arith.mulf %xw, %yw : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @transposed(%a: memref<32x64xf32>, %b: memref<32x64xf32>, %c: memref<32x32xf32>) {
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<32x64xf32>) outs(%c : memref<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Left as loops: a producer fused into the body, an integer product, a B
// whose rows are not contiguous, a product not added to the accumulator.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: call @__htp_matmul
// CHECK: return
func.func @kept(%a: memref<16x32xf32>, %b: memref<32x64xf32>, %c: memref<16x64xf32>, %ai: memref<16x32xi8>, %bi: memref<32x64xi8>, %ci: memref<16x64xi32>, %bs: memref<32x64xf32, strided<[1, 32]>>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %e = math.exp %x : f32
    %p = arith.mulf %e, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]} ins(%ai, %bi : memref<16x32xi8>, memref<32x64xi8>) outs(%ci : memref<16x64xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extsi %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %bs : memref<16x32xf32>, memref<32x64xf32, strided<[1, 32]>>) outs(%c : memref<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<16x32xf32>, memref<32x64xf32>) outs(%c : memref<16x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %p, %p : f32
    linalg.yield %s : f32
  }
  return
}

// The micro-kernel: 4 x 64 blocks then single vectors, accumulators carried
// through the k loop, fused multiply-adds; the rest is the plain contraction.
// The single vectors and the column rest run only when they have columns (their
// row and k loops are outside the columns: empty columns still cost M x K turns).
// CHECK-LABEL: func.func private @__htp_matmul_4x64_f32(
// CHECK: %[[NWR:.*]] = arith.remui %[[N:.*]], %c64
// CHECK: %[[NW:.*]] = arith.subi %[[N]], %[[NWR]]
// CHECK: %[[NV:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: %[[NR:.*]] = arith.subi %[[N]], %[[NV]] : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[NW]] step %c64
// CHECK: %{{.*}}:16 = scf.for
// CHECK-COUNT-16: vector.fma
// CHECK: %[[SOME_VECTORS:.*]] = arith.cmpi ult, %[[NW]], %[[NV]] : index
// CHECK-NEXT: scf.if %[[SOME_VECTORS]] {
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c4
// CHECK: scf.for %{{.*}} = %[[NW]] to %[[NV]] step %c16
// CHECK: %{{.*}}:4 = scf.for
// CHECK-COUNT-4: vector.fma
// The row rest: its loop over its own rows is empty when they are.
// CHECK-NOT: scf.if
// CHECK: linalg.generic
// CHECK: %[[SOME_COLUMNS:.*]] = arith.cmpi ne, %[[NR]], %c0 : index
// CHECK-NEXT: scf.if %[[SOME_COLUMNS]] {
// CHECK: memref.subview %arg1[0, %[[NV]]] [%{{.*}}, %[[NR]]]
// CHECK: linalg.generic
// CHECK: return
// CHECK-LABEL: func.func private @__htp_matmul_f16_f16(
// CHECK: memref.alloc
// CHECK: arith.extf
// CHECK: memref.alloc
// CHECK: arith.extf
// CHECK: call @__htp_matmul_4x64_f32
// CHECK-LABEL: func.func private @__htp_matmul_bt_f32_f32(
// CHECK: memref.alloc
// CHECK: linalg.generic {indexing_maps = [#{{map[0-9]*}}, #[[TRANSPOSE]]]
// CHECK: call @__htp_matmul_4x64_f32
