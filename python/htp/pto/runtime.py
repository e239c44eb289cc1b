"""Run an HTP PTO package on Huawei's pto-runtime ("simpler") simulator.

An HTP PTO package is a directory holding ``manifest.json`` (format
``htp-pto-package/1``), one orchestration C++ source and one C++ source per
in-core kernel. :func:`run_package` compiles them with simpler's own
``KernelCompiler`` (so the compile flags are simpler's), wraps them as
``CoreCallable``/``ChipCallable``, runs the callable on a level-2 ``Worker``
and leaves the results in the caller's numpy arrays. Compiled binaries go
through simpler's persistent content-addressed cache
(``simpler_setup.scene_test_cache``, under ``<simpler>/build/cache/kernels``),
so an unchanged package is not recompiled.

Only numpy is imported at module import time; ``simpler`` and
``simpler_setup`` are imported when a package is run (or by
:func:`find_runtime`). torch is never needed.

Environment:

``HTP_PTO_ISA_ROOT``
    A PTO-ISA checkout (the directory containing ``include/pto/pto-inst.hpp``)
    at the commit simpler pins in ``pto_isa.pin``. It is passed to simpler's
    kernel compiler directly, so it does not have to be a git checkout. When
    unset, simpler's managed checkout ``<simpler>/build/pto-isa`` is used if it
    exists (this module never clones anything).
``HTP_SIMPLER_ROOT``
    Optional. A simpler (pto-runtime) source checkout whose runtimes have been
    built in place (``pip install -e``). Its ``python/`` directory and the
    checkout itself are put first on ``sys.path``. Not needed when simpler is
    pip-installed into this Python.
``PATH``
    Must provide ``g++-15`` (simpler compiles simulator kernels with exactly
    that command; on Debian 12 a wrapper running clang++ 22 works, see the HTP
    docs) and ``g++`` (simpler compiles the orchestration with the host g++).
``HTP_PTO_LOG_LEVEL``
    Optional simpler log level (debug, info, timing, warn, error, null);
    default ``warn``.

Calling convention (``htp-pto-package/1``): the manifest's ``arguments`` list
names the callable's tensors (``kind: tensor``, with ``dtype``, ``shape``
whose entries are ints or symbol names, and ``direction`` in/out/inout) and
scalars (``kind: scalar``, ``dtype``). The orchestration receives the tensors
in manifest order, then the scalars in manifest order, each scalar as a raw
64-bit pattern (``from_u64<T>(orch_args.scalar(i))``): floats are encoded in
their own width (float32 as IEEE single, zero-extended), integers as
two's-complement 64-bit. Optional manifest keys: ``orchestration.config_function``
(simpler's ``config_name``) and per-kernel ``extra_include_dirs`` (relative to
the package directory).

Sessions (:func:`open_session`, for a package called many times, e.g. a serving step): the
package is compiled once and one level-2 ``Worker`` stays registered and initialised until
:meth:`Session.close`. :meth:`Session.place` allocates device memory for one tensor argument
(``Worker.malloc``) and copies an array there once (``Worker.copy_to``); the
:class:`DeviceTensor` it returns is passed to :meth:`Session.run` in place of that argument's
array. Its task argument is a view of a ``DEVICE_MALLOC`` buffer, in the DEVICE address space,
which pto-runtime hands to the orchestration as it is: the per-run staging (``stage_device_args``
in the runtime's ``host/runtime_maker.cpp``) copies host tensors to freshly allocated device
memory and back, and passes device tensors through. The other arguments are numpy arrays, staged
per run as :func:`run_package` stages them. :meth:`Session.read`/:meth:`Session.write` copy a
placed tensor back or replace it (``copy_from``/``copy_to``); ``Session.copies`` counts every
host<->device copy per tensor name.

Group sessions (``open_session(package, chips=n)``, :class:`GroupSession`): the package on ``n``
chips through pto-runtime's level 3 (``Worker(level=3, device_ids=range(n))``), each chip with its
own arguments and its own placed tensors (``alloc_child_tensor``). A package whose manifest marks
communication windows and a CommContext argument (``"comm": "window" | "context"``, from the
``comm`` intrinsic set) gets, in every run and before any task is submitted, one domain
(``allocate_domain``) holding each window on every chip, and its tasks are submitted as one group
(``submit_next_level_group``) with each chip's ``device_ctx``; such a package runs only in a group.

Every call into pto-runtime — compiles, runs, a session's worker from start to close — runs on
one thread of this module's (``_DEVICE``). On the simulators each run leaves 5 pthread keys
behind, so a process has about 200 runs (all packages and sessions together): a run that would
exceed that fails with PtoRuntimeError (``_check_sim_thread_keys``).

Notes: simpler's kernel cache lives inside the simpler installation
(``PROJECT_ROOT/build/cache/kernels``), which must be writable; its compiler
identity is ``g++-15 --version``, so changing the flags inside a g++-15
wrapper script does not invalidate cached kernels (delete that directory).
On the simulators ``set_flag``/``wait_flag`` are no-ops, so missing pipe
synchronisation is not caught there.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import queue
import shutil
import struct
import sys
import threading
import weakref
from collections import Counter
from concurrent.futures import Future, wait
from pathlib import Path

import numpy as np

__all__ = ["DeviceTensor", "GroupSession", "PtoRuntimeError", "Session", "find_runtime", "open_session", "run_package"]

PACKAGE_FORMAT = "htp-pto-package/1"

_SUPPORTED_PLATFORMS = ("a2a3sim", "a5sim", "a2a3", "a5")

# Manifest dtype name -> (simpler DataType member name, element size in bytes).
_DTYPES = {
    "float32": ("FLOAT32", 4),
    "float16": ("FLOAT16", 2),
    "bfloat16": ("BFLOAT16", 2),
    "int8": ("INT8", 1),
    "int16": ("INT16", 2),
    "int32": ("INT32", 4),
    "int64": ("INT64", 8),
    "uint8": ("UINT8", 1),
    "uint16": ("UINT16", 2),
    "uint32": ("UINT32", 4),
    "uint64": ("UINT64", 8),
    "bool": ("UINT8", 1),  # one byte per element; the runtime only moves bytes
}

_DIRECTIONS = ("in", "out", "inout")


class PtoRuntimeError(RuntimeError):
    """The package is malformed, the runtime is missing, or the run failed."""


# --------------------------------------------------------------------------
# Locating the runtime
# --------------------------------------------------------------------------


def _add_simpler_root_to_path() -> None:
    root = os.environ.get("HTP_SIMPLER_ROOT")
    if not root:
        return
    for entry in (os.path.join(root, "python"), root):
        if os.path.isdir(entry) and entry not in sys.path:
            sys.path.insert(0, entry)


def _import_simpler():
    """Import simpler's modules; raise ImportError with the cause."""
    _add_simpler_root_to_path()
    import simpler.task_interface  # noqa: F401
    import simpler.worker  # noqa: F401
    import simpler_setup.kernel_compiler  # noqa: F401
    import simpler_setup.scene_test_cache  # noqa: F401
    from simpler_setup.environment import PROJECT_ROOT

    return PROJECT_ROOT


def _pto_isa_root(project_root: Path | None) -> tuple[str | None, str]:
    """Return (root or None, description of where it was looked for)."""
    env = os.environ.get("HTP_PTO_ISA_ROOT")
    if env:
        candidates = [Path(env)]
        where = f"HTP_PTO_ISA_ROOT={env}"
    else:
        candidates = [project_root / "build" / "pto-isa"] if project_root is not None else []
        where = "HTP_PTO_ISA_ROOT (unset) or simpler's managed checkout " + (
            str(candidates[0]) if candidates else "<simpler>/build/pto-isa"
        )
    for c in candidates:
        if (c / "include" / "pto" / "pto-inst.hpp").is_file():
            return str(c.resolve()), where
    return None, where


def _runtime_lib_dir(project_root: Path, platform: str, runtime: str) -> Path:
    arch = platform[:-3] if platform.endswith("sim") else platform
    variant = "sim" if platform.endswith("sim") else "onboard"
    return project_root / "build" / "lib" / arch / variant / runtime


