// The emitted package of examples/python/vector_add.py: one AIV kernel whose
// loop runs over the task's [task_begin, task_end) rows, ragged last tile
// through a dynamic valid row count, and an orchestration that splits the
// rows into one task per available AIV core.
// RUN: htp-translate --import-python %repo/examples/python/vector_add.py --mlir-print-debuginfo \
// RUN:   | htp-opt --mlir-print-debuginfo %pto_pipeline \
// RUN:   | htp-translate --pto-to-cpp | FileCheck %s

// CHECK-LABEL: // ----- kernels/aiv/vector_add_aiv.cpp
// CHECK: extern "C" __aicore__ __attribute__((always_inline)) void kernel_entry(__gm__ int64_t *args) {
// CHECK-NEXT: __gm__ ChipTensor *a_desc = reinterpret_cast<__gm__ ChipTensor *>(args[0]);
// CHECK:      const int64_t task_begin = static_cast<int64_t>(args[3]);
// CHECK-NEXT: const int64_t task_end = static_cast<int64_t>(args[4]);
// CHECK:      // vector_add.py:16: for i in range(0, a.shape[0], 16):
// CHECK-NEXT: for (int64_t i = task_begin; i < task_end; i += 16) {
// CHECK:      // vector_add.py:17: c[i:i + 16, :] = a[i:i + 16, :] + b[i:i + 16, :]
// CHECK:      Tile<TileType::Vec, float, 16, 256, BLayout::RowMajor, -1, 256, SLayout::NoneBox, 512, PadValue::Null> load(static_cast<unsigned>([[ROWS:v_[0-9]+]]));
// CHECK-NEXT: TASSIGN<0x0>(load);
// CHECK-NEXT: wait_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
// CHECK-NEXT: TLOAD(load, gm);
// CHECK:      TASSIGN<0x4000>(load_1);
// CHECK-NEXT: TLOAD(load_1, gm_1);
// CHECK-NEXT: set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
// CHECK:      TASSIGN<0x8000>(add);
// CHECK-NEXT: wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
// CHECK-NEXT: wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
// CHECK-NEXT: TADD(add, load, load_1);
// CHECK:      wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
// CHECK-NEXT: TSTORE(gm_2, add);
// CHECK-NEXT: set_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
// CHECK-NEXT: }
// CHECK:      pipe_sync();
// CHECK-NEXT: }

// CHECK-LABEL: // ----- orchestration/vector_add.cpp
// CHECK: void aicpu_orchestration_entry(const ChipTaskArgs &orch_args) {
// CHECK:      const int64_t cores = std::max<int64_t>(1, static_cast<int64_t>(rt_available_aiv_count()));
// CHECK:      for (int64_t i = 0; i < extent; i += [[CHUNK:v_[0-9]+]]) {
// CHECK:      task.add_input(a);
// CHECK-NEXT: task.add_input(b);
// CHECK-NEXT: task.add_output(c);
// CHECK-NEXT: task.add_scalar(static_cast<int64_t>(i));
// CHECK-NEXT: task.add_scalar(static_cast<int64_t>(v_{{[0-9]+}}));
// CHECK-NEXT: rt_submit_aiv_task(0, task);  // vector_add_aiv

// CHECK-LABEL: // ----- manifest.json
// CHECK: "target": "pto-a2a3sim",
// CHECK: {"name": "a", "kind": "tensor", "dtype": "float32", "shape": ["?", 256], "direction": "in"},
// CHECK: {"name": "c", "kind": "tensor", "dtype": "float32", "shape": ["?", 256], "direction": "out"}
// CHECK: {"func_id": 0, "name": "vector_add_aiv", "source": "kernels/aiv/vector_add_aiv.cpp", "core_type": "aiv", "signature": ["in", "in", "out"]}
