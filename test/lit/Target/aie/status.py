# A gather along each row at indices known only at run time (D96): the block function checks each
# index and, where the cpu would call htpRuntimeError(site), stores site + 1 into its status object
# (an extra 1x1 i32 argument before the row index) unless an earlier site is there; the core clears
# the object before each block and sends it out on the htp_status FIFO, joined in the memtile as
# the outputs are, into the runtime sequence's last buffer. No call of the cpu's runtime is left.
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | htp-translate --tile-to-aie --aie-device npu1_1col | FileCheck %s
import htp
from htp import f32, i32


@htp.kernel
def take(x: htp.Tensor[f32, "N", 64], j: htp.Tensor[i32, "N", 8], y: htp.Out[f32, "N", 8], N: htp.Const[int] = 64):
    for i in range(0, N, 16):
        y[i:i + 16, :] = htp.gather(x[i:i + 16, :], j[i:i + 16, :], axis=1)

# CHECK-LABEL: aie.device(npu1_1col) {
# CHECK-NOT: htpRuntimeError
# CHECK: aie.objectfifo @htp_status_0(%{{.*}}, {%{{.*}}}, 2 : i32) : !aie.objectfifo<memref<1x1xi32>>
# CHECK: aie.objectfifo @htp_status(%{{.*}}, {%{{.*}}}, 2 : i32) : !aie.objectfifo<memref<{{[0-9]+}}xi32>>
# CHECK: func.func @take_block(%{{.*}}: memref<16x64xf32>, %{{.*}}: memref<16x8xi32>, %{{.*}}: memref<16x8xf32>, %[[STATUS:.*]]: memref<1x1xi32>, %{{.*}}: index)
# CHECK: %[[SITE:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
# CHECK: %[[CODE:.*]] = arith.trunci %[[SITE]] : i64 to i32
# CHECK: %[[OLD:.*]] = memref.load %[[STATUS]][%{{.*}}, %{{.*}}] : memref<1x1xi32>
# CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[OLD]], %{{.*}} : i32
# CHECK: %[[KEPT:.*]] = arith.select %[[FIRST]], %[[CODE]], %[[OLD]] : i32
# CHECK: memref.store %[[KEPT]], %[[STATUS]][%{{.*}}, %{{.*}}] : memref<1x1xi32>
# CHECK: aie.core(%tile_0_2)
# CHECK: %[[S:.*]] = aie.objectfifo.subview.access %{{.*}}[0] : !aie.objectfifosubview<memref<1x1xi32>> -> memref<1x1xi32>
# CHECK: %[[CLEAR:.*]] = arith.constant 0 : i32
# CHECK: memref.store %[[CLEAR]], %[[S]][%{{.*}}, %{{.*}}] : memref<1x1xi32>
# CHECK: func.call @take_block(%{{.*}}, %{{.*}}, %{{.*}}, %[[S]], %{{.*}})
# CHECK: aie.runtime_sequence(%{{.*}}: memref<4096xf32>, %{{.*}}: memref<512xi32>, %{{.*}}: memref<512xf32>, %{{.*}}: memref<{{[0-9]+}}xi32>)
# CHECK: metadata = @htp_status
