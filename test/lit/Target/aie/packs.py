# Three streamed inputs, a broadcast and a scalar are more than a core's and a shim's 2 input DMA
# channels: the streamed blocks travel in one pack (@htp_in, a block of a, b and d at 64-byte
# aligned offsets: 8 x 32 x 4 = 1024 bytes each), the broadcast and the scalar in another
# (@htp_whole_in); each core views its parts in place, and the runtime sequence moves the packs.
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | htp-translate --tile-to-aie --aie-device npu1_1col | FileCheck %s
import htp
from htp import f32


@htp.kernel
def k(a: htp.Tensor[f32, 32, 32], b: htp.Tensor[f32, 32, 32], d: htp.Tensor[f32, 32, 32], w: htp.Tensor[f32, 1, 32], s: f32,
      c: htp.Out[f32, 32, 32]):
    for i in range(0, 32, 8):
        c[i:i + 8, :] = a[i:i + 8, :] + b[i:i + 8, :] * d[i:i + 8, :] + w[0:1, :] * s

# CHECK-LABEL: aie.device(npu1_1col) {
# CHECK: aie.objectfifo @htp_in(%{{.*}}, {%{{.*}}}, 2 : i32) : !aie.objectfifo<memref<12288xi8>>
# CHECK: aie.objectfifo @htp_in_0(%{{.*}}, {%{{.*}}}, 2 : i32) : !aie.objectfifo<memref<1x3072xi8>>
# CHECK: aie.objectfifo @htp_whole_in(%{{.*}}, {{.*}}, 1 : i32) : !aie.objectfifo<memref<1x192xi8>>
# CHECK-NOT: aie.objectfifo @a(
# CHECK: aie.core(%tile_0_2)
# CHECK: %[[WHOLE:.*]] = aie.objectfifo.acquire @htp_whole_in(Consume, 1)
# CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<1x192xi8> into memref<192xi8>
# CHECK: memref.view %{{.*}}[%{{.*}}][] : memref<192xi8> to memref<1x32xf32>
# CHECK: memref.view %{{.*}}[%{{.*}}][] : memref<192xi8> to memref<1x1xf32>
# CHECK: scf.for
# CHECK: aie.objectfifo.acquire @htp_in_0(Consume, 1)
# CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<1x3072xi8> into memref<3072xi8>
# CHECK-COUNT-3: memref.view %{{.*}}[%{{.*}}][] : memref<3072xi8> to memref<8x32xf32>
# CHECK: func.call @k_block(
# CHECK: aie.objectfifo.release @htp_in_0(Consume, 1)
# CHECK: aie.runtime_sequence(%{{.*}}: memref<1024xf32>, %{{.*}}: memref<12288xi8>, %{{.*}}: memref<192xi8>)
