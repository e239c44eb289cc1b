// A WSP workload as the package's orchestration (htp-conversion-wsp-to-pto;
// docs/wsp.md, "WSP on PTO"): loops on AICPU, a ragged axis read with get_tensor_data,
// each outermost iteration a scope, views of the tensors, each task a call
// of its kernel's orchestration through wsp::Run, a sequential loop's
// barrier, a select's dispatch predicate, a stream.
// RUN: htp-opt %s --pass-pipeline='builtin.module(wsp-to-pto)' | htp-translate --pto-to-cpp | FileCheck %s

func.func @k_aiv(%x: memref<?x64xf32>, %y: memref<?x64xf32>, %s: f32) attributes {pto.core = "aiv"} {
  return
}
func.func @k(%x: memref<?x64xf32>, %y: memref<?x64xf32>, %s: f32) attributes {pto.orchestration} {
  pto.submit @k_aiv ins(%x : memref<?x64xf32>) outs(%y : memref<?x64xf32>) scalars(%s : f32)
  return
}
func.func @work(%x: memref<?x64xf32>, %y: memref<?x64xf32>, %lens: memref<8xi32>, %counts: memref<8xi32>) attributes {htp.model = "wsp", htp.in_outs = array<i64: 1>, htp.outputs = array<i64: 1>, wsp.schedule = {dispatch = "round_robin", window = 64 : i64, workers = 4 : i64}} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %s = arith.constant 2.0 : f32
  %r = wsp.ragged %c8, %lens : memref<8xi32>
  wsp.parallel (%r) : !wsp.ragged_axis {
  ^bb0(%b: index, %c: index):
    %row0 = arith.muli %b, %c64 : index
    %row1 = arith.muli %c, %c16 : index
    %row = arith.addi %row0, %row1 : index
    %vx = wsp.view %x[%row, %c0] sizes [%c16, %c64] : memref<?x64xf32> -> memref<16x64xf32>
    %vy = wsp.view %y[%row, %c0] sizes [%c16, %c64] : memref<?x64xf32> -> memref<16x64xf32>
    wsp.task @k[%b, %c](%vx, %vy, %s) stream %b {access = ["in", "out", "none"]} : (memref<16x64xf32>, memref<16x64xf32>, f32) -> ()
    wsp.yield
  }
  %steps = wsp.dense %c3
  wsp.sequential (%steps) : !wsp.dense_axis {
  ^bb0(%t: index):
    wsp.select (%c8, %counts) : memref<8xi32> {
    ^bb0(%e: index):
      %row = arith.muli %e, %c16 : index
      %vy = wsp.view %y[%row, %c0] sizes [%c16, %c64] : memref<?x64xf32> -> memref<16x64xf32>
      wsp.task @k[%t, %e](%vy, %vy, %s) {access = ["in", "out", "none"]} : (memref<16x64xf32>, memref<16x64xf32>, f32) -> ()
      wsp.yield
    }
    wsp.yield
  }
  return
}

// CHECK-LABEL: // ----- orchestration/work.cpp
// CHECK:      namespace wsp {
// CHECK:      struct Run final : HtpSubmitter {
// CHECK:      static void htp_orchestration_k(HtpSubmitter &htp_submitter, const ChipTensor &arg0, const ChipTensor &arg1, const float arg2) {
// CHECK:          htp_submitter.submit(kernels, task);
// CHECK:      void aicpu_orchestration_entry(const ChipTaskArgs &orch_args) {
// CHECK:          wsp::Run wsp_run(64, 4);  // the schedule: round_robin
// CHECK:          for (int64_t b = 0; b < 8; b++) {
// CHECK-NEXT:         const uint32_t at[1] = {static_cast<uint32_t>(b)};
// CHECK-NEXT:         const int64_t length = std::max<int64_t>(0, static_cast<int64_t>(get_tensor_data<int32_t>(arg2, 1, at)));
// CHECK-NEXT:         for (int64_t c = 0; c < length; c++) {
// CHECK-NEXT:             wsp_run.open_scope(
// CHECK:                  const ChipTensor view = arg0.view(view_shape, view_offset);
// CHECK:                  wsp_run.begin_task(
// CHECK-NEXT:             wsp_run.tensor(view, true, false);
// CHECK-NEXT:             wsp_run.tensor(view_1, false, true);
// CHECK-NEXT:             wsp_run.has_stream = true;
// CHECK-NEXT:             wsp_run.stream = b;
// CHECK-NEXT:             htp_orchestration_k(wsp_run, view, view_1, 2.0f);
// CHECK-NEXT:             wsp_run.close_scope();
// CHECK:          wsp_run.begin_order();
// CHECK-NEXT:     for (int64_t i = 0; i < 3; i++) {
// CHECK-NEXT:         wsp_run.open_scope(
// CHECK:              for (int64_t e = 0; e < 8; e++) {
// CHECK-NEXT:             const uint32_t at_1[1] = {static_cast<uint32_t>(e)};
// CHECK-NEXT:             wsp_run.guard(arg3, 1, at_1, PredicateOp::NE, 0);
// CHECK:                  htp_orchestration_k(wsp_run, view_2, view_2, 2.0f);
// CHECK-NEXT:             wsp_run.unguard();
// CHECK-NEXT:         }
// The order barrier is in the iteration's scope (outside it, barriers would fill the task window).
// CHECK-NEXT:         wsp_run.next_iteration();
// CHECK-NEXT:         wsp_run.close_scope();
// CHECK-NEXT:     }
// CHECK-NEXT:     wsp_run.end_order();
// CHECK-LABEL: // ----- manifest.json
// CHECK:        {"name": "arg1", "kind": "tensor", "dtype": "float32", "shape": ["?", 64], "direction": "inout"},
// CHECK:        "runtime_env": {"ring_task_window": 64},
