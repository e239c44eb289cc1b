// The emitted kernel of examples/python/softmax.py: per-row vectors (16x1)
// live col-major (DN) in UB, the broadcasts of `t - row_max(t)` and
// `e / row_sum(e)` fuse into TROWEXPANDSUB/TROWEXPANDDIV, reductions get a
// scratch tile (which TROWMAX writes: it waits for the previous iteration's
// TSTORE of those bytes), dead tiles' bytes are reused, and every V->V
// dependence within an iteration is ordered by a barrier (the previous
// iteration's TROWEXPANDDIV needs none before TROWMAX: the MTE3 -> V wait
// for the TSTORE that read its result covers it).
// RUN: htp-translate --import-python %repo/examples/python/softmax.py --mlir-print-debuginfo \
// RUN:   | htp-opt --mlir-print-debuginfo %pto_pipeline \
// RUN:   | htp-translate --pto-to-cpp | FileCheck %s

// CHECK-LABEL: // ----- kernels/aiv/softmax_aiv.cpp
// CHECK:      // softmax.py:19: e = htp.exp(t - htp.row_max(t))
// CHECK-NEXT: Tile<TileType::Vec, float, 16, 1, BLayout::ColMajor, -1, 1, SLayout::NoneBox, 512, PadValue::Null> rowmax(static_cast<unsigned>([[ROWS:v_[0-9]+]]));
// CHECK-NEXT: TASSIGN<0x4000>(rowmax);
// CHECK-NEXT: Tile<TileType::Vec, float, 16, 256, BLayout::RowMajor, -1, 256, SLayout::NoneBox, 512, PadValue::Null> scratch(static_cast<unsigned>([[ROWS]]));
// CHECK-NEXT: TASSIGN<0x4040>(scratch);
// CHECK-NEXT: wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
// CHECK-NEXT: wait_flag(PIPE_MTE3, PIPE_V, EVENT_ID0);
// CHECK-NEXT: TROWMAX(rowmax, load, scratch);
// CHECK:      TASSIGN<0x4040>(rowbcast);
// CHECK:      TROWEXPANDSUB(rowbcast, load, rowmax);
// CHECK:      TASSIGN<0x0>(exp);
// CHECK-NEXT: pipe_barrier(PIPE_V);
// CHECK-NEXT: TEXP(exp, rowbcast);
// CHECK-NEXT: // softmax.py:20: y[i:i + 16, :] = e / htp.row_sum(e)
// CHECK:      TROWSUM(rowsum, exp, scratch_1);
// CHECK:      TROWEXPANDDIV(rowbcast_1, exp, rowsum);
// CHECK-NEXT: set_flag(PIPE_V, PIPE_MTE2, EVENT_ID0);
// CHECK-NEXT: set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
// CHECK:      wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
// CHECK-NEXT: TSTORE(gm_1, rowbcast_1);