def _check_runtime(platform: str = "a2a3sim", runtime: str = "tensormap_and_ringbuffer") -> str | None:
    problems: list[str] = []
    try:
        project_root = _import_simpler()
    except ImportError as e:
        return (
            f"pto-runtime (simpler) is not importable in {sys.executable} ({e}); install it with "
            "`python3 -m pip install --no-build-isolation <simpler checkout>` or set HTP_SIMPLER_ROOT "
            "to a checkout built in place"
        )
    isa, where = _pto_isa_root(project_root)
    if isa is None:
        problems.append(f"PTO-ISA headers not found (looked at {where}; need include/pto/pto-inst.hpp)")
    if platform.endswith("sim"):
        if shutil.which("g++-15") is None:
            problems.append(
                "`g++-15` is not on PATH (simpler compiles simulator kernels with exactly that command; "
                "on Debian 12 use a wrapper script named g++-15 that runs clang++-22)"
            )
        if shutil.which("g++") is None:
            problems.append("`g++` (host compiler for the orchestration) is not on PATH")
    lib_dir = _runtime_lib_dir(project_root, platform, runtime)
    if not (lib_dir / "libhost_runtime.so").is_file():
        problems.append(f"simpler has no built {platform}/{runtime} runtime (missing {lib_dir}/libhost_runtime.so)")
    return "; ".join(problems) if problems else None


def find_runtime() -> str | None:
    """Return None when a2a3sim packages can run here, else what is missing."""
    return _check_runtime()


# --------------------------------------------------------------------------
# Manifest handling
# --------------------------------------------------------------------------


def _load_manifest(package_dir: Path) -> dict:
    path = package_dir / "manifest.json"
    try:
        manifest = json.loads(path.read_text())
    except OSError as e:
        raise PtoRuntimeError(f"cannot read {path}: {e}") from e
    except json.JSONDecodeError as e:
        raise PtoRuntimeError(f"{path} is not valid JSON: {e}") from e
    if manifest.get("format") != PACKAGE_FORMAT:
        raise PtoRuntimeError(f"{path}: format is {manifest.get('format')!r}, expected {PACKAGE_FORMAT!r}")
    platform = manifest.get("platform", "a2a3sim")
    if platform not in _SUPPORTED_PLATFORMS:
        raise PtoRuntimeError(f"{path}: unsupported platform {platform!r}")
    for key in ("arguments", "orchestration", "kernels"):
        if key not in manifest:
            raise PtoRuntimeError(f"{path}: missing {key!r}")
    for arg in manifest["arguments"]:
        kind = arg.get("kind")
        if arg.get("dtype") not in _DTYPES and not (kind == "scalar" and arg.get("dtype") == "float64"):
            raise PtoRuntimeError(f"{path}: argument {arg.get('name')!r} has unsupported dtype {arg.get('dtype')!r}")
        if kind == "tensor":
            if arg.get("direction") not in _DIRECTIONS:
                raise PtoRuntimeError(f"{path}: tensor {arg.get('name')!r} has bad direction {arg.get('direction')!r}")
        elif kind != "scalar":
            raise PtoRuntimeError(f"{path}: argument {arg.get('name')!r} has bad kind {kind!r}")
        comm = arg.get("comm")
        if comm is not None and (comm, kind) not in (("window", "tensor"), ("context", "scalar")):
            raise PtoRuntimeError(f"{path}: argument {arg.get('name')!r}: comm {comm!r} is \"window\" (a tensor) or "
                                  "\"context\" (a scalar)")
    ids = set()
    for k in manifest["kernels"]:
        if k.get("core_type") not in ("aiv", "aic"):
            raise PtoRuntimeError(f"{path}: kernel {k.get('name')!r} has bad core_type {k.get('core_type')!r}")
        if k.get("func_id") in ids:
            raise PtoRuntimeError(f"{path}: duplicate func_id {k.get('func_id')}")
        ids.add(k.get("func_id"))
        for d in k.get("signature", []):
            if d not in _DIRECTIONS:
                raise PtoRuntimeError(f"{path}: kernel {k.get('name')!r} has bad signature entry {d!r}")
    env = manifest.get("runtime_env", {})
    if not isinstance(env, dict) or any(key not in _RUNTIME_ENV or not isinstance(v, int) for key, v in env.items()):
        raise PtoRuntimeError(f"{path}: runtime_env must map {', '.join(_RUNTIME_ENV)} to integers, got {env!r}")
    return manifest


#: The ``CallConfig.runtime_env`` settings a package may ask for (its
#: manifest's ``runtime_env``): pto-runtime's ring sizes.
_RUNTIME_ENV = ("ring_task_window", "ring_heap", "ring_dep_pool")


def _call_config(manifest: dict):
    """The run's ``CallConfig``, with the package's ``runtime_env``."""
    from simpler.task_interface import CallConfig

    config = CallConfig()
    for key, value in manifest.get("runtime_env", {}).items():
        setattr(config.runtime_env, key, value)
    return config


def _check_arrays(tensor_args: list, arrays: list) -> list:
    """Validate arrays against the manifest; return the arrays handed to the runtime."""
    if len(arrays) != len(tensor_args):
        raise PtoRuntimeError(f"expected {len(tensor_args)} tensor arrays, got {len(arrays)}")
    symbols: dict[str, int] = {}
    out = []
    for spec, arr in zip(tensor_args, arrays):
        name = spec["name"]
        if not isinstance(arr, np.ndarray):
            raise PtoRuntimeError(f"tensor {name!r}: expected a numpy array, got {type(arr).__name__}")
        _check_layout(spec, arr.dtype, arr.shape, symbols)
        if not arr.flags.c_contiguous:
            raise PtoRuntimeError(f"tensor {name!r}: array must be C-contiguous")
        if spec["direction"] != "in" and not arr.flags.writeable:
            raise PtoRuntimeError(f"tensor {name!r}: output array is read-only")
        # simpler takes host memory through a writable buffer; copy read-only inputs.
        out.append(arr if arr.flags.writeable else arr.copy())
    return out


def _check_layout(spec: dict, dtype: np.dtype, shape: tuple, symbols: dict) -> None:
    """Check a tensor's dtype and shape against its manifest entry; ``symbols`` binds the
    manifest's symbolic dimensions across the tensors of one call."""
    name = spec["name"]
    if spec["dtype"] == "bfloat16":
        ok = dtype.itemsize == 2 and dtype.kind in ("V", "u", "f") and dtype != np.float16
    else:
        ok = dtype == np.dtype(spec["dtype"])
    if not ok:
        raise PtoRuntimeError(f"tensor {name!r}: dtype {dtype} does not match manifest dtype {spec['dtype']}")
    want_shape = spec.get("shape")
    if want_shape is not None:
        if len(shape) != len(want_shape):
            raise PtoRuntimeError(f"tensor {name!r}: rank {len(shape)} does not match manifest shape {want_shape}")
        for dim, (want, got) in enumerate(zip(want_shape, shape)):
            if isinstance(want, int):
                if want != got:
                    raise PtoRuntimeError(f"tensor {name!r}: dim {dim} is {got}, manifest says {want}")
            else:
                if symbols.setdefault(str(want), got) != got:
                    raise PtoRuntimeError(
                        f"tensor {name!r}: dim {dim} is {got}, but {want} = {symbols[str(want)]} elsewhere"
                    )
    if len(shape) == 0 or len(shape) > 5:
        raise PtoRuntimeError(f"tensor {name!r}: rank {len(shape)} is not in 1..5")


