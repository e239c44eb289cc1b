# A CSP program on PTO (htp-conversion-csp-to-pto, then the PTO lowering): the
# process that multiplies matrices becomes @p_aic, the other @p_aiv, one
# cluster task; the channels' depths add up per direction into the pipes'
# slots (products 3 + finals 3 = 6 cube-to-vector slots, scaled 2 back), the
# ring holds them all (6 x 2048 + 2 x 2048 bytes), sends are TPUSH, receives
# TPOP + move + TFREE (a consume too: its tile leaves the slot at once).
# RUN: htp-translate --import-python %s | htp-opt --pass-pipeline='builtin.module(csp-to-pto,convert-tile-to-pto)' | FileCheck %s --check-prefix=IR
# RUN: htp-translate --import-python %s --mlir-print-debuginfo | htp-opt --mlir-print-debuginfo --pass-pipeline='builtin.module(csp-to-pto,htp-pto-lowering)' \
# RUN:   | htp-translate --pto-to-cpp | FileCheck %s --check-prefix=CPP
import htp
from htp import f32

csp = htp.model("csp")


@csp.program
def p(a: htp.Tensor[f32, "N", 32], b: htp.Tensor[f32, 32, 32], y: htp.Out[f32, "N", 32]):
    products = csp.channel(f32, (16, 32), depth=3, name="products")
    scaled = csp.channel(f32, (16, 32), depth=2, name="scaled")
    finals = csp.channel(f32, (16, 32), depth=3, name="finals")
    n = a.shape[0]
    with csp.process(name="cube"):
        for i in range(0, n, 16):
            csp.send(products, htp.pad(a[i:i + 16, :], 0.0) @ b[:, :])
            t = csp.recv(scaled)
            csp.send(finals, t @ b[:, :])
    with csp.process(name="vector"):
        for i in range(0, n, 16):
            with csp.consume(products) as s:
                csp.send(scaled, s * 0.5)
            y[i:i + 16, :] = csp.recv(finals) + 1.0

# IR-LABEL: func.func @p_aic(
# IR-SAME:    %{{.*}}: memref<4096xf32>
# IR-SAME:    attributes {pto.core = "aic", pto.fifo = array<i64: 3, 2048, 2048, 6, 2>}
# IR:         pto.tpush c2v %{{.*}} : !pto.tile<acc, 16x32xf32>
# IR:         pto.tpop v2c %{{.*}} : !pto.tile<mat, 16x32xf32, blayout = col_major, slayout = row_major>
# IR:         pto.tfree v2c
# IR:         pto.tpush c2v %{{.*}} : !pto.tile<acc, 16x32xf32>
# IR-LABEL: func.func @p(
# IR-SAME:    attributes {pto.orchestration}
# IR:         pto.submit @p_aic ins(%{{.*}}, %{{.*}} : memref<?x32xf32>, memref<32x32xf32>) outs(%{{.*}}, %{{.*}} : memref<?x32xf32>, memref<4096xf32>) {aiv_callee = @p_aiv}
# IR-LABEL: func.func @p_aiv(
# IR-SAME:    attributes {pto.core = "aiv", pto.fifo = array<i64: 3, 2048, 2048, 6, 2>}
# IR:         pto.tpop c2v
# IR:         pto.tfree c2v
# IR:         pto.tpush v2c %{{.*}} : !pto.tile<vec, 16x32xf32>
# IR:         pto.tpop c2v
# IR:         pto.tfree c2v
# IR-NOT:     pto.cluster_

# CPP:        using PipeC2V = TPipe<0, Direction::DIR_C2V, 2048, 6, 1, true>;
# CPP:        using PipeV2C = TPipe<2, Direction::DIR_V2C, 2048, 2, 1, true>;
# CPP-NEXT:   PipeV2C v2c(fifo_ring + 12288,
# CPP:        TPUSH<PipeC2V, TileAcc<float, 16, 32, 16, 32>
# CPP:        TPOP<PipeV2C,
# CPP:        TFREE<PipeV2C,
# CPP:        MixedKernels cluster;
