"""``@htp.kernel``: a Python function compiled by HTP.

The decorator keeps the function's source; calling the kernel compiles it
(once per target and set of compile-time constants) through the Rust front
end and the target's MLIR pipeline, checks the arguments against the
kernel's signature, and runs it. Output tensors the caller does not pass are
allocated and returned. Arrays that are not dense row-major are copied for
the call (outputs are copied back), so every array gives numpy's result.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import json
import linecache
import os
import re
import shutil
import sys
import tempfile
import threading
import textwrap
import types
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from . import _htp
from . import _atomic
from . import _reprint
from ._cache import cache_directory
from . import extensions as _extensions
from . import mutators as _mutators
from .errors import ArgumentError, CompileError, TargetError
from .types import ELEMENT_TYPES


class Parameter:
    """One parameter of a compiled kernel, as the Rust front end read it."""

    def __init__(self, name, kind, dtype, shape, is_output, arg_index, layout):
        self.name = name
        #: "tensor", "scalar", "constant", or "window": a communication window (``comm.Window``), a
        #: tensor no call passes (a group of chips allocates it for each run).
        self.kind = kind
        self.dtype = ELEMENT_TYPES.get(dtype) if dtype else None
        self.shape = list(shape)  # ints and symbol names
        self.is_output = is_output
        self.arg_index = arg_index  # position among the compiled function's arguments
        #: A tensor's memory order: "row_major" (C) or "col_major" (Fortran).
        self.layout = layout or None
        #: numpy's name of that order.
        self.order = "F" if layout == "col_major" else "C"

    def __repr__(self) -> str:
        if self.kind == "window":
            return f"{self.name}: comm.Window[{self.dtype!r}, {', '.join(map(repr, self.shape))}]"
        if self.kind == "tensor":
            dims = ", ".join(map(repr, self.shape))
            if self.layout == "col_major":
                dims += ', htp.layout("col_major")'
            return f"{self.name}: {'Out' if self.is_output else 'Tensor'}[{self.dtype!r}, {dims}]"
        return f"{self.name}: {self.kind} {self.dtype!r}"


def _complete_package(directory: str) -> bool:
    """Whether ``directory`` holds a package whose manifest reads whole."""
    try:
        with open(os.path.join(directory, "manifest.json"), encoding="utf-8") as handle:
            return isinstance(json.load(handle), dict)
    except (OSError, ValueError):
        return False


class CompiledKernel:
    """A kernel compiled for one target with fixed compile-time constants.

    ``ir`` maps each pipeline stage ("tile", "llvm", ...) to its MLIR text."""

    def __init__(self, kernel: "Kernel", compiled, target: str, constants: Dict[str, Any]):
        self.kernel = kernel
        self.target = target
        self.constants = dict(constants)
        self._compiled = compiled
        self.parameters = [Parameter(*p) for p in compiled.signature()]
        self.ir = dict(compiled.stages())
        #: (relative path -> contents) of the package a vendor runtime runs
        #: (PTO targets); empty for the CPU. Contents are ``str`` for text
        #: files and ``bytes`` for binary ones.
        self.files = dict(compiled.files())
        # The package's directory in the cache, once it is written (`_package_directory`).
        self._package = None
        self._package_lock = threading.Lock()

    def write_package(self, directory) -> str:
        """Write the package (PTO targets) into ``directory``; returns its path."""
        if not self.files:
            raise ValueError(f"target {self.target!r} runs in this process and makes no package")
        root = os.path.abspath(os.fspath(directory))
        for relative, contents in self.files.items():
            # Each file atomically: a reader of a package being rewritten sees the old file or the new one.
            _atomic.write_file(os.path.join(root, relative), contents)
        return root

    def _package_directory(self) -> str:
        """The package in the cache (``packages/<kernel>-<digest>``), written
        once per compiled kernel: into a temporary directory beside it, then
        renamed into place, so concurrent callers (threads or processes)
        never see a partial package; one already there with a complete
        manifest is reused."""
        with self._package_lock:
            if self._package is not None:
                return self._package
            digest = hashlib.sha256(b"".join(k.encode() + (v if isinstance(v, bytes) else v.encode())
                                             for k, v in sorted(self.files.items()))).hexdigest()[:16]
            final = cache_directory("packages", f"{self.kernel.name}-{digest}")
            if not _complete_package(final):
                parent = os.path.dirname(final)
                os.makedirs(parent, exist_ok=True)
                temporary = tempfile.mkdtemp(prefix=f".{os.path.basename(final)}.", dir=parent)
                try:
                    self.write_package(temporary)
                    try:
                        os.rename(temporary, final)
                    except OSError:
                        if not _complete_package(final):
                            # Left half-written by an older writer: replace it.
                            shutil.rmtree(final, ignore_errors=True)
                            os.rename(temporary, final)
                finally:
                    shutil.rmtree(temporary, ignore_errors=True)
            self._package = final
            return final

    def _runner(self):
        """The module that runs the target's packages (its ``run_package(directory, tensors,
        scalars)``, and ``open_session`` if it keeps state): htp knows no backend."""
        name = self._compiled.runner()
        try:
            runner = importlib.import_module(name)
        except ImportError as error:
            raise TargetError(f"error: cannot run {self.kernel.name} on {self.target}: its runner module '{name}' "
                              f"cannot be imported ({type(error).__name__}: {error})") from None
        problem = runner.find_runtime()
        if problem is not None:
            raise RuntimeError(f"cannot run {self.kernel.name} on {self.target}: {problem} "
                               "(compiling works without it: see CompiledKernel.write_package)")
        return runner

    def group(self, chips: int):
        """A group session of this package on ``chips`` chips: the target's runner's
        ``open_session(package, chips=n)`` (on PTO a :class:`htp.pto.runtime.GroupSession`:
        ``run`` with each chip's arguments, ``place`` per-chip state; docs/serving.md, "Several
        chips"). How a kernel with communication windows (``comm.Window``) runs."""
        if not self.files:
            raise TargetError(f"error: {self.kernel.name} on {self.target} runs in this process: a group of chips runs "
                              "a target's packages (a PTO target)")
        runner = self._runner()
        if not hasattr(runner, "open_session"):
            raise TargetError(f"error: the runner of {self.target} ('{runner.__name__}') keeps no session, so it runs no group")
        return runner.open_session(self._package_directory(), chips=chips)

    def _run_package(self, call_arguments):
        runner = self._runner()
        directory = self._package_directory()
        tensors = [a for a in call_arguments if isinstance(a, np.ndarray)]
        scalars = [a for a in call_arguments if not isinstance(a, np.ndarray)]
        runner.run_package(directory, tensors, scalars)

    def __call__(self, *args, **kwargs):
        caller = _caller()
        try:
            return self._call(self.kernel._bind(args, kwargs, caller), caller)
        except CompileError as error:
            raise _for_user(error, caller) from error.__cause__
        except (IndexError, ZeroDivisionError, ValueError) as error:
            # A failed run-time check; the message names the kernel's line.
            raise error.with_traceback(None) from None

    def prepare(self, *args, **kwargs) -> "PreparedCall":
        """Checks a call's arguments once and returns a :class:`PreparedCall`
        that runs this kernel (or workload) on exactly these arrays again and
        again, without checking them again: the per-step call of a serving
        loop whose buffers stay the same (KV caches, outputs, plans written
        in place between steps). Arguments are as for a call; errors are
        raised here, at the caller's line, as a call would raise them.

        The prepared call holds the arrays: write new values into them
        between calls, or pass a call the arguments that change
        (``step(tokens=t, position=p)``): only those are checked, against the
        prepared ones (the same dtypes, and sizes that agree with the
        prepared arrays' symbolic sizes), for that call alone. Outputs left
        out are allocated once and written by every call. Each call checks
        that every prepared array kept its shape and strides (an in-place
        reshape is an ``ArgumentError``); arrays a call hands over as copies
        (strided views, inputs overlapping an output) are copied again on
        every call."""
        caller = _caller()
        try:
            bound = self.kernel._bind(args, kwargs, caller)
            return PreparedCall(self, bound, caller)
        except CompileError as error:
            raise _for_user(error, caller) from error.__cause__

    def metrics(self, *args, **kwargs) -> Dict[str, float]:
        """Static metrics of one call with these arguments (as the kernel
        takes them: numpy arrays, numbers; outputs may be omitted), computed
        from the compiled code without running it: for PTO targets the GM
        bytes read and written (totals and per tensor, ``read_bytes.<name>``),
        flags, barriers, cross-core hand-overs and peak on-chip bytes.
        Targets without metrics raise TargetError."""
        caller = _caller()
        try:
            arguments, _, _ = self._arguments(self.kernel._bind(args, kwargs, caller), caller)
        except CompileError as error:
            raise _for_user(error, caller) from None
        shapes = [list(a.shape) for a in arguments if isinstance(a, np.ndarray)]
        scalars = [float(a) for a in arguments if not isinstance(a, np.ndarray)]
        entries = self._compiled.static_metrics(shapes, scalars)
        if entries is None:
            raise TargetError(f"error: target {self.target!r} computes no static metrics")
        # Per-tensor entries are numbered among the tensors: name them.
        tensors = sorted((p for p in self.parameters if p.kind == "tensor"), key=lambda p: p.arg_index)
        result = {}
        for key, value in entries:
            base, _, index = key.partition(".")
            if index.isdigit():
                key = f"{base}.{tensors[int(index)].name}"
            result[key] = value
        return result

    def _call(self, bound: Dict[str, Any], caller):
        """Check the arguments against the signature, run, return the outputs."""
        arguments, outputs, copy_back = self._arguments(bound, caller)
        # What the target checks before anything runs (a CSP program's protocol on these shapes).
        self._compiled.check_call(arguments)
        try:
            if self.files:
                self._run_package(arguments)
            else:
                self._compiled.run(arguments)
        finally:
            # Also when the run fails (a run-time check's IndexError, an
            # interrupt): an output the kernel wrote through a copy keeps the
            # writes made before the failure, as one passed as is does.
            for view, array in copy_back:
                view[...] = array
        results = [outputs[p.name] for p in self.parameters if p.name in outputs]  # parameter order
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    def _arguments(self, bound: Dict[str, Any], caller, group: bool = False):
        """The compiled function's arguments for a call (checked against the
        signature; omitted outputs allocated), the outputs to return by name,
        and the (caller's view, dense copy) pairs to copy back after a run.
        A communication window's place is left ``None`` for a ``group`` run
        (the group allocates it); any other call of a kernel with windows is
        refused, naming the group session that runs it."""
        name = self.kernel.name
        windows = [p.name for p in self.parameters if p.kind == "window"]
        given = [w for w in windows if w in bound]
        if given:
            raise _argument_error(caller, f"{name}(): {', '.join(map(repr, given))} is a communication window "
                                          "(comm.Window): no call passes it, the group of chips allocates it for each run")
        if windows and not group:
            raise _argument_error(
                caller,
                f"{name}() communicates with other chips (its communication windows: {', '.join(windows)}), so it runs "
                f"on a group of chips, each chip with its own arguments: `{name}.compile(target=...).group(chips=n)` "
                "opens one (its `run` takes one argument list per chip; docs/serving.md, \"Several chips\"), or run it as "
                "a task of a workload a group runs")
        symbols: Dict[str, int] = {}
        arguments: List[Any] = [None] * sum(p.arg_index is not None for p in self.parameters)
        outputs: Dict[str, np.ndarray] = {}
        copy_back = []  # (caller's strided output view, the contiguous array the kernel wrote)
        missing_outputs = []
        for parameter in self.parameters:
            if parameter.kind == "window":
                continue
            if parameter.kind == "constant":
                # Folded into this compiled code: another value would be ignored.
                default = self.kernel._python_signature.parameters[parameter.name].default
                fixed = self.constants.get(parameter.name, default)
                if parameter.name in bound and not _same_constant(bound[parameter.name], fixed):
                    raise _argument_error(
                        caller,
                        f"{name}(): '{parameter.name}' is a compile-time constant, compiled as {fixed!r}; "
                        "compile() again to change it",
                    )
                continue
            value = bound.get(parameter.name)
            if parameter.kind == "scalar" and parameter.name not in bound:
                # A run-time scalar left out takes its default, as in Python (and as a call
                # from another kernel does).
                default = self.kernel._python_signature.parameters[parameter.name].default
                if default is not inspect.Parameter.empty:
                    bound = {**bound, parameter.name: default}
                    value = default
            if parameter.kind == "tensor" and parameter.is_output and value is None:
                missing_outputs.append(parameter)
            elif parameter.name not in bound:
                raise _argument_error(caller, f"{name}(): missing argument '{parameter.name}'")
            elif parameter.kind == "scalar":
                arguments[parameter.arg_index] = _check_scalar(name, parameter, value, caller)
            else:
                _check_tensor(name, parameter, value, symbols, caller)
                arguments[parameter.arg_index] = _dense(name, parameter, value, copy_back, caller)
                if parameter.is_output:
                    outputs[parameter.name] = value
        _separate_overlaps(name, self.parameters, bound, arguments, caller)
        for parameter in missing_outputs:
            shape = []
            for dim in parameter.shape:
                if isinstance(dim, str) and dim not in symbols:
                    raise _argument_error(
                        caller,
                        f"{name}(): pass output '{parameter.name}': its size '{dim}' is not fixed by any input",
                    )
                shape.append(symbols[dim] if isinstance(dim, str) else dim)
            array = np.zeros(shape, dtype=parameter.dtype.numpy_dtype, order=parameter.order)
            arguments[parameter.arg_index] = array.view(parameter.dtype.native_dtype)
            outputs[parameter.name] = array
        return arguments, outputs, copy_back

    def __repr__(self) -> str:
        return f"<htp.CompiledKernel {self.kernel.name} for {self.target}>"


class PreparedCall:
    """A call of a :class:`CompiledKernel` whose arguments were checked once
    (``CompiledKernel.prepare``). Calling it runs the kernel on the same
    arrays and returns the outputs, as the call it was prepared from would;
    what depends only on those arguments (their checks, the native argument
    list, the target's ``check_call``) is not done again."""

    def __init__(self, compiled: CompiledKernel, bound: Dict[str, Any], caller):
        self.compiled = compiled
        self._bound = bound
        self._parameters = {p.name: p for p in compiled.parameters if p.kind != "constant"}
        arguments, outputs, copy_back = compiled._arguments(bound, caller)
        # The symbolic sizes the prepared arrays fix: a replacement must agree with them.
        self._symbols: Dict[str, int] = {}
        for p in compiled.parameters:
            if p.kind == "tensor" and isinstance(bound.get(p.name), np.ndarray):
                for dim, size in zip(p.shape, bound[p.name].shape):
                    if isinstance(dim, str):
                        self._symbols.setdefault(dim, size)
        # Missing outputs are allocated now, once: later calls write the same arrays.
        for name, array in outputs.items():
            bound.setdefault(name, array)
        compiled._compiled.check_call(arguments)
        self._arguments = arguments
        self._results = [outputs[p.name] for p in compiled.parameters if p.name in outputs]
        given = [(p, bound[p.name]) for p in compiled.parameters
                 if p.kind == "tensor" and isinstance(bound.get(p.name), np.ndarray)]
        #: (array, shape, strides) of every array: what a call checks again.
        self._layout = [(value, value.shape, value.strides) for _, value in given]
        # Arguments that are copies of the caller's arrays must be made again per call.
        self._copies = bool(copy_back) or any(
            not np.may_share_memory(arguments[p.arg_index], value) for p, value in given if value.size)

    def __call__(self, **changed):
        for array, shape, strides in self._layout:
            if array.shape != shape or array.strides != strides:
                raise _argument_error(
                    _caller(), f"{self.compiled.kernel.name}(): an array of this prepared call changed its shape or "
                    f"strides since prepare() (now {array.shape}, strides {array.strides}): prepare the call "
                    "again").with_traceback(None)
        arguments, results = self._arguments, self._results
        slow = self._copies
        if changed:
            arguments, results, slow = self._replaced(changed, slow)
        try:
            if slow:
                caller = _caller()
                bound = dict(self._bound, **changed)
                try:
                    return self.compiled._call(bound, caller)
                except CompileError as error:
                    raise _for_user(error, caller) from error.__cause__
            if self.compiled.files:
                self.compiled._run_package(arguments)  # a package target's runner, as `_call` runs it
            else:
                self.compiled._compiled.run(arguments)
        except (IndexError, ZeroDivisionError, ValueError) as error:
            # A failed run-time check; the message names the kernel's line.
            raise error.with_traceback(None) from None
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    def _replaced(self, changed: Dict[str, Any], slow: bool):
        """The native arguments and the results with ``changed`` in place of
        the prepared ones, each checked alone; ``slow`` when one must be
        handed over as a copy (then the call checks everything)."""
        name = self.compiled.kernel.name
        arguments = list(self._arguments)
        results = None
        for key, value in changed.items():
            parameter = self._parameters.get(key)
            if parameter is None:
                known = ", ".join(self._parameters)
                raise _argument_error(_caller(), f"{name}(): no run-time argument '{key}' to change "
                                      f"(its arguments: {known})").with_traceback(None)
            if parameter.kind == "scalar":
                arguments[parameter.arg_index] = _check_scalar(name, parameter, value, _caller())
                continue
            _check_tensor(name, parameter, value, dict(self._symbols), _caller())
            contiguous = value.flags.f_contiguous if parameter.order == "F" else value.flags.c_contiguous
            others = [a for p, a in ((p, self._bound.get(p.name)) for p in self._parameters.values())
                      if p.name != key and isinstance(a, np.ndarray) and (p.is_output or parameter.is_output)]
            if (not (contiguous and value.flags.aligned) or value.dtype == np.bool_
                    or any(np.may_share_memory(value, other) for other in others)):
                slow = True  # a copy, or numpy's rule for overlaps: the full call decides
                continue
            arguments[parameter.arg_index] = value.view(parameter.dtype.native_dtype)
            if parameter.is_output:
                if results is None:
                    results = [self._bound[p.name] for p in self.compiled.parameters if p.is_output
                               and p.kind == "tensor" and p.name in self._bound]
                outputs = [p.name for p in self.compiled.parameters if p.is_output and p.kind == "tensor"
                           and p.name in self._bound]
                results[outputs.index(key)] = value
        return arguments, results if results is not None else self._results, slow

    def __repr__(self) -> str:
        return f"<htp.PreparedCall {self.compiled.kernel.name} for {self.compiled.target}>"


class Kernel:
    """A Python function marked ``@htp.kernel``."""

    def __init__(self, function: Callable, mutators: Sequence[type] = (), pipelines: Sequence[str] = ()):
        self.function = function
        self.name = function.__name__
        self._mutators = tuple(mutators)
        # Pipelines run on every compile of this kernel (before the target
        # lowers it): what a model's schedule object asks for.
        self._pipelines = tuple(pipelines)
        self._cache: Dict[tuple, CompiledKernel] = {}
        self._compile_lock = threading.RLock()
        self._python_signature = inspect.signature(function)
        # The compile-time constants' names, read once (a call picks their values out).
        self._constant_names = tuple(name for name, parameter in self._python_signature.parameters.items()
                                     if _is_const_annotation(parameter.annotation))
        self.__doc__ = function.__doc__
        _capture(function)

    def sources(self) -> List[tuple]:
        """(text, file name, first line) of this kernel and of every kernel
        and ``@htp.func`` helper it calls (found through its global names),
        after any user AST mutators: what the Rust front end compiles."""
        return self._sources_and_pipelines()[0]

    def _sources_and_pipelines(self):
        """The sources, and the pipelines that the mutators which changed
        them ask for (``htp.extensions``)."""
        mutators = _mutators.registered() + self._mutators
        changed: List[type] = []
        sources = []
        # Callees are found from each function's names after the mutators
        # ran: a mutator may introduce calls (of an intrinsic set, a helper).
        found = [self.function]
        seen = {self.function}
        # One scan of a module's globals for its namespaces, not one per
        # function (a chain of n helpers in one module was quadratic).
        namespaces: Dict[int, List[tuple]] = {}
        for function in found:
            names: List[str] = []
            module_namespaces = namespaces.get(id(function.__globals__))
            if module_namespaces is None:
                module_namespaces = namespaces[id(function.__globals__)] = _namespaces(function)
            sources.append(_source_of(function, mutators, changed, names, module_namespaces))
            for callee in _named_callees(function, names):
                if callee not in seen:
                    seen.add(callee)
                    found.append(callee)
        _check_distinct_names(found)
        return sources, list(self._pipelines) + _extensions.pipelines_for([m for m in mutators if m in changed])

    def targets(self, **constants) -> List[str]:
        """The registered targets this kernel compiles for (with these
        compile-time constants): those whose capabilities cover what it
        needs after its mutators' pipelines, and whose lowering (memory
        capacities, an emitter) accepts it. Each candidate is compiled (and
        kept: a later ``compile`` for it is free); an error in the kernel
        itself is raised."""
        try:
            sources, pipelines = self._sources_and_pipelines()
            candidates = list(_htp.supporting_targets(sources, self.name, dict(constants)))
        except CompileError as error:
            raise error.with_traceback(None) from None
        if pipelines:  # the pipelines may change what the kernel needs
            candidates = [name for name, _, _, _ in _htp.targets()]
        found = []
        for target in candidates:
            try:
                self.compile(target, **constants)
            except CompileError:  # refused by the check or the target (TargetError too)
                continue
            found.append(target)
        return found

    def compile(self, target: str = "cpu", **constants) -> CompiledKernel:
        """Compile for ``target`` with the given compile-time constants
        (others take their defaults)."""
        try:
            return self._compiled_for(target, constants)
        except CompileError as error:
            # The error is located in the user's source: HTP's frames would only hide it (an
            # extension's exception stays the cause, with its own traceback).
            raise error.with_traceback(None) from error.__cause__

    def _compiled_for(self, target: str, constants: dict) -> CompiledKernel:
        # By repr: 1, 1.0 and True are different constants (numpy scalars
        # are their Python numbers first).
        constants = {name: _plain_constant(value) for name, value in constants.items()}
        # The key covers everything that determines the code (as Triton's
        # does): the target, the constants, the captured sources of the
        # kernel and of every kernel and helper it reaches, the mutators and
        # what extensions registered. A helper redefined (a notebook cell run
        # again, importlib.reload) is a new source: the kernel recompiles.
        key = (target, tuple(sorted((name, repr(value)) for name, value in constants.items())), self._dependencies())
        compiled = self._cache.get(key)
        if compiled is not None:
            return compiled
        # One compile when threads race for the first call: the others wait
        # for it (the GIL is released while compiling).
        with self._compile_lock:
            compiled = self._cache.get(key)
            if compiled is None:
                compiled = self._compile(key, target, constants)
        return compiled

    def _dependencies(self) -> tuple:
        """What the compiled code depends on besides target and constants:
        the digest of every reached function's captured source, the
        mutators, the extensions' registrations and HTP's version."""
        mutators = _mutators.registered() + self._mutators
        digests = tuple(_digest_of(function) for function in _callees(self.function))
        return digests, mutators, self._pipelines, _extensions.generation(), _htp.version()

    def _compile(self, key, target: str, constants) -> CompiledKernel:
        declared = set(self._constant_names)
        for name, value in constants.items():
            if name not in declared:
                known = ", ".join(sorted(declared)) or "none"
                error = _argument_error(
                    _caller(),
                    f"{self.name}(): '{name}' is not a compile-time constant of this kernel "
                    f"(its constants: {known})",
                )
                raise error.with_traceback(None) from None
            if not isinstance(value, (bool, int, float)):
                error = _argument_error(
                    _caller(),
                    f"{self.name}(): compile-time constant '{name}' must be an int, float or bool, "
                    f"got {type(value).__name__}",
                )
                raise error.with_traceback(None) from None
            if isinstance(value, int) and not isinstance(value, bool) and not -(1 << 63) <= value < (1 << 63):
                error = _argument_error(
                    _caller(),
                    f"{self.name}(): compile-time constant '{name}' = {value} is out of range: an int "
                    "constant is a signed 64-bit integer, in [-2**63, 2**63 - 1]",
                )
                raise error.with_traceback(None) from None
        sources, pipelines = self._sources_and_pipelines()
        # HTP_DUMP_IR=<dir>: the IR after the import and after every pass,
        # one file each, in <dir>/<kernel>-<target>/.
        dump = os.environ.get("HTP_DUMP_IR")
        dump = os.path.join(dump, f"{self.name}-{target}") if dump else None
        try:
            raw = _htp.compile(sources, self.name, dict(constants), target, pipelines, dump)
        except CompileError as error:
            # An extension emitter's own exception: chained, with its traceback.
            cause = _extensions.take_emitter_failure(target, self.name)
            if cause is None:
                raise
            raise type(error)(str(error)) from cause
        compiled = CompiledKernel(self, raw, target, constants)
        # A compile for older sources (a helper since redefined) is dropped:
        # redefining cells in a notebook does not accumulate compiled code.
        for stale in [k for k in self._cache if k[:2] == key[:2]]:
            del self._cache[stale]
        self._cache[key] = compiled
        return compiled

    def __call__(self, *args, **kwargs):
        caller = _caller()
        try:
            bound = self._bind(args, kwargs, caller)
            constants = {name: bound[name] for name in self._constant_names if name in bound}
            return self.compile("cpu", **constants)._call(bound, caller)
        except CompileError as error:
            raise _for_user(error, caller) from error.__cause__
        except (IndexError, ZeroDivisionError, ValueError) as error:
            # A failed run-time check; the message names the kernel's line.
            raise error.with_traceback(None) from None

    def _bind(self, args, kwargs, caller) -> Dict[str, Any]:
        try:
            return dict(self._python_signature.bind_partial(*args, **kwargs).arguments)
        except TypeError as error:
            raise _argument_error(caller, f"{self.name}(): {error}") from None

    def __repr__(self) -> str:
        return f"<htp.kernel {self.name}>"


class Helper:
    """A function marked ``@htp.func``: inlined into the kernels that call it."""

    def __init__(self, function: Callable):
        self.function = function
        self.name = function.__name__
        _capture(function)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"@htp.func {self.name} runs inside kernels only; call a @htp.kernel instead")


