"""Serving routines, the Python side of the `serving` model (run in the
namespace ``htp.model("serving")`` returns; docs/serving.md).

A routine is what a server runs every step: one or more **steps** (WSP
workloads or kernels) and the parameters of theirs that are **state** —
tensors that outlive a call (weights, a paged KV cache, the steps'
workspaces). Compiled once per target; a **session** places the state on
the target once and hands it to every step in place::

    serving = htp.model("serving")
    decoder = serving.routine(state=("embedding", "k_cache", ...), decode=decode_step)
    program = decoder.compile(target="cpu")          # each step compiled once
    with program.start(embedding=E, k_cache=np.zeros(...), ...) as session:
        for step in range(64):
            next_tokens = session.decode(tokens, positions, lens, block_table)
        cache = session.read("k_cache")              # a copy, on request only

A step is called with its other parameters only (positionally in the
step's order, or by name); outputs it is not given are allocated and
returned, as for a kernel call. State is checked once, when the session
starts: every state name is a tensor parameter of some step, steps that
share one agree on its element type and rank, and the array given for it
fits every step's parameter. Nothing recompiles while the session runs:
a compiled step is keyed by its target and compile-time constants only
(shapes are bound at each call), so another batch size reuses it.

On a group of chips (``program.start(chips=n, **state)``, a target whose
runner opens groups): each state is one array for every chip or a list of
one per chip (its shard); a step runs once on every chip per call and
returns each chip's results (tensor parallelism: docs/serving.md, "Several
chips").
"""

import importlib as _importlib
import inspect as _inspect

import numpy as _np

from htp._kernel import Kernel as _Kernel, _argument_error, _caller, _check_scalar, _dense, _for_user
from htp.errors import CompileError as _CompileError


class _HostResidency:
    """State in this process's memory (targets that run here, the cpu): a
    placed array is the session's own contiguous copy, passed in place."""

    def __init__(self):
        self.copies = {"uploads": {}, "downloads": {}}

    def place(self, name, array):
        self.copies["uploads"][name] = self.copies["uploads"].get(name, 0) + 1
        return _np.ascontiguousarray(array).copy()

    def run(self, compiled, arguments, state):
        compiled._compiled.run(arguments)

    def read(self, name, handle):
        self.copies["downloads"][name] = self.copies["downloads"].get(name, 0) + 1
        return handle.copy()

    def write(self, name, handle, array):
        self.copies["uploads"][name] = self.copies["uploads"].get(name, 0) + 1
        handle[...] = array

    def close(self):
        pass


class _DeviceResidency:
    """State in a device's memory, through the target's runner module's
    ``open_session(package)`` (docs/serving.md, "Targets")."""

    def __init__(self, runner, package):
        self._session = runner.open_session(package)

    @property
    def copies(self):
        return self._session.copies

    def place(self, name, array):
        return self._session.place(name, array)

    def run(self, compiled, arguments, state):
        # `state`: argument index -> the placed tensor that stands there.
        tensors = [state.get(i, a) for i, a in enumerate(arguments) if isinstance(a, _np.ndarray)]
        scalars = [a for a in arguments if not isinstance(a, _np.ndarray)]
        self._session.run(tensors, scalars)

    def read(self, name, handle):
        return self._session.read(handle)

    def write(self, name, handle, array):
        self._session.write(handle, array)

    def close(self):
        self._session.close()


class _GroupResidency:
    """State in the memory of each chip of a group, through the target's
    runner module's ``open_session(package, chips=n)`` (docs/serving.md,
    "Several chips"): every chip runs the step once per call with its own
    placed state and the call's per-step arguments; a communication window
    (``comm.Window``) is the group's, allocated for each run."""

    def __init__(self, runner, package, chips):
        self.chips = chips
        self._session = runner.open_session(package, chips=chips)

    @property
    def copies(self):
        return self._session.copies

    def place(self, name, arrays):
        handles = []
        for chip, array in enumerate(arrays):
            handles.append(self._session.place(chip, name, array))
        return handles

    def run(self, compiled, arguments, state):
        """Runs every chip; returns each chip's tensors by argument index
        (chip 0's are ``arguments``' own; the others' outputs are copies)."""
        outputs = {p.arg_index for p in compiled.parameters if p.kind == "tensor" and p.is_output}
        per_chip, tensors_of = [], []
        for chip in range(self.chips):
            tensors, mine = [], {}
            for i, a in enumerate(arguments):
                if i in state:
                    tensors.append(state[i][chip])
                elif isinstance(a, _np.ndarray):
                    # Every chip writes its own outputs; inputs are the same on every chip.
                    a = a.copy() if chip and i in outputs else a
                    mine[i] = a
                    tensors.append(a)
            per_chip.append(tensors)
            tensors_of.append(mine)
        scalars = [a for a in arguments if a is not None and not isinstance(a, _np.ndarray)]
        self._session.run(per_chip, scalars)
        return tensors_of

    def read(self, name, handles):
        return [self._session.read(h) for h in handles]

    def write(self, name, handles, arrays):
        for handle, array in zip(handles, arrays):
            self._session.write(handle, array)

    def close(self):
        self._session.close()


