"""WSP's schedules, the Python side of the `wsp` model (run in the namespace
``htp.model("wsp")`` returns).

A schedule says how a workload's tasks are dispatched, apart from the
workload itself::

    fast = wsp.schedule(decode, dispatch="work_stealing", window=64)
    pinned = wsp.schedule(decode, dispatch="affinity", dispatch_by=by_request)
    lanes = wsp.schedule(decode, stream_by=by_head, trace="decode.json")
    fast(q, k, v, out)          # runs decode under the schedule

``dispatch_by`` / ``stream_by`` are ``@htp.func`` helpers of the task's keys
(``def by_request(b: htp.i64) -> htp.i64``: a function of n parameters gets
the task's first n keys, 0 for keys it lacks), compiled by HTP: the schedule
rewrites each ``wsp.task(...)`` of the workload to pass ``worker=f(keys)``
/ ``stream=f(keys)`` (an AST mutator), and asks for the pass
``wsp-apply-schedule`` with the policy, the workers, the task window and
the trace file. The result is a program called like the workload.
"""

import ast as _ast
import inspect as _inspect
from htp._kernel import Helper as _Helper, Kernel as _Kernel

#: The dispatch policies a schedule may name.
DISPATCH_POLICIES = ("round_robin", "affinity", "work_stealing", "dynamic")


def _key_function(workload, function, role):
    if function is None:
        return None
    if not isinstance(function, _Helper):
        raise TypeError(f"wsp.schedule: {role} takes an @htp.func helper of the task's keys (HTP compiles it), "
                        f"got {type(function).__name__}")
    name = function.name
    if workload.function.__globals__.get(name) is not function:
        raise TypeError(
            f"wsp.schedule: {role}={name} must be defined at the top level of the module that defines "
            f"the workload '{workload.name}' (the workload's code calls it by that name)")
    arity = len(_inspect.signature(function.function).parameters)
    return name, arity


def _placement_mutator(stream_by, dispatch_by, htp_name_):
    """An AST mutator giving each ``wsp.task(...)`` a ``stream=`` and/or
    ``worker=`` computed from its keys (its ``keys=`` or, by default, the
    indices of the loops around it)."""

    class WspPlacement(_ast.NodeTransformer):
        #: The name the workload's module binds htp to.
        htp_name = htp_name_

        def __init__(self):
            self.loop_targets = []

        def visit_For(self, node):
            names = [n.id for n in _ast.walk(node.target) if isinstance(n, _ast.Name)]
            self.loop_targets.append(names)
            self.generic_visit(node)
            self.loop_targets.pop()
            return node

        def visit_Call(self, node):
            self.generic_visit(node)
            func = node.func
            if not (isinstance(func, _ast.Attribute) and func.attr == "task"):
                return node
            given = {k.arg for k in node.keywords}
            keys = next((k.value for k in node.keywords if k.arg == "keys"), None)
            if keys is None:
                key_args = [_ast.Name(id=n, ctx=_ast.Load()) for names in self.loop_targets for n in names]
            elif isinstance(keys, _ast.Tuple):
                key_args = list(keys.elts)
            else:
                key_args = [keys]
            for keyword, function in (("stream", stream_by), ("worker", dispatch_by)):
                if function is not None and keyword not in given:
                    name, arity = function
                    # The first `arity` keys (0 for keys the task lacks),
                    # as ints (i64): keys are loop indices.
                    keys = (key_args + [_ast.Constant(value=0)] * arity)[:arity]
                    as_int = [_ast.Call(func=_ast.Attribute(value=_ast.Name(id=self.htp_name, ctx=_ast.Load()), attr="i64", ctx=_ast.Load()),
                                        args=[k], keywords=[]) for k in keys]
                    call = _ast.Call(func=_ast.Name(id=name, ctx=_ast.Load()), args=as_int, keywords=[])
                    node.keywords.append(_ast.keyword(arg=keyword, value=call))
            return _ast.copy_location(node, node)

    WspPlacement.__name__ = f"WspPlacement_{stream_by and stream_by[0]}_{dispatch_by and dispatch_by[0]}"
    return WspPlacement


def schedule(workload, *, dispatch="dynamic", workers=0, window=0, stream_by=None, dispatch_by=None, timing="immediate",
             trace=None):
    """The workload ``workload`` under a schedule: a program called like it.

    dispatch: ``"round_robin"`` (task n on worker n mod workers, or where
    ``dispatch_by`` says; never moves), ``"affinity"`` (on the worker
    ``dispatch_by`` names, by default the task's first key; never moves),
    ``"work_stealing"`` (per-worker queues, idle workers steal),
    ``"dynamic"`` (one shared ready queue). workers: threads (0: one per
    core). window: tasks issued and not finished at most; issuing stalls
    at the bound (0: none). stream_by: tasks with equal values run in
    issue order. timing: ``"immediate"`` (each task reaches the runtime as it
    is issued) or ``"batch:N"`` (N at a time: fewer wake-ups for tiny
    tasks, later starts). trace: a file each run writes (Chrome trace JSON: open it
    in Perfetto, or draw it with ``htp.trace_plot.draw_timeline``)."""
    if not isinstance(workload, _Kernel):
        raise TypeError(f"wsp.schedule takes an @wsp.workload, got {type(workload).__name__}")
    if dispatch not in DISPATCH_POLICIES:
        raise ValueError(f"wsp.schedule: unknown dispatch policy {dispatch!r} (known: {', '.join(DISPATCH_POLICIES)})")
    for name, value in (("workers", workers), ("window", window)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"wsp.schedule: {name} must be an int >= 0, got {value!r}")
    batch = 1
    if timing != "immediate":
        count = timing[len("batch:"):] if isinstance(timing, str) and timing.startswith("batch:") else ""
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"wsp.schedule: timing must be 'immediate' or 'batch:N' with N >= 1, got {timing!r}")
        batch = int(count)
    if trace is not None:
        trace = str(trace)
        if not trace or any(c.isspace() or c in "{}=" for c in trace):
            raise ValueError(f"wsp.schedule: the trace path {trace!r} may not be empty or hold spaces, braces or '='")
    stream_name = _key_function(workload, stream_by, "stream_by")
    worker_name = _key_function(workload, dispatch_by, "dispatch_by")
    options = f"workload={workload.name} dispatch={dispatch} workers={workers} window={window} batch={batch}"
    if trace:
        options += f" trace={trace}"
    mutators = workload._mutators
    if stream_name or worker_name:
        import htp as _htp
        htp_name = next((n for n, v in workload.function.__globals__.items() if v is _htp), None)
        if htp_name is None:
            raise TypeError(f"wsp.schedule: the module of '{workload.name}' must import htp (import htp) for stream_by/dispatch_by")
        mutators = mutators + (_placement_mutator(stream_name, worker_name, htp_name),)
    scheduled = _Kernel(workload.function, mutators=mutators, pipelines=workload._pipelines + (f"wsp-apply-schedule{{{options}}}",))
    scheduled.schedule = {"dispatch": dispatch, "workers": workers, "window": window, "timing": timing, "stream_by": stream_name and stream_name[0],
                          "dispatch_by": worker_name and worker_name[0], "trace": trace}
    return scheduled
