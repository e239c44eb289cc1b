"""Layout facets (the `layout` dialect): `htp.relayout(tile, name)` gives a
tile a registered facet's Axe layout; targets accept the layouts they hold
(`layout:<facet>` capabilities) and refuse the rest at the user's line. The
CPU holds every layout (a tile is a value there); PTO holds row_major tiles
and nz matmul operands. Extensions register their own facets."""

import numpy as np
import pytest

import htp
from htp import f16, f32

from targets import PACKAGE_TARGETS as PTO_TARGETS, RUN_TARGETS


@htp.kernel
def col_major_math(x: htp.Tensor[f32, 32, 64], y: htp.Tensor[f32, 32, 64], z: htp.Out[f32, 32, 64]):
    for i in range(0, 32, 16):
        a = htp.relayout(x[i:i + 16, :], "col_major")
        b = y[i:i + 16, :]
        z[i:i + 16, :] = htp.exp(a * 0.5) + b - htp.row_max(a)


@htp.kernel
def row_major_add(x: htp.Tensor[f32, 32, 64], z: htp.Out[f32, 32, 64]):
    for i in range(0, 32, 16):
        z[i:i + 16, :] = htp.relayout(x[i:i + 16, :], "row_major") + 1.0


@htp.kernel
def nz_matmul(a: htp.Tensor[f16, 32, 32], b: htp.Tensor[f16, 32, 32], c: htp.Out[f32, 32, 32]):
    c[:, :] = htp.matmul(htp.relayout(a[:, :], "nz"), b[:, :], dtype=f32)


@htp.kernel
def nz_vector(a: htp.Tensor[f16, 32, 32], c: htp.Out[f16, 32, 32]):
    c[:, :] = htp.relayout(a[:, :], "nz") + 1.0


@htp.kernel
def unknown_facet(x: htp.Tensor[f32, 16, 64], z: htp.Out[f32, 16, 64]):
    z[:, :] = htp.relayout(x[:, :], "zigzag")


@htp.kernel
def nz_of_odd_tile(x: htp.Tensor[f16, 20, 32], z: htp.Out[f16, 20, 32]):
    z[:, :] = htp.relayout(x[:, :], "nz")


def test_the_registered_facets_are_listed_with_their_providers():
    facets = htp.layouts()
    assert facets["row_major"][1] == "htp" and facets["col_major"][1] == "htp"
    assert facets["nz"][1] == "htp-backend-pto"


def test_a_relayout_shows_in_the_tile_ir_and_mixed_operands_are_relaid():
    tile_ir = col_major_math.compile("cpu").ir["tile"]
    assert "layout = #layout.axe<[16@m:1] x [64@m:16]>" in tile_ir
    # `+ b` (no layout) relays b to a's layout; row_max drops it (new shape).
    assert tile_ir.count("tile.relayout") >= 2