def func(function: Callable) -> Helper:
    """Mark a helper function that kernels call (inlined into them)."""
    return Helper(_require_function(function, "@htp.func"))


def _named_callees(function: Callable, extra_names: Sequence[str] = ()) -> List[Callable]:
    """The kernels and helpers ``function`` names (its code's names plus
    ``extra_names``, those of its mutated source), directly or through a
    Python intrinsic set (``<module>.<helper>``)."""
    own = function.__code__.co_names
    names = list(own) + [n for n in dict.fromkeys(extra_names) if n not in own] if extra_names else own
    found = []
    seen = set()
    namespace = function.__globals__
    for name in names:
        target = namespace.get(name)
        if isinstance(target, (Kernel, Helper)):
            candidates = (target,)  # under its own name or another (`h2 = helper`, `import f as g`)
        elif isinstance(target, types.ModuleType):
            # An intrinsic set, or a module of kernels and helpers (`helpers.twice(...)`).
            candidates = [getattr(target, attribute, None) for attribute in names]
        else:
            continue  # the common case, checked cheaply: this runs on every call (the cache key)
        for candidate in candidates:
            if isinstance(candidate, (Kernel, Helper)) and candidate.function not in seen:
                seen.add(candidate.function)
                found.append(candidate.function)
    return found