def _encode_scalar(spec: dict, value) -> int:
    dtype = spec["dtype"]
    name = spec["name"]
    try:
        if dtype == "float32":
            return struct.unpack("<I", struct.pack("<f", float(value)))[0]
        if dtype == "float64":
            return struct.unpack("<Q", struct.pack("<d", float(value)))[0]
        if dtype == "float16":
            return int(np.array(value, dtype=np.float16).view(np.uint16))
        if dtype == "bfloat16":
            bits = int(np.array(value, dtype=np.float32).view(np.uint32))
            if (bits & 0x7F800000) == 0x7F800000 and (bits & 0x7FFFFF):
                return (bits >> 16) | 0x40  # quiet NaN
            return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF
        if dtype == "bool":
            return 1 if bool(value) else 0
        iv = int(value)
    except (TypeError, ValueError, OverflowError) as e:
        raise PtoRuntimeError(f"scalar {name!r}: cannot encode {value!r} as {dtype}: {e}") from e
    if iv != value:
        raise PtoRuntimeError(f"scalar {name!r}: {value!r} is not an integer ({dtype})")
    bits = _DTYPES[dtype][1] * 8
    lo, hi = (0, 1 << bits) if dtype.startswith("uint") else (-(1 << (bits - 1)), 1 << (bits - 1))
    if not lo <= iv < hi:
        raise PtoRuntimeError(f"scalar {name!r}: {value!r} does not fit in {dtype}")
    return iv & 0xFFFFFFFFFFFFFFFF


# --------------------------------------------------------------------------
# Compilation (simpler's compiler + cache)
# --------------------------------------------------------------------------


def kernel_include_dirs(kc, pto_isa_root: str, runtime: str) -> list:
    """The include directories of an in-core kernel, in the order simpler's
    ``compile_incore`` sees them: PTO-ISA's, simpler's incore and platform
    headers, then the runtime's (``tensor.h``, ``intrinsic.h``); ``kc`` is a
    ``simpler_setup.kernel_compiler.KernelCompiler``."""
    return [
        Path(pto_isa_root) / "include",
        Path(pto_isa_root) / "include" / "pto",
        *kc.get_incore_include_dirs(),
        *kc.get_orchestration_include_dirs(runtime),
    ]


def _compile(package_dir: Path, manifest: dict, platform: str, runtime: str, pto_isa_root: str):
    """Compile the package into a ChipCallable, through simpler's disk cache.

    Mirrors simpler_setup.scene_test._compile_chip_callable_from_spec, except
    that the PTO-ISA root is ours rather than ensure_pto_isa_root()'s.
    """
    import platform as host_platform

    from simpler.task_interface import ArgDirection, ChipCallable, CoreCallable
    from simpler_setup.kernel_compiler import KernelCompiler
    from simpler_setup.scene_test_cache import (
        compile_artifact_key,
        compile_incore_artifact_key,
        get_or_compile,
        get_or_compile_incore,
    )

    dirs = {"in": ArgDirection.IN, "out": ArgDirection.OUT, "inout": ArgDirection.INOUT}
    is_sim = platform.endswith("sim")
    kc = KernelCompiler(platform=platform)
    inc_dirs = kc.get_orchestration_include_dirs(runtime)

    def src(rel: str) -> str:
        p = (package_dir / rel).resolve()
        if not p.is_file():
            raise PtoRuntimeError(f"{package_dir}/manifest.json names {rel}, which does not exist")
        return str(p)

    orch = manifest["orchestration"]
    orch_source = src(orch["source"])
    orch_func = orch.get("function", "aicpu_orchestration_entry")
    orch_config = orch.get("config_function", "")
    # The run stages the orchestration's arguments by this signature: an "out" argument is staged as
    # "inout" (copied to the device first), so the elements the kernels do not write come back as
    # they were, the rule of every target (docs/language.md, "Outputs").
    orch_sig = [dirs["inout" if a["direction"] == "out" else a["direction"]] for a in manifest["arguments"] if a["kind"] == "tensor"]

    kernels = []
    for k in manifest["kernels"]:
        source = src(k["source"])
        extra = [str((package_dir / d).resolve()) for d in k.get("extra_include_dirs", [])]
        include_dirs = [*kernel_include_dirs(kc, pto_isa_root, runtime), *extra]
        key = compile_incore_artifact_key(
            {
                "platform": platform,
                "host_platform": sys.platform,
                "host_machine": host_platform.machine(),
                "compiler": kc.incore_compile_cache_token(k["core_type"]),
            },
            source,
            include_dirs,
        )
        kernels.append((k, source, extra, key))

    orch_include_dirs, orch_sources = kc.get_orchestration_cache_inputs(runtime)
    artifact_key = compile_artifact_key(
        {
            "cache_key": f"htp:{manifest.get('program', '')}",
            "platform": platform,
            "runtime": runtime,
            "host_platform": sys.platform,
            "host_machine": host_platform.machine(),
            "sanitizers": KernelCompiler._sanitizers,
            "compiler": kc.compile_cache_token(runtime, [k["core_type"] for k, *_ in kernels]),
            "orchestration": {"function_name": orch_func, "config_name": orch_config, "signature": orch_sig},
            "incores": [
                {
                    "func_id": k["func_id"],
                    "core_type": k["core_type"],
                    "signature": [dirs[d] for d in k.get("signature", [])],
                    "artifact_key": key,
                }
                for k, _, _, key in kernels
            ],
        },
        [(s, orch_include_dirs) for s in [orch_source, *orch_sources]],
    )

    def compile_callable():
        children = []
        for k, source, extra, key in kernels:

            def build(k=k, source=source, extra=extra):
                binary = kc.compile_incore(
                    source,
                    core_type=k["core_type"],
                    pto_isa_root=pto_isa_root,
                    extra_include_dirs=inc_dirs + extra,
                )
                if not is_sim:
                    from simpler_setup.elf_parser import extract_text_section

                    binary = extract_text_section(binary)
                return binary

            binary = get_or_compile_incore(key, build)
            children.append(
                (
                    int(k["func_id"]),
                    CoreCallable.build(signature=[dirs[d] for d in k.get("signature", [])], binary=binary),
                )
            )
        orch_binary = kc.compile_orchestration(runtime, orch_source)
        return ChipCallable.build(
            signature=orch_sig,
            func_name=orch_func,
            binary=orch_binary,
            children=children,
            config_name=orch_config,
        )

    return get_or_compile(artifact_key, compile_callable)


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


def run_package(package_dir: str, arrays: list, scalars: list) -> None:
    """Compile (cached) and run the package on its simulator platform.

    ``arrays``: C-contiguous numpy arrays, one per tensor argument of the
    manifest, in manifest order; outputs (direction out/inout) are written in
    place. ``out`` arrays are copied to the device too, so the elements the
    kernels do not write keep their values. ``scalars``: Python ints/floats, one per scalar argument, in
    manifest order. Raises PtoRuntimeError on any problem.
    """
    pkg, manifest, platform, runtime, pto_isa_root = _package_setup(package_dir)
    _refuse_communicating(pkg, manifest)
    tensor_args = [a for a in manifest["arguments"] if a["kind"] == "tensor"]
    scalar_args = [a for a in manifest["arguments"] if a["kind"] == "scalar"]
    host_arrays = _check_arrays(tensor_args, list(arrays))
    if _nothing_to_run(tensor_args, [arr.size for arr in host_arrays]):
        return
    scalar_bits = _encode_scalars(scalar_args, scalars)

    _set_log_level()
    _DEVICE.call(_compile_and_run, pkg, manifest, platform, runtime, pto_isa_root, tensor_args, host_arrays, scalar_bits)


def _package_setup(package_dir) -> tuple:
    """(package directory, manifest, platform, runtime, PTO-ISA root) of a package this process can run."""
    pkg = Path(package_dir).resolve()
    manifest = _load_manifest(pkg)
    platform = manifest.get("platform", "a2a3sim")
    runtime = manifest.get("runtime", "tensormap_and_ringbuffer")
    problem = _check_runtime(platform, runtime)
    if problem is not None:
        raise PtoRuntimeError(f"pto-runtime not usable: {problem}")
    from simpler_setup.environment import PROJECT_ROOT

    pto_isa_root, _ = _pto_isa_root(PROJECT_ROOT)
    assert pto_isa_root is not None
    return pkg, manifest, platform, runtime, pto_isa_root


