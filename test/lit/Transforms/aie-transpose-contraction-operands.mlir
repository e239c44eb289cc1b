// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(aie-transpose-contraction-operands))' | FileCheck %s
//
// A contraction reading B as [n, k] (`x @ w.T`) or A as [k, m] gets the
// operand transposed by vector.transpose and the standard matmul maps
// (A [m, k], B [k, n], C [m, n]): what mlir-aie's aievec conversion turns
// into a shuffle and a MAC. Standard contractions and other shapes stay.

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#bt = affine_map<(d0, d1, d2) -> (d2, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#at = affine_map<(d0, d1, d2) -> (d1, d0)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>

// CHECK-LABEL: func.func @transposed_b
// CHECK: %[[T:.*]] = vector.transpose %arg1, [1, 0] : vector<4x8xbf16> to vector<8x4xbf16>
// CHECK: vector.contract {indexing_maps = [#[[A]], #[[B]], #[[C]]], {{.*}}} %arg0, %[[T]], %arg2 : vector<4x8xbf16>, vector<8x4xbf16> into vector<4x4xf32>
func.func @transposed_b(%a: vector<4x8xbf16>, %b: vector<4x8xbf16>, %c: vector<4x4xf32>) -> vector<4x4xf32> {
  %r = vector.contract {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "reduction", "parallel"], kind = #vector.kind<add>} %a, %b, %c : vector<4x8xbf16>, vector<4x8xbf16> into vector<4x4xf32>
  return %r : vector<4x4xf32>
}

// CHECK-LABEL: func.func @transposed_a
// CHECK: %[[T:.*]] = vector.transpose %arg0, [1, 0] : vector<8x4xi8> to vector<4x8xi8>
// CHECK: vector.contract {indexing_maps = [#[[A]], #[[B]], #[[C]]], {{.*}}} %[[T]], %arg1, %arg2 : vector<4x8xi8>, vector<8x8xi8> into vector<4x8xi32>
func.func @transposed_a(%a: vector<8x4xi8>, %b: vector<8x8xi8>, %c: vector<4x8xi32>) -> vector<4x8xi32> {
  %r = vector.contract {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "reduction", "parallel"], kind = #vector.kind<add>} %a, %b, %c : vector<8x4xi8>, vector<8x8xi8> into vector<4x8xi32>
  return %r : vector<4x8xi32>
}

// CHECK-LABEL: func.func @standard
// CHECK-NOT: vector.transpose
// CHECK: vector.contract
func.func @standard(%a: vector<4x8xbf16>, %b: vector<8x4xbf16>, %c: vector<4x4xf32>) -> vector<4x4xf32> {
  %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"], kind = #vector.kind<add>} %a, %b, %c : vector<4x8xbf16>, vector<8x4xbf16> into vector<4x4xf32>
  return %r : vector<4x4xf32>
}

// A row-by-row reduction (no [m, n] result): not a matmul, left alone.
// CHECK-LABEL: func.func @not_a_matmul
// CHECK-NOT: vector.transpose
#row = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @not_a_matmul(%a: vector<4x8xf32>, %b: vector<4x8xf32>, %c: vector<4xf32>) -> vector<4xf32> {
  %r = vector.contract {indexing_maps = [#row, #row, #out], iterator_types = ["parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x8xf32>, vector<4x8xf32> into vector<4xf32>
  return %r : vector<4xf32>
}
