"""Grammar-based random HTP kernel generator (see fuzz_htp.py for how to run the campaign).

`generate(seed)` returns (source, meta): a share of them (REFERENCE_SHARE) are
reference programs from gen_ref.py (issue 30's constructs with numpy's values);
the rest come from this grammar, which also writes those constructs (activations,
tile slices and steps, concat, reshape, argmax/argsort/sort, topk, gather and
scatter by column, scatter of rows, zeros_like/full_like) for the checks every
program gets. A grammar program is a whole Python module holding helpers
(`@htp.func`), sub-kernels and one entry kernel `k`, plus two plain functions
the fuzz worker calls, so that errors raised by a call point into the case file:

    def __fuzz_compile__(target): return k.compile(target, **CONSTANTS)
    def __fuzz_call__(compiled, args): return compiled(**args)

Most programs are well-typed: the generator tracks every tile's
(rows, cols, dtype, valid region) and only combines values that fit. A fraction
get generation-time mistakes (wrong dtype/shape picked on purpose) and/or
text mutations (unsupported Python syntax, bad annotations, huge or zero
sizes, undefined names, deleted/duplicated lines, unicode, CRLF, ...).

    python3 python/fuzz/gen.py SEED        # print the program for SEED
"""

from __future__ import annotations

import random
import re
import sys
from collections import namedtuple

FLOATS = ["f32", "f16", "bf16"]
INTS = ["i64", "i32", "i16", "i8"]
DTYPES = FLOATS + INTS + ["bool"]
NUMERIC = FLOATS + INTS

#: `generate(..., profile="pto")`: programs a PTO target should package — no
#: deliberate mistakes, the element types PTO's vector core computes in, no
#: Fortran-order tensors or relayouts (CPU-only layouts). The fuzzer's
#: `--profile pto` campaign compiles their packages against pto-isa.
PROFILES = {
    "any": {"floats": FLOATS, "ints": INTS, "errors": True, "cpu_layouts": True, "matmul": 3},
    # Fewer matmuls: most mixed cube/vector kernels the generator writes are cluster tasks PTO refuses today.
    "pto": {"floats": ["f32", "f16"], "ints": ["i32", "i16"], "errors": False, "cpu_layouts": False, "matmul": 0.4},
}
PROFILE = PROFILES["any"]

T = namedtuple("T", "r c dt vr vc")  # a tile type; vr/vc: None (full) or a token naming a ragged region
Dim = namedtuple("Dim", "kind value size")  # kind: static | sym | const; size: int or None
TensorP = namedtuple("TensorP", "name dt dims roles out")  # roles: role of each dim ('B', 'R', 'C', 'K', '1')


def dt_code(rng, dt):
    if dt == "bool":
        return rng.choice(["htp.bool_", "bool"])
    return rng.choice([f"htp.{dt}", f"htp.{dt}", dt])


def body_dt_code(rng, dt):
    """Spellings accepted in a kernel body (not in annotations)."""
    alt = {"f32": "htp.float32", "f16": "htp.float16", "bf16": "htp.bfloat16", "i64": "htp.int64",
           "i32": "htp.int32", "i16": "htp.int16", "i8": "htp.int8", "bool": "htp.i1"}
    if rng.random() < 0.15:
        return alt[dt]
    if dt == "bool":
        return "bool" if rng.random() < 0.03 else "htp.bool_"
    return dt_code(rng, dt)


