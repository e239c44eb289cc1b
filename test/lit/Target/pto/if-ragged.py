# An `if` whose tile result has a run-time valid size: the result's buffer is
# allocated whole; each branch copies its tile into a view of its own valid
# region and yields that region's run-time rows, which give the view the
# rest of the kernel (here the store) reads.
# RUN: htp-translate --import-python %s | htp-opt --pass-pipeline='builtin.module(convert-tile-to-pto)' | FileCheck %s
import htp
from htp import f32, i32


@htp.kernel
def runtime_if_ragged(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64], flag: i32):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        if flag > 0:
            u = t * 2.0
        else:
            u = t + 100.0
        y[i:i + 16, :] = u

# CHECK-LABEL: func.func @runtime_if_ragged_aiv(
# CHECK:       %[[U:.*]] = pto.alloc_tile : !pto.tile<vec, 16x64xf32>
# CHECK-NEXT:  %[[ROWS:.*]] = scf.if %{{.*}} -> (index) {
# CHECK:         pto.tmuls %[[A:[^,]*]],
# CHECK-NEXT:    %[[INTO:.*]] = pto.tile_view %[[U]] valid [%[[R1:.*]]] : !pto.tile<vec, 16x64xf32> -> !pto.tile<vec, 16x64xf32, valid = ?x64>
# CHECK-NEXT:    pto.tmov %[[INTO]], %[[A]]
# CHECK-NEXT:    scf.yield %[[R1]] : index
# CHECK-NEXT:  } else {
# CHECK:         pto.tadds
# CHECK:         pto.tmov
# CHECK-NEXT:    scf.yield %{{.*}} : index
# CHECK-NEXT:  }
# CHECK-NEXT:  %[[RESULT:.*]] = pto.tile_view %[[U]] valid [%[[ROWS]]] : !pto.tile<vec, 16x64xf32> -> !pto.tile<vec, 16x64xf32, valid = ?x64>
# CHECK:       pto.tstore %{{.*}}, %[[RESULT]]
