"""Communication between the chips of a group (the ``comm`` intrinsic set).

``from htp import comm`` makes these callable inside kernels (and the
``@htp.func`` helpers they call):

``comm.rank()``, ``comm.size()``
    this chip's rank in its group (``0 .. size - 1``) and the group's size,
    as ``index`` scalars;
``comm.put(peer, w[...], t)``
    the tile ``t`` stored into the block ``w[...]`` of ``peer``'s copy of the
    window ``w`` (PTO-ISA's TPUT without its load: the tile is on chip
    already); ``peer == comm.rank()`` stores locally;
``comm.notify(peer, s[i], v, op="add")``
    adds ``v`` to (``op="set"``: sets) ``peer``'s copy of the ``i32`` signal
    ``s[i]`` (TNOTIFY), once every write this kernel issued before it has
    landed;
``comm.wait(s[i], v, cmp=">=")``
    waits until this chip's signal ``s[i]`` compares true against ``v``
    (TWAIT; ``cmp`` one of ``>=``, ``>``, ``==``, ``!=``, ``<``, ``<=``).

A **communication window** is a kernel parameter annotated
``comm.Window[dtype, dims...]``: memory the runner allocates on every chip of
the group for each run (zeroed), in the same place of each chip's window, so
that a block's address on one chip names the same block on a peer. Callers do
not pass windows; a kernel reads and writes its own copy like any tensor
(``w[p, i:i + 16, :]``) and reaches a peer's only through ``comm.put`` and
``comm.notify``. Signals count up from 0 within a run.

Kernels using the set compile for the PTO targets only (capabilities
``intrinsic:comm.*``; another target refuses them at the line that needs
one) and run on several chips through a group session,
``kernel.compile(target=...).group(chips=n)`` (the runner's
``htp.pto.runtime.open_session(package, chips=n)``), or as tasks of a WSP
workload that declares the windows (docs/serving.md, "Several chips").
``htp.intrinsic_sets()`` lists the members.
"""

from . import _htp
from .types import _Subscriptable

#: What the front end resolves ``comm.<name>(...)`` in kernels against.
__htp_namespace__ = "comm"


class _WindowHead(_Subscriptable):
    def __repr__(self) -> str:
        return "comm.Window"


#: ``comm.Window[dtype, dim, ...]``: a communication window parameter (see above).
Window = _WindowHead("Window")


class _Intrinsic:
    """A ``comm`` intrinsic: callable inside ``@htp.kernel`` functions only."""

    def __init__(self, name: str, op: str, summary: str):
        self.__name__ = name
        self.op = op
        self.__doc__ = summary

    def __call__(self, *args, **kwargs):
        raise TypeError(f"comm.{self.__name__} ({self.op}) runs inside @htp.kernel functions only")

    def __repr__(self) -> str:
        return f"<comm intrinsic {self.__name__}: {self.__doc__}>"


def _install():
    for namespace, _, members in _htp.intrinsic_sets():
        if namespace == __htp_namespace__:
            for name, op, summary in members:
                globals()[name] = _Intrinsic(name, op, summary)


_install()