class Gen:
    def __init__(self, seed: int, allow_errors: bool = True):
        self.rng = random.Random(seed)
        self.seed = seed
        self.counter = 0
        self.helpers = []  # code of @htp.func / sub-kernels, in definition order
        self.helper_depth = 0
        self.p_mistake = 0.0
        if allow_errors and self.rng.random() < 0.25:
            self.p_mistake = self.rng.choice([0.02, 0.05, 0.1])
        self.features = set()

    def fresh(self, prefix="v"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    # ------------------------------------------------------------------ literals
    def float_lit(self):
        r = self.rng
        return r.choice(["0.0", "1.0", "2.0", "0.5", "-1.0", "3.25", "1e-3", "-0.125", "1.0e30", "-1.0e30",
                         "htp.inf", "-htp.inf", "math.pi", "1e-6", "100.0", "0.1"])

    def int_lit(self, dt="i32"):
        r = self.rng
        if dt == "i8":
            return r.choice(["0", "1", "2", "-3", "7", "127", "-128", "5"])
        return r.choice(["0", "1", "2", "3", "-1", "7", "16", "100", "-5", "1000"])

    def lit(self, dt):
        if dt in FLOATS:
            return self.float_lit()
        if dt == "bool":
            return self.rng.choice(["True", "False"])
        return self.int_lit(dt)


class KernelGen:
    """Generates one kernel: signature, loop nest, body."""

    def __init__(self, g: Gen, name: str, depth: int = 0):
        self.g = g
        self.rng = g.rng
        self.name = name
        self.depth = depth
        self.lines = []
        self.env = {}  # name -> T or ('s', kind)
        self.sites = []  # (code, T) tiles addressable by a load
        self.store_sites = []  # (code, T, tensor)
        self.loops = []
        self.params = []  # code of parameters
        self.consts = {}  # name -> default value code
        self.const_values = {}  # name -> python value
        self.scalars = {}  # name -> kind
        self.syms = set()
        self.tensors = []
        self.compile_consts = {}  # passed to compile()
        self.index_names = []  # names usable as index scalars

    # ------------------------------------------------------------------ emit
    def emit(self, text, indent):
        self.lines.append("    " * indent + text)

    # ------------------------------------------------------------------ signature
    def make_dim(self, role, pool):
        """A dimension for `role`, shared across tensors through `pool`."""
        if role in pool:
            return pool[role]
        r = self.rng
        sizes = [16, 32, 48, 64, 37, 100, 128, 8, 1, 256, 24, 7, 96]
        roll = r.random()
        if roll < 0.45:
            name = {"R": "N", "C": "M", "K": "K", "B": "H"}[role]
            if r.random() < 0.1:
                name = r.choice(["S", "D", "L", "rows", "X_1"])
            d = Dim("sym", name, None)
            self.syms.add(name)
        elif roll < 0.6:
            name = {"R": "R", "C": "C", "K": "KD", "B": "HB"}[role]
            size = r.choice(sizes)
            d = Dim("const", name, size)
            self.consts[name] = str(size)
            self.const_values[name] = size
            self.params_const_int = True
        else:
            d = Dim("static", r.choice(sizes if role != "B" else [1, 2, 3]), None)
            d = Dim("static", d.value, d.value)
        pool[role] = d
        return d

    def dim_code(self, d: Dim):
        if d.kind == "static":
            return str(d.value)
        return f'"{d.value}"'

    def size_expr(self, t: TensorP, axis: int):
        """An expression for the size of t's dim `axis` (index or int)."""
        d = t.dims[axis]
        r = self.rng
        opts = [f"{t.name}.shape[{axis}]"]
        if d.kind in ("sym", "const"):
            opts.append(d.value)
        if d.kind == "static":
            opts.append(str(d.value))
        return r.choice(opts)

    def build_signature(self, shared_tensors=None):
        r = self.rng
        g = self.g
        pool = {}
        self.br = r.choice([1, 2, 4, 8, 8, 16, 16, 32, 3, 5, 12, 64])
        self.bc = r.choice([8, 16, 32, 64, 128, 16, 32, 7, 24, 100, 1])
        self.bk = r.choice([8, 16, 32, 16, 5])
        if r.random() < 0.03:
            self.br = r.choice([256, 512, 1024, 4096])
            g.features.add("huge-block")
        rank_main = r.choice([2, 2, 2, 2, 1, 3])
        if rank_main == 1:
            roles = ["C"]
        elif rank_main == 2:
            roles = ["R", "C"]
        else:
            roles = ["B", "R", "C"]
        n_in = r.choice([1, 1, 2, 2, 3, 4])
        tensors = []
        dts_main = r.choice(DTYPES + ["f32", "f32", "f16", "f32", "i32"])
        self.main_dt = dts_main
        for n in range(n_in):
            dt = dts_main if r.random() < 0.7 else r.choice(DTYPES)
            kind = r.random()
            if kind < 0.65 or n == 0:
                rl = roles
            elif kind < 0.8 and rank_main >= 2:
                rl = roles[:-1] + ["K"]  # [.., R, K] : left matmul operand
                if r.random() < 0.5:
                    rl = roles[:-2] + ["K", "C"]  # [.., K, C]: right operand
            elif kind < 0.9:
                rl = ["1", "C"] if r.random() < 0.6 else ["C"]
            else:
                rl = ["R", "1"] if rank_main >= 2 else ["C"]
            dims = [Dim("static", 1, 1) if role == "1" else self.make_dim(role, pool) for role in rl]
            tensors.append(TensorP(["x", "y", "w", "a", "b", "q"][n] if n < 6 else f"t{n}", dt, dims, rl, False))
        n_out = r.choice([1, 1, 1, 2])
        for n in range(n_out):
            dt = r.choice([dts_main, dts_main, "f32", r.choice(DTYPES)])
            rl = roles if r.random() < 0.8 or rank_main < 2 else roles[:-1] + ["1"]
            dims = [Dim("static", 1, 1) if role == "1" else self.make_dim(role, pool) for role in rl]
            tensors.append(TensorP(["out", "o2", "o3"][n], dt, dims, rl, True))
        self.pool = pool
        for role, attr in (("R", "br"), ("C", "bc"), ("K", "bk")):
            d = pool.get(role)
            if d is not None and d.size is not None and getattr(self, attr) > d.size and r.random() < 0.9:
                setattr(self, attr, r.choice([b for b in (1, 2, 4, 8, 16, 32, d.size) if b <= d.size]))
        self.tensors = tensors
        params = []
        for t in tensors:
            ann = "htp.Out" if t.out else "htp.Tensor"
            if t.out and r.random() < 0.2:
                ann = "htp.InOut"
            dims = ", ".join(self.dim_code(d) for d in t.dims)
            if len(t.dims) > 1 and r.random() < 0.1 and PROFILE["cpu_layouts"]:
                dims += ', htp.layout("col_major")'  # a Fortran-order tensor (cpu only)
            if t.out and r.random() < 0.2:
                params.append(f"{t.name}: {ann}[htp.Tensor[{dt_code(r, t.dt)}, {dims}]]")
            else:
                params.append(f"{t.name}: {ann}[{dt_code(r, t.dt)}, {dims}]")
        # scalars
        for n in range(r.choice([0, 0, 1, 1, 2, 3])):
            kind = r.choice(["f32", "f32", "i32", "i64", "bool", "i16", "i8", "f16", "bf16"])
            name = ["alpha", "beta", "n0", "flag", "s4"][n]
            spell = {"f32": r.choice(["htp.f32", "float", "f32"]), "i64": r.choice(["int", "htp.i64"]),
                     "bool": r.choice(["bool", "htp.bool_"])}.get(kind, f"htp.{kind}")
            params.append(f"{name}: {spell}")
            self.scalars[name] = kind
            self.env[name] = ("s", kind)
        # block constants
        self.br_code = str(self.br)
        self.bc_code = str(self.bc)
        if r.random() < 0.4:
            self.consts["BR"] = str(self.br)
            self.const_values["BR"] = self.br
            self.br_code = "BR"
            if r.random() < 0.3:
                # pass a different value at compile time
                rsize = pool["R"].size if "R" in pool else None
                nb = r.choice([b for b in (1, 2, 4, 8, 16, 32) if rsize is None or b <= rsize])
                self.compile_consts["BR"] = nb
                self.br = nb
        if r.random() < 0.3:
            self.consts["BC"] = str(self.bc)
            self.const_values["BC"] = self.bc
            self.bc_code = "BC"
        if r.random() < 0.3:
            v = r.choice(["True", "False"])
            self.consts["FLAG"] = v
            self.const_values["FLAG"] = v == "True"
            if r.random() < 0.3:
                self.compile_consts["FLAG"] = not self.const_values["FLAG"]
                self.const_values["FLAG"] = not self.const_values["FLAG"]
        if r.random() < 0.2:
            v = r.choice(["0.5", "2.0", "-1.0"])
            self.consts["SCALE"] = v
            self.const_values["SCALE"] = float(v)
        for name, default in self.consts.items():
            kind = {"True": "bool", "False": "bool"}.get(default, "float" if "." in default else "int")
            spell = r.choice([f"htp.Const[{kind}]", f"htp.Const[{kind}]", "htp.Const", f"htp.constexpr[{kind}]"])
            params.append(f"{name}: {spell} = {default}")
        for name, value in self.compile_consts.items():
            if name in self.const_values:
                pass
        self.params = params
        for s in self.syms:
            self.index_names.append(s)

    # ------------------------------------------------------------------ sites
    def tok_for(self, d: Dim, block, var):
        """The valid token of `var:var + block` over dimension d."""
        if d.kind == "sym":
            return (d.value, var, block)
        size = self.const_values.get(d.value) if d.kind == "const" else d.value
        if isinstance(size, int) and size % block == 0:
            return None
        return (str(d.value), var, block)

    def refresh_sites(self):
        """Load/store sites for the current loop context."""
        self.sites = []
        self.store_sites = []
        lv = {l["role"]: l for l in self.loops if l.get("role")}
        for t in self.tensors:
            items = []  # list of list of (code, size, tok) per dim
            ok = True
            for axis, (d, role) in enumerate(zip(t.dims, t.roles)):
                is_tile = axis >= len(t.dims) - 2
                opts = []
                size = d.size if d.kind == "static" else self.const_values.get(d.value) if d.kind == "const" else None
                if not is_tile:
                    if "B" in lv:
                        opts.append((lv["B"]["var"], None, None))
                    opts.append(("0", None, None))
                    if size:
                        opts.append((str(size - 1), None, None))
                    items.append(opts)
                    continue
                if role == "1":
                    opts.append(("0:1", 1, None))
                    opts.append((":", 1, None))
                    opts.append(("0", 1, None))
                elif role in lv and lv[role]["block"] is not None:
                    l = lv[role]
                    opts.append((f"{l['var']}:{l['var']} + {l['bcode']}", l["block"], self.tok_for(d, l["block"], l["var"])))
                    if l["block"] == 1:
                        opts.append((l["var"], 1, None))
                else:
                    if size is not None:
                        opts.append((":", size, None))
                        if size > 4 and self.rng.random() < 0.3:
                            a = self.rng.randrange(0, size // 2)
                            b = self.rng.randrange(a + 1, size + 1)
                            opts.append((f"{a}:{b}", b - a, None))
                    else:
                        b = self.rng.choice([8, 16, 4])
                        opts.append((f"0:{b}", b, ("c0", d.value, b)))
                if not opts:
                    ok = False
                    break
                items.append(opts)
            if not ok:
                continue
            # enumerate a few combinations
            for _ in range(3):
                chosen = [self.rng.choice(o) for o in items]
                code = ", ".join(c[0] for c in chosen)
                tile_dims = [c for c in chosen[-2:]]
                if len(t.dims) == 1:
                    shape = (1, tile_dims[0][1])
                    toks = (None, tile_dims[0][2])
                else:
                    shape = (tile_dims[0][1], tile_dims[1][1])
                    toks = (tile_dims[0][2], tile_dims[1][2])
                if shape[0] is None or shape[1] is None:
                    continue
                ty = T(shape[0], shape[1], t.dt, toks[0], toks[1])
                site = f"{t.name}[{code}]"
                if self.rng.random() < 0.1 and code.endswith(", :"):
                    site = f"{t.name}[{code[:-3]}]"  # missing trailing item
                if t.out:
                    self.store_sites.append((site, ty, t))
                if not t.out or self.rng.random() < 0.2:
                    self.sites.append((site, ty))
        # run-time start slices (unique tokens)
        if self.loops and self.rng.random() < 0.3:
            for t in self.tensors:
                if t.out or len(t.dims) != 2 or t.roles[0] != "R":
                    continue
                l = self.loops[0]
                start = self.rng.choice([f"({l['var']} // 2) * 2", f"{l['var']} + 1", f"max({l['var']} - 1, 0)"])
                b = self.rng.choice([1, 4, 8])
                size_c = t.dims[1].size if t.dims[1].kind == "static" else self.const_values.get(t.dims[1].value)
                if size_c is None:
                    continue
                self.sites.append((f"{t.name}[{start}:{start} + {b}, :]", T(b, size_c, t.dt, ("rt", start, b), None)))

    # ------------------------------------------------------------------ tiles
    def mistake(self):
        return self.rng.random() < self.g.p_mistake

    def vars_of(self, ty):
        return [n for n, v in self.env.items() if v == ty]

    def scalar_vars(self, kind):
        return [n for n, v in self.env.items() if isinstance(v, tuple) and len(v) == 2 and v[0] == "s" and v[1] == kind]

    def gen_tile(self, ty: T, depth: int = 0) -> str:
        """An expression of tile type `ty`."""
        r = self.rng
        if self.mistake():
            # deliberately wrong: another dtype or shape
            ty = T(r.choice([ty.r, ty.r * 2, 1, 3]), r.choice([ty.c, 1, ty.c + 1]), r.choice(DTYPES), ty.vr, ty.vc)
        if not self.makeable(ty):
            ty = T(ty.r, ty.c, ty.dt, None, None)
        cands = []
        full = ty.vr is None and ty.vc is None
        vs = self.vars_of(ty)
        if vs:
            cands += [(4, lambda: r.choice(vs))]
        loads = [s for s, t in self.sites if t == ty]
        if loads:
            cands += [(5, lambda: r.choice(loads))]
        if full:
            ragged = [(s, t) for s, t in self.sites if t.r == ty.r and t.c == ty.c and t.dt == ty.dt and (t.vr or t.vc)]
            if ragged and depth < 4:
                cands += [(4, lambda: f"htp.pad({r.choice(ragged)[0] if r.random() < 0.7 else self.gen_tile(T(ty.r, ty.c, ty.dt, *r.choice(ragged)[1][3:]), depth + 1)}, {self.pad_value(ty.dt)})")]
            cands += [(1, lambda: self.make_tile(ty))]
        if ty.r == 1 and ty.c == 1 and full:
            cands += [(1, lambda: self.make_tile(ty))]
        if depth < 4:
            if ty.dt in FLOATS:
                cands += [(2, lambda: f"htp.{r.choice(['exp', 'log', 'sqrt', 'rsqrt', 'recip', 'abs', 'neg', 'relu'])}({self.gen_tile(ty, depth + 1)})")]
            if ty.dt in NUMERIC:
                cands += [(1, lambda: f"{r.choice(['htp.abs', 'htp.neg', 'htp.relu', '-'])}({self.gen_tile(ty, depth + 1)})")]
                cands += [(6, lambda: self.binary(ty, depth))]
                cands += [(2, lambda: self.reduction(ty, depth))]
                cands += [(2, lambda: self.cast_to(ty, depth))]
                cands += [(2, lambda: self.where(ty, depth))]
                cands += [(1, lambda: self.transpose(ty, depth))]
                if PROFILE["cpu_layouts"]:
                    cands += [(0.7, lambda: self.relayout(ty, depth))]
                cands += [(1, lambda: self.broadcast(ty, depth))]
                cands += [(1, lambda: self.cond_expr(ty, depth))]
                if ty.dt in ("f32", "i32", "f16") and depth < 3:
                    cands += [(PROFILE["matmul"], lambda: self.matmul(ty, depth))]
                if self.g.helper_depth < 2 and depth < 3 and len(self.g.helpers) < 6:
                    cands += [(1.5, lambda: self.helper_call(ty, depth))]
            if ty.dt != "bool" and full:
                cands += [(0.7, lambda: self.gather(ty, depth))]
            if ty.dt in FLOATS:
                cands += [(1.5, lambda: self.activation(ty, depth))]
            cands += [(1.5, lambda: self.tile_shape(ty, depth))]
            if ty.dt in NUMERIC:
                cands += [(1.5, lambda: self.selection(ty, depth))]
            if not full:
                cands += [(0.5, lambda: self.like(ty, depth))]
            if ty.dt == "bool":
                cands += [(6, lambda: self.compare(ty, depth))]
                cands += [(1, lambda: self.where(ty, depth))]
                cands += [(1, lambda: self.cast_to(ty, depth))]
        if not cands:
            return self.fallback(ty, depth)
        total = sum(w for w, _ in cands)
        x = r.random() * total
        for w, f in cands:
            x -= w
            if x <= 0:
                res = f()
                if res is not None:
                    return res
                break
        return self.fallback(ty, depth)

    def base_dts(self, rr, cc, vr, vc):
        """dtypes of the vars and load sites of shape rr x cc with valid tokens (vr, vc)."""
        dts = set()
        for v in self.env.values():
            if isinstance(v, T) and (v.r, v.c, v.vr, v.vc) == (rr, cc, vr, vc):
                dts.add(v.dt)
        for s, t in self.sites:
            if (t.r, t.c, t.vr, t.vc) == (rr, cc, vr, vc):
                dts.add(t.dt)
        return dts

    def makeable(self, ty):
        """Can a tile of type ty be built here? (A ragged one needs a ragged var or load.)"""
        if ty.vr is None and ty.vc is None:
            return True
        return bool(self.base_dts(ty.r, ty.c, ty.vr, ty.vc))

    def src_dt(self, ty, choices):
        """A dtype for an operand of ty's shape and valid region (e.g. the source of a cast)."""
        if ty.vr is None and ty.vc is None:
            return self.rng.choice(choices)
        dts = sorted(self.base_dts(ty.r, ty.c, ty.vr, ty.vc))
        return self.rng.choice(dts) if dts else self.rng.choice(choices)

    def fallback(self, ty, depth):
        if ty.vr is None and ty.vc is None:
            return self.make_tile(ty)
        ragged = [s for s, t in self.sites if t == ty] + self.vars_of(ty)
        if ragged:
            return self.rng.choice(ragged)
        dts = sorted(self.base_dts(ty.r, ty.c, ty.vr, ty.vc))
        if dts:
            d = self.rng.choice(dts)
            return f"htp.cast({self.fallback(T(ty.r, ty.c, d, ty.vr, ty.vc), depth)}, {body_dt_code(self.rng, ty.dt)})"
        # no way to make this ragged tile: accept a full one (a mistake the compiler reports)
        return self.make_tile(ty)

    def pad_value(self, dt):
        r = self.rng
        if dt in FLOATS:
            return r.choice(["0.0", "0.0", "-1.0e30", "1.0", "-htp.inf"])
        if dt == "bool":
            return r.choice(["False", "True"])
        return r.choice(["0", "0", "1", "-1"])

    def make_tile(self, ty):
        r = self.rng
        shape = f"({ty.r}, {ty.c})"
        if r.random() < 0.1 and ty.r == self.br:
            shape = f"({self.br_code}, {ty.c})"
        opts = [
            lambda: f"htp.zeros({shape}, {body_dt_code(r, ty.dt)})",
            lambda: f"htp.ones({shape}, {body_dt_code(r, ty.dt)})",
            lambda: f"htp.full({shape}, {self.g.lit(ty.dt)}, {body_dt_code(r, ty.dt)})",
            lambda: f"htp.full({shape}, {self.g.lit(ty.dt)}, dtype={body_dt_code(r, ty.dt)})",
        ]
        if ty.dt == "f32":
            opts.append(lambda: f"htp.zeros({shape})")
            opts.append(lambda: f"htp.full({shape}, {self.g.float_lit()})")
        if ty.dt in INTS:
            opts.append(lambda: f"htp.iota({shape}, {r.choice([0, 1])}, {body_dt_code(r, ty.dt)})")
            if ty.dt == "i32":
                opts.append(lambda: f"htp.iota({shape}, {r.choice([0, 1])})")
                opts.append(lambda: f"(htp.iota({shape}, {r.choice([0, 1])}) + {self.gen_scalar('i32', 1)})")
        sv = self.scalar_vars(ty.dt)
        if sv:
            opts.append(lambda: f"htp.full({shape}, {r.choice(sv)})")
        if ty.dt in FLOATS and r.random() < 0.2:
            opts.append(lambda: f"htp.cast(htp.iota({shape}, {r.choice([0, 1])}), {body_dt_code(r, ty.dt)})")
        return r.choice(opts)()

    def scalar_operand(self, dt):
        r = self.rng
        sv = self.scalar_vars(dt)
        if sv and r.random() < 0.5:
            return r.choice(sv)
        if dt in FLOATS and "SCALE" in self.consts and r.random() < 0.3:
            return "SCALE"
        if dt in FLOATS and r.random() < 0.2:
            return f"htp.{dt}({self.gen_scalar('index', 2)})" if dt == "f32" else self.g.float_lit()
        return self.g.lit(dt)

    def binary(self, ty, depth):
        r = self.rng
        if ty.dt == "bool":
            return None
        ops = ["+", "-", "*", "+", "*"]
        if ty.dt in FLOATS:
            ops += ["/"]
        fn = r.random()
        a = self.gen_tile(ty, depth + 1)
        # second operand: same type, broadcastable row/col, or a scalar
        roll = r.random()
        if roll < 0.5:
            b = self.gen_tile(ty, depth + 1)
        elif roll < 0.65 and ty.c > 1 and ty.vc is None and self.makeable(T(ty.r, 1, ty.dt, ty.vr, None)):
            b = self.gen_tile(T(ty.r, 1, ty.dt, ty.vr, None), depth + 1)
        elif roll < 0.8 and ty.r > 1 and ty.vr is None and self.makeable(T(1, ty.c, ty.dt, None, ty.vc)):
            b = self.gen_tile(T(1, ty.c, ty.dt, None, ty.vc), depth + 1)
        else:
            b = self.scalar_operand(ty.dt)
            if r.random() < 0.3:
                a, b = b, a
        if fn < 0.75:
            return f"({a} {r.choice(ops)} {b})"
        if fn < 0.9:
            name = r.choice(["add", "sub", "mul", "maximum", "minimum"] + (["div"] if ty.dt in FLOATS else []))
            return f"htp.{name}({a}, {b})"
        return f"{r.choice(['max', 'min'])}({a}, {b})"

    def reduction(self, ty, depth):
        r = self.rng
        kind = r.choice(["sum", "max", "min"])
        if ty.c == 1 and ty.vc is None:
            c2 = r.choice([ty.r and self.bc, 16, 8, 32, 1])
            tok = self.pick_tok(ty.r, c2, ty.dt, ty.vr, "c")
            if ty.vr is not None:
                bases = [t for t in self.all_bases() if t.r == ty.r and t.vr == ty.vr]
                if not bases:
                    return None
                b = r.choice(bases)
                c2, tok = b.c, b.vc
            src = self.gen_tile(T(ty.r, c2, ty.dt, ty.vr, tok), depth + 1)
            if r.random() < 0.2:
                return f'htp.row_reduce({src}, "{kind}")'
            return f"htp.row_{kind}({src})"
        if ty.r == 1 and ty.vr is None:
            r2 = r.choice([self.br, 16, 8, 2])
            tok = self.pick_tok(r2, ty.c, ty.dt, ty.vc, "r")
            if ty.vc is not None:
                bases = [t for t in self.all_bases() if t.c == ty.c and t.vc == ty.vc]
                if not bases:
                    return None
                b = r.choice(bases)
                r2, tok = b.r, b.vr
            src = self.gen_tile(T(r2, ty.c, ty.dt, tok, ty.vc), depth + 1)
            if r.random() < 0.2:
                return f'htp.col_reduce({src}, "{kind}")'
            return f"htp.col_{kind}({src})"
        return None

    def all_bases(self):
        return [v for v in self.env.values() if isinstance(v, T)] + [t for s, t in self.sites]

    def pick_tok(self, rr, cc, dt, other, which):
        """A token for the free dimension of a reduction source, from a load site."""
        for s, t in self.sites:
            if t.r == rr and t.c == cc and (t.vr if which == "c" else t.vc) == other and self.rng.random() < 0.5:
                return t.vc if which == "c" else t.vr
        return None

    def gather(self, ty, depth):
        """htp.gather(x, rows, col, cols) from a rank-2 input of ty's dtype (row indices kept in range: 0 or the loop row)."""
        r = self.rng
        cands = []
        for t in self.tensors:
            if t.out or len(t.dims) != 2 or t.dt != ty.dt:
                continue
            c = t.dims[1]
            csize = c.size if c.kind == "static" else self.const_values.get(c.value) if c.kind == "const" else None
            if csize is None or csize < ty.c:
                continue
            cands.append((t, csize))
        if not cands:
            return None
        t, csize = r.choice(cands)
        col = r.randrange(0, csize - ty.c + 1)
        idt = r.choice(["htp.i32", "htp.i64"])
        idx = r.choice([f"htp.iota(({ty.r}, 1), 0, {idt}) * 0", f"htp.zeros(({ty.r}, 1), {idt})",
                        f"htp.minimum(htp.iota(({ty.r}, 1), 0, {idt}), 0)"])
        if r.random() < 0.3:
            return f"htp.gather({t.name}, rows={idx}, col={col}, cols={ty.c})"
        self.g.features.add("gather")
        return f"htp.gather({t.name}, {idx}, {col}, {ty.c})"

    # -------------------------------------------------------------- issue 30's constructs (types only:
    # gen_ref.py writes programs of them with numpy's values)
    def activation(self, ty, depth):
        r = self.rng
        name = r.choice(["sigmoid", "silu", "gelu", "tanh", "erf", "softplus"])
        arg = self.gen_tile(ty, depth + 1)
        if name == "gelu" and r.random() < 0.5:
            return f'htp.gelu({arg}, approximate="{r.choice(["tanh", "none"])}")'
        self.g.features.add("activation")
        return f"htp.{name}({arg})"

    def tile_shape(self, ty, depth):
        """ty as a block, every n-th column, a join or a reshape of other tiles."""
        r = self.rng
        roll = r.random()
        self.g.features.add("tile-shape")
        if roll < 0.3:
            extra = r.choice([1, 3, 8, 16])
            a = r.randrange(0, extra + 1)
            src = self.gen_tile(T(ty.r, ty.c + extra, ty.dt, ty.vr, None), depth + 1)
            if r.random() < 0.3 and ty.vr is None:
                b = r.randrange(0, 3)
                src = self.gen_tile(T(ty.r + 3, ty.c + extra, ty.dt, None, None), depth + 1)
                return f"{self.paren(src)}[{b}:{b + ty.r}, {a}:{a + ty.c}]"
            return f"{self.paren(src)}[:, {a}:{a + ty.c}]"
        if roll < 0.45:
            step = r.choice([2, 2, 4, 3])
            first = r.randrange(0, step)
            src = self.gen_tile(T(ty.r, ty.c * step, ty.dt, ty.vr, None), depth + 1)
            return f"{self.paren(src)}[:, {first}::{step}]"
        if roll < 0.75 and ty.c >= 2:
            cut = r.randrange(1, ty.c)
            a = self.gen_tile(T(ty.r, cut, ty.dt, ty.vr, None), depth + 1)
            b = self.gen_tile(T(ty.r, ty.c - cut, ty.dt, ty.vr, None), depth + 1)
            return f"htp.concat([{a}, {b}], axis={r.choice(['1', '-1'])})"
        if roll < 0.85 and ty.r >= 2 and ty.vr is None:
            cut = r.randrange(1, ty.r)
            a = self.gen_tile(T(cut, ty.c, ty.dt, None, ty.vc), depth + 1)
            b = self.gen_tile(T(ty.r - cut, ty.c, ty.dt, None, ty.vc), depth + 1)
            return f"htp.concat(({a}, {b}){r.choice(['', ', axis=0', ', axis=-2'])})"
        if ty.vr is None and ty.vc is None:
            n = ty.r * ty.c
            shapes = [(x, n // x) for x in range(1, n + 1) if n % x == 0 and n // x <= 512]
            r2, c2 = r.choice(shapes)
            src = self.gen_tile(T(r2, c2, ty.dt, None, None), depth + 1)
            return r.choice([f"htp.reshape({src}, ({ty.r}, {ty.c}))", f"{self.paren(src)}.reshape({ty.r}, -1)"])
        return None

    def paren(self, code):
        return code if code.isidentifier() or code.endswith(("]", ")")) and not code.startswith("(") else f"({code})"

    def index_tile(self, rows, cols, bound, vr):
        """An i32 tile of column indices in [0, bound) with `vr` valid rows."""
        r = self.rng
        if vr is not None:
            like = self.gen_tile(T(rows, cols, "i32", vr, None), 3)
            return f"htp.zeros_like({like})" if r.random() < 0.5 else f"htp.full_like({like}, {r.randrange(0, bound)})"
        return r.choice([f"htp.zeros(({rows}, {cols}), htp.i32)", f"htp.minimum(htp.iota(({rows}, {cols}), 1), {bound - 1})",
                         f"htp.full(({rows}, {cols}), {r.randrange(0, bound)}, htp.i32)"])

    def selection(self, ty, depth):
        """argmax / argsort / sort / topk's values / gather and scatter by column, of type ty."""
        r = self.rng
        roll = r.random()
        self.g.features.add("selection")
        if ty.dt == "i32" and ty.c == 1 and roll < 0.3:
            src = self.gen_tile(T(ty.r, r.choice([8, 16, 5, 1]), self.src_dt(ty, NUMERIC), ty.vr, None), depth + 1)
            fn = r.choice(["htp.argmax({}, axis=1)", "htp.argmin({}, axis=1)", "htp.row_argmax({})", "htp.row_argmin({})"])
            return fn.format(src)
        if ty.dt == "i32" and roll < 0.4:
            src = self.gen_tile(T(ty.r, ty.c, r.choice(NUMERIC), ty.vr, ty.vc), depth + 1)
            return f"htp.argsort({src}{r.choice(['', ', descending=True'])})"
        if roll < 0.55:
            return f"htp.sort({self.gen_tile(ty, depth + 1)}{r.choice(['', ', descending=True', ', descending=False'])})"
        if roll < 0.75 and ty.vc is None:
            wide = ty.c + r.choice([0, 3, 8])
            src = self.gen_tile(T(ty.r, wide, ty.dt, ty.vr, None), depth + 1)
            return f"htp.gather({src}, {self.index_tile(ty.r, ty.c, wide, ty.vr)}, axis=1)"
        if ty.vc is None:
            k = r.randrange(1, ty.c + 1)
            value = self.gen_tile(T(ty.r, k, ty.dt, ty.vr, None), depth + 1) if r.random() < 0.6 else self.g.lit(ty.dt)
            return f"htp.scatter({self.gen_tile(ty, depth + 1)}, {self.index_tile(ty.r, k, ty.c, ty.vr)}, {value}, axis=1)"
        return None

    def like(self, ty, depth):
        """zeros_like / ones_like / full_like of a tile of ty's shape and valid region."""
        r = self.rng
        dts = sorted(self.base_dts(ty.r, ty.c, ty.vr, ty.vc))
        if not dts:
            return None
        src = self.gen_tile(T(ty.r, ty.c, r.choice(dts), ty.vr, ty.vc), depth + 1)
        dtype = f", dtype={body_dt_code(r, ty.dt)}"
        if ty.dt == "bool":
            return f"htp.full_like({src}, {r.choice(['True', 'False'])}{dtype})"
        return r.choice([f"htp.zeros_like({src}{dtype})", f"htp.ones_like({src}{dtype})", f"htp.full_like({src}, {self.g.lit(ty.dt)}{dtype})"])

    def topk_stmt(self, indent):
        r = self.rng
        ty = self.tile_type_for_stmt()
        if ty.dt not in NUMERIC or ty.vc is not None:
            return self.assign_tile(indent)
        k = r.randrange(1, ty.c + 1)
        a, b = self.g.fresh("t"), self.g.fresh("t")
        self.emit(f"{a}, {b} = htp.topk({self.gen_tile(ty)}, {k}{r.choice(['', ', largest=False', ', largest=True'])})", indent)
        self.env[a], self.env[b] = T(ty.r, k, ty.dt, ty.vr, None), T(ty.r, k, "i32", ty.vr, None)
        self.g.features.add("topk")

    def scatter_rows_stmt(self, indent):
        """htp.scatter(y, rows, col, t) into an output (row 0 only: always inside)."""
        r = self.rng
        outs = [t for t in self.tensors if t.out and len(t.dims) == 2]
        if not outs:
            return self.store(indent)
        o = r.choice(outs)
        c = o.dims[1]
        csize = c.size if c.kind == "static" else self.const_values.get(c.value) if c.kind == "const" else None
        if csize is None:
            return self.store(indent)
        width = r.randrange(1, csize + 1)
        col = r.randrange(0, csize - width + 1)
        rows = r.choice([1, self.br, 4])
        idt = r.choice(["htp.i32", "htp.i64"])
        self.emit(f"htp.scatter({o.name}, htp.zeros(({rows}, 1), {idt}), {col}, {self.gen_tile(T(rows, width, o.dt, None, None))})", indent)
        self.g.features.add("scatter-rows")

    def cast_to(self, ty, depth):
        r = self.rng
        src_dt = self.src_dt(ty, DTYPES)
        src = self.gen_tile(T(ty.r, ty.c, src_dt, ty.vr, ty.vc), depth + 1)
        if r.random() < 0.3:
            return f"{src}.astype({body_dt_code(r, ty.dt)})"
        return f"htp.cast({src}, {body_dt_code(r, ty.dt)})"

    def compare(self, ty, depth):
        r = self.rng
        dt = self.src_dt(ty, NUMERIC + ["f32", "i32"])
        if dt == "bool":
            dt = "i32" if ty.vr is None and ty.vc is None else dt
        a = self.gen_tile(T(ty.r, ty.c, dt, ty.vr, ty.vc), depth + 1)
        b = self.gen_tile(T(ty.r, ty.c, dt, ty.vr, ty.vc), depth + 1) if r.random() < 0.5 else self.scalar_operand(dt)
        if r.random() < 0.2:
            a, b = b, a
        return f"({a} {r.choice(['<', '<=', '>', '>=', '==', '!='])} {b})"

    def where(self, ty, depth):
        r = self.rng
        mask = self.gen_tile(T(ty.r, ty.c, "bool", ty.vr, ty.vc), depth + 1)
        # two literals give the literals' type (f32 / i32 / bool): keep a tile then
        lit_ok = ty.dt in ("f32", "i32", "bool") and ty.vr is None and ty.vc is None
        ragged = ty.vr is not None or ty.vc is not None  # scalars cannot fill a ragged tile
        a_lit = r.random() < 0.3 and not ragged
        b_lit = r.random() < 0.4 and (lit_ok or not a_lit) and not ragged
        a = self.g.lit(ty.dt) if a_lit else self.gen_tile(ty, depth + 1)
        b = self.g.lit(ty.dt) if b_lit else self.gen_tile(ty, depth + 1)
        return f"htp.{r.choice(['where', 'where', 'select'])}({mask}, {a}, {b})"

    def transpose(self, ty, depth):
        r = self.rng
        if not self.makeable(T(ty.c, ty.r, ty.dt, ty.vc, ty.vr)) and (ty.vr or ty.vc):
            return None
        src = self.gen_tile(T(ty.c, ty.r, ty.dt, ty.vc, ty.vr), depth + 1)
        if r.random() < 0.4:
            return f"{src}.T" if src.isidentifier() or src.endswith("]") or src.endswith(")") else f"htp.transpose({src})"
        return f"htp.transpose({src})"

    def relayout(self, ty, depth):
        """`htp.relayout(t, facet)`: the same values in another layout (a
        target that does not hold it refuses at the line)."""
        r = self.rng
        facets = ['"row_major"', '"col_major"', "None"]
        if ty.dt == "f16" and ty.r % 16 == 0 and ty.c % 16 == 0:
            facets.append('"nz"')
        return f"htp.relayout({self.gen_tile(ty, depth + 1)}, {r.choice(facets)})"

    def broadcast(self, ty, depth):
        r = self.rng
        if ty.c > 1 and ty.vc is None and self.makeable(T(ty.r, 1, ty.dt, ty.vr, None)):
            src = self.gen_tile(T(ty.r, 1, ty.dt, ty.vr, None), depth + 1)
        elif ty.r > 1 and ty.vr is None and self.makeable(T(1, ty.c, ty.dt, None, ty.vc)):
            src = self.gen_tile(T(1, ty.c, ty.dt, None, ty.vc), depth + 1)
        else:
            return None
        return f"htp.broadcast({src}, ({ty.r}, {ty.c}))"

    def cond_expr(self, ty, depth):
        cond = self.const_cond()
        return f"({self.gen_tile(ty, depth + 1)} if {cond} else {self.gen_tile(ty, depth + 1)})"

    def const_cond(self):
        r = self.rng
        opts = ["True", "False"]
        if "FLAG" in self.consts:
            opts += ["FLAG", "not FLAG"]
        if "BR" in self.consts:
            opts += ["BR > 8", "BR == 1"]
        return r.choice(opts)

    def matmul(self, ty, depth):
        r = self.rng
        if ty.dt == "f32":
            in_dt = r.choice(["f32", "f16", "bf16", "f32"])
        elif ty.dt == "f16":
            in_dt = "f16"
        else:
            in_dt = "i8"
        k = r.choice([self.bk, 16, 32, 8, ty.c, ty.r, 1])
        # the contraction must be full; rows from a, cols from b
        if not (self.makeable(T(ty.r, k, in_dt, ty.vr, None)) and self.makeable(T(k, ty.c, in_dt, None, ty.vc))):
            return None
        a = self.gen_tile(T(ty.r, k, in_dt, ty.vr, None), depth + 1)
        b = self.gen_tile(T(k, ty.c, in_dt, None, ty.vc), depth + 1)
        roll = r.random()
        dt_kw = ""
        if ty.dt == "f16" or (roll < 0.2):
            dt_kw = f", dtype={body_dt_code(r, ty.dt)}"
        if roll < 0.5:
            if ty.dt == "f16":
                return f"htp.matmul({a}, {b}{dt_kw})"
            return f"({a} @ {b})"
        if roll < 0.7:
            return f"htp.{r.choice(['matmul', 'dot'])}({a}, {b}{dt_kw})"
        acc = self.gen_tile(ty, depth + 1)
        if roll < 0.85:
            return f"htp.dot({a}, {b}, {acc})" if r.random() < 0.5 else f"htp.matmul({a}, {b}, acc={acc})"
        return f"({acc} + {a} @ {b})" if r.random() < 0.5 else f"({a} @ {b} + {acc})"

    def helper_call(self, ty, depth):
        """Define an @htp.func returning `ty` (body generated in its own scope) and call it."""
        r = self.rng
        g = self.g
        g.helper_depth += 1
        try:
            name = g.fresh("h")
            hg = KernelGen(g, name, self.depth + 1)
            hg.consts, hg.const_values = {}, {}
            hg.br, hg.bc, hg.bk, hg.br_code, hg.bc_code = self.br, self.bc, self.bk, str(self.br), str(self.bc)
            nparams = r.choice([1, 2, 3])
            args, params = [], []
            for n in range(nparams):
                roll = r.random()
                pname = f"p{n}"
                if roll < 0.6:
                    pty = ty if r.random() < 0.6 else T(ty.r, r.choice([1, ty.c]), ty.dt, ty.vr, None if ty.c != 1 else ty.vc)
                    if pty.c == 1 and ty.vc is not None:
                        pty = ty
                    args.append(self.gen_tile(pty, depth + 1))
                    hg.env[pname] = pty
                    params.append(pname if r.random() < 0.7 else f"{pname}: htp.Tile")
                elif roll < 0.8:
                    kind = ty.dt if ty.dt in NUMERIC else "f32"
                    args.append(self.scalar_operand(kind) if r.random() < 0.5 else self.gen_scalar(kind, 2))
                    hg.env[pname] = ("s", kind) if not re.fullmatch(r"-?[0-9.e]+|htp\.inf|-htp\.inf|math\.pi", args[-1]) else ("s", "lit")
                    params.append(pname)
                else:
                    v = r.choice(["2", "4", "True", "0.5"])
                    args.append(v)
                    params.append(f"{pname}: htp.Const[{ {'2': 'int', '4': 'int', 'True': 'bool', '0.5': 'float'}[v]}]" if r.random() < 0.5 else pname)
                    hg.consts[pname] = v
                    hg.const_values[pname] = eval(v)
            body_lines = []
            hg.lines = body_lines
            for _ in range(r.choice([0, 1, 2])):
                vn = g.fresh("u")
                vty = T(ty.r, ty.c, ty.dt, ty.vr, ty.vc)
                hg.emit(f"{vn} = {hg.gen_tile(vty, 1)}", 1)
                hg.env[vn] = vty
            ret = hg.gen_tile(ty, 1)
            tuple_ret = r.random() < 0.03  # deliberately wrong: a tuple used as one value
            if tuple_ret:
                hg.emit(f"return {ret}, {ret}", 1)
            else:
                hg.emit(f"return {ret}", 1)
            deco = r.choice(["@htp.func", "@htp.func", "@func"])
            g.helpers.append(f"{deco}\ndef {name}({', '.join(params)}):\n" + "\n".join(body_lines) + "\n")
            call_args = list(args)
            if r.random() < 0.2 and nparams > 0:
                kw = params[-1].split(":")[0] + "=" + call_args[-1]
                call = f"{name}({', '.join(call_args[:-1] + [kw])})"
            else:
                call = f"{name}({', '.join(call_args)})"
            g.features.add("helper")
            return call
        finally:
            g.helper_depth -= 1

    # ------------------------------------------------------------------ scalars
    def gen_scalar(self, kind, depth=0):
        r = self.rng
        if kind == "index":
            base = [l["var"] for l in self.loops] + list(self.index_names) + ["0", "1", "2", "16"]
            base += self.scalar_vars("index")
            if "BR" in self.consts:
                base.append("BR")
            if depth >= 2 or r.random() < 0.4:
                return r.choice(base)
            roll = r.random()
            a = self.gen_scalar("index", depth + 1)
            b = self.gen_scalar("index", depth + 1)
            if roll < 0.5:
                return f"({a} {r.choice(['+', '-', '*', '//', '%', '+'])} {r.choice([b, '2', '3', str(self.br)])})"
            if roll < 0.7:
                return f"{r.choice(['min', 'max'])}({a}, {b})"
            t = [t for t in self.tensors]
            if t:
                tt = r.choice(t)
                return f"{tt.name}.shape[{r.randrange(len(tt.dims))}]"
            return a
        if kind == "bool":
            roll = r.random()
            sv = self.scalar_vars("bool")
            if sv and roll < 0.3:
                return r.choice(sv) if r.random() < 0.7 else f"not {r.choice(sv)}"
            if roll < 0.75 or depth >= 2:
                k2 = r.choice(["index", "index", "f32", "i32"] + [v for v in set(self.scalars.values()) if v != "bool"])
                return f"({self.gen_scalar(k2, depth + 1)} {r.choice(['<', '<=', '>', '>=', '==', '!='])} {self.gen_scalar(k2, depth + 1)})"
            return f"({self.gen_scalar('bool', depth + 1)} {r.choice(['and', 'or'])} {self.gen_scalar('bool', depth + 1)})"
        # numeric
        sv = self.scalar_vars(kind)
        if depth >= 2 or r.random() < 0.35:
            if sv and r.random() < 0.6:
                return r.choice(sv)
            return self.g.lit(kind)
        roll = r.random()
        a = self.gen_scalar(kind, depth + 1)
        b = self.gen_scalar(kind, depth + 1)
        if roll < 0.5:
            ops = ["+", "-", "*"] + (["/"] if kind in FLOATS else ["//", "%"])
            return f"({a} {r.choice(ops)} {b})"
        if roll < 0.65:
            return f"{r.choice(['max', 'min'])}({a}, {b})"
        if roll < 0.8:
            conv = {"f32": r.choice(["float", "htp.f32"])}.get(kind, f"htp.{kind}")
            if kind == "i64" and r.random() < 0.5:
                conv = "int"
            return f"{conv}({self.gen_scalar(r.choice(['index', 'f32', 'i32']), depth + 1)})"
        if roll < 0.9 and kind in FLOATS:
            return f"-{a}"
        return f"{a}"

    # ------------------------------------------------------------------ statements
    def gen_stmts(self, indent, n, in_loop_depth=0):
        r = self.rng
        for _ in range(n):
            roll = r.random()
            if roll < 0.4:
                self.assign_tile(indent)
            elif roll < 0.5:
                self.assign_scalar(indent)
            elif roll < 0.62:
                self.store(indent)
            elif roll < 0.7 and in_loop_depth < 3:
                self.carried_loop(indent, in_loop_depth)
            elif roll < 0.78:
                self.if_stmt(indent, in_loop_depth)
            elif roll < 0.82 and in_loop_depth < 3:
                self.static_loop(indent, in_loop_depth)
            elif roll < 0.86:
                self.tuple_helper(indent)
            elif roll < 0.9:
                self.aug_assign(indent)
            elif roll < 0.93 and self.depth == 0:
                self.sub_kernel_call(indent)
            elif roll < 0.96:
                self.topk_stmt(indent)
            elif roll < 0.97:
                self.scatter_rows_stmt(indent)
            else:
                self.store(indent)

    def tile_type_for_stmt(self):
        r = self.rng
        if self.sites and r.random() < 0.6:
            s, t = r.choice(self.sites)
            if r.random() < 0.4:
                t = T(t.r, t.c, t.dt, None, None)
            if r.random() < 0.3:
                t = T(t.r, t.c, r.choice(DTYPES), t.vr, t.vc)
            return t
        return T(r.choice([self.br, 1, 8, 16]), r.choice([self.bc, 1, 16, 32]), r.choice(DTYPES + ["f32", "f32"]), None, None)

    def assign_tile(self, indent):
        ty = self.tile_type_for_stmt()
        name = self.g.fresh("t")
        self.emit(f"{name} = {self.gen_tile(ty)}", indent)
        self.env[name] = ty

    def assign_scalar(self, indent):
        r = self.rng
        kind = r.choice(["index", "f32", "i32", "bool", "i64"] + list(self.scalars.values()))
        name = self.g.fresh("s")
        self.emit(f"{name} = {self.gen_scalar(kind)}", indent)
        self.env[name] = ("s", kind)

    def store(self, indent):
        r = self.rng
        if not self.store_sites:
            return
        site, ty, t = r.choice(self.store_sites)
        want = T(ty.r, ty.c, ty.dt, ty.vr, ty.vc) if r.random() < 0.4 else T(ty.r, ty.c, ty.dt, None, None)
        if r.random() < 0.1:
            self.emit(f"{site} = {self.g.lit(ty.dt)}", indent)
        else:
            self.emit(f"{site} = {self.gen_tile(want)}", indent)

    def aug_assign(self, indent):
        r = self.rng
        tiles = [(n, v) for n, v in self.env.items() if isinstance(v, T) and v.dt in NUMERIC]
        if tiles and r.random() < 0.6:
            n, ty = r.choice(tiles)
            op = r.choice(["+=", "-=", "*=", "+="] + (["/="] if ty.dt in FLOATS else []))
            self.emit(f"{n} {op} {self.gen_tile(ty)}", indent)
        elif self.store_sites:
            site, ty, t = r.choice(self.store_sites)
            if ty.dt in NUMERIC:
                self.emit(f"{site} += {self.gen_tile(T(ty.r, ty.c, ty.dt, ty.vr, ty.vc))}", indent)

    def carried_loop(self, indent, ld):
        r = self.rng
        ty = self.tile_type_for_stmt()
        ty = T(ty.r, ty.c, r.choice(["f32", "f32", ty.dt]), None, None)
        acc = self.g.fresh("acc")
        self.emit(f"{acc} = {self.make_tile(ty)}", indent)
        self.env[acc] = ty
        carried_s = None
        if r.random() < 0.4:
            carried_s = self.g.fresh("c")
            kind = r.choice(["f32", "index", "i32"])
            init = {"f32": "0.0", "index": "0", "i32": "htp.i32(0)"}[kind]
            self.emit(f"{carried_s} = {init}", indent)
            self.env[carried_s] = ("s", kind if kind != "i32" else "i32")
        var = self.g.fresh("k")
        # a K loop when a K dim exists, else a small range
        kd = self.pool.get("K")
        saved_sites = (self.sites, self.store_sites)
        if kd is not None and r.random() < 0.7:
            kt = [t for t in self.tensors if "K" in t.roles]
            stop = self.size_expr(kt[0], kt[0].roles.index("K")) if kt else "16"
            self.emit(f"for {var} in range(0, {stop}, {self.bk}):", indent)
            self.loops.append({"var": var, "role": "K", "block": self.bk, "bcode": str(self.bk)})
        else:
            stop = r.choice(["4", "3", "N" if "N" in self.syms else "2", "n0" if self.scalars.get("n0") in ("i32", "i64") else "5"])
            step = r.choice(["1", "1", "2"])
            self.emit(f"for {var} in range({r.choice(['', '0, '])}{stop}{', ' + step if step != '1' else ''}):", indent)
            self.loops.append({"var": var, "role": None, "block": None})
        self.refresh_sites()
        saved_env = dict(self.env)
        self.gen_stmts(indent + 1, r.choice([0, 1]), ld + 1)
        self.emit(f"{acc} = {acc} + {self.gen_tile(ty)}" if ty.dt != "bool" else f"{acc} = {self.gen_tile(ty)}", indent + 1)
        if carried_s:
            kind = self.env[carried_s][1]
            self.emit(f"{carried_s} = {carried_s} + {self.gen_scalar(kind, 1) if kind != 'index' else var}", indent + 1)
        self.loops.pop()
        self.env = {k: v for k, v in saved_env.items()}
        self.sites, self.store_sites = saved_sites
        self.g.features.add("carried")

    def static_loop(self, indent, ld):
        r = self.rng
        var = self.g.fresh("u")
        self.emit(f"for {var} in htp.static_range({r.choice(['2', '0, 3', '1, 4, 2', '0'])}):", indent)
        saved = dict(self.env)
        self.env[var] = ("s", "lit")
        self.gen_stmts(indent + 1, r.choice([1, 2]), ld + 1)
        self.env = saved

    def if_stmt(self, indent, ld):
        r = self.rng
        const = r.random() < 0.4
        cond = self.const_cond() if const else self.gen_scalar("bool")
        existing = [(n, v) for n, v in self.env.items() if isinstance(v, T)]
        self.emit(f"if {cond}:", indent)
        saved = dict(self.env)
        target = r.choice(existing) if existing and r.random() < 0.7 else None
        if target:
            self.emit(f"{target[0]} = {self.gen_tile(target[1])}", indent + 1)
        else:
            self.gen_stmts(indent + 1, 1, ld + 1)
            self.env = dict(saved)
        if r.random() < 0.2:
            self.emit(f"elif {self.gen_scalar('bool') if not const else self.const_cond()}:", indent)
            if target:
                self.emit(f"{target[0]} = {self.gen_tile(target[1])}", indent + 1)
            else:
                self.emit("pass", indent + 1)
        if r.random() < 0.6:
            self.emit("else:", indent)
            if target:
                self.emit(f"{target[0]} = {self.gen_tile(target[1])}", indent + 1)
            else:
                self.gen_stmts(indent + 1, 1, ld + 1)
        self.env = saved
        self.g.features.add("if")

    def tuple_helper(self, indent):
        """a, b = helper(...) with a tuple return."""
        r = self.rng
        g = self.g
        if g.helper_depth >= 2 or len(g.helpers) > 6:
            return self.assign_tile(indent)
        ty = self.tile_type_for_stmt()
        ty2 = T(ty.r, 1, ty.dt, ty.vr, None) if r.random() < 0.5 else ty
        name = g.fresh("h")
        g.helper_depth += 1
        try:
            hg = KernelGen(g, name, self.depth + 1)
            hg.consts, hg.const_values = {}, {}
            hg.br, hg.bc, hg.bk, hg.br_code, hg.bc_code = self.br, self.bc, self.bk, str(self.br), str(self.bc)
            hg.env["p0"] = ty
            arg = self.gen_tile(ty)
            lines = []
            hg.lines = lines
            first = hg.gen_tile(ty, 1)
            second = hg.gen_tile(ty2, 1)
            hg.emit(f"return {first}, {second}", 1)
            g.helpers.append(f"@htp.func\ndef {name}(p0):\n" + "\n".join(lines) + "\n")
        finally:
            g.helper_depth -= 1
        a, b = g.fresh("t"), g.fresh("t")
        self.emit(f"{a}, {b} = {name}({arg})", indent)
        self.env[a], self.env[b] = ty, ty2

    def sub_kernel_call(self, indent):
        """Call another @htp.kernel that writes one of our outputs."""
        r = self.rng
        g = self.g
        outs = [t for t in self.tensors if t.out]
        ins = [t for t in self.tensors if not t.out]
        if not outs or not ins or len(g.helpers) > 6:
            return
        o, i = r.choice(outs), r.choice(ins)
        name = g.fresh("sub")
        sg = KernelGen(g, name, self.depth + 1)
        sg.tensors = [TensorP("src", i.dt, i.dims, i.roles, False), TensorP("dst", o.dt, o.dims, o.roles, True)]
        sg.consts = {k: v for k, v in self.consts.items() if k in ("R", "C", "KD", "HB")}
        sg.const_values = {k: self.const_values[k] for k in sg.consts}
        sg.pool = self.pool
        sg.syms = set(d.value for t in sg.tensors for d in t.dims if d.kind == "sym")
        sg.index_names = list(sg.syms)
        sg.br, sg.bc, sg.bk = r.choice([4, 8, 16]), r.choice([16, 32]), 16
        sg.br_code, sg.bc_code = str(sg.br), str(sg.bc)
        params = []
        for t in sg.tensors:
            dims = ", ".join(sg.dim_code(d) for d in t.dims)
            params.append(f"{t.name}: {'htp.Out' if t.out else 'htp.Tensor'}[{dt_code(r, t.dt)}, {dims}]")
        for k, v in sg.consts.items():
            params.append(f"{k}: htp.Const[int] = {v}")
        sg.loop_nest(1)
        g.helpers.append(f"@htp.kernel\ndef {name}({', '.join(params)}):\n" + "\n".join(sg.lines) + "\n")
        args = [i.name, o.name]
        if r.random() < 0.3:
            self.emit(f"{name}(src={i.name}, dst={o.name})", indent)
        else:
            self.emit(f"{name}({', '.join(args)})", indent)
        g.features.add("subkernel")

    # ------------------------------------------------------------------ loop nest
    def loop_nest(self, indent):
        r = self.rng
        main = [t for t in self.tensors if t.out] or self.tensors
        ref = main[0]
        roles = ref.roles
        body_indent = indent
        if "B" in roles:
            ax = roles.index("B")
            var = "h"
            self.emit(f"for {var} in range({self.size_expr(ref, ax)}):", body_indent)
            self.loops.append({"var": var, "role": "B", "block": None})
            body_indent += 1
        if "R" in roles and r.random() < 0.85:
            ax = roles.index("R")
            var = "i"
            start = "0, " if r.random() < 0.8 else ""
            if start == "":
                self.br = 1  # range(stop): step 1
                self.br_code = "1"
            stop = self.size_expr(ref, ax)
            if r.random() < 0.05:
                stop = f"min({stop}, 64)"
            step = f", {self.br_code}" if start else ""
            # How the outer loop is spread over cores (htp.range keywords);
            # a grain on a loop that cannot be distributed is a located error.
            spread = r.choice(["", "", "", "", ", grain=1", ", grain=3", ", parallel=False", ", parallel=True"])
            head = "htp.range" if spread else "range"
            self.emit(f"for {var} in {head}({start}{stop}{step}{spread}):", body_indent)
            self.loops.append({"var": var, "role": "R", "block": self.br, "bcode": self.br_code})
            body_indent += 1
        cdim = ref.dims[roles.index("C")] if "C" in roles else None
        if "C" in roles and (cdim.kind == "sym" or r.random() < 0.5):
            ax = roles.index("C")
            var = "j"
            self.emit(f"for {var} in range(0, {self.size_expr(ref, ax)}, {self.bc_code}):", body_indent)
            self.loops.append({"var": var, "role": "C", "block": self.bc, "bcode": self.bc_code})
            body_indent += 1
        self.refresh_sites()
        if r.random() < 0.05:
            self.emit(f'"""a docstring"""', body_indent)
        self.gen_stmts(body_indent, r.choice([1, 2, 3, 4]))
        # make sure something is stored
        self.store(body_indent)
        if r.random() < 0.2:
            self.store(body_indent)
        if not self.lines:
            self.emit("pass", indent)

    def generate(self):
        self.build_signature()
        self.loop_nest(1)
        return self.lines


# ---------------------------------------------------------------------- mutations
UNSUPPORTED_STMTS = [
    "while {i} < 4:\n{I}    pass",
    "try:\n{I}    pass\n{I}except Exception:\n{I}    pass",
    "with open('x') as f:\n{I}    pass",
    "raise ValueError('no')",
    "assert {i} >= 0",
    "import os",
    "from math import sqrt",
    "global G",
    "nonlocal q",
    "del {v}",
    "match {i}:\n{I}    case 0:\n{I}        pass",
    "def inner(z):\n{I}    return z",
    "class C:\n{I}    pass",
    "f = lambda z: z + 1",
    "zz = [q for q in range(4)]",
    "zz = {{q: q for q in range(3)}}",
    "zz = {{1, 2}}",
    "zz = {{'a': 1}}",
    "zz = f'{{{i}}}'",
    "zz = (w := 3)",
    "print({v})",
    "zz = htp.exp(*[{v}])",
    "zz = htp.exp(**{{'x': {v}}})",
    "break",
    "continue",
    "return",
    "return {v}",
    "yield {v}",
    "zz = 1 < {i} < 3",
    "zz = {v}[0, 0]",
    "zz = {v}[0]",
    "zz = {v}.shape",
    "zz = {v}.foo()",
    "zz = {v}.astype()",
    "zz = {v} & {v}",
    "zz = {v} | {v}",
    "zz = ~{v}",
    "zz = {v} ^ {v}",
    "zz = {v} << 1",
    "zz = {v} ** 3",
    "zz = {v} ** 2",
    "zz = {v} ** 0.5",
    "zz = {v} @ {v}",
    "zz = {v} is None",
    "zz = {v} in [1]",
    "zz = None",
    "zz = ...",
    "zz = 1j",
    "zz = 'str'",
    "zz = b'bytes'",
    "zz = (1, 2)",
    "zz = [1, 2]",
    "zz = (1,)[0]",
    "zz = 10 ** 30",
    "zz = 2 ** 63",
    "zz = -2 ** 63 - 1",
    "zz = 1 // 0",
    "zz = 1 % 0",
    "zz = 1.0 / 0",
    "zz = {i} // 0",
    "zz = {i} % 0",
    "zz = float('nan')",
    "zz = float('-inf')",
    "zz = float('abc')",
    "zz = int('3')",
    "zz = htp.zeros((0, 4))",
    "zz = htp.zeros((-1, 4))",
    "zz = htp.zeros((100000, 100000))",
    "zz = htp.zeros((4096, 4096))",
    "zz = htp.zeros((4, 4), htp.f64)",
    "zz = htp.zeros((4,))",
    "zz = htp.zeros((4, 4, 4))",
    "zz = htp.zeros(4)",
    "zz = htp.zeros((4.0, 4))",
    "zz = htp.zeros((True, 4))",
    "zz = htp.zeros(({i}, 4))",
    "zz = htp.full((4, 4), {v})",
    "zz = htp.full((4, 4), 'a')",
    "zz = htp.full((4, 4), 1e300, htp.f16)",
    "zz = htp.full((4, 4), 300, htp.i8)",
    "zz = htp.full((4, 4), 2 ** 40, htp.i32)",
    "zz = htp.full((4, 4), 2 ** 70, htp.i64)",
    "zz = htp.full((4, 4), -htp.inf, htp.i32)",
    "zz = htp.full((4, 4), htp.nan, htp.i32)",
    "zz = htp.iota((4, 4), 2)",
    "zz = htp.iota((4, 4), -1)",
    "zz = htp.iota((4, 4), 0, htp.f32)",
    "zz = htp.iota((4, 4), 0, htp.bool_)",
    "zz = htp.iota((200, 4), 0, htp.i8)",
    "zz = htp.cast({v}, 3)",
    "zz = htp.cast({v})",
    "zz = htp.row_reduce({v}, 'prod')",
    "zz = htp.row_reduce({v}, {i})",
    "zz = htp.col_reduce({v})",
    "zz = htp.broadcast({v}, (0, 0))",
    "zz = htp.broadcast({v}, (3, 3))",
    "zz = htp.broadcast({v}, 5)",
    "zz = htp.transpose({v}, {v})",
    "zz = htp.gather({v}, {v}, 0, 4)",
    "zz = htp.pad({v})",
    "zz = htp.pad({v}, 'x')",
    "zz = htp.pad({v}, {v})",
    "zz = htp.where({v}, 1, 2)",
    "zz = htp.where(True, {v}, {v})",
    "zz = htp.matmul({v}, {v}, dtype=htp.i8)",
    "zz = htp.matmul({v}, {v}, acc=1.0)",
    "zz = htp.dot({v})",
    "zz = htp.exp({v}, {v})",
    "zz = htp.exp(y={v})",
    "zz = htp.exp({i})",
    "zz = htp.exp(1.0)",
    "zz = htp.exp(True)",
    "zz = htp.sqrt(-1.0)",
    "zz = htp.log(0)",
    "zz = htp.abs(-3)",
    "zz = htp.max({v})",
    "zz = max({v}, {v}, {v})",
    "zz = min()",
    "zz = htp.f32({v})",
    "zz = htp.i8(1000)",
    "zz = htp.i32(1.5)",
    "zz = htp.bool_(1)",
    "zz = bool({i})",
    "zz = int({v})",
    "zz = float({v})",
    "zz = htp.nonexistent({v})",
    "zz = htp.Tensor",
    "zz = htp.f32",
    "zz = htp",
    "zz = math.sqrt(2.0)",
    "zz = math.tau",
    "zz = range(3)",
    "zz = len({v})",
    "zz = undefined_name + 1",
    "zz = {v}.T.T.T",
    "zz = {v}.T()",
    "zz = k",
    "zz = k(x)",
    "k(x)",
    "zz = {i} if {i} > 0 else 0",
    "zz = -{v} if True else {v}",
    "zz = not {v}",
    "zz = {v} and {v}",
    "zz = {v} or 1",
    "zz = +{v}",
    "zz = htp.static_range(3)",
    "for q in htp.static_range({i}):\n{I}    pass",
    "for q in htp.static_range(0, 100000):\n{I}    pass",
    "for q in htp.static_range(10, 0, -1):\n{I}    pass",
    "for q in range(0, 10, 0):\n{I}    pass",
    "for q in range(0, 10, -1):\n{I}    pass",
    "for q in range(1, 2, 3, 4):\n{I}    pass",
    "for q in range():\n{I}    pass",
    "for q in range(1.5):\n{I}    pass",
    "for q in range({v}):\n{I}    pass",
    "for q in [1, 2]:\n{I}    pass",
    "for q, r in range(3):\n{I}    pass",
    "for q in range(3):\n{I}    pass\n{I}else:\n{I}    pass",
    "for q in range(3):\n{I}    break",
    "for q in range(3):\n{I}    return",
    "for {i} in range(3):\n{I}    pass",
    "async def af():\n{I}    pass",
    "zz: int = 3",
    "zz: htp.f32",
    "zz = yy = 3",
    "zz, = (1,)",
    "(zz, yy) = ({v}, {v})",
    "[zz, yy] = ({v}, {v})",
    "zz, yy = {v}",
    "zz, *yy = 1, 2, 3",
    "x = 3",
    "x[0] = 1",
    "x[0, 0, 0, 0] = 1",
    "x[::2] = 1",
    "out[0:4:2] = 1",
    "out[-4:] = 0",
    "out[4:0] = 0",
    "out[0:0] = 0",
    "out[...] = 0",
    "out[None] = 0",
    "out[{v}] = 0",
    "out = {v}",
    "out.shape = 3",
    "out.T = 3",
    "zz = out[:, :] if False else 0",
    "zz = x[0:1000000]",
    "zz = x[-1:3]",
    "zz = x[{i}:{i} + {i}]",
    "zz = x[{i}:]",
    "zz = x[:{i}]",
    "zz = x[0:2**40]",
    "zz = x.shape[7]",
    "zz = x.shape[-1]",
    "zz = x.shape[{i}]",
    "zz = x.shape",
    "zz = x.dtype",
    "zz = x + x",
    "zz = htp.exp(x)",
    "zz = htp.pad(x, 0.0)",
    "if {v}:\n{I}    pass",
    "if x:\n{I}    pass",
    "if {i}:\n{I}    pass",
    "if True:\n{I}    zz = 1\n{I}else:\n{I}    zz = 2.0",
    "if {i} > 0:\n{I}    zz = 1\n{I}else:\n{I}    zz = 2.0",
    "if {i} > 0:\n{I}    zz = htp.zeros((4, 4))\n{I}else:\n{I}    zz = htp.zeros((4, 8))",
    "if {i} > 0:\n{I}    zz = htp.zeros((4, 4))",
    "if {i} > 0:\n{I}    return",
    "zz = {v}\nzz = zz[0:1, 0:1]",
    "...",
    "pass",
    "{v}",
    "htp.exp({v})",
    "3",
    "'doc'",
    "zz = htp.exp(htp.exp(htp.exp(htp.exp(htp.exp(htp.exp(htp.exp(htp.exp(htp.exp(htp.exp({v}))))))))))",
]


def insert_statement(rng, src: str, kernel: str = "k") -> str:
    """Insert an unsupported/odd statement at a random line of kernel `kernel`."""
    lines = src.split("\n")
    start = next((n for n, l in enumerate(lines) if l.startswith(f"def {kernel}(")), None)
    if start is None:
        return src
    # find the end of the kernel's signature (the line ending with '):')
    body = start
    while body < len(lines) and not lines[body].rstrip().endswith(":"):
        body += 1
    body += 1
    end = body
    while end < len(lines) and (lines[end].startswith(" ") or lines[end] == ""):
        end += 1
    if end <= body:
        return src
    pos = rng.randrange(body, end)
    # indentation of the next non-empty line
    ref = lines[pos] if lines[pos].strip() else lines[body]
    indent = ref[: len(ref) - len(ref.lstrip())]
    # names available
    tiles = re.findall(r"^\s*(t\d+|acc\d+) = ", "\n".join(lines[body:pos]), re.M)
    loops = re.findall(r"for (\w+) in", "\n".join(lines[body:pos]))
    v = rng.choice(tiles) if tiles else rng.choice(["x", "1.0", "htp.zeros((4, 4))"])
    i = rng.choice(loops) if loops else rng.choice(["0", "1"])
    stmt = rng.choice(UNSUPPORTED_STMTS).format(v=v, i=i, I=indent)
    lines.insert(pos, indent + stmt)
    return "\n".join(lines)


ANNOTATION_MUTATIONS = [
    (r"htp\.Tensor\[", "htp.Tensor[htp.f32, "),
    (r"htp\.Tensor\[(\w|\.)+, ", "htp.Tensor["),
    (r"htp\.Out\[", "htp.Out[htp.Out["),
    (r'"N"', '"N", "N"'),
    (r'"N"', "0"),
    (r'"N"', "-4"),
    (r'"N"', "4.5"),
    (r'"N"', '"1N"'),
    (r'"N"', '""'),
    (r'"N"', '"N M"'),
    (r'"N"', '"x"'),
    (r'"N"', '"alpha"'),
    (r'"N"', '"k"'),
    (r'"N"', '"htp"'),
    (r'"N"', '"range"'),
    (r'"M"', "2**40"),
    (r'"M"', "1 + 1"),
    (r'"M"', "True"),
    (r'"M"', "None"),
    (r'"M"', '"BR"'),
    (r"\b(16|32|64|37|48|100|128)\b", "0"),
    (r"\b(16|32|64|37|48|100|128)\b", "-8"),
    (r"\b(16|32|64|37|48|100|128)\b", "65536"),
    (r"\b(16|32|64|37|48|100|128)\b", "1000000"),
    (r"\b(16|32|64|37|48|100|128)\b", "9223372036854775807"),
    (r"\b(16|32|64|37|48|100|128)\b", "9223372036854775808"),
    (r"\b(16|32|64|37|48|100|128)\b", "3"),
    (r"\b(8|16|32)\b", "1"),
    (r"htp\.Const\[int\]", "htp.Const[float]"),
    (r"htp\.Const\[int\]", "htp.Const[str]"),
    (r"htp\.Const\[int\]", "htp.Const[htp.f32]"),
    (r"htp\.Const\[int\]", "htp.Const[int, int]"),
    (r"htp\.Const\[int\] = \d+", "htp.Const[int]"),
    (r"htp\.Const\[int\] = \d+", "htp.Const[int] = -16"),
    (r"htp\.Const\[int\] = \d+", "htp.Const[int] = 0"),
    (r"htp\.Const\[int\] = \d+", "htp.Const[int] = 2.5"),
    (r"htp\.Const\[int\] = \d+", "htp.Const[int] = 'a'"),
    (r"htp\.Const\[int\] = \d+", "htp.Const[int] = None"),
    (r"htp\.Const\[int\] = \d+", "htp.Const[int] = 10**20"),
    (r"htp\.Const\[int\] = \d+", "htp.Const[int] = 1 + 1"),
    (r"htp\.Const\[int\] = \d+", "htp.Const[int] = (1, 2)"),
    (r"htp\.Const\[bool\] = \w+", "htp.Const[bool] = 1"),
    (r"alpha: [\w.]+", "alpha"),
    (r"alpha: [\w.]+", "alpha: htp.Tile"),
    (r"alpha: [\w.]+", "alpha: str"),
    (r"alpha: [\w.]+", "alpha: htp.f32 = 1.0"),
    (r"alpha: [\w.]+", "*alpha"),
    (r"alpha: [\w.]+", "**alpha"),
    (r"alpha: [\w.]+", "alpha: complex"),
    (r"\): *$", ") -> None:"),
    (r"\): *$", ") -> int:"),
    (r"def k\(", "def k(self, "),
    (r"def k\(", "def k(*, "),
    (r"def k\(", "def k(z, "),
    (r"def k\(", "def k(z=1, "),
    (r"def k\(", "def k(z: htp.Tile, "),
    (r"def k\(", "def k(z: htp.Tensor, "),
    (r"def k\(", "def k(z: htp.Tensor[htp.f32], "),
    (r"def k\(", "def k(z: htp.Tensor[htp.f32, 2, 2, 2, 2], "),
    (r"def k\(", "def k(z: htp.Out, "),
    (r"def k\(", "def k(z: htp.InOut[htp.Tensor[htp.f32, 4, 4], 3], "),
    (r"def k\(", "def k(z: htp.Tensor[htp.f32, 'N', 4], N: htp.Const[int] = 8, "),
    (r"def k\(", "def k(z: htp.Tensor[htp.bool_, 4, 4], "),
    (r"def k\(", "def k(x, "),
    (r"def k\(", "def k(N: htp.f32, "),
    (r"def k\(", "def k(H: int, "),
    (r"def k\(", "def k(htp: int, "),
    (r"def k\(", "def k(range: int, "),
    (r"def k\(", "def k(M: htp.Const[float] = 2.5, "),
    (r"def k\(", "def k(N: htp.Const[int] = 0, "),
    (r"def k\(", "def k(N: htp.Const[int] = -3, "),
    (r"def k\(", "def k(M: htp.Const[bool] = True, "),
    (r"def k\(", "async def k("),
    (r"@htp\.kernel\ndef k", "@htp.kernel\n@htp.kernel\ndef k"),
    (r"@htp\.kernel\ndef k", "@htp.kernel()\ndef k"),
    (r"@htp\.kernel\ndef k", "@htp.kernel(mutators=[Identity])\ndef k"),
    (r"@htp\.kernel\ndef k", "@htp.kernel(mutators=[Identity])\ndef k"),
    (r"@htp\.kernel\ndef k", "@htp.func\n@htp.kernel\ndef k"),
    (r"@htp\.func\n", "@htp.kernel\n"),
    (r"@htp\.func\n", ""),
    (r"(\w+) = ", r"\1: htp.f32 = "),
    (r"htp\.row_sum", "htp.col_sum"),
    (r"htp\.col_max", "htp.row_max"),
    (r"htp\.exp\(", "htp.exp2("),
    (r"htp\.f16", "htp.f32"),
    (r"htp\.f32", "htp.f16"),
    (r"htp\.f32", "htp.bf16"),
    (r"htp\.f32", "htp.i8"),
    (r"htp\.f32", "htp.bool_"),
    (r"htp\.i32", "htp.i64"),
    (r"htp\.i32", "htp.f32"),
    (r"\+ (\d+)\]", r"+ 0]"),
    (r"\+ (\d+)\]", r"+ -1]"),
    (r"\+ (\d+)\]", r"+ 1]"),
    (r"\+ (\d+)\]", r"+ 4096]"),
    (r"\+ (\d+)\]", r"+ 2**33]"),
    (r"\+ (\d+)\]", r"+ \1 + 1]"),
    (r"\+ (\d+)\]", r"]"),
    (r"\+ (\d+)\]", r"+ alpha]"),
    (r"\+ (\d+)\]", r"+ i]"),
    (r"(i|j|h):", r"0:"),
    (r"(i|j|h):", r"-1:"),
    (r"(i|j|h):", r"N:"),
    (r", :\]", r", ::2]"),
    (r", :\]", r", ::-1]"),
    (r", :\]", r", 1:]"),
    (r", :\]", r", :-1]"),
    (r", :\]", r"]"),
    (r", :\]", r", :, :]"),
    (r"\[h, ", r"["),
    (r"\[h, ", r"[h, h, "),
    (r"range\(0, ", "range(N, "),
    (r"range\(0, ", "range(-5, "),
    (r"range\(0, ", "range(2**62, "),
    (r"range\(0, (.+), (\w+)\):", r"range(0, \1, -\2):"),
    (r"range\(0, (.+), (\w+)\):", r"range(0, \1, 0):"),
    (r"range\(0, (.+), (\w+)\):", r"range(0, \1, \2, 1):"),
    (r"range\(0, (.+), (\w+)\):", r"range(0, \1, alpha):"),
    (r"range\(0, (.+), (\w+)\):", r"range(0, \1, x):"),
    (r"range\(0, (.+), (\w+)\):", r"range(0.0, \1, \2):"),
    (r"range\(0, (.+), (\w+)\):", r"htp.range(0, \1, \2, grain=0):"),
    (r"range\(0, (.+), (\w+)\):", r"htp.range(0, \1, \2, grain=2, parallel=False):"),
    (r"range\(0, (.+), (\w+)\):", r"range(0, \1, \2, grain=2):"),
    (r"htp\.Tensor\[(\w|\.)+, ", 'htp.Tensor[htp.f32, htp.layout("nz"), '),
    (r"range\(", "htp.static_range("),
    (r"htp\.static_range\(", "range("),
    (r"\bt(\d+)\b", r"t\1x"),
    (r"\bi\b", "ii"),
    (r"\bx\b", "X"),
    (r"\bhtp\.", "np."),
    (r"\bhtp\.", "htpp."),
    (r"\bhtp\.(\w+)\(", r"\1("),
    (r"\(([^()]*)\)", r"(\1,)"),
    (r"\(([^()]*), ([^()]*)\)", r"(\2, \1)"),
    (r"\(([^()]*), ([^()]*)\)", r"(\1)"),
    (r"\(([^()]*)\)", r"()"),
    (r" = ", " += "),
    (r" \+ ", " - "),
    (r" \* ", " @ "),
    (r" \+ ", " // "),
    (r" \+ ", " % "),
    (r" \+ ", " / "),
    (r" < ", " is "),
    (r"0\.0", "0"),
    (r"1\.0", "True"),
    (r"\b2\b", "2.0"),
    (r"htp\.where", "htp.select"),
    (r"htp\.pad\(", "("),
    (r"htp\.pad\((.*), ([^,()]+)\)", r"htp.pad(\1, \2, \2)"),
    (r"htp\.pad\((.*), ([^,()]+)\)", r"htp.pad(\1, value=\2)"),
    (r"htp\.zeros\(\((\w+), (\w+)\)", r"htp.zeros((\1, \2, 1)"),
    (r"htp\.zeros\(\((\w+), (\w+)\)", r"htp.zeros((\1 * 4096, \2)"),
    (r"htp\.zeros\(\((\w+), (\w+)\)", r"htp.zeros((\1 - \1, \2)"),
    (r"htp\.zeros\(\((\w+), (\w+)\)", r"htp.zeros([\1, \2]"),
    (r"htp\.iota\(", "htp.iota(dim=0, shape="),
    (r"htp\.full\(", "htp.full(value=1, shape="),
    (r"\.astype\(", ".cast("),
    (r"dtype=", "dtipe="),
    (r"dtype=", "acc="),
]


def mutate(rng, src: str, kernel: str = "k") -> (str, list):
    """Apply 1-3 random mutations; returns the new text and their names."""
    names = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        roll = rng.random()
        if roll < 0.38:
            src = insert_statement(rng, src, kernel)
            names.append("insert-stmt")
        elif roll < 0.78:
            pat, rep = rng.choice(ANNOTATION_MUTATIONS)
            matches = list(re.finditer(pat, src, re.M))
            if not matches:
                continue
            m = rng.choice(matches)
            try:
                new = m.expand(rep)
            except (re.error, IndexError):
                new = rep
            src = src[: m.start()] + new + src[m.end():]
            names.append(f"sub:{pat}->{rep}")
        elif roll < 0.84:
            lines = src.split("\n")
            n = rng.randrange(len(lines))
            if rng.random() < 0.5:
                del lines[n]
                names.append("del-line")
            else:
                lines.insert(n, lines[n])
                names.append("dup-line")
            src = "\n".join(lines)
        elif roll < 0.88:
            # cut a line in the middle: syntax errors at odd places
            lines = src.split("\n")
            n = rng.randrange(len(lines))
            if lines[n]:
                cut = rng.randrange(len(lines[n]))
                lines[n] = lines[n][:cut]
            src = "\n".join(lines)
            names.append("truncate-line")
        elif roll < 0.92:
            # unicode / whitespace oddities before a later error
            lines = src.split("\n")
            n = rng.randrange(len(lines))
            extra = rng.choice(["  # ünïcødé ✓ 日本語", "\t", "  # \u200b", "  ", " \\"])
            lines[n] = lines[n] + extra
            if rng.random() < 0.5:
                # a non-ASCII string before an error on the same line
                m = rng.randrange(len(lines))
                if lines[m].strip() and lines[m].lstrip().startswith(("t", "acc", "out", "o2")) and " = " in lines[m]:
                    lhs, rhs = lines[m].split(" = ", 1)
                    lines[m] = f"{lhs} = ('é' and {rhs}) + undefined_ö"
            src = "\n".join(lines)
            names.append("unicode")
        elif roll < 0.95:
            src = src.replace("\n", "\r\n") if rng.random() < 0.5 else src.replace("    ", "\t")
            names.append("crlf-or-tabs")
        elif roll < 0.975:
            # recursion: the kernel calls itself / helpers call each other
            lines = src.split("\n")
            for n, l in enumerate(lines):
                if l.startswith("def h") and rng.random() < 0.7:
                    name = l[4:l.index("(")]
                    lines.insert(n + 1, f"    zz = {name}(p0)")
                    names.append("helper-recursion")
                    break
            else:
                src2 = insert_statement(random.Random(rng.random()), src, kernel)
                lines = src2.replace("zz = k", "zz = k").split("\n")
                lines = [l for l in lines]
                idx = next((n for n, l in enumerate(lines) if l.startswith("def k(")), None)
                if idx is not None:
                    # find first body line
                    b = idx
                    while not lines[b].rstrip().endswith(":"):
                        b += 1
                    params = re.findall(r"(\w+): htp\.(?:Tensor|Out|InOut)", "\n".join(lines[idx:b + 1]))
                    lines.insert(b + 1, f"    k({', '.join(params)})")
                    names.append("kernel-recursion")
            src = "\n".join(lines)
        else:
            # random byte-level garbage
            pos = rng.randrange(len(src))
            junk = rng.choice(["(", ")", "[", "]", ":", ",", "\\", "'", '"', "#", "@", "\x00", "\x7f", "$", "`", "?", "!", "\ufeff", "ß"])
            src = src[:pos] + junk + src[pos:]
            names.append("garbage")
    return src, names


HEADER = """import math

import numpy as np

import htp
from htp import f32, f16, bf16, i64, i32, i16, i8, bool_, func
import ast


class Identity(ast.NodeTransformer):
    pass

"""


#: Share of reference programs (gen_ref.py: the tile-shape, selection, scatter, activation and
#: scalar-read constructs with numpy's values) per profile; the rest come from this grammar.
REFERENCE_SHARE = {"any": 0.35, "pto": 0.5}


def generate(seed: int, mutate_p: float = 0.35, profile: str = "any", reference: float | None = None):
    share = REFERENCE_SHARE[profile] if reference is None else reference
    if random.Random(seed * 7919 + 17).random() < share:
        import gen_ref

        return gen_ref.generate(seed, profile)
    return _generate_grammar(seed, mutate_p, profile)


def _generate_grammar(seed: int, mutate_p: float, profile: str):
    global PROFILE, FLOATS, INTS, DTYPES, NUMERIC
    saved = (PROFILE, FLOATS, INTS, DTYPES, NUMERIC)
    PROFILE = PROFILES[profile]
    FLOATS, INTS = PROFILE["floats"], PROFILE["ints"]
    DTYPES, NUMERIC = FLOATS + INTS + (["bool"] if PROFILE["errors"] else []), FLOATS + INTS
    try:
        return _generate(seed, mutate_p)
    finally:
        PROFILE, FLOATS, INTS, DTYPES, NUMERIC = saved


def _generate(seed: int, mutate_p: float):
    g = Gen(seed, allow_errors=PROFILE["errors"])
    kg = KernelGen(g, "k")
    lines = kg.generate()
    kernel = f"@htp.kernel\ndef k({', '.join(kg.params)}):\n" + "\n".join(lines) + "\n"
    consts = dict(kg.compile_consts)
    if g.rng.random() < 0.05 and PROFILE["errors"]:
        # bad constant values at compile() time
        consts[g.rng.choice(["BR", "BC", "FLAG", "NOPE", "x"])] = g.rng.choice(["'a'", "None", "[1]", "-1", "0", "1.5", "2**70", "True", "htp.f32", "float('nan')"])
        consts = {k: v if isinstance(v, str) else repr(v) for k, v in consts.items()}
    else:
        consts = {k: repr(v) for k, v in consts.items()}
    const_code = ", ".join(f"{k}={v}" for k, v in consts.items())
    footer = (
        "\n\ndef __fuzz_compile__(target):\n"
        f"    return k.compile(target{', ' + const_code if const_code else ''})\n\n\n"
        "def __fuzz_call__(compiled, args):\n"
        "    return compiled(**args)\n"
    )
    src = HEADER + "\n\n".join(g.helpers) + ("\n\n" if g.helpers else "") + kernel + footer
    meta = {"seed": seed, "features": sorted(g.features), "mistake_p": g.p_mistake, "mutations": []}
    if g.rng.random() < mutate_p:
        src, names = mutate(g.rng, src)
        meta["mutations"] = names
    return src, meta


if __name__ == "__main__":
    s, m = generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    print(s)
    print("#", m)