class Routine:
    """Steps and their state (``routine(state=..., step=kernel, ...)``)."""

    def __init__(self, state, steps):
        self.state = tuple(state)
        self.steps = dict(steps)

    def compile(self, target="cpu", **constants):
        """Each step compiled for ``target`` (once: compiled code is cached
        by target and constants); the state contract checked."""
        return CompiledRoutine(self, {name: step.compile(target, **constants) for name, step in self.steps.items()}, target)

    def __repr__(self):
        return f"<serving routine: steps {', '.join(self.steps)}; state {', '.join(self.state)}>"


class CompiledRoutine:
    """A routine's steps compiled for one target. ``start(**state)`` opens a
    session."""

    def __init__(self, routine, steps, target):
        self.routine = routine
        self.target = target
        self.steps = steps
        #: state name -> (dtype name, rank), as the steps declare it.
        self.state_types = {}
        for name in routine.state:
            users = [(step, p) for step, compiled in steps.items() for p in compiled.parameters if p.name == name]
            if not users:
                raise TypeError(f"serving.routine: the state '{name}' is a parameter of no step "
                                f"(steps: {', '.join(steps)})")
            for step, p in users:
                if p.kind != "tensor":
                    raise TypeError(f"serving.routine: the state '{name}' is a {p.kind} parameter of the step '{step}': "
                                    "state is tensors (pass scalars at each step)")
            kinds = {(p.dtype.name, len(p.shape)) for _, p in users}
            if len(kinds) > 1:
                raise TypeError(f"serving.routine: the steps declare the state '{name}' differently: "
                                + "; ".join(f"'{s}': {p.dtype.name} of rank {len(p.shape)}" for s, p in users))
            self.state_types[name] = kinds.pop()
        runners = {c._compiled.runner() for c in steps.values() if c.files}
        if len(steps) > 1 and runners:
            raise TypeError(f"serving.routine: a routine of several steps runs on targets that run in this process; "
                            f"'{target}' runs each step as a package of its own, and its sessions hold one package's state")

    def start(self, chips=None, **state):
        """A session with ``state`` (every state name, an array each) placed
        on the target: copied there once, now.

        ``chips=n``: a session on a group of ``n`` chips (a target whose
        runner opens groups, docs/serving.md "Several chips"): each state
        is one array (every chip gets a copy) or a list of ``n`` arrays of
        one shape (chip ``c`` gets the ``c``-th: its shard); every chip runs
        each step once per call, with the call's per-step arguments, and a
        step returns a list of each chip's results."""
        caller = _caller()
        if chips is not None and (isinstance(chips, bool) or not isinstance(chips, (int, _np.integer)) or chips < 1):
            raise _argument_error(caller, f"start(): chips must be a positive integer, got {chips!r}")
        missing = [n for n in self.routine.state if n not in state]
        extra = [n for n in state if n not in self.routine.state]
        if missing or extra:
            raise _argument_error(caller, "start(): " + "; ".join(
                ([f"missing state {', '.join(map(repr, missing))}"] if missing else [])
                + ([f"{', '.join(map(repr, extra))} is not state of the routine (state: {', '.join(self.routine.state)})"]
                   if extra else [])))
        grouped = [f"'{step}' ({', '.join(p.name for p in compiled.parameters if p.kind == 'window')})"
                   for step, compiled in self.steps.items() if any(p.kind == "window" for p in compiled.parameters)]
        if grouped and chips is None:
            raise _argument_error(caller, f"start(): the step {', '.join(grouped)} communicates with other chips through "
                                          "communication windows: it runs on a group of chips, start(chips=n, ...)")
        return Session(self, state, caller, None if chips is None else int(chips))

    def __repr__(self):
        return f"<serving compiled routine for {self.target}: steps {', '.join(self.steps)}>"