def _nothing_to_run(tensor_args: list, sizes: list) -> bool:
    """Whether a call whose tensors have these element counts has nothing to do (every output
    is empty, an empty batch, as on the cpu); raises when only some tensors are empty."""
    empty = [spec["name"] for spec, size in zip(tensor_args, sizes) if size == 0]
    if not empty:
        return False
    written = [spec["name"] for spec, size in zip(tensor_args, sizes) if spec["direction"] != "in" and size]
    if not written:
        return True
    raise PtoRuntimeError(f"tensors {empty} are empty while the outputs {written} are not: pto-runtime takes no "
                          "empty tensor, so this call cannot run on the device (the cpu runs it)")


def _encode_scalars(scalar_args: list, scalars) -> list:
    scalars = list(scalars)
    if len(scalars) != len(scalar_args):
        raise PtoRuntimeError(f"expected {len(scalar_args)} scalars, got {len(scalars)}")
    return [_encode_scalar(s, v) for s, v in zip(scalar_args, scalars)]


class _DeviceThread:
    """Every compile and run of this process, one at a time, on one thread that lives as long as the
    process. A thread that has run pto-runtime crashes when it exits (the runtime leaves thread-local
    state whose destructor outlives the library it belongs to), so no call may run it on the caller's
    thread (a Python thread, a server's worker); and two workers on device 0 at once corrupt each
    other's state. A session's worker (:func:`open_session`) lives here too, between calls: on the
    chip the device context (``rtSetDevice``, done by ``Worker.init``) is per thread, so its
    ``malloc``/``copy_to``/``run`` must come from the thread that initialised it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._requests = None
        self._thread = None

    def _serve(self):
        while True:
            future, function, args = self._requests.get()
            try:
                result = function(*args)
            except BaseException as e:  # handed to the caller's thread, which raises it
                if future is not None:
                    future.set_exception(e)
                else:
                    logging.getLogger("htp.pto").warning("pto-runtime: %s failed: %s", function.__name__, e)
            else:
                if future is not None:
                    future.set_result(result)
            # Hold nothing of the request until the next one (a session passed in is then collectable).
            future = function = args = result = None

    def _start(self):
        with self._lock:
            if self._requests is None:
                self._requests = queue.SimpleQueue()
                # A daemon: at exit it is stopped, not joined, so it never runs its exit path.
                self._thread = threading.Thread(target=self._serve, name="htp-pto-device", daemon=True)
                self._thread.start()

    def call(self, function, *args):
        if self._thread is not None and threading.current_thread() is self._thread:
            return function(*args)  # already on the device thread: waiting for itself would hang
        self._start()
        future = Future()
        self._requests.put((future, function, args))
        while not wait([future], timeout=0.1).done:  # waits in slices so Ctrl-C reaches the caller
            pass
        return future.result()

    def post(self, function, *args) -> None:
        """Queue ``function(*args)`` without waiting for it (a finalizer's work: it may run inside
        the garbage collector, on any thread, the device thread included). Failures are logged."""
        self._start()
        self._requests.put((None, function, args))


_DEVICE = _DeviceThread()


def _compile_checked(pkg, manifest, platform, runtime, pto_isa_root):
    try:
        return _compile(pkg, manifest, platform, runtime, pto_isa_root)
    except PtoRuntimeError:
        raise
    except Exception as e:  # compiler failures surface as RuntimeError/OSError from simpler
        raise PtoRuntimeError(f"compiling {pkg} failed: {e}") from e


def _task_args(worker, tensor_args, tensors, scalar_bits):
    """The run's ``TaskArgs``: each tensor a host numpy array or a :class:`DeviceTensor`."""
    from simpler.task_interface import DataType, TaskArgs, TensorArgType

    tags = {"in": TensorArgType.INPUT, "out": TensorArgType.OUTPUT_EXISTING, "inout": TensorArgType.INOUT}
    args = TaskArgs()
    for spec, tensor in zip(tensor_args, tensors):
        dtype = int(getattr(DataType, _DTYPES[spec["dtype"]][0]).value)
        if isinstance(tensor, DeviceTensor):
            # A view of device memory (a DEVICE_MALLOC buffer from `worker.malloc`): its
            # ChipTensor is in the DEVICE address space, which the runtime passes to the
            # orchestration as it is, without staging it or copying it back
            # (runtime_maker.cpp, `stage_device_args`: `t.is_device_memory()`).
            arg = tensor._buffer.tensor(shapes=tensor.shape, dtype=dtype)
        else:
            # Level 2 runs in this process, so a host array can be named directly. The run
            # stages arrays H2D and back by the orchestration's signature (`_compile`: an "out"
            # array as "inout"), not by these tags.
            arg = worker.make_tensor_arg(tensor, shapes=tuple(int(d) for d in tensor.shape), dtype=dtype)
        args.add_tensor(arg, tags[spec["direction"]])
    for bits in scalar_bits:
        args.add_scalar(bits)
    return args


#: pthread keys one run on a simulator takes and never gives back, and one more for a new
#: worker (measured: 5 per run, 6 per run_package). The simulator reloads the AICore kernel
#: library at every run (simpler src/a2a3/platform/sim/host/device_runner.cpp, "reload every
#: run"), and each load creates its thread-local keys afresh (src/a2a3/platform/sim/aicore/kernel.cpp,
#: `create_tls_keys` under a `pthread_once` of the library's own), never deleting them. glibc has
#: PTHREAD_KEYS_MAX = 1024 keys, so a process runs about 200 times before a key cannot be created:
#: the simulated core's register base is then read through a key that is not its own, and the run
#: hangs or crashes. Checked before each run, which then fails with an error instead.
_SIM_KEYS_PER_RUN = 5


def _check_sim_thread_keys(platform: str, needed: int) -> None:
    if not platform.endswith("sim") or not sys.platform.startswith("linux"):
        return
    import ctypes

    libc = ctypes.CDLL(None)
    keys = []
    try:
        for _ in range(needed + 1):  # and one to spare for whatever else the process starts
            key = ctypes.c_uint()
            if libc.pthread_key_create(ctypes.byref(key), None) != 0:
                raise PtoRuntimeError(
                    f"pto-runtime's {platform} cannot run again in this process: each run leaves "
                    f"{_SIM_KEYS_PER_RUN} pthread keys behind (it reloads its AICore kernel library, whose "
                    "thread-local keys are never deleted) and this process has fewer than "
                    f"{needed + 1} of glibc's 1024 left (about 200 runs per process); run the rest in a new process")
            keys.append(key)
    finally:
        for key in keys:
            libc.pthread_key_delete(key)


def _compile_and_run(pkg, manifest, platform, runtime, pto_isa_root, tensor_args, host_arrays, scalar_bits) -> None:
    chip_callable = _compile_checked(pkg, manifest, platform, runtime, pto_isa_root)
    _check_sim_thread_keys(platform, _SIM_KEYS_PER_RUN + 1)

    from simpler.worker import Worker

    worker = Worker(level=2, device_id=0, platform=platform, runtime=runtime)
    handle = worker.register(chip_callable)
    try:
        worker.init()
        args = _task_args(worker, tensor_args, host_arrays, scalar_bits)
        try:
            worker.run(handle, args, _call_config(manifest))
        except Exception as e:
            raise PtoRuntimeError(f"running {pkg} on {platform} failed: {e}") from e
    finally:
        worker.close()


def _set_log_level() -> None:
    level_name = os.environ.get("HTP_PTO_LOG_LEVEL", "warn")
    from simpler_setup.log_config import parse_level

    logging.getLogger("simpler").setLevel(parse_level(level_name))


# --------------------------------------------------------------------------
# Sessions: one worker kept alive, tensors resident on the device
# --------------------------------------------------------------------------


