// An orchestration that calls another orchestration function and a scalar
// helper (htp-backend-pto, emit/orchestration.rs; D46): each callee becomes a
// static C++ function before the entry, the orchestration callee submitting
// through the HtpSubmitter its caller passes (here the direct one); the
// entry's pto.direction and pto.runtime_env reach the manifest; memref.load
// and memref.expand_shape read and reshape tensors.
// RUN: htp-translate --pto-to-cpp %s | FileCheck %s

func.func @k_aiv(%x: memref<?x64xf32>, %n: index) attributes {pto.core = "aiv"} {
  return
}
func.func @k(%x: memref<?x64xf32>, %n: index) attributes {pto.orchestration} {
  pto.submit @k_aiv ins() outs() inouts(%x : memref<?x64xf32>) scalars(%n : index)
  return
}
func.func @twice(%n: index) -> index {
  %c2 = arith.constant 2 : index
  %m = arith.muli %n, %c2 : index
  return %m : index
}
func.func @entry(%x: memref<?x64xf32> {pto.direction = "inout"}, %lens: memref<?xi32> {pto.direction = "in"}) attributes {pto.orchestration, pto.runtime_env = {ring_task_window = 128 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dim = memref.dim %lens, %c0 : memref<?xi32>
  %lens2 = memref.expand_shape %lens [[0, 1]] output_shape [1, %dim] : memref<?xi32> into memref<1x?xi32>
  %len = memref.load %lens2[%c0, %c1] : memref<1x?xi32>
  %n = arith.index_cast %len : i32 to index
  %m = func.call @twice(%n) : (index) -> index
  func.call @k(%x, %m) : (memref<?x64xf32>, index) -> ()
  return
}

// CHECK-LABEL: // ----- orchestration/entry.cpp
// CHECK:      struct HtpSubmitter {
// CHECK-NEXT:     virtual TaskOutputTensors submit(const MixedKernels &kernels, CoreTaskArgs &args) = 0;
// CHECK:      struct HtpDirectSubmitter final : HtpSubmitter {
// CHECK:      static int64_t htp_helper_twice(const int64_t arg0) {
// CHECK:          return v;
// CHECK:      static void htp_orchestration_k(HtpSubmitter &htp_submitter, const ChipTensor &arg0, const int64_t arg1) {
// CHECK:          task.add_inout(arg0);
// CHECK:          MixedKernels kernels;
// CHECK-NEXT:     kernels.aiv0_kernel_id = 0;  // k_aiv
// CHECK-NEXT:     htp_submitter.submit(kernels, task);
// CHECK:      void aicpu_orchestration_entry(const ChipTaskArgs &orch_args) {
// CHECK-NEXT:     const ChipTensor &arg0 = orch_args.tensor(0).ref();
// CHECK-NEXT:     const ChipTensor &arg1 = orch_args.tensor(1).ref();
// CHECK-NEXT:     HtpDirectSubmitter htp_direct;
// CHECK:          const ChipTensor reshaped = arg1.reshape(reshaped_shape, 2);
// CHECK:          const int32_t element = get_tensor_data<int32_t>(reshaped, 2, at);
// CHECK:          const int64_t called = htp_helper_twice(
// CHECK-NEXT:     htp_orchestration_k(htp_direct, arg0, called);
// CHECK-LABEL: // ----- manifest.json
// CHECK:        {"name": "arg0", "kind": "tensor", "dtype": "float32", "shape": ["?", 64], "direction": "inout"},
// CHECK-NEXT:   {"name": "arg1", "kind": "tensor", "dtype": "int32", "shape": ["?"], "direction": "in"}
// CHECK:        "runtime_env": {"ring_task_window": 128},
