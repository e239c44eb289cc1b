"""A tile read from a tensor the kernel also writes is what the tensor held
at the read (numpy's semantics: the right-hand side is evaluated first),
whichever store comes later: swaps, shifted and transposed in-place updates,
a tile read before a loop that writes the tensor. On the cpu such a read
gets a buffer of its own only when a later store could change it
(`convert_tile_to_linalg/snapshot.rs`); an elementwise update of the same
elements reads in place."""

import numpy as np
import pytest

import htp
from htp import f32, i32

from targets import RUN_TARGETS


@htp.kernel
def swap_halves(x: htp.Tensor[f32, 16, 64], acc: htp.InOut[f32, 16, 64]):
    a = acc[0:8, :]
    acc[0:8, :] = x[0:8, :]
    acc[8:16, :] = a


@htp.kernel
def shift_down(acc: htp.InOut[f32, 16, 64]):
    acc[1:9, :] = acc[0:8, :] + 1.0


@htp.kernel
def transpose_in_place(a: htp.InOut[f32, 16, 16]):
    a[0:16, 0:16] = htp.transpose(a[0:16, 0:16])


@htp.kernel
def first_block_everywhere(x: htp.Tensor[f32, "N", 64], acc: htp.InOut[f32, "N", 64]):
    first = acc[0:8, :]
    for i in range(0, x.shape[0], 8):
        acc[i:i + 8, :] = x[i:i + 8, :] + first


@htp.kernel
def blend(x: htp.Tensor[f32, "N", 64], acc: htp.InOut[f32, "N", 64]):
    for i in range(0, x.shape[0], 8):
        acc[i:i + 8, :] = acc[i:i + 8, :] * 0.5 + x[i:i + 8, :]


@htp.kernel
def normalise_rows(acc: htp.InOut[f32, "N", 64]):
    for i in range(0, acc.shape[0], 8):
        t = acc[i:i + 8, :]
        acc[i:i + 8, :] = t / htp.row_sum(t)


@htp.kernel
def rotate_in_loop(acc: htp.InOut[f32, 32, 64]):
    for i in range(0, 24, 8):
        nxt = acc[i + 8:i + 16, :]
        acc[i + 8:i + 16, :] = acc[i:i + 8, :]
        acc[i:i + 8, :] = nxt


@htp.kernel
def odd_rows_to_even(acc: htp.InOut[f32, 32, 64]):
    acc[0:32:2, :] = acc[1:32:2, :] * 2.0


@htp.kernel
def carry_down(acc: htp.InOut[f32, 32, 64]):
    prev = acc[0:8, :]
    for i in range(8, 32, 8):
        cur = acc[i:i + 8, :]
        acc[i:i + 8, :] = prev
        prev = cur


def rotate_expected(acc):
    out = acc.copy()
    for i in range(0, 24, 8):
        nxt = out[i + 8:i + 16].copy()
        out[i + 8:i + 16] = out[i:i + 8]
        out[i:i + 8] = nxt
    return out


def numpy_reference(name, x, acc):
    out = acc.copy()
    if name == "swap_halves":
        out[8:16], out[0:8] = acc[0:8], x[0:8]
    elif name == "shift_down":
        out[1:9] = acc[0:8] + np.float32(1.0)
    elif name == "transpose_in_place":
        out = acc.T.copy()
    elif name == "first_block_everywhere":
        out = x + np.tile(acc[0:8], (len(x) // 8, 1))
    elif name == "blend":
        out = acc * np.float32(0.5) + x
    elif name == "normalise_rows":
        out = acc / acc.sum(axis=1, keepdims=True)
    elif name == "rotate_in_loop":
        out = rotate_expected(acc)
    elif name == "odd_rows_to_even":
        out[0:32:2] = acc[1:32:2] * np.float32(2.0)
    elif name == "carry_down":
        prev = acc[0:8].copy()
        for i in range(8, 32, 8):
            cur = out[i:i + 8].copy()
            out[i:i + 8] = prev
            prev = cur
    return out


CASES = [
    (swap_halves, (16, 64), True),
    (shift_down, (16, 64), False),
    (transpose_in_place, (16, 16), False),
    (first_block_everywhere, (40, 64), True),
    (blend, (40, 64), True),
    (normalise_rows, (40, 64), False),
    (rotate_in_loop, (32, 64), False),
    (odd_rows_to_even, (32, 64), False),
    (carry_down, (32, 64), False),
]


@pytest.mark.parametrize("target", RUN_TARGETS + ["aie-sim"])
@pytest.mark.parametrize("kernel,shape,takes_x", CASES, ids=[c[0].name for c in CASES])
def test_a_tile_read_is_what_the_tensor_held_then(kernel, shape, takes_x, target):
    rng = np.random.default_rng(len(kernel.name))
    acc = rng.uniform(0.5, 1.5, shape).astype(np.float32)
    x = rng.standard_normal(shape, dtype=np.float32)
    want = numpy_reference(kernel.name, x, acc)
    if target == "aie-sim" and kernel is carry_down:
        pytest.skip("aie-sim: a tile carried across a core's loop trips is refused at its line (a located CompileError)")
    compiled = kernel.compile(target)
    compiled(x, acc) if takes_x else compiled(acc)
    np.testing.assert_allclose(acc, want, rtol=1e-5)


@htp.kernel
def gather_then_overwrite(idx: htp.Tensor[i32, 8, 1], acc: htp.InOut[f32, 16, 64]):
    g = htp.gather(acc, idx[:, :], 0, 64)
    acc[0:8, :] = acc[8:16, :]
    acc[8:16, :] = g


@pytest.mark.parametrize("target", RUN_TARGETS)
def test_gathered_rows_are_what_the_tensor_held_then(target):
    rng = np.random.default_rng(2)
    acc = rng.standard_normal((16, 64), dtype=np.float32)
    idx = np.array([[3], [0], [7], [1], [2], [6], [5], [4]], np.int32)
    want = acc.copy()
    want[0:8], want[8:16] = acc[8:16], acc[idx[:, 0]]
    gather_then_overwrite.compile(target)(idx, acc)
    np.testing.assert_allclose(acc, want, rtol=1e-6)


def test_an_elementwise_update_of_the_same_elements_reads_in_place():
    # No extra buffer for `acc[i] = acc[i] * 0.5 + x[i]`: the update is
    # computed straight into acc.
    # (A buffer of its own is an allocation through MLIR's generic allocation function.)
    blend_llvm = blend.compile("cpu").ir["llvm"]
    assert "_mlir_memref_to_llvm_alloc" not in blend_llvm and "memcpy" not in blend_llvm
    assert "_mlir_memref_to_llvm_alloc" in swap_halves.compile("cpu").ir["llvm"]


STATIC_CASES = [case for case in CASES if case[0].name in ("swap_halves", "shift_down", "transpose_in_place", "rotate_in_loop")]


@pytest.mark.parametrize("target", ["aie-npu1", "aie-npu2"])
@pytest.mark.parametrize("kernel", [case[0] for case in STATIC_CASES], ids=[case[0].name for case in STATIC_CASES])
def test_the_aie_designs_of_the_copies_verify_in_mlir_aie(tmp_path, kernel, target):
    import os
    import pathlib
    import subprocess

    tool = os.environ.get("HTP_AIE_OPT")
    if not tool:
        pytest.skip("HTP_AIE_OPT (an aie-opt of mlir-aie 3ca0193c) is not set")
    root = pathlib.Path(kernel.compile(target=target).write_package(tmp_path / kernel.name))
    result = subprocess.run([tool, str(root / "aie.mlir")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
