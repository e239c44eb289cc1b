"""Check that HTP's PTO kernels compile against PTO-ISA, without running them.

The simulator's kernel compiler (``g++-15``, as pto-runtime's a2a3sim uses
it) parses each kernel C++ with pto-runtime's own flags for its core type
(``simpler_setup``'s ``KernelCompiler``: ``-std=c++23 -D__CPU_SIM
-D__DAV_VEC__`` ...) and include directories, plus ``-fsyntax-only``: every
template PTO-ISA instantiates for the kernel is checked (tile types,
instruction overloads), no object is written.

Parsing PTO-ISA's headers costs about two seconds per translation unit, so
kernels are checked in batches: many kernels in one translation unit (each
``kernel_entry`` renamed by a macro, a ``#line`` directive naming it), the
batches compiled in parallel, at most one compiler per core. A batch that
fails is checked again without the kernels its errors name (each of those
alone), or in halves when its errors name none.
Kernels that compiled are remembered (content-addressed, with the compiler's
and the headers' identity) so an unchanged kernel is not parsed again.

Environment: ``HTP_PTO_ISA_ROOT`` (a PTO-ISA checkout), ``g++-15`` on
``PATH``, pto-runtime (``simpler``) importable — the same as
:mod:`htp.pto.runtime` needs to run a package; ``HTP_PTO_ISA_JOBS`` bounds
the parallel compilers (default: the cores this process may use);
``HTP_PTO_ISA_CACHE`` is the directory of remembered results (default
``<tmp>/htp-pto-isa-<uid>/compiled``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from . import runtime

__all__ = ["Kernel", "problem", "kernels_of", "check"]

COMPILER = "g++-15"
PLATFORM = "a2a3sim"
#: Kernels per translation unit at most (each adds a fraction of a second to
#: the headers' two seconds, and memory).
BATCH = 48


@dataclass(frozen=True)
class Kernel:
    """One kernel source: ``label`` names it in failures (a case id and the
    package path), ``core_type`` is pto-runtime's (``aiv``/``aic``)."""

    label: str
    core_type: str
    source: str


def problem() -> str | None:
    """Why kernels cannot be compiled against PTO-ISA here, or None."""
    root = os.environ.get("HTP_PTO_ISA_ROOT")
    if not root:
        return "HTP_PTO_ISA_ROOT is not set"
    if not (Path(root) / "include" / "pto" / "pto-inst.hpp").is_file():
        return f"HTP_PTO_ISA_ROOT={root} has no include/pto/pto-inst.hpp"
    if shutil.which(COMPILER) is None:
        return f"`{COMPILER}` (the simulator's kernel compiler) is not on PATH"
    try:
        runtime._import_simpler()
    except ImportError as e:
        return f"pto-runtime (simpler) is not importable ({e}): its kernel flags and headers are needed"
    return None


def kernels_of(files: dict, label: str) -> list:
    """The kernels of a compiled package (``htp.Compiled.files``)."""
    manifest = json.loads(files["manifest.json"])
    return [Kernel(f"{label}/{entry['source']}", entry["core_type"], files[entry["source"]]) for entry in manifest["kernels"]]


@dataclass(frozen=True)
class _Command:
    argv: tuple
    identity: str


def _command(core_type: str) -> _Command:
    from simpler_setup.kernel_compiler import KernelCompiler

    kc = KernelCompiler(platform=PLATFORM)
    flags = [f for f in kc.gxx15.get_compile_flags(core_type=core_type) if f != "-shared"]
    root = os.environ["HTP_PTO_ISA_ROOT"]
    includes = [str(d) for d in runtime.kernel_include_dirs(kc, root, "tensormap_and_ringbuffer")]
    version = subprocess.run([kc.gxx15.cxx_path, "--version"], capture_output=True, text=True).stdout
    # Every error of a batch, not the first 20: they say which kernels fail.
    unlimited = "-ferror-limit=0" if "clang" in version else "-fmax-errors=0"
    argv = (kc.gxx15.cxx_path, "-fsyntax-only", unlimited, *flags, *(f"-I{d}" for d in includes), "-x", "c++")
    wrapper = Path(shutil.which(kc.gxx15.cxx_path) or kc.gxx15.cxx_path)
    headers = sorted(_header_stamps(includes))
    identity = json.dumps([argv, version, wrapper.read_bytes().hex() if wrapper.is_file() else "", headers])
    return _Command(argv, hashlib.sha256(identity.encode()).hexdigest())


def _header_stamps(includes):
    """(path, size, mtime) of every file under the include directories: a
    changed header makes every remembered result stale."""
    for directory in includes:
        for dirpath, _, names in os.walk(directory):
            for name in names:
                path = os.path.join(dirpath, name)
                try:
                    stat = os.stat(path)
                except OSError:
                    continue
                yield (path, stat.st_size, stat.st_mtime_ns)


def _cache_dir() -> Path:
    uid = os.getuid() if hasattr(os, "getuid") else 0
    path = Path(os.environ.get("HTP_PTO_ISA_CACHE") or Path(tempfile.gettempdir()) / f"htp-pto-isa-{uid}" / "compiled")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _key(command: _Command, source: str) -> str:
    return hashlib.sha256((command.identity + "\0" + source).encode()).hexdigest()


