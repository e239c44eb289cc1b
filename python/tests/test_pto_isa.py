"""Every PTO kernel HTP writes compiles against the pinned PTO-ISA.

Four sets of kernels, each packaged for `pto-a2a3sim` (the `pto-a2a3`
kernels are the same C++ but for two comments) and parsed by the
simulator's compiler with pto-runtime's flags, syntax only
(`htp.pto.isa_check`): every conformance case that packages, every example
(with the constants its tests use), the kernels of WSP workloads' packages
(and of a kernel emitted as outlined parts) and a corpus of fuzz programs
(`python/fuzz/gen.py`, fixed seeds). Skipped, visibly, without
`HTP_PTO_ISA_ROOT`, `g++-15` or pto-runtime. `HTP_PTO_ISA_FUZZ=N` sets the
number of fuzz programs (default 300)."""

import importlib.util
import os
import pathlib
import sys
import tempfile
import warnings

import pytest

import conformance as c
import htp
from conftest import EXAMPLES, load_example
from htp.pto import isa_check

HERE = pathlib.Path(__file__).resolve().parent
FUZZ = HERE.parent / "fuzz"
MODE = f"{c.SIMULATOR}:package"

needs_pto_isa = pytest.mark.skipif(isa_check.problem() is not None, reason=f"PTO-ISA check not available ({isa_check.problem()})")

#: Constants the example tests compile each example with (the default when absent).
EXAMPLE_CONSTANTS = {"flash_attention": [{"CAUSAL": False}, {"CAUSAL": True}], "rmsnorm": [{"H": 256}, {"H": 512}, {"H": 1024}]}


def conformance_kernels():
    """The kernels of every conformance case MATRIX expects to package, made
    by the cases' own test functions in the `pto-a2a3sim:package` mode."""
    c.PACKAGES = []
    try:
        c.run_every_case(MODE)
        packages = c.PACKAGES
    finally:
        c.PACKAGES = None
    assert len(packages) > 300, f"only {len(packages)} conformance packages"
    return [k for case, files in packages for k in isa_check.kernels_of(files, case)]


def example_kernels():
    kernels = []
    for path in sorted(EXAMPLES.glob("*.py")):
        module = load_example(path.stem)
        for name, kernel in vars(module).items():
            if not isinstance(kernel, htp.Kernel):
                continue
            for constants in EXAMPLE_CONSTANTS.get(name, [{}]):
                files = kernel.compile(c.SIMULATOR, **constants).files
                label = f"{path.name}:{name}" + "".join(f",{k}={v}" for k, v in constants.items())
                kernels.extend(isa_check.kernels_of(files, label))
    assert kernels
    return kernels


def workload_kernels():
    """The kernels of WSP workloads' packages (issue 26: the check covered kernels called alone
    only): the wsp examples, test_wsp_pto's programs, and a kernel large enough to be emitted as
    outlined parts (test_pto_large_kernels)."""
    import test_pto_large_kernels
    import test_wsp_pto

    kernels = []
    for name in ["split_kv_decode", "moe", "lightning_indexer"]:
        workload = getattr(test_wsp_pto.load_wsp_example(name), name)
        kernels.extend(isa_check.kernels_of(workload.compile(target=c.SIMULATOR).files, f"wsp/{name}.py:{name}"))
    for name, program in sorted(test_wsp_pto.PROGRAMS.items()):
        kernels.extend(isa_check.kernels_of(program.compile(target=c.SIMULATOR).files, f"test_wsp_pto.py:{name}"))
    directory = pathlib.Path(tempfile.mkdtemp(prefix="htp-isa-large-"))
    for k in (16, 37):
        kernel = test_pto_large_kernels.top_k_kernel(directory, k)
        kernels.extend(isa_check.kernels_of(kernel.compile(c.SIMULATOR).files, f"top-{k} selection (outlined parts)"))
    return kernels


def fuzz_kernels(count: int):
    """The kernels of the generated programs (seeds 0..count-1, the `pto`
    profile: no deliberate mistakes or text mutations) that package for
    pto-a2a3sim; the others are refused with a located diagnostic, which the
    fuzzer itself checks."""
    sys.path.insert(0, str(FUZZ))
    try:
        # `gen` and the `gen_ref` it imports when it first makes a reference program.
        import gen
        import gen_ref  # noqa: F401
    finally:
        sys.path.remove(str(FUZZ))
    directory = pathlib.Path(tempfile.mkdtemp(prefix="htp-isa-fuzz-"))
    kernels, packaged = [], 0
    for seed in range(count):
        source, _ = gen.generate(seed, mutate_p=0.0, profile="pto")
        path = directory / f"case{seed}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(f"htp_isa_fuzz_{seed}", path)
        module = importlib.util.module_from_spec(spec)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                spec.loader.exec_module(module)
                files = module.__fuzz_compile__(c.SIMULATOR).files
        except Exception:  # noqa: BLE001 - a refusal; the fuzzer checks those
            continue
        packaged += 1
        kernels.extend(isa_check.kernels_of(files, f"fuzz seed {seed}"))
    assert packaged >= count // 10, f"only {packaged} of {count} fuzz programs package"
    return kernels


def assert_compile(kernels):
    failures = isa_check.check(kernels)
    report = "\n\n".join(f"{label}:\n{errors}" for label, errors in sorted(failures.items()))
    assert not failures, f"{len(failures)} of {len(kernels)} kernels do not compile against PTO-ISA:\n{report}"


@needs_pto_isa
@pytest.mark.parametrize("corpus", ["conformance", "examples", "workloads", "fuzz"], ids=lambda corpus: f"{c.SIMULATOR}-{corpus}")
def test_every_kernel_compiles_against_pto_isa(corpus):
    kernels = {
        "conformance": conformance_kernels,
        "examples": example_kernels,
        "workloads": workload_kernels,
        "fuzz": lambda: fuzz_kernels(int(os.environ.get("HTP_PTO_ISA_FUZZ", "300"))),
    }[corpus]()
    print(f"{len(kernels)} {corpus} kernels ({len({k.source for k in kernels})} distinct)")
    assert_compile(kernels)
