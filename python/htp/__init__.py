"""HTP — Heterogeneous Tile Programming.

Write a tile kernel as a decorated Python function, call it with numpy
arrays. See docs/language.md for the language.

    import htp
    from htp import f32

    @htp.kernel
    def scale(x: htp.Tensor[f32, "N", 64], y: htp.Out[htp.Tensor[f32, "N", 64]], k: f32):
        ...
"""

from . import extensions, mutators, trace_plot
from ._htp import version
from ._targets import (Architecture, MemorySpace, NeighbourAccess, ParallelLevel, TargetInfo, TileArray, TileKind,
                       intrinsic_sets, layouts, models, targets)
from ._kernel import CompiledKernel, Helper, Kernel, PreparedCall, compile, func, kernel
from ._models import model
from .errors import ArgumentError, CompileError, TargetError
from .types import (
    Const,
    InOut,
    Out,
    Tensor,
    Tile,
    bf16,
    bool_,
    constexpr,
    f16,
    f32,
    i8,
    i16,
    i32,
    i64,
    layout,
)

__version__ = version()

#: What the front end resolves ``htp.<name>(...)`` in kernels against.
__htp_namespace__ = "htp"

__all__ = [
    "ArgumentError",
    "CompileError",
    "CompiledKernel",
    "Const",
    "InOut",
    "Helper",
    "Kernel",
    "Out",
    "PreparedCall",
    "TargetError",
    "TargetInfo",
    "Architecture",
    "MemorySpace",
    "ParallelLevel",
    "TileArray",
    "TileKind",
    "NeighbourAccess",
    "Tensor",
    "Tile",
    "bf16",
    "bool_",
    "compile",
    "constexpr",
    "f16",
    "f32",
    "func",
    "i8",
    "i16",
    "i32",
    "i64",
    "intrinsic_sets",
    "layout",
    "layouts",
    "kernel",
    "model",
    "models",
    "mutators",
    "extensions",
    "targets",
]

# Installed extensions (entry point group "htp.extensions") register now,
# so their targets and intrinsic sets are there for the first compile.
extensions.load_installed()
