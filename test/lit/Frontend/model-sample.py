# A programming model from its own crate (lib/htp-model-sample, registered
# by htp-all only): a construct returning a value of the model's type, that
# value passed to a helper annotated with the model's type, a two-index loop
# carrying a variable out, and a block construct carrying one through.
# RUN: htp-translate --import-python %s | FileCheck %s
import htp
import sample


@htp.func
def accumulate(total: sample.Cell, x: htp.f32):
    sample.put(total, sample.get(total) + x)


@sample.program
def grid_sum(x: htp.Tensor[htp.f32, 16, 64], y: htp.Out[htp.f32, 16, 64], s: htp.f32):
    total = sample.cell(0.0)
    acc = 0.0
    for i, j in sample.grid(2, 3):
        acc = acc + s
    accumulate(total, acc)
    with sample.scope():
        acc = acc * 2.0
    y[:, :] = x[:, :] * sample.get(total) + acc

# CHECK-LABEL: func.func @grid_sum
# CHECK-SAME: htp.model = "sample"
# CHECK: %[[CELL:.+]] = cells.new %{{.+}} : f32
# CHECK: %[[INIT:.+]] = arith.constant 0.000000e+00 : f32
# CHECK: %[[OUTER:.+]] = scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[A:.+]] = %[[INIT]]) -> (f32)
# CHECK: %[[INNER:.+]] = scf.for %[[J:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[B:.+]] = %[[A]]) -> (f32)
# CHECK-NEXT: %[[SUM:.+]] = arith.addf %[[B]], %arg2 : f32
# CHECK-NEXT: scf.yield %[[SUM]] : f32
# CHECK: scf.yield %[[INNER]] : f32
# CHECK: %[[GOT:.+]] = cells.get %[[CELL]]
# CHECK: %[[NEW:.+]] = arith.addf %[[GOT]], %[[OUTER]] : f32
# CHECK: cells.put %[[CELL]], %[[NEW]]
# CHECK: %[[SCOPED:.+]] = scf.execute_region -> f32
# CHECK: arith.mulf %[[OUTER]]
# CHECK: tile.add %{{.+}}, %[[SCOPED]]


@sample.program
def views(x: htp.Tensor[htp.f32, "N", 64], y: htp.Out[htp.f32, "N", 64]):
    for r in range(0, x.shape[0], 16):
        y[r:r + 16, :] = x[r:r + 16, :] + sample.rows(x[r:r + 16, :])

# A tensor's block reaches the construct as a view (no tile.load for it):
# its valid rows (run-time, at the ragged edge) become the f32 it returns.
# CHECK-LABEL: func.func @views
# CHECK: scf.for
# CHECK: tile.load
# CHECK: %[[VALID:.+]] = arith.minsi
# CHECK-NOT: tile.load
# CHECK: arith.index_cast %[[VALID]] : index to i64
# CHECK: arith.sitofp


@sample.program
def loop_in_a_branch(x: htp.Tensor[htp.f32, 16, 64], y: htp.Out[htp.f32, 16, 64], s: htp.f32):
    acc = 0.0
    for i in range(0, 16, 16):
        if s > 0.0:
            for j, k in sample.grid(2, 2):
                acc = acc + s
    y[:, :] = x[:, :] + acc

# A model's loop inside an `if` branch (built before the scf.if that holds
# it) is verified once the function is whole, not while the branch is
# detached (MLIR's verifier cannot walk a detached region).
# CHECK-LABEL: func.func @loop_in_a_branch
# CHECK: scf.if
# CHECK: scf.for
# CHECK: scf.for
