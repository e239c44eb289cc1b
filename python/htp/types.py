"""Element types and parameter annotations of HTP kernels.

They are read by HTP's Rust front end from the kernel's source; in Python
they only have to exist (annotations are evaluated when the module is
imported) and to say what numpy dtype each element type takes.
"""

from __future__ import annotations

import numpy as np

try:  # numpy has no bfloat16; ml_dtypes (as used by JAX) provides one
    import ml_dtypes
except ImportError:  # then bf16 arrays are uint16 bit patterns only
    ml_dtypes = None


class ElementType:
    """An element type: ``htp.f32``, ``htp.f16``, ``htp.bf16``, ``htp.i64``,
    ``htp.i32``, ``htp.i16``, ``htp.i8``, ``htp.bool_``."""

    def __init__(self, name: str, numpy_dtype, native_dtype=None):
        self.name = name
        #: The dtype of the arrays HTP allocates (omitted outputs).
        self.numpy_dtype = np.dtype(numpy_dtype)
        #: The dtype the native module reads: the same bits, viewed.
        self.native_dtype = self.numpy_dtype if native_dtype is None else np.dtype(native_dtype)
        #: The dtypes a caller's array may have.
        self.dtypes = tuple(dict.fromkeys((self.numpy_dtype, self.native_dtype)))

    def __repr__(self) -> str:
        return f"htp.{self.name}"


f32 = ElementType("f32", np.float32)
f16 = ElementType("f16", np.float16)
# bf16 arrays are ml_dtypes.bfloat16 or raw uint16 bit patterns; the native
# module takes the bits as uint16.
bf16 = ElementType("bf16", np.uint16 if ml_dtypes is None else ml_dtypes.bfloat16, np.uint16)
i64 = ElementType("i64", np.int64)
i32 = ElementType("i32", np.int32)
i16 = ElementType("i16", np.int16)
i8 = ElementType("i8", np.int8)
bool_ = ElementType("i1", np.bool_)

ELEMENT_TYPES = {t.name: t for t in (f32, f16, bf16, i64, i32, i16, i8, bool_)}


class _Subscriptable:
    """An annotation head such as ``htp.Tensor`` that accepts ``[...]``."""

    def __init__(self, name: str):
        self._name = name

    def __getitem__(self, items):
        return _Annotation(self._name, items if isinstance(items, tuple) else (items,))

    def __repr__(self) -> str:
        return f"htp.{self._name}"


class _Annotation:
    def __init__(self, head: str, items: tuple):
        self.head = head
        self.items = items

    def __repr__(self) -> str:
        return f"htp.{self.head}[{', '.join(map(repr, self.items))}]"


#: ``htp.Tensor[dtype, dim, ...]``: a global tensor the kernel reads; a dim is
#: an int, or a string naming a size bound from the argument at call time.
Tensor = _Subscriptable("Tensor")
#: ``htp.Out[htp.Tensor[...]]`` (or ``htp.Out[dtype, dims...]``): written by the kernel.
Out = _Subscriptable("Out")
#: ``htp.InOut[...]``: read and written by the kernel.
InOut = _Subscriptable("InOut")
#: ``htp.Const`` / ``htp.Const[int|float|bool]``: a compile-time constant.
Const = _Subscriptable("Const")
constexpr = Const
#: ``htp.Tile``: a tile parameter of a helper kernel.
Tile = _Subscriptable("Tile")


class TensorLayout:
    """``htp.layout("row_major" | "col_major")``: the memory order of a
    tensor, the last item of its annotation (``htp.Tensor[htp.f32, "M", "K",
    htp.layout("col_major")]`` takes Fortran-ordered arrays without a copy).
    The front end checks the name when it compiles the kernel, so a wrong
    one is a located ``CompileError``, like every annotation mistake."""

    def __init__(self, name):
        self.name = name

    def __repr__(self) -> str:
        return f"htp.layout({self.name!r})"


def layout(name: str) -> TensorLayout:
    """The memory order of a tensor parameter (see ``TensorLayout``)."""
    return TensorLayout(name)
