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


class TileKind(NamedTuple):
    """A kind of tile of a tile array (AIE: shim, memory, compute)."""
    name: str
    description: str
    #: whether its tiles run code (a core) or only move data
    computes: bool
    memories: Tuple[MemorySpace, ...]
    dma_inputs: int
    dma_outputs: int
    locks: int


class NeighbourAccess(NamedTuple):
    """A tile of kind ``source`` addresses the memories of its neighbour in
    each of ``directions`` (north, south, east, west) when it is of kind
    ``to``."""
    source: str
    to: str
    directions: Tuple[str, ...]


_STEPS = {"north": (0, 1), "south": (0, -1), "east": (1, 0), "west": (-1, 0)}


class TileArray(NamedTuple):
    """A 2-D array of tiles: ``columns`` columns, each holding the rows
    ``rows`` names the kinds of (row 0 first), except ``exceptions``
    (``((column, row), kind)``)."""
    columns: int
    rows: Tuple[str, ...]
    kinds: Tuple[TileKind, ...]
    neighbours: Tuple[NeighbourAccess, ...]
    exceptions: Tuple[Tuple[Tuple[int, int], str], ...]

    def kind(self, name: str) -> Optional[TileKind]:
        return next((k for k in self.kinds if k.name == name), None)

    def kind_at(self, column: int, row: int) -> TileKind:
        """The kind of the tile at (column, row); IndexError outside the array."""
        if not (0 <= column < self.columns and 0 <= row < len(self.rows)):
            raise IndexError(f"the tile ({column}, {row}) is outside the {self.columns}x{len(self.rows)} array")
        name = dict(self.exceptions).get((column, row), self.rows[row])
        return self.kind(name)

    def tiles(self, kind: str) -> List[Tuple[int, int]]:
        """Every (column, row) of the kind ``kind``, row by row."""
        return [(c, r) for r in range(len(self.rows)) for c in range(self.columns) if self.kind_at(c, r).name == kind]

    def addressable(self, column: int, row: int) -> List[Tuple[int, int]]:
        """The tiles whose memories the tile at (column, row) addresses
        directly: itself, then the neighbours the rules name."""
        kind = self.kind_at(column, row).name
        reached = [(column, row)]
        for rule in self.neighbours:
            if rule.source != kind:
                continue
            for direction in rule.directions:
                dc, dr = _STEPS[direction]
                c, r = column + dc, row + dr
                if 0 <= c < self.columns and 0 <= r < len(self.rows) and self.kind_at(c, r).name == rule.to \
                        and (c, r) not in reached:
                    reached.append((c, r))
        return reached


class Architecture(NamedTuple):
    """A target's hardware model: parallel levels, memory spaces and, for
    targets made of one, the array of tiles (None otherwise)."""
    levels: Tuple[ParallelLevel, ...]
    memories: Tuple[MemorySpace, ...]
    array: Optional[TileArray] = None


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
                   Architecture(tuple(ParallelLevel(*l) for l in levels), tuple(MemorySpace(*m) for m in memories),
                                _array(array)))
        for name, description, capabilities, (levels, memories, array) in _htp.targets()
    ]


def _array(array) -> Optional[TileArray]:
    if array is None:
        return None
    columns, rows, kinds, neighbours, exceptions = array
    return TileArray(
        columns, tuple(rows),
        tuple(TileKind(name, description, computes, tuple(MemorySpace(*m) for m in memories), dma_in, dma_out, locks)
              for name, description, computes, memories, dma_in, dma_out, locks in kinds),
        tuple(NeighbourAccess(source, to, tuple(directions)) for source, to, directions in neighbours),
        tuple((tuple(at), kind) for at, kind in exceptions))


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