class DeviceTensor:
    """A tensor argument's data in device memory, made by :meth:`Session.place`: pass it to
    :meth:`Session.run` in its argument's position instead of a numpy array, and the run uses the
    device memory as it is (no copy in either direction); :meth:`Session.read` and
    :meth:`Session.write` copy it to and from the host."""

    __slots__ = ("name", "index", "shape", "dtype", "nbytes", "chip", "_session", "_buffer")

    def __init__(self, session, index, name, shape, dtype, buffer, chip=0):
        self.name = name  #: the manifest's name of the tensor argument
        self.index = index  #: its position among the package's tensor arguments
        self.chip = chip  #: the chip of a group session it was placed on (0 in a one-chip session)
        self.shape = shape  #: a tuple of ints
        self.dtype = dtype  #: the numpy dtype of the array it was placed from
        self.nbytes = int(np.prod(shape)) * dtype.itemsize
        self._session = session
        self._buffer = buffer  # simpler's DEVICE_MALLOC Buffer; None once freed

    def __repr__(self):
        state = "" if self._buffer is not None else ", freed"
        chip = f", chip={self.chip}" if isinstance(self._session, GroupSession) else ""
        return f"DeviceTensor({self.name!r}, shape={self.shape}, dtype={self.dtype}{chip}{state})"


class _SessionState:
    """What a session's finalizer needs (not the session itself): the worker and its buffers."""

    def __init__(self, label):
        self.label = label
        self.worker = None
        self.callable = None
        self.buffers = {}  # id(Buffer) -> Buffer, every live allocation (held here, so ids are unique)
        self.closed = False


def _close_state(state: _SessionState) -> None:
    """Free the session's buffers and close its worker; on the device thread."""
    if state.worker is None:
        return
    worker, state.worker = state.worker, None
    buffers, state.buffers = list(state.buffers.values()), {}
    try:
        for buffer in buffers:
            worker.free(buffer)
    finally:
        worker.close()


_OPEN_SESSIONS = weakref.WeakSet()
# Registered with the first session, after simpler's modules are imported, so that (atexit runs
# last registered first) the sessions close before anything simpler registered at its import.
_AT_EXIT = []


def _close_open_sessions() -> None:
    # At exit the device thread (a daemon) is still running: close every session left open on
    # it, so no worker is torn down by the interpreter's exit instead.
    for session in list(_OPEN_SESSIONS):
        try:
            session.close()
        except Exception as e:  # noqa: BLE001 - exiting anyway
            logging.getLogger("htp.pto").warning("closing %r at exit failed: %s", session, e)


def open_session(package_dir, chips: int | None = None):
    """Compile (cached) the package and start one pto-runtime worker for it that stays up until
    :meth:`Session.close`: for calling the same package many times with some of its tensors kept
    in device memory (:meth:`Session.place`). Raises PtoRuntimeError on any problem.

    With ``chips=n``: a :class:`GroupSession` on ``n`` chips (one level-3 worker over chip workers
    ``0 .. n - 1``), each chip with its own inputs and placed tensors, and a communication window
    per ``comm.Window`` parameter allocated in every chip for each run."""
    if chips is not None:
        return _open_group_session(package_dir, chips)
    pkg, manifest, platform, runtime, pto_isa_root = _package_setup(package_dir)
    _refuse_communicating(pkg, manifest)
    _set_log_level()
    # The session first, so that its finalizer closes the worker even when the caller is
    # interrupted while the worker starts (the close is queued behind the start).
    session = Session(pkg, manifest, platform, _SessionState(f"{pkg.name} on {platform}"))
    return _started(session, _open_on_device, pkg, manifest, platform, runtime, pto_isa_root)


def _started(session, on_device, *setup):
    """The session, once ``on_device(session's state, *setup)`` has started its worker on the
    device thread; closed (and the error raised) if that fails."""
    try:
        _DEVICE.call(on_device, session._state, *setup)
    except Exception:
        session._state.closed = True
        session._finalizer.detach()
        _OPEN_SESSIONS.discard(session)
        raise
    return session


def _registered(worker, chip_callable, what: str):
    """``worker`` initialised with ``chip_callable`` registered: its handle (the worker closed
    and PtoRuntimeError raised if either fails)."""
    try:
        handle = worker.register(chip_callable)
        worker.init()
    except BaseException as e:
        worker.close()
        if isinstance(e, Exception):
            raise PtoRuntimeError(f"starting pto-runtime for {what} failed: {e}") from e
        raise
    return handle


def _open_on_device(state, pkg, manifest, platform, runtime, pto_isa_root) -> None:
    chip_callable = _compile_checked(pkg, manifest, platform, runtime, pto_isa_root)
    _check_sim_thread_keys(platform, 1)
    from simpler.worker import Worker

    worker = Worker(level=2, device_id=0, platform=platform, runtime=runtime)
    state.callable = _registered(worker, chip_callable, f"{pkg} on {platform}")
    state.worker = worker


