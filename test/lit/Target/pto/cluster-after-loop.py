# An accumulator carried by a K loop on the cube and used by vector work after
# the loop (a GEMM with a bias + ReLU epilogue): the cube pushes the loop's
# result once, after the loop; the vector core pops it at the same point of
# its copy of the program.
# RUN: htp-translate --import-python %s | htp-opt --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s
import htp
from htp import f16, f32


@htp.kernel
def gemm_bias_relu(x: htp.Tensor[f16, "M", "K"], w: htp.Tensor[f16, "K", 64], b: htp.Tensor[f32, 1, 64],
                   y: htp.Out[f32, "M", 64]):
    for i in range(0, x.shape[0], 16):
        acc = htp.zeros((16, 64), f32)
        for k in range(0, x.shape[1], 32):
            acc += htp.pad(x[i:i + 16, k:k + 32], 0.0) @ htp.pad(w[k:k + 32, :], 0.0)
        y[i:i + 16, :] = htp.relu(acc + b[0:1, :])

# CHECK-LABEL: func.func @gemm_bias_relu_aic(
# CHECK:       %[[ACC:.*]] = pto.alloc_tile : !pto.tile<acc, 16x64xf32>
# CHECK:       scf.for
# CHECK:       pto.tmatmul_acc %[[ACC]]
# CHECK-NEXT:  }
# CHECK-NEXT:  }
# CHECK-NEXT:  pto.tpush c2v %[[ACC]] : !pto.tile<acc, 16x64xf32>
# CHECK-NOT:   pto.tstore
# CHECK-LABEL: func.func @gemm_bias_relu_aiv(
# CHECK:       scf.for
# CHECK:       scf.for
# CHECK-NOT:   pto.tpop
# CHECK:       }
# CHECK-NEXT:  %[[SLOT:.*]] = pto.tile_view
# CHECK-NEXT:  pto.tpop c2v %[[SLOT]] : !pto.tile<vec, 16x64xf32>
# CHECK:       pto.tcolexpand_op add
# CHECK:       pto.trelu
# CHECK:       pto.tstore