def _line_label(label: str) -> str:
    """`label` as the file name of a `#line` directive (no quote, backslash or line break)."""
    return re.sub(r'["\\\r\n]', "_", label)


def _unit(kernels) -> str:
    parts = []
    for index, kernel in enumerate(kernels):
        parts.append(f"#define kernel_entry htp_isa_check_kernel_{index}\n")
        parts.append(f'#line 1 "{_line_label(kernel.label)}"\n')
        # A blank line after the kernel: its last line cannot splice into the #undef. A large
        # kernel's outlined parts (`static ... kernel_part_N`) are renamed too: one unit, many kernels.
        parts.append(kernel.source.replace("kernel_part_", f"htp_isa_check_{index}_part_") + "\n\n")
        parts.append("#undef kernel_entry\n")
    return "".join(parts)


def _compile(command: _Command, kernels) -> tuple:
    """(ok, compiler output) for one translation unit holding `kernels`."""
    result = subprocess.run([*command.argv, "-"], input=_unit(kernels), capture_output=True, text=True)
    return result.returncode == 0, result.stdout + result.stderr


_DIAGNOSTIC = re.compile(r"^(.*?):\d+:\d+: (fatal error|error|warning|note): ")


def _blamed(output: str, kernels) -> set:
    """The kernels the compiler's errors name (an error's own location or the
    instantiation it comes from, through the `#line` file names), or None
    when an error names none of them."""
    labels = {_line_label(k.label): index for index, k in enumerate(kernels)}
    blamed, block, in_error = set(), set(), False

    def close():
        if in_error and not block:
            return False
        blamed.update(block)
        return True

    for line in output.splitlines():
        match = _DIAGNOSTIC.match(line)
        if not match:
            continue
        if match.group(2) in ("error", "fatal error", "warning"):
            if not close():
                return None
            block, in_error = set(), match.group(2) != "warning"
            if match.group(2) == "fatal error":
                return None  # the compiler stopped: the kernels after it were not checked
        if in_error and match.group(1) in labels:
            block.add(labels[match.group(1)])
    if not close():
        return None
    return blamed


def _split(command: _Command, kernels) -> tuple:
    """(kernels that compile, [(kernel, compiler output)] for those that do
    not). The batch at once; when it fails, the kernels its errors name are
    compiled alone and the others again together; when the errors name none
    (or all) of them, the batch is split in halves."""
    ok, output = _compile(command, kernels)
    if ok:
        return list(kernels), []
    if len(kernels) == 1:
        return [], [(kernels[0], output)]
    blamed = _blamed(output, kernels)
    if blamed and len(blamed) < len(kernels):
        good, bad = _split(command, [k for i, k in enumerate(kernels) if i not in blamed])
        for index in sorted(blamed):
            more_good, more_bad = _split(command, [kernels[index]])
            good, bad = good + more_good, bad + more_bad
        return good, bad
    half = len(kernels) // 2
    good, bad = _split(command, kernels[:half])
    more_good, more_bad = _split(command, kernels[half:])
    return good + more_good, bad + more_bad


def _errors(output: str) -> str:
    """The compiler's error lines (the notes say where, the errors say what)."""
    lines = [line for line in output.splitlines() if " error: " in line or line.startswith("error:")]
    return "\n".join(lines[:20]) if lines else output[-4000:]


def _jobs() -> int:
    configured = os.environ.get("HTP_PTO_ISA_JOBS")
    if configured:
        return max(1, int(configured))
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def check(kernels, jobs: int | None = None) -> dict:
    """Compile `kernels` (syntax only) against PTO-ISA; returns
    ``{label: compiler errors}`` for each kernel that does not compile (an
    empty dict when all do). Raise ``RuntimeError`` when :func:`problem`
    says the compiler or headers are missing."""
    missing = problem()
    if missing:
        raise RuntimeError(missing)
    jobs = jobs or _jobs()
    cache = _cache_dir()
    # One compile per distinct source and core type; labels share its result.
    by_source = {}
    for kernel in kernels:
        by_source.setdefault((kernel.core_type, kernel.source), []).append(kernel)
    commands = {core: _command(core) for core in {core for core, _ in by_source}}
    pending = {}
    for (core, source), same in by_source.items():
        if not (cache / _key(commands[core], source)).exists():
            pending.setdefault(core, []).append(same[0])
    batches = []
    for core, todo in pending.items():
        per_batch = min(BATCH, max(1, -(-len(todo) // jobs)))
        batches.extend((core, todo[i:i + per_batch]) for i in range(0, len(todo), per_batch))
    failed = {}

    def run(batch):
        core, members = batch
        return (core, *_split(commands[core], members))

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for core, good, bad in pool.map(run, batches):
            for kernel in good:
                (cache / _key(commands[core], kernel.source)).touch()
            for kernel, output in bad:
                failed[(core, kernel.source)] = _errors(output)
    return {k.label: failed[key] for key, same in by_source.items() if key in failed for k in same}
