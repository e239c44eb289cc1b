// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(aie-split-contraction-casts))' | FileCheck %s
//
// A matmul narrowing an input in its body (`htp.cast(p, bf16) @ v` after
// elementwise fusion) reads that input through an elementwise cast of its
// own into a tensor of the narrow type; the matmul's body then widens the
// narrow elements only. Left alone: a matmul whose other input is of
// another type (the split would not give it one MAC type), a ragged
// (dynamic) input, and a matmul without a cast.

#a = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d2)>

// CHECK-LABEL: func.func @cast_then_matmul
// CHECK: %[[E:.*]] = tensor.empty() : tensor<16x32xbf16>
// CHECK: %[[P:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%arg0 : tensor<16x32xf32>) outs(%[[E]] : tensor<16x32xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: linalg.generic {{.*}} ins(%[[P]], %arg1 : tensor<16x32xbf16>, tensor<32x64xbf16>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: bf16, %[[Y:.*]]: bf16, %[[Z:.*]]: f32):
// CHECK-NOT: arith.truncf
// CHECK: arith.extf %[[X]] : bf16 to f32
func.func @cast_then_matmul(%p: tensor<16x32xf32>, %v: tensor<32x64xbf16>, %acc: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]} ins(%p, %v : tensor<16x32xf32>, tensor<32x64xbf16>) outs(%acc : tensor<16x64xf32>) {
  ^bb0(%x: f32, %y: bf16, %z: f32):
    %t = arith.truncf %x : f32 to bf16
    %w = arith.extf %t : bf16 to f32
    %u = arith.extf %y : bf16 to f32
    %m = arith.mulf %w, %u : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// CHECK-LABEL: func.func @other_types
// CHECK-NOT: tensor.empty
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @other_types(%p: tensor<16x32xf32>, %v: tensor<32x64xf16>, %acc: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]} ins(%p, %v : tensor<16x32xf32>, tensor<32x64xf16>) outs(%acc : tensor<16x64xf32>) {
  ^bb0(%x: f32, %y: f16, %z: f32):
    %t = arith.truncf %x : f32 to bf16
    %w = arith.extf %t : bf16 to f32
    %u = arith.extf %y : f16 to f32
    %m = arith.mulf %w, %u : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// CHECK-LABEL: func.func @ragged
// CHECK-NOT: tensor.empty
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @ragged(%p: tensor<?x32xf32>, %v: tensor<32x64xbf16>, %acc: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]} ins(%p, %v : tensor<?x32xf32>, tensor<32x64xbf16>) outs(%acc : tensor<?x64xf32>) {
  ^bb0(%x: f32, %y: bf16, %z: f32):
    %t = arith.truncf %x : f32 to bf16
    %w = arith.extf %t : bf16 to f32
    %u = arith.extf %y : bf16 to f32
    %m = arith.mulf %w, %u : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// CHECK-LABEL: func.func @no_cast
// CHECK-NOT: tensor.empty
// CHECK: linalg.generic
func.func @no_cast(%p: tensor<16x32xbf16>, %v: tensor<32x64xbf16>, %acc: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "reduction", "parallel"]} ins(%p, %v : tensor<16x32xbf16>, tensor<32x64xbf16>) outs(%acc : tensor<16x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %z: f32):
    %w = arith.extf %x : bf16 to f32
    %u = arith.extf %y : bf16 to f32
    %m = arith.mulf %w, %u : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}
