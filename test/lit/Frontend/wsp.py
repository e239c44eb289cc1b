# A WSP workload as the front end lowers it (lib/htp-model-wsp/src/model.rs):
# axes, loop constructors binding their indices, views of tensors as task
# arguments (converted and checked against the kernel's signature at the
# call), scalars converted to the kernel's types, wsp.when from a
# comparison, wsp.cores and wsp.read.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp
import wsp


@htp.kernel
def block(x: htp.Tensor[htp.f32, 16, 64], y: htp.Out[htp.f32, 16, 64], n: htp.i32, s: htp.f32):
    y[:, :] = x[:, :] * s


@wsp.workload
def work(x: htp.Tensor[htp.f32, "N", 64], lens: htp.Tensor[htp.i32, "B"], counts: htp.Tensor[htp.i32, "B", 1],
         y: htp.Out[htp.f32, "N", 64]):
    for b, p, c in wsp.parallel(wsp.ragged(lens.shape[0], lens), wsp.cores()):
        wsp.task(block, x[b * 16:b * 16 + 16, :], y[b * 16:b * 16 + 16, :], c, 2)
    for i in wsp.seq(wsp.read(lens, 0)):
        with wsp.when(wsp.element(counts, i, 0) >= 3):
            wsp.task(block, x[0:16, :], y[0:16, :], i, 1.5, keys=(i,))

# CHECK-LABEL: func.func @work
# CHECK-SAME: htp.model = "wsp"
# CHECK: %[[LENS:.+]] = memref.expand_shape %arg1
# CHECK: %[[R:.+]] = wsp.ragged %{{.+}}, %[[LENS]] : memref<1x?xi32>
# CHECK: %[[CORES:.+]] = wsp.cores
# CHECK: %[[D:.+]] = wsp.dense %[[CORES]]
# CHECK: wsp.parallel(%[[R]], %[[D]]) : !wsp.ragged_axis, !wsp.dense_axis {
# CHECK-NEXT: ^bb0(%[[B:.+]]: index, %[[P:.+]]: index, %[[C:.+]]: index):
# A block of a symbolic dimension may be ragged: checked when the task runs.
# CHECK: %[[VX:.+]] = wsp.view %arg0[%{{.+}}, %{{.+}}] sizes[%{{.+}}, %{{.+}}] : memref<?x64xf32> -> memref<?x64xf32>
# CHECK: %[[N:.+]] = arith.index_cast %[[C]] : index to i32
# CHECK: %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
# CHECK: wsp.task @block[] (%[[VX]], %{{.+}}, %[[N]], %[[TWO]]) : (memref<?x64xf32>, memref<?x64xf32>, i32, f32) -> ()
# CHECK: memref.load %[[LENS]][%{{.+}}, %{{.+}}] : memref<1x?xi32>
# CHECK: wsp.sequential(%{{.+}}) : !wsp.dense_axis {
# CHECK: %[[E:.+]] = wsp.element %arg2[%{{.+}}, %{{.+}}] : memref<?x1xi32> -> i32
# CHECK: wsp.when %[[E]] "ge" %{{.+}} : i32, i32 {
# CHECK: wsp.task @block[%{{.+}}] ({{.+}}) : (memref<?x64xf32>, memref<?x64xf32>, i32, f32) -> ()
