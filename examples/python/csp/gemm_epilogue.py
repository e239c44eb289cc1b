"""A GEMM feeding its epilogue through a channel: two CSP processes, the
split of a PTO cluster. The `cube` process computes each 32 x 64 block of
C = A @ B (accumulating over K in blocks of 64) and sends it; the `vector`
process adds the bias, applies GELU's tanh form and stores the block:

    y = gelu(A @ B + bias)

On the cpu the processes are threads; on PTO (`target="pto-a2a3sim"`) the
program is one cluster task, the cube process on the cube core and the
vector process on the vector core, the channel the cluster's cube-to-vector
pipe with depth 2 slots: the cube computes block i + 1 while the vector
core finishes block i. M and N are bound at call time: blocks cut by their
edges travel padded with zeros, and the store stops at the edge. K is 256.
"""

import numpy as np

import htp
from htp import f32

csp = htp.model("csp")


@csp.program
def gemm_epilogue(a: htp.Tensor[f32, "M", 256], b: htp.Tensor[f32, 256, "N"], bias: htp.Tensor[f32, 1, "N"],
                  y: htp.Out[f32, "M", "N"]):
    blocks = csp.channel(f32, (32, 64), depth=2, name="blocks")
    m, n = a.shape[0], b.shape[1]
    with csp.process(name="cube"):
        for i in range(0, m, 32):
            for j in range(0, n, 64):
                # Blocks cut by the edges of M and N are padded with zeros: whole tiles travel.
                c = htp.pad(a[i:i + 32, 0:64], 0.0) @ htp.pad(b[0:64, j:j + 64], 0.0)
                for k in range(64, 256, 64):
                    c = c + htp.pad(a[i:i + 32, k:k + 64], 0.0) @ htp.pad(b[k:k + 64, j:j + 64], 0.0)
                csp.send(blocks, c)
    with csp.process(name="vector"):
        for i in range(0, m, 32):
            for j in range(0, n, 64):
                x = csp.recv(blocks) + htp.pad(bias[0:1, j:j + 64], 0.0)
                inner = 0.7978845608 * (x + 0.044715 * x * x * x)
                e = htp.exp(-2.0 * htp.abs(inner))
                t = (1.0 - e) / (1.0 + e)                       # tanh(|inner|)
                y[i:i + 32, j:j + 64] = 0.5 * x * (1.0 + htp.where(inner < 0.0, -t, t))


def reference(a, b, bias):
    x = a.astype(np.float64) @ b + bias
    return 0.5 * x * (1.0 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def main(target="cpu"):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((100, 256), dtype=np.float32) * 0.1
    b = rng.standard_normal((256, 150), dtype=np.float32) * 0.1
    bias = rng.standard_normal((1, 150), dtype=np.float32)
    y = np.zeros((100, 150), np.float32)
    gemm_epilogue.compile(target=target)(a, b, bias, y)
    print(f"gemm_epilogue [100 x 256] @ [256 x 150] f32 on {target}: max abs error vs numpy = {np.abs(y - reference(a, b, bias)).max():.3e}")


if __name__ == "__main__":
    import sys

    main(*sys.argv[1:])
