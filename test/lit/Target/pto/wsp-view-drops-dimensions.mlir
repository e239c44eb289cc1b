// A task's view that drops leading dimensions (k[b, h, i:i + 64, :]) on PTO
// (htp-conversion-wsp-to-pto, src/emit.rs): the tensor is reshaped so that those and
// the next dimension are one, then viewed at the row they select.
// RUN: htp-opt %s --pass-pipeline='builtin.module(wsp-to-pto)' | htp-translate --pto-to-cpp | FileCheck %s

func.func @k_aiv(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {pto.core = "aiv"} {
  return
}
func.func @k(%x: memref<?x64xf32>, %y: memref<?x64xf32>) attributes {pto.orchestration} {
  pto.submit @k_aiv ins(%x : memref<?x64xf32>) outs(%y : memref<?x64xf32>)
  return
}

// CHECK-LABEL: aicpu_orchestration_entry
// CHECK: const uint32_t [[V:view[_0-9]*]]_shape[2] = {
// CHECK: const uint32_t [[V]]_flat[2] = {[[T:[a-z_0-9]+]].shapes[0] * [[T]].shapes[1] * [[T]].shapes[2], [[T]].shapes[3]};
// CHECK: const uint32_t [[V]]_offset[2] = {((static_cast<uint32_t>({{.+}}) * [[T]].shapes[1] + static_cast<uint32_t>({{.+}})) * [[T]].shapes[2] + static_cast<uint32_t>({{.+}})), static_cast<uint32_t>({{.+}})};
// CHECK: const ChipTensor [[V]] = [[T]].reshape([[V]]_flat, 2).view([[V]]_shape, [[V]]_offset);
func.func @workload(%k: memref<?x?x?x64xf32>, %o: memref<?x64xf32>) attributes {htp.model = "wsp"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %d = wsp.dense %c2
  wsp.parallel (%d, %d) : !wsp.dense_axis, !wsp.dense_axis {
  ^bb0(%b: index, %h: index):
    %v = wsp.view %k[%b, %h, %c0, %c0] sizes [%c64, %c64] : memref<?x?x?x64xf32> -> memref<?x64xf32>
    %w = wsp.view %o[%b, %c0] sizes [%c1, %c64] : memref<?x64xf32> -> memref<?x64xf32>
    wsp.task @k[%b, %h](%v, %w) {access = ["in", "out"]} : (memref<?x64xf32>, memref<?x64xf32>) -> ()
    wsp.yield
  }
  return
}
