"""Conformance: the shapes of tiles (docs/language.md, "Tile shapes") on every element type — a block
of a tile, every 2nd column of a tile, a join of columns, a stack of rows, a reshape, every 2nd column
of a tensor — over 37 rows (a ragged tail) or 48 (whole blocks). The ragged forms, RoPE, refusals and
errors are test_tile_shapes.py's."""

import numpy as np
import pytest

import conformance as c
from conformance import SHAPES_RAGGED as RAGGED, SHAPES_STATIC as STATIC, check, parts, rng

# construct -> (template fields, numpy on one block (whole tensor for the ragged template), where a
# diagnostic points)
SHAPES = {
    "t[:, 32:64]": (RAGGED, dict(C=32), lambda x: x[:, 32:64], "t[:, 32:64]"),
    "t[:, 1::2]": (RAGGED, dict(C=32), lambda x: x[:, 1::2], "t[:, 1::2]"),
    "htp.concat([t[:, 32:64], t[:, 0:32]], axis=1)": (RAGGED, dict(C=64), lambda x: np.concatenate([x[:, 32:], x[:, :32]], axis=1),
                                                      "t[:, 32:64]"),
    "x[i:i + 16, 0::2]": (RAGGED, dict(C=32), lambda x: x[:, 0::2], "x[i:i + 16, 0::2]"),
    "htp.concat([t[8:16, :], t[0:8, :]])": (STATIC, dict(R=48, C=64, B=16), lambda b: np.concatenate([b[8:], b[:8]]), "t[8:16, :]"),
    "t.reshape(32, 32)": (STATIC, dict(R=96, C=32, B=32), lambda b: b.reshape(32, 32), "t.reshape(32, 32)"),
}


@pytest.mark.parametrize("case, mode", c.params("shape/"))
def test_shape(case, mode):
    construct, dtype = parts(case)
    source, fields, reference, at = SHAPES[construct]
    kernel = c.template(source, T=dtype, EXPR=construct, **fields)
    if source is RAGGED:
        x = c.random(rng(case), dtype, (37, 64), low=-100, high=100, scale=3.0)
        expected = reference(x)
    else:
        x = c.random(rng(case), dtype, (48, 64), low=-100, high=100, scale=3.0)
        expected = np.concatenate([reference(x[i:i + 16]) for i in range(0, 48, 16)])
    check(case, mode, kernel, (x,), c.as_float64(expected) if dtype in c.FLOATS else expected, at=at)
