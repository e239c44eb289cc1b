// A WSP workload as the package's orchestration (htp-conversion-wsp-to-pto;
// docs/wsp.md, "WSP on PTO"): loops on AICPU, a ragged axis read with get_tensor_data,
// each outermost iteration a scope, views of the tensors, each task a call
// of its kernel's orchestration through htp_schedule::Schedule, a sequential loop's
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
// CHECK:      namespace htp_schedule {
// CHECK:      struct Schedule final : HtpSubmitter {
// CHECK:      static void htp_orchestration_k(HtpSubmitter &htp_submitter, const ChipTensor &arg0, const ChipTensor &arg1, const float arg2) {
// CHECK:          htp_submitter.submit(kernels, task);
// CHECK:      void aicpu_orchestration_entry(const ChipTaskArgs &orch_args) {
// CHECK:          htp_schedule::Schedule htp_schedule(64, 4);  // the schedule: round_robin
// CHECK:          for (int64_t [[B:.*]] = 0; [[B]] < 8; [[B]] += 1) {
// CHECK-NEXT:         const uint32_t at[1] = {static_cast<uint32_t>([[B]])};
// CHECK-NEXT:         const int32_t element = get_tensor_data<int32_t>(arg2, 1, at);
// CHECK-NEXT:         const int64_t [[LEN:.*]] = static_cast<int64_t>(element);
// CHECK-NEXT:         const int64_t [[N:.*]] = std::max<int64_t>([[LEN]], 0);
// CHECK:              for (int64_t [[C:.*]] = 0; [[C]] < [[N]]; [[C]] += 1) {
// CHECK-NEXT:             htp_schedule.open_scope(
// CHECK:                  htp_schedule.starts_within(arg0, 0,
// CHECK:                  const ChipTensor view = arg0.view(view_shape, view_offset);
// CHECK:                  htp_schedule.begin_task(
// CHECK-NEXT:             htp_schedule.tensor(view, true, false);
// CHECK-NEXT:             htp_schedule.tensor(view_1, false, true);
// CHECK-NEXT:             htp_schedule.has_stream = true;
// CHECK-NEXT:             htp_schedule.stream = [[B]];
// CHECK-NEXT:             htp_orchestration_k(htp_schedule, view, view_1, 2.0f);
// CHECK-NEXT:             htp_schedule.close_scope();
// CHECK:          htp_schedule.begin_order();
// CHECK:          for (int64_t [[I:.*]] = 0; [[I]] < 3; [[I]] += 1) {
// CHECK-NEXT:         htp_schedule.open_scope(
// CHECK:              for (int64_t [[E:.*]] = 0; [[E]] < 8; [[E]] += 1) {
// CHECK:                  const uint32_t at_1[1] = {static_cast<uint32_t>([[E]])};
// CHECK-NEXT:             htp_schedule.guard(arg3, 1, at_1, PredicateOp::NE, static_cast<int64_t>(0));
// CHECK:                  htp_orchestration_k(htp_schedule, view_2, view_2, 2.0f);
// CHECK-NEXT:             htp_schedule.unguard();
// CHECK-NEXT:         }
// CHECK-NEXT:     }
// The order barrier is in the iteration's scope (outside it, barriers would fill the task window).
// CHECK-NEXT:     htp_schedule.next_iteration();
// CHECK-NEXT:     htp_schedule.close_scope();
// CHECK-NEXT: }
// CHECK-NEXT: htp_schedule.end_order();
// CHECK-LABEL: // ----- manifest.json
// CHECK:        {"name": "arg1", "kind": "tensor", "dtype": "float32", "shape": ["?", 64], "direction": "inout"},
// CHECK:        "runtime_env": {"ring_task_window": 64},
