"""numpy meanings of HTP's tile operations, for the references of the programs
gen_ref.py writes (docs/language.md is the specification each one follows).

A tile is a 2-D array holding its *valid* region only: a block of a ragged
tail is as many rows as exist (numpy's slicing gives that), and every
operation keeps the rows it is given, as HTP keeps valid rows. `pad_rows`
makes such a block whole, as `htp.pad` does. Floating-point results are
computed in float64 and rounded to the tile's type once per operation;
integer results wrap in the tile's type (numpy's and HTP's rule)."""

from __future__ import annotations

import math

import numpy as np

try:
    import ml_dtypes
except ImportError:  # pragma: no cover - scripts/setup installs it
    ml_dtypes = None

NP = {
    "f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16 if ml_dtypes is not None else None,
    "i64": np.int64, "i32": np.int32, "i16": np.int16, "i8": np.int8, "bool": np.bool_,
}
FLOATS = ("f32", "f16", "bf16")
#: rtol = atol of one rounding of each float type (conformance.py's TOLERANCE).
TOL = {"f32": 1e-5, "f16": 2e-3, "bf16": 1.6e-2}


def f64(a):
    a = np.asarray(a)
    if ml_dtypes is not None and a.dtype == ml_dtypes.bfloat16:
        a = a.astype(np.float32)
    return a.astype(np.float64)


def to(dt, a):
    """float64 (or integer) values as dtype `dt`: floats rounded to nearest even,
    integers wrapped, float -> int truncated toward zero with saturation (the cpu
    target's rule; a reference only casts values inside the range)."""
    a = np.asarray(a)
    if dt == "bool":
        return a.astype(np.bool_)
    if dt in FLOATS:
        if dt == "bf16":  # computed in f32, then rounded (HTP's bf16 arithmetic)
            return f64(a).astype(np.float32).astype(NP[dt])
        return f64(a).astype(NP[dt]) if a.dtype != np.bool_ else a.astype(NP[dt])
    if a.dtype.kind == "f" or (ml_dtypes is not None and a.dtype == ml_dtypes.bfloat16):
        info = np.iinfo(NP[dt])
        b = np.trunc(f64(a))
        b = np.where(np.isnan(b), 0, np.clip(b, info.min, info.max))
        return b.astype(NP[dt])
    if a.dtype == np.bool_:
        return a.astype(NP[dt])
    return a.astype(np.int64).astype(NP[dt])


def const(dt, shape, value):
    return to(dt, np.full(shape, value, dtype=np.float64 if dt in FLOATS else np.int64))


def iota(dt, shape, dim):
    r, c = shape
    a = np.arange(r)[:, None] * np.ones((1, c), np.int64) if dim == 0 else np.ones((r, 1), np.int64) * np.arange(c)[None, :]
    return to(dt, a)


def _binary(dt, a, b, op):
    if dt in FLOATS:
        return to(dt, op(f64(a), f64(b)))
    return to(dt, op(np.asarray(a).astype(np.int64), np.asarray(b).astype(np.int64)))


def _elementwise(op):
    """The reference of a binary elementwise op: `op` on the promoted values, rounded to `dt`."""
    return lambda dt, a, b: _binary(dt, a, b, op)


add, sub, mul, div = (_elementwise(op) for op in (np.add, np.subtract, np.multiply, np.divide))
maximum, minimum = _elementwise(np.maximum), _elementwise(np.minimum)


def neg(dt, a):
    return sub(dt, 0, a)


def absolute(dt, a):
    return _binary(dt, a, 0, lambda x, _: np.abs(x))


def relu(dt, a):
    return maximum(dt, a, 0)


_ERF = np.vectorize(math.erf)


def act(dt, name, a):
    """docs/language.md, "Activations": the exact functions (float64)."""
    x = f64(a)
    if name == "sigmoid":
        y = 1.0 / (1.0 + np.exp(-x))
    elif name == "silu":
        y = x / (1.0 + np.exp(-x))
    elif name == "tanh":
        y = np.tanh(x)
    elif name == "erf":
        y = _ERF(x) if x.size else x
    elif name == "gelu":
        y = 0.5 * x * (1.0 + (_ERF(x / math.sqrt(2.0)) if x.size else x))
    elif name == "gelu_tanh":
        y = 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))
    elif name == "softplus":
        y = np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))
    elif name == "exp":
        y = np.exp(x)
    else:
        raise ValueError(name)
    return to(dt, y)


def compare(a, b, op):
    fa, fb = f64(a), f64(b)
    return {"<": fa < fb, "<=": fa <= fb, ">": fa > fb, ">=": fa >= fb, "==": fa == fb, "!=": fa != fb}[op]


def where(dt, m, a, b):
    return to(dt, np.where(np.asarray(m), f64(a) if dt in FLOATS else np.asarray(a), f64(b) if dt in FLOATS else np.asarray(b)))