def _callees(function: Callable) -> List[Callable]:
    """`function` and, transitively, the kernels and helpers it names (before
    any mutator; ``Kernel.sources`` also reads the mutated names)."""
    found = [function]
    seen = {function}
    for current in found:
        for callee in _named_callees(current):
            if callee not in seen:
                seen.add(callee)
                found.append(callee)
    return found


#: function -> (lines, first line, file name): reading a function's source
#: tokenizes its whole file (``inspect.getsourcelines``), the largest cost of
#: a compile after the mutators; a redefined function is a new object.
_source_lines: "weakref.WeakKeyDictionary[Callable, tuple]" = weakref.WeakKeyDictionary()


def _capture(function: Callable) -> None:
    """Reads ``function``'s source now, at decoration, while its file holds
    the text Python imported: HTP compiles that text even if the file is
    edited before the first call. A function whose source is not available
    (exec, the interactive prompt) is reported when it is compiled."""
    try:
        _lines_of(function)
    except CompileError:
        pass


#: function -> digest of its captured source (file, first line, text).
_digests: "weakref.WeakKeyDictionary[Callable, str]" = weakref.WeakKeyDictionary()


def _digest_of(function: Callable) -> str:
    digest = _digests.get(function)
    if digest is None:
        try:
            lines, first_line, file_name = _lines_of(function)
        except CompileError:
            # No source: compiling reports it; the function object identifies it meanwhile.
            return f"<no source {id(function)}>"
        hasher = hashlib.sha256(f"{file_name}\0{first_line}\0".encode())
        hasher.update("".join(lines).encode())
        digest = hasher.hexdigest()
        try:
            _digests[function] = digest
        except TypeError:
            pass
    return digest


