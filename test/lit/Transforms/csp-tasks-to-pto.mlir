// csp-tasks-to-pto (lib/htp-conversion-csp-to-pto/src/tasks.rs): a CSP
// program that csp-to-pto split into tasks (csp.tasks: a kernel per
// process, called per replica) becomes the package's entry orchestration
// once the kernels are orchestrations: a pto.schedule, each call a
// pto.task passing the program's tensors whole (each as the program
// declares it: in, out, inout) and the replica index, at the process's
// line; the tensors' directions recorded on the program's arguments.
// RUN: htp-opt %s --pass-pipeline='builtin.module(csp-tasks-to-pto)' | FileCheck %s

// CHECK-LABEL: func.func @p(
// CHECK-SAME: pto.direction = "in"
// CHECK-SAME: pto.direction = "out"
// CHECK-SAME: pto.direction = "inout"
// CHECK-SAME: pto.orchestration
// CHECK: pto.schedule window 16384 lanes 0 dispatch "runtime"
// CHECK: scf.for %[[R:.*]] =
// CHECK-NEXT: pto.task @p__worker(%arg0, %arg1, %arg2, %[[R]]) {access = ["in", "out", "inout", "none"], at = "{{.*}}"}
// CHECK: pto.task @p__single(%arg0, %arg1, %arg2) {access = ["in", "out", "inout"]
// CHECK-NOT: func.call
func.func @p__worker(%x: memref<16x16xf32>, %y: memref<16x16xf32>, %z: memref<16x16xf32>, %r: index) attributes {pto.orchestration} {
  return
}
func.func @p__single(%x: memref<16x16xf32>, %y: memref<16x16xf32>, %z: memref<16x16xf32>) attributes {pto.orchestration} {
  return
}
func.func @p(%x: memref<16x16xf32>, %y: memref<16x16xf32>, %z: memref<16x16xf32>) attributes {csp.tasks, htp.model = "csp", htp.outputs = array<i64: 1>, htp.in_outs = array<i64: 2>} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  scf.for %r = %c0 to %c3 step %c1 {
    func.call @p__worker(%x, %y, %z, %r) : (memref<16x16xf32>, memref<16x16xf32>, memref<16x16xf32>, index) -> ()
  }
  func.call @p__single(%x, %y, %z) : (memref<16x16xf32>, memref<16x16xf32>, memref<16x16xf32>) -> ()
  return
}