class Session:
    """One package, one pto-runtime worker kept up between runs (:func:`open_session`).

    ``copies`` counts the session's host<->device copies per tensor name:
    ``copies["uploads"][name]`` and ``copies["downloads"][name]`` (``collections.Counter``s).
    :meth:`place`, :meth:`write` and :meth:`read` each count one; a run counts, for each numpy
    array it stages, one upload and, unless the tensor is an ``in`` tensor, one download (the
    runtime's staging rule: an ``out`` array is staged as ``inout``); a :class:`DeviceTensor`
    counts nothing.

    A session is a context manager; :meth:`close` frees its device memory and stops its worker. It
    may be used from several threads (its calls run one at a time). Every session and
    :func:`run_package` of the process share the one device thread, so a session's worker is
    idle, not gone, while another package runs."""

    # The device-thread functions a session's memory goes through (a group session's differ).
    _close_fn = staticmethod(_close_state)
    _copy_to_fn = staticmethod(lambda state, buffer, host: _copy_to_device(state, buffer, host))
    _copy_from_fn = staticmethod(lambda state, host, buffer: _copy_from_device(state, host, buffer))

    def __init__(self, pkg, manifest, platform, state):
        self.package_dir = str(pkg)
        self.manifest = manifest
        self.platform = platform
        self._state = state
        self._tensor_args = [a for a in manifest["arguments"] if a["kind"] == "tensor"]
        self._scalar_args = [a for a in manifest["arguments"] if a["kind"] == "scalar"]
        self._config = None  # the CallConfig, made on the device thread at the first run
        self._lock = threading.RLock()
        self.copies = {"uploads": Counter(), "downloads": Counter()}
        # A session dropped without close(): its worker is closed on the device thread, later.
        self._finalizer = weakref.finalize(self, _DEVICE.post, self._close_fn, state)
        self._finalizer.atexit = False
        _OPEN_SESSIONS.add(self)
        if not _AT_EXIT:
            _AT_EXIT.append(atexit.register(_close_open_sessions))

    def __repr__(self):
        return f"Session({self.package_dir!r}{', closed' if self.closed else ''})"

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    @property
    def closed(self) -> bool:
        return self._state.closed

    def _require_open(self, what: str) -> None:
        if self._state.closed:
            raise PtoRuntimeError(f"cannot {what}: the session of {self.package_dir} is closed")

    def _spec(self, name_or_index):
        if isinstance(name_or_index, str):
            for index, spec in enumerate(self._tensor_args):
                if spec["name"] == name_or_index:
                    return index, spec
            names = ", ".join(a["name"] for a in self._tensor_args)
            raise PtoRuntimeError(f"{self.package_dir} has no tensor argument {name_or_index!r} (it has {names})")
        if isinstance(name_or_index, (int, np.integer)) and not isinstance(name_or_index, bool):
            index = int(name_or_index)
            if 0 <= index < len(self._tensor_args):
                return index, self._tensor_args[index]
            raise PtoRuntimeError(f"tensor argument {index} out of range: {self.package_dir} has "
                                  f"{len(self._tensor_args)} tensor arguments")
        raise PtoRuntimeError(f"a tensor argument is named by its name or its index, not {name_or_index!r}")

    def _host_array(self, spec, array, what: str) -> np.ndarray:
        name = spec["name"]
        if not isinstance(array, np.ndarray):
            raise PtoRuntimeError(f"tensor {name!r}: expected a numpy array, got {type(array).__name__}")
        _check_layout(spec, array.dtype, array.shape, {})
        if array.size == 0:
            raise PtoRuntimeError(f"tensor {name!r}: cannot {what} an empty array (pto-runtime takes no empty tensor)")
        # copy_to reads host memory through a writable, contiguous buffer.
        return array if array.flags.c_contiguous and array.flags.writeable else np.array(array, order="C")

    def _live(self, handle, what: str) -> DeviceTensor:
        if not isinstance(handle, DeviceTensor):
            raise PtoRuntimeError(f"cannot {what} {handle!r}: not a DeviceTensor")
        if handle._session is not self:
            raise PtoRuntimeError(f"cannot {what} tensor {handle.name!r}: it was placed by another session")
        if handle._buffer is None:
            raise PtoRuntimeError(f"cannot {what} tensor {handle.name!r}: it was freed")
        return handle

    def place(self, name_or_index, array: np.ndarray) -> DeviceTensor:
        """Allocate device memory for one tensor argument (named by its manifest name or its
        position among the tensor arguments) and copy ``array`` there; returns its handle. The
        array's dtype and shape must match the manifest's (a symbolic dimension takes any size
        here and must agree with the other tensors at each run)."""
        with self._lock:
            self._require_open("place a tensor")
            index, spec = self._spec(name_or_index)
            return self._place(index, spec, array, 0, lambda host: (_place_on_device, self._state, host))

    def _place(self, index, spec, array, chip, device_call) -> DeviceTensor:
        host = self._host_array(spec, array, "place")
        buffer = _DEVICE.call(*device_call(host))
        handle = DeviceTensor(self, index, spec["name"], tuple(int(d) for d in host.shape), host.dtype, buffer, chip)
        self._state.buffers[id(buffer)] = buffer
        self.copies["uploads"][spec["name"]] += 1
        return handle

    def write(self, handle: DeviceTensor, array: np.ndarray) -> None:
        """Copy ``array`` (of the handle's shape and dtype) into the handle's device memory."""
        with self._lock:
            self._require_open("write a tensor")
            self._live(handle, "write")
            host = self._host_array(self._tensor_args[handle.index], array, "write")
            if host.shape != handle.shape or host.dtype != handle.dtype:
                raise PtoRuntimeError(f"tensor {handle.name!r}: cannot write a {host.dtype} array of shape "
                                      f"{host.shape} into the placed {handle.dtype} tensor of shape {handle.shape}")
            _DEVICE.call(self._copy_to_fn, self._state, handle._buffer, host)
            self.copies["uploads"][handle.name] += 1

    def read(self, handle: DeviceTensor) -> np.ndarray:
        """A new numpy array holding the handle's device memory."""
        with self._lock:
            self._require_open("read a tensor")
            self._live(handle, "read")
            out = np.empty(handle.shape, dtype=handle.dtype)
            _DEVICE.call(self._copy_from_fn, self._state, out, handle._buffer)
            self.copies["downloads"][handle.name] += 1
            return out

    def free(self, handle: DeviceTensor) -> None:
        """Release the handle's device memory now (:meth:`close` releases what is left)."""
        with self._lock:
            self._require_open("free a tensor")
            self._live(handle, "free")
            buffer, handle._buffer = handle._buffer, None
            del self._state.buffers[id(buffer)]
            _DEVICE.call(_free_on_device, self._state, buffer)

    def run(self, tensors: list, scalars: list) -> None:
        """Run the package once, as :func:`run_package` does: ``tensors`` has one entry per
        tensor argument, in manifest order, each a numpy array (staged to the device and, for
        out/inout tensors, back into the array) or a :class:`DeviceTensor` placed for that
        argument (used in device memory, not copied); ``scalars`` one value per scalar argument."""
        with self._lock:
            self._require_open("run")
            tensors = list(tensors)
            if len(tensors) != len(self._tensor_args):
                raise PtoRuntimeError(f"expected {len(self._tensor_args)} tensors, got {len(tensors)}")
            symbols: dict[str, int] = {}
            entries = [self._entry(index, spec, tensor, symbols, 0, "")
                       for index, (spec, tensor) in enumerate(zip(self._tensor_args, tensors))]
            sizes = [int(np.prod(t.shape)) for t in entries]
            if _nothing_to_run(self._tensor_args, sizes):
                return
            scalar_bits = _encode_scalars(self._scalar_args, scalars)
            _DEVICE.call(_run_on_device, self, entries, scalar_bits)
            self._count_staged(self._tensor_args, entries)

    def _entry(self, index, spec, tensor, symbols, chip, where):
        """One tensor argument of a run, checked: a live device tensor placed for this argument
        (on this chip), or a numpy array as :func:`run_package` takes it; its symbolic sizes
        recorded in ``symbols`` (agreeing with the run's other tensors)."""
        if isinstance(tensor, DeviceTensor):
            self._live(tensor, "run with")
            if tensor.index != index:
                raise PtoRuntimeError(f"{where}tensor {spec['name']!r}: got the device tensor placed for "
                                      f"{tensor.name!r} (a device tensor stands for the argument it was placed for)")
            if tensor.chip != chip:
                raise PtoRuntimeError(f"{where}tensor {spec['name']!r}: the device tensor was placed on chip "
                                      f"{tensor.chip} (device memory is one chip's)")
            _check_layout(spec, tensor.dtype, tensor.shape, symbols)
            return tensor
        array = _check_arrays([spec], [tensor])[0]
        _check_layout(spec, array.dtype, array.shape, symbols)
        return array

    def _count_staged(self, specs, entries) -> None:
        for spec, tensor in zip(specs, entries):
            if not isinstance(tensor, DeviceTensor):
                self.copies["uploads"][spec["name"]] += 1
                if spec["direction"] != "in":
                    self.copies["downloads"][spec["name"]] += 1

    def close(self) -> None:
        """Free the session's device memory and stop its worker; a second close does nothing."""
        with self._lock:
            if self._state.closed:
                return
            self._state.closed = True
            self._finalizer.detach()
            _OPEN_SESSIONS.discard(self)
            try:
                _DEVICE.call(self._close_fn, self._state)
            except Exception as e:
                raise PtoRuntimeError(f"closing {self!r} failed: {e}") from e


def _device_error(state, what, e):
    return PtoRuntimeError(f"{what} ({state.label}) failed: {e}")


def _bytes(host: np.ndarray) -> np.ndarray:
    """The array's memory as bytes: simpler takes host memory through the buffer protocol, which
    knows no bfloat16."""
    return host.reshape(-1).view(np.uint8)


def _place_on_device(state, host):
    worker = state.worker
    try:
        buffer = worker.malloc(host.nbytes)
    except Exception as e:
        raise _device_error(state, f"allocating {host.nbytes} bytes of device memory", e) from e
    try:
        worker.copy_to(buffer, _bytes(host))
    except BaseException as e:
        worker.free(buffer)
        if isinstance(e, Exception):
            raise _device_error(state, "copying to the device", e) from e
        raise
    return buffer


def _copy_to_device(state, buffer, host) -> None:
    try:
        state.worker.copy_to(buffer, _bytes(host))
    except Exception as e:
        raise _device_error(state, "copying to the device", e) from e


def _copy_from_device(state, host, buffer) -> None:
    try:
        state.worker.copy_from(_bytes(host), buffer)
    except Exception as e:
        raise _device_error(state, "copying from the device", e) from e


def _free_on_device(state, buffer) -> None:
    try:
        state.worker.free(buffer)
    except Exception as e:
        raise _device_error(state, "freeing device memory", e) from e


def _run_on_device(session, entries, scalar_bits) -> None:
    state = session._state
    _check_sim_thread_keys(session.platform, _SIM_KEYS_PER_RUN)
    if session._config is None:
        session._config = _call_config(session.manifest)
    args = _task_args(state.worker, session._tensor_args, entries, scalar_bits)
    try:
        state.worker.run(state.callable, args, session._config)
    except Exception as e:
        raise PtoRuntimeError(f"running {session.package_dir} on {session.platform} failed: {e}") from e


# --------------------------------------------------------------------------
# Group sessions: one package on several chips (pto-runtime's level 3)
# --------------------------------------------------------------------------


def _communicates(manifest: dict) -> bool:
    """Whether the package has communication windows or a CommContext argument (``comm``)."""
    return any(a.get("comm") for a in manifest["arguments"])


def _refuse_communicating(pkg, manifest: dict) -> None:
    if _communicates(manifest):
        raise PtoRuntimeError(
            f"{pkg} communicates between chips (comm.Window parameters, comm.* intrinsics): run it on a group, "
            "htp.pto.runtime.open_session(package, chips=n)")


