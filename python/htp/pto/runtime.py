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

Notes: simpler's kernel cache lives inside the simpler installation
(``PROJECT_ROOT/build/cache/kernels``), which must be writable; its compiler
identity is ``g++-15 --version``, so changing the flags inside a g++-15
wrapper script does not invalidate cached kernels (delete that directory).
On the simulators ``set_flag``/``wait_flag`` are no-ops, so missing pipe
synchronisation is not caught there.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import shutil
import struct
import sys
import threading
from concurrent.futures import Future, wait
from pathlib import Path

import numpy as np

__all__ = ["find_runtime", "run_package"]

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
        _, itemsize = _DTYPES[spec["dtype"]]
        if spec["dtype"] == "bfloat16":
            ok = arr.dtype.itemsize == 2 and arr.dtype.kind in ("V", "u", "f") and arr.dtype != np.float16
        else:
            ok = arr.dtype == np.dtype(spec["dtype"])
        if not ok:
            raise PtoRuntimeError(f"tensor {name!r}: dtype {arr.dtype} does not match manifest dtype {spec['dtype']}")
        shape = spec.get("shape")
        if shape is not None:
            if arr.ndim != len(shape):
                raise PtoRuntimeError(f"tensor {name!r}: rank {arr.ndim} does not match manifest shape {shape}")
            for dim, (want, got) in enumerate(zip(shape, arr.shape)):
                if isinstance(want, int):
                    if want != got:
                        raise PtoRuntimeError(f"tensor {name!r}: dim {dim} is {got}, manifest says {want}")
                else:
                    if symbols.setdefault(str(want), got) != got:
                        raise PtoRuntimeError(
                            f"tensor {name!r}: dim {dim} is {got}, but {want} = {symbols[str(want)]} elsewhere"
                        )
        if arr.ndim == 0 or arr.ndim > 5:
            raise PtoRuntimeError(f"tensor {name!r}: rank {arr.ndim} is not in 1..5")
        if not arr.flags.c_contiguous:
            raise PtoRuntimeError(f"tensor {name!r}: array must be C-contiguous")
        if spec["direction"] != "in" and not arr.flags.writeable:
            raise PtoRuntimeError(f"tensor {name!r}: output array is read-only")
        # simpler takes host memory through a writable buffer; copy read-only inputs.
        out.append(arr if arr.flags.writeable else arr.copy())
    return out


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

    tensor_args = [a for a in manifest["arguments"] if a["kind"] == "tensor"]
    scalar_args = [a for a in manifest["arguments"] if a["kind"] == "scalar"]
    host_arrays = _check_arrays(tensor_args, list(arrays))
    empty = [spec["name"] for spec, arr in zip(tensor_args, host_arrays) if arr.size == 0]
    if empty:
        written = [spec["name"] for spec, arr in zip(tensor_args, host_arrays) if spec["direction"] != "in" and arr.size]
        if not written:
            # Every output is empty (an empty batch): there is nothing to write, as on the cpu.
            return
        raise PtoRuntimeError(f"tensors {empty} are empty while the outputs {written} are not: pto-runtime takes no "
                              "empty tensor, so this call cannot run on the device (the cpu runs it)")
    if len(scalars) != len(scalar_args):
        raise PtoRuntimeError(f"expected {len(scalar_args)} scalars, got {len(scalars)}")
    scalar_bits = [_encode_scalar(s, v) for s, v in zip(scalar_args, scalars)]

    _set_log_level()
    _DEVICE.call(_compile_and_run, pkg, manifest, platform, runtime, pto_isa_root, tensor_args, host_arrays, scalar_bits)


class _DeviceThread:
    """Every compile and run of this process, one at a time, on one thread that lives as long as the
    process. A thread that has run pto-runtime crashes when it exits (the runtime leaves thread-local
    state whose destructor outlives the library it belongs to), so no call may run it on the caller's
    thread (a Python thread, a server's worker); and two workers on device 0 at once corrupt each
    other's state."""

    def __init__(self):
        self._lock = threading.Lock()
        self._requests = None

    def _serve(self):
        while True:
            future, function, args = self._requests.get()
            try:
                future.set_result(function(*args))
            except BaseException as e:  # handed to the caller's thread, which raises it
                future.set_exception(e)

    def call(self, function, *args):
        with self._lock:
            if self._requests is None:
                self._requests = queue.SimpleQueue()
                # A daemon: at exit it is stopped, not joined, so it never runs its exit path.
                threading.Thread(target=self._serve, name="htp-pto-device", daemon=True).start()
        future = Future()
        self._requests.put((future, function, args))
        while not wait([future], timeout=0.1).done:  # waits in slices so Ctrl-C reaches the caller
            pass
        return future.result()


_DEVICE = _DeviceThread()


def _compile_and_run(pkg, manifest, platform, runtime, pto_isa_root, tensor_args, host_arrays, scalar_bits) -> None:
    try:
        chip_callable = _compile(pkg, manifest, platform, runtime, pto_isa_root)
    except PtoRuntimeError:
        raise
    except Exception as e:  # compiler failures surface as RuntimeError/OSError from simpler
        raise PtoRuntimeError(f"compiling {pkg} failed: {e}") from e

    from simpler.task_interface import DataType, TaskArgs, TensorArgType
    from simpler.worker import Worker

    tags = {"in": TensorArgType.INPUT, "out": TensorArgType.OUTPUT_EXISTING, "inout": TensorArgType.INOUT}
    worker = Worker(level=2, device_id=0, platform=platform, runtime=runtime)
    handle = worker.register(chip_callable)
    try:
        worker.init()
        args = TaskArgs()
        for spec, arr in zip(tensor_args, host_arrays):
            dtype = getattr(DataType, _DTYPES[spec["dtype"]][0])
            # Level 2 runs in this process, so a host array can be named directly. The run
            # stages arrays H2D and back by the orchestration's signature (`_compile`: an "out"
            # array as "inout"), not by these tags.
            tensor = worker.make_tensor_arg(arr, shapes=tuple(int(d) for d in arr.shape), dtype=int(dtype.value))
            args.add_tensor(tensor, tags[spec["direction"]])
        for bits in scalar_bits:
            args.add_scalar(bits)
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