def _check_distinct_names(functions: List[Callable]) -> None:
    """The front end knows the kernels and helpers of one compile by their own names: two different
    functions of one name (``from a import f as f1; from b import f as f2``) are an error at the
    second's definition."""
    def where(f):
        return f"{getattr(f, '__module__', '?')}.{f.__qualname__}"

    by_name: Dict[str, Callable] = {}
    for function in functions:
        other = by_name.setdefault(function.__name__, function)
        if other is function:
            continue
        code = function.__code__
        raise CompileError(
            f"{code.co_filename}:{code.co_firstlineno}:1: error: this kernel calls two different kernels or helpers "
            f"named '{function.__name__}' ({where(other)} and {where(function)}); HTP knows the functions of one "
            "compile by their own names: rename one of them")


def _plain_constant(value):
    """A compile-time constant as the Python number it stands for: numpy's
    scalars (``np.False_``, ``np.int64(3)``, ``np.float32(0.5)``) are
    their ``bool``/``int``/``float``."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def _same_constant(given, fixed) -> bool:
    """Whether a constant passed to a compiled kernel is the one it was
    compiled with (NaN is NaN; 1, 1.0 and True are different constants)."""
    given, fixed = _plain_constant(given), _plain_constant(fixed)
    if isinstance(given, float) and isinstance(fixed, float) and given != given and fixed != fixed:
        return True
    return bool(given == fixed)


def _lines_of(function: Callable) -> tuple:
    cached = _source_lines.get(function)
    if cached is not None:
        return cached
    file_name = inspect.getsourcefile(function) or "<unknown>"
    try:
        lines, first_line = inspect.getsourcelines(function)
    except (OSError, TypeError):
        code = function.__code__
        raise CompileError(
            f"{code.co_filename}:{code.co_firstlineno}:1: error: the source of '{function.__name__}' is not "
            "available (defined with exec/eval or at the interactive prompt), and HTP compiles the source: "
            "put it in a .py file, or give its text a file name first (linecache.cache[name] = (len(text), "
            "None, text.splitlines(True), name); exec(compile(text, name, 'exec')))") from None
    result = (lines, first_line, file_name)
    try:
        _source_lines[function] = result
    except TypeError:  # not weak-referenceable
        pass
    return result


def _source_of(function: Callable, mutators: Sequence[type], changed: Optional[List[type]] = None,
               names: Optional[List[str]] = None, namespaces: Optional[List[tuple]] = None) -> tuple:
    """(text, file, first line, namespaces) of ``function`` after the
    mutators; ``names`` receives the names and attributes of the mutated
    source when a mutator changed it."""
    lines, first_line, file_name = _lines_of(function)
    text = "".join(lines)
    if namespaces is None:
        namespaces = _namespaces(function)
    if not mutators:
        return text, file_name, first_line, namespaces
    # Python's ast helpers (NodeVisitor, unparse) recurse once or more per
    # nesting level: a source CPython compiled (a 1000-term sum) must not
    # stop them at the default recursion limit.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _MUTATOR_RECURSION_LIMIT))
    try:
        return _mutated_source(function, mutators, changed, names, lines, first_line, file_name, text, namespaces)
    except RecursionError:
        raise CompileError(
            f"{file_name}:{first_line}:1: error: '{function.__name__}' is nested too deeply for the AST "
            f"mutators ({', '.join(m.__name__ for m in mutators)}) to visit: split the deepest expression "
            "or statement into parts") from None
    finally:
        sys.setrecursionlimit(limit)


#: The recursion limit while mutators run (Python 3.11+ calls Python
#: functions without growing the C stack, so this is safe).
_MUTATOR_RECURSION_LIMIT = 100_000


def _mutated_source(function, mutators, changed, names, lines, first_line, file_name, text, namespaces):
    dedented = textwrap.dedent(text)
    original = ast.parse(dedented, filename=file_name)
    # A second parse is the mutators' own copy (parsing is C; deepcopy is not).
    tree = ast.parse(dedented, filename=file_name)
    # One dump before and one after each mutator tells which changed the
    # kernel (their pipelines run) and whether the source changed at all
    # (ast.dump recurses per nesting level: under the raised recursion limit).
    original_dump = before = ast.dump(tree)
    for mutator in mutators:
        tree = ast.fix_missing_locations(mutator().visit(tree))
        after = ast.dump(tree)
        if changed is not None and after != before and mutator not in changed:
            changed.append(mutator)
        before = after
    if before == original_dump:
        return text, file_name, first_line, namespaces
    if names is not None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                names.append(node.id)
            elif isinstance(node, ast.Attribute):
                names.append(node.attr)
    before, after = original.body[0], tree.body[0] if tree.body else None
    if not isinstance(after, ast.FunctionDef) or after.name != before.name:
        names = ", ".join(m.__name__ for m in mutators)
        raise CompileError(f"{file_name}:{first_line + before.lineno - 1}:{before.col_offset + 1}: error: the AST "
                           f"mutators ({names}) must keep the kernel a function named '{before.name}'")
    # Laid out on the user's lines: diagnostics point at the user's file.
    raw_lines = [line.rstrip("\n") for line in lines]
    return _reprint.reprint(before, after, raw_lines), file_name, first_line, namespaces


def _namespaces(function: Callable) -> List[tuple]:
    """(name, namespace) for the module's global names that are HTP
    namespaces: ``htp`` itself (however imported) and intrinsic modules
    such as ``htp.pto``; the front end resolves ``name.f(...)`` with them.
    All globals, not only the body's names: annotations use them too."""
    found = []
    for name, value in list(function.__globals__.items()):
        if isinstance(value, (Kernel, Helper)) and value.name != name:
            # A kernel or helper under another name: calls of `name` are calls of it.
            found.append((name, _CALLEE_PREFIX + value.name))
            continue
        if not isinstance(value, types.ModuleType):
            continue
        namespace = getattr(value, "__htp_namespace__", None)
        if isinstance(namespace, str):
            found.append((name, namespace))
        elif any(isinstance(v, (Kernel, Helper)) for v in list(vars(value).values())):
            # A module of kernels and helpers: `name.f(...)` calls its `f`.
            found.append((name, _HELPERS_PREFIX + name))
    return found