def _free_sim_thread_keys(platform: str) -> int | None:
    """How many pthread keys this process can still create (None off the simulators)."""
    if not platform.endswith("sim") or not sys.platform.startswith("linux"):
        return None
    import ctypes

    libc = ctypes.CDLL(None)
    keys = []
    try:
        while len(keys) < 1100:
            key = ctypes.c_uint()
            if libc.pthread_key_create(ctypes.byref(key), None) != 0:
                break
            keys.append(key)
        return len(keys)
    finally:
        for key in keys:
            libc.pthread_key_delete(key)


#: A window's bytes in the domain start at a multiple of this (the buffers are laid out one
#: after the other in declaration order, `CommBufferSpec`).
_WINDOW_ALIGNMENT = 512


class _GroupState:
    """What a group session's finalizer needs: the level-3 worker and its buffers."""

    def __init__(self, label, chips):
        self.label = label
        self.chips = chips
        self.worker = None
        self.handle = None  # the registered ChipCallable
        self.buffers = {}  # id(Buffer) -> Buffer: device memory placed on the chips
        self.stages = {}  # (chip, tensor index) -> host Buffer (shared memory) a run stages an array through
        self.closed = False
        #: Runs left before the simulated chips run out of pthread keys (None: no limit known).
        self.runs_left = None
        #: Why the chips cannot run again (a failed run leaves pto-runtime's chip lanes unusable).
        self.failed = None


def _close_group_state(state: _GroupState) -> None:
    """Free the group's device memory and close its worker; on the device thread."""
    if state.worker is None:
        return
    worker, state.worker = state.worker, None
    buffers, state.buffers = list(state.buffers.values()), {}
    state.stages = {}
    try:
        for buffer in buffers:
            try:
                worker.free(buffer)
            except Exception as e:  # noqa: BLE001 - the close must still happen
                logging.getLogger("htp.pto").warning("freeing a device tensor of %s failed: %s", state.label, e)
    finally:
        worker.close()


def _open_group_session(package_dir, chips) -> "GroupSession":
    if isinstance(chips, bool) or not isinstance(chips, (int, np.integer)) or int(chips) < 1:
        raise PtoRuntimeError(f"chips must be a positive integer, got {chips!r}")
    chips = int(chips)
    pkg, manifest, platform, runtime, pto_isa_root = _package_setup(package_dir)
    _set_log_level()
    session = GroupSession(pkg, manifest, platform, _GroupState(f"{pkg.name} on {chips} {platform} chips", chips))
    return _started(session, _open_group_on_device, pkg, manifest, platform, runtime, pto_isa_root)


