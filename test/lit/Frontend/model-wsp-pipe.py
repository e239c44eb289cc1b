# WSP pipes as the front end lowers them (lib/htp-model-wsp/src/pipe/constructs.rs):
# wsp.channel (the ring: depth, then the slot's shape), wsp.pipe and its
# wsp.process blocks, wsp.send (a produce whose task takes the slot as the
# kernel's last tensor parameter, before its scalars), wsp.produce and
# wsp.consume binding the slot.
# RUN: htp-translate --import-python %s | FileCheck %s

import htp
from htp import f32

wsp = htp.model("wsp")


@htp.kernel
def scale(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64], s: f32):
    y[:, :] = x[:, :] * s


@htp.kernel
def bump(y: htp.InOut[f32, 16, 64]):
    y[:, :] = y[:, :] + 1.0


# CHECK-LABEL: func.func @piped
# CHECK: %[[RING:.*]] = wsp.channel "staged" : memref<3x16x64xf32>
# CHECK: wsp.pipe {
# CHECK: wsp.process "load" {
# CHECK: scf.for
# CHECK: wsp.produce %[[RING]] : memref<3x16x64xf32> {
# CHECK-NEXT: ^bb0(%[[SLOT:.*]]: memref<16x64xf32>
# CHECK: wsp.task @scale[] (%{{.*}}, %[[SLOT]], %{{.*}}) : (memref<?x64xf32>, memref<16x64xf32>, f32) -> ()
# CHECK: wsp.produce %[[RING]]
# CHECK-NEXT: ^bb0(%[[SLOT2:.*]]: memref<16x64xf32>
# CHECK: wsp.task @bump[] (%[[SLOT2]])
# CHECK: wsp.process "store" {
# CHECK: wsp.consume %[[RING]] : memref<3x16x64xf32> {
# CHECK-NEXT: ^bb0(%[[READ:.*]]: memref<16x64xf32>
# CHECK: wsp.task @scale[] (%[[READ]], %{{.*}}, %{{.*}})
@wsp.workload
def piped(x: htp.Tensor[f32, "N", 64], y: htp.Out[f32, "N", 64]):
    staged = wsp.channel(f32, (16, 64), depth=3, name="staged")
    with wsp.pipe():
        with wsp.process(name="load"):
            for i in range(0, x.shape[0], 32):
                wsp.send(staged, scale, x[i:i + 16, :], 2.0)
                with wsp.produce(staged) as slot:
                    wsp.task(bump, slot)
        with wsp.process(name="store"):
            for i in range(0, x.shape[0], 32):
                j = i + 16
                with wsp.consume(staged) as t:
                    wsp.task(scale, t, y[i:i + 16, :], 1.0)
                with wsp.consume(staged) as t:
                    wsp.task(scale, t, y[j:j + 16, :], 1.0)