#: How `_namespaces` tells the front end that a name is a kernel or helper under another name,
#: and that a module holds kernels and helpers (lib/htp-frontend/src/lower/intrinsic.rs).
_CALLEE_PREFIX = "callee:"
_HELPERS_PREFIX = "python:"


def _is_const_annotation(annotation) -> bool:
    # A string under `from __future__ import annotations`: `htp.Const[int]`, `Const[bool]`, `htp.constexpr`.
    if isinstance(annotation, str):
        return re.match(r"^\s*(\w+\.)?(Const|constexpr)\b", annotation) is not None
    head = getattr(annotation, "head", None) or getattr(annotation, "_name", None)
    return head == "Const"


def _check_tensor(kernel: str, parameter: Parameter, value, symbols: Dict[str, int], caller):
    if not isinstance(value, np.ndarray):
        raise _argument_error(
            caller, f"{kernel}(): '{parameter.name}' must be a numpy array, got {type(value).__name__}"
        )
    if value.dtype not in parameter.dtype.dtypes:
        expected = " or ".join(map(str, parameter.dtype.dtypes))
        raise _argument_error(
            caller,
            f"{kernel}(): '{parameter.name}' must have dtype {expected} ({parameter.dtype!r}), got {value.dtype}",
        )
    if value.ndim != len(parameter.shape):
        raise _argument_error(
            caller,
            f"{kernel}(): '{parameter.name}' must have {len(parameter.shape)} dimensions, got shape {value.shape}",
        )
    for axis, (dim, size) in enumerate(zip(parameter.shape, value.shape)):
        if isinstance(dim, str):
            bound = symbols.setdefault(dim, size)
            if bound != size:
                raise _argument_error(
                    caller,
                    f"{kernel}(): '{parameter.name}' dimension {axis} is {size}, but '{dim}' is {bound} "
                    "from an earlier argument",
                )
        elif dim != size:
            raise _argument_error(
                caller, f"{kernel}(): '{parameter.name}' dimension {axis} must be {dim}, got {size}"
            )
    if parameter.is_output and not value.flags.writeable:
        raise _argument_error(caller, f"{kernel}(): output '{parameter.name}' is read-only")