class Session:
    """A routine's state on its target, and its steps as methods:
    ``session.<step>(arguments...)``. Counts steps and state copies
    (``stats()``); ``read``/``write`` move one state tensor on request;
    ``close()`` (or leaving a ``with`` block) frees the state."""

    def __init__(self, program, state, caller, chips=None):
        self.program = program
        #: The chips of the group the session runs on (None: one chip, or the host).
        self.chips = chips
        self._steps = {}
        self._positional = {}
        # Per step: the Python signature of its other parameters, and its
        # state parameters.
        for name, compiled in program.steps.items():
            signature = compiled.kernel._python_signature
            kept = [p for p in signature.parameters.values() if p.name not in program.routine.state]
            self._steps[name] = (compiled, signature.replace(parameters=kept))
            self._positional[name] = [p.name for p in kept
                                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        # Every state checked before anything is opened or placed.
        if chips is None:
            arrays = {name: self._checked_state(name, array, caller) for name, array in state.items()}
        else:
            arrays = {name: self._chip_arrays(name, array, caller) for name, array in state.items()}
        first = next(iter(program.steps.values()))
        if first.files:
            runner = _importlib.import_module(first._compiled.runner())
            if not hasattr(runner, "open_session"):
                raise RuntimeError(f"cannot start a session on {program.target}: its runner module '{runner.__name__}' "
                                   "keeps no state between runs (it has no open_session; docs/extending.md)")
            problem = runner.find_runtime()
            if problem is not None:
                raise RuntimeError(f"cannot start a session on {program.target}: {problem}")
            if chips is not None:
                self._residency = _GroupResidency(runner, first._package_directory(), chips)
            else:
                self._residency = _DeviceResidency(runner, first._package_directory())
        elif chips is not None:
            raise _argument_error(caller, f"start(): chips={chips}: {program.target} runs steps in this process, on "
                                          "one device; a group of chips runs a target's packages (a PTO target)")
        else:
            self._residency = _HostResidency()
        self._host = {}
        self._handles = {}
        self.steps_run = 0
        try:
            for name, array in arrays.items():
                handle = self._residency.place(name, array)
                if chips is None:
                    # On the host the handle is the array the steps get; on a
                    # device a stand-in of its shape checks each call's arguments.
                    host = handle if isinstance(handle, _np.ndarray) else array
                else:
                    host = array[0]
                self._host[name] = host
                self._handles[name] = handle
        except BaseException:
            self._residency.close()
            raise
        # Per step: argument index -> the placed tensor that stands there.
        self._state_arguments = {
            step: {p.arg_index: self._handles[p.name] for p in compiled.parameters
                   if p.name in self._handles and p.arg_index is not None}
            for step, (compiled, _) in self._steps.items()}
        self._layouts = {}
        self._closed = False

    def _chip_arrays(self, name, value, caller):
        """Each chip's array of the state ``name``: one array (every chip's) or
        a list of one per chip, checked, of one shape and dtype."""
        if isinstance(value, (list, tuple)):
            if len(value) != self.chips:
                raise _argument_error(caller, f"start(): the state '{name}' is a list of {len(value)} arrays, and the "
                                              f"session has {self.chips} chips: give one array per chip (or one array "
                                              "for every chip)")
            arrays = [self._checked_state(name, a, caller) for a in value]
            for chip, a in enumerate(arrays[1:], 1):
                if a.shape != arrays[0].shape or a.dtype != arrays[0].dtype:
                    raise _argument_error(caller, f"start(): chip {chip}'s '{name}' is {a.dtype} {a.shape}, chip 0's "
                                                  f"{arrays[0].dtype} {arrays[0].shape}: every chip runs the same step "
                                                  "on the same shapes")
            return arrays
        return [self._checked_state(name, value, caller)] * self.chips

    def _checked_state(self, name, array, caller):
        dtype_name, rank = self.program.state_types[name]
        if not isinstance(array, _np.ndarray):
            raise _argument_error(caller, f"start(): the state '{name}' must be a numpy array, got {type(array).__name__}")
        if array.ndim != rank:
            raise _argument_error(caller, f"start(): the state '{name}' has rank {rank} in the steps, the array {array.ndim}")
        for step, (compiled, _) in self._steps.items():
            for p in compiled.parameters:
                if p.name != name:
                    continue
                if array.dtype != p.dtype.numpy_dtype:
                    raise _argument_error(caller, f"start(): the state '{name}' is {p.dtype.name} in the step '{step}', "
                                                  f"the array {array.dtype}")
                for axis, (want, got) in enumerate(zip(p.shape, array.shape)):
                    if isinstance(want, int) and want != got:
                        raise _argument_error(caller, f"start(): dimension {axis} of the state '{name}' is {want} in the "
                                                      f"step '{step}', the array's is {got}")
        return array

    def __getattr__(self, name):
        steps = self.__dict__.get("_steps", {})
        if name not in steps:
            raise AttributeError(f"the routine has no step '{name}' (steps: {', '.join(steps)})")

        def step(*args, **kwargs):
            return self._run(name, args, kwargs)

        step.__name__ = name
        return step

    def _run(self, name, args, kwargs):
        caller = _caller()
        if self._closed:
            raise RuntimeError("the session is closed")
        compiled, signature = self._steps[name]
        try:
            given = [k for k in kwargs if k in self._host]
            if given:
                raise _argument_error(caller, f"{name}(): {', '.join(map(repr, given))} is the routine's state: "
                                              "the session passes it (write() replaces it)")
            names = self._positional[name]
            if not kwargs and len(args) <= len(names):
                # A step's usual call: its per-step arguments by position (what bind_partial does,
                # without its cost at every step).
                bound = dict(zip(names, args))
            else:
                try:
                    bound = dict(signature.bind_partial(*args, **kwargs).arguments)
                except TypeError as error:
                    raise _argument_error(caller, f"{name}(): {error}") from None
            arguments, outputs, copy_back, checked = self._arguments(name, compiled, bound, caller)
            if not checked:
                compiled._compiled.check_call(arguments)
            try:
                chip_tensors = self._residency.run(compiled, arguments, self._state_arguments[name])
            finally:
                for view, array in copy_back:
                    view[...] = array
        except _CompileError as error:
            raise _for_user(error, caller) from error.__cause__
        except (IndexError, ZeroDivisionError, ValueError) as error:
            raise error.with_traceback(None) from None
        self.steps_run += 1
        returned = [p for p in compiled.parameters if p.name in outputs and p.name not in self._host]
        if not returned:
            return None
        if self.chips is None:
            results = [outputs[p.name] for p in returned]
            return results[0] if len(results) == 1 else tuple(results)
        # Each chip's results: chip 0 wrote the arrays given (or allocated), the others their copies.
        per_chip = []
        for chip, tensors in enumerate(chip_tensors):
            results = [outputs[p.name] if chip == 0 else tensors[p.arg_index].view(p.dtype.numpy_dtype) for p in returned]
            per_chip.append(results[0] if len(results) == 1 else tuple(results))
        return per_chip

    def _arguments(self, step, compiled, bound, caller):
        """The native arguments of a step's call: checked in full (state and
        all) the first time a call has these per-step shapes, dtypes and
        strides; after that only the per-step arguments are checked again —
        the state is the session's own, unchanged in shape since, so it
        cannot alias them nor bind a symbol differently (docs/serving.md).
        Also whether the target's `check_call` has nothing left to check: it
        reads shapes and integer scalars, so a call of a known layout without
        per-step scalars was checked when the layout was first seen."""
        layout = tuple((n, v.shape, v.dtype.str, v.strides) if isinstance(v, _np.ndarray) else (n, type(v).__name__)
                       for n, v in bound.items())
        known = self._layouts.get(step)
        if known is not None and known[0] == layout:
            _, template, per_step, missing, scalar_free = known
            arguments = list(template)
            outputs, copy_back = {}, []
            for p in per_step:
                value = bound[p.name]
                if p.kind == "scalar":
                    arguments[p.arg_index] = _check_scalar(compiled.kernel.name, p, value, caller)
                else:
                    arguments[p.arg_index] = _dense(compiled.kernel.name, p, value, copy_back, caller)
                    if p.is_output:
                        outputs[p.name] = value
            tensors = [bound[p.name] for p in per_step if p.kind == "tensor"]
            shared = any(_np.may_share_memory(a, b) for i, a in enumerate(tensors) for b in tensors[i + 1:])
            if not copy_back and not shared:
                for p in missing:
                    array = _np.zeros(template[p.arg_index].shape, dtype=p.dtype.numpy_dtype, order=p.order)
                    arguments[p.arg_index] = array.view(p.dtype.native_dtype)
                    outputs[p.name] = array
                return arguments, outputs, copy_back, scalar_free
        full = dict(bound)
        full.update((p.name, self._host[p.name]) for p in compiled.parameters if p.name in self._host)
        arguments, outputs, copy_back = compiled._arguments(full, caller, group=self.chips is not None)
        per_step = [p for p in compiled.parameters if p.name in bound and p.arg_index is not None]
        missing = [p for p in compiled.parameters
                   if p.kind == "tensor" and p.name not in full and p.name in outputs and p.arg_index is not None]
        scalar_free = not any(p.kind == "scalar" for p in per_step)
        self._layouts[step] = (layout, arguments, per_step, missing, scalar_free)
        return arguments, outputs, copy_back, False

    def read(self, name):
        """A copy of the state ``name`` as it is now on the target (on a
        group, a list: each chip's)."""
        return self._residency.read(name, self._handle(name))

    def write(self, name, array):
        """Replaces the state ``name`` with ``array`` (same shape and dtype;
        on a group, one array for every chip or a list of one per chip)."""
        handle = self._handle(name)
        host = self._host[name]
        if self.chips is not None:
            arrays = list(array) if isinstance(array, (list, tuple)) else [array] * self.chips
            if len(arrays) != self.chips:
                raise ValueError(f"write(): the session has {self.chips} chips, got {len(arrays)} arrays for '{name}'")
        else:
            arrays = [array]
        arrays = [_np.asarray(a) for a in arrays]
        for a in arrays:
            if a.shape != host.shape or a.dtype != host.dtype:
                raise ValueError(f"write(): the state '{name}' is {host.dtype} {host.shape}, got {a.dtype} {a.shape}")
        self._residency.write(name, handle, arrays if self.chips is not None else arrays[0])

    def _handle(self, name):
        if self._closed:
            raise RuntimeError("the session is closed")
        if name not in self._handles:
            raise KeyError(f"'{name}' is not state of the routine (state: {', '.join(self._handles)})")
        return self._handles[name]

    def stats(self):
        """Steps run, and copies of state between host and target per
        tensor (``uploads``: placing it, ``write``; ``downloads``: ``read``)."""
        copies = self._residency.copies
        # A device session also counts the per-step arguments it stages: only state is reported here.
        return {"steps": self.steps_run,
                **{way: {n: c for n, c in copies[way].items() if n in self._handles and c} for way in ("uploads", "downloads")}}

    def close(self):
        if not self.__dict__.get("_closed", True):
            self._closed = True
            self._residency.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def routine(state=(), **steps):
    """A serving routine: ``steps`` by name (each an ``@wsp.workload`` or
    ``@htp.kernel``; a session calls them as methods) and the names of
    their parameters that are ``state`` (kept on the target by a session)."""
    if not steps:
        raise TypeError("serving.routine: give at least one step, e.g. serving.routine(state=(...), decode=decode_step)")
    for name, step in steps.items():
        if not isinstance(step, _Kernel):
            raise TypeError(f"serving.routine: the step '{name}' must be an @wsp.workload or an @htp.kernel, "
                            f"got {type(step).__name__}")
        if name.startswith("_") or name in {"read", "write", "stats", "close", "program", "steps_run", "chips"}:
            raise TypeError(f"serving.routine: a step cannot be named '{name}' (a session's own attribute)")
    if isinstance(state, str):
        state = (state,)
    for name in state:
        if not isinstance(name, str):
            raise TypeError(f"serving.routine: state names parameters by their names (str), got {name!r}")
        if name == "chips":
            raise TypeError("serving.routine: a state cannot be named 'chips' (start()'s own keyword: the group's size)")
        if not any(name in step._python_signature.parameters for step in steps.values()):
            raise TypeError(f"serving.routine: the state '{name}' is a parameter of no step ({', '.join(steps)})")
    return Routine(state, steps)
