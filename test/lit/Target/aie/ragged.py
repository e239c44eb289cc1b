# A row softmax over 37 rows in blocks of 8: 5 blocks, the last of 5 rows. On one column
# (npu1_1col) 2 blocks per core need only 3 cores: the host buffers hold 48 rows (the tensor,
# then zeros), the block past row 37 is moved but not computed (scf.if), and the block function masks
# the ragged block: its rows are min(37 - row, 8), its temporaries bounded buffers of 8 rows on
# the core's stack (aie-bound-ragged-buffers) viewed at that size.
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | htp-translate --tile-to-aie --aie-device npu1_1col | FileCheck %s
import htp
from htp import f32


@htp.kernel
def softmax(x: htp.Tensor[f32, "N", 32], y: htp.Out[f32, "N", 32], N: htp.Const[int] = 37):
    for i in range(0, N, 8):
        t = x[i:i + 8, :]
        e = htp.exp(t - htp.row_max(t))
        y[i:i + 8, :] = e / htp.row_sum(e)

# CHECK-LABEL: aie.device(npu1_1col) {
# CHECK: func.func @softmax_block(%[[X:.*]]: memref<8x32xf32>, %[[Y:.*]]: memref<8x32xf32>, %[[ROW:.*]]: index)
# CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
# CHECK-DAG: %[[C37:.*]] = arith.constant 37 : index
# CHECK: %[[LEFT:.*]] = arith.subi %[[C37]], %[[ROW]] : index
# CHECK: %[[ROWS:.*]] = arith.minsi %[[LEFT]], %[[C8]] : index
# CHECK: memref.subview %[[X]][0, 0] [%[[ROWS]], 32] [1, 1]
# CHECK: %[[E:.*]] = memref.alloca() {{.*}} : memref<256xf32>
# CHECK: memref.reinterpret_cast %[[E]] to offset: [0], sizes: [%[[ROWS]], 32], strides: [32, 1] : memref<256xf32> to memref<?x32xf32>
# CHECK-NOT: memref.alloc(
# CHECK: aie.core(%tile_0_2)
# CHECK: %[[TRIPS:.*]] = arith.constant 2 : index
# CHECK: scf.for
# CHECK: %[[END:.*]] = arith.constant 37 : index
# CHECK: %[[LIVE:.*]] = arith.cmpi slt, %{{.*}}, %[[END]] : index
# CHECK: scf.if %[[LIVE]] {
# CHECK-NEXT: func.call @softmax_block(
# CHECK-NOT: aie.core(%tile_0_5)
# CHECK: aie.runtime_sequence(%{{.*}}: memref<1536xf32>, %{{.*}}: memref<1536xf32>)
# CHECK: aiex.npu.dma_memcpy_nd(%{{.*}}[0, 0, 0, 0][1, 1, 2, 768][0, 1536, 768, 1])
