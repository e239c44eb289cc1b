"""Collectives written in HTP with the `comm` intrinsic set (docs/language.md,
"Communication between chips"): an allreduce (sum) and an all-to-all
(MoE dispatch -> expert -> combine), each an `@htp.kernel` made of
`@htp.func` helpers, run on a group of simulated chips by a group session
(`htp.pto.runtime.open_session(package, chips=n)`, docs/serving.md,
"Several chips").

    python collectives.py [--chips N] [--runs R]

Every chip runs the same kernel on its own arguments. A kernel's
communication windows (`comm.Window[...]` parameters) exist once per chip, in
the same place of each chip's window, so `boxes[me, i:i + 16, :]` on chip
`me` names the same block in every chip's copy: `comm.put(p, boxes[me, ...],
t)` writes chip `p`'s copy. Windows are fresh (zero) in every run, so a
signal counts the notifications of this run: the k-th exchange of a kernel
waits for `>= k`.
"""

import argparse
import os
import sys
import tempfile

import numpy as np

import htp
from htp import comm, f32, i32

#: The largest group the kernels' windows have room for (a block per chip;
#: the 8 in their annotations, which take literals and constant parameters).
MAX_CHIPS = 8


# ----------------------------------------------------------------------------
# Allreduce (sum)
# ----------------------------------------------------------------------------


@htp.func
def exchange(x, boxes, done, epoch):
    """Every chip's `x` into `boxes[its rank]` of every chip (itself too), then
    wait until every chip's has arrived: its `epoch`-th signal. `boxes` holds
    a block of x's shape per chip; `done` a signal per chip."""
    me = comm.rank()
    n = comm.size()
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        for p in range(n):
            comm.put(p, boxes[me, i:i + 16, :], t)
    # A notify goes out once every put before it has landed (a full barrier).
    for p in range(n):
        comm.notify(p, done[me], 1)
    for p in range(n):
        comm.wait(done[p], epoch)


@htp.func
def reduced(boxes, i):
    """The sum of rows `i:i + 16` over the chips' blocks, in rank order (so
    every chip computes the same floats)."""
    acc = boxes[0, i:i + 16, :]
    for p in range(1, comm.size()):
        acc = acc + boxes[p, i:i + 16, :]
    return acc


@htp.kernel
def allreduce(x: htp.Tensor[f32, "R", "C"], y: htp.Out[f32, "R", "C"],
              boxes: comm.Window[f32, 8, "R", "C"], done: comm.Window[i32, 8],
              C: htp.Const[int] = 64):
    """y = the sum of every chip's x (the same on every chip)."""
    exchange(x, boxes, done, 1)
    for i in range(0, x.shape[0], 16):
        y[i:i + 16, :] = reduced(boxes, i)


@htp.kernel
def allreduce_accumulate(x: htp.Tensor[f32, "R", "C"], acc: htp.InOut[f32, "R", "C"],
                         boxes: comm.Window[f32, 8, "R", "C"], done: comm.Window[i32, 8],
                         C: htp.Const[int] = 64):
    """acc += the sum of every chip's x: a step whose state `acc` a group
    session keeps on each chip between runs (a data-parallel gradient sum)."""
    exchange(x, boxes, done, 1)
    for i in range(0, x.shape[0], 16):
        acc[i:i + 16, :] = acc[i:i + 16, :] + reduced(boxes, i)


@htp.func
def exchange_at(x, boxes, done, i, j):
    """`exchange`'s protocol in mailbox `(i, j)` of a window holding one per
    exchange of a run (`boxes[i, j]`: a block of x's shape per chip;
    `done[i, j]`: a signal per chip). Each exchange of a run in a mailbox of
    its own: a chip that finished one exchange never writes into a block a
    slower chip has yet to read."""
    me = comm.rank()
    n = comm.size()
    for r in range(0, x.shape[0], 16):
        t = x[r:r + 16, :]
        for p in range(n):
            comm.put(p, boxes[i, j, me, r:r + 16, :], t)
    for p in range(n):
        comm.notify(p, done[i, j, me], 1)
    for p in range(n):
        comm.wait(done[i, j, p], 1)


@htp.kernel
def allreduce_add(x: htp.Tensor[f32, "R", "C"], acc: htp.InOut[f32, "R", "C"],
                  boxes: comm.Window[f32, "I", "J", 8, "R", "C"], done: comm.Window[i32, "I", "J", 8],
                  i: i32, j: i32, C: htp.Const[int] = 64):
    """acc += the sum of every chip's x (in rank order: every chip the same
    floats), exchanged in mailbox `(i, j)`: one of several allreduces of a
    run, as a task of a workload that hands it its windows (the tensor-parallel
    decode step of examples/python/serving/parallel.py: `(layer, 0)` after
    the attention, `(layer, 1)` after the FFN)."""
    exchange_at(x, boxes, done, i, j)
    for r in range(0, x.shape[0], 16):
        total = boxes[i, j, 0, r:r + 16, :]
        for p in range(1, comm.size()):
            total = total + boxes[i, j, p, r:r + 16, :]
        acc[r:r + 16, :] = acc[r:r + 16, :] + total


# ----------------------------------------------------------------------------
# All-to-all: MoE dispatch -> expert -> combine
# ----------------------------------------------------------------------------


@htp.func
def all_to_all(blocks, inbox, done, phase, B):
    """Block `j` of `blocks` (rows `j*B .. j*B + B`) to `inbox[my rank]` of
    chip `j`, for every chip `j` of the group; then wait for every chip's
    block for me (signals `done[phase, *]`, one notification per chip)."""
    me = comm.rank()
    n = comm.size()
    for j in range(n):
        comm.put(j, inbox[me, :, :], blocks[j * B:j * B + B, :])
    for j in range(n):
        comm.notify(j, done[phase, me], 1)
    for j in range(n):
        comm.wait(done[phase, j], 1)


