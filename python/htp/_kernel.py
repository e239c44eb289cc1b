"""``@htp.kernel``: a Python function compiled by HTP.

The decorator keeps the function's source; calling the kernel compiles it
(once per target and set of compile-time constants) through the Rust front
end and the target's MLIR pipeline, checks the arguments against the
kernel's signature, and runs it. Output tensors the caller does not pass are
allocated and returned.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import linecache
import os
import sys
import textwrap
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from . import _htp
from . import mutators as _mutators
from .errors import ArgumentError, CompileError
from .types import ELEMENT_TYPES


class Parameter:
    """One parameter of a compiled kernel, as the Rust front end read it."""

    def __init__(self, name, kind, dtype, shape, is_output, arg_index):
        self.name = name
        self.kind = kind  # "tensor", "scalar" or "constant"
        self.dtype = ELEMENT_TYPES.get(dtype) if dtype else None
        self.shape = list(shape)  # ints and symbol names
        self.is_output = is_output
        self.arg_index = arg_index  # position among the compiled function's arguments

    def __repr__(self) -> str:
        if self.kind == "tensor":
            dims = ", ".join(map(repr, self.shape))
            return f"{self.name}: {'Out' if self.is_output else 'Tensor'}[{self.dtype!r}, {dims}]"
        return f"{self.name}: {self.kind} {self.dtype!r}"


def _cache_root() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "htp", "packages")


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
        #: (PTO targets); empty for the CPU.
        self.files = dict(compiled.files())

    def write_package(self, directory) -> str:
        """Write the package (PTO targets) into ``directory``; returns its path."""
        if not self.files:
            raise ValueError(f"target {self.target!r} runs in this process and makes no package")
        root = os.path.abspath(os.fspath(directory))
        for relative, text in self.files.items():
            path = os.path.join(root, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        return root

    def _run_package(self, call_arguments):
        from . import pto_runtime

        problem = pto_runtime.find_runtime()
        if problem is not None:
            raise RuntimeError(f"cannot run {self.kernel.name} on {self.target}: {problem} "
                               "(compiling works without it: see CompiledKernel.write_package)")
        digest = hashlib.sha256("".join(k + v for k, v in sorted(self.files.items())).encode()).hexdigest()[:16]
        directory = self.write_package(os.path.join(_cache_root(), f"{self.kernel.name}-{digest}"))
        tensors = [a for a in call_arguments if isinstance(a, np.ndarray)]
        scalars = [a for a in call_arguments if not isinstance(a, np.ndarray)]
        pto_runtime.run_package(directory, tensors, scalars)

    def __call__(self, *args, **kwargs):
        caller = _caller()
        return self.kernel._run(self, self.kernel._bind(args, kwargs, caller), caller)

    def __repr__(self) -> str:
        return f"<htp.CompiledKernel {self.kernel.name} for {self.target}>"


class Kernel:
    """A Python function marked ``@htp.kernel``."""

    def __init__(self, function: Callable, mutators: Sequence[type] = ()):
        self.function = function
        self.name = function.__name__
        self._mutators = tuple(mutators)
        self._cache: Dict[tuple, CompiledKernel] = {}
        self._python_signature = inspect.signature(function)
        self.__doc__ = function.__doc__

    def sources(self) -> List[tuple]:
        """(text, file name, first line) of this kernel and of every kernel
        and ``@htp.func`` helper it calls (found through its global names),
        after any user AST mutators: what the Rust front end compiles."""
        mutators = _mutators.registered() + self._mutators
        return [_source_of(function, mutators) for function in _callees(self.function)]

    def compile(self, target: str = "cpu", **constants) -> CompiledKernel:
        """Compile for ``target`` with the given compile-time constants
        (others take their defaults)."""
        key = (target, tuple(sorted(constants.items())))
        compiled = self._cache.get(key)
        if compiled is None:
            raw = _htp.compile(self.sources(), self.name, dict(constants), target)
            compiled = CompiledKernel(self, raw, target, constants)
            self._cache[key] = compiled
        return compiled

    def __call__(self, *args, **kwargs):
        caller = _caller()
        bound = self._bind(args, kwargs, caller)
        constants = {}
        for name, parameter in self._python_signature.parameters.items():
            if _is_const_annotation(parameter.annotation) and name in bound:
                constants[name] = bound[name]
        try:
            compiled = self.compile("cpu", **constants)
        except CompileError as error:
            # The message points at the user's source; HTP's own frames
            # would only hide it.
            raise error.with_traceback(None) from None
        return self._run(compiled, bound, caller)

    def _bind(self, args, kwargs, caller) -> Dict[str, Any]:
        try:
            return dict(self._python_signature.bind_partial(*args, **kwargs).arguments)
        except TypeError as error:
            raise _argument_error(caller, f"{self.name}(): {error}") from None

    def _run(self, compiled: CompiledKernel, bound: Dict[str, Any], caller):
        symbols: Dict[str, int] = {}
        call_arguments: List[Any] = [None] * sum(p.arg_index is not None for p in compiled.parameters)
        outputs = []
        missing_outputs = []
        for parameter in compiled.parameters:
            if parameter.kind == "constant":
                continue
            value = bound.get(parameter.name)
            if value is None and parameter.kind == "tensor" and parameter.is_output:
                missing_outputs.append(parameter)
                continue
            if value is None:
                raise _argument_error(caller, f"{self.name}(): missing argument '{parameter.name}'")
            if parameter.kind == "tensor":
                value = _check_tensor(self.name, parameter, value, symbols, caller)
                if parameter.is_output:
                    outputs.append(value)
            call_arguments[parameter.arg_index] = value
        for parameter in missing_outputs:
            shape = []
            for dim in parameter.shape:
                if isinstance(dim, str) and dim not in symbols:
                    raise _argument_error(
                        caller,
                        f"{self.name}(): pass output '{parameter.name}': its size '{dim}' is not "
                        "fixed by any input",
                    )
                shape.append(symbols[dim] if isinstance(dim, str) else dim)
            array = np.zeros(shape, dtype=parameter.dtype.numpy_dtype)
            call_arguments[parameter.arg_index] = array
            outputs.append(array)
        if compiled.files:
            compiled._run_package(call_arguments)
        else:
            compiled._compiled.run(call_arguments)
        if not outputs:
            return None
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def __repr__(self) -> str:
        return f"<htp.kernel {self.name}>"


class Helper:
    """A function marked ``@htp.func``: inlined into the kernels that call it."""

    def __init__(self, function: Callable):
        self.function = function
        self.name = function.__name__

    def __call__(self, *args, **kwargs):
        raise TypeError(f"@htp.func {self.name} runs inside kernels only; call a @htp.kernel instead")


def func(function: Callable) -> Helper:
    """Mark a helper function that kernels call (inlined into them)."""
    return Helper(function)


def _callees(function: Callable) -> List[Callable]:
    """`function` and, transitively, the kernels and helpers it names."""
    found = [function]
    for current in found:
        for name in current.__code__.co_names:
            target = current.__globals__.get(name)
            if isinstance(target, (Kernel, Helper)) and target.function not in found:
                found.append(target.function)
    return found


def _source_of(function: Callable, mutators: Sequence[type]) -> tuple:
    file_name = inspect.getsourcefile(function) or "<unknown>"
    lines, first_line = inspect.getsourcelines(function)
    text = "".join(lines)
    if not mutators:
        return text, file_name, first_line
    tree = ast.parse(textwrap.dedent(text), filename=file_name)
    for mutator in mutators:
        tree = ast.fix_missing_locations(mutator().visit(tree))
    # Positions in diagnostics refer to the mutated, re-printed source.
    return ast.unparse(tree), f"{file_name} [after AST mutators]", 1


def _is_const_annotation(annotation) -> bool:
    head = getattr(annotation, "head", None) or getattr(annotation, "_name", None)
    return head == "Const"


def _check_tensor(kernel: str, parameter: Parameter, value, symbols: Dict[str, int], caller):
    if not isinstance(value, np.ndarray):
        raise _argument_error(
            caller, f"{kernel}(): '{parameter.name}' must be a numpy array, got {type(value).__name__}"
        )
    expected = parameter.dtype.numpy_dtype
    if value.dtype != expected:
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
    return value


def _caller():
    """The frame that called into HTP (skipping HTP's own frames)."""
    frame = sys._getframe(1)
    package = __name__.rsplit(".", 1)[0]
    while frame is not None and frame.f_globals.get("__name__", "").startswith(package + "."):
        frame = frame.f_back
    return frame


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


def kernel(function: Optional[Callable] = None, *, mutators: Sequence[type] = ()):
    """Mark a function as an HTP kernel: ``@htp.kernel`` or
    ``@htp.kernel(mutators=[MyTransformer])``."""
    if function is None:
        return lambda f: Kernel(f, mutators)
    return Kernel(function, mutators)


def compile(kernel: Kernel, target: str = "cpu", **constants) -> CompiledKernel:
    """Compile ``kernel`` for ``target`` explicitly (see ``htp.targets()``)."""
    return kernel.compile(target, **constants)
