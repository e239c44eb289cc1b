"""HTP's conformance suite: one kernel language on every target.

Shared by the `test_conformance_*.py` files, which write kernels the way a
user of docs/language.md would and run each one in four modes:

* `cpu`                  compile, run, compare with numpy;
* `pto-a2a3sim:package`  compile to a pto-runtime package (files non-empty, manifest names the target);
* `pto-a2a3:package`     the same for the chip;
* `pto-a2a3sim:run`      run the package on pto-runtime's a2a3sim and compare with numpy
                         (only cases in the simulator set; skipped, visibly, without the simulator).

`MATRIX` below is the one table of cases and their expected outcome per
target. Each outcome is one of

* `RUNS`        compiles (and, where the mode runs, matches numpy within `TOLERANCE`);
* `Limit`       a hardware limit the docs state: the compile must raise `htp.CompileError`
                with exactly that diagnostic, located at the user's `file:line:col`;
* `Rejected`    the language itself rejects the kernel, with the same located diagnostic on
                every target;
* `Gap`         something the hardware could do but HTP does not map yet: the mode is marked
                `xfail(strict=True)`, so it starts failing (XPASS) the day the gap is closed;
* `Wrong`       a wrong number: `xfail(strict=True, reason="WRONG RESULT: ...")`.

docs/support-matrix.md is rendered from `MATRIX` (`python3 python/tests/conformance.py`
rewrites its generated part; test_conformance_matrix.py checks that it is current).

Element types vary by *template*: HTP's front end reads the element type of
an annotation by its name in the source (`htp.f16`), so a module-level alias
(`DT = htp.f16; htp.Tensor[DT, ...]`) is rejected ("the first item of
htp.Tensor[...] must be an element type"). `template()` therefore
instantiates one kernel source per element type into a real file (errors
point into it, `htp.Kernel.sources()` reads it) and returns the `htp.Kernel`.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
import textwrap
import zlib
import dataclasses
from dataclasses import dataclass
from typing import Dict, Optional
from unittest import mock

import numpy as np

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - scripts/setup installs it
    ml_dtypes = None

if __name__ != "__main__":  # rendering the matrix needs neither pytest nor htp
    import pytest

    import htp
    from htp.pto import runtime as pto_runtime
    from targets import SIMULATOR, needs_simulator
    from test_errors import assert_points_at

# ---------------------------------------------------------------------------
# Element types

FLOATS = ["f32", "f16", "bf16"]
INTS = ["i32", "i16", "i8", "i64"]
DTYPES = FLOATS + INTS
NUMPY = {
    "f32": np.float32,
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16 if ml_dtypes is not None else None,
    "i64": np.int64,
    "i32": np.int32,
    "i16": np.int16,
    "i8": np.int8,
    "bool": np.bool_,
}

# ---------------------------------------------------------------------------
# Tolerances: one place. A result is compared with a float64 numpy reference
# computed from the same (already rounded) inputs:
#   |actual - expected| <= atol * scale + rtol * scale * |expected|
# `scale` is chosen by the test for its computation: 1 for one rounding step
# (an elementwise op), the number of rounded terms that feed one output for
# sums and dot products (or its square root where errors are random), a few
# for chains (softmax, norms). Integers and bools must match exactly.

TOLERANCE = {
    "f32": (1e-5, 1e-5),      # rtol, atol: ~80 ulps of f32 (2^-24), room for exp/log/rsqrt approximations
    "f16": (2e-3, 2e-3),      # ~2 ulps of f16 (2^-11 unit roundoff)
    "bf16": (1.6e-2, 1.6e-2),  # ~2 ulps of bf16 (2^-8 unit roundoff)
}
EXACT = ["i64", "i32", "i16", "i8", "bool"]


def dtype_name(array: np.ndarray) -> str:
    if ml_dtypes is not None and array.dtype == ml_dtypes.bfloat16:
        return "bf16"
    return {
        np.dtype(np.float32): "f32",
        np.dtype(np.float16): "f16",
        np.dtype(np.int64): "i64",
        np.dtype(np.int32): "i32",
        np.dtype(np.int16): "i16",
        np.dtype(np.int8): "i8",
        np.dtype(np.bool_): "bool",
    }[array.dtype]


def as_float64(array) -> np.ndarray:
    array = np.asarray(array)
    if ml_dtypes is not None and array.dtype == ml_dtypes.bfloat16:
        array = array.astype(np.float32)
    return array.astype(np.float64)


def assert_close(actual, expected, scale: float = 1.0, what: str = ""):
    """`actual` (an output of a kernel) matches `expected` (numpy) within
    the tolerance of `actual`'s element type, scaled by `scale`."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape}, expected {expected.shape}"
    name = dtype_name(actual)
    if name in EXACT:
        # Integer references are computed in float64 or int64 (the tests keep them in range).
        np.testing.assert_array_equal(actual, expected.astype(actual.dtype), err_msg=what)
        return
    rtol, atol = TOLERANCE[name]
    np.testing.assert_allclose(
        as_float64(actual), as_float64(expected), rtol=rtol * scale, atol=atol * scale, equal_nan=True, err_msg=what
    )


def rounded(values, dtype: str) -> np.ndarray:
    """`values` rounded to `dtype`, back in float64: what a result of that type can hold."""
    return as_float64(np.asarray(values, dtype=np.float64).astype(NUMPY[dtype]))


# ---------------------------------------------------------------------------
# Deterministic inputs


def rng(case: str) -> np.random.Generator:
    """A generator seeded by the case id: every run sees the same inputs."""
    return np.random.default_rng(zlib.crc32(case.encode()))


def random(gen: np.random.Generator, dtype: str, shape, low: int = -4, high: int = 4, scale: float = 1.0):
    """Normal floats (times `scale`) or integers in [low, high), of `dtype`."""
    if dtype in INTS:
        return gen.integers(low, high, size=shape).astype(NUMPY[dtype])
    return (gen.standard_normal(shape) * scale).astype(NUMPY[dtype])


# ---------------------------------------------------------------------------
# Kernels from templates

KERNEL_DIR = os.path.join(tempfile.gettempdir(), f"htp-conformance-{os.getuid() if hasattr(os, 'getuid') else 0}")
HEADER = "import math\n\nimport htp\nfrom htp import bf16, f16, f32, i8, i16, i32, i64\n\n"