def row_reduce(dt, a, kind):
    a = np.asarray(a)
    if a.shape[1] == 0:
        raise ValueError("a reduction of no columns")
    if dt in FLOATS:
        x = f64(a)
    else:
        x = a.astype(np.int64)
    y = {"sum": np.sum, "max": np.max, "min": np.min}[kind](x, axis=1, keepdims=True)
    return to(dt, y)


def pad_rows(a, rows, value):
    """`htp.pad` of a block ragged in rows: its missing rows `value`."""
    a = np.asarray(a)
    if a.shape[0] >= rows:
        return a
    fill = np.full((rows - a.shape[0], a.shape[1]), value).astype(a.dtype)
    return np.concatenate([a, fill], axis=0)


def _key(a, descending):
    x = f64(a) if a.dtype.kind == "f" or (ml_dtypes is not None and a.dtype == ml_dtypes.bfloat16) else a.astype(np.int64)
    x = x + 0  # -0.0 and +0.0 are equal keys
    return -x if descending else x


def argsort(a, descending=False):
    """Stable: equal elements keep their column order, ascending and descending."""
    a = np.asarray(a)
    return np.argsort(_key(a, descending), axis=1, kind="stable").astype(np.int32)


def sort(a, descending=False):
    a = np.asarray(a)
    return np.take_along_axis(a, argsort(a, descending).astype(np.int64), axis=1)


def topk(a, k, largest=True):
    a = np.asarray(a)
    order = argsort(a, descending=largest)[:, :k]
    return np.take_along_axis(a, order.astype(np.int64), axis=1), order


def argmax(a):
    return np.argmax(f64(a) if np.asarray(a).dtype.kind != "b" else np.asarray(a), axis=1, keepdims=True).astype(np.int32)


def argmin(a):
    return np.argmin(f64(a) if np.asarray(a).dtype.kind != "b" else np.asarray(a), axis=1, keepdims=True).astype(np.int32)


def gather(a, index):
    a, index = np.asarray(a), np.asarray(index).astype(np.int64)
    assert index.shape[0] == a.shape[0], (index.shape, a.shape)
    assert index.size == 0 or (index.min() >= 0 and index.max() < a.shape[1]), "reference: index outside the row"
    return np.take_along_axis(a, index, axis=1)


def scatter(a, index, src):
    """`htp.scatter(t, index, src, axis=1)`: in order of j, the last index wins."""
    out = np.array(a, copy=True)
    index = np.asarray(index).astype(np.int64)
    src = np.broadcast_to(np.asarray(src).astype(out.dtype), index.shape)
    for r in range(index.shape[0]):
        for j in range(index.shape[1]):
            out[r, index[r, j]] = src[r, j]
    return out


def scatter_rows(y, rows, col, t):
    """`htp.scatter(y, rows, col, t)`: row r of t into y[rows[r, 0], col:], in order."""
    rows, t = np.asarray(rows).astype(np.int64), np.asarray(t)
    for r in range(t.shape[0]):
        y[rows[r, 0], col:col + t.shape[1]] = t[r]


def concat(tiles, axis):
    return np.concatenate([np.asarray(t) for t in tiles], axis=axis)


def reshape(a, rows, cols):
    return np.asarray(a).reshape(rows, cols)


def store(dst, value):
    """A store into a (view of a) tensor: the part of the tile that lies inside it."""
    value = np.asarray(value)
    if value.ndim == 0:
        dst[...] = value
        return
    dst[...] = value[: dst.shape[0], : dst.shape[1]] if dst.ndim == 2 else value.reshape(dst.shape)


def compare_outputs(got, expected, tolerances):
    """None when every output matches its reference, else a message naming the
    first element that does not. `tolerances[name]` is (dtype, absolute error
    bound): floats within `2 * bound + TOL * (1 + |expected|)`, the rest exact."""
    for name, want in expected.items():
        have = np.asarray(got[name])
        want = np.asarray(want)
        if have.shape != want.shape:
            return f"output '{name}': shape {have.shape}, numpy's {want.shape}"
        dt, bound = tolerances.get(name, (None, 0.0))
        if dt in FLOATS:
            h, w = f64(have), f64(want)
            with np.errstate(invalid="ignore"):
                close = np.abs(h - w) <= 2.0 * bound + TOL[dt] * (1.0 + np.abs(w))
            bad = ~(close | (np.isnan(h) & np.isnan(w)) | (h == w))
        else:
            bad = have != want
        if bad.any():
            where = tuple(int(v) for v in np.argwhere(bad)[0])
            return (f"output '{name}' differs from numpy at {where}: got {have[where]!r}, expected {want[where]!r} "
                    f"({int(bad.sum())} of {bad.size} elements differ)")
    return None


def data(rng, dt, shape, ties=False):
    """Inputs: floats in [-3, 3] (with `ties`, multiples of 0.5: many equal values,
    exact in every float type), integers in [-8, 8], bools half True."""
    if dt == "bool":
        return rng.random(shape) < 0.5
    if dt in FLOATS:
        x = rng.integers(-6, 7, shape) * 0.5 if ties else rng.uniform(-3.0, 3.0, shape)
        return to(dt, x)
    return rng.integers(-8, 9, shape).astype(NP[dt])