def _dense(kernel: str, parameter: Parameter, value: np.ndarray, copy_back: list, caller) -> np.ndarray:
    """The array the kernel is handed for ``value``, viewed as the native
    dtype. Kernels address a tensor as dense memory in its declared order
    (row-major, or column-major for ``htp.layout("col_major")``), so an array
    that is not contiguous in that order and aligned (a transpose, a strided
    or reversed slice, a structured array's field, an unaligned view) is
    copied; an
    output's copy starts with the view's contents (the kernel may read them)
    and is written back into the view after the run, leaving the elements
    around the view untouched. Other arrays are passed without a copy.

    A bool array whose bytes are not all 0 or 1 (a uint8 buffer viewed as
    bool) is read as numpy reads it, any non-zero byte True: it is handed
    over as a copy of 0/1 bytes."""
    array = value
    contiguous = value.flags.f_contiguous if parameter.order == "F" else value.flags.c_contiguous
    normalise = value.dtype == np.bool_ and value.size > 0 and bool((value.view(np.uint8) > 1).any())
    if not (contiguous and value.flags.aligned) or normalise:
        array = _copy(kernel, parameter, value, caller)
        if normalise:
            np.not_equal(array.view(np.uint8), 0, out=array)  # any non-zero byte is True
        if parameter.is_output:
            copy_back.append((value, array))
    return array.view(parameter.dtype.native_dtype)


