"""htp-ctarget: an HTP extension written against ``htp.extensions`` only.

It adds
- the target ``c``: portable C99 emitted from the tile IR (``emitter.py``),
  compiled with the system C compiler and run through ctypes (``runner.py``);
- the intrinsic set ``nn`` (``from htp_ctarget import nn``; ``nn.silu(t)``):
  ``@htp.func`` compositions of tile ops, so they run on every target;
- a mutator that rewrites ``fma(a, b, c)`` into ``a * b + c`` and asks for
  the pipeline ``ctarget-cleanup`` (canonicalize, cse) on the kernel's tile IR;
- the layout facet ``panels16`` (``htp.relayout(t, "panels16")``): column
  panels of 16, each row-major — the packing GEMM kernels use for B — which
  the ``c`` and ``cpu`` targets accept and PTO refuses;
- the dialect ``ctarget``, defined in IRDL (``ctarget.fma``: ``a * b + c``
  with one rounding), and the PDL rewrite ``ctarget-fuse-fma`` that forms
  it from ``tile.mul`` + ``tile.add`` in the ``c`` target's pipeline; the
  emitter writes it as C's ``fmaf``.

Installed (``pip install --no-build-isolation -e examples/extensions/htp-ctarget``)
it is loaded by ``import htp`` through its entry point; otherwise call
``htp.extensions.load("htp_ctarget")``.
"""

import htp

from . import nn
from .emitter import CAPABILITIES, emit
from .mutator import ExpandFma

#: The target's name.
TARGET = "c"
#: The pipeline the mutator asks for (registered by ``register``).
CLEANUP_PIPELINE = "ctarget-cleanup"
#: The PDL rewrite that forms ``ctarget.fma`` (a registered pipeline too).
FUSE_FMA = "ctarget-fuse-fma"
#: What the ``c`` target lowers a kernel's tile IR with.
LOWERING_PIPELINE = "ctarget-lowering"

#: The ``ctarget`` dialect, in IRDL: ops only this target's emitter knows.
IRDL = """
irdl.dialect @ctarget {
  // a * b + c, elementwise with one rounding (C's fmaf): a and the result
  // are tiles of one type (one constraint variable), b and c tiles or
  // scalars (the tile.mul and tile.add it replaces checked them).
  irdl.operation @fma {
    %tile = irdl.any
    %b = irdl.any
    %c = irdl.any
    irdl.operands(a: %tile, b: %b, c: %c)
    irdl.results(result: %tile)
  }
}
"""

#: ``tile.add(tile.mul(a, b), c)`` -> ``ctarget.fma(a, b, c)``, in PDL. Only
#: with the product on the left: an elementwise result is valid where its
#: left operand is, so the fused op keeps ``a``'s valid region exactly.
FMA_PATTERNS = """
pdl.pattern @fma : benefit(1) {
  %type = pdl.type
  %a = pdl.operand
  %b = pdl.operand
  %c = pdl.operand
  %mul = pdl.operation "tile.mul"(%a, %b : !pdl.value, !pdl.value) -> (%type : !pdl.type)
  %product = pdl.result 0 of %mul
  %add = pdl.operation "tile.add"(%product, %c : !pdl.value, !pdl.value) -> (%type : !pdl.type)
  pdl.rewrite %add {
    %fma = pdl.operation "ctarget.fma"(%a, %b, %c : !pdl.value, !pdl.value, !pdl.value) -> (%type : !pdl.type)
    pdl.replace %add with %fma
  }
}
"""


def fma(a, b, c):
    """``fma(a, b, c)`` in a kernel is ``a * b + c`` (rewritten by the
    ``ExpandFma`` mutator before HTP compiles the kernel)."""
    raise TypeError("htp_ctarget.fma is kernel sugar: it is rewritten inside @htp.kernel functions only")


def panels16(rows, cols, element_bits):
    """The ``panels16`` layout of a ``rows x cols`` tile, as Axe parts:
    column panels 16 wide one after another, each panel row-major."""
    if cols % 16:
        return None
    return [[(rows, "m", 16)], [(cols // 16, "m", rows * 16), (16, "m", 1)]]


def register(registry):
    registry.layout("panels16", panels16, "column panels of 16, each row-major (htp-ctarget)")
    registry.pipeline(CLEANUP_PIPELINE, "canonicalize,cse", "canonicalize + cse (htp-ctarget)")
    registry.dialect(IRDL)
    registry.rewrite(FUSE_FMA, FMA_PATTERNS, "tile.mul + tile.add -> ctarget.fma (htp-ctarget, PDL)")
    registry.pipeline(LOWERING_PIPELINE, f"{CLEANUP_PIPELINE},{FUSE_FMA}", "the c target's lowering (htp-ctarget)")
    registry.target(
        TARGET,
        description="portable C99 (htp-ctarget): one C function per kernel, built with the system cc, run via ctypes",
        capabilities=CAPABILITIES,
        emitter=emit,
        runner="htp_ctarget.runner",
        # Folded and deduplicated tile IR (the emitter reads less), with
        # multiply-adds fused into ctarget.fma.
        pipeline=LOWERING_PIPELINE,
        # One C call on the calling thread; tiles are local arrays (one heap
        # block when a kernel's tiles pass 1 MiB).
        architecture=htp.Architecture(
            levels=(htp.ParallelLevel("thread", 1, "the calling thread runs the C function"),),
            memories=(htp.MemorySpace("host", None, 16, "host memory: tensors and tile arrays"),),
        ),
    )
    registry.intrinsics(nn, "nn")
    registry.mutator(ExpandFma, pipeline=CLEANUP_PIPELINE)
