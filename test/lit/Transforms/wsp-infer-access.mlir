// The WSP model's pipeline (lib/htp-model-wsp/src/infer_access.rs): each
// task's access modes from its kernel (outputs only written: out; outputs
// also read: inout; other tensors: in; scalars: none), keys from the loops
// around a task without them; host reads of task-written tensors and
// compute in a workload are errors at their ops.
// RUN: htp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(wsp-infer-access)' | FileCheck %s

func.func @scale(%x: memref<16x64xf32>, %y: memref<16x64xf32>, %s: f32) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  tile.store %t, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
  return
}

func.func @accumulate(%y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 0>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %y[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  tile.store %t, %y[%c0, %c0] : !tile.tile<16x64xf32>, memref<16x64xf32>
  return
}

// A scatter writes its destination: an output only scattered into is "out".
func.func @scatter_rows(%x: memref<16x64xf32>, %y: memref<?x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %t = tile.load %x[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  %r = tile.constant 3 : !tile.tile<16x1xi32>
  tile.scatter %t, %y[%r, %c0] : !tile.tile<16x64xf32>, memref<?x64xf32>, !tile.tile<16x1xi32>
  return
}

// CHECK-LABEL: func.func @workload
func.func @workload(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.model = "wsp", htp.outputs = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %s = arith.constant 2.0 : f32
  %d = wsp.dense %c4
  // CHECK: wsp.parallel
  // CHECK-NEXT: ^bb0(%[[I:.+]]: index, %[[J:.+]]: index):
  wsp.parallel (%d, %d) : !wsp.dense_axis, !wsp.dense_axis {
  ^bb0(%i: index, %j: index):
    %row = arith.muli %i, %c16 : index
    %vx = wsp.view %x[%row, %c0] sizes [%c16, %c16] : memref<?x64xf32> -> memref<16x64xf32>
    %vy = wsp.view %y[%row, %c0] sizes [%c16, %c16] : memref<?x64xf32> -> memref<16x64xf32>
    // CHECK: wsp.task @scale[%[[I]], %[[J]]] ({{.+}}) {access = ["in", "out", "none"]}
    wsp.task @scale[](%vx, %vy, %s) : (memref<16x64xf32>, memref<16x64xf32>, f32) -> ()
    // Given keys are kept.
    // CHECK: wsp.task @accumulate[%[[J]]] ({{.+}}) {access = ["inout"]}
    wsp.task @accumulate[%j](%vy) : (memref<16x64xf32>) -> ()
    // CHECK: wsp.task @scatter_rows[%[[I]], %[[J]]] ({{.+}}) {access = ["in", "out"]}
    wsp.task @scatter_rows[](%vx, %y) : (memref<16x64xf32>, memref<?x64xf32>) -> ()
    wsp.yield
  }
  // Outside any loop: no keys.
  // CHECK: wsp.task @accumulate[] ({{.+}}) {access = ["inout"]}
  %whole = wsp.view %y[%c0, %c0] sizes [%c16, %c16] : memref<?x64xf32> -> memref<16x64xf32>
  wsp.task @accumulate[](%whole) : (memref<16x64xf32>) -> ()
  return
}

// -----

func.func @count(%c: memref<1x8xi32>) attributes {htp.kernel, htp.outputs = array<i64: 0>} {
  return
}

func.func @reads_a_written_tensor(%counts: memref<1x8xi32>) attributes {htp.model = "wsp", htp.outputs = array<i64: 0>} {
  %c8 = arith.constant 8 : index
  wsp.task @count[](%counts) : (memref<1x8xi32>) -> ()
  // expected-error @+1 {{reads, as the workload issues tasks, a tensor one of its tasks writes}}
  %r = wsp.ragged %c8, %counts : memref<1x8xi32>
  return
}

// -----

func.func @fill(%y: memref<16x64xf32>) attributes {htp.kernel, htp.outputs = array<i64: 0>} {
  return
}

// A task's kernel writes (a view of) the workload's input %x: its caller's array.
func.func @writes_an_input(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {htp.model = "wsp", htp.outputs = array<i64: 1>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %v = wsp.view %x[%c0, %c0] sizes [%c16, %c16] : memref<?x64xf32> -> memref<16x64xf32>
  // expected-error @+1 {{task 'fill' writes its argument #0 (an output of the kernel), a view of the workload's parameter #0, which is an input (htp.Tensor): a workload never writes its caller's inputs}}
  wsp.task @fill[](%v) : (memref<16x64xf32>) -> ()
  return
}

// -----

func.func @computes(%x: memref<16x64xf32>) attributes {htp.model = "wsp"} {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{a workload issues tasks; 'tile.load' computes, which belongs in a kernel}}
  %t = tile.load %x[%c0, %c0] : memref<16x64xf32> -> !tile.tile<16x64xf32>
  return
}

// -----

func.func @helper(%x: memref<16x64xf32>) {
  return
}

func.func @not_a_kernel(%x: memref<16x64xf32>) attributes {htp.model = "wsp"} {
  // expected-error @+1 {{'helper' is not an @htp.kernel: a task runs a kernel}}
  wsp.task @helper[](%x) : (memref<16x64xf32>) -> ()
  return
}

// -----

// A kernel's communication window (htp.windows) is read and written, by the kernel and by its
// peers: "inout". A workload's window is no input: a task may write it.
func.func @exchange(%x: memref<4x64xf32>, %boxes: memref<8x4x64xf32>, %done: memref<8xi32>) attributes {htp.kernel, htp.windows = array<i64: 1, 2>} {
  return
}

// CHECK-LABEL: func.func @communicates
func.func @communicates(%x: memref<4x64xf32>, %boxes: memref<8x4x64xf32>, %done: memref<8xi32>) attributes {htp.model = "wsp", htp.windows = array<i64: 1, 2>} {
  // CHECK: wsp.task @exchange[] ({{.+}}) {access = ["in", "inout", "inout"]}
  wsp.task @exchange[](%x, %boxes, %done) : (memref<4x64xf32>, memref<8x4x64xf32>, memref<8xi32>) -> ()
  return
}

// -----

func.func @exchange(%x: memref<4x64xf32>, %boxes: memref<8x4x64xf32>, %done: memref<8xi32>) attributes {htp.kernel, htp.windows = array<i64: 1, 2>} {
  return
}

// A kernel reaches a peer's window at its own offset in the window: a task gives it a window.
func.func @not_a_window(%x: memref<4x64xf32>, %boxes: memref<8x4x64xf32>, %done: memref<8xi32>) attributes {htp.model = "wsp", htp.outputs = array<i64: 1>, htp.windows = array<i64: 2>} {
  // expected-error @+1 {{task 'exchange': its argument #1 is a communication window of the kernel (comm.Window), and the task gives it a tensor that is not one}}
  wsp.task @exchange[](%x, %boxes, %done) : (memref<4x64xf32>, memref<8x4x64xf32>, memref<8xi32>) -> ()
  return
}
