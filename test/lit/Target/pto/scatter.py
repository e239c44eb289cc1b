# The C++ of htp.scatter on PTO (D76): elements into each row are one TSCATTER of the joined input
# and values (TCONCAT) by joined offsets; rows into a tensor are MSCATTER<Coalesce::Row> into a
# GlobalTensor of the tensor's column window whose row stride is the tensor's (128), with
# pto-insert-sync ordering it after the vector work that made its source (V -> MTE3).
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | htp-opt --mlir-print-debuginfo %pto_pipeline \
# RUN:   | htp-translate --pto-to-cpp | FileCheck %s
import htp

# CHECK-LABEL: // ----- kernels/aiv/scatter_aiv.cpp
# CHECK:      // scatter.py:{{[0-9]+}}: t = htp.scatter(x[i:i + 16, :], index[i:i + 16, :], src[i:i + 16, :], axis=1)
# CHECK:      TCONCAT(
# CHECK:      TCONCAT(
# CHECK:      TSCATTER([[DST:[a-z_0-9]+]], [[ALL:[a-z_0-9]+]], [[OFF:[a-z_0-9]+]]);
# CHECK-NEXT: set_flag(PIPE_V, PIPE_S, EVENT_ID{{[0-9]}});
# CHECK-NEXT: set_flag(PIPE_V, PIPE_MTE3, EVENT_ID{{[0-9]}});
# CHECK:      // scatter.py:{{[0-9]+}}: htp.scatter(y, rows[i:i + 16, :], 32, t)
# CHECK:      using [[GM:gm[_0-9]*]]_t = GlobalTensor<float, Shape<1, 1, 1, -1, 64>, Stride<1, 1, 1, 128, 1>>;
# CHECK:      wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID{{[0-9]}});
# CHECK-NEXT: MSCATTER<Coalesce::Row>([[GM]], [[DST]], {{[a-z_0-9]+}});
# CHECK-NEXT: set_flag(PIPE_MTE3, PIPE_V, EVENT_ID{{[0-9]}});
@htp.kernel
def scatter(x: htp.Tensor[htp.f32, "N", 64], index: htp.Tensor[htp.i32, "N", 8], src: htp.Tensor[htp.f32, "N", 8],
            rows: htp.Tensor[htp.i32, "N", 1], y: htp.InOut[htp.f32, "M", 128]):
    for i in range(0, x.shape[0], 16):
        t = htp.scatter(x[i:i + 16, :], index[i:i + 16, :], src[i:i + 16, :], axis=1)
        htp.scatter(y, rows[i:i + 16, :], 32, t)
