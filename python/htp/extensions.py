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
import re
import types
import warnings
from typing import Callable, Dict, List, Optional, Sequence, Union

from . import _htp
from ._cache import cache_directory
from . import _atomic
from . import mutators as _mutators
from .errors import CompileError, TargetError

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
    (its name is the extension module's).

    Registration is all or nothing. Inside ``load`` the registry only
    records what ``register`` asks for; when ``register`` returns, all of it
    is checked (names free, capabilities known, runner importable, IRDL and
    PDL parse) and only then registered, so an extension whose ``register``
    raises, or asks for anything invalid, leaves nothing behind. A
    ``Registry`` made directly (outside ``load``) registers each call at
    once, with the same checks."""

    def __init__(self, extension: str, *, staged: bool = False):
        self.extension = extension
        #: (kind, name, arguments) recorded inside ``load``; None: immediate.
        self._staged: Optional[List[tuple]] = [] if staged else None

    def _add(self, kind: str, name: str, **arguments) -> None:
        action = (kind, name, arguments)
        if self._staged is None:
            _transact(self.extension, [action])
        else:  # checked with the rest when register() returns
            self._staged.append(action)

    def target(self, name: str, *, description: str, capabilities: Sequence[str],
               emitter: Callable[[str, str], Dict[str, Union[str, bytes]]], runner: str,
               pipeline: Union[None, str, Sequence[str]] = None, architecture=None) -> None:
        """A target named ``name``. ``capabilities``: what it provides
        (``model:kernel``, ``dtype:f32``, ``op:tile.add``, ... see
        ``htp.targets()``; a name that is no known op, element type, layout,
        intrinsic, dialect or model is refused here); a kernel needing
        anything else gets a diagnostic at its line naming the targets that
        provide it. ``pipeline`` (registered names or passes: a string as
        inside ``builtin.module(...)``, or a list of them) lowers the tile
        IR first; ``emitter(ir_json, kernel_name)`` returns ``{relative
        path: contents}``, ``str`` for a text file, ``bytes`` for a binary
        one; ``runner`` names an importable module with
        ``find_runtime()`` and ``run_package(directory, tensors, scalars)``.
        An emitter refuses a kernel by raising
        ``htp.CompileError("file:line:col: error: ...")`` (shown like HTP's
        own diagnostics, with the source line); any other exception is a
        CompileError naming the target, chained to it. ``architecture``:
        an ``htp.Architecture`` (parallel levels, memory spaces with
        capacities) shown by ``htp.targets()``."""
        self._add("target", name, description=description, capabilities=list(capabilities), emitter=emitter,
                  runner=runner, pipeline=_passes(pipeline) if pipeline is not None else None,
                  architecture=architecture)

    def extend_target(self, target: str, name: Optional[str] = None, *, capabilities: Sequence[str] = (),
                      stages: Sequence[tuple] = ()) -> None:
        """Extends the registered target ``target`` (``cpu``, a PTO target,
        a Python target) without editing it: it then provides
        ``capabilities`` (the capability check counts them as its own) and
        runs each of ``stages``, ``(point, pipeline)`` with ``pipeline``
        registered names or passes (a string, or a list), at that named
        point of its pipeline (``extension_points(target)``: ``cpu`` has
        ``before-lowering``, ``after-tile-to-linalg``, ``before-llvm``). A
        programming model adds ``model:<name>`` to a target this way and
        lowers its functions away at ``before-lowering``. ``name``
        defaults to the extension's."""
        self._add("target-extension", name or self.extension, target=target, capabilities=list(capabilities),
                  stages=[(point, _passes(pipeline)) for point, pipeline in stages])

    def layout(self, name: str, build: Callable[[int, int, int], Optional[list]], description: str = "") -> None:
        """A layout facet named ``name`` (``htp.relayout(tile, name)`` in a
        kernel, ``layout:<name>`` in target capabilities).
        ``build(rows, cols, element_bits)`` returns the layout of such a tile
        as Axe parts — per dimension, outermost first, a list of
        ``(extent, axis, stride)`` (axis ``"m"``: the element offset in the
        tile's buffer) — or None when the facet has no form for it. A name
        taken by another provider is an error."""
        self._add("layout", name, build=build, description=description or f"registered by {self.extension}")

    def pipeline(self, name: str, passes: Union[str, Sequence[str]], description: str = "") -> None:
        """A named pipeline of registered passes, usable in other pipelines
        and targets. ``passes``: a string as inside ``builtin.module(...)``
        (``"canonicalize,cse"``) or a list of such strings
        (``["canonicalize", "cse"]``)."""
        self._add("pipeline", name, passes=_passes(passes), description=description or f"registered by {self.extension}")

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
            # A unique temporary per writer: concurrent registrations do not collide.
            _atomic.write_file(path, script)
        passes = (f"transform-preload-library{{transform-library-paths={path}}},"
                  f"transform-interpreter{{entry-point={entry_point}}}")
        self._add("pipeline", name, passes=passes,
                  description=description or f"transform script registered by {self.extension}")

    def rewrite(self, name: str, patterns: str, description: str = "") -> None:
        """Rewrite patterns written in PDL (``patterns``: ``pdl.pattern`` ops,
        MLIR's pattern language), applied greedily by MLIR's PDL interpreter
        (the pass ``htp-apply-pdl{patterns=<name>}``) and registered as the
        pipeline ``name``. They may create ops of dialects registered with
        ``dialect``. Invalid PDL or a name already taken is an error here."""
        self._add("rewrite", name, patterns=patterns,
                  description=description or f"PDL rewrites registered by {self.extension}")

    def dialect(self, irdl: str) -> List[str]:
        """Defines dialects in IRDL (``irdl`` holds ``irdl.dialect @name {
        irdl.operation @op { ... } }``), loaded into every MLIR context HTP
        makes from now on: their ops parse, verify and print, rewrites
        (``rewrite``) may create them and a target's emitter reads them (a
        target accepts a kernel's ops of dialect ``d`` with the capability
        ``dialect:d``). Returns the dialects' names; a name HTP, MLIR or
        another extension already uses, or IRDL that does not load, is an
        error."""
        names = _irdl_names(irdl)
        self._add("dialect", ",".join(names), irdl=irdl)
        return names

    def intrinsics(self, module: types.ModuleType, name: Optional[str] = None) -> None:
        """``module``'s ``@htp.func`` helpers become an intrinsic set: a
        kernel whose module imports ``module`` (under any name) calls them
        as ``<alias>.<helper>(...)``. They compose tile ops, so every target
        that runs those ops runs them. The set's name (``name``, else the
        module's) must not be another intrinsic set's, a programming
        model's namespace or ``htp``; ``htp.intrinsic_sets()`` lists it."""
        self._add("intrinsics", name or module.__name__, module=module)

    def mutator(self, mutator: type, pipeline: Union[None, str, Sequence[str]] = None) -> None:
        """Registers an AST mutator for every kernel (``htp.mutators``); when
        it changes a kernel, ``pipeline`` (a registered pipeline's name or
        passes, a string or a list) runs on the kernel's tile IR before the
        target lowers it."""
        self._add("mutator", getattr(mutator, "__name__", repr(mutator)), mutator=mutator,
                  pipeline=_passes(pipeline) if pipeline is not None else None)


def _passes(passes: Union[str, Sequence[str]]) -> str:
    """A pipeline's passes as MLIR's text: a string as it is, a list of
    pass strings joined by commas."""
    if isinstance(passes, str):
        text = passes
    elif isinstance(passes, (list, tuple)) and all(isinstance(p, str) for p in passes):
        text = ",".join(p.strip() for p in passes)
    else:
        raise TypeError(f"a pipeline's passes are a string ('canonicalize,cse') or a list of strings "
                        f"(['canonicalize', 'cse']), not {passes!r}")
    if not text.strip():
        raise TargetError("a pipeline needs at least one pass")
    return text


_IRDL_DIALECT = re.compile(r"irdl\.dialect\s+@([A-Za-z_][\w$.]*)")


def _irdl_names(irdl: str) -> List[str]:
    return _IRDL_DIALECT.findall(irdl)


#: Element types a ``dtype:`` capability may name.
_DTYPES = ("f32", "f16", "bf16", "f64", "i64", "i32", "i16", "i8", "i1", "index")

CAPABILITY_FORMS = (
    "model:kernel or model:<registered programming model>",
    "op:tile.<op> (a tile op, e.g. op:tile.add)",
    "dtype:<element type> (" + ", ".join(_DTYPES) + ")",
    "intrinsic:<set>.<instruction> (a registered intrinsic, e.g. intrinsic:pto.tadd)",
    "dialect:<namespace> (HTP's, MLIR's or a dialect registered in IRDL)",
    "layout:<facet> (a registered layout facet), layout:axe or layout:strided",
    "a prefix of these ending in '*' (op:tile.*, dtype:*, intrinsic:pto.*)",
)


def _capability_problem(capability, facets, dialects) -> Optional[str]:
    """Why ``capability`` names nothing HTP knows, or None."""
    if not isinstance(capability, str):
        return f"a capability is a string, not {capability!r}"
    kind, colon, rest = capability.partition(":")
    if not colon:
        return f"'{capability}' has no kind (model:, op:, dtype:, intrinsic:, dialect:, layout:)"
    wildcard = rest.endswith("*")
    stem = rest[:-1] if wildcard else rest
    if kind == "model":
        models = ["kernel"] + [m[0] for m in _htp.programming_models()]
        ok = (wildcard and any(m.startswith(stem) for m in models)) or rest in models
        what = f"the programming model '{rest}' is not registered (models: {', '.join(models)})"
    elif kind == "op":
        ok = (wildcard and "tile.".startswith(stem) or stem.startswith("tile.") and wildcard) or \
            (rest.startswith("tile.") and _htp.known_operation(rest))
        what = f"'{rest}' is not a tile op"
    elif kind == "dtype":
        ok = (wildcard and any(d.startswith(stem) for d in _DTYPES)) or rest in _DTYPES
        what = f"'{rest}' is not an element type"
    elif kind == "intrinsic":
        instructions = [op for _, _, members in _htp.intrinsic_sets() for _, op, _ in members]
        ok = (wildcard and any(i.startswith(stem) for i in instructions) or wildcard and not stem) or rest in instructions
        what = f"'{rest}' is not the instruction of a registered intrinsic set"
    elif kind == "dialect":
        ok = (wildcard and not stem) or rest in dialects or (not wildcard and _htp.known_dialect(rest))
        what = f"'{rest}' is not a dialect HTP knows"
    elif kind == "layout":
        names = list(facets) + ["axe", "strided"]
        ok = (wildcard and any(n.startswith(stem) for n in names)) or rest in names
        what = f"'{rest}' is not a registered layout facet (facets: {', '.join(facets)})"
    else:
        return f"'{kind}:' is not a kind of capability"
    return None if ok else what


def _check(extension: str, actions: List[tuple]) -> None:
    """Raises TargetError for the first of ``actions`` that cannot be
    registered, given the registries as they are plus the earlier
    ``actions``. Capabilities may name layouts and dialects of any of
    ``actions`` (a target may come before the facet it accepts)."""
    targets = {name: description for name, description, _, _ in _htp.targets()}
    pipelines = {name: passes for name, _, passes in _htp.pipelines()}
    passes = set(_htp.pass_names())
    pattern_sets = dict(_htp.pdl_pattern_sets())
    facets = {name: provider for name, _, provider in _htp.layouts()}
    dialects = {name: provider for name, provider in _htp.irdl_dialects()}
    known_facets = list(facets) + [n for k, n, _ in actions if k == "layout" and n not in facets]
    known_dialects = list(dialects) + [d for k, n, _ in actions if k == "dialect" for d in n.split(",") if d]
    sets = set(intrinsic_sets_taken())
    for action in actions:
        kind, name, arguments = action
        checking = True
        problem = None
        if kind == "target":
            if name in targets and checking:
                problem = (f"two targets claim the name '{name}': \"{targets[name]}\" and "
                           f"\"{arguments['description']}\"")
            elif checking:
                bad = [(c, _capability_problem(c, known_facets, known_dialects)) for c in arguments["capabilities"]]
                bad = [(c, why) for c, why in bad if why]
                if bad:
                    listed = "; ".join(f"'{c}': {why}" for c, why in bad)
                    forms = "\n  ".join(CAPABILITY_FORMS)
                    problem = (f"target '{name}' of '{extension}' declares capabilities HTP does not know "
                               f"({listed}); a capability is one of:\n  {forms}")
                elif not callable(arguments["emitter"]):
                    problem = f"target '{name}': the emitter must be callable, got {arguments['emitter']!r}"
                else:
                    problem = _runner_problem(name, arguments["runner"])
                levels = arguments["architecture"].levels if arguments["architecture"] else ()
                for level in levels:
                    level_name = tuple(level)[0]
                    if problem is None and (not re.fullmatch(r"[A-Za-z_]\w*", level_name) or level_name in ("m", "iter")):
                        problem = (f"target '{name}': the parallel level '{level_name}' needs a name that is an "
                                   "identifier other than 'm' and 'iter' (layouts name it as an axis)")
            targets.setdefault(name, arguments["description"])
        elif kind == "target-extension":
            target = arguments["target"]
            points = _htp.extension_points(target)
            if points is None and target in targets:
                points = [(point, "") for point in _PYTHON_TARGET_POINTS]  # a target of these actions
            known = [point for point, _ in points or []]
            bad = [(c, _capability_problem(c, known_facets, known_dialects)) for c in arguments["capabilities"]]
            bad = [(c, why) for c, why in bad if why]
            if points is None:
                problem = f"target extension '{name}': no target named '{target}' (known: {', '.join(targets)})"
            elif bad:
                listed = "; ".join(f"'{c}': {why}" for c, why in bad)
                problem = f"target extension '{name}' of '{extension}' declares capabilities HTP does not know ({listed})"
            else:
                for point, _ in arguments["stages"]:
                    if problem is None and point not in known:
                        problem = (f"target extension '{name}': target '{target}' has no extension point '{point}' "
                                   f"(its points: {', '.join(known) or 'none'})")
        elif kind in ("pipeline", "rewrite"):
            text = arguments.get("passes", f"htp-apply-pdl{{patterns={name}}}")
            if checking and name in passes:
                problem = f"pipeline '{name}' conflicts with a pass of the same name"
            elif checking and name in pipelines and pipelines[name] != text:
                problem = f"two pipelines claim the name '{name}': '{pipelines[name]}' and '{text}'"
            elif checking and kind == "rewrite" and name in pattern_sets:
                problem = f"the PDL pattern set '{name}' is already registered by '{pattern_sets[name]}'"
            elif checking and kind == "rewrite":
                why = _htp.module_error(arguments["patterns"])
                if why is not None:
                    problem = f"the PDL patterns '{name}' of '{extension}' are not valid: {why}"
            pipelines.setdefault(name, text)
            if kind == "rewrite":
                pattern_sets.setdefault(name, extension)
        elif kind == "layout":
            if checking and name in facets and facets[name] != extension:
                problem = f"the layout facet '{name}' is registered twice: by {facets[name]} and by {extension}"
            elif checking and not callable(arguments["build"]):
                problem = f"the layout facet '{name}': its builder must be callable"
            facets.setdefault(name, extension)
        elif kind == "dialect":
            names = name.split(",") if name else []
            if checking:
                if not names:
                    problem = (f"the IRDL of '{extension}' defines no dialect "
                               "(expected `irdl.dialect @name { ... }`)")
                for dialect in names:
                    if problem is None and dialect in dialects:
                        problem = f"the dialect '{dialect}' of '{extension}' is already defined by '{dialects[dialect]}'"
                    elif problem is None and _htp.known_dialect(dialect):
                        problem = f"the dialect '{dialect}' of '{extension}' is already a dialect of HTP or MLIR"
                if problem is None:
                    why = _htp.module_error(arguments["irdl"])
                    if why is not None:
                        problem = f"the IRDL of '{extension}' does not parse: {why}"
            for dialect in names:
                dialects.setdefault(dialect, extension)
        elif kind == "intrinsics":
            module = arguments["module"]
            if checking:
                if not isinstance(module, types.ModuleType):
                    problem = f"an intrinsic set is a module of @htp.func helpers, not {module!r}"
                elif name in sets and getattr(module, "__htp_namespace__", None) != _HELPERS_PREFIX + name:
                    problem = (f"the intrinsic set name '{name}' of '{extension}' is taken (by an intrinsic set or "
                               f"a programming model, or HTP's own 'htp'); taken: {', '.join(sorted(sets))}")
            sets.add(name)
        elif kind == "mutator":
            import ast
            mutator = arguments["mutator"]
            if checking and not (isinstance(mutator, type) and issubclass(mutator, ast.NodeTransformer)):
                problem = "an HTP AST mutator is an ast.NodeTransformer subclass"
        if problem is not None:
            raise TargetError(problem)


def _runner_problem(target: str, runner) -> Optional[str]:
    """Why the module ``runner`` cannot run packages, or None."""
    if not isinstance(runner, str) or not runner:
        return f"target '{target}': its runner is the name of a module, not {runner!r}"
    try:
        module = importlib.import_module(runner)
    except Exception as error:
        return (f"target '{target}': its runner module '{runner}' cannot be imported "
                f"({type(error).__name__}: {error})")
    missing = [f for f in ("find_runtime", "run_package") if not callable(getattr(module, f, None))]
    if missing:
        return f"target '{target}': its runner module '{runner}' has no {' and no '.join(f + '()' for f in missing)}"
    return None


#: Commit order: what MLIR may still refuse first (nothing else is
#: registered yet if it does), then what the checks fully cover.
_ORDER = {"dialect": 0, "rewrite": 1, "pipeline": 2, "layout": 3, "target": 4, "target-extension": 5, "intrinsics": 6,
          "mutator": 7}

#: The extension points of targets written in Python (python/binding/src/python_target.rs).
_PYTHON_TARGET_POINTS = ("before-lowering", "before-emit")


#: How many times anything was registered: part of every kernel's compile
#: cache key (an extension of a target, a mutator or an intrinsic set
#: registered later may change the code a kernel compiles to).
_generation = 0


def generation() -> int:
    """A number that changes whenever an extension registers something."""
    return _generation


def _transact(extension: str, actions: List[tuple]) -> None:
    """Checks ``actions`` and registers them, all or none."""
    global _generation
    _generation += 1
    _check(extension, actions)
    done: List[tuple] = []
    try:
        for action in sorted(actions, key=lambda a: _ORDER[a[0]]):
            _commit(extension, action)
            done.append(action)
    except Exception as error:
        # Python-side registrations are withdrawn; the Rust registries keep
        # what they accepted (they have no removal), named in the error.
        kept = [f"{kind} '{name}'" for kind, name, _ in done if kind not in ("intrinsics", "mutator")]
        for action in reversed(done):
            _withdraw(action)
        if kept:
            raise TargetError(f"{error} (registered before this failed and not withdrawn: {', '.join(kept)})") from error
        raise


def _commit(extension: str, action: tuple) -> None:
    kind, name, a = action
    if kind == "target":
        architecture = a["architecture"]
        levels = [tuple(level) for level in architecture.levels] if architecture else []
        memories = [tuple(memory) for memory in architecture.memories] if architecture else []
        _htp.register_target(name, a["description"], a["capabilities"], _emitter_for(name, a["emitter"]),
                             a["runner"], a["pipeline"], levels, memories)
    elif kind == "target-extension":
        _htp.register_target_extension(a["target"], name, a["capabilities"], a["stages"])
    elif kind == "layout":
        _htp.register_layout_facet(name, a["description"], extension, a["build"])
    elif kind == "pipeline":
        _htp.register_pipeline(name, a["description"], a["passes"])
    elif kind == "rewrite":
        _htp.register_pdl_patterns(name, extension, a["patterns"])
        _htp.register_pipeline(name, a["description"], f"htp-apply-pdl{{patterns={name}}}")
    elif kind == "dialect":
        _htp.register_irdl(extension, a["irdl"])
    elif kind == "intrinsics":
        a["module"].__htp_namespace__ = _HELPERS_PREFIX + name
        _python_sets[name] = a["module"]
    elif kind == "mutator":
        _mutators.register(a["mutator"])
        if a["pipeline"] is not None:
            _mutator_pipelines[a["mutator"]] = a["pipeline"]


def _withdraw(action: tuple) -> None:
    kind, name, a = action
    if kind == "intrinsics":
        if _python_sets.get(name) is a["module"]:
            del _python_sets[name]
        if getattr(a["module"], "__htp_namespace__", None) == _HELPERS_PREFIX + name:
            del a["module"].__htp_namespace__
    elif kind == "mutator":
        _mutators.unregister(a["mutator"])
        _mutator_pipelines.pop(a["mutator"], None)


#: name -> module of the intrinsic sets registered from Python.
_python_sets: Dict[str, types.ModuleType] = {}


def intrinsic_sets_taken() -> List[str]:
    """The names an intrinsic set may not take: HTP's, every registered
    intrinsic set's (Rust and Python) and every programming model's
    namespace."""
    return (["htp"] + [namespace for namespace, _, _ in _htp.intrinsic_sets()]
            + [m[1] for m in _htp.programming_models()] + list(_python_sets))


def python_intrinsic_sets() -> Dict[str, types.ModuleType]:
    """name -> module of the intrinsic sets registered from Python."""
    return dict(_python_sets)


#: (target, kernel) -> the exception its emitter raised last (not a
#: CompileError): the compile that fails with it chains it.
_emitter_failures: Dict[tuple, BaseException] = {}


def _emitter_for(target: str, emitter: Callable) -> Callable:
    """``emitter`` as the Rust target calls it: an exception other than a
    CompileError is kept for the failed compile to chain (the text the
    target reports names the target and the exception)."""
    def emit(ir_json: str, kernel: str):
        try:
            return emitter(ir_json, kernel)
        except CompileError:
            raise
        except Exception as error:
            _emitter_failures[(target, kernel)] = error
            raise
    emit.__wrapped__ = emitter
    return emit


def take_emitter_failure(target: str, kernel: str) -> Optional[BaseException]:
    return _emitter_failures.pop((target, kernel), None)


def load(extension: Union[str, types.ModuleType]) -> types.ModuleType:
    """Imports ``extension`` (a module or its name) and calls its
    ``register(registry)`` once. All or nothing: what ``register`` asks
    for is registered when it returns and every request is valid; if it
    raises or anything is invalid, nothing of it is registered and the
    error propagates."""
    module = importlib.import_module(extension) if isinstance(extension, str) else extension
    if module.__name__ in _loaded:
        return module
    register = getattr(module, "register", None)
    if not callable(register):
        raise TypeError(f"the HTP extension {module.__name__} has no register(registry) function")
    registry = Registry(module.__name__, staged=True)
    register(registry)
    _transact(module.__name__, registry._staged)
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


def extension_points(target: str) -> List[tuple]:
    """(point, description) of the named points of ``target``'s pipeline
    where ``registry.extend_target`` stages run; a TargetError for a target
    that is not registered."""
    points = _htp.extension_points(target)
    if points is None:
        raise TargetError(f"error: unknown target '{target}'")
    return list(points)


def target_extensions() -> List[tuple]:
    """(target, name, capabilities, [(point, pipeline)]) of every
    registered target extension."""
    return list(_htp.target_extensions())


def pipelines() -> List[tuple]:
    """(name, description, passes) of every registered pipeline."""
    return list(_htp.pipelines())


def pipelines_for(changed_by: Sequence[type]) -> List[str]:
    """The pipelines the mutators in ``changed_by`` ask for, in order."""
    return [_mutator_pipelines[m] for m in changed_by if m in _mutator_pipelines]


def is_intrinsic_module(value) -> bool:
    return isinstance(value, types.ModuleType) and \
        str(getattr(value, "__htp_namespace__", "")).startswith(_HELPERS_PREFIX)
