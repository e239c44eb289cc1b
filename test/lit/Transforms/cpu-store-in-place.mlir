// RUN: htp-opt %s --pass-pipeline='builtin.module(func.func(cpu-store-in-place))' | FileCheck %s

// A stored result computed into a fresh tensor computes into the stored
// view instead (moving into the bounds-check guard, an scf.if).
// CHECK-LABEL: func.func @store
// CHECK: scf.if
// CHECK: %[[VIEW:.*]] = memref.subview
// CHECK-NEXT: %[[DEST:.*]] = bufferization.to_tensor %[[VIEW]] restrict writable
// CHECK-NEXT: %[[SUM:.*]] = linalg.generic {{.*}} outs(%[[DEST]] : tensor<16x64xf32>)
// CHECK: bufferization.materialize_in_destination %[[SUM]] in restrict writable %[[VIEW]]
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @store(%a: tensor<16x64xf32>, %y: memref<64x64xf32>, %ok: i1) {
  %e = tensor.empty() : tensor<16x64xf32>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.addf %in, %in : f32
    linalg.yield %d : f32
  } -> tensor<16x64xf32>
  scf.if %ok {
    %v = memref.subview %y[0, 0] [16, 64] [1, 1] : memref<64x64xf32> to memref<16x64xf32, strided<[64, 1]>>
    bufferization.materialize_in_destination %s in restrict writable %v : (tensor<16x64xf32>, memref<16x64xf32, strided<[64, 1]>>) -> ()
  }
  return
}

// Not into a loop (it would compute again on every trip), and not a value
// used twice.
// CHECK-LABEL: func.func @loop
// CHECK: tensor.empty
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<16x64xf32>)
// CHECK: scf.for
// CHECK-NOT: bufferization.to_tensor
func.func @loop(%a: tensor<16x64xf32>, %y: memref<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<16x64xf32>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<16x64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.addf %in, %in : f32
    linalg.yield %d : f32
  } -> tensor<16x64xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.subview %y[0, 0] [16, 64] [1, 1] : memref<64x64xf32> to memref<16x64xf32, strided<[64, 1]>>
    bufferization.materialize_in_destination %s in restrict writable %v : (tensor<16x64xf32>, memref<16x64xf32, strided<[64, 1]>>) -> ()
  }
  return
}
