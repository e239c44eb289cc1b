# A row softmax on one column (npu1_1col) becomes this mlir-aie design: one streamed input and
# one output fit 4 compute tiles (the memtile's 6 DMA channels each way);
# the shim moves 4 blocks per object, the memtile splits them (joins the
# outputs), each core calls the block function on its blocks. The design
# verifies in HTP's aie dialect (and, in test_aie.py / tests/aie.rs, in
# mlir-aie's aie-opt).
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | htp-translate --tile-to-aie --aie-device npu1_1col | FileCheck %s
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | htp-translate --tile-to-aie | FileCheck %s --check-prefix=COLS
# RUN: htp-translate --import-python %s | htp-translate --tile-to-aie --aie-device npu2_1col | FileCheck %s --check-prefix=NPU2
import htp
from htp import f32


@htp.kernel
def softmax(x: htp.Tensor[f32, "N", 256], y: htp.Out[f32, "N", 256], N: htp.Const[int] = 64):
    for i in range(0, N, 4):
        t = x[i:i + 4, :]
        e = htp.exp(t - htp.row_max(t))
        y[i:i + 4, :] = e / htp.row_sum(e)

# CHECK-LABEL: aie.device(npu1_1col) {
# CHECK: %[[SHIM:shim_noc_tile_0_0]] = aie.tile(0, 0)
# CHECK: %[[MEM:mem_tile_0_1]] = aie.tile(0, 1)
# CHECK: %[[T2:tile_0_2]] = aie.tile(0, 2)
# CHECK: %[[T5:tile_0_5]] = aie.tile(0, 5)
# CHECK: aie.objectfifo @x(%[[SHIM]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<4096xf32>>
# CHECK: aie.objectfifo @x_0(%[[MEM]], {%[[T2]]}, 2 : i32) : !aie.objectfifo<memref<4x256xf32>>
# CHECK: aie.objectfifo.link [@x] -> [@x_0, @x_1, @x_2, @x_3]([] [0, 1024, 2048, 3072])
# CHECK: aie.objectfifo @y_3(%[[T5]], {%[[MEM]]}, 2 : i32) : !aie.objectfifo<memref<4x256xf32>>
# CHECK: aie.objectfifo.link [@y_0, @y_1, @y_2, @y_3] -> [@y]([0, 1024, 2048, 3072] [])
# CHECK: func.func @softmax_block(%{{.*}}: memref<4x256xf32>, %{{.*}}: memref<4x256xf32>, %{{.*}}: index) {
# CHECK: math.exp
# CHECK: return
# CHECK: aie.core(%[[T2]]) {
# CHECK: scf.for
# CHECK: aie.objectfifo.acquire @x_0(Consume, 1) : !aie.objectfifosubview<memref<4x256xf32>>
# CHECK: aie.objectfifo.acquire @y_0(Produce, 1) : !aie.objectfifosubview<memref<4x256xf32>>
# CHECK: func.call @softmax_block(
# CHECK: aie.objectfifo.release @x_0(Consume, 1)
# CHECK: aie.objectfifo.release @y_0(Produce, 1)
# CHECK: aie.end
# The stack: 1024 bytes, the exp tile (4x256 f32) and the two row results (4x1 f32).
# CHECK: } {stack_size = 5152 : i32}
# CHECK: aie.runtime_sequence(%[[X:arg0]]: memref<16384xf32>, %[[Y:arg1]]: memref<16384xf32>) {
# CHECK: aiex.npu.dma_memcpy_nd(%[[Y]][0, 0, 0, 0][1, 1, 32, 512][0, 16384, 512, 1]) {id = 0 : i64, issue_token = true, metadata = @y} : memref<16384xf32>
# CHECK: aiex.npu.dma_memcpy_nd(%[[X]][0, 0, 0, 0][1, 1, 32, 512][0, 16384, 512, 1]) {id = 1 : i64, metadata = @x} : memref<16384xf32>
# CHECK: aiex.npu.dma_wait {symbol = @y}

# NPU2: aie.device(npu2_1col)

# On the whole npu1 (D58): 16 blocks over 4 columns of 4 cores, each column's FIFOs suffixed
# `_c<col>`, each column's share of a tensor one strided transfer (blocks 4c..4c+3 of 16).
# COLS-LABEL: aie.device(npu1) {
# COLS: aie.objectfifo @x_c0(%shim_noc_tile_0_0, {%mem_tile_0_1}, 2 : i32) : !aie.objectfifo<memref<4096xf32>>
# COLS: aie.objectfifo.link [@x_c3] -> [@x_c3_0, @x_c3_1, @x_c3_2, @x_c3_3]([] [0, 1024, 2048, 3072])
# COLS: aie.core(%tile_3_5)
# COLS: aiex.npu.dma_memcpy_nd(%arg1[0, 0, 0, 12288][1, 1, 8, 512][0, 16384, 512, 1]) {id = 3 : i64, issue_token = true, metadata = @y_c3}
# COLS: aiex.npu.dma_memcpy_nd(%arg0[0, 0, 0, 12288][1, 1, 8, 512][0, 16384, 512, 1]) {id = 7 : i64, metadata = @x_c3}
# COLS: aiex.npu.dma_wait {symbol = @y_c3}