def _open_group_on_device(state, pkg, manifest, platform, runtime, pto_isa_root) -> None:
    chip_callable = _compile_checked(pkg, manifest, platform, runtime, pto_isa_root)
    # The chip workers are forked now: each inherits this process's pthread keys and leaks
    # _SIM_KEYS_PER_RUN of them per run (`_check_sim_thread_keys`).
    free = _free_sim_thread_keys(platform)
    if free is not None:
        state.runs_left = max(0, (free - 8) // _SIM_KEYS_PER_RUN)
        if state.runs_left == 0:
            raise PtoRuntimeError(f"pto-runtime's {platform} cannot run in this process any more: it has no pthread keys "
                                  "left for its chips (about 200 runs per process); open the group in a new process")
    from simpler.worker import Worker

    worker = Worker(level=3, platform=platform, runtime=runtime, device_ids=list(range(state.chips)), num_sub_workers=0)
    state.handle = _registered(worker, chip_callable, f"{pkg} on {state.chips} {platform} chips")
    state.worker = worker


class GroupSession(Session):
    """One package on a group of chips: one pto-runtime level-3 worker over ``chips`` chip workers,
    kept up between runs (:func:`open_session` with ``chips=n``).

    Every chip runs the package once per :meth:`run`, each with its own arguments: ``tensors[c]``
    holds chip ``c``'s tensor arguments in manifest order, communication windows left out (numpy
    arrays, staged to that chip and back, or :class:`DeviceTensor`\\ s placed on that chip with
    :meth:`place`, used in place); ``scalars[c]`` its scalar arguments, its ``CommContext`` left out
    (or one list for every chip). A package with ``comm.Window`` parameters gets one window per
    parameter in every chip, allocated for the run before any task is submitted
    (``Orchestrator.allocate_domain``, zeroed, released when the run ends), its tasks submitted as
    one group (``submit_next_level_group``: the chips run together, so their signals meet) with
    each chip's ``CommContext`` (``device_ctx``); a package without is submitted to each chip on its
    own. Placed tensors persist across runs until :meth:`free` or :meth:`close`.

    A run that fails leaves pto-runtime's chip workers unusable: later runs raise, reads still work;
    close the session and open another. On the simulators each chip worker leaks pthread keys per run,
    so a group session runs about 200 times (fewer in a process that ran much before it)."""

    # Defined below the class: looked up when called.
    _close_fn = staticmethod(lambda state: _close_group_state(state))
    _copy_to_fn = staticmethod(lambda state, buffer, host: _group_copy_to_device(state, buffer, host))
    _copy_from_fn = staticmethod(lambda state, host, buffer: _group_copy_from_device(state, host, buffer))

    def __init__(self, pkg, manifest, platform, state):
        super().__init__(pkg, manifest, platform, state)
        self.chips = state.chips
        #: The tensor arguments a caller gives (every tensor but the windows), in manifest order.
        self._given = [a for a in self._tensor_args if a.get("comm") != "window"]
        self._windows = [a for a in self._tensor_args if a.get("comm") == "window"]
        self._given_scalars = [a for a in self._scalar_args if a.get("comm") != "context"]
        self._symbols_of: dict[int, dict] = {}  # chip -> its symbolic sizes at the run being prepared

    def __repr__(self):
        return f"GroupSession({self.package_dir!r}, chips={self.chips}{', closed' if self.closed else ''})"

    @property
    def runs_left(self):
        """Runs the simulated chips have pthread keys for (None: not limited)."""
        return self._state.runs_left

    def _check_chip(self, chip) -> int:
        if isinstance(chip, bool) or not isinstance(chip, (int, np.integer)) or not 0 <= int(chip) < self.chips:
            raise PtoRuntimeError(f"chip must be an integer in 0..{self.chips - 1}, got {chip!r}")
        return int(chip)

    def place(self, chip, name_or_index, array: np.ndarray) -> DeviceTensor:
        """Allocate device memory on ``chip`` for one tensor argument (``alloc_child_tensor``) and
        copy ``array`` there; the handle stands for that argument in ``chip``'s runs."""
        with self._lock:
            self._require_open("place a tensor")
            chip = self._check_chip(chip)
            index, spec = self._spec(name_or_index)
            if spec.get("comm") == "window":
                raise PtoRuntimeError(f"tensor {spec['name']!r} is a communication window: each run allocates it")
            return self._place(index, spec, array, chip,
                               lambda host: (_group_place_on_device, self._state, chip, spec, host))

    def run(self, tensors: list, scalars: list | None = None) -> None:
        """Run the package once on every chip: ``tensors[c]`` (one entry per tensor argument that is
        not a window, in manifest order: a numpy array or a :class:`DeviceTensor` placed on chip
        ``c``) and ``scalars[c]`` (one value per scalar argument but the CommContext; a flat list
        is every chip's). Outputs are written into the arrays, as :func:`run_package` does."""
        with self._lock:
            self._require_open("run")
            if self._state.failed is not None:
                raise PtoRuntimeError(f"{self.package_dir}: an earlier run on these chips failed ({self._state.failed}), "
                                      "which leaves pto-runtime's chip workers unusable; read what you need, close the "
                                      "session and open another")
            tensors = list(tensors)
            if len(tensors) != self.chips:
                raise PtoRuntimeError(f"expected the tensors of {self.chips} chips (one list per chip), got {len(tensors)}")
            scalars = [] if scalars is None else list(scalars)
            if not scalars or not all(isinstance(s, (list, tuple)) for s in scalars):
                scalars = [scalars] * self.chips
            if len(scalars) != self.chips:
                raise PtoRuntimeError(f"expected the scalars of {self.chips} chips (one list per chip), got {len(scalars)}")
            entries, bits = [], []
            for chip, (given, values) in enumerate(zip(tensors, scalars)):
                entries.append(self._chip_entries(chip, list(given)))
                bits.append(_encode_scalars(self._given_scalars, values))
            if self._state.runs_left is not None and self._state.runs_left <= 0:
                raise PtoRuntimeError(f"pto-runtime's {self.platform} chips of this session have no pthread keys left "
                                      "(each run leaks some, about 200 runs per process): open a new session in a new process")
            _DEVICE.call(_group_run_on_device, self, entries, bits)
            for chip_entries in entries:
                self._count_staged(self._given, chip_entries)

    def _chip_entries(self, chip: int, given: list) -> list:
        """One chip's tensors, checked (a symbolic size agrees across its tensors)."""
        if len(given) != len(self._given):
            names = ", ".join(a["name"] for a in self._given)
            raise PtoRuntimeError(f"chip {chip}: expected {len(self._given)} tensors ({names}), got {len(given)}")
        symbols: dict[str, int] = {}
        entries = []
        for spec, tensor in zip(self._given, given):
            entry = self._entry(self._tensor_args.index(spec), spec, tensor, symbols, chip, f"chip {chip}, ")
            if isinstance(entry, np.ndarray) and entry.size == 0:
                raise PtoRuntimeError(f"chip {chip}, tensor {spec['name']!r}: pto-runtime takes no empty tensor")
            entries.append(entry)
        # The windows' sizes: static, or named by a tensor's size.
        for window in self._windows:
            for dim in window["shape"]:
                if not isinstance(dim, int) and dim not in symbols:
                    raise PtoRuntimeError(f"window {window['name']!r}: its size {dim!r} is not the size of any tensor")
        self._symbols_of[chip] = symbols
        return entries

    def _window_shapes(self) -> list:
        """(spec, shape) of each window, its symbolic sizes bound by chip 0's tensors (every chip's
        window has the same size, the domain's buffers being one layout)."""
        shapes = []
        for window in self._windows:
            per_chip = {tuple(d if isinstance(d, int) else self._symbols_of[c][d] for d in window["shape"])
                        for c in range(self.chips)}
            if len(per_chip) != 1:
                raise PtoRuntimeError(f"window {window['name']!r} would have different sizes on different chips "
                                      f"({sorted(per_chip)}): every chip's window has one size")
            shapes.append((window, per_chip.pop()))
        return shapes


def _simpler_dtype(spec: dict):
    from simpler.task_interface import DataType

    return getattr(DataType, _DTYPES[spec["dtype"]][0])


def _group_place_on_device(state, chip, spec, host):
    worker = state.worker
    try:
        buffer = worker.alloc_child_tensor(chip, tuple(int(d) for d in host.shape), _simpler_dtype(spec))
    except Exception as e:
        raise _device_error(state, f"allocating device memory on chip {chip}", e) from e
    try:
        _group_copy_to_device(state, buffer, host)
    except BaseException:
        worker.free(buffer)
        raise
    return buffer


def _staging(state, key, nbytes):
    """A host buffer (shared memory the chip workers map) of at least ``nbytes`` for ``key``."""
    buffer = state.stages.get(key)
    if buffer is None or buffer.nbytes < nbytes:
        buffer = state.worker.create_buffer(max(int(nbytes), 1))
        state.stages[key] = buffer
    return buffer


def _to_stage(buffer, host: np.ndarray) -> None:
    view = np.frombuffer(buffer.shm.buf, dtype=np.uint8, count=host.nbytes)
    view[...] = _bytes(host)
    del view  # no export of the shared memory may outlive the copy (the worker's close needs none)


def _from_stage(buffer, host: np.ndarray) -> None:
    view = np.frombuffer(buffer.shm.buf, dtype=np.uint8, count=host.nbytes)
    _bytes(host)[...] = view
    del view


def _group_copy_to_device(state, buffer, host) -> None:
    # A copy moves its host buffer's whole size: a buffer of exactly this tensor's bytes.
    stage = _staging(state, ("copy", host.nbytes), host.nbytes)
    try:
        _to_stage(stage, host)
        state.worker.copy_to(buffer, stage)
    except Exception as e:
        raise _device_error(state, "copying to the device", e) from e


def _group_copy_from_device(state, host, buffer) -> None:
    stage = _staging(state, ("copy", host.nbytes), host.nbytes)
    try:
        state.worker.copy_from(stage, buffer)
        _from_stage(stage, host)
    except Exception as e:
        raise _device_error(state, "copying from the device", e) from e


def _group_run_on_device(session, entries, bits) -> None:
    from simpler.task_interface import CommBufferSpec, TaskArgs, TensorArgType

    state = session._state
    worker = state.worker
    if session._config is None:
        session._config = _call_config(session.manifest)
    tags = {"in": TensorArgType.INPUT, "out": TensorArgType.OUTPUT_EXISTING, "inout": TensorArgType.INOUT}
    windows = session._window_shapes()
    # Each chip's tensor arguments in manifest order: a device tensor's view, a staged array's
    # shared-memory view, or (None) a window, named once the run's domain exists.
    arguments, copy_back = [], []
    for chip in range(session.chips):
        given = iter(entries[chip])
        row = []
        for index, spec in enumerate(session._tensor_args):
            if spec.get("comm") == "window":
                row.append(None)
                continue
            tensor = next(given)
            dtype = _simpler_dtype(spec)
            if isinstance(tensor, DeviceTensor):
                row.append(tensor._buffer.tensor(shapes=tensor.shape, dtype=dtype))
            else:
                stage = _staging(state, (chip, index), tensor.nbytes)
                _to_stage(stage, tensor)
                row.append(stage.tensor(shapes=tuple(int(d) for d in tensor.shape), dtype=dtype))
                if spec["direction"] != "in":
                    copy_back.append((stage, tensor))
        arguments.append(row)
    buffers = []
    for window, shape in windows:
        count = int(np.prod(shape))
        nbytes = count * _DTYPES[window["dtype"]][1]
        buffers.append(CommBufferSpec(name=window["name"], dtype=window["dtype"], count=count,
                                      nbytes=-(-nbytes // _WINDOW_ALIGNMENT) * _WINDOW_ALIGNMENT))
    scalar_specs = session._scalar_args
    chips = list(range(session.chips))

    def task_args(chip, domain):
        args = TaskArgs()
        for spec, tensor in zip(session._tensor_args, arguments[chip]):
            if tensor is None:
                window_shape = next(shape for w, shape in windows if w is spec)
                tensor = domain[chip].buffers[spec["name"]].tensor(shapes=window_shape, dtype=_simpler_dtype(spec))
            args.add_tensor(tensor, tags[spec["direction"]])
        given = iter(bits[chip])
        for spec in scalar_specs:
            args.add_scalar(int(domain[chip].device_ctx) if spec.get("comm") == "context" else next(given))
        return args

    def orchestrate(orch, _args, config):
        if not any(spec.get("comm") for spec in session.manifest["arguments"]):
            for chip in chips:
                orch.submit_next_level(state.handle, task_args(chip, None), config, worker=chip)
            return
        # The run's windows first: control ops must precede every submit of a run.
        size = max(sum(b.nbytes for b in buffers), _WINDOW_ALIGNMENT)
        with orch.allocate_domain(name="htp", workers=chips, window_size=size, buffers=buffers) as domain:
            orch.submit_next_level_group(state.handle, [task_args(chip, domain) for chip in chips], config, workers=chips)

    if state.runs_left is not None:
        state.runs_left -= 1
    try:
        worker.run(orchestrate, args=None, config=session._config)
    except Exception as e:
        state.failed = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        raise PtoRuntimeError(f"running {session.package_dir} on {session.chips} {session.platform} chips failed: {e}") from e
    for stage, host in copy_back:
        _from_stage(stage, host)
