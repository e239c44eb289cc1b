// The wsp dialect (dialects/wsp), owned and registered by htp-model-wsp:
// a round trip of every op and type.
// RUN: htp-opt %s | htp-opt | FileCheck %s

func.func @scale(%x: memref<16x64xf32>, %y: memref<16x64xf32>, %s: f32) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

func.func @attend(%q: memref<?x64xf32>, %o: memref<?x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  return
}

// A lowered kernel whose last argument the target supplies (a chip's communication context).
func.func @exchange(%x: memref<?x64xf32>, %comm: i64 {htp.implicit}) attributes {htp.kernel} {
  return
}

// CHECK-LABEL: func.func @workload
func.func @workload(%x: memref<?x64xf32>, %y: memref<?x64xf32>, %lens: memref<8xi32>, %indptr: memref<9xi32>, %indices: memref<?xi32>, %counts: memref<8x1xi32>) attributes {htp.model = "wsp"} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %s = arith.constant 2.0 : f32
  %zero = arith.constant 0 : i32
  // CHECK: wsp.cores
  %cores = wsp.cores
  // CHECK: %[[D:.+]] = wsp.dense %{{.+}}
  %d = wsp.dense %c4
  // CHECK: %[[R:.+]] = wsp.ragged %{{.+}}, %{{.+}} : memref<8xi32>
  %r = wsp.ragged %c8, %lens : memref<8xi32>
  // CHECK: %[[S:.+]] = wsp.sparse %{{.+}}, %{{.+}}, %{{.+}} : memref<9xi32>, memref<?xi32>
  %sp = wsp.sparse %c8, %indptr, %indices : memref<9xi32>, memref<?xi32>
  // CHECK: wsp.parallel(%[[D]], %[[R]]) : !wsp.dense_axis, !wsp.ragged_axis {
  // CHECK-NEXT: ^bb0(%{{.+}}: index, %{{.+}}: index, %{{.+}}: index):
  wsp.parallel (%d, %r) : !wsp.dense_axis, !wsp.ragged_axis {
  ^bb0(%i: index, %b: index, %p: index):
    %row = arith.muli %i, %c16 : index
    // CHECK: %[[V:.+]] = wsp.view %{{.+}}[%{{.+}}, %{{.+}}] sizes[%{{.+}}, %{{.+}}] : memref<?x64xf32> -> memref<16x64xf32>
    %vx = wsp.view %x[%row, %c0] sizes [%c16, %c16] : memref<?x64xf32> -> memref<16x64xf32>
    %vy = wsp.view %y[%row, %c0] sizes [%c16, %c16] : memref<?x64xf32> -> memref<16x64xf32>
    // CHECK: wsp.task @scale[%{{.+}}, %{{.+}}] (%[[V]], %{{.+}}, %{{.+}}) {access = ["in", "out", "none"]} : (memref<16x64xf32>, memref<16x64xf32>, f32) -> ()
    wsp.task @scale[%i, %b](%vx, %vy, %s) {access = ["in", "out", "none"]} : (memref<16x64xf32>, memref<16x64xf32>, f32) -> ()
    wsp.yield
  }
  // CHECK: wsp.sequential(%[[S]]) : !wsp.sparse_axis {
  wsp.sequential (%sp) : !wsp.sparse_axis {
  ^bb0(%row: index, %col: index):
    // CHECK: wsp.task @attend[] (%{{.+}}, %{{.+}}) stream %{{.+}} worker %{{.+}} : (memref<?x64xf32>, memref<?x64xf32>) -> ()
    wsp.task @attend[](%x, %y) stream %row worker %col : (memref<?x64xf32>, memref<?x64xf32>) -> ()
    wsp.yield
  }
  // CHECK: wsp.select(%{{.+}}, %{{.+}}) : memref<8x1xi32> {
  wsp.select (%c8, %counts) : memref<8x1xi32> {
  ^bb0(%e: index):
    // CHECK: %[[E:.+]] = wsp.element %{{.+}}[%{{.+}}, %{{.+}}] : memref<8x1xi32> -> i32
    %n = wsp.element %counts[%e, %c0] : memref<8x1xi32> -> i32
    // CHECK: wsp.when %[[E]] "gt" %{{.+}} : i32, i32 {
    wsp.when %n "gt" %zero : i32, i32 {
      wsp.task @attend[%e](%x, %y) : (memref<?x64xf32>, memref<?x64xf32>) -> ()
      wsp.yield
    }
    wsp.yield
  }
  // CHECK: wsp.task @exchange[] (%{{.+}}) : (memref<?x64xf32>) -> ()
  wsp.task @exchange[](%x) : (memref<?x64xf32>) -> ()
  return
}

// Pipes: a channel's ring, a pipe of processes, produce and consume
// binding the slot.
// CHECK-LABEL: func.func @piped
// CHECK: %[[RING:.*]] = wsp.channel "staged" : memref<2x16x64xf32>
// CHECK: wsp.pipe {
// CHECK: wsp.process "load" {
// CHECK: wsp.produce %[[RING]] : memref<2x16x64xf32> {
// CHECK-NEXT: ^bb0(%[[SLOT:.*]]: memref<16x64xf32>):
// CHECK-NEXT: wsp.task @scale[] (%{{.*}}, %[[SLOT]], %{{.*}})
// CHECK: wsp.process "store" {
// CHECK: wsp.consume %[[RING]] : memref<2x16x64xf32> {
func.func @piped(%x: memref<16x64xf32>, %y: memref<16x64xf32>, %s: f32) attributes {htp.model = "wsp"} {
  %ring = wsp.channel "staged" : memref<2x16x64xf32>
  wsp.pipe {
    wsp.process "load" {
      wsp.produce %ring : memref<2x16x64xf32> {
      ^bb0(%slot: memref<16x64xf32>):
        wsp.task @scale[](%x, %slot, %s) : (memref<16x64xf32>, memref<16x64xf32>, f32) -> ()
      }
    }
    wsp.process "store" {
      wsp.consume %ring : memref<2x16x64xf32> {
      ^bb0(%t: memref<16x64xf32>):
        wsp.task @scale[](%t, %y, %s) : (memref<16x64xf32>, memref<16x64xf32>, f32) -> ()
      }
    }
  }
  return
}
