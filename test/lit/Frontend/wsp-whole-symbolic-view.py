# A task's view may take a symbolic dimension whole (`cache[l, :, :]`, or the
# items left out): its size is the dimension at run time (`memref.dim`, less
# the start), where a tile load needs a static block (error-shape.py, CASE=4).
# RUN: htp-translate --import-python %s | FileCheck %s
import htp
import wsp


@htp.kernel
def rows(pages: htp.Tensor[htp.f32, "S", 16], out: htp.Out[htp.f32, 1, 16]):
    out[:, :] = pages[0:1, :]


@wsp.workload
def layers(cache: htp.Tensor[htp.f32, "L", "S", 16], out: htp.Out[htp.f32, "L", 16]):
    for l in wsp.parallel(cache.shape[0]):
        wsp.task(rows, cache[l, :, :], out[l:l + 1, :])
        wsp.task(rows, cache[l], out[l:l + 1, :])

# CHECK-LABEL: func.func @layers
# CHECK: %[[S:.+]] = memref.dim %arg0, %c1
# CHECK: %[[LEFT:.+]] = arith.subi %[[S]], %{{.+}} : index
# CHECK: %[[SIZE:.+]] = arith.minsi %[[LEFT]], %{{.+}} : index
# CHECK: wsp.view %arg0[%{{.+}}, %{{.+}}, %{{.+}}] sizes[%[[SIZE]], %{{.+}}] : memref<?x?x16xf32> -> memref<?x16xf32>
# CHECK: wsp.task @rows
# The item left out: the dimension itself.
# CHECK: wsp.view %arg0[%{{.+}}, %{{.+}}, %{{.+}}] sizes[%{{.+}}, %{{.+}}] : memref<?x?x16xf32> -> memref<?x16xf32>
# CHECK: wsp.task @rows

