// Round trip of every csp op (and the channel type with and without a count).
// RUN: htp-opt %s | htp-opt | FileCheck %s

// CHECK-LABEL: func.func @pipeline
func.func @pipeline(%x: memref<64x16xf32>, %y: memref<64x16xf32>) attributes {htp.model = "csp"} {
  // CHECK: %[[A:.*]] = csp.channel "a" depth 2 : !csp.channel<!tile.tile<16x16xf32>>
  %a = csp.channel "a" depth 2 : !csp.channel<!tile.tile<16x16xf32>>
  // CHECK: %[[W:.*]] = csp.channel "w" depth 1 : !csp.channel<!tile.tile<16x16xf32>, 4>
  %w = csp.channel "w" depth 1 : !csp.channel<!tile.tile<16x16xf32>, 4>
  // CHECK: csp.process "load" {
  csp.process "load" {
    %c0 = arith.constant 0 : index
    %t = tile.load %x[%c0, %c0] : memref<64x16xf32> -> !tile.tile<16x16xf32>
    // CHECK: csp.send %[[A]], %{{.*}} : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
    csp.send %a, %t : !csp.channel<!tile.tile<16x16xf32>>, !tile.tile<16x16xf32>
  }
  // CHECK: csp.process "fan" {
  csp.process "fan" {
    // CHECK: csp.recv %[[A]] : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %t = csp.recv %a : !csp.channel<!tile.tile<16x16xf32>> -> !tile.tile<16x16xf32>
    %c2 = arith.constant 2 : index
    // CHECK: csp.send %[[W]][%{{.*}}], %{{.*}} : !csp.channel<!tile.tile<16x16xf32>, 4>, !tile.tile<16x16xf32>
    csp.send %w[%c2], %t : !csp.channel<!tile.tile<16x16xf32>, 4>, !tile.tile<16x16xf32>
  }
  // CHECK: csp.process "worker" replicas 4 {
  // CHECK-NEXT: ^bb0(%[[R:.*]]: index):
  csp.process "worker" replicas 4 {
  ^bb0(%r: index):
    %zero = tile.constant 0.0 : !tile.tile<16x16xf32>
    // CHECK: %{{.*}} = csp.consume %[[W]][%[[R]]] (%{{.*}}) : !csp.channel<!tile.tile<16x16xf32>, 4>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32> {
    %sum = csp.consume %w[%r] (%zero) : !csp.channel<!tile.tile<16x16xf32>, 4>, !tile.tile<16x16xf32> -> !tile.tile<16x16xf32> {
    ^bb0(%t: !tile.tile<16x16xf32>, %acc: !tile.tile<16x16xf32>):
      %s = tile.add %acc, %t : !tile.tile<16x16xf32>, !tile.tile<16x16xf32>
      // CHECK: csp.yield %{{.*}} : !tile.tile<16x16xf32>
      csp.yield %s : !tile.tile<16x16xf32>
    }
    %c0 = arith.constant 0 : index
    tile.store %sum, %y[%c0, %c0] : !tile.tile<16x16xf32>, memref<64x16xf32>
  }
  return
}