@functools.lru_cache(maxsize=None)
def _template(source: str, names: tuple):
    text = HEADER + textwrap.dedent(source).strip("\n").format(**dict(names)) + "\n"
    kernels = re.findall(r"^@htp\.kernel[^\n]*\ndef (\w+)", text, flags=re.M)
    assert kernels, "a template defines at least one @htp.kernel"
    name = kernels[-1]  # the entry point is the last kernel of the template
    digest = hashlib.sha1(text.encode()).hexdigest()[:12]
    # One directory per text, the file named after the kernel: every
    # instantiation of a template then has the same file name in the
    # package's source comments, so the simulator's binary cache shares their
    # (otherwise identical) orchestration.
    directory = os.path.join(KERNEL_DIR, digest)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{name}.py")
    if not os.path.exists(path):
        scratch = f"{path}.{os.getpid()}"
        with open(scratch, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(scratch, path)
    namespace = {"__name__": f"htp_conformance_{name}_{digest}", "__file__": path}
    exec(compile(text, path, "exec"), namespace)
    return namespace[name]


# The kernels of the tile-shape tests (test_tile_shapes.py, test_conformance_shapes.py): one 16-row
# block at a time over a symbolic number of rows, or over 48 rows with {B} result rows per block.
SHAPES_RAGGED = '''
@htp.kernel
def k(x: htp.Tensor[{T}, "N", 64], y: htp.Out[{T}, "N", {C}]):
    for i in range(0, x.shape[0], 16):
        t = x[i:i + 16, :]
        y[i:i + 16, :] = {EXPR}
'''

SHAPES_STATIC = '''
@htp.kernel
def k(x: htp.Tensor[{T}, 48, 64], y: htp.Out[{T}, {R}, {C}]):
    for i in range(0, 48, 16):
        t = x[i:i + 16, :]
        y[i // 16 * {B}:i // 16 * {B} + {B}, :] = {EXPR}
'''


def template(source: str, **names) -> "htp.Kernel":
    """The last `@htp.kernel` of `source` with `{NAME}` replaced by `names`
    (element types, expressions), written to a file of its own. Cached: the
    same text gives the same `htp.Kernel` (and its compile cache)."""
    return _template(source, tuple(sorted((k, str(v)) for k, v in names.items())))


def location_of(kernel, at: str):
    """(file, line, column) of the first occurrence of `at` in the source of
    `kernel`: where a diagnostic about that construct must point."""
    function = kernel.function
    path = inspect.getsourcefile(function)
    lines, first = inspect.getsourcelines(function)
    for offset, line in enumerate(lines):
        column = line.find(at)
        if column >= 0:
            return path, first + offset, column + 1
    raise AssertionError(f"{at!r} is not in the source of {kernel.name}")


# ---------------------------------------------------------------------------
# Outcomes


@dataclass(frozen=True)
class Runs:
    def __str__(self):
        return "runs"


@dataclass(frozen=True)
class Limit:
    """A hardware limit the docs state; `message` is the exact diagnostic
    (a substring of it), `why` the documented fact behind it."""

    message: str
    why: str
    #: where the diagnostic points when not at the case's `at` (an AIE core's memory: the loop)
    at: str = ""
    #: raised by the call, not the compile: a limit of the call's sizes (aie-sim builds a design
    #: for each call's sizes); a RuntimeError naming the user's file:line:col
    at_call: bool = False


@dataclass(frozen=True)
class Rejected:
    """The language rejects the kernel on every target with `message`."""

    message: str
    why: str


@dataclass(frozen=True)
class Gap:
    """The hardware could do it; HTP does not map it yet."""

    what: str
    message: str = ""  # what HTP says today, for the matrix
    #: how the gap shows: "compile" (htp.CompileError), "run" (the simulator fails: RuntimeError) or
    #: "result" (numbers differ from numpy: AssertionError)
    shows: str = "compile"


@dataclass(frozen=True)
class Wrong:
    """A wrong number."""

    what: str


RUNS = Runs()



@dataclass(frozen=True)
class Row:
    cpu: object = RUNS
    pto: object = RUNS  # both package targets: they share one pipeline (docs/targets/pto.md, section 7)
    sim: object = None  # the a2a3sim run; None: not in the simulator set
    aie: object = None  # the aie-sim run (AIE_OUTCOMES below); None: not checked there

    def outcome(self, mode: str):
        if mode == "cpu":
            return self.cpu
        if mode == AIE_MODE:
            return self.aie
        if mode.endswith(":package"):
            return self.pto
        if self.sim is None and self.pto is RUNS and SIMULATE_ALL:
            return RUNS
        return self.sim


#: The AIE targets' mode: the npu1 design run by HTP's functional simulator
#: (docs/targets/aie.md), compared with numpy as the cpu is.
AIE_MODE = "aie-sim:run"
MODES = ["cpu", "pto-a2a3sim:package", "pto-a2a3:package", "pto-a2a3sim:run", AIE_MODE]

_NO_BF16_CONVERSION = ("its kernels are built by clang++ 22 against Debian 12's libgcc, which has no "
                       "__truncsfbf2 (conversion to bf16): dlopen fails")
#: Cases the simulator here cannot run although they package (what it lacks
#: is not HTP's): skipped, with the reason, when HTP_CONFORMANCE_SIMULATE=all.
SIMULATOR_CANNOT = {
    "cast/htp.cast(t, bf16)/f32": _NO_BF16_CONVERSION,
    "cast/htp.cast(t, i32)/bf16": _NO_BF16_CONVERSION,
    "pad/htp.pad(t, 0.0)/bf16": _NO_BF16_CONVERSION,
    "matmul/bf16->f32/64x64x64": _NO_BF16_CONVERSION,
    "matmul/bf16->f32/100x70x50": _NO_BF16_CONVERSION,
    "matmul_nt/bf16->f32/x @ w.T": _NO_BF16_CONVERSION,
}

#: HTP_CONFORMANCE_SIMULATE=all: every case that packages also runs on the
#: simulator and must match (a validation run; the default set is a sample,
#: to keep the README's test command short).
SIMULATE_ALL = os.environ.get("HTP_CONFORMANCE_SIMULATE") == "all"

# ---------------------------------------------------------------------------
# Running a case


def _marks(outcome, mode):
    marks = []
    if mode == "pto-a2a3sim:run":
        marks.append(needs_simulator)
    if isinstance(outcome, Gap):
        raises = {"compile": htp.CompileError, "run": RuntimeError, "result": AssertionError}[outcome.shows]
        marks.append(pytest.mark.xfail(strict=True, raises=raises, reason=f"HTP gap: {outcome.what}"))
    elif isinstance(outcome, Wrong):
        marks.append(pytest.mark.xfail(strict=True, raises=AssertionError, reason=f"WRONG RESULT: {outcome.what}"))
    return marks


def params(prefix: str):
    """pytest params `(case, mode)` for every case of MATRIX whose id starts
    with `prefix`, each mode marked as MATRIX says."""
    found = []
    for case, row in MATRIX.items():
        if not case.startswith(prefix):
            continue
        for mode in MODES:
            outcome = row.outcome(mode)
            if outcome is None:
                continue
            marks = _marks(outcome, mode)
            if mode == f"{SIMULATOR}:run" and case in SIMULATOR_CANNOT:
                marks.append(pytest.mark.skip(reason=f"the simulator here cannot run it: {SIMULATOR_CANNOT[case]}"))
            found.append(pytest.param(case, mode, marks=marks, id=f"{case}-{mode}"))
    assert found, f"no case starts with {prefix!r}"
    return found


def fewer(mode: str, items, keep: int):
    """`items`, or only `keep` of them spread over the list on the simulator
    (every call there is a run of a few seconds)."""
    items = list(items)
    if mode != f"{SIMULATOR}:run" or len(items) <= keep:
        return items
    step = (len(items) - 1) / max(keep - 1, 1)
    return [items[round(i * step)] for i in range(keep)]


def parts(case: str):
    """`theme/construct/dtype` -> (construct, dtype)."""
    return split(case)[1:]


def split(case: str):
    """`theme/construct/dtype` -> (theme, construct, dtype); a construct may contain '/'."""
    theme, rest = case.split("/", 1)
    construct, dtype = rest.rsplit("/", 1)
    return theme, construct, dtype


#: When a list, `check` appends `(case, files)` of each package it makes
#: (test_pto_isa.py gathers every conformance package this way and compiles
#: its kernels against PTO-ISA).
PACKAGES = None

def run_every_case(mode: str):
    """Calls every case's own test function (`test_conformance_*.py`) in
    `mode`, but those MATRIX marks xfail or skip: how test_pto_isa.py and
    test_portable_code.py gather what the cases compile (PACKAGES,
    LLVM_MODULES)."""
    import importlib
    import pathlib

    for path in sorted(pathlib.Path(__file__).resolve().parent.glob("test_conformance_*.py")):
        module = importlib.import_module(path.stem)
        for name, function in vars(module).items():
            if not name.startswith("test_") or not callable(function):
                continue
            for mark in getattr(function, "pytestmark", []):
                if mark.name != "parametrize" or mark.args[0] != "case, mode":
                    continue
                for param in mark.args[1]:
                    case, case_mode = param.values
                    if case_mode == mode and not any(m.name in ("xfail", "skip") for m in param.marks):
                        function(case, case_mode)


#: When a list, `check` appends `(case, LLVM dialect text)` of each kernel it
#: compiles for the cpu (test_portable_code.py gathers them and checks what
#: library functions the code calls).
LLVM_MODULES = None


def check(case: str, mode: str, kernel, args=(), expected=None, *, scale: float = 1.0, at: Optional[str] = None,
          constants: Optional[Dict] = None):
    """Run `case` in `mode` as MATRIX says it must behave.

    `expected` is the numpy result (one array, or a tuple in output order),
    `at` the source text a diagnostic must point at (needed when MATRIX
    expects one), `constants` the kernel's compile-time constants."""
    constants = constants or {}
    outcome = MATRIX[case].outcome(mode)
    target = mode.split(":")[0]
    if isinstance(outcome, (Limit, Rejected)):
        at = getattr(outcome, "at", "") or at
        assert at is not None, f"{case}: say where the diagnostic must point (at=...)"
        path, line, column = location_of(kernel, at)
        if getattr(outcome, "at_call", False):
            compiled = kernel.compile(target, **constants)
            with pytest.raises(RuntimeError) as info:
                compiled(*args)
            assert outcome.message in str(info.value), str(info.value)
            assert f"{os.path.basename(path)}:{line}:{column}:" in str(info.value), str(info.value)
            return
        with pytest.raises(htp.CompileError) as info:
            kernel.compile(target, **constants)
        assert outcome.message in str(info.value), str(info.value)
        assert_points_at(info.value, os.path.basename(path), line, column)
        return
    compiled = kernel.compile(target, **constants)
    if mode.endswith(":package"):
        assert compiled.files, f"{case}: no package for {target}"
        manifest = json.loads(compiled.files["manifest.json"])
        assert manifest["target"] == target and manifest["kernels"], manifest
        for entry in manifest["kernels"]:
            assert compiled.files[entry["source"]].strip(), entry
        assert compiled.files[manifest["orchestration"]["source"]].strip()
        if PACKAGES is not None:
            PACKAGES.append((case, compiled.files))
        return
    if LLVM_MODULES is not None and target == "cpu":
        LLVM_MODULES.append((case, compiled.ir["llvm"]))
    if target == SIMULATOR:
        with mock.patch.object(pto_runtime, "run_package", run_package_in_a_child):
            results = compiled(*args)
    else:
        results = compiled(*args)
    if not isinstance(results, tuple):
        results = (results,)
    if not isinstance(expected, tuple):
        expected = (expected,)
    assert len(results) == len(expected), f"{case}: {len(results)} outputs, expected {len(expected)}"
    for index, (actual, reference) in enumerate(zip(results, expected)):
        assert_close(actual, reference, scale, what=f"{case} on {target}, output {index}")


_CHILD = """
import importlib.util, pickle, sys
# htp/pto/runtime.py needs only numpy (and simpler): load it without the htp package and its native module
spec = importlib.util.spec_from_file_location("htp_pto_runtime", sys.argv[3])
runtime = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runtime)
with open(sys.argv[1], "rb") as handle:
    directory, tensors, scalars = pickle.load(handle)
runtime.run_package(directory, tensors, scalars)
with open(sys.argv[2], "wb") as handle:
    pickle.dump(tensors, handle)
"""
SIMULATOR_TIMEOUT = 600


def run_on(kernel, target, *args, **constants):
    """`kernel` compiled for `target` and called; on pto-a2a3sim the package runs in a child
    process (run_package_in_a_child), so a crash of the simulator fails this case only."""
    compiled = kernel.compile(target, **constants)
    if target == "pto-a2a3sim":
        with mock.patch.object(pto_runtime, "run_package", run_package_in_a_child):
            return compiled(*args)
    return compiled(*args)


def run_package_in_a_child(directory, tensors, scalars):
    """`htp.pto.runtime.run_package` in a child process: a crash of the
    simulator (it has segfaulted, rarely and not reproducibly, on a cold
    binary cache) fails one case instead of ending the whole pytest run."""
    with tempfile.TemporaryDirectory(prefix="htp-conformance-run-") as scratch:
        given, taken = os.path.join(scratch, "in.pickle"), os.path.join(scratch, "out.pickle")
        with open(given, "wb") as handle:
            pickle.dump((directory, list(tensors), list(scalars)), handle)
        try:
            child = subprocess.run([sys.executable, "-c", _CHILD, given, taken, pto_runtime.__file__],
                                   capture_output=True, text=True, timeout=SIMULATOR_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"the simulator did not finish {directory} within {SIMULATOR_TIMEOUT} s") from None
        if child.returncode != 0:
            how = f"crashed (signal {-child.returncode})" if child.returncode < 0 else "failed"
            raise RuntimeError(f"the simulator {how} running {directory}:\n{child.stderr[-4000:]}")
        with open(taken, "rb") as handle:
            results = pickle.load(handle)
    for mine, theirs in zip(tensors, results):
        mine[...] = theirs


# ===========================================================================
# THE TABLE
#
# Facts from the docs that decide the outcomes below. HTP's pto verifiers
# enforce them (dialects/pto/PTOOps.td restates the type lists).

#: A2/A3 element types of each vector instruction (docs/targets/pto-contract.md,
#: sections 2.2-2.6; TCI from pto-isa's include/pto/npu/a2a3/TCI.hpp, "b32 or b16").
A2A3_TYPES = {
    "tadd": ["i32", "i16", "f16", "f32"],
    "tsub": ["i32", "i16", "f16", "f32"],
    "tmul": ["i32", "i16", "f16", "f32"],
    "tdiv": ["f16", "f32"],
    "tmax": ["i32", "i16", "f16", "f32"],
    "tmin": ["i32", "i16", "f16", "f32"],
    "tadds": ["i32", "i16", "f16", "f32"],
    "tmuls": ["i32", "i16", "f16", "f32"],
    "tdivs": ["i32", "i16", "f16", "f32"],
    "tmaxs": ["i32", "i16", "f16", "f32"],
    "tmins": ["i32", "i16", "f16", "f32"],
    "texp": ["f16", "f32"],
    "tlog": ["f16", "f32"],
    "tsqrt": ["f16", "f32"],
    "trsqrt": ["f16", "f32"],
    "trecip": ["f16", "f32"],
    "tabs": ["f16", "f32"],
    "tneg": ["i32", "i16", "f16", "f32"],
    "trelu": ["f16", "f32", "i32"],
    "trowsum": ["f16", "f32", "i32", "i16"],
    "trowmax": ["f16", "f32", "i32", "i16"],
    "trowmin": ["f16", "f32", "i32", "i16"],
    "tcolsum": ["f16", "f32", "i16", "i32"],
    "tcolmax": ["f16", "f32", "i16", "i32"],
    "tcolmin": ["f16", "f32", "i16", "i32"],
    "texpands": ["i8", "i16", "i32", "f16", "bf16", "f32"],
    "tcmp": ["f32", "f16", "i32", "i16"],  # TCMP i32/f16/f32, TCMPS also i16 (section 2.9)
    "trowargmax": ["f16", "f32", "i32", "i16"],
    "tci": ["i32", "i16", "f32", "f16"],
}
SECTION = {
    "tadd": "2.2", "tsub": "2.2", "tmul": "2.2", "tdiv": "2.2", "tmax": "2.2", "tmin": "2.2",
    "tadds": "2.3", "tmuls": "2.3", "tdivs": "2.3", "tmaxs": "2.3", "tmins": "2.3", "texpands": "2.3",
    "texp": "2.4", "tlog": "2.4", "tsqrt": "2.4", "trsqrt": "2.4", "trecip": "2.4", "tabs": "2.4",
    "tneg": "2.4", "trelu": "2.4", "trowsum": "2.5", "trowmax": "2.5", "trowmin": "2.5",
    "tcolsum": "2.5", "tcolmax": "2.5", "tcolmin": "2.5", "tcmp": "2.9", "trowargmax": "2.14",
}

def vector_limit(op: str, dtype: str):
    """The outcome of A2/A3 instruction `op` on `dtype`. bf16 arithmetic runs in f32
    between TCVTs (conversion/widen.rs), so only i8 and i64 meet the ISA's limits."""
    if dtype in A2A3_TYPES[op] or dtype == "bf16":
        return RUNS
    types = ", ".join(A2A3_TYPES[op])
    if op == "tcmp":
        return Limit(f"PTO compares f32, f16, i32 and i16 tiles, not {dtype}",
                     f"A2/A3 TCMP/TCMPS compare i32, f16, f32 (TCMPS also i16) only (pto-contract.md 2.9)")
    if op == "tci":
        return Limit(f"PTO makes index tiles of i32, i16, f32 or f16 (TCI), not {dtype}",
                     "A2/A3 TCI makes b32 or b16 indices only (pto-isa include/pto/npu/a2a3/TCI.hpp)")
    return Limit(f"'pto.{op}' op element type '{dtype}' is not supported on A2/A3",
                 f"A2/A3 {op.upper()} takes {types} only (pto-contract.md {SECTION[op]})")


def lowered(ops, dtype: str):
    """The outcome of a construct that lowers to the instructions `ops`
    (in order) on `dtype`: the first one the type is not supported by."""
    for op in ops:
        outcome = vector_limit(op, dtype)
        if outcome is not RUNS:
            return outcome
    return RUNS


def cast_limit(source: str, dest: str):
    """Every cast runs on PTO: a pair A2/A3's TCVT lacks is a chain of
    conversions it has (vector.rs, `conversion_path`)."""
    return RUNS


MATRIX: Dict[str, Row] = {}


def case(case_id: str, cpu=RUNS, pto=RUNS, sim=False):
    """Adds a case. `sim=True`: in the simulator set, expected to match
    numpy there; or an outcome (Wrong/Gap) for the simulator run."""
    assert case_id not in MATRIX, case_id
    assert case_id.count("/") >= 2, case_id
    if sim is True:
        sim = RUNS
    if sim is False or pto is not RUNS:
        sim = None
    MATRIX[case_id] = Row(cpu=cpu, pto=pto, sim=sim)


# --- gaps found by this suite (one object each, shared by the cases) --------


# ===========================================================================
# elementwise: tile op tile (test_conformance_elementwise.py)

BINARY_OPS = {"a + b": ["tadd"], "a - b": ["tsub"], "a * b": ["tmul"], "a / b": ["tdiv"],
              "htp.maximum(a, b)": ["tmax"], "htp.minimum(a, b)": ["tmin"]}
BINARY_SIM = {("a + b", "i16"), ("a - b", "f16"), ("a * b", "i32"), ("htp.maximum(a, b)", "f16")}
for _op, _ops in BINARY_OPS.items():
    for _t in DTYPES:
        if _op == "a / b" and _t in INTS:
            continue  # `/` of integer tiles is not in docs/language.md (the CPU truncates)
        case(f"binary/{_op}/{_t}", pto=lowered(_ops, _t), sim=(_op, _t) in BINARY_SIM)
case("binary/htp.add, sub, mul, div; max(), min()/f32", sim=True)

# --- unary
UNARY_FLOAT = {"htp.exp(t)": ["texp"], "htp.log(htp.abs(t) + 1.0)": ["tabs", "tadds", "tlog"],
               "htp.sqrt(htp.abs(t))": ["tabs", "tsqrt"], "htp.rsqrt(htp.abs(t) + 0.5)": ["tabs", "tadds", "trsqrt"],
               "htp.recip(t)": ["trecip"]}
UNARY_ANY = {"htp.abs(t)": ["tabs"], "-t": ["tneg"], "htp.relu(t)": ["trelu"]}
UNARY_SIM = {("htp.exp(t)", "f16"), ("htp.log(htp.abs(t) + 1.0)", "f32"), ("htp.rsqrt(htp.abs(t) + 0.5)", "f32"),
             ("htp.recip(t)", "f16"), ("-t", "i16"), ("htp.relu(t)", "i32")}
for _op, _ops in UNARY_FLOAT.items():
    for _t in FLOATS:
        case(f"unary/{_op}/{_t}", pto=lowered(_ops, _t), sim=(_op, _t) in UNARY_SIM)
for _op, _ops in UNARY_ANY.items():
    for _t in DTYPES:
        case(f"unary/{_op}/{_t}", pto=lowered(_ops, _t), sim=(_op, _t) in UNARY_SIM)
# --- activations (composed from exp, recip, log, abs, compare and select: one definition for every target)
ACTIVATION_OPS = {
    "htp.sigmoid(t)": ["tmuls", "texp", "tadds", "trecip"],
    "htp.silu(t)": ["tmuls", "texp", "tadds", "trecip", "tmul"],
    "htp.tanh(t)": ["tabs", "tmuls", "texp", "tadds", "tdiv", "tcmp"],
    "htp.erf(t)": ["tabs", "tmuls", "tadds", "trecip", "texp", "tmul", "tcmp"],
    "htp.gelu(t)": ["tmuls", "tabs", "tadds", "trecip", "texp", "tmul", "tcmp"],
    "htp.gelu(t, approximate=\"tanh\")": ["tmul", "tmuls", "tadd", "tabs", "texp", "tadds", "tdiv", "tcmp"],
    "htp.softplus(t)": ["tmaxs", "tabs", "tmuls", "texp", "tadds", "tlog", "tadd"],
}
ACTIVATION_SIM = {("htp.sigmoid(t)", "f32"), ("htp.silu(t)", "f16"), ("htp.tanh(t)", "f32"), ("htp.erf(t)", "f32"),
                  ("htp.gelu(t)", "bf16"), ("htp.gelu(t, approximate=\"tanh\")", "f32"), ("htp.softplus(t)", "f16")}
for _op, _ops in ACTIVATION_OPS.items():
    for _t in FLOATS:
        case(f"activation/{_op}/{_t}", pto=lowered(_ops, _t), sim=(_op, _t) in ACTIVATION_SIM)
_ACTIVATION_FLOAT_ONLY = Rejected("htp.sigmoid needs a floating-point tile, got a tile[16x64, i32",
                                  "docs/language.md: activations take float tiles")
case("activation/htp.sigmoid(t)/i32", cpu=_ACTIVATION_FLOAT_ONLY, pto=_ACTIVATION_FLOAT_ONLY)

_FLOAT_ONLY = Rejected("htp.exp needs a floating-point tile, got a tile[16x64, i32",
                       "docs/language.md: exp, log, sqrt, rsqrt, recip take float tiles")
case("unary/htp.exp(t)/i32", cpu=_FLOAT_ONLY, pto=_FLOAT_ONLY)

# --- tile op Python number (the number takes the tile's element type)
NUMBER_OPS = {"t + 2": ["tadds"], "3 - t": ["tneg", "tadds"], "t * 3": ["tmuls"], "max(t, 1)": ["tmaxs"],
              "t ** 2": ["tmul"]}
NUMBER_FLOAT_OPS = {"t * 0.5": ["tmuls"], "t / 4.0": ["tdivs"], "2.0 / t": ["trecip", "tmuls"]}
NUMBER_SIM = {("3 - t", "f32"), ("2.0 / t", "f16"), ("max(t, 1)", "i32")}
for _op, _ops in {**NUMBER_OPS, **NUMBER_FLOAT_OPS}.items():
    for _t in DTYPES if _op in NUMBER_OPS else FLOATS:
        case(f"number/{_op}/{_t}", pto=lowered(_ops, _t), sim=(_op, _t) in NUMBER_SIM)
_FLOAT_LITERAL = Rejected("a float constant cannot take the type i32",
                          "docs/language.md: a float literal with an integer tile is an error")
case("number/t * 0.5/i32", cpu=_FLOAT_LITERAL, pto=_FLOAT_LITERAL)

# --- tile op run-time scalar (of the tile's element type)
SCALAR_OPS = {"t * s": ["tmuls"], "s - t": ["tneg", "tadds"], "t / s": ["tdivs"]}
SCALAR_SIM = {("t * s", "f32"), ("t * s", "f16"), ("s - t", "i32"), ("t / s", "f32")}
for _op, _ops in SCALAR_OPS.items():
    for _t in DTYPES if _op != "t / s" else FLOATS:
        case(f"scalar/{_op}/{_t}", pto=lowered(_ops, _t), sim=(_op, _t) in SCALAR_SIM)

# --- padded and unpadded operands mixed, run-time scalars (`DT` is the case's element type):
# pto-isa's simulator takes one tile type for TADD/TABS, pad value included (issue 18)
MIXED_OPS = {"htp.pad(t, 0) + htp.full((16, 64), 2, DT) * s": ["texpands", "tmuls", "tadd"],
             "htp.pad(t, 0) + htp.pad(u, 0) * s": ["tmuls", "tadd"], "htp.pad(u, 0) * s - htp.pad(t, 0)": ["tmuls", "tsub"],
             "htp.abs(htp.pad(t, 0)) + htp.pad(u, 0)": ["tabs", "tadd"]}
MIXED_SIM = {("htp.pad(t, 0) + htp.full((16, 64), 2, DT) * s", "i32"),
             ("htp.pad(t, 0) + htp.full((16, 64), 2, DT) * s", "i16"), ("htp.pad(t, 0) + htp.pad(u, 0) * s", "f16"),
             ("htp.abs(htp.pad(t, 0)) + htp.pad(u, 0)", "f32")}
for _op, _ops in MIXED_OPS.items():
    for _t in ["i32", "i16", "f32", "f16"]:
        case(f"mixed/{_op}/{_t}", pto=lowered(_ops, _t), sim=(_op, _t) in MIXED_SIM)
_RAGGED_AND_PADDED = Rejected("shape mismatch in '+': valid regions differ (?x64 and 16x64)",
                              "docs/language.md: elementwise operands have one valid region (pad the ragged one)")
case("mixed/t + htp.pad(u, 0)/f32", cpu=_RAGGED_AND_PADDED, pto=_RAGGED_AND_PADDED)

# ===========================================================================
# casts (test_conformance_casts.py): cast/htp.cast(t, <dest>)/<source>
# f32 -> bf16 is not in the simulator set: the a2a3sim kernels built here (clang++ 22 on Debian 12's libgcc)
# do not link __truncsfbf2 ("dlopen failed ... undefined symbol: __truncsfbf2"), a toolchain matter.

CAST_SIM = {("f32", "f16"), ("bf16", "f32"), ("f32", "i32"), ("f16", "i8"), ("i8", "f16"), ("i32", "i16"),
            ("i16", "f32"),
            # chains of TCVTs
            ("i8", "f32"), ("f32", "i8"), ("i16", "i32"), ("i32", "i8"), ("i64", "i16"), ("f16", "i64"), ("i8", "i64")}
for _dst in DTYPES:
    for _src in DTYPES:
        if _src != _dst:
            case(f"cast/htp.cast(t, {_dst})/{_src}", pto=cast_limit(_src, _dst), sim=(_src, _dst) in CAST_SIM)
case("cast/t.astype(f16), .astype(htp.i32)/f32")
# [N,1] tiles in blocks of 8 rows: a column's rows fill 32-byte blocks, 8 f32 but 16 f16 (TCVT
# between tiles of different shapes).
for _src, _dst in [("f16", "f32"), ("f32", "f16"), ("i32", "f32"), ("f32", "i32"), ("i16", "f16"), ("f16", "i16")]:
    case(f"cast/[N,1] blocks of 8, htp.cast(t, {_dst})/{_src}", pto=cast_limit(_src, _dst),
         sim=(_src, _dst) in {("f16", "f32"), ("f32", "f16"), ("i32", "f32")})
for _src, _dst in [("f16", "f32"), ("f32", "f16")]:
    case(f"cast/row_max of 8 rows, htp.cast(t, {_dst})/{_src}", sim=True)

# ===========================================================================
# compare and select (test_conformance_select.py)

COMPARE_OPS = ["a < b", "a <= b", "a > b", "a >= b", "a == b", "a != b"]
COMPARE_SIM = {("a < b", "f32"), ("a > b", "i32"), ("a == b", "i32")}
for _op in COMPARE_OPS:
    for _t in DTYPES if _op in ("a < b", "a == b") else ["f32", "i32"]:
        case(f"compare/{_op}/{_t}", pto=lowered(["tcmp"], _t), sim=(_op, _t) in COMPARE_SIM)
for _t in ["f32", "f16", "i32", "i16"]:
    case(f"compare/t > 1/{_t}", sim=_t == "i16")
    case(f"compare/t <= s/{_t}", sim=_t == "i32")
case("where/scalar branches, full tile/f32", sim=True)
case("where/scalar branches, ragged tile/f32", sim=True)
case("where/broadcast branches/f32", sim=True)
for _t in ["f32", "f16", "i32"]:
    case(f"where/column mask over whole rows, ragged/{_t}", pto=lowered(["tcmp"], _t), sim=_t != "f16")
    case(f"where/row mask over whole columns/{_t}", pto=lowered(["tcmp"], _t), sim=_t == "f16")
case("where/select spelling/f16")
case("where/bool tensor mask/f32", sim=True)
case("where/bool tensor output/f32", sim=True)
case("nan/maximum propagates NaN/f32", sim=True)
case("nan/maximum propagates NaN/f16", sim=True)
case("nan/compare is ordered/f32", sim=True)
for _t in ["i32", "i16", "f32", "f16", "i64", "i8"]:
    for _dim in (0, 1):
        case(f"iota/htp.iota((16, 64), {_dim}, T)/{_t}", pto=lowered(["tci"], _t))
case("iota/row * 64 + col + run-time offset/i32", sim=True)
case("iota/causal mask with htp.where/f32", sim=True)

# ===========================================================================
# reductions (test_conformance_reductions.py)

REDUCE_KINDS = ["sum", "max", "min"]
for _kind in REDUCE_KINDS:
    for _t in DTYPES:
        # the [R,1] result broadcast back (TROW<KIND> + TROWEXPANDSUB)
        case(f"reduce/t - htp.row_{_kind}(t)/{_t}", pto=lowered([f"trow{_kind}", "tsub"], _t),
             sim=(_kind, _t) in {("sum", "f32"), ("max", "f16"), ("min", "i32")})
        # a [1,C] result stored
        # i16/i32 sums and maxima: TTRANS + TROWSUM/TROWMAX (pto-isa's CPU model has no integer TCOLSUM/TCOLMAX)
        case(f"reduce/y[b:b + 1, :] = htp.col_{_kind}(t)/{_t}", pto=lowered([f"tcol{_kind}"], _t),
             sim=(_kind, _t) in {("sum", "f32"), ("max", "f16"), ("sum", "i32"), ("max", "i16")})
for _kind in REDUCE_KINDS:
    for _t in ["f32", "f16", "i32"]:
        case(f"reduce/y[i:i + 16, :] = htp.row_{_kind}(t), y of [N,1]/{_t}", sim=(_kind, _t) == ("sum", "f32"))
case("reduce/htp.row_reduce(t, kind), htp.col_reduce(t, kind)/f32", sim=True)
# blocks of fewer rows than a whole 32-byte block of the [R,1] result: the source is copied into as many rows
for _kind, _rows, _t, _sim in [("sum", 1, "f32", True), ("sum", 3, "i32", False), ("max", 1, "f16", False),
                               ("min", 3, "f32", True), ("max", 5, "i16", False)]:
    case(f"reduce/few rows: t - htp.row_{_kind}(t), {_rows}-row blocks/{_t}", pto=lowered([f"trow{_kind}", "tsub"], _t),
         sim=_sim)
case("reduce/col_sum over ragged rows, carried/f32", sim=True)
case("reduce/row_max over ragged columns, carried/f32", sim=True)
case("reduce/col_max over ragged rows, carried/f16")

# --- selection along rows (docs/language.md, "Selection"): argmax, sort, top-k, gather by column

#: PTO sorts in f32 (TSORT32 + TMRGSORT sort f16/f32): the types that convert to f32 exactly.
_SORT_LIMIT = Limit("PTO sorts f32, f16, bf16, i16 and i8 tiles, not {T}",
                    "A2/A3 TSORT32 and TMRGSORT sort f16 and f32 only (pto-contract.md 2.14); i32 and i64 do not convert to f32 exactly")
_GATHER_LIMIT = Limit("PTO gathers 16- and 32-bit elements (A2/A3's TGATHER), not {T}",
                      "A2/A3 TGATHER takes b16 and b32 elements (pto-contract.md 2.14)")
_SCATTER_LIMIT = Limit("PTO scatters 8-, 16- and 32-bit elements (A2/A3's TSCATTER), not {T}",
                       "A2/A3 TSCATTER takes b8, b16 and b32 elements (pto-isa npu/a2a3/TScatter.hpp)")
_SCATTER_ROWS_LIMIT = Limit("PTO scatters rows of 8-, 16- and 32-bit elements (A2/A3's MSCATTER), not {T}",
                            "A2/A3 MSCATTER copies b8, b16 and b32 rows (pto-isa npu/a2a3/MScatter.hpp)")
for _t in DTYPES:
    case(f"selection/htp.argmax(t, axis=1), htp.row_argmin(t)/{_t}", pto=lowered(["trowargmax"], _t),
         sim=_t in {"f32", "i16"})
    _sorts = _t not in ("i32", "i64")
    for _construct, _sim in [("htp.topk(t, 8)", {"f32", "f16"}), ("htp.sort(t), htp.argsort(t)", {"i16"}),
                             ("htp.sort(t, descending=True)", {"f32"})]:
        case(f"selection/{_construct}/{_t}", pto=RUNS if _sorts else Limit(_SORT_LIMIT.message.format(T=_t), _SORT_LIMIT.why),
             sim=_t in _sim)
    _gathers = _t not in ("i8", "i64")
    case(f"selection/htp.gather(t, index, axis=1)/{_t}",
         pto=RUNS if _gathers else Limit(_GATHER_LIMIT.message.format(T=_t), _GATHER_LIMIT.why), sim=_t in {"f32", "bf16"})
    # htp.scatter (D76): into each row by column (TSCATTER), rows into a tensor (MSCATTER); i64 elements: neither.
    case(f"selection/htp.scatter(t, index, src, axis=1)/{_t}",
         pto=RUNS if _t != "i64" else Limit(_SCATTER_LIMIT.message.format(T=_t), _SCATTER_LIMIT.why),
         sim=_t in {"f32", "f16", "i8"})
    case(f"selection/htp.scatter(y, rows, col, t)/{_t}",
         pto=RUNS if _t != "i64" else Limit(_SCATTER_ROWS_LIMIT.message.format(T=_t), _SCATTER_ROWS_LIMIT.why),
         sim=_t in {"f32", "bf16", "i16"})

# --- shapes of tiles (docs/language.md, "Tile shapes"): blocks, steps, joins, reshapes, strided loads
#: A2/A3 moves vec blocks of 8- to 32-bit elements (TEXTRACT, TINSERT, TCONCAT, TTRANS).
_MOVE_LIMIT = Limit("'pto.textract' op element type 'i64' is not supported on A2/A3",
                    "A2/A3 TEXTRACT/TINSERT/TCONCAT move i8, i16, i32, f16, bf16 and f32 blocks (pto-isa npu/a2a3 "
                    "CheckTExtractVecToVecCommon)")
#: TGATHER's mask patterns pick 16- and 32-bit elements.
_PICK_LIMIT = Limit("PTO picks every n-th column with TGATHER, which moves 16- and 32-bit elements (A2/A3), not {T}",
                    "A2/A3 TGATHER picks b16 and b32 elements (pto-isa npu/a2a3/TGather.hpp)")
SHAPE_SIM = {("t[:, 32:64]", "i16"), ("t[:, 1::2]", "f16"), ("htp.concat([t[:, 32:64], t[:, 0:32]], axis=1)", "i8"),
             ("x[i:i + 16, 0::2]", "i32"), ("htp.concat([t[8:16, :], t[0:8, :]])", "bf16"), ("t.reshape(32, 32)", "i16")}
for _t in DTYPES:
    for _construct, _limit in [("t[:, 32:64]", _t == "i64" and _MOVE_LIMIT),
                               ("t[:, 1::2]", _t in ("i8", "i64") and _PICK_LIMIT),
                               ("htp.concat([t[:, 32:64], t[:, 0:32]], axis=1)", _t == "i64" and _MOVE_LIMIT),
                               ("x[i:i + 16, 0::2]", _t in ("i8", "i64") and _PICK_LIMIT),
                               ("htp.concat([t[8:16, :], t[0:8, :]])", _t == "i64" and _MOVE_LIMIT),
                               ("t.reshape(32, 32)", False)]:
        _pto = Limit(_limit.message.format(T=_t), _limit.why) if _limit else RUNS
        case(f"shape/{_construct}/{_t}", pto=_pto, sim=(_construct, _t) in SHAPE_SIM)

# ===========================================================================
# layouts: pad, ragged tails, 1-D, few rows, broadcasts, copies (test_conformance_layouts.py)

for _value in ["0.0", "htp.inf", "-htp.inf", "1.5", "-3.0"]:
    for _t in FLOATS:
        _pto = RUNS
        _sim = (_value, _t) in {("0.0", "f32"), ("htp.inf", "f32"), ("1.5", "f32"), ("-htp.inf", "f16"),
                                ("htp.inf", "f16")}
        case(f"pad/htp.pad(t, {_value})/{_t}", pto=_pto, sim=_sim)
for _value in ("0", "-3"):
    for _t in ["i32", "i16", "i8"]:
        case(f"pad/htp.pad(t, {_value})/{_t}",
             sim=(_value, _t) in {("0", "i16"), ("-3", "i32")})
case("pad/-inf padding before row_max/f32", sim=True)
# A one-column tile padded with any value (an ignore label's -100, 1.5).
for _value, _t in [("-100.0", "f32"), ("1.5", "f32"), ("1.5", "f16"), ("-100", "i32"), ("7", "i16")]:
    case(f"pad/one column, htp.pad(t, {_value})/{_t}", sim=_t != "i16")
case("pad/htp.pad of a full tile/f32")

for _shape in ["static, exact", "symbolic, exact", "ragged rows", "ragged cols", "ragged both"]:
    case(f"ragged/{_shape}/f32", sim=_shape == "ragged both")
    case(f"ragged/{_shape}/f16", sim=_shape == "ragged cols")
case("ragged/constant start past the end/f32", sim=True)
case("ragged/mismatched valid regions/f32",
     cpu=Rejected("shape mismatch in '+'", "docs/language.md: two tiles combined elementwise must have the same valid region"),
     pto=Rejected("shape mismatch in '+'", "docs/language.md: two tiles combined elementwise must have the same valid region"))
case("ragged/1xC broadcast along ragged rows/f32", sim=True)
case("ragged/Rx1 broadcast along ragged columns/f32", sim=True)
case("ragged/1xC broadcast along a loop-carried ragged tile/f32",
     cpu=Rejected("whose valid size a loop or branch carries", "docs/language.md: pad a ragged tile a loop carries"),
     pto=Rejected("whose valid size a loop or branch carries", "docs/language.md: pad a ragged tile a loop carries"))

for _rows in (1, 2, 4):
    case(f"rows/{_rows}-row tiles: elementwise + row_max/f32", sim=_rows == 1)
    case(f"rows/{_rows}-row tiles: elementwise + row_max/f16")
case("vector1d/exp(x) - 1, ragged/f32", sim=True)
case("vector1d/x * w + 1, 1-D weight/f32")
case("vector1d/1-D weight over 2-D rows/f32")
case("vector1d/i32 + 1/i32")
case("broadcast/[1,C] row vector/f32", sim=True)
case("broadcast/[R,1] column from a tensor/f32", sim=True)
case("broadcast/[R,1] op [1,C] outer/f32", sim=True)
case("broadcast/htp.broadcast explicit/f32")
case("broadcast/htp.broadcast explicit/i16")
case("broadcast/[1,C] row vector/i32")
for _t in DTYPES:
    case(f"copy/load + store/{_t}", sim=_t in ("i64", "bf16"))
case("copy/3-D tensor, one index/f32")
case("copy/InOut in place/f32", sim=True)
case("copy/InOut written in part, never read/f32", sim=True)
case("copy/store a run-time scalar/f32")
case("copy/store one element/f32", sim=True)
case("copy/strided and transposed views in and out/f32")
for _t in ["f32", "i32", "f16"]:
    case(f"make/zeros + ones + full/{_t}", sim=_t == "i32")
case("make/zeros + ones + full/bf16", pto=vector_limit("tadd", "bf16"))
case("make/full of a run-time scalar/i16")
for _t in ["f32", "f16", "i32"]:
    case(f"make/zeros_like + ones_like + full_like of a ragged block/{_t}", sim=_t == "f16")
case("make/zeros_like + ones_like + full_like of a ragged block/bf16", pto=vector_limit("tmul", "bf16"))
case("make/full/i64", pto=vector_limit("texpands", "i64"))
# ===========================================================================
# layouts: htp.relayout (test_conformance_layouts.py)

NOT_HELD = "PTO's vector tiles live in UB row-major (ND) and its cube operands in NZ fractals (docs/language.md, tile layouts)"
for _t in DTYPES:
    case(f"layout/row_major, ragged rows/{_t}", pto=lowered(["tmul", "tadd"], _t), sim=_t in ("f32", "f16", "i32"))
    case(f"layout/col_major/{_t}", pto=Limit("the layout 'col_major' is not available on target", NOT_HELD))
case("layout/nz matmul operands, relaid back for vector work/f16", sim=True)
case("layout/nz tile in vector work/f16", pto=Limit("an NZ tile lives in the cube's L1/L0 on PTO", NOT_HELD))
# Tensors in Fortran order: htp.Tensor[..., htp.layout("col_major")]
GM_ROW_MAJOR = "PTO addresses GM tensors row-major (docs/language.md, Fortran-order tensors)"
for _t in DTYPES:
    case(f"tensor_layout/col_major in and out/{_t}",
         pto=Limit("the layout 'col_major' is not available on target", GM_ROW_MAJOR))
case("tensor_layout/col_major matmul operand/f32", pto=Limit("the layout 'col_major' is not available on target", GM_ROW_MAJOR))
# The outer loop over cores: htp.range(..., grain=G) / parallel=False (test_conformance_control.py)
for _t in ["f32", "i32", "f16"]:
    case(f"distribute/grain=3/{_t}", sim=_t == "f32")
    case(f"distribute/parallel=False/{_t}", sim=_t == "f32")
_DEPENDENT = Rejected("asks to distribute this loop over cores, but its iterations are not independent",
                      "a grain distributes a loop; its iterations must be independent (docs/language.md)")
case("distribute/grain on a dependent loop/f32", cpu=_DEPENDENT, pto=_DEPENDENT)

case("transpose/of a loaded tile/f32", sim=True)
case("transpose/of a computed tile/f32")
for _t in ["f32", "f16", "i8", "i16", "i32"]:
    case(f"transpose/ragged, in tiles/{_t}", sim=_t in ("f32", "f16", "i8"))
    case(f"transpose/row and column vectors/{_t}", pto=lowered(["trowmax"], _t), sim=_t in ("f32", "i16"))
for _t in ["f32", "f16", "i32"]:
    case(f"column/[R,1] loads and stores on row-major tensors/{_t}", pto=lowered(["trowsum", "tadd"], _t),
         sim=_t in ("f32", "i32"))
_UB = "is larger than the vector core's buffer (UB: 188416 usable bytes on A2/A3)"
case("capacity/one tile larger than UB/f32",
     pto=Limit(_UB, "A2/A3 UB is 192 KB, 188416 usable (docs/targets/pto.md section 2, pto-contract.md 3)"))
case("capacity/live tiles exceed UB/f32",
     pto=Limit("A2/A3 has 188416 usable bytes",
               "A2/A3 UB is 192 KB, 188416 usable (docs/targets/pto.md section 2, pto-contract.md 3)"))

# ===========================================================================
# matmul (test_conformance_matmul.py): matmul/<operands -> result>/<shape>

MATMUL_TYPES = ["f16->f32", "f32->f32", "bf16->f32", "i8->i32"]
for _types in MATMUL_TYPES:
    for _shape in ["64x64x64", "100x70x50"]:
        case(f"matmul/{_types}/{_shape}", sim=_shape == "100x70x50" and _types != "bf16->f32")
case("matmul/f16->f16 (dtype=f16)/32x32x64", sim=True)
case("matmul/f16->f32, cast to f16/32x32x64", sim=True)
_I16_MATMUL = Rejected("matmul of i16 tiles into i16 is not supported",
                       "docs/language.md: matmul takes f16, bf16, f32 or i8 operands")
case("matmul/i16->i16/32x32x64", cpu=_I16_MATMUL, pto=_I16_MATMUL)
for _types in ["f16->f32", "f32->f32", "bf16->f32"]:
    case(f"matmul_nt/{_types}/x @ w.T", sim=_types == "f16->f32")
for _rows in (1, 2, 4):
    case(f"few_rows/{_rows} row{'s' if _rows > 1 else ''} in a 16-row tile/f16->f32")
    case(f"few_rows/{_rows}-row tiles/f16->f32", sim=_rows == 2)
case("few_rows/1-row tile, x @ w.T/f32->f32", sim=True)
for _form in ["acc += a @ b", "acc = acc + a @ b", "acc = a @ b + acc", "htp.dot(a, b, acc)",
              "htp.matmul(a, b, acc=acc)"]:
    case(f"accumulate/{_form}/f16->f32")
case("epilogue/bias + relu/f16->f32", sim=True)
case("epilogue/swiglu gate/f16->f32", sim=True)
case("epilogue/scale by a run-time scalar/f32->f32", sim=True)
case("epilogue/bias + relu after a K loop/f16->f32", sim=True)
case("epilogue/swiglu after a K loop, two accumulators/f16->f16", sim=True)
case("epilogue/f16 result, then vector work/f16->f16", sim=True)
case("epilogue/operand made by vector work, 4 rows/f16->f32", sim=True)
case("epilogue/relu, operands not whole fractals/f16->f32", sim=True)
case("batched/3-D operands/f16->f32", sim=True)
case("batched/3-D, shared weight/f32->f32")

# ===========================================================================
# control flow, calls, scalars (test_conformance_control.py)

case("loop/static_range unrolled/f32")
case("loop/loop-carried tile/f32")
case("loop/loop-carried scalar/f32")
case("loop/run-time bounds and step/f32", sim=True)
case("loop/nested, 2-D tiling/f32")
case("if/constant condition/f32")
case("if/run-time, static valid size/f32", sim=True)
case("if/run-time, ragged tile/f32", sim=True)
case("if/run-time, ragged, a tile and a column/f32", sim=True)
case("if/run-time scalar result/f32")
case("call/kernel calls kernel/f32", sim=True)
case("call/helper returns a tuple/f32")
case("call/helper with a constant parameter/f32")
case("call/helper on ragged tiles/f16")
case("call/user AST mutator/f32")
case("const/int, float and bool constants/f32", sim=True)
case("int_scalar/floordiv and mod, negatives/i32", sim=True)
case("int_scalar/floordiv and mod, negatives/i64")
case("int_scalar/constant folding, negatives/i32")
case("int_scalar/loop index arithmetic/i32")
case("scalar_values/conversions and builtins/f32", sim=True)
case("scalar_values/f32 arithmetic/f32")
# Statements continued over lines: each source line reaches the kernel C++ as a comment (issue 18)
case("source/backslash/f32", sim=True)
case("source/backslash/i32")
case("source/parentheses/f32")
case("source/comment ending in a backslash/f32", sim=True)
case("source/parameters named new, Tile, args/f32", sim=True)
case("source/parameters named new, Tile, args/i32")

# ===========================================================================
# programs (test_conformance_programs.py)

for _name in ["softmax", "log_softmax", "layernorm", "rmsnorm"]:
    case(f"program/{_name}, 64-column tiles/f32", sim=True)
case("program/softmax, 64-column tiles/f16")
case("program/decode attention, run-time KV length/f16->f32", sim=True)
case("program/decode attention, run-time KV length/f32")
case("program/mlp block/f16->f32", sim=True)
case("program/embedding gather + rmsnorm/f32", sim=True)

# ===========================================================================
# AIE: the npu1 design run by aie-sim (docs/targets/aie.md). A kernel that is one loop over
# independent row blocks has them dealt to the cores; any other runs whole on one core. The
# numbers come from the same cpu lowering of the block, so what runs matches numpy as the cpu
# does; the rest is a core's memory, a core's DMA channels or a gap of HTP's AIE targets.

_AIE_CORE = "an AIE2 compute tile has 64 KiB of data memory for its FIFO objects and stack (docs/targets/aie.md)"
_AIE_PER_BATCH_STREAM = Gap("a batch's K and V read over a loop with a run-time bound (decode attention): the AIE targets "
                            "hold them whole in every core instead of streaming the batch's rows over the loop",
                            "is read whole by every block, so every core holds it", shows="run")

#: Cases whose aie-sim outcome is not RUNS.
AIE_OUTCOMES = {
    **dict.fromkeys([
        'program/decode attention, run-time KV length/f16->f32',
        'program/decode attention, run-time KV length/f32',
    ], _AIE_PER_BATCH_STREAM),
    "capacity/one tile larger than UB/f32": Limit("each core would hold 1048576 bytes of FIFO objects", _AIE_CORE, at="for i in"),
    "capacity/live tiles exceed UB/f32": Limit("each core would hold 786432 bytes of FIFO objects", _AIE_CORE, at="for i in"),
    "selection/htp.sort(t), htp.argsort(t)/i32": Limit("a stack of 41984 bytes (its temporaries), more than a compute tile's 65536 bytes",
                                                       _AIE_CORE, at="for i in"),
    # i64 elements are word pairs: a 16 x 64 block of them and the sort's temporaries do not fit.
    "selection/htp.sort(t), htp.argsort(t)/i64": Limit("each core would hold 40960 bytes of FIFO objects and a stack of 50176 bytes",
                                                       _AIE_CORE, at="for i in"),
    "selection/htp.sort(t, descending=True)/i64": Limit("each core would hold 32768 bytes of FIFO objects and a stack of 50176 bytes",
                                                        _AIE_CORE, at="for i in"),
    "selection/htp.topk(t, 8)/i64": Limit("each core would hold 19456 bytes of FIFO objects and a stack of 50176 bytes",
                                          _AIE_CORE, at="for i in"),
    "program/log_softmax, 64-column tiles/f32": Limit("each core would hold 51200 bytes of FIFO objects and a stack of 17664 bytes",
                                                      _AIE_CORE, at="for i in", at_call=True),
    "program/layernorm, 64-column tiles/f32": Limit("each core would hold 52928 bytes of FIFO objects and a stack of 14080 bytes",
                                                    _AIE_CORE, at="for i in", at_call=True),
    "program/rmsnorm, 64-column tiles/f32": Limit("each core would hold 83264 bytes of FIFO objects", _AIE_CORE, at="for i in"),
    "binary/htp.add, sub, mul, div; max(), min()/f32": Limit("each core would hold 65536 bytes of FIFO objects", _AIE_CORE, at="for i in"),
    "loop/run-time bounds and step/f32": Limit("the kernel's tensors, whole on one core, take 69132 bytes", _AIE_CORE,
                                               at="@htp.kernel", at_call=True),
    "ragged/constant start past the end/f32": Limit("the kernel's tensors, whole on one core, take 76800 bytes", _AIE_CORE,
                                                    at="@htp.kernel"),
}


def _aie_outcome(case_id: str, row: Row):
    """The aie-sim outcome of a case: the language's own rejections as on every target, nothing
    where the cpu has no reference, else AIE_OUTCOMES or RUNS."""
    if isinstance(row.cpu, Rejected):
        return row.cpu
    if isinstance(row.cpu, (Gap, Wrong)):
        return None
    return AIE_OUTCOMES.get(case_id, RUNS)


for _case, _row in list(MATRIX.items()):
    MATRIX[_case] = dataclasses.replace(_row, aie=_aie_outcome(_case, _row))
assert set(AIE_OUTCOMES) <= set(MATRIX), set(AIE_OUTCOMES) - set(MATRIX)

# ===========================================================================
# Rendering docs/support-matrix.md

THEMES = {
    "binary": "Elementwise: tile op tile (test_conformance_elementwise.py)",
    "unary": "Elementwise: unary functions",
    "activation": "Activations and special functions (composed: one definition for every target)",
    "number": "Elementwise: tile op Python number (the number takes the tile's type)",
    "scalar": "Elementwise: tile op run-time scalar `s` of the tile's type",
    "mixed": "Elementwise: padded and unpadded operands, run-time scalars `s` (`DT`: the tile's type)",
    "cast": "Casts: `htp.cast(t, <row>)` from `<column>` (test_conformance_casts.py)",
    "compare": "Compare and select: `htp.where(<mask>, a, b)` (test_conformance_select.py)",
    "where": "`htp.where` / `htp.select` forms",
    "nan": "NaN rules",
    "iota": "`htp.iota`",
    "reduce": "Reductions (test_conformance_reductions.py)",
    "selection": "Selection along rows: argmax, sort, top-k, gather and scatter by column, scatter of rows (test_conformance_reductions.py)",
    "shape": "Tile shapes: blocks, steps, joins, reshapes; tensor slices with a step (test_conformance_shapes.py)",
    "pad": "`htp.pad` of a tile ragged in rows and columns (test_conformance_layouts.py)",
    "ragged": "Ragged tails: `a * b + a` over 16 x 64 tiles",
    "rows": "Tiles of few rows",
    "vector1d": "1-D tensors",
    "broadcast": "Broadcasts",
    "copy": "Loads and stores",
    "make": "Tiles from scalars",
    "transpose": "Transposes",
    "layout": "Tile layouts: `htp.relayout(t, <facet>)`",
    "tensor_layout": "Tensor layouts: `htp.Tensor[..., htp.layout(\"col_major\")]`",
    "distribute": "The outer loop over cores: `htp.range(..., grain=G)`, `parallel=False`",
    "column": "One-column tiles and row-major tensors",
    "capacity": "On-chip capacity",
    "matmul": "Matmul: tiled GEMM, rows = operands -> result, columns = M x N x K (test_conformance_matmul.py)",
    "matmul_nt": "Matmul: `x @ w.T`",
    "few_rows": "Matmul: operands of few rows",
    "accumulate": "Matmul: accumulation spellings",
    "epilogue": "Matmul: epilogues in the same loop",
    "batched": "Matmul: batched over 3-D tensors",
    "loop": "Loops (test_conformance_control.py)",
    "if": "Branches",
    "call": "Calls",
    "const": "Compile-time constants",
    "int_scalar": "Integer scalar arithmetic",
    "scalar_values": "Scalar values",
    "source": "User text in the generated C++: statements continued over lines, parameter names",
    "program": "Programs (test_conformance_programs.py)",
}
SYMBOLS = {Runs: "✓", Limit: "L", Rejected: "E", Gap: "G", Wrong: "W"}
BEGIN, END = "<!-- BEGIN GENERATED: python3 python/tests/conformance.py -->", "<!-- END GENERATED -->"
DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "support-matrix.md")
_TYPE = r"(?:f32|f16|bf16|i64|i32|i16|i8)"


