"""HTP's PTO backend on the Python side (targets ``pto-a2a3sim``, ``pto-a2a3``).

Intrinsics: ``from htp import pto`` makes PTO-ISA's vector instructions
callable inside kernels by their ISA names: ``pto.add(a, b)`` is TADD,
``pto.muls(t, 0.5)`` TMULS, ``pto.exp(t)`` TEXP (``htp.intrinsic_sets()``
lists them). A kernel using them compiles for the PTO targets only;
compiled for another target it is a ``CompileError`` at the call's line that
names the targets providing the intrinsic.

``htp.pto.runtime`` runs the packages the PTO targets compile to on
pto-runtime; the compiled kernel names it as its runner, so ``htp`` itself
never imports it for other targets.
"""

from .. import _htp

#: What the front end resolves ``pto.<name>(...)`` in kernels against.
__htp_namespace__ = "pto"


class _Intrinsic:
    """A PTO intrinsic: callable inside ``@htp.kernel`` functions only."""

    def __init__(self, name: str, instruction: str, summary: str):
        self.__name__ = name
        self.instruction = instruction
        self.__doc__ = summary

    def __call__(self, *args, **kwargs):
        raise TypeError(f"pto.{self.__name__} ({self.instruction}) runs inside @htp.kernel functions only")

    def __repr__(self) -> str:
        return f"<pto intrinsic {self.__name__}: {self.__doc__}>"


def _install():
    for namespace, _, members in _htp.intrinsic_sets():
        if namespace == __htp_namespace__:
            for name, instruction, summary in members:
                globals()[name] = _Intrinsic(name, instruction, summary)


_install()
