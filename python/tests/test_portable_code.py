"""The code HTP JIT-compiles calls no library function the platform lacks.

Every conformance case that runs on the cpu and every example kernel is
compiled; its LLVM dialect module (`CompiledKernel.ir["llvm"]`) is
translated to LLVM IR and compiled to an object for the baseline x86-64
processor (no AVX512-BF16: where bf16 conversions would be library calls),
and each function the object calls from outside must be one that Debian
12's libc, libm or libgcc export (`data/debian12-runtime-symbols.txt`), or
one HTP's JIT runtime defines itself. A machine with newer runtime libraries
would resolve more: this is what keeps the README's platform the one the
code is checked against (issue: `__truncsfbf2`, which only GCC 13+'s libgcc
has). Skipped, visibly, without LLVM 22's `mlir-translate`, `llc` and
`llvm-nm` (scripts/setup installs them)."""

import concurrent.futures
import hashlib
import os
import pathlib
import re
import subprocess
import tempfile

import pytest

import conformance as c
import htp
from conftest import EXAMPLES, load_example

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
LLVM_BIN = pathlib.Path(os.environ.get("HTP_LLVM_PREFIX", "/usr/lib/llvm-22")) / "bin"
TOOLS = {name: LLVM_BIN / name for name in ("mlir-translate", "llc", "llvm-nm")}
MISSING = [str(path) for path in TOOLS.values() if not path.exists()]
needs_llvm_tools = pytest.mark.skipif(bool(MISSING), reason=f"LLVM 22 tools not found: {', '.join(MISSING)}")

#: Functions HTP's JIT runtime gives every engine (lib/htp-backend-cpu/src/runtime.rs and tile_buffers.rs,
#: lib/htp-pass/src/jit.rs).
ALLOCATION = {"_mlir_memref_to_llvm_alloc", "_mlir_memref_to_llvm_aligned_alloc", "_mlir_memref_to_llvm_free"}
HTP_RUNTIME = {"memrefCopy", "htpRuntimeError", "htpRuntimeInterrupted", "__truncsfbf2", "__truncdfbf2"} | ALLOCATION


def platform_symbols():
    lines = (HERE / "data" / "debian12-runtime-symbols.txt").read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def external_calls(llvm_dialect: str, directory: str):
    """The undefined symbols of `llvm_dialect` compiled for the baseline x86-64."""
    digest = hashlib.sha256(llvm_dialect.encode()).hexdigest()[:16]
    source, obj = os.path.join(directory, f"{digest}.mlir"), os.path.join(directory, f"{digest}.o")
    with open(source, "w") as handle:
        handle.write(llvm_dialect)
    ir = subprocess.run([str(TOOLS["mlir-translate"]), "--allow-unregistered-dialect", "--mlir-to-llvmir", source],
                        capture_output=True, text=True, check=True).stdout
    subprocess.run([str(TOOLS["llc"]), "-O2", "-mtriple=x86_64-unknown-linux-gnu", "-mcpu=x86-64", "-filetype=obj", "-o", obj],
                   input=ir, capture_output=True, text=True, check=True)
    names = subprocess.run([str(TOOLS["llvm-nm"]), "--undefined-only", "--format=just-symbols", obj],
                           capture_output=True, text=True, check=True).stdout.split()
    return set(names)


def conformance_modules():
    """(case, LLVM dialect) of every conformance case the cpu runs, made by
    the cases' own test functions in the `cpu` mode."""
    c.LLVM_MODULES = []
    try:
        c.run_every_case("cpu")
        return c.LLVM_MODULES
    finally:
        c.LLVM_MODULES = None


def example_modules():
    found = []
    for path in sorted(EXAMPLES.glob("*.py")):
        module = load_example(path.stem)
        for name, kernel in vars(module).items():
            if isinstance(kernel, htp.Kernel):
                found.append((f"{path.name}:{name}", kernel.compile("cpu").ir["llvm"]))
    return found


def assert_portable(modules):
    allowed = platform_symbols() | HTP_RUNTIME
    unique = {}
    for label, text in modules:
        unique.setdefault(text, label)
    with tempfile.TemporaryDirectory(prefix="htp-portable-") as directory:
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            calls = dict(zip(unique.values(), pool.map(lambda text: external_calls(text, directory), unique)))
    bad = {label: sorted(names - allowed) for label, names in calls.items() if names - allowed}
    report = "\n".join(f"  {label}: {', '.join(names)}" for label, names in sorted(bad.items()))
    assert not bad, f"{len(bad)} of {len(calls)} kernels call functions Debian 12's runtime libraries lack:\n{report}"
    return calls


@needs_llvm_tools
def test_every_conformance_kernel_calls_only_the_platforms_functions():
    modules = conformance_modules()
    assert len(modules) > 300, f"only {len(modules)} conformance kernels"
    calls = assert_portable(modules)
    # The check sees the runtime's calls at all: the kernels free what they allocate.
    assert any("_mlir_memref_to_llvm_free" in names for names in calls.values())


@needs_llvm_tools
def test_every_example_kernel_calls_only_the_platforms_functions():
    assert_portable(example_modules())


@needs_llvm_tools
def test_the_check_finds_a_call_the_platform_lacks():
    """What the baseline processor makes of an f32 -> bf16 rounding left to LLVM: the library call
    that failed on Debian 12 (HTP's own lowering leaves none)."""
    text = ("llvm.func @f(%x: f32) -> bf16 {\n  %y = llvm.fptrunc %x : f32 to bf16\n  llvm.return %y : bf16\n}\n")
    with tempfile.TemporaryDirectory() as directory:
        names = external_calls(text, directory)
    assert "__truncsfbf2" in names and "__truncsfbf2" not in platform_symbols()


def test_the_cpu_lowers_bf16_inline():
    """The cpu's own code for bf16 casts and arithmetic, at the processor's baseline, has no call of
    a bf16 conversion (HTP's runtime defines them all the same, for what LLVM may still call)."""
    @htp.kernel
    def bf16_mix(x: htp.Tensor[htp.f32, "N", 64], w: htp.Tensor[htp.bf16, "N", 64], y: htp.Out[htp.bf16, "N", 64]):
        for i in range(0, x.shape[0], 16):
            t = htp.cast(x[i:i + 16, :], htp.bf16)
            y[i:i + 16, :] = htp.exp(t + w[i:i + 16, :]) * t
    text = bf16_mix.compile("cpu").ir["llvm"]
    assert "bf16" in text
    assert not re.search(r"llvm\.fptrunc .* to (bf16|vector<\d+xbf16>)", text), text
