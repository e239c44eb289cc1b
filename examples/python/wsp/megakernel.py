"""A Loader -> Computer -> Storer megakernel at the task level: a WSP
workload whose pipe runs three processes of tasks joined by channels of
depth 2 (CSP's task level, docs/wsp.md "Pipes").

    h = x + r                     (the loader: a residual add, into a slot)
    y = h / sqrt(mean(h^2) + eps) * w   (the computer: RMSNorm, slot to slot)
    out[i:i + 16, :] = y          (the storer: the slot to the output)

Each channel is a ring of two 16-row blocks that the target allocates once
per call (a scratch buffer on the cpu, `alloc_tensors` on PTO). The pipe's
processes iterate together: `wsp-lower-pipes` fuses them into one
`wsp.parallel` loop whose iteration i issues load(i), compute(i), store(i)
on slot i mod 2, and dependency inference does the rest: compute(i) waits
for load(i) (it reads what load wrote), load(i + 2) waits for compute(i)
(it overwrites what compute read). So the loader runs up to two blocks
ahead while later stages work, and the whole pipeline holds four blocks of
intermediate data, whatever N is. N is a multiple of 16 (a pipe's slots
have one shape).
"""

import numpy as np

import htp
from htp import f32

wsp = htp.model("wsp")

H = 128  # the hidden size (the kernels spell it out: annotations take literals)


@htp.kernel
def load(x: htp.Tensor[f32, 16, 128], r: htp.Tensor[f32, 16, 128], h: htp.Out[f32, 16, 128]):
    h[:, :] = x[:, :] + r[:, :]


@htp.kernel
def rmsnorm(h: htp.Tensor[f32, 16, 128], w: htp.Tensor[f32, 1, 128], y: htp.Out[f32, 16, 128], eps: f32):
    t = h[:, :]
    y[:, :] = t * htp.rsqrt(htp.row_sum(t * t) * (1.0 / 128) + eps) * w[:, :]


@htp.kernel
def store(y: htp.Tensor[f32, 16, 128], out: htp.Out[f32, 16, 128]):
    out[:, :] = y[:, :]


@wsp.workload
def megakernel(x: htp.Tensor[f32, "N", 128], r: htp.Tensor[f32, "N", 128], w: htp.Tensor[f32, 1, 128],
               out: htp.Out[f32, "N", 128], eps: f32):
    loaded = wsp.channel(f32, (16, 128), depth=2, name="loaded")
    normed = wsp.channel(f32, (16, 128), depth=2, name="normed")
    rows = x.shape[0]
    with wsp.pipe():
        with wsp.process(name="loader"):
            for i in range(0, rows, 16):
                wsp.send(loaded, load, x[i:i + 16, :], r[i:i + 16, :])
        with wsp.process(name="computer"):
            for i in range(0, rows, 16):
                with wsp.consume(loaded) as h:          # the slot load(i) wrote
                    wsp.send(normed, rmsnorm, h, w, eps)
        with wsp.process(name="storer"):
            for i in range(0, rows, 16):
                with wsp.consume(normed) as y:
                    wsp.task(store, y, out[i:i + 16, :])


def reference(x, r, w, eps):
    h = x.astype(np.float64) + r
    return h / np.sqrt((h ** 2).mean(axis=1, keepdims=True) + eps) * w


def main(target="cpu"):
    rng = np.random.default_rng(0)
    x, r = (rng.standard_normal((1024, H), dtype=np.float32) for _ in range(2))
    w = rng.standard_normal((1, H), dtype=np.float32)
    out = np.zeros_like(x)
    megakernel.compile(target=target)(x, r, w, out, 1e-6)
    error = np.abs(out - reference(x, r, w, 1e-6)).max()
    print(f"megakernel [1024 x {H}] f32 on {target}: max abs error vs numpy = {error:.3e}")


if __name__ == "__main__":
    import sys

    main(*sys.argv[1:])
