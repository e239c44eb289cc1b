"""Reference programs: random kernels of the tile-shape, selection, scatter,
activation and scalar-read constructs (issue 30), each written with its numpy
reference, so the fuzzer compares what a target computes with numpy.

`generate(seed, profile)` returns (source, meta) like gen.generate. The module
is a case file the fuzz worker imports; besides the kernel `k` and the two
functions every case has (`__fuzz_compile__`, `__fuzz_call__`) it defines

    __fuzz_inputs__(rng)     the arrays of one call (inputs and the outputs' initial values)
    __fuzz_reference__(a)    numpy's outputs for those arrays (refops.py: HTP's ops in numpy)
    __fuzz_tolerance__       per output: (dtype, absolute error bound) of its float values
    __fuzz_expect__          per target: the refusals docs/language.md and docs/support-matrix.md
                             document for a construct of this program, as (message fragment, line)

Every program is valid (docs/language.md); on a target whose documented
rules refuse one of its constructs the compile must be a CompileError at that
construct's line naming the rule (`__fuzz_expect__`), anything else is a
finding. Where the generator stays: the loop over row blocks of a tensor
with a symbolic or static number of rows (ragged tails), a batch loop whose
bounds, offsets and operands are elements the kernel reads (`n = lens[b]`),
or one whole static tile; values are tiles whose type (rows, columns, element
type, valid rows), exactness (whether the target must give numpy's values
bit for bit: loads, slices, joins, casts, selection...) and error bound are
tracked, so that index-producing operations (argmax, argsort, topk's
indices, compares) only see exact values and the tolerance of each output is
known.

    python3 python/fuzz/gen_ref.py SEED [PROFILE]     # print one program
"""

from __future__ import annotations

import math
import random
import sys
from dataclasses import dataclass, replace

FLOATS = ["f32", "f16", "bf16"]
INTS = ["i32", "i16", "i8", "i64"]
TOL = {"f32": 1e-5, "f16": 2e-3, "bf16": 1.6e-2}
BITS = {"f32": 32, "f16": 16, "bf16": 16, "i64": 64, "i32": 32, "i16": 16, "i8": 8, "bool": 1}
INT_MAX = {"i8": 127, "i16": 32767, "i32": 2 ** 31 - 1, "i64": 2 ** 63 - 1}
FLOAT_MAX = {"f32": 1e30, "f16": 6e4, "bf16": 1e30}
PTO_TARGETS = ("pto-a2a3sim", "pto-a2a3")

#: Per profile: element types of the data, and a share of programs that probe a
#: type the PTO targets refuse for some construct (i64, i8).
PROFILES = {
    "any": {"floats": FLOATS, "ints": INTS, "probe": 0.0},
    "pto": {"floats": ["f32", "f16"], "ints": ["i32", "i16"], "probe": 0.12},
}

# ----------------------------------------------------------------------------- PTO's documented refusals
# docs/language.md ("Selection", "Tile shapes", "Scatter", "Tensor subscripts") and the L notes of
# docs/support-matrix.md: what A2/A3 refuses, with the fragment of the CompileError that says so.
VEC_TYPES = {
    "add": ["f32", "f16", "bf16", "i32", "i16"],
    "sub": ["f32", "f16", "bf16", "i32", "i16"],
    "mul": ["f32", "f16", "bf16", "i32", "i16"],
    "max": ["f32", "f16", "bf16", "i32", "i16"],
    "min": ["f32", "f16", "bf16", "i32", "i16"],
    "neg": ["f32", "f16", "bf16", "i32", "i16"],
    "abs": ["f32", "f16", "bf16"],
    "relu": ["f32", "f16", "bf16", "i32"],
    "cmp": ["f32", "f16", "bf16", "i32", "i16"],
    "row_sum": ["f32", "f16", "bf16", "i32", "i16"],
    "row_max": ["f32", "f16", "bf16", "i32", "i16"],
    "row_min": ["f32", "f16", "bf16", "i32", "i16"],
    "argmax": ["f32", "f16", "bf16", "i32", "i16"],
    "sort": ["f32", "f16", "bf16", "i16", "i8"],
    "gather": ["f32", "f16", "bf16", "i32", "i16"],
    "scatter": ["f32", "f16", "bf16", "i32", "i16", "i8"],
    "scatter_rows": ["f32", "f16", "bf16", "i32", "i16", "i8"],
    "shape": ["f32", "f16", "bf16", "i32", "i16", "i8"],
    "expands": ["f32", "f16", "bf16", "i32", "i16", "i8"],
    "iota": ["i32", "i16", "f32", "f16"],
}
VEC_MESSAGE = {
    "cmp": "PTO compares f32, f16, i32 and i16 tiles, not",
    "sort": "PTO sorts f32, f16, bf16, i16 and i8 tiles, not",
    "gather": "PTO gathers 16- and 32-bit elements (A2/A3's TGATHER), not",
    "scatter": "PTO scatters 8-, 16- and 32-bit elements (A2/A3's TSCATTER), not",
    "scatter_rows": "PTO scatters rows of 8-, 16- and 32-bit elements (A2/A3's MSCATTER), not",
    "iota": "PTO makes index tiles of i32, i16, f32 or f16 (TCI), not",
}
#: Limits every PTO program may meet (L37: UB's size), accepted as documented wherever they occur.
PTO_ALWAYS = ["larger than the vector core's buffer", "A2/A3 has 188416 usable bytes"]


def finite(x):
    return x == x and abs(x) != float("inf")


