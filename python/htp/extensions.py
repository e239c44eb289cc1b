"""Extensions written in Python: separate packages that add to HTP without
editing it, through the same registries the in-tree Rust backends use.

An extension is a module with a ``register(registry)`` function. It is
loaded explicitly (``htp.extensions.load("my_ext")``) or, when installed
with an entry point in the ``htp.extensions`` group, by
``htp.extensions.load_installed()`` (``import htp`` calls it). What it can
add (``docs/extending.md``):

- **targets** (``registry.target``): capabilities, a registered pipeline
  to lower the tile IR with, an emitter in Python that reads the lowered IR
  (as JSON, ``htp_ir::json``) and returns files, and a runner module that
  runs them — checked and selected exactly like ``cpu`` or ``pto-a2a3sim``;
- **pipelines** of registered passes, by name (``registry.pipeline``);
- **intrinsic sets** of ``@htp.func`` compositions of tile ops
  (``registry.intrinsics``), called as ``<module>.<name>(...)`` in kernels;
- **AST mutators** that, when they rewrite a kernel, also ask for a
  pipeline to run on its tile IR (``registry.mutator``);
- **dialects defined in IRDL** (``registry.dialect``), loaded into every
  MLIR context HTP makes;
- **rewrites** as PDL patterns (``registry.rewrite``) or transform-dialect
  scripts (``registry.transform``), run by MLIR's interpreters and
  registered as pipelines.

A Python package cannot link Rust or C++ into ``htp``: ODS dialects and
Rust passes are added in-tree (``docs/extending.md``).
"""

from __future__ import annotations

import hashlib
import importlib
import os
import types
import warnings
from typing import Callable, Dict, List, Optional, Sequence, Union

from . import _htp
from ._cache import cache_directory
from . import mutators as _mutators

#: Entry point group installed extensions register under.
ENTRY_POINT_GROUP = "htp.extensions"

_loaded: Dict[str, types.ModuleType] = {}
_failed: Dict[str, str] = {}


class ExtensionWarning(UserWarning):
    """An installed HTP extension could not be loaded (it is skipped)."""


#: mutator class -> the pipeline it asks for when it changes a kernel.
_mutator_pipelines: Dict[type, str] = {}
#: namespace prefix of Python intrinsic sets, as the front end reads it.
_HELPERS_PREFIX = "python:"


