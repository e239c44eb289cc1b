// The emitted package of examples/python/rmsnorm.py: a scalar parameter
// (eps) travels from the orchestration's scalar arguments to the kernel's,
// a ragged row block is zero-padded in UB (TFILLPAD), the loop-carried
// per-row sum is updated in place, and `x * rstd * w` fuses into a
// row-broadcast then a column-broadcast multiply. tile-reuse-loads unrolls
// the two passes over H: x's row block is loaded once (4 TLOADs of x in the
// row loop), the scaling pass re-pads the tiles already in UB; w's 4 tiles are
// loaded once per task, before the row loop.
// RUN: htp-translate --import-python %repo/examples/python/rmsnorm.py --mlir-print-debuginfo \
// RUN:   | htp-opt --mlir-print-debuginfo %pto_pipeline \
// RUN:   | htp-translate --pto-to-cpp | FileCheck %s

// CHECK-LABEL: // ----- kernels/aiv/rmsnorm_aiv.cpp
// CHECK:      const float eps = from_u64<float>(static_cast<uint64_t>(args[{{[0-9]+}}]));
// CHECK:      // rmsnorm.py:28: y[i:i + 8, j:j + 256] = htp.pad(x[i:i + 8, j:j + 256], 0.0) * scale * w[0:1, j:j + 256]
// CHECK:      TLOAD(load, gm);
// CHECK:      TLOAD(load_1, gm_1);
// CHECK:      TLOAD(load_2, gm_2);
// CHECK:      TLOAD(load_3, gm_3);
// CHECK:      for (int64_t i = task_begin; i < task_end; i += 8) {
// CHECK:      TEXPANDS(view, 0.0f);
// CHECK:      // rmsnorm.py:24: t = htp.pad(x[i:i + 8, j:j + 256], 0.0)
// CHECK:      TLOAD(load_4, gm_4);
// CHECK:      Tile<TileType::Vec, float, 8, 256, BLayout::RowMajor, 8, 256, SLayout::NoneBox, 512, PadValue::Zero> fillpad;
// CHECK:      TFILLPAD(fillpad, load_4);
// CHECK:      TROWSUM(rowsum, mul, scratch);
// CHECK:      TADDS({{.*}}, eps);
// CHECK:      TRSQRT(
// CHECK-NOT:  TLOAD(
// CHECK:      TFILLPAD(fillpad_4, load_4);
// CHECK:      TROWEXPANDMUL(rowbcast, fillpad_4, scratch_4);
// CHECK:      TCOLEXPANDMUL(colbcast, rowbcast, load);
// CHECK-NOT:  TLOAD(
// CHECK-LABEL: // ----- orchestration/rmsnorm.cpp
// CHECK:      const float eps = from_u64<float>(orch_args.scalar(0));
// CHECK:      task.add_scalar(static_cast<float>(eps));
// CHECK-NEXT: task.add_scalar(static_cast<int64_t>(i));

// CHECK-LABEL: // ----- manifest.json
// CHECK: {"name": "eps", "kind": "scalar", "dtype": "float32"}