def _copy(kernel: str, parameter: Parameter, value: np.ndarray, caller) -> np.ndarray:
    """A fresh dense copy of ``value`` in the parameter's order (a fresh array
    is aligned; np.ascontiguousarray keeps an unaligned contiguous one). A
    view too large to copy (a broadcast of 2**40 elements from a few bytes)
    is an ArgumentError at the call, not numpy's MemoryError from inside HTP."""
    needed = value.size * value.itemsize
    try:
        available = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        available = None
    problem = None
    if available is not None and needed > available:
        problem = f"more than this machine's {available} bytes of memory"
    else:
        try:
            return np.array(value, order=parameter.order)
        except MemoryError:
            problem = "more than can be allocated"
    raise _argument_error(
        caller,
        f"{kernel}(): '{parameter.name}' (shape {value.shape}, strides {value.strides}) is not dense in memory, "
        f"so the kernel needs a dense copy of it: {needed} bytes, {problem}; pass a smaller view or a dense array",
    ).with_traceback(None)


def _separate_overlaps(kernel: str, parameters: Sequence[Parameter], bound: Dict[str, Any], arguments: List[Any],
                       caller) -> None:
    """numpy's rule for arguments that share memory: as if every input were
    copied before the kernel writes an output. An input (or the input side
    of another tensor) whose memory overlaps an output the caller passed is
    handed to the kernel as a copy; two outputs that overlap are an
    ArgumentError (which write would win is not defined). Overlap is decided
    as exactly as ``np.shares_memory`` decides it (within a work bound; past
    it, the arrays are taken to overlap)."""
    given = [p for p in parameters if p.kind == "tensor" and isinstance(bound.get(p.name), np.ndarray)]
    outputs = [p for p in given if p.is_output]
    if not outputs:
        return
    for index, first in enumerate(outputs):
        for second in outputs[index + 1:]:
            if _overlap(bound[first.name], bound[second.name]):
                raise _argument_error(
                    caller,
                    f"{kernel}(): outputs '{first.name}' and '{second.name}' share memory; which write wins would "
                    "not be defined: pass separate arrays",
                ).with_traceback(None)
    for parameter in given:
        if parameter.is_output:
            continue
        value = bound[parameter.name]
        if any(_overlap(value, bound[output.name]) for output in outputs):
            if not np.may_share_memory(arguments[parameter.arg_index], value):
                continue  # already a copy (strided, or bools normalised)
            arguments[parameter.arg_index] = _copy(kernel, parameter, value, caller).view(
                parameter.dtype.native_dtype)