class Registry:
    """What an extension's ``register(registry)`` adds to; one per extension
    (its name is the extension module's)."""

    def __init__(self, extension: str):
        self.extension = extension

    def target(self, name: str, *, description: str, capabilities: Sequence[str],
               emitter: Callable[[str, str], Dict[str, str]], runner: str,
               pipeline: Optional[str] = None, architecture=None) -> None:
        """A target named ``name``. ``capabilities``: what it provides
        (``model:kernel``, ``dtype:f32``, ``op:tile.add``, ... see
        ``htp.targets()``); a kernel needing anything else gets a
        diagnostic at its line naming the targets that provide it.
        ``pipeline`` (registered names or passes, as inside
        ``builtin.module(...)``) lowers the tile IR first; ``emitter(ir_json,
        kernel_name)`` returns ``{relative path: text}``; ``runner`` names a
        module with ``find_runtime()`` and ``run_package(directory, tensors,
        scalars)``. An emitter refuses a kernel by raising
        ``htp.CompileError("file:line:col: error: ...")``. ``architecture``:
        an ``htp.Architecture`` (parallel levels, memory spaces with
        capacities) shown by ``htp.targets()``."""
        levels = [tuple(level) for level in architecture.levels] if architecture else []
        memories = [tuple(memory) for memory in architecture.memories] if architecture else []
        _htp.register_target(name, description, list(capabilities), emitter, runner, pipeline, levels, memories)

    def layout(self, name: str, build: Callable[[int, int, int], Optional[list]], description: str = "") -> None:
        """A layout facet named ``name`` (``htp.relayout(tile, name)`` in a
        kernel, ``layout:<name>`` in target capabilities).
        ``build(rows, cols, element_bits)`` returns the layout of such a tile
        as Axe parts — per dimension, outermost first, a list of
        ``(extent, axis, stride)`` (axis ``"m"``: the element offset in the
        tile's buffer) — or None when the facet has no form for it. A name
        taken by another provider is an error."""
        _htp.register_layout_facet(name, description or f"registered by {self.extension}", self.extension, build)

    def pipeline(self, name: str, passes: str, description: str = "") -> None:
        """A named pipeline of registered passes (``passes`` as inside
        ``builtin.module(...)``), usable in other pipelines and targets."""
        _htp.register_pipeline(name, description or f"registered by {self.extension}", passes)

    def transform(self, name: str, script: str, entry_point: str = "__transform_main", description: str = "") -> None:
        """A rewrite written as a transform-dialect script (a module with
        ``transform.with_named_sequence`` and the named sequence
        ``entry_point``), run by MLIR's transform interpreter on the tile
        module, registered as the pipeline ``name`` (usable by targets and
        mutators like any other pipeline). Use it for MLIR's own transform
        ops (``transform.apply_patterns`` with upstream pattern sets, loop
        transforms); rewrites of your own are PDL patterns (``rewrite``)."""
        directory = cache_directory("transforms")
        os.makedirs(directory, exist_ok=True)
        digest = hashlib.sha256(script.encode()).hexdigest()[:16]
        path = os.path.join(directory, f"{name}-{digest}.mlir")
        if not os.path.exists(path):
            with open(path + ".tmp", "w", encoding="utf-8") as handle:
                handle.write(script)
            os.replace(path + ".tmp", path)
        passes = (f"transform-preload-library{{transform-library-paths={path}}},"
                  f"transform-interpreter{{entry-point={entry_point}}}")
        _htp.register_pipeline(name, description or f"transform script registered by {self.extension}", passes)

    def rewrite(self, name: str, patterns: str, description: str = "") -> None:
        """Rewrite patterns written in PDL (``patterns``: ``pdl.pattern`` ops,
        MLIR's pattern language), applied greedily by MLIR's PDL interpreter
        (the pass ``htp-apply-pdl{patterns=<name>}``) and registered as the
        pipeline ``name``. They may create ops of dialects registered with
        ``dialect``. Invalid PDL or a name already taken is an error here."""
        _htp.register_pdl_patterns(name, self.extension, patterns)
        _htp.register_pipeline(name, description or f"PDL rewrites registered by {self.extension}",
                               f"htp-apply-pdl{{patterns={name}}}")

    def dialect(self, irdl: str) -> List[str]:
        """Defines dialects in IRDL (``irdl`` holds ``irdl.dialect @name {
        irdl.operation @op { ... } }``), loaded into every MLIR context HTP
        makes from now on: their ops parse, verify and print, rewrites
        (``rewrite``) may create them and a target's emitter reads them (a
        target accepts a kernel's ops of dialect ``d`` with the capability
        ``dialect:d``). Returns the dialects' names; a name HTP, MLIR or
        another extension already uses, or IRDL that does not load, is an
        error."""
        return list(_htp.register_irdl(self.extension, irdl))

    def intrinsics(self, module: types.ModuleType, name: Optional[str] = None) -> None:
        """``module``'s ``@htp.func`` helpers become an intrinsic set: a
        kernel whose module imports ``module`` (under any name) calls them
        as ``<alias>.<helper>(...)``. They compose tile ops, so every target
        that runs those ops runs them."""
        module.__htp_namespace__ = _HELPERS_PREFIX + (name or module.__name__)

    def mutator(self, mutator: type, pipeline: Optional[str] = None) -> None:
        """Registers an AST mutator for every kernel (``htp.mutators``); when
        it changes a kernel, ``pipeline`` runs on the kernel's tile IR
        before the target lowers it."""
        _mutators.register(mutator)
        if pipeline is not None:
            _mutator_pipelines[mutator] = pipeline


def load(extension: Union[str, types.ModuleType]) -> types.ModuleType:
    """Imports ``extension`` (a module or its name) and calls its
    ``register(registry)`` once."""
    module = importlib.import_module(extension) if isinstance(extension, str) else extension
    if module.__name__ in _loaded:
        return module
    register = getattr(module, "register", None)
    if not callable(register):
        raise TypeError(f"the HTP extension {module.__name__} has no register(registry) function")
    register(Registry(module.__name__))
    _loaded[module.__name__] = module
    return module


def load_installed() -> List[str]:
    """Loads every installed package that declares an entry point in the
    ``htp.extensions`` group; returns their module names. An extension that
    fails to import or register is skipped with an ``ExtensionWarning``
    naming it and the cause (``failed()`` lists them): one stale install
    (an editable package whose source moved) must not make ``import htp``
    fail for every program."""
    from importlib.metadata import entry_points

    names = []
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            names.append(load(entry.load()).__name__)
        except Exception as error:  # report which extension and why, then go on
            _failed[entry.name] = f"{entry.value}: {type(error).__name__}: {error}"
            warnings.warn(
                f"the HTP extension '{entry.name}' ({entry.value}) failed to load and is skipped: "
                f"{type(error).__name__}: {error}",
                ExtensionWarning,
                stacklevel=2,
            )
    return names


def failed() -> Dict[str, str]:
    """Installed extensions that failed to load: entry-point name -> cause."""
    return dict(_failed)


def loaded() -> List[str]:
    """The names of the extensions loaded so far."""
    return list(_loaded)


def dialects() -> List[tuple]:
    """(dialect, extension) of every dialect extensions defined in IRDL."""
    return list(_htp.irdl_dialects())


def pipelines() -> List[tuple]:
    """(name, description, passes) of every registered pipeline."""
    return list(_htp.pipelines())


def pipelines_for(changed_by: Sequence[type]) -> List[str]:
    """The pipelines the mutators in ``changed_by`` ask for, in order."""
    return [_mutator_pipelines[m] for m in changed_by if m in _mutator_pipelines]


def is_intrinsic_module(value) -> bool:
    return isinstance(value, types.ModuleType) and \
        str(getattr(value, "__htp_namespace__", "")).startswith(_HELPERS_PREFIX)
