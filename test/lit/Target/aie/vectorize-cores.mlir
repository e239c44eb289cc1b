// RUN: htp-opt %s --pass-pipeline='builtin.module(aie-vectorize-cores{generation=aie2})' | FileCheck %s --check-prefix=PLAN
// RUN: htp-opt %s --pass-pipeline='builtin.module(aie-vectorize-cores{generation=aie2},transform-interpreter,aie-erase-transform-scripts,canonicalize,cse)' | FileCheck %s
// RUN: not htp-opt %s --pass-pipeline='builtin.module(aie-vectorize-cores{generation=aie3})' 2>&1 | FileCheck %s --check-prefix=ERROR
//
// aie-vectorize-cores tags the linalg ops AIE2's vector unit takes and
// appends the script that tiles and vectorizes them; what it does not take
// (f32 max) stays a linalg op for the scalar loops.

#row = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d0, 0)>
#red3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>

// PLAN-LABEL: func.func @scale
// PLAN: linalg.generic {{.*}} {htp.aie_vector = 0 : i64}
// CHECK-LABEL: func.func @scale
// CHECK: scf.for
// CHECK: vector.load {{.*}} vector<16xf32>
// CHECK: vector.broadcast {{.*}} to vector<16xf32>
// CHECK: arith.subf {{.*}} : vector<16xf32>
// CHECK: math.exp {{.*}} : vector<16xf32>
// CHECK: vector.store
// CHECK-NOT: linalg.generic
func.func @scale(%x: memref<8x256xf32>, %m: memref<8x1xf32>, %y: memref<8x256xf32>) {
  linalg.generic {indexing_maps = [#row, #col, #row], iterator_types = ["parallel", "parallel"]} ins(%x, %m : memref<8x256xf32>, memref<8x1xf32>) outs(%y : memref<8x256xf32>) {
  ^bb0(%in: f32, %max: f32, %out: f32):
    %0 = arith.subf %in, %max : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// PLAN-LABEL: func.func @row_max
// PLAN-NOT: htp.aie_vector
// CHECK-LABEL: func.func @row_max
// CHECK: linalg.generic
func.func @row_max(%x: memref<8x1x256xf32>, %m: memref<8x1xf32>) {
  linalg.generic {indexing_maps = [#red3, #red2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<8x1x256xf32>) outs(%m : memref<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// PLAN-LABEL: func.func @row_sum
// PLAN: htp.aie_vector = 1
// CHECK-LABEL: func.func @row_sum
// CHECK: vector.reduction <add>, {{.*}} : vector<16xf32> into f32
func.func @row_sum(%x: memref<8x1x256xf32>, %s: memref<8x1xf32>) {
  linalg.generic {indexing_maps = [#red3, #red2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<8x1x256xf32>) outs(%s : memref<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  }
  return
}

// A row sum of products (x * x): a vector.reduction of the products, not a
// contraction (AIE2 has no f32 MAC shape).
// CHECK-LABEL: func.func @sum_of_squares
// CHECK: arith.mulf {{.*}} : vector<16xf32>
// CHECK: vector.reduction <add>, {{.*}} : vector<16xf32> into f32
func.func @sum_of_squares(%x: memref<8x1x256xf32>, %s: memref<8x1xf32>) {
  linalg.generic {indexing_maps = [#red3, #red2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<8x1x256xf32>) outs(%s : memref<8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// 4x8x4 bf16 MAC instructions in blocks of 4 x 4 (16 accumulators in
// registers across the K loop; each tile of A and B loaded once per step).
// CHECK-LABEL: func.func @matmul
// CHECK-COUNT-16: vector.transfer_read %arg2
// CHECK: scf.for {{.*}} iter_args
// CHECK-COUNT-16: vector.contract {{.*}} : vector<4x8xbf16>, vector<8x4xbf16> into vector<4x4xf32>
// CHECK: scf.yield
// CHECK-COUNT-16: vector.transfer_write {{.*}}, %arg2
// CHECK-LABEL: func.func @ragged_row
// CHECK: linalg.generic
func.func @matmul(%a: memref<16x32xbf16>, %b: memref<32x64xbf16>, %c: memref<16x64xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<16x32xbf16>, memref<32x64xbf16>) outs(%c : memref<16x64xf32>) {
  ^bb0(%in: bf16, %in_0: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    %1 = arith.extf %in_0 : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %out, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// A row of 100 elements is not whole vectors: scalar.
// PLAN-LABEL: func.func @ragged_row
// PLAN-NOT: htp.aie_vector
func.func @ragged_row(%x: memref<8x100xf32>, %y: memref<8x100xf32>) {
  linalg.generic {indexing_maps = [#row, #row], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x100xf32>) outs(%y : memref<8x100xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// PLAN: transform.named_sequence @__transform_main
// PLAN: transform.structured.tile_using_for {{.*}} tile_sizes [1, 16]
// PLAN: transform.structured.tile_using_for {{.*}} tile_sizes [1, 1, 16]
// PLAN: transform.structured.tile_using_for {{.*}} tile_sizes [16, 8, 16] interchange = [0, 2, 1]
// PLAN: transform.structured.tile_using_for {{.*}} tile_sizes [4, 8, 4] interchange = [0, 2, 1]
// PLAN: transform.loop.unroll {{.*}} {factor = 4 : i64}
// PLAN: transform.loop.unroll {{.*}} {factor = 4 : i64}
// CHECK-NOT: transform.
// ERROR: unknown AIE generation 'aie3'