#: np.shares_memory's work bound: exact for any array a kernel takes in
#: practice; beyond it, overlap is assumed (a needless copy, never a wrong result).
_OVERLAP_WORK = 1 << 20


def _overlap(first: np.ndarray, second: np.ndarray) -> bool:
    if not np.may_share_memory(first, second):
        return False
    try:
        return bool(np.shares_memory(first, second, max_work=_OVERLAP_WORK))
    except _TooHardError:
        return True


_TooHardError = getattr(getattr(np, "exceptions", np), "TooHardError")


_INT_BITS = {"i64": 64, "i32": 32, "i16": 16, "i8": 8}
_FLOAT_MAX = {"f32": float(np.finfo(np.float32).max), "f16": 65504.0, "bf16": 3.3895313892515355e38}


def _check_scalar(kernel: str, parameter: Parameter, value, caller):
    """``value`` as the Python number the native call takes. The native
    binding would convert silently or fail without a location, so a value of
    the wrong kind (a str, None, a complex, a float for an int, a non-bool for
    a bool) or out of the type's range is an ArgumentError at the call."""
    dtype = parameter.dtype
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]  # a 0-d array is a numpy scalar
    is_bool = isinstance(value, (bool, np.bool_))
    is_int = isinstance(value, (int, np.integer)) and not is_bool
    is_float = isinstance(value, (float, np.floating))
    if dtype.name == "i1":
        if is_bool:
            return bool(value)
        problem = "must be a bool"
    elif dtype.name in _INT_BITS:
        low, high = -(1 << (_INT_BITS[dtype.name] - 1)), (1 << (_INT_BITS[dtype.name] - 1)) - 1
        if not is_int:
            problem = "must be an int"
        elif low <= int(value) <= high:
            return int(value)
        else:
            problem = f"must be in [{low}, {high}]"
    else:
        limit = _FLOAT_MAX[dtype.name]
        number = int(value) if is_int else float(value) if is_float else None
        if number is None:
            problem = "must be a float or an int"
        elif abs(number) <= limit or is_float and not np.isfinite(number):
            return float(number)  # rounded to the type, as numpy would
        else:  # it would silently become inf
            problem = f"must be at most {limit:.7g} in magnitude"
    raise _argument_error(
        caller,
        f"{kernel}(): '{parameter.name}' ({dtype!r}) {problem}, got {value!r} ({type(value).__name__})",
    )


def _caller():
    """The frame that called into HTP (skipping HTP's own frames)."""
    frame = sys._getframe(1)
    package = __name__.rsplit(".", 1)[0]
    while frame is not None and frame.f_globals.get("__name__", "").startswith(package + "."):
        frame = frame.f_back
    return frame


def _for_user(error: CompileError, frame) -> CompileError:
    """``error`` to raise from a public entry point: located at the user's call
    when it has no location yet, with HTP's frames dropped (they would only
    hide the user's)."""
    if str(error).startswith("error: "):
        error = type(error)(str(_argument_error(frame, str(error)[len("error: "):])))
    return error.with_traceback(None)


def _argument_error(frame, message: str) -> ArgumentError:
    """An ArgumentError pointing at the caller's source, with an excerpt."""
    if frame is None:
        return ArgumentError(f"error: {message}")
    info = inspect.getframeinfo(frame)
    positions = getattr(info, "positions", None)
    column = (positions.col_offset + 1) if positions and positions.col_offset is not None else 1
    line = linecache.getline(info.filename, info.lineno).rstrip("\n")
    excerpt = f"\n  {line}\n  {' ' * (column - 1)}^" if line else ""
    return ArgumentError(f"{info.filename}:{info.lineno}:{column}: error: {message}{excerpt}")


def _require_function(function, decorator: str) -> Callable:
    """The decorated object must be a plain Python function."""
    if isinstance(function, (Kernel, Helper)):
        already = "@htp.kernel" if isinstance(function, Kernel) else "@htp.func"
        if already == decorator:
            raise TypeError(f"{decorator} is applied twice to '{function.name}'; use it once")
        raise TypeError(f"'{function.name}' is decorated with both @htp.kernel and @htp.func: a function is a "
                        "kernel (called from Python) or a helper (called from kernels), and a kernel can call "
                        "another kernel directly")
    if not inspect.isfunction(function):
        raise TypeError(f"{decorator} decorates a Python function (def ...), not {type(function).__name__}")
    return function


def kernel(function: Optional[Callable] = None, *, mutators: Sequence[type] = ()):
    """Mark a function as an HTP kernel: ``@htp.kernel`` or
    ``@htp.kernel(mutators=[MyTransformer])``."""
    if function is None:
        return lambda f: Kernel(_require_function(f, "@htp.kernel"), mutators)
    return Kernel(_require_function(function, "@htp.kernel"), mutators)


def compile(kernel: Kernel, target: str = "cpu", **constants) -> CompiledKernel:
    """Compile ``kernel`` for ``target`` explicitly (see ``htp.targets()``)."""
    return kernel.compile(target, **constants)