def per_block(dt):
    """Elements of `dt` in one 32-byte block (a row of a tile in UB is padded to whole blocks)."""
    return max(1, 256 // BITS[dt])


@dataclass(frozen=True)
class V:
    name: str
    r: int
    c: int
    dt: str
    rag: object  # None: every row valid; ("blk", BR) the block i:i + BR's rows, ("step", off, st) every st-th
    exact: bool = True  # the target must give numpy's values exactly
    err: float = 0.0  # absolute error bound (floats)
    mag: float = 4.0  # |value| bound
    lo: object = None  # integers: known bounds [lo, hi) (index tiles)
    hi: object = None


class RefGen:
    def __init__(self, seed: int, profile: str = "any"):
        self.rng = random.Random(seed)
        self.seed = seed
        self.profile = PROFILES[profile]
        self.profile_name = profile
        self.k = []  # kernel body lines: (indent, text)
        self.ref = []  # reference body lines
        self.params = []
        self.inputs = []  # (name, kind, dt, shape, extra) for __fuzz_inputs__
        self.outputs = []  # (name, dt, shape)
        self.tol = {}  # output -> (dt, bound)
        self.expect = {t: [] for t in PTO_TARGETS}  # target -> [(fragment, kernel line index)]
        self.pool = []
        self.counter = 0
        self.features = set()
        self.indent = 1
        self.consts = {}
        self.scalars = []  # (name, dt) scalar values read from tensors in scope
        self.use_sel = self.use_scale = self.use_offs = False
        self.probe = False

    # ------------------------------------------------------------------ helpers
    def fresh(self, prefix="t"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def both(self, text, ref=None):
        self.k.append((self.indent, text))
        self.ref.append((self.indent, text if ref is None else ref))

    def refuse(self, fragment):
        """The PTO targets refuse the construct on the kernel line emitted next."""
        for t in PTO_TARGETS:
            self.expect[t].append((fragment, len(self.k)))

    def pto_ok(self, op, dt):
        """False (mostly) where the pto profile's program would meet a documented PTO
        refusal for `op` of `dt`: such programs come from the probes (and the rest)."""
        if self.profile_name != "pto" or self.probe or dt in VEC_TYPES[op]:
            return True
        return self.rng.random() < 0.1

    def pto_lean(self):
        """Whether to pick, this time, parameters the PTO targets take (the pto profile, mostly)."""
        return self.profile_name == "pto" and not self.probe and self.rng.random() < 0.85

    def pto_types(self, op, dt):
        if dt not in VEC_TYPES[op]:
            self.refuse(VEC_MESSAGE.get(op, f"element type '{dt}' is not supported on A2/A3"))

    def bind(self, code, ref, v: V, ops=()):
        """`name = code` in the kernel, `name = ref` in the reference; `ops`: (op, dt) PTO checks."""
        for op, dt in ops:
            self.pto_types(op, dt)
        self.both(f"{v.name} = {code}", f"{v.name} = {ref}")
        self.pool.append(v)
        return v

    def pick(self, pred=lambda v: True):
        cands = [v for v in self.pool if pred(v)]
        return self.rng.choice(cands) if cands else None

    def dtc(self, dt):
        return "htp.bool_" if dt == "bool" else self.rng.choice([f"htp.{dt}", dt])

    def lit(self, dt):
        r = self.rng
        if dt in FLOATS:
            return r.choice(["0.0", "1.0", "0.5", "-1.0", "2.0", "-0.25", "3.0"])
        if dt == "bool":
            return r.choice(["True", "False"])
        return r.choice(["0", "1", "2", "-1", "3", "-2"])

    def grow(self, dt, mag):
        """Whether a value of magnitude `mag` stays well inside `dt`."""
        if not finite(mag):
            return False
        if dt in FLOATS:
            return mag < {"f32": 1e5, "f16": 500.0, "bf16": 1e4}[dt]
        return mag < min(INT_MAX[dt], 2 ** 24) / 4

    def rounding(self, dt, mag, k=1.0):
        return TOL[dt] * k * max(1.0, mag) if dt in FLOATS else 0.0

    # ------------------------------------------------------------------ program
    def generate(self):
        r = self.rng
        floats, ints = self.profile["floats"], self.profile["ints"]
        probe = self.probe = r.random() < self.profile["probe"]
        if probe:
            self.features.add("pto-probe")
            dt = r.choice(["i64", "i8", "i64"])
        else:
            dt = r.choice(floats * 3 + ints)
        self.main_dt = dt
        self.C = r.choice([8, 16, 32, 64, 24, 40, 128, 48, 1, 4])
        self.mode = r.choice(["rows", "rows", "rows", "batch", "batch", "whole"])
        self.features.add(f"mode-{self.mode}")
        if self.mode == "whole":
            self.BR = r.choice([1, 2, 4, 8, 16, 32])
        else:
            self.BR = r.choice([1, 2, 4, 8, 8, 16, 16, 16, 32])
        self.br_code = str(self.BR)
        if r.random() < 0.3 and self.mode != "whole":
            self.consts["BR"] = self.BR
            self.br_code = "BR"
        self.sym = self.mode != "whole" and r.random() < 0.8
        self.N = None if self.sym else r.choice([self.BR, 2 * self.BR, 37, 16, 32, 5, 40])
        if self.mode == "whole":
            self.N = self.BR
        self.B = None
        # tensors read by row blocks
        self.tensors = []  # (name, dt, cols)
        self.add_tensor("x", dt, self.C)
        if r.random() < 0.5:
            dt2 = dt if r.random() < 0.6 else r.choice(floats + ints)
            self.add_tensor("w", dt2, r.choice([self.C, self.C, 8, 16, 32]))
        self.H = None
        if r.random() < 0.55:
            # column indices for gather / scatter: values in [0, H)
            self.H = r.choice([h for h in (1, 2, 4, 8, 16, self.C) if h <= max(self.C, 1)])
            self.K = r.choice([1, 2, 4, 8, 3])
            self.add_tensor("idx", r.choice(["i32", "i32", "i64"]), self.K, kind="index", hi=self.H)
        self.scatter_rows_out = None
        if r.random() < 0.2 and self.mode != "whole":
            self.add_tensor("rows", r.choice(["i32", "i64"]), 1, kind="rows")
        self.header_loop()
        n = r.choice([3, 4, 5, 6, 8, 10])
        for _ in range(n):
            self.step()
        self.final_stores()
        return self.assemble()

    def add_tensor(self, name, dt, cols, kind="data", hi=None):
        self.tensors.append((name, dt, cols, kind, hi))

    def rows_dim(self):
        if self.mode == "whole":
            return str(self.N)
        return '"N"' if self.sym else str(self.N)

    def header_loop(self):
        """Parameters, the loop nest and the first loads."""
        r = self.rng
        lead = []
        if self.mode == "batch":
            lead = ['"B"']
        for name, dt, cols, kind, hi in self.tensors:
            dims = ", ".join(lead + [self.rows_dim(), str(cols)])
            self.params.append(f"{name}: htp.Tensor[{self.dtc(dt)}, {dims}]")
            self.inputs.append((name, kind, dt, (["B"] if lead else []) + ["N", cols], hi))
        self.loop_vars = {}
        if self.mode == "batch":
            self.lens_dt = r.choice(["i32", "i64", "i32"])
            self.params.append(f"lens: htp.Tensor[{self.dtc(self.lens_dt)}, \"B\"]")
            self.inputs.append(("lens", "lens", self.lens_dt, ["B"], None))
            self.use_sel = r.random() < 0.4
            if self.use_sel:
                self.params.append('sel: htp.Tensor[htp.i32, "B"]')
                self.inputs.append(("sel", "sel", "i32", ["B"], None))
            self.use_scale = r.random() < 0.5 and self.main_dt in FLOATS + ["i32", "i16"]
            if self.use_scale:
                self.params.append(f"sc: htp.Tensor[{self.dtc(self.main_dt)}, \"B\"]")
                self.inputs.append(("sc", "data", self.main_dt, ["B"], None))
            self.use_offs = r.random() < 0.3 and self.C >= 8 and self.C % 8 == 0
            if self.use_offs:
                self.W = r.choice([w for w in (8, 16, self.C) if self.C % w == 0])
                self.params.append('offs: htp.Tensor[htp.i32, "B"]')
                self.inputs.append(("offs", "offs", "i32", ["B"], self.W))
            self.both("for b in range(x.shape[0]):")
            self.indent += 1
            spell = r.choice(["n = lens[b]", "n = lens[b]", "n = htp.i64(lens[b])" if False else "n = lens[b]"])
            self.both(spell)
            if self.use_sel:
                self.both("p = sel[b]")
            if self.use_scale:
                self.both("s = sc[b]")
                self.scalars.append(("s", self.main_dt))
            if self.use_offs:
                self.both("c0 = offs[b]")
            if r.random() < 0.3:
                self.both("if n > 2:")
                self.indent += 1
                self.features.add("scalar-read-if")
            self.both(f"for i in range(0, n, {self.br_code}):")
            self.indent += 1
            self.features.add("scalar-read")
        elif self.mode == "rows":
            self.both(f"for i in range(0, x.shape[0], {self.br_code}):")
            self.indent += 1
        self.rag_blk = None
        if self.mode != "whole" and self.BR > 1 and (self.sym or self.N % self.BR):
            self.rag_blk = ("blk", self.BR)
        # first loads
        for _ in range(r.choice([1, 2])):
            self.load()

    def lead(self, name):
        """The leading index of a subscript of `name` (the batch's element)."""
        if self.mode != "batch":
            return ""
        return "p, " if name == "w" and self.use_sel else "b, "

    def block(self):
        return ":" if self.mode == "whole" else f"i:i + {self.br_code}"

    # ------------------------------------------------------------------ loads
    def load(self):
        r = self.rng
        data = [t for t in self.tensors if t[3] == "data"]
        name, dt, cols, kind, hi = r.choice(data)
        rows = self.block()
        lead = self.lead(name)
        roll = r.random()
        rag, nrows = self.rag_blk, self.BR
        col_item, ncols = ":", cols
        pto_msg = None
        if roll < 0.2 and cols >= 4:
            a = r.randrange(0, cols - 1)
            b = r.randrange(a + 1, cols + 1)
            col_item, ncols = f"{a}:{b}", b - a
        elif roll < 0.35 and cols >= 4:
            st = r.choice([2, 2, 4, 3])
            a = r.choice([0, 0, 1, st - 1])
            if self.profile_name == "pto" and not self.probe and r.random() < 0.8:
                # what A2/A3's TGATHER picks: every 2nd or 4th of 16/32-bit elements, whole 32-byte rows
                fits = [(s_, a_) for s_ in (2, 4) for a_ in range(s_) if len(range(a_, cols, s_)) % per_block(dt) == 0]
                if not fits or BITS[dt] not in (16, 32):
                    return self.load()  # nothing A2/A3 picks here: another load
                st, a = r.choice(fits)
            end = r.choice(["", str(cols)])
            col_item = f"{a}:{end}:{st}" if end or r.random() < 0.5 else f"{a}::{st}"
            if col_item.startswith("0::") and r.random() < 0.3:
                col_item = col_item[1:]
            ncols = len(range(a, cols, st))
            self.features.add("tensor-column-step")
            if ncols == 1:
                pass  # one column: no step
            elif st not in (2, 4):
                pto_msg = "PTO picks every 2nd or every 4th column of a tensor"
            elif BITS[dt] not in (16, 32):
                pto_msg = "PTO picks every n-th column with TGATHER, which moves 16- and 32-bit elements"
            elif ncols % per_block(dt):
                pto_msg = "must fill whole 32-byte rows"
        elif roll < 0.45 and self.mode == "batch" and getattr(self, "use_offs", False) and name == "x":
            col_item, ncols = f"c0:c0 + {self.W}", self.W
            self.features.add("scalar-read-offset")
        elif roll < 0.55 and self.mode != "whole" and self.BR >= 2:
            st = r.choice([2, 2, 3])
            off = r.choice([0, 0, 1]) if self.BR > st else 0
            nrows = len(range(off, self.BR, st))
            start = f"i + {off}" if off else "i"
            rows = f"{start}:i + {self.br_code}:{st}"
            rag = ("step", off, st)
            self.features.add("tensor-row-step")
        elif roll < 0.6 and self.mode == "whole" and self.N >= 2:
            st = r.choice([2, 2, 4])
            off = r.choice([0, 1]) if self.N > st else 0
            nrows = len(range(off, self.N, st))
            rows = f"{off}::{st}" if r.random() < 0.5 else f"{off}:{self.N}:{st}"
            rag = None
            self.features.add("tensor-row-step")
        code = f"{name}[{lead}{rows}, {col_item}]"
        if r.random() < 0.1 and col_item == ":" and not lead:
            code = f"{name}[{rows}]"
        if dt in INTS:
            lo, hi_ = -8, 9
        else:
            lo = hi_ = None
        v = V(self.fresh(), nrows, ncols, dt, rag, True, 0.0, 4.0 if dt in FLOATS else 8.0, lo, hi_)
        if pto_msg:
            self.refuse(pto_msg)
        return self.bind(code, code, v)

    def load_index(self):
        """A block of the index tensor (values in [0, H)) or of the row-index tensor."""
        for name, dt, cols, kind, hi in self.tensors:
            if kind == "index":
                code = f"{name}[{self.lead(name)}{self.block()}, :]"
                v = V(self.fresh("j"), self.BR, cols, dt, self.rag_blk, True, 0.0, hi, 0, hi)
                return self.bind(code, code, v)
        return None

    # ------------------------------------------------------------------ steps
    def step(self):
        r = self.rng
        prods = [
            (3, self.load), (4, self.binary), (2, self.unary), (3, self.activation), (2, self.cast),
            (2, self.compare_where), (1.5, self.row_reduce), (3, self.tile_slice), (2.5, self.concat),
            (2, self.reshape), (2.5, self.argmax), (2.5, self.sort), (3, self.topk), (3, self.gather),
            (3, self.scatter), (1, self.like), (1.2, self.pad), (1.2, self.store_any), (1, self.carried),
        ]
        if self.mode == "batch" and self.scalars:
            prods.append((2, self.scalar_operand))
        if any(t[3] == "rows" for t in self.tensors):
            prods.append((2, self.scatter_rows))
        total = sum(w for w, _ in prods)
        for _ in range(6):
            x = r.random() * total
            for w, f in prods:
                x -= w
                if x <= 0:
                    break
            if f() is not None:
                return

    def same(self, v):
        return lambda u: (u.r, u.c, u.dt, u.rag) == (v.r, v.c, v.dt, v.rag)

    def num(self, v):
        return v.dt != "bool"

    def binary(self):
        r = self.rng
        a = self.pick(lambda v: self.num(v))
        if a is None:
            return None
        op = r.choice(["+", "-", "*", "max", "min", "+", "*"] + (["/"] if a.dt in FLOATS else []))
        roll = r.random()
        b = None
        if roll < 0.55:
            b = self.pick(self.same(a))
        elif roll < 0.75:
            b = self.pick(lambda u: u.dt == a.dt and u.r == a.r and u.c == 1 and u.rag == a.rag and a.c > 1)
        elif roll < 0.85:
            b = self.pick(lambda u: u.dt == a.dt and u.r == 1 and u.c == a.c and u.rag is None and a.r > 1)
        if op == "/":
            # a divisor away from 0: a literal, or |b| + 1
            b = None
        if b is None:
            lit = self.lit(a.dt)
            if op == "/":
                lit = r.choice(["2.0", "4.0", "-0.5", "3.0"])
            bm = abs(float(lit))
            bcode = bref = lit
            bexact, berr = True, 0.0
            if r.random() < 0.3:
                bcode, bref = f"{lit}", lit
        else:
            bcode = bref = b.name
            bm, bexact, berr = b.mag, b.exact, b.err
        name = {"+": "add", "-": "sub", "*": "mul", "/": "div", "max": "maximum", "min": "minimum"}[op]
        mag = {"+": a.mag + bm, "-": a.mag + bm, "*": a.mag * max(bm, 1e-9), "/": a.mag / 0.5, "max": max(a.mag, bm),
               "min": max(a.mag, bm)}[op]
        if not self.grow(a.dt, mag):
            return None
        swap = b is None and op in "+*" and r.random() < 0.3
        if op in ("max", "min"):
            fn = r.choice([f"htp.{name}", op])
            code = f"{fn}({bcode}, {a.name})" if swap else f"{fn}({a.name}, {bcode})"
        elif r.random() < 0.15 and op != "/":
            code = f"htp.{ {'+': 'add', '-': 'sub', '*': 'mul'}[op]}({a.name}, {bcode})"
        else:
            code = f"{bcode} {op} {a.name}" if swap else f"{a.name} {op} {bcode}"
        ref = f"R.{name}('{a.dt}', {a.name}, {bref})"
        float_op = a.dt in FLOATS and op not in ("max", "min")
        exact = a.exact and bexact and not float_op
        if a.dt in FLOATS:
            if op == "*":
                err = a.err * bm + berr * a.mag + self.rounding(a.dt, mag)
            elif op == "/":
                err = a.err * 2 + self.rounding(a.dt, mag, 2)
            else:
                err = a.err + berr + (self.rounding(a.dt, mag) if float_op else 0.0)
        else:
            err = 0.0
        pto = {"+": "add", "-": "sub", "*": "mul", "/": "div", "max": "max", "min": "min"}[op]
        ops = [(pto, a.dt)] if pto != "div" else []
        if a.dt in INTS and op == "/":
            return None
        v = replace(a, name=self.fresh(), exact=exact, err=err, mag=mag, lo=None, hi=None)
        return self.bind(code, ref, v, ops)

    def unary(self):
        r = self.rng
        a = self.pick(self.num)
        if a is None:
            return None
        op = r.choice(["neg", "abs", "relu"] + (["exp"] if a.dt in FLOATS and a.mag < 8 else []))
        if op in ("abs", "relu") and not self.pto_ok(op, a.dt):
            op = "neg"
        code = {"neg": r.choice([f"-{a.name}", f"htp.neg({a.name})"]), "abs": f"htp.abs({a.name})",
                "relu": f"htp.relu({a.name})", "exp": f"htp.exp({a.name})"}[op]
        ref = {"neg": f"R.neg('{a.dt}', {a.name})", "abs": f"R.absolute('{a.dt}', {a.name})",
               "relu": f"R.relu('{a.dt}', {a.name})", "exp": f"R.act('{a.dt}', 'exp', {a.name})"}[op]
        if op == "exp":
            mag = math.exp(a.mag)
            if not self.grow(a.dt, mag):
                return None
            v = replace(a, name=self.fresh(), exact=False, err=a.err * mag + self.rounding(a.dt, mag, 2), mag=mag, lo=None, hi=None)
            return self.bind(code, ref, v)
        lo = hi = None
        if op in ("abs", "relu") and a.lo is not None:
            lo, hi = 0, max(abs(a.lo), abs(a.hi)) + 1
        v = replace(a, name=self.fresh(), lo=lo, hi=hi)
        return self.bind(code, ref, v, [(op, a.dt)])

    def activation(self):
        r = self.rng
        a = self.pick(lambda v: v.dt in FLOATS and finite(v.mag))
        if a is None:
            return None
        name = r.choice(["sigmoid", "silu", "gelu", "gelu_tanh", "tanh", "erf", "softplus"])
        k = {"sigmoid": 3, "silu": 4, "tanh": 4, "softplus": 4, "erf": 8, "gelu": 8, "gelu_tanh": 8}[name]
        if name == "gelu":
            code = r.choice([f"htp.gelu({a.name})", f'htp.gelu({a.name}, approximate="none")'])
        elif name == "gelu_tanh":
            code = f'htp.gelu({a.name}, approximate="tanh")'
        else:
            code = f"htp.{name}({a.name})"
        mag = {"sigmoid": 1.0, "tanh": 1.0, "erf": 1.0}.get(name, a.mag + 1.0)
        v = replace(a, name=self.fresh(), exact=False, err=1.2 * a.err + self.rounding(a.dt, mag, k), mag=mag, lo=None, hi=None)
        self.features.add("activation")
        return self.bind(code, f"R.act('{a.dt}', '{name}', {a.name})", v)

    def cast(self):
        r = self.rng
        a = self.pick(lambda v: True)
        if a is None:
            return None
        choices = [d for d in self.profile["floats"] + self.profile["ints"] if d != a.dt]
        if a.dt == "bool":
            choices = [d for d in choices]
        dt = r.choice(choices)
        if a.dt in FLOATS and dt in INTS:
            if not a.exact or a.mag > INT_MAX[dt]:
                return None
        if dt in INTS and a.dt in INTS and a.mag > INT_MAX[dt]:
            return None
        if dt in FLOATS and not self.grow(dt, a.mag):
            return None
        if a.dt in FLOATS and dt in FLOATS:
            err = a.err + self.rounding(dt, a.mag)
            exact = a.exact
        elif dt in FLOATS:
            err, exact = self.rounding(dt, a.mag) if a.mag > 2048 else 0.0, a.exact
        else:
            err, exact = 0.0, a.exact
        if a.dt == "bool" and a.c == 1:
            # TSEL of a one-column mask: refused (docs/validation.md, "Fuzzing issue 30's constructs")
            if self.pto_lean():
                return None
            self.refuse("PTO converts a mask to numbers only from a tile of several columns")
        code = r.choice([f"htp.cast({a.name}, {self.dtc(dt)})", f"{a.name}.astype({self.dtc(dt)})"])
        lo, hi = (a.lo, a.hi) if dt in INTS and a.dt in INTS else (None, None)
        mag = a.mag if a.dt != "bool" else 1.0
        v = replace(a, name=self.fresh(), dt=dt, exact=exact, err=err, mag=mag, lo=lo, hi=hi)
        return self.bind(code, f"R.to('{dt}', {a.name})", v)

    def compare_where(self):
        r = self.rng
        a = self.pick(lambda v: v.exact and self.num(v))
        if a is None:
            return None
        b = self.pick(lambda u: self.same(a)(u) and u.exact and u is not a)
        bcode = b.name if b is not None else self.lit(a.dt)
        op = r.choice(["<", "<=", ">", ">=", "==", "!="])
        m = V(self.fresh("m"), a.r, a.c, "bool", a.rag, True, 0.0, 1.0)
        self.bind(f"{a.name} {op} {bcode}", f"R.compare({a.name}, {bcode}, '{op}')", m, [("cmp", a.dt)])
        # htp.where(m, p, q): p a tile of m's shape, q one of p's type or a literal (it takes p's type)
        p = self.pick(lambda u: (u.r, u.c, u.rag) == (m.r, m.c, m.rag) and self.num(u))
        if p is None:
            return m
        q = self.pick(lambda u: self.same(p)(u))
        if q is not None and r.random() < 0.3:
            q = None
        qcode = q.name if q is not None else self.lit(p.dt)
        args = [p.name, qcode] if r.random() < 0.5 else [qcode, p.name]
        fn = r.choice(["htp.where", "htp.where", "htp.select"])
        qm = q.mag if q is not None else 3.0
        v = replace(p, name=self.fresh(), exact=p.exact and (q is None or q.exact), err=max(p.err, q.err if q else 0.0),
                    mag=max(p.mag, qm), lo=None, hi=None)
        self.features.add("where")
        return self.bind(f"{fn}({m.name}, {args[0]}, {args[1]})", f"R.where('{p.dt}', {m.name}, {args[0]}, {args[1]})", v)

    def row_reduce(self):
        r = self.rng
        a = self.pick(lambda v: self.num(v) and v.c > 1)
        if a is None:
            return None
        kind = r.choice(["sum", "max", "min"])
        mag = a.mag * a.c if kind == "sum" else a.mag
        if not self.grow(a.dt, mag):
            return None
        code = r.choice([f"htp.row_{kind}({a.name})", f'htp.row_reduce({a.name}, "{kind}")'])
        if kind == "sum" and a.dt in FLOATS:
            err = a.err * a.c + TOL[a.dt] * (2 * math.sqrt(a.c) + 1) * max(1.0, mag)
            exact = False
        else:
            err, exact = a.err, a.exact
        v = replace(a, name=self.fresh(), c=1, exact=exact, err=err, mag=mag, lo=None, hi=None)
        self.bind(code, f"R.row_reduce('{a.dt}', {a.name}, '{kind}')", v, [(f"row_{kind}", a.dt)])
        if r.random() < 0.6:
            # broadcast back: a - row_max(a)
            op = r.choice(["-", "+"])
            w = replace(a, name=self.fresh(), exact=a.exact and exact and a.dt in INTS, err=a.err + err + self.rounding(a.dt, a.mag + mag),
                        mag=a.mag + mag, lo=None, hi=None)
            if self.grow(a.dt, w.mag):
                self.bind(f"{a.name} {op} {v.name}", f"R.{'sub' if op == '-' else 'add'}('{a.dt}', {a.name}, {v.name})", w,
                          [("sub" if op == "-" else "add", a.dt)])
        return v

    # ------------------------------------------------------------------ tile shapes
    def shape_checks(self, dt):
        if dt == "bool":
            self.refuse("PTO holds a bool tile (a mask) as packed bits")
        elif dt not in VEC_TYPES["shape"]:
            self.refuse(f"element type '{dt}' is not supported on A2/A3")

    def tile_slice(self):
        r = self.rng
        lean = self.pto_lean()
        a = self.pick(lambda v: (v.c > 1 or (v.r > 1 and v.rag is None)) and not (lean and v.dt == "bool"))
        if a is None:
            return None
        roll = r.random()
        full_rows = a.rag is None
        if roll < 0.45 and a.c > 1:
            # a block of columns
            x0 = r.randrange(0, a.c)
            x1 = r.randrange(x0 + 1, a.c + 1)
            spell = [f"{x0}:{x1}"]
            if x1 == a.c:
                spell.append(f"{x0}:")
                spell.append(f"{x0 - a.c}:")
            if x0 == 0:
                spell.append(f":{x1}")
            item = r.choice(spell)
            code = f"{a.name}[:, {item}]"
            v = replace(a, name=self.fresh(), c=x1 - x0, lo=a.lo, hi=a.hi)
            self.shape_checks(a.dt)
            self.features.add("tile-slice")
            return self.bind(code, code, v)
        if roll < 0.7 and a.c > 2:
            st = r.choice([2, 2, 4, 3])
            x0 = r.randrange(0, min(st, a.c))
            x1 = r.choice([a.c, r.randrange(x0 + 1, a.c + 1)])
            if self.pto_lean() and a.dt != "bool" and BITS[a.dt] in (16, 32):
                # TGATHER's: every 2nd or 4th column, whole 32-byte rows of them, within the tile's
                fits = [(s_, m * per_block(a.dt)) for s_ in (2, 4) for m in (1, 2, 4) if m * per_block(a.dt) * s_ <= a.c]
                if not fits:
                    return None
                if fits:
                    st, n = r.choice(fits)
                    x0 = r.randrange(0, st)
                    x1 = x0 + (n - 1) * st + 1
            n = len(range(x0, x1, st))
            item = f"{x0}:{x1}:{st}" if x1 != a.c or r.random() < 0.5 else f"{x0}::{st}"
            code = f"{a.name}[:, {item}]"
            v = replace(a, name=self.fresh(), c=n)
            self.shape_checks(a.dt)
            if a.dt != "bool" and a.dt in VEC_TYPES["shape"] and n > 1:
                if st not in (2, 4):
                    self.refuse("PTO picks every 2nd or every 4th column of a tile")
                elif BITS[a.dt] not in (16, 32):
                    self.refuse("PTO picks every n-th column with TGATHER, which moves 16- and 32-bit elements")
                elif n % per_block(a.dt) or a.c == 1:
                    self.refuse("must fill whole 32-byte rows")
                elif n * st > -(-a.c // per_block(a.dt)) * per_block(a.dt):
                    self.refuse("the picked window of")
            self.features.add("tile-column-step")
            return self.bind(code, code, v)
        if roll < 0.8 and a.c > 1:
            j = r.randrange(0, a.c)
            code = f"{a.name}[:, {r.choice([str(j), str(j - a.c)])}]"
            v = replace(a, name=self.fresh(), c=1)
            self.shape_checks(a.dt)
            return self.bind(code, f"{a.name}[:, {j}:{j + 1}]", v)
        if not full_rows or a.r < 2 or (a.dt == "bool" and self.pto_lean()):
            return None
        # rows of a whole tile
        if roll < 0.9:
            y0 = r.randrange(0, a.r)
            y1 = r.randrange(y0 + 1, a.r + 1)
            item = f"{y0}:{y1}"
            code = r.choice([f"{a.name}[{item}, :]", f"{a.name}[{item}]"])
            ref = f"{a.name}[{item}, :]"
            v = replace(a, name=self.fresh(), r=y1 - y0)
            self.shape_checks(a.dt)
            self.features.add("tile-row-slice")
            return self.bind(code, ref, v)
        if roll < 0.95:
            y = r.randrange(0, a.r)
            code = f"{a.name}[{y}, :]"
            v = replace(a, name=self.fresh(), r=1)
            self.shape_checks(a.dt)
            return self.bind(code, f"{a.name}[{y}:{y + 1}, :]", v)
        st = r.choice([2, 3])
        y0 = r.randrange(0, min(st, a.r))
        n = len(range(y0, a.r, st))
        if n > 1 and self.pto_lean():
            return None
        code = f"{a.name}[{y0}::{st}, :]"
        v = replace(a, name=self.fresh(), r=n)
        self.shape_checks(a.dt)
        if n > 1:
            self.refuse("PTO takes every n-th row of a tile only as it loads it")
        return self.bind(code, code, v)

    def concat(self):
        r = self.rng
        lean = self.pto_lean()
        a = self.pick(lambda v: not (lean and v.dt == "bool"))
        if a is None:
            return None
        axis = 1 if a.rag is not None or r.random() < 0.6 else 0
        if axis == 1:
            others = [u for u in self.pool if (u.r, u.dt, u.rag) == (a.r, a.dt, a.rag)]
        else:
            others = [u for u in self.pool if (u.c, u.dt) == (a.c, a.dt) and u.rag is None]
        parts = [a] + [r.choice(others) for _ in range(r.choice([1, 1, 2]))]
        r.shuffle(parts)
        if axis == 1:
            c = sum(u.c for u in parts)
            v = replace(a, name=self.fresh(), c=c, exact=all(u.exact for u in parts), err=max(u.err for u in parts),
                        mag=max(u.mag for u in parts), lo=None, hi=None)
        else:
            rr = sum(u.r for u in parts)
            v = replace(a, name=self.fresh(), r=rr, exact=all(u.exact for u in parts),
                        err=max(u.err for u in parts), mag=max(u.mag for u in parts), lo=None, hi=None)
        if v.r * v.c > 8192:
            return None
        names = ", ".join(u.name for u in parts)
        seq = f"[{names}]" if r.random() < 0.7 else f"({names},)" if len(parts) == 1 else f"({names})"
        ax = {1: r.choice(["axis=1", "axis=-1", "1"]), 0: r.choice(["axis=0", "axis=-2", "", "0"])}[axis]
        fn = r.choice(["htp.concat", "htp.concat", "htp.concatenate"])
        code = f"{fn}({seq}{', ' + ax if ax else ''})"
        self.shape_checks(a.dt)
        self.features.add(f"concat-{axis}")
        return self.bind(code, f"R.concat([{names}], {axis})", v)

    def reshape(self):
        r = self.rng
        lean = self.pto_lean()
        a = self.pick(lambda v: v.rag is None and not (lean and v.dt == "bool"))
        if a is None:
            return None
        n = a.r * a.c
        shapes = [(x, n // x) for x in range(1, n + 1) if n % x == 0 and x <= 64 and n // x <= 256 and (x, n // x) != (a.r, a.c)]
        if not shapes:
            return None
        if self.pto_lean():
            def contiguous(rows, cols):
                return cols == 1 or rows == 1 or cols % per_block(a.dt) == 0
            lean = [s_ for s_ in shapes if contiguous(*s_) and contiguous(a.r, a.c)]
            shapes = lean or shapes
        r2, c2 = r.choice(shapes)
        spell = r.choice([f"htp.reshape({a.name}, ({r2}, {c2}))", f"{a.name}.reshape({r2}, {c2})",
                          f"{a.name}.reshape(({r2}, {c2}))", f"{a.name}.reshape({r2}, -1)", f"htp.reshape({a.name}, (-1, {c2}))"])
        v = replace(a, name=self.fresh(), r=r2, c=c2, lo=a.lo, hi=a.hi)
        if a.dt == "bool":
            self.refuse("PTO holds a bool tile (a mask) as packed bits")
        else:
            def contiguous(rows, cols):
                return cols == 1 or rows == 1 or cols % per_block(a.dt) == 0
            if not (contiguous(a.r, a.c) and contiguous(r2, c2)):
                self.refuse("PTO reshapes a tile with TRESHAPE")
        self.features.add("reshape")
        return self.bind(spell, f"R.reshape({a.name}, {r2}, {c2})", v)

    def pad(self):
        r = self.rng
        lean = self.pto_lean()
        a = self.pick(lambda v: v.rag is not None and not (lean and v.dt == "bool"))
        if a is None:
            return None
        value = self.lit(a.dt)
        mag = max(a.mag, abs(float(value)) if a.dt != "bool" else 1.0)
        if a.dt in ("f32", "bf16") and r.random() < 0.3:
            # (not f16: the simulator's TFILLPAD has no f16 infinity, docs/support-matrix.md's W note)
            value = r.choice(["-htp.inf", "htp.inf"])
            mag = float("inf")  # no arithmetic on it: structural operations, compares and selection only
        v = replace(a, name=self.fresh(), rag=None, mag=mag)
        if a.lo is not None:  # the padding's value joins the known bounds (an index tile's)
            v = replace(v, lo=min(a.lo, int(value)), hi=max(a.hi, int(value) + 1))
        if a.dt == "bool":
            # packed bits (docs/validation.md, "Fuzzing issue 30's constructs")
            self.refuse("PTO holds a bool tile (a mask) as packed bits, which it cannot pad")
        self.features.add("pad")
        return self.bind(f"htp.pad({a.name}, {value})", f"R.pad_rows({a.name}, {a.r}, {value.replace('htp.inf', 'np.inf')})", v,
                         [("expands", a.dt)])

    def like(self):
        r = self.rng
        a = self.pick(lambda v: self.num(v))
        if a is None:
            return None
        kind = r.choice(["zeros", "ones", "full"])
        dt = a.dt if r.random() < 0.7 else r.choice(self.profile["floats"] + self.profile["ints"])
        dtarg = f", dtype={self.dtc(dt)}" if dt != a.dt or r.random() < 0.2 else ""
        if kind == "full":
            value = self.lit(dt)
            code = f"htp.full_like({a.name}, {value}{dtarg})"
        else:
            value = "0" if kind == "zeros" else "1"
            code = f"htp.{kind}_like({a.name}{dtarg})"
        val = float(value) if dt in FLOATS else int(float(value))
        lo = hi = None
        if dt in INTS and val >= 0:
            lo, hi = int(val), int(val) + 1
        v = replace(a, name=self.fresh(), dt=dt, exact=True, err=0.0, mag=max(abs(val), 1.0), lo=lo, hi=hi)
        self.features.add("like")
        return self.bind(code, f"R.const('{dt}', {a.name}.shape, {value})", v, [("expands", dt)])

    # ------------------------------------------------------------------ selection
    def argmax(self):
        r = self.rng
        a = self.pick(lambda v: v.exact and self.num(v) and self.pto_ok("argmax", v.dt))
        if a is None:
            return None
        kind = r.choice(["max", "min"])
        code = r.choice([f"htp.arg{kind}({a.name}, axis=1)", f"htp.row_arg{kind}({a.name})", f"htp.arg{kind}({a.name}, axis=-1)"])
        v = V(self.fresh("j"), a.r, 1, "i32", a.rag, True, 0.0, a.c, 0, a.c)
        self.features.add("argmax")
        return self.bind(code, f"R.arg{kind}({a.name})", v, [("argmax", a.dt)])

    def sort(self):
        r = self.rng
        a = self.pick(lambda v: self.num(v) and self.pto_ok("sort", v.dt))
        if a is None:
            return None
        desc = r.choice([False, True])
        dspell = "" if not desc and r.random() < 0.5 else f", descending={desc}"
        if a.exact and r.random() < 0.5:
            v = V(self.fresh("j"), a.r, a.c, "i32", a.rag, True, 0.0, a.c, 0, a.c)
            self.features.add("argsort")
            return self.bind(f"htp.argsort({a.name}{dspell})", f"R.argsort({a.name}, {desc})", v, [("sort", a.dt)])
        v = replace(a, name=self.fresh(), lo=None, hi=None)
        self.features.add("sort")
        return self.bind(f"htp.sort({a.name}{dspell})", f"R.sort({a.name}, {desc})", v, [("sort", a.dt)])

    def topk(self):
        r = self.rng
        a = self.pick(lambda v: self.num(v) and self.pto_ok("sort", v.dt))
        if a is None:
            return None
        k = r.choice([1, 2, 3, 4, 8, a.c, max(1, a.c // 2)])
        k = max(1, min(k, a.c))
        largest = r.choice([True, True, False])
        lspell = "" if largest and r.random() < 0.5 else f", largest={largest}"
        vals = replace(a, name=self.fresh(), c=k, lo=None, hi=None)
        idx = V(self.fresh("j"), a.r, k, "i32", a.rag, True, 0.0, a.c, 0, a.c)
        self.pto_types("sort", a.dt)
        call = f"htp.topk({a.name}, {k}{lspell})"
        if not a.exact:
            # the values only: which of two nearly equal elements comes first is not numpy's to say
            self.both(f"{vals.name}, _ = {call}", f"{vals.name}, _ = R.topk({a.name}, {k}, {largest})")
            self.pool.append(vals)
        else:
            self.both(f"{vals.name}, {idx.name} = {call}", f"{vals.name}, {idx.name} = R.topk({a.name}, {k}, {largest})")
            self.pool += [vals, idx]
        self.features.add("topk")
        return vals

    def index_for(self, t, cols=None):
        """An index tile for t (t's rows and valid rows, values in [0, t.c)): a loaded
        block, a selection's result, or a like-constant."""
        r = self.rng
        fits = lambda u: (u.dt in ("i32", "i64") and u.r == t.r and u.rag == t.rag and u.lo is not None
                          and u.lo >= 0 and u.hi is not None and u.hi <= t.c and (cols is None or u.c == cols))
        u = self.pick(fits)
        if u is not None and r.random() < 0.8:
            return u
        if self.H is not None and self.H <= t.c and t.r == self.BR and t.rag == self.rag_blk and \
                (cols is None or cols == self.K):
            return self.load_index()
        # a like-constant of a column of t: every index the same
        col = r.randrange(0, t.c)
        width = cols or r.choice([1, 2, 4])
        base = self.pick(lambda u: u.r == t.r and u.rag == t.rag and u.c == width and self.num(u))
        if base is None:
            return u
        v = V(self.fresh("j"), t.r, width, "i32", t.rag, True, 0.0, col, col, col + 1)
        return self.bind(f"htp.full_like({base.name}, {col}, dtype=htp.i32)", f"R.const('i32', {base.name}.shape, {col})", v,
                         [("expands", "i32")])

    def gather(self):
        a = self.pick(lambda v: self.num(v) and self.pto_ok("gather", v.dt))
        if a is None:
            return None
        j = self.index_for(a)
        if j is None:
            return None
        v = replace(a, name=self.fresh(), c=j.c, lo=None, hi=None)
        self.features.add("gather")
        return self.bind(f"htp.gather({a.name}, {j.name}, axis={self.rng.choice(['1', '-1'])})", f"R.gather({a.name}, {j.name})", v,
                         [("gather", a.dt)])

    def scatter(self):
        r = self.rng
        a = self.pick(lambda v: self.num(v) and self.pto_ok("scatter", v.dt))
        if a is None:
            return None
        j = self.index_for(a)
        if j is None:
            return None
        src = self.pick(lambda u: (u.r, u.c, u.rag, u.dt) == (j.r, j.c, j.rag, a.dt))
        if src is None or r.random() < 0.25:
            scode = self.lit(a.dt)
            smag, sexact, serr = abs(float(scode)), True, 0.0
        else:
            scode = src.name
            smag, sexact, serr = src.mag, src.exact, src.err
        v = replace(a, name=self.fresh(), exact=a.exact and sexact, err=max(a.err, serr), mag=max(a.mag, smag), lo=None, hi=None)
        if a.dt in VEC_TYPES["scatter"] and BITS[a.dt] < 32 and a.r * max(a.c, per_block(a.dt)) > 32768:
            self.refuse("by 16-bit offsets")
        self.features.add("scatter")
        return self.bind(f"htp.scatter({a.name}, {j.name}, {scode}, axis=1)", f"R.scatter({a.name}, {j.name}, {scode})", v,
                         [("scatter", a.dt)])

    def scatter_rows(self):
        """htp.scatter(y, rows, col, t): row r of t into y[rows[r, 0], col:]."""
        r = self.rng
        if self.mode == "whole":
            return None
        t = self.pick(lambda u: self.num(u) and u.r == self.BR and u.rag == self.rag_blk)
        if t is None:
            return None
        if self.scatter_rows_out is None:
            cols = t.c + r.choice([0, 0, 3, 8])
            self.scatter_rows_out = ("ys", t.dt, cols)
            self.outputs.append(("ys", t.dt, ["NY", cols]))
            self.params.append(f"ys: htp.Out[{self.dtc(t.dt)}, \"NY\", {cols}]")
        name, dt, cols = self.scatter_rows_out
        if dt != t.dt or t.c > cols:
            return None
        col = r.randrange(0, cols - t.c + 1)
        rows_dt = next(d for n_, d, *_ in self.tensors if n_ == "rows")
        code = f"rows[{self.lead('rows')}{self.block()}, :]"
        self.features.add("scatter-rows")
        self.pto_types("scatter_rows", dt)
        self.k.append((self.indent, f"htp.scatter(ys, {code}, {col}, {t.name})"))
        self.ref.append((self.indent, f"R.scatter_rows(ys, {code}, {col}, {t.name})"))
        self.note_tol("ys", t)
        return t

    def scalar_operand(self):
        r = self.rng
        s, sdt = r.choice(self.scalars)
        a = self.pick(lambda v: v.dt == sdt)
        if a is None:
            return None
        op = r.choice(["*", "+", "-"])
        mag = a.mag * 4 if op == "*" else a.mag + 4
        if not self.grow(sdt, mag):
            return None
        code = r.choice([f"{a.name} {op} {s}", f"{s} {op} {a.name}"])
        first, second = (a.name, s) if code.startswith(a.name) else (s, a.name)
        fn = {"*": "mul", "+": "add", "-": "sub"}[op]
        float_op = sdt in FLOATS
        v = replace(a, name=self.fresh(), exact=a.exact and not float_op, err=a.err * 4 + self.rounding(sdt, mag), mag=mag,
                    lo=None, hi=None)
        self.features.add("scalar-read-operand")
        return self.bind(code, f"R.{fn}('{sdt}', {first}, {second})", v, [(fn, sdt)])

    def carried(self):
        """A whole tile carried through a loop whose trip count is a scalar (read or constant)."""
        r = self.rng
        a = self.pick(lambda v: self.num(v) and v.rag is None and v.dt in ("f32", "i32", "f16", "i16"))
        if a is None:
            return None
        trips = "n % 3" if self.mode == "batch" else r.choice(["2", "3"])
        acc = replace(a, name=self.fresh("acc"), mag=a.mag * 4, exact=a.exact and a.dt in INTS,
                      err=a.err * 3 + self.rounding(a.dt, a.mag * 4, 3), lo=None, hi=None)
        if not self.grow(a.dt, acc.mag):
            return None
        self.both(f"{acc.name} = htp.zeros(({a.r}, {a.c}), {self.dtc(a.dt)})", f"{acc.name} = R.const('{a.dt}', ({a.r}, {a.c}), 0)")
        self.pto_types("expands", a.dt)
        self.both(f"for q in range({trips}):")
        self.indent += 1
        self.pto_types("add", a.dt)
        self.both(f"{acc.name} = {acc.name} + {a.name}", f"{acc.name} = R.add('{a.dt}', {acc.name}, {a.name})")
        self.indent -= 1
        self.pool.append(acc)
        self.features.add("carried")
        return acc

    # ------------------------------------------------------------------ stores
    def note_tol(self, out, v):
        dt, bound = self.tol.get(out, (v.dt, 0.0))
        self.tol[out] = (v.dt, max(bound, v.err))

    def store_any(self):
        v = self.pick(lambda u: True)
        return None if v is None else self.store(v)

    def store(self, v: V):
        """A store of `v` into a new output: its block's rows (`o[i:i + BR, :]`), the rows of
        its step (`o[i + 1:i + BR:2, :]`), or, for a whole tile of any shape, a block of its
        own (`o[i // BR, :, :]`, `o[:, :]` without a loop)."""
        r = self.rng
        batch = self.mode == "batch"
        lead_dims, lead_sub, lead_shape = (['"B"'], "b, ", ["B"]) if batch else ([], "", [])
        name = f"o{len(self.outputs) + 1}"
        if len(self.outputs) >= 4:
            return None
        tok = v.rag
        if tok is None and v.r == self.BR and self.mode != "whole" and (batch or r.random() < 0.7):
            tok = ("blk", self.BR)
        if self.mode == "whole":
            dims, sub, shape = [str(v.r), str(v.c)], ":, :", [v.r, v.c]
        elif tok is None:
            if batch:
                return None
            dims, sub, shape = ['"NB"', str(v.r), str(v.c)], f"i // {self.br_code}, :, :", ["NB", v.r, v.c]
            self.features.add("store-block-index")
        elif tok[0] == "step":
            off, st = tok[1], tok[2]
            start = f"i + {off}" if off else "i"
            dims, sub, shape = lead_dims + [self.rows_dim(), str(v.c)], f"{lead_sub}{start}:i + {self.br_code}:{st}, :", \
                lead_shape + ["N", v.c]
        else:
            dims, sub, shape = lead_dims + [self.rows_dim(), str(v.c)], f"{lead_sub}i:i + {self.br_code}, :", lead_shape + ["N", v.c]
            if r.random() < (0.12 if self.profile_name == "any" else 0.03):
                # into every st-th column of a wider output (the cpu's; PTO's TSTORE writes whole rows)
                st = r.choice([2, 3])
                off = r.randrange(0, st)
                dims[-1] = str(v.c * st)
                shape[-1] = v.c * st
                sub = f"{lead_sub}i:i + {self.br_code}, {off}::{st}"
                if v.c > 1:
                    self.refuse("PTO stores tiles to GM with TSTORE")
                self.features.add("store-column-step")
        if v.dt == "bool" and v.c == 1:
            # TSEL + TCVT of a one-column mask: refused (docs/validation.md, "Fuzzing issue 30's constructs")
            if self.pto_lean():
                return None
            self.refuse("PTO stores a mask to a bool tensor only from a tile of several columns")
        self.outputs.append((name, v.dt, shape))
        self.params.append(f"{name}: htp.Out[{self.dtc(v.dt)}, {', '.join(dims)}]")
        self.k.append((self.indent, f"{name}[{sub}] = {v.name}"))
        self.ref.append((self.indent, f"R.store({name}[{sub}], {v.name})"))
        self.note_tol(name, v)
        return v

    def final_stores(self):
        stored = {line.split(" = ")[-1] for _, line in self.k if line.startswith("o") and "] = " in line}
        if not self.pool:
            self.load()
        last = [v for v in self.pool[-4:] if v.name not in stored]
        self.rng.shuffle(last)
        for v in last[:2]:
            self.store(v)
        if not self.outputs:
            v = self.pool[-1]
            self.store(v)

    # ------------------------------------------------------------------ the module
    def assemble(self):
        r = self.rng
        params = list(self.params)
        for name, value in self.consts.items():
            params.append(f"{name}: htp.Const[int] = {value}")
        head = ["import numpy as np", "", "import htp", "from htp import f32, f16, bf16, i64, i32, i16, i8", "", "import refops as R", "",
                "", "@htp.kernel", f"def k({', '.join(params)}):"]
        kernel_start = len(head) + 1  # line number of the first body line
        body = ["    " * ind + text for ind, text in self.k]
        expect = {}
        for t, items in self.expect.items():
            expect[t] = [(frag, kernel_start + idx) for frag, idx in items]
        ref = ["    " * ind + text for ind, text in self.ref]
        sizes = []
        lines = head + body + ["", "", "def __fuzz_compile__(target):", "    return k.compile(target)", "", "",
                               "def __fuzz_call__(compiled, args):", "    return compiled(**args)", "", ""]
        # inputs
        lines.append("def __fuzz_inputs__(rng):")
        n_choices = [1, 5, 16, 17, 37, 40, 64] if self.sym else [self.N]
        lines.append(f"    N = int(rng.choice({n_choices}))")
        if self.mode == "batch":
            lines.append("    B = int(rng.choice([1, 2, 3]))")
        if any(o[2][0] == "NB" for o in self.outputs):
            lines.append(f"    NB = -(-N // {self.BR})")
        if any(t[3] == "rows" for t in self.tensors):
            lines.append("    NY = int(rng.choice([1, 3, 8, 20]))")
        lines.append("    ties = bool(rng.random() < 0.4)")
        lines.append("    a = {}")
        for name, kind, dt, shape, extra in self.inputs:
            shp = "(" + ", ".join(str(s) for s in shape) + ",)"
            if kind == "data":
                lines.append(f"    a['{name}'] = R.data(rng, '{dt}', {shp}, ties)")
            elif kind == "index":
                lines.append(f"    a['{name}'] = rng.integers(0, {extra}, {shp}).astype(R.NP['{dt}'])")
            elif kind == "rows":
                lines.append(f"    a['{name}'] = rng.integers(0, NY, {shp}).astype(R.NP['{dt}'])")
            elif kind == "lens":
                lines.append(f"    a['{name}'] = rng.integers(0, N + 1, {shp}).astype(R.NP['{dt}'])")
            elif kind == "sel":
                lines.append(f"    a['{name}'] = rng.integers(0, B, {shp}).astype(R.NP['{dt}'])")
            elif kind == "offs":
                lines.append(f"    a['{name}'] = (rng.integers(0, {self.C // extra}, {shp}) * {extra}).astype(R.NP['{dt}'])")
        for name, dt, shape in self.outputs:
            shp = "(" + ", ".join(str(s) for s in shape) + ",)"
            lines.append(f"    a['{name}'] = R.data(rng, '{dt}', {shp}, False)")
        lines.append("    return a")
        lines += ["", ""]
        # reference
        lines.append("def __fuzz_reference__(a):")
        for name, kind, dt, shape, extra in self.inputs:
            lines.append(f"    {name} = a['{name}']")
        for name, dt, shape in self.outputs:
            lines.append(f"    {name} = a['{name}'].copy()")
        for name, value in self.consts.items():
            lines.append(f"    {name} = {value}")
        lines += ref
        lines.append("    return {" + ", ".join(f"'{n}': {n}" for n, _, _ in self.outputs) + "}")
        lines += ["", ""]
        tol = {n: self.tol.get(n, (dt, 0.0)) for n, dt, _ in self.outputs}
        lines.append(f"__fuzz_tolerance__ = {tol!r}")
        lines.append(f"__fuzz_expect__ = {expect!r}")
        lines.append(f"__fuzz_always_ok__ = {{t: {PTO_ALWAYS!r} for t in {list(PTO_TARGETS)!r}}}")
        src = "\n".join(lines) + "\n"
        meta = {"seed": self.seed, "features": sorted(self.features), "mistake_p": 0.0, "mutations": [], "reference": True}
        return src, meta


def generate(seed: int, profile: str = "any"):
    return RefGen(seed, profile if profile in PROFILES else "any").generate()


if __name__ == "__main__":
    s, m = generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0, sys.argv[2] if len(sys.argv) > 2 else "any")
    print(s)
    print("#", m)
