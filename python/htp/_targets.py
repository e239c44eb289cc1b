"""What the registered targets provide, and which can run a kernel.

Targets register in the native module (the in-tree ``cpu`` and PTO
backends do so on import); each declares named capabilities
(``model:kernel``, ``intrinsic:pto.tadd``, ...). A kernel needs what its IR
uses; compiling it for a target that lacks a need is a ``CompileError`` at
the first line that needs it."""

from __future__ import annotations

from typing import List, NamedTuple, Optional, Tuple

from . import _htp


class ParallelLevel(NamedTuple):
    name: str
    #: units per unit of the level above (the first level: in total)
    count: int
    description: str


class MemorySpace(NamedTuple):
    name: str
    #: capacity in bytes; None when only the host bounds it
    bytes: Optional[int]
    alignment: int
    description: str


class Architecture(NamedTuple):
    """A target's hardware model: parallel levels and memory spaces."""
    levels: Tuple[ParallelLevel, ...]
    memories: Tuple[MemorySpace, ...]


class TargetInfo(NamedTuple):
    name: str
    description: str
    capabilities: Tuple[str, ...]
    architecture: Architecture


def targets() -> List[TargetInfo]:
    """Every registered target with its description, capabilities and
    architecture model (empty when it declares none)."""
    return [
        TargetInfo(name, description, tuple(capabilities),
                   Architecture(tuple(ParallelLevel(*l) for l in levels), tuple(MemorySpace(*m) for m in memories)))
        for name, description, capabilities, (levels, memories) in _htp.targets()
    ]


def intrinsic_sets():
    """``{namespace: {name: (instruction, summary)}}`` of every registered
    intrinsic set: those registered in Rust (the instruction is the
    ``tile.intrinsic`` callee, ``pto.tadd``) and those of ``@htp.func``
    compositions registered from Python (``registry.intrinsics``; the
    instruction is ``"@htp.func <module>.<helper>"``, the summary the first
    line of its docstring)."""
    from . import extensions
    from ._kernel import Helper

    sets = {namespace: {name: (op, summary) for name, op, summary in members}
            for namespace, _, members in _htp.intrinsic_sets()}
    for namespace, module in extensions.python_intrinsic_sets().items():
        helpers = {}
        for name, value in sorted(vars(module).items()):
            if isinstance(value, Helper):
                summary = (value.function.__doc__ or "").strip().splitlines()
                helpers[name] = (f"@htp.func {module.__name__}.{name}", summary[0] if summary else "")
        sets[namespace] = helpers
    return sets


def models():
    """``{name: (namespace, description, decorator, constructs, loops)}`` of
    every registered programming model besides HTP's kernels: functions
    decorated ``@<namespace>.<decorator>``, written with its constructs
    (``{name: summary}``) and loop constructors; a target runs them when it
    lists ``model:<name>`` (``docs/extending.md``)."""
    return {name: (namespace, description, decorator, dict(constructs), dict(loops))
            for name, namespace, description, decorator, constructs, loops in _htp.programming_models()}


def layouts():
    """``{name: (description, provider)}`` of every registered layout facet:
    the names ``htp.relayout(tile, name)`` takes and ``layout:<name>``
    capabilities use (``row_major`` and ``col_major`` are HTP's own)."""
    return {name: (description, provider) for name, description, provider in _htp.layouts()}
