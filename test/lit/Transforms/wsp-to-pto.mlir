// wsp-to-pto (lib/htp-conversion-wsp-to-pto/src/lower.rs): a WSP workload, its kernel
// already lowered for PTO (`@k_aiv` and the orchestration `@k`), becomes the
// package's orchestration: directions from the declaration and the tasks'
// access, the schedule's window as pto.runtime_env; what pto-runtime cannot
// realise is refused at its op.
// RUN: htp-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(wsp-to-pto)' | FileCheck %s

func.func @k_aiv(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {pto.core = "aiv"} {
  return
}
func.func @k(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {pto.orchestration} {
  pto.submit @k_aiv ins(%x : memref<?x64xf32>) outs(%y : memref<?x64xf32>)
  return
}

// CHECK-LABEL: func.func @work(
// CHECK-SAME: %{{.*}}: memref<?x64xf32> {pto.direction = "in"}, %{{.*}}: memref<?x64xf32> {pto.direction = "inout"}, %{{.*}}: memref<?x64xf32> {pto.direction = "in"}, %{{.*}}: memref<8xi32> {pto.direction = "in"}, %{{.*}}: f32)
// CHECK-SAME: pto.orchestration
// CHECK-SAME: pto.runtime_env = {ring_task_window = 64 : i64}
// The workload in the backend's orchestration IR: a schedule, the loop a scf.for whose
// iterations are scopes, views and tasks at the user's lines.
// CHECK-NEXT: pto.schedule window 64 lanes 0 dispatch "dynamic"
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: pto.scope "{{.*}}wsp-to-pto.mlir:{{[0-9]+}}:3" {
// CHECK: %[[VX:.*]] = pto.tensor_view %{{.*}}[%{{.*}}, %{{.*}}] sizes[%{{.*}}, %{{.*}}] {at = "{{.*}}"} : memref<?x64xf32> -> memref<16x64xf32>
// CHECK: %[[VY:.*]] = pto.tensor_view
// CHECK: pto.task @k(%[[VX]], %[[VY]]) {access = ["in", "out"], at = "{{.*}}"} : memref<16x64xf32>, memref<16x64xf32>
// CHECK-NOT: wsp.
func.func @work(%x: memref<?x64xf32>, %y: memref<?x64xf32>, %unused: memref<?x64xf32>, %lens: memref<8xi32>, %s: f32) attributes {htp.model = "wsp", htp.in_outs = array<i64: 1>, htp.outputs = array<i64: 1>, wsp.schedule = {dispatch = "dynamic", window = 64 : i64, workers = 0 : i64}} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %d = wsp.dense %c4
  // 4 tasks a scope: within the window.
  wsp.parallel (%d) : !wsp.dense_axis {
  ^bb0(%i: index):
    %r = arith.muli %i, %c16 : index
    %vx = wsp.view %x[%r, %c0] sizes [%c16, %c64] : memref<?x64xf32> -> memref<16x64xf32>
    %vy = wsp.view %y[%r, %c0] sizes [%c16, %c64] : memref<?x64xf32> -> memref<16x64xf32>
    wsp.task @k[%i](%vx, %vy) {access = ["in", "out"]} : (memref<16x64xf32>, memref<16x64xf32>) -> ()
    wsp.yield
  }
  return
}

// -----

func.func @k(%x: memref<?x64xf32>) attributes {pto.orchestration} {
  return
}
// expected-error @+1 {{the 'affinity' schedule pins tasks to workers, and pto-runtime has no placement}}
func.func @work(%x: memref<?x64xf32>) attributes {htp.model = "wsp", wsp.schedule = {dispatch = "affinity", window = 0 : i64, workers = 0 : i64}} {
  return
}

// -----

func.func @k(%x: memref<?x64xf32>) attributes {pto.orchestration} {
  return
}
func.func @work(%x: memref<?x64xf32>) attributes {htp.model = "wsp"} {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{this task names its worker (dispatch_by= / worker=), and pto-runtime has no placement}}
  wsp.task @k[](%x) worker %c1 {access = ["inout"]} : (memref<?x64xf32>) -> ()
  return
}

// -----

// expected-error @+1 {{window=12: pto-runtime's task window (ring_task_window) is a power of two of at least 4}}
func.func @work(%x: memref<?x64xf32>) attributes {htp.model = "wsp", wsp.schedule = {dispatch = "dynamic", window = 12 : i64, workers = 0 : i64}} {
  return
}

// -----

func.func @k(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {pto.orchestration} {
  return
}
func.func @work(%x: memref<?x128xf32>, %y: memref<?x64xf32>) attributes {htp.model = "wsp"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{on PTO a task's block covers whole rows: dimension 1 of the tensor must be taken whole}}
  %vx = wsp.view %x[%c0, %c0] sizes [%c16, %c64] : memref<?x128xf32> -> memref<16x64xf32>
  wsp.task @k[](%vx, %y) {access = ["in", "out"]} : (memref<16x64xf32>, memref<?x64xf32>) -> ()
  return
}

// -----

func.func @k_aiv(%y: memref<?x64xf32>) attributes {pto.core = "aiv"} {
  return
}
func.func @k(%y: memref<?x64xf32>) attributes {pto.orchestration} {
  pto.submit @k_aiv ins() outs() inouts(%y : memref<?x64xf32>)
  return
}
func.func @work(%y: memref<?x64xf32>) attributes {htp.model = "wsp", wsp.schedule = {dispatch = "dynamic", window = 8 : i64, workers = 0 : i64}} {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %outer = wsp.dense %c2
  %inner = wsp.dense %c4
  // Each iteration: 4 iterations of 2 tasks and their order barrier = 12 > 7.
  // expected-error @+1 {{each iteration of this loop is one pto-runtime scope of 12 tasks, and the task window (window=8) holds 7 at once}}
  wsp.parallel (%outer) : !wsp.dense_axis {
  ^bb0(%i: index):
    wsp.sequential (%inner) : !wsp.dense_axis {
    ^bb0(%j: index):
      wsp.task @k[%i, %j](%y) {access = ["inout"]} : (memref<?x64xf32>) -> ()
      wsp.task @k[%i, %j](%y) {access = ["inout"]} : (memref<?x64xf32>) -> ()
      wsp.yield
    }
    wsp.yield
  }
  return
}

// -----

func.func @k(%y: memref<?x64xf32>) attributes {pto.orchestration} {
  return
}
func.func @work(%y: memref<?x64xf32>, %counts: memref<8xi32>) attributes {htp.model = "wsp"} {
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i32
  wsp.select (%c8, %counts) : memref<8xi32> {
  ^bb0(%e: index):
    %n = wsp.element %counts[%e] : memref<8xi32> -> i32
    wsp.when %n "gt" %zero : i32, i32 {
      // expected-error @+1 {{this task has more than one guard (wsp.select / wsp.when around it)}}
      wsp.task @k[%e](%y) {access = ["inout"]} : (memref<?x64xf32>) -> ()
      wsp.yield
    }
    wsp.yield
  }
  return
}

// -----

func.func @k(%y: memref<?x64xf32>) attributes {pto.orchestration} {
  return
}
func.func @work(%y: memref<?x64xf32>, %weights: memref<8xf32>) attributes {htp.model = "wsp"} {
  %c0 = arith.constant 0 : index
  %half = arith.constant 0.5 : f32
  %w = wsp.element %weights[%c0] : memref<8xf32> -> f32
  // expected-error @+1 {{on PTO a guard compares an integer element with an integer}}
  wsp.when %w "gt" %half : f32, f32 {
    wsp.task @k[](%y) {access = ["inout"]} : (memref<?x64xf32>) -> ()
    wsp.yield
  }
  return
}

// -----

// A workload calling a kernel that communicates (its orchestration takes the chip's CommContext,
// marked htp.implicit) takes a CommContext of its own, last, and hands it to that task; the
// manifest's marks: its windows and its context.
func.func @exchange(%x: memref<4x64xf32>, %boxes: memref<8x4x64xf32>, %comm: i64 {pto.comm = "context", htp.implicit}) attributes {pto.orchestration} {
  return
}
func.func @k(%x: memref<4x64xf32>) attributes {pto.orchestration} {
  return
}

// CHECK-LABEL: func.func @communicates(
// CHECK-SAME: %{{.*}}: memref<4x64xf32> {pto.direction = "inout"}, %{{.*}}: memref<8x4x64xf32> {pto.comm = "window", pto.direction = "inout"}, %[[CTX:.*]]: i64 {htp.implicit, pto.comm = "context"})
// CHECK: pto.task @k(%{{.*}}) {access = ["inout"], at = "{{.*}}"} : memref<4x64xf32>
// CHECK: pto.task @exchange(%{{.*}}, %{{.*}}, %[[CTX]]) {access = ["in", "inout", "none"], at = "{{.*}}"} : memref<4x64xf32>, memref<8x4x64xf32>, i64
func.func @communicates(%x: memref<4x64xf32>, %boxes: memref<8x4x64xf32>) attributes {htp.model = "wsp", htp.outputs = array<i64: 0>, htp.windows = array<i64: 1>} {
  wsp.task @k[](%x) {access = ["inout"]} : (memref<4x64xf32>) -> ()
  wsp.task @exchange[](%x, %boxes) {access = ["in", "inout"]} : (memref<4x64xf32>, memref<8x4x64xf32>) -> ()
  return
}
