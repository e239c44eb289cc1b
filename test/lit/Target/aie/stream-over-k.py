# A GEMM whose B (256 x 256 bf16, 128 KiB) a core cannot hold: B streams over the K loop through
# each column's memtile (@b, then @b_cores to the column's cores), a 32 x 64 window a trip, and
# the block function is inlined into each core so that B's acquire and release sit in the K loop
# (D87). The runtime sequence sends B once for each block of a core: [4 repeats (stride 0), 4
# column windows, 256 rows, 64 columns].
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | htp-translate --tile-to-aie --aie-device npu1_1col | FileCheck %s
import htp
from htp import bf16, f32


@htp.kernel
def gemm(a: htp.Tensor[bf16, 256, 256], b: htp.Tensor[bf16, 256, 256], c: htp.Out[f32, 256, 256]):
    for i in range(0, 256, 16):
        for j in range(0, 256, 64):
            acc = htp.zeros((16, 64), f32)
            for k in range(0, 256, 32):
                acc += a[i:i + 16, k:k + 32] @ b[k:k + 32, j:j + 64]
            c[i:i + 16, j:j + 64] = acc

# CHECK-LABEL: aie.device(npu1_1col) {
# CHECK: aie.objectfifo @b(%{{.*}}, {%{{.*}}}, 2 : i32) : !aie.objectfifo<memref<32x64xbf16>>
# CHECK: aie.objectfifo @b_cores(%{{.*}}, {%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}}, 2 : i32) : !aie.objectfifo<memref<32x64xbf16>>
# CHECK: aie.objectfifo.link [@b] -> [@b_cores]([] [])
# CHECK-NOT: func.func @gemm_block
# CHECK: aie.core(%tile_0_2)
# CHECK: memref.alloca() {{.*}} : memref<16x64xf32>
# CHECK: aie.objectfifo.acquire @a_0(Consume, 1)
# CHECK: scf.for
# CHECK: scf.for
# CHECK: aie.objectfifo.acquire @b_cores(Consume, 1) : !aie.objectfifosubview<memref<32x64xbf16>>
# CHECK: vector.contract
# CHECK: aie.objectfifo.release @b_cores(Consume, 1)
# CHECK: aiex.npu.dma_memcpy_nd(%{{.*}}[0, 0, 0, 0][4, 4, 256, 64][0, 64, 256, 1]) {id = {{.*}} : i64, metadata = @b}