@htp.kernel
def moe_dispatch_combine(x: htp.Tensor[f32, "N", "C"], counts: htp.Tensor[i32, 8],
                         y: htp.Out[f32, "N", "C"], received: htp.Out[i32, 8],
                         inbox: comm.Window[f32, 8, "B", "C"], inbox_counts: comm.Window[i32, 8],
                         outbox: comm.Window[f32, 8, "B", "C"], done: comm.Window[i32, 2, 8],
                         B: htp.Const[int] = 8, C: htp.Const[int] = 64):
    """Expert parallelism with one expert per chip. Block `j` of `x` (rows
    `j*B .. j*B + B`, of which the first `counts[j]` are tokens routed to
    expert `j`) goes to chip `j` (dispatch, with its count); each chip
    applies its expert to every block it received (`2 * t + 1`); the results
    go back to the chips they came from (combine), into block `j` of `y`.
    `received[j]` is how many tokens chip `j` sent this chip."""
    me = comm.rank()
    n = comm.size()
    # Dispatch: the counts first (set, not added), then the blocks.
    for j in range(n):
        comm.notify(j, inbox_counts[me], counts[j], op="set")
    all_to_all(x, inbox, done, 0, B)
    received[:] = inbox_counts[:]
    # The expert, on every block received; combine: each block back to its sender.
    for j in range(n):
        z = inbox[j, :, :] * 2.0 + 1.0
        comm.put(j, outbox[me, :, :], z)
    for j in range(n):
        comm.notify(j, done[1, me], 1)
    for j in range(n):
        comm.wait(done[1, j], 1)
    for j in range(n):
        y[j * B:j * B + B, :] = outbox[j, :, :]


# ----------------------------------------------------------------------------
# Running them on a group of simulated chips
# ----------------------------------------------------------------------------


def group(kernel, chips, directory=None, **constants):
    """A group session of `kernel` (compiled for pto-a2a3sim with
    `constants`) on `chips` simulated chips (close it, or use `with`)."""
    from htp.pto import runtime

    compiled = kernel.compile(target="pto-a2a3sim", **constants)
    package = compiled.write_package(directory or tempfile.mkdtemp(prefix=f"htp-{kernel.name}-"))
    return runtime.open_session(package, chips=chips)


def moe_inputs(rng, chips, B=8, C=64):
    """Each chip's tokens (one block of B rows per expert chip) and how many
    of each block are real (0..B)."""
    xs = [rng.standard_normal((MAX_CHIPS * B, C)).astype(np.float32) for _ in range(chips)]
    counts = []
    for _ in range(chips):
        c = np.zeros(MAX_CHIPS, np.int32)
        c[:chips] = rng.integers(0, B + 1, chips)
        counts.append(c)
    return xs, counts


def moe_reference(xs, counts, B=8):
    """What each chip's y holds in its real rows, and its `received`."""
    chips = len(xs)
    ys, received = [], []
    for me in range(chips):
        y = {}
        for j in range(chips):
            rows = slice(j * B, j * B + counts[me][j])
            y[j] = xs[me][rows] * np.float32(2.0) + np.float32(1.0)
        ys.append(y)
        r = np.zeros(MAX_CHIPS, np.int32)
        r[:chips] = [counts[j][me] for j in range(chips)]
        received.append(r)
    return ys, received


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chips", type=int, default=2)
    parser.add_argument("--runs", type=int, default=2)
    arguments = parser.parse_args()
    n = arguments.chips
    from htp.pto import runtime

    missing = runtime.find_runtime() if os.environ.get("HTP_PTO_ISA_ROOT") else "HTP_PTO_ISA_ROOT is not set"
    if missing is not None:
        for kernel in (allreduce, allreduce_accumulate, moe_dispatch_combine):
            kernel.compile(target="pto-a2a3sim")
        print(f"collectives: compiled for pto-a2a3sim; running them and comparing to numpy needs pto-runtime's "
              f"a2a3sim ({missing})")
        return
    rng = np.random.default_rng(0)
    with group(allreduce, n) as session:
        for run in range(arguments.runs):
            xs = [rng.standard_normal((40, 64)).astype(np.float32) for _ in range(n)]
            ys = [np.zeros_like(x) for x in xs]
            session.run([[x, y] for x, y in zip(xs, ys)])
            error = max(float(np.abs(y - sum(xs)).max()) for y in ys)
            if error != 0.0:
                sys.exit(f"allreduce on {n} chips: max error vs numpy {error}")
            print(f"allreduce on {n} chips, run {run}: max error vs numpy {error}")
    with group(moe_dispatch_combine, n) as session:
        for run in range(arguments.runs):
            xs, counts = moe_inputs(rng, n)
            ys = [np.zeros_like(x) for x in xs]
            got = [np.zeros(MAX_CHIPS, np.int32) for _ in range(n)]
            session.run([[x, c, y, r] for x, c, y, r in zip(xs, counts, ys, got)])
            want, received = moe_reference(xs, counts)
            error = max(float(np.abs(ys[me][j * 8:j * 8 + len(w)] - w).max(initial=0.0))
                        for me in range(n) for j, w in want[me].items())
            same = all(np.array_equal(g, r) for g, r in zip(got, received))
            print(f"dispatch/combine on {n} chips, run {run}: max error vs numpy {error}, "
                  f"counts {'match' if same else 'DIFFER'}")
            if error != 0.0 or not same:
                sys.exit(1)


if __name__ == "__main__":
    main()
