"""Long elementwise chains on the CPU: fusion makes them one loop body,
cpu-split-large-bodies cuts that body into slices past a budget (values
crossing a cut go through a tile-shaped temporary). The results must be
numpy's whatever the cut: several values live across cuts, broadcast rows
and columns, scalars, exps, a tile read back at the end."""


import numpy as np
import pytest

import htp  # noqa: F401  (the generated module imports it)

from sources import kernel_from


def chain_kernel(statements: int):
    """A kernel of `statements` elementwise statements over three running
    tiles, and the same computation in numpy."""
    lines = [
        "import htp",
        "from htp import f32",
        "",
        "@htp.kernel",
        "def chain(x: htp.Tensor[f32, 48, 64], r: htp.Tensor[f32, 1, 64], c: htp.Tensor[f32, 48, 1],",
        "          s: f32, y: htp.Out[f32, 48, 64]):",
        "    for i in range(0, x.shape[0], 16):",
        "        t = x[i:i + 16, :]",
        "        a = t * 0.5",
        "        b = t + r[0:1, :]",
    ]
    steps = [
        "a = a * 0.75 + b * 0.25",
        "b = htp.exp(b * 0.001) - c[i:i + 16, :]",
        "a = htp.maximum(a, b) * s",
        "b = b - a * 0.125",
        "a = a + t",
    ]
    for k in range(statements):
        lines.append(f"        {steps[k % len(steps)]}")
    lines.append("        y[i:i + 16, :] = a + b * t")
    chain = kernel_from("\n".join(lines) + "\n", "chain")

    def reference(x, r, c, s):
        t = x.astype(np.float32)
        a = t * np.float32(0.5)
        b = t + r
        for k in range(statements):
            step = k % len(steps)
            if step == 0:
                a = a * np.float32(0.75) + b * np.float32(0.25)
            elif step == 1:
                b = np.exp(b * np.float32(0.001)) - c
            elif step == 2:
                a = np.maximum(a, b) * np.float32(s)
            elif step == 3:
                b = b - a * np.float32(0.125)
            else:
                a = a + t
        return a + b * t

    return chain, reference


@pytest.mark.parametrize("statements", [3, 60, 400])
def test_a_long_chain_matches_numpy_across_cuts(statements):
    kernel, reference = chain_kernel(statements)
    rng = np.random.default_rng(statements)
    x = rng.uniform(-1, 1, (48, 64)).astype(np.float32)
    r = rng.uniform(-1, 1, (1, 64)).astype(np.float32)
    c = rng.uniform(-1, 1, (48, 1)).astype(np.float32)
    y = np.zeros_like(x)
    kernel(x, r, c, 0.9, y)
    np.testing.assert_allclose(y, reference(x, r, c, 0.9), rtol=2e-5, atol=2e-5)

