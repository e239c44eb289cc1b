"""A large PTO kernel compiles in time linear in its size (issue 26): a per-request top-37
selection (an `htp.static_range` of 37 unrolled scans) kept the simulator's C++ compiler busy for
over 9 minutes. Every PTO-ISA instruction is an always-inline template, and one function of
tens of thousands of allocas is quadratic for clang's SROA; the emitter now writes a large body
as `noinline` parts of about 150 ops each (`emit/parts.rs`). The guard is structural, not a timer:
the largest function of the generated C++ does not grow with the kernel, and with pto-runtime the
kernel still selects what numpy does."""

import glob
import os
import pathlib
import re

import numpy as np
import pytest

import htp
from test_wsp_pto import needs_runtime

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "wsp" / "lightning_indexer.py"


def top_k_source(k):
    """The lightning indexer example's top-16 selection kernel, selecting `k` (its `16`s are K)."""
    text = EXAMPLE.read_text()
    start = text.index("@htp.kernel\ndef select_topk(")
    kernel = text[start:text.index("\n\n\n", start)]
    assert kernel.count("16") == 3, "the example's kernel changed: update top_k_source"
    return "import htp\nfrom htp import f32, i32\n\n\n" + kernel.replace("16", str(k)) + "\n"


def batched_top_k_source(k):
    """The same selection for every row of a batch: the unrolled scans inside a loop over the rows
    (a loop whose body alone is too large for one part: its body is split, the loop stays)."""
    lines = top_k_source(k).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def select_topk("))
    lines[start] = lines[start].replace('htp.Tensor[f32, 1, "S"]', 'htp.Tensor[f32, "B", "S"]').replace(f"htp.Out[i32, 1, {k}]", f'htp.Out[i32, "B", {k}]')
    body = [line.replace("[0:1, ", "[b:b + 1, ") for line in lines[start + 2:]]
    return "\n".join(lines[:start + 2] + ["    for b in range(0, scores.shape[0]):"] + ["    " + line if line else line for line in body]) + "\n"


def top_k_kernel(tmp_path, k, batched=False):
    import importlib.util
    name = f"{'batched_' if batched else ''}top_{k}"
    path = tmp_path / f"{name}.py"
    path.write_text(batched_top_k_source(k) if batched else top_k_source(k))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.select_topk


def functions(cpp):
    """(name, lines) of each function the kernel source defines."""
    found, name, start = [], None, 0
    lines = cpp.splitlines()
    for number, line in enumerate(lines):
        match = re.match(r"^(?:static|extern).*\bvoid (\w+)\(", line)
        if match:
            name, start = match.group(1), number
        elif line == "}" and name:
            found.append((name, number - start))
            name = None
    return found


def kernel_source(kernel, tmp_path, target="pto-a2a3sim"):
    root = kernel.compile(target).write_package(tmp_path / f"{kernel.name}-{target}")
    (path,) = glob.glob(os.path.join(root, "kernels", "*", "*.cpp"))
    return open(path).read()


@pytest.mark.parametrize("target", ["pto-a2a3sim", "pto-a2a3"])
def test_the_largest_function_does_not_grow_with_the_kernel(tmp_path, target):
    sizes = {}
    for k in (4, 16, 37):
        cpp = kernel_source(top_k_kernel(tmp_path, k), tmp_path, target)
        parts = functions(cpp)
        sizes[k] = (len(parts), max(lines for _, lines in parts))
        assert parts[-1][0] == "kernel_entry", parts
        assert "static __aicore__ __attribute__((noinline)) void kernel_part_0(" in cpp
    # More parts for a larger kernel, each of the same bounded size.
    assert sizes[4][0] < sizes[16][0] < sizes[37][0], sizes
    assert sizes[37][1] <= 1.2 * sizes[16][1] and sizes[37][1] < 1000, sizes


def test_a_small_kernel_is_one_function(tmp_path):
    @htp.kernel
    def add_one(x: htp.Tensor[htp.f32, 16, 64], y: htp.Out[htp.f32, 16, 64]):
        y[:, :] = x[:, :] + 1.0

    parts = functions(kernel_source(add_one, tmp_path))
    assert [name for name, _ in parts] == ["kernel_entry"], parts


@needs_runtime
@pytest.mark.parametrize("n", [700, 5, 256])
def test_a_top_20_selection_in_parts_matches_numpy_on_a2a3sim(tmp_path, n):
    kernel = top_k_kernel(tmp_path, 20)
    rng = np.random.default_rng(n)
    scores = rng.standard_normal((1, 1024)).astype(np.float32)
    scores[0, 3] = scores[0, 9]  # a tie: the lower index first
    top = np.zeros((1, 20), np.int32)
    kernel.compile("pto-a2a3sim")(scores, top, n)
    expected = np.full(20, -1, np.int32)
    order = np.argsort(-scores[0, :n], kind="stable")[:20]
    expected[:len(order)] = order
    np.testing.assert_array_equal(top[0], expected)


def test_a_large_loop_body_is_split_and_the_loop_stays(tmp_path):
    cpp = kernel_source(top_k_kernel(tmp_path, 16, batched=True), tmp_path)
    parts = functions(cpp)
    entry = dict(parts)["kernel_entry"]
    assert len(parts) > 4 and max(lines for _, lines in parts) < 1000, parts
    # The loop over the rows is the entry's; the parts it calls take its row index.
    assert "for (int64_t i = " in cpp.split("void kernel_entry(")[1], cpp.split("void kernel_entry(")[1][:2000]
    assert entry < 400, entry


@needs_runtime
def test_a_batched_top_16_in_parts_matches_numpy_on_a2a3sim(tmp_path):
    kernel = top_k_kernel(tmp_path, 16, batched=True)
    rng = np.random.default_rng(16)
    scores = rng.standard_normal((3, 512)).astype(np.float32)
    top = np.zeros((3, 16), np.int32)
    kernel.compile("pto-a2a3sim")(scores, top, 300)
    for b in range(3):
        np.testing.assert_array_equal(top[b], np.argsort(-scores[b, :300], kind="stable")[:16])
