"""Fan-out / fan-in over replicated workers: a scatter process deals
16-row blocks of x round-robin to four replicas of a worker (one channel
each, an array of four), each worker applies GELU (tanh form) to its
blocks, and a gather process collects them in order into y.

Replicas are `for w in csp.processes(WORKERS)` (a compile-time count): one process per index, each with
its own channel of each array (`at=w`); the protocol check proves before
the call that every block dealt is collected, whatever N.

On PTO (`gelu_fan_out.compile(target="pto-a2a3sim", WORKERS=4)(x, y)`) the
scatter and the gather only move blocks, so they dissolve: each worker
finds its own blocks of x (and their places in y) and is one task.
"""

import numpy as np

import htp
from htp import f32

csp = htp.model("csp")

@csp.program
def gelu_fan_out(x: htp.Tensor[f32, "N", 128], y: htp.Out[f32, "N", 128], WORKERS: htp.Const[int] = 4):
    work = csp.channel(f32, (16, 128), depth=2, count=WORKERS, name="work", pad=0.0)
    done = csp.channel(f32, (16, 128), depth=2, count=WORKERS, name="done")
    blocks = (x.shape[0] + 15) // 16
    with csp.process(name="scatter"):
        for b in range(blocks):
            csp.send(work, x[b * 16:b * 16 + 16, :], at=b % WORKERS)
    for w in csp.processes(WORKERS, name="worker"):
        for b in range(w, blocks, WORKERS):
            t = csp.recv(work, at=w)
            inner = (t + t * t * t * 0.044715) * 0.7978845608
            # tanh(u) = 1 - 2 / (exp(2u) + 1)
            tanh = 1.0 - 2.0 / (htp.exp(inner * 2.0) + 1.0)
            csp.send(done, t * 0.5 * (tanh + 1.0), at=w)
    with csp.process(name="gather"):
        for b in range(blocks):
            y[b * 16:b * 16 + 16, :] = csp.recv(done, at=b % WORKERS)


def reference(x):
    x = x.astype(np.float64)
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def main():
    x = np.random.default_rng(0).standard_normal((1000, 128), dtype=np.float32)
    for workers in (1, 4):
        y = gelu_fan_out(x, WORKERS=workers)
        print(f"gelu_fan_out [1000 x 128] f32 over {workers} workers: max abs error vs numpy = {np.abs(y - reference(x)).max():.3e}")


if __name__ == "__main__":
    main()
