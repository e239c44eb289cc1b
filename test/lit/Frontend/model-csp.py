# CSP programs as the front end lowers them (lib/htp-model-csp/src/model.rs):
# channels (with depth, count and pad), a process, replicated processes
# binding their index, send (of a view, loaded, and padded where the
# tensor's edge may cut it), recv, and consume binding its element and
# carrying a variable through.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp
import csp


# CHECK-LABEL: func.func @pipeline
# CHECK-SAME: htp.model = "csp"
@csp.program
def pipeline(x: htp.Tensor[htp.f32, "N", 64], y: htp.Out[htp.f32, 16, 64]):
    # CHECK: csp.channel "a" depth 2 {pad = 0.000000e+00 : f32} : !csp.channel<!tile.tile<16x64xf32>>
    a = csp.channel(htp.f32, (16, 64), depth=2, name="a", pad=0.0)
    # CHECK: csp.channel "w" depth 1 : !csp.channel<!tile.tile<16x64xf32>, 2>
    w = csp.channel(htp.f32, (16, 64), depth=1, count=2, name="w")
    # CHECK: csp.process "load" {
    with csp.process(name="load"):
        for i in range(0, x.shape[0], 16):
            # CHECK: tile.load %{{.*}} valid [%{{.*}}] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
            # CHECK: tile.pad
            # CHECK: csp.send %{{.*}}, %{{.*}} : !csp.channel<!tile.tile<16x64xf32>>, !tile.tile<16x64xf32>
            csp.send(a, x[i:i + 16, :])
    # CHECK: csp.process "deal" {
    with csp.process(name="deal"):
        for i in range(0, x.shape[0], 16):
            # CHECK: csp.recv %{{.*}} : !csp.channel<!tile.tile<16x64xf32>> -> !tile.tile<16x64xf32>
            t = csp.recv(a)
            # CHECK: csp.send %{{.*}}[%{{.*}}], %{{.*}} : !csp.channel<!tile.tile<16x64xf32>, 2>
            csp.send(w, t, at=(i // 16) % 2)
    # CHECK: csp.process "sum" replicas 2 {
    # CHECK-NEXT: ^bb0(%[[R:.*]]: index):
    for r in csp.processes(2, name="sum"):
        acc = htp.zeros((16, 64), htp.f32)
        for i in range(r * 16, x.shape[0], 32):
            # CHECK: csp.consume %{{.*}}[%[[R]]] (%{{.*}}) : !csp.channel<!tile.tile<16x64xf32>, 2>, !tile.tile<16x64xf32> -> !tile.tile<16x64xf32> {
            # CHECK: csp.yield %{{.*}} : !tile.tile<16x64xf32>
            with csp.consume(w, at=r) as t:
                acc = acc + t
        if r == 0:
            y[0:16, :] = acc