def test_laid_out_tiles_compute_the_same_values_on_the_cpu():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((32, 64), dtype=np.float32), rng.standard_normal((32, 64), dtype=np.float32)
    z = np.zeros_like(x)
    col_major_math(x, y, z)
    expected = np.exp(x * 0.5) + y - x.max(axis=1, keepdims=True)
    np.testing.assert_allclose(z, expected, rtol=1e-5, atol=1e-6)
    row_major_add(x, z)
    np.testing.assert_allclose(z, x + 1.0)
    a, b = rng.standard_normal((32, 32)).astype(np.float16), rng.standard_normal((32, 32)).astype(np.float16)
    c = np.zeros((32, 32), np.float32)
    nz_matmul(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("target", PTO_TARGETS)
def test_a_layout_the_target_lacks_is_refused_at_its_line(target):
    with pytest.raises(htp.CompileError) as caught:
        col_major_math.compile(target)
    message = str(caught.value)
    assert "test_layouts.py:19:" in message, message
    assert f"the layout 'col_major' is not available on target '{target}'" in message, message
    assert "targets that provide it: cpu" in message, message
    assert "cpu" in col_major_math.targets() and target not in col_major_math.targets()


@pytest.mark.parametrize("target", PTO_TARGETS)
def test_pto_holds_row_major_tiles_and_nz_matmul_operands(target):
    row_major_add.compile(target)
    nz_matmul.compile(target)


@pytest.mark.parametrize("target", PTO_TARGETS)
def test_an_nz_tile_in_vector_work_is_refused_on_pto_at_its_line(target):
    with pytest.raises(htp.CompileError) as caught:
        nz_vector.compile(target)
    message = str(caught.value)
    assert "test_layouts.py:37:" in message and "an NZ tile lives in the cube's L1/L0" in message, message
    nz_vector.compile("cpu")  # every layout on the CPU


def test_an_unknown_facet_is_a_located_error_listing_the_facets():
    with pytest.raises(htp.CompileError) as caught:
        unknown_facet.compile("cpu")
    message = str(caught.value)
    assert "test_layouts.py:42:" in message and 'unknown layout "zigzag"' in message and '"row_major"' in message, message


def test_a_facet_without_a_form_for_the_tile_says_so():
    with pytest.raises(htp.CompileError) as caught:
        nz_of_odd_tile.compile("cpu")
    message = str(caught.value)
    assert "test_layouts.py:47:" in message and "the layout 'nz'" in message and "no form for a tile[20x32, f16]" in message, message


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_row_major_tiles_and_nz_operands_run_and_match_numpy(target):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((32, 64), dtype=np.float32)
    z = np.zeros_like(x)
    row_major_add.compile(target)(x, z)
    np.testing.assert_allclose(z, x + 1.0)
    a, b = rng.standard_normal((32, 32)).astype(np.float16), rng.standard_normal((32, 32)).astype(np.float16)
    c = np.zeros((32, 32), np.float32)
    nz_matmul.compile(target)(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3, atol=1e-3)


@htp.kernel
def carried_layout(x: htp.Tensor[f32, 64, 64], z: htp.Out[f32, 16, 64], col: htp.Const[bool] = True):
    if col:
        acc = htp.relayout(htp.zeros((16, 64), f32), "col_major")
    else:
        acc = htp.relayout(htp.zeros((16, 64), f32), "row_major")
    for i in range(0, 64, 16):
        acc = acc + x[i:i + 16, :]
    z[:, :] = acc


@htp.kernel
def ragged_where(x: htp.Tensor[f32, "N", 64], z: htp.Out[f32, "N", 64], col: htp.Const[bool] = True):
    for i in range(0, x.shape[0], 16):
        if col:
            t = htp.relayout(x[i:i + 16, :], "col_major")
            m = htp.relayout(t > 0, "col_major")
        else:
            t = htp.relayout(x[i:i + 16, :], "row_major")
            m = htp.relayout(t > 0, "row_major")
        z[i:i + 16, :] = htp.where(m, t, -t) + htp.where(t < 0, 1.0, t)


@htp.kernel
def branch_layouts(x: htp.Tensor[f32, 16, 64], flag: int, z: htp.Out[f32, 16, 64]):
    t = x[:, :]
    if flag > 0:
        t = htp.relayout(t, "col_major")
    z[:, :] = t


@htp.kernel
def not_a_name(x: htp.Tensor[f32, 16, 64], z: htp.Out[f32, 16, 64]):
    z[:, :] = htp.relayout(x[:, :], 3)


@pytest.mark.parametrize("target", RUN_TARGETS)
@pytest.mark.parametrize("col", [True, False])
def test_laid_out_tiles_carried_by_loops_and_selected_by_masks_match_numpy(target, col):
    if col and target != "cpu":
        pytest.skip("col_major tiles: the CPU only (PTO refuses them, tested above)")
    rng = np.random.default_rng(2)
    x = rng.standard_normal((64, 64), dtype=np.float32)
    z = np.zeros((16, 64), np.float32)
    carried_layout.compile(target, col=col)(x, z)
    np.testing.assert_allclose(z, x.reshape(4, 16, 64).sum(axis=0), rtol=1e-5, atol=1e-5)
    y = x[:40].copy()
    w = np.zeros_like(y)
    ragged_where.compile(target, col=col)(y, w)
    np.testing.assert_allclose(w, np.abs(y) + np.where(y < 0, 1.0, y), rtol=1e-6)


def test_a_variable_keeps_its_layout_across_branches():
    with pytest.raises(htp.CompileError) as caught:
        branch_layouts.compile("cpu")
    assert "a variable keeps one type (shape, element type, valid region and layout)" in str(caught.value)


def test_relayout_takes_a_facet_name():
    with pytest.raises(htp.CompileError) as caught:
        not_a_name.compile("cpu")
    assert "relayout() takes a layout facet's name" in str(caught.value) and "got the integer constant 3" in str(caught.value)


@htp.kernel
def nz_both(a: htp.Tensor[f16, 32, 64], b: htp.Tensor[f16, 64, 32], c: htp.Out[f32, 32, 32]):
    c[:, :] = htp.matmul(htp.relayout(a[:, :], "nz"), htp.relayout(b[:, :], "nz"), dtype=f32)

@htp.kernel
def nz_transposed(a: htp.Tensor[f16, 32, 64], b: htp.Tensor[f16, 32, 64], c: htp.Out[f32, 32, 32]):
    c[:, :] = htp.matmul(a[:, :], htp.relayout(htp.transpose(b[:, :]), "nz"), dtype=f32)

@htp.kernel
def nz_kloop(a: htp.Tensor[f16, 32, 64], b: htp.Tensor[f16, 64, 32], c: htp.Out[f32, 32, 32]):
    acc = htp.zeros((32, 32), f32)
    for k in range(0, 64, 32):
        acc = htp.matmul(htp.relayout(a[:, k:k + 32], "nz"), b[k:k + 32, :], acc)
    c[:, :] = acc

@htp.kernel
def nz_then_vector(a: htp.Tensor[f16, 32, 32], b: htp.Tensor[f16, 32, 32], c: htp.Out[f32, 32, 32]):
    x = htp.relayout(a[:, :], "nz")
    c[:, :] = htp.matmul(x, b[:, :], dtype=f32) + htp.cast(htp.relayout(x, "row_major"), f32)


NZ_CASES = [
    ("nz_both", (32, 64), (64, 32), lambda a, b: a @ b),
    ("nz_transposed", (32, 64), (32, 64), lambda a, b: a @ b.T),
    ("nz_kloop", (32, 64), (64, 32), lambda a, b: a @ b),
    ("nz_then_vector", (32, 32), (32, 32), lambda a, b: a @ b + a),
]


@pytest.mark.parametrize("target", RUN_TARGETS)
@pytest.mark.parametrize("name, a_shape, b_shape, reference", NZ_CASES, ids=[case[0] for case in NZ_CASES])
def test_nz_operands_both_sides_transposed_in_k_loops_and_relaid_back_match_numpy(target, name, a_shape, b_shape, reference):
    rng = np.random.default_rng(3)
    a = rng.standard_normal(a_shape).astype(np.float16)
    b = rng.standard_normal(b_shape).astype(np.float16)
    c = np.zeros((32, 32), np.float32)
    globals()[name].compile(target)(a, b, c)
    np.testing.assert_allclose(c, reference(a.astype(np.float32), b.astype(np.float32)), rtol=1e-3, atol=1e-3)


@htp.kernel
def broadcast_laid_out_row(x: htp.Tensor[f32, 1, 64], m: htp.Tensor[f32, 16, 64], z: htp.Out[f32, 16, 64]):
    row = htp.relayout(x[:, :], "col_major")
    z[:, :] = htp.where(m[:, :] > 0, row, 0.5) + htp.where(m[:, :] < 0, 1.0, row) + (m[:, :] + row)


def test_a_laid_out_row_broadcast_by_where_and_arithmetic_matches_numpy():
    # A broadcast makes a tile of another shape: it drops the layout (found by fuzzing:
    # htp.where gave the [16, 64] result the [1, 64] row's layout, an internal error).
    x = np.arange(64, dtype=np.float32).reshape(1, 64)
    m = np.random.default_rng(4).standard_normal((16, 64)).astype(np.float32)
    z = np.zeros((16, 64), np.float32)
    broadcast_laid_out_row(x, m, z)
    np.testing.assert_allclose(z, np.where(m > 0, x, 0.5) + np.where(m < 0, 1.0, x) + (m + x))


def _register_bad_facets(registry):
    # Claims 8 rows for every tile; and one on a parallel axis.
    registry.layout("eight_rows", lambda rows, cols, bits: [[(8, "m", cols)], [(cols, "m", 1)]])
    registry.layout("over_cores", lambda rows, cols, bits: [[(rows, "core", 1)], [(cols, "m", 1)]])
    registry.layout("raising", _raising_facet)
    registry.layout("not_parts", lambda rows, cols, bits: "row-major, please")


def _raising_facet(rows, cols, bits):
    raise ValueError(f"no {rows}x{cols} form")


@htp.kernel
def raising(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = htp.relayout(x[:, :], "raising")


@htp.kernel
def not_parts(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = htp.relayout(x[:, :], "not_parts")


@htp.kernel
def eight_rows(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = htp.relayout(x[:, :], "eight_rows")


@htp.kernel
def over_cores(x: htp.Tensor[f32, 16, 64], y: htp.Out[f32, 16, 64]):
    y[:, :] = htp.relayout(x[:, :], "over_cores")


def test_a_facet_layout_that_does_not_fit_the_tile_is_a_located_error():
    import types

    extension = types.ModuleType("bad_layout_facets")
    extension.register = _register_bad_facets
    htp.extensions.load(extension)
    for kernel, why in [(eight_rows, "the layout's dimension 0 covers 8 elements, the tile's 16"),
                        (over_cores, "a tile's layout places parts on the memory axis `m` only")]:
        with pytest.raises(htp.CompileError) as caught:
            kernel.compile("cpu")
        message = str(caught.value)
        assert f"test_layouts.py:{kernel.function.__code__.co_firstlineno + 2}:" in message, message
        assert "internal error" not in message, message
        assert f"the layout facet '{kernel.name}' (from bad_layout_facets) gives a tile[16x64, f32] a layout that does not fit it" in message, message
        assert why in message, message


def test_a_facet_builder_that_raises_or_returns_no_parts_is_a_located_error():
    import types

    extension = types.ModuleType("bad_layout_facets")
    extension.register = _register_bad_facets
    htp.extensions.load(extension)
    for kernel, why in [(raising, "ValueError: no 16x64 form"), (not_parts, "TypeError")]:
        with pytest.raises(htp.CompileError) as caught:
            kernel.compile("cpu")
        message = str(caught.value)
        assert f"test_layouts.py:{kernel.function.__code__.co_firstlineno + 2}:" in message, message
        assert f"the layout facet '{kernel.name}' (from bad_layout_facets) failed for a tile[16x64, f32]: {why}" in message, message
