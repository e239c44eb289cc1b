# A column-major (Fortran-order) x and y over 37 rows in blocks of 16, f16 (D95): each block is a
# DMA window of every column's 16 rows, the host buffers hold each column at a pitch of 64 rows (2
# cores, 2 blocks each: the fourth is moved, not computed), and the core views its object (the block
# column after column) with strides [1, 16]; z, row-major, moves as before.
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | htp-translate --tile-to-aie --aie-device npu1_1col | FileCheck %s
import htp
from htp import f16


@htp.kernel
def k(x: htp.Tensor[f16, "N", 70, htp.layout("col_major")], z: htp.Tensor[f16, "N", 70],
      y: htp.Out[f16, "N", 70, htp.layout("col_major")], N: htp.Const[int] = 37):
    for i in range(0, N, 16):
        y[i:i + 16, :] = x[i:i + 16, :] * 2.0 + z[i:i + 16, :]

# CHECK-LABEL: aie.device(npu1_1col) {
# CHECK: aie.objectfifo @x(%{{.*}}, {%{{.*}}}, 2 : i32) : !aie.objectfifo<memref<2240xf16>>
# CHECK: aie.objectfifo @x_0(%{{.*}}, {%{{.*}}}, 2 : i32) : !aie.objectfifo<memref<16x70xf16>>
# CHECK: func.func @k_block(%{{.*}}: memref<16x70xf16, strided<[1, 16]>>, %{{.*}}: memref<16x70xf16>, %{{.*}}: memref<16x70xf16, strided<[1, 16]>>, %{{.*}}: index)
# CHECK: aie.core(%tile_0_2)
# CHECK: %[[X:.*]] = aie.objectfifo.subview.access %{{.*}}[0] : !aie.objectfifosubview<memref<16x70xf16>> -> memref<16x70xf16>
# CHECK: %[[XV:.*]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [16, 70], strides: [1, 16] : memref<16x70xf16> to memref<16x70xf16, strided<[1, 16]>>
# CHECK: func.call @k_block(%[[XV]], %{{.*}}, %{{.*}}, %{{.*}}) : (memref<16x70xf16, strided<[1, 16]>>, memref<16x70xf16>, memref<16x70xf16, strided<[1, 16]>>, index) -> ()
# CHECK: aie.runtime_sequence(%{{.*}}: memref<4480xf16>, %{{.*}}: memref<4480xf16>, %{{.*}}: memref<4480xf16>)
# CHECK: aiex.npu.dma_memcpy_nd(%{{.*}}[0, 0, 0, 0][1, 4, 70, 16][0, 16, 64, 1]) {id = 0 : i64, issue_token = true, metadata = @y}
# CHECK: aiex.npu.dma_memcpy_nd(%{{.*}}[0, 0, 0, 0][1, 4, 70, 16][0, 16, 64, 1]) {id = 1 : i64, metadata = @x}
