# The C++ of strided slices of tensors on PTO: every 2nd column is the window of 63 columns loaded
# (TLOAD) and TGATHER's mask pattern P0101 keeping the first of each pair; every 2nd row is the
# GlobalTensor's row stride (2 x 64 elements); a slice of a tile and a join are TEXTRACT and TCONCAT.
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | htp-opt --mlir-print-debuginfo %pto_pipeline \
# RUN:   | htp-translate --pto-to-cpp | FileCheck %s
import htp

# CHECK-LABEL: // ----- kernels/aiv/deinterleave_aiv.cpp
# CHECK:      // shapes.py:{{[0-9]+}}: e[i:i + 16, :] = x[i:i + 16, 0::2]
# CHECK:      Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, 63, SLayout::NoneBox, 512, PadValue::Null> [[WINDOW:load[_0-9]*]](
# CHECK:      using [[GM:gm[_0-9]*]]_t = GlobalTensor<float, Shape<1, 1, 1, -1, 63>, Stride<1, 1, 1, 64, 1>>;
# CHECK:      TLOAD([[WINDOW]], [[GM]]);
# CHECK:      TGATHER<Tile<TileType::Vec, float, 16, 32, BLayout::RowMajor, -1, 32, SLayout::NoneBox, 512, PadValue::Null>, Tile<TileType::Vec, float, 16, 64, BLayout::RowMajor, -1, 64, SLayout::NoneBox, 512, PadValue::Null>, MaskPattern::P0101>(
# CHECK:      // shapes.py:{{[0-9]+}}: r[i:i + 8, :] = x[i:i + 16:2, :]
# CHECK:      GlobalTensor<float, Shape<1, 1, 1, -1, 64>, Stride<1, 1, 1, 128, 1>>;
# CHECK:      // shapes.py:{{[0-9]+}}: h[i:i + 16, :] = htp.concat([t[:, 32:64], t[:, 0:32]], axis=1)
# CHECK:      TEXTRACT({{.*}}, 32);
# CHECK:      TCONCAT(
@htp.kernel
def deinterleave(x: htp.Tensor[htp.f32, "N", 64], e: htp.Out[htp.f32, "N", 32], r: htp.Out[htp.f32, "N", 64],
                 h: htp.Out[htp.f32, "N", 64]):
    for i in range(0, x.shape[0], 16):
        e[i:i + 16, :] = x[i:i + 16, 0::2]
        r[i:i + 8, :] = x[i:i + 16:2, :]
        t = x[i:i + 16, :]
        h[i:i + 16, :] = htp.concat([t[:, 32:64], t[:, 0:32]], axis=1)