def _note_key(outcome):
    """Limits are grouped by the documented fact; the rest by outcome."""
    return (Limit, outcome.why) if isinstance(outcome, Limit) else outcome


def _merge_messages(messages):
    """'... 'bf16' ...' and '... 'i8' ...' -> '... '{bf16|i8}' ...'."""
    pattern = re.compile(rf"(?<=')({_TYPE})(?=')|(?<=not )({_TYPE})\b")
    groups = {}
    for message in messages:
        shape = pattern.sub("\0", message)
        values = [m.group(0) for m in pattern.finditer(message)]
        groups.setdefault(shape, []).append(values)
    merged = []
    for shape, variants in groups.items():
        pieces = shape.split("\0")
        text = pieces[0]
        for index, piece in enumerate(pieces[1:]):
            options = list(dict.fromkeys(v[index] for v in variants))
            text += (options[0] if len(options) == 1 else "{" + "|".join(options) + "}") + piece
        merged.append(f"`{text}`")
    return "; ".join(merged)


def render() -> str:
    """The generated part of docs/support-matrix.md."""
    notes = {}  # note key -> (number, [outcomes])

    def cell(outcome):
        if outcome is None:
            return "·"
        if isinstance(outcome, Runs):
            return "✓"
        key = _note_key(outcome)
        if key not in notes:
            notes[key] = (len(notes) + 1, [])
        notes[key][1].append(outcome)
        return f"{SYMBOLS[type(outcome)]}{notes[key][0]}"

    out = []
    themes = {}
    for case_id, row in MATRIX.items():
        theme, construct, dtype = split(case_id)
        themes.setdefault(theme, {}).setdefault(construct, {})[dtype] = row
    for theme, constructs in themes.items():
        columns = []
        for per_dtype in constructs.values():
            for dtype in per_dtype:
                if dtype not in columns:
                    columns.append(dtype)
        order = DTYPES + columns  # element types in their usual order, other columns as they come
        columns.sort(key=order.index)
        out.append(f"### {THEMES[theme]}\n")
        out.append("| | " + " | ".join(f"`{col}`" for col in columns) + " |")
        out.append("|---|" + "---|" * len(columns))
        for construct, per_dtype in constructs.items():
            cells = []
            for dtype in columns:
                row = per_dtype.get(dtype)
                if row is None:
                    cells.append("")
                elif row.pto is RUNS:
                    cells.append(f"{cell(row.cpu)} {cell(row.pto)} {cell(row.sim)} / {cell(row.aie)}")
                else:
                    cells.append(f"{cell(row.cpu)} {cell(row.pto)} / {cell(row.aie)}")
            name = construct.replace("|", "\\|")
            out.append(f"| `{name}` | " + " | ".join(cells) + " |")
        out.append("")
    out.append("### Notes\n")
    for key, (number, outcomes) in notes.items():
        first = outcomes[0]
        if isinstance(first, Limit):
            messages = _merge_messages(dict.fromkeys(o.message for o in outcomes))
            out.append(f"- **L{number}** hardware limit: {first.why}. Diagnostic: {messages}.")
        elif isinstance(first, Rejected):
            out.append(f"- **E{number}** rejected on every target ({first.why}): `{first.message}`.")
        elif isinstance(first, Gap):
            code = f"`` {first.message} ``" if "`" in first.message else f"`{first.message}`"
            said = f" Today: {code}." if first.message else ""
            out.append(f"- **G{number}** HTP gap: {first.what}.{said}")
        else:
            out.append(f"- **W{number}** WRONG RESULT: {first.what}.")
    counts = {}
    for row in MATRIX.values():
        for mode in MODES:
            outcome = row.outcome(mode)
            if outcome is not None:
                name = {"Runs": "runs", "Limit": "hardware limit", "Rejected": "rejected", "Gap": "HTP gap",
                        "Wrong": "WRONG RESULT"}[type(outcome).__name__]
                counts[name] = counts.get(name, 0) + 1
    out.append("")
    out.append(f"{len(MATRIX)} cases, {sum(counts.values())} case x mode checks: "
               + ", ".join(f"{v} {k}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])) + ".")
    return "\n".join(out) + "\n"


def write_doc(path: str = DOC):
    text = open(path, encoding="utf-8").read()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(head + BEGIN + "\n\n" + render() + "\n" + END + tail)


if __name__ == "__main__":
    write_doc()
    print(f"wrote the generated part of {os.path.normpath(DOC)}")
