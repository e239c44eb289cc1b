"""What the registered targets provide, and which can run a kernel.

Targets register in the native module (the in-tree ``cpu`` and PTO
backends do so on import); each declares named capabilities
(``model:kernel``, ``intrinsic:pto.tadd``, ...). A kernel needs what its IR
uses; compiling it for a target that lacks a need is a ``CompileError`` at
the first line that needs it."""

from __future__ import annotations

from typing import List, NamedTuple, Tuple

from . import _htp


class TargetInfo(NamedTuple):
    name: str
    description: str
    capabilities: Tuple[str, ...]


def targets() -> List[TargetInfo]:
    """Every registered target with its description and capabilities."""
    return [TargetInfo(name, description, tuple(capabilities)) for name, description, capabilities in _htp.targets()]


def intrinsic_sets():
    """``{namespace: {name: (instruction, summary)}}`` of every registered intrinsic set."""
    return {namespace: {name: (op, summary) for name, op, summary in members} for namespace, _, members in _htp.intrinsic_sets()}
