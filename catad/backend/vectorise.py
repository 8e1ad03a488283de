"""Core-language definitions (linear-map free) to Python source over NumPy (DESIGN.md
invariant 6).

A build is not a loop: its body is compiled once, for all its indices at the same
time, as whole-array NumPy code with one more batch axis (see values.py for the
representation). So ``sum(build(n, \\i. v[i] * w[i]))`` becomes a product of two
arrays and a reduction, a conditional becomes ``np.where`` (the untaken branch's
values, NaN or inf included, are discarded by selection, never multiplied by zero),
an index update summed over a build becomes one scatter-add (``np.bincount``), and a
ragged inner range such as ``range(i)`` is padded to its longest lane and masked.
The zero-safe variant of a derivative program (``Compiler(zero_safe=True)``, run only
when the usual one gives a tangent that is not finite: catad.differentiate) multiplies
tangents so that a tangent's 0 gives 0 even where its coefficient is inf or NaN.
Where no whole-array form exists the build becomes a Python loop, and the compiler
records why (``Compiled.fallbacks``).
"""
from __future__ import annotations

import keyword
import re
from dataclasses import dataclass

import numpy as np

from ..errors import CatadError, Loc
from ..lang import terms as K
from ..lang.types import Bool, Float, Int, Site, Tuple as TupleT, Type, Vec, rank
from ..primitives.registry import PRIMITIVES
from ..tangents import ZERO as RT_ZERO
from . import arrays, checks, gathers, reductions, scatters, tangent_ops
from .values import (ZERO, RT, Arr, Stacked, TSum, Upd, Unvectorisable, depth_of, index_code, is_scalar0, is_zero,
                     kind_of, tsum_terms)

RUNTIME_NAMES = {"np", "ZERO", "OneHot", "f64", "to_float", "each", "power", "first_max", "first_min", "sel",
                 "safe_index", "take_iota", "maxlen", "stack", "full", "vreduce", "scatter", "tmul0",
                 "dense_tangent", "rt_mask", "rt_sum", "rt_index", "out_array", "T_tadd", "T_tscale",
                 "scatter_add_rt", "update_vector", "rt_update", "contract", "nonempty", "check_ok", "loop_array"}


@dataclass(frozen=True)
class Fallback:
    """A build compiled as a Python loop, and why."""
    reason: str
    loc: Loc | None

    def __str__(self) -> str:
        where = f"{self.loc}: " if self.loc is not None else ""
        return f"{where}Python loop: {self.reason}"


def _components(t: Type) -> list:
    """The component types of a tuple, or of a vector of tuples (a tuple of vectors)."""
    if isinstance(t, TupleT):
        return list(t.items)
    return [Vec(c) for c in _components(t.elem)]


_MUL = "({0} * {1})"


class Compiler:
    def __init__(self, vectorise: bool = True, zero_safe: bool = False):
        self.vectorise = vectorise
        # tangent products (tscale, tmul) are 0 wherever the tangent is 0 (catad.tangents.times)
        self.zero_safe = zero_safe
        self.lines: list[str] = []
        self.indent = 2
        self.memo: list[dict[str, str]] = [{}]
        self.taken: set[str] = set(RUNTIME_NAMES)
        self.consts: dict[str, object] = {}
        self.const_names: dict[tuple, str] = {}
        self.fallbacks: list[Fallback] = []
        self.element_loops: set[str] = set()
        self.env: dict[str, object] = {}
        # the enclosing vectorised builds, outermost first
        self.sizes: list[str] = []       # padded size of each batch axis
        self.lengths: list[str] = []     # the code of the build's own size
        self.iotas: list[Arr] = []
        self.ragged: list[bool] = []
        self.masks: list[Arr | None] = [None]
        # how some arrays were made, so that a sum of a product becomes one einsum
        self.defs: dict[str, tuple] = {}
        self.ragged_masks: set[str] = set()
        self.nonneg: set[str] = set()  # Int codes known to be >= 0 (lengths read from shapes)
        self._n = 0

    # ------------------------------------------------------------ emission

    @property
    def depth(self) -> int:
        return len(self.sizes)

    @property
    def mask(self) -> Arr | None:
        return self.masks[-1]

    def name(self, hint: str = "t") -> str:
        base = re.sub(r"\W", "_", hint) or "t"
        if base[0].isdigit() or keyword.iskeyword(base) or base in RUNTIME_NAMES:
            base = "v_" + base
        name = base
        while name in self.taken:
            self._n += 1
            name = f"{base}_{self._n}"
        self.taken.add(name)
        return name

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def assign(self, expr: str, hint: str = "t") -> str:
        for scope in reversed(self.memo):
            if expr in scope:
                return scope[expr]
        name = self.name(hint)
        self.emit(f"{name} = {expr}")
        self.memo[-1][expr] = name
        return name

    def const(self, value, ty: Type) -> Arr:
        if ty == Site:  # a check's place and message: an object in the namespace, once
            key = ("site", value)
            if key not in self.const_names:
                self.const_names[key] = self.name("site")
                self.consts[self.const_names[key]] = value
            return Arr(self.const_names[key], kind="o")
        if isinstance(value, bool) or ty == Bool:
            return Arr(repr(bool(value)), kind="b")
        if ty == Int:
            return Arr(repr(int(value)), kind="i")
        if isinstance(value, float) or ty == Float:
            key = ("f", float(value))
            if key not in self.const_names:
                name = self.name("K")
                self.consts[name] = np.float64(value)
                self.const_names[key] = name
            return Arr(self.const_names[key])
        arr = np.asarray(value)
        name = self.name("A")
        self.consts[name] = arr
        return Arr(name, 0, frozenset(), arr.ndim, kind_of(ty))

    # ------------------------------------------------------------ axes

    def lift(self, a: Arr, k: int) -> Arr:
        """a as a value at depth k (size-1 batch axes appended): a view."""
        if a.depth >= k or is_scalar0(a):
            return a
        code = f"{a.code}[{index_code(a.depth, ['None'] * (k - a.depth))}]"
        return Arr(code, k, a.deps, a.rank, a.kind, a.iota)

    def insert(self, a: Arr, pos: int, count: int) -> Arr:
        """a with `count` size-1 batch axes inserted at position pos."""
        if a.depth <= pos or count == 0:
            return a
        code = f"{a.code}[{index_code(pos, ['None'] * count)}]"
        shift = (lambda b: b if b < pos else b + count)
        return Arr(code, a.depth + count, frozenset(map(shift, a.deps)), a.rank, a.kind,
                   None if a.iota is None else shift(a.iota))

    def drop(self, a: Arr, ax: int) -> Arr:
        """a without batch axis ax, along which it does not vary."""
        if a.depth <= ax:
            return a
        assert ax not in a.deps
        code = self.assign(f"{a.code}[{index_code(ax, ['0'])}]")
        shift = (lambda b: b if b < ax else b - 1)
        return Arr(code, a.depth - 1, frozenset(map(shift, a.deps)), a.rank, a.kind,
                   None if a.iota is None else shift(a.iota))

    def expand(self, c: Arr, d: int, r: int) -> str:
        """c (a scalar per lane) lifted to depth d with r trailing axes for an element."""
        c = self.lift(c, d)
        if r == 0 or is_scalar0(c):
            return c.code
        return f"{c.code}[..., {', '.join(['None'] * r)}]"

    def op(self, template: str, args: list[Arr], kind: str, rnk: int = 0, hint: str = "t",
           reassociate: bool = True) -> Arr:
        if reassociate and template == _MUL and kind == "f" and rnk == 0 and all(a.rank == 0 for a in args):
            split = self.reassociate(*args)
            if split is not None:
                small, large = split
                sp = self.op(_MUL, small, "f", reassociate=False)
                out = self.op(_MUL, [sp, large], "f", hint=hint, reassociate=False)
                if not (out.deps > sp.deps and out.deps > large.deps):
                    # a scaled array, not an outer product: einsums take it whole (it is
                    # often shared by several), not as more operands
                    self.defs.pop(out.code, None)
                return out
        d = max((a.depth for a in args), default=0)
        codes = [self.lift(a, d).code for a in args]
        deps = frozenset().union(*(a.deps for a in args))
        out = Arr(self.assign(template.format(*codes), hint), d, deps, rnk, kind)
        if template == _MUL and kind == "f" and rnk == 0 and all(a.rank == 0 for a in args):
            self.defs[out.code] = ("mul", args[0], args[1])
        return out

    def reassociate(self, a: Arr, b: Arr):
        """For s * (p * q) with s * p varying along fewer batch axes than p * q:
        ([s, p], q), so that s multiplies the small array, not the large product
        (which is then often dead: 2 * (x * c) over (N, K, D) becomes (2 * c) * x)."""
        best = None
        for s, prod in ((a, b), (b, a)):
            how = self.defs.get(prod.code)
            if how is None or how[0] != "mul":
                continue
            for p, q in ((how[1], how[2]), (how[2], how[1])):
                axes = len(s.deps | p.deps)
                if axes < len(prod.deps) and (best is None or axes < best[0]):
                    best = (axes, [s, p], q)
        return None if best is None else best[1:]

    def andmask(self, c: Arr) -> Arr:
        m = self.mask
        return c if m is None else self.op("({0} & {1})", [m, c], "b")

    # ------------------------------------------------------------ terms

    def comp(self, t: K.Term):
        if isinstance(t, K.Let):
            return self.let(t)
        if isinstance(t, K.Var):
            return self.env[t.name]
        if isinstance(t, K.Const):
            if t.value is RT_ZERO:
                return ZERO
            if isinstance(t.value, tuple):
                return tuple(self.const(v, ty) for v, ty in zip(t.value, t.type.items))
            return self.const(t.py_value, t.type)
        if isinstance(t, K.Tuple):
            return tuple(self.comp(x) for x in t.items)
        if isinstance(t, K.Get):
            return self.get(self.comp(t.tup), t.index)
        if isinstance(t, K.If):
            return self.if_(t)
        if isinstance(t, K.Build):
            return self.build(t)
        if isinstance(t, K.Call):
            return self.call(t)
        raise CatadError(f"the backend cannot compile a {type(t).__name__} term", getattr(t, "loc", None),
                         "backend")

    def let(self, t: K.Let):
        bound = []
        while isinstance(t, K.Let):
            start = len(self.lines)
            value = self.comp(t.rhs)
            if isinstance(value, Arr):
                value = self.rename_last(value, t.var.name, start)
            bound.append((t.var.name, self.env.get(t.var.name)))
            self.env[t.var.name] = value
            t = t.body
        result = self.comp(t)
        for name, old in reversed(bound):
            if old is None:
                self.env.pop(name, None)
            else:
                self.env[name] = old
        return result

    def rename_last(self, value: Arr, hint: str, start: int) -> Arr:
        """Name the line that computed a let-bound value after the variable."""
        if len(self.lines) <= start:
            return value
        line = self.lines[-1]
        prefix = "    " * self.indent + value.code + " = "
        if not line.startswith(prefix):
            return value
        expr = line[len(prefix):]
        if self.memo[-1].get(expr) != value.code:
            return value
        new = self.name(hint)
        self.lines[-1] = "    " * self.indent + f"{new} = {expr}"
        self.memo[-1][expr] = new
        self.taken.add(new)
        if value.code in self.defs:
            self.defs[new] = self.defs[value.code]
        if value.code in self.nonneg:
            self.nonneg.add(new)
        return Arr(new, value.depth, value.deps, value.rank, value.kind, value.iota)

    def get(self, tup, index: int):
        if tup is ZERO:
            return ZERO
        if isinstance(tup, tuple):
            return tup[index]
        if isinstance(tup, Stacked):
            return Stacked(self.get(tup.body, index), tup.depth, tup.n, tup.N, tup.mask)
        if isinstance(tup, RT):
            return RT(self.assign(f"{tup.code}[{index}]"))
        raise Unvectorisable("a projection of a value that is not a tuple")

    # ------------------------------------------------------------ if

    def if_(self, t: K.If):
        cond = self.comp(t.cond)
        notc = self.op("np.logical_not({0})", [cond], "b")
        self.masks.append(self.andmask(cond))
        a = self.comp(t.then)
        self.masks.pop()
        self.masks.append(self.andmask(notc))
        b = self.comp(t.orelse)
        self.masks.pop()
        return self.select(cond, notc, a, b)

    def select(self, cond: Arr, notc: Arr, a, b):
        if a is b:
            return a
        if is_zero(a):
            return self.mask_(notc, b)
        if is_zero(b):
            return self.mask_(cond, a)
        if isinstance(a, tuple):
            return tuple(self.select(cond, notc, x, y) for x, y in zip(a, b))
        if isinstance(a, RT) or isinstance(b, RT):
            return RT(self.assign(f"({arrays.rt(self, a)} if {cond.code} else {arrays.rt(self, b)})"))
        if isinstance(a, Stacked) and isinstance(b, Stacked) and arrays.same_axis(self, a, b) and \
                isinstance(a.body, Arr) and isinstance(b.body, Arr):
            d = max(a.depth, b.depth, cond.depth)
            a, b = arrays.at(self, a, d), arrays.at(self, b, d)
            return Stacked(self.select(cond, notc, a.body, b.body), d, a.n, a.N, a.mask)
        if isinstance(a, Stacked):
            a = arrays.dense(self, a)
        if isinstance(b, Stacked):
            b = arrays.dense(self, b)
        if isinstance(a, Arr) and isinstance(b, Arr):
            d = max(a.depth, b.depth, cond.depth)
            if d == 0:
                return Arr(self.assign(f"({a.code} if {cond.code} else {b.code})"), 0, frozenset(), a.rank, a.kind)
            cc = self.expand(cond, d, a.rank)
            code = f"np.where({cc}, {self.lift(a, d).code}, {self.lift(b, d).code})"
            return Arr(self.assign(code), d, a.deps | b.deps | cond.deps, a.rank, a.kind)
        return tangent_ops.tadd(self, self.mask_(cond, a), self.mask_(notc, b))

    def mask_(self, cond: Arr, x):
        """x where cond holds, zero elsewhere (selection: NaN and inf where cond fails vanish)."""
        if is_zero(x):
            return x
        if isinstance(x, tuple):
            return tuple(self.mask_(cond, v) for v in x)
        if isinstance(x, Arr):
            d = max(cond.depth, x.depth)
            if d == 0 and x.rank == 0:
                zero = {"f": "0.0", "i": "0", "b": "False"}[x.kind]
                return Arr(self.assign(f"({x.code} if {cond.code} else {zero})"), 0, frozenset(), 0, x.kind)
            code = f"np.where({self.expand(cond, d, x.rank)}, {self.lift(x, d).code}, 0)"
            out = Arr(self.assign(code), d, x.deps | cond.deps, x.rank, x.kind)
            if cond.code in self.ragged_masks and x.rank == 0 and x.kind == "f":
                self.defs[out.code] = ("where0", cond, x)
            return out
        if isinstance(x, Upd):
            # an iota stays an iota (scatter and update_vector skip zero values out of range)
            in_range = x.idx.iota is not None
            x = scatters.settle(self, x, cond.depth)
            if not isinstance(x, Upd):
                return self.mask_(cond, x)
            idx = x.idx if in_range else self.op("np.where({0}, {1}, 0)", [cond, x.idx], "i")
            return Upd(idx, self.mask_(cond, x.val), x.n, x.extra)
        if isinstance(x, TSum):
            return tangent_ops.sum_all(self, [self.mask_(cond, v) for v in tsum_terms(x)])
        if isinstance(x, Stacked):
            s = arrays.at(self, x, max(x.depth, cond.depth))
            return Stacked(self.mask_(cond, s.body), s.depth, s.n, s.N, s.mask)
        if isinstance(x, RT):
            return RT(self.assign(f"rt_mask({cond.code}, {x.code})"), x.is_list)
        raise AssertionError(x)

    # ------------------------------------------------------------ build

    def build(self, t: K.Build):
        n = self.comp(t.size)
        if not self.vectorise or self.depth == 0:
            # an attempt: its lines, fallbacks and memo entries are dropped if it fails
            # (the names it took stay taken, which is harmless)
            start, nfb = len(self.lines), len(self.fallbacks)
            self.memo.append({})
            try:
                if not self.vectorise:
                    raise Unvectorisable("vectorisation is off")
                result = self.build_vector(t, n)
                attempt = self.memo.pop()
                self.memo[-1].update(attempt)
                return result
            except Unvectorisable as e:
                self.memo.pop()
                if self.depth > 0:
                    raise
                del self.lines[start:]
                del self.fallbacks[nfb:]
                if self.vectorise:
                    self.fallbacks.append(Fallback(str(e), t.loc))
                return self.build_loop(t, n)
        return self.build_vector(t, n)

    def build_vector(self, t: K.Build, n: Arr) -> Stacked:
        k = self.depth
        if n.deps:  # a ragged range, e.g. range(i): pad to the longest lane, mask the rest
            m = self.mask
            N = self.assign(f"maxlen({self.lift(n, max(n.depth, m.depth if m else 0)).code}"
                            f"{', ' + self.lift(m, n.depth).code if m is not None else ''})", "N")
        else:
            n = self.at_least_zero(n)
            N = n.code if n.depth == 0 else self.assign(f"int(np.reshape({n.code}, -1)[0])", "N")
        shape = f"({', '.join(['1'] * k + ['-1'])})" if k else ""
        i = self.assign(f"np.arange({N}){'.reshape(' + shape + ')' if k else ''}", t.var.name)
        iota = Arr(i, k + 1, frozenset({k}), 0, "i", k)
        mask = None
        if n.deps:
            mask = self.op("({0} < {1})", [iota, self.lift(n, k + 1)], "b", hint="m")
            self.ragged_masks.add(mask.code)
        self.sizes.append(N)
        self.lengths.append(n.code)
        self.iotas.append(iota)
        self.ragged.append(mask is not None)
        self.masks.append(self.andmask(mask) if mask is not None else self.mask)
        old = self.env.get(t.var.name)
        self.env[t.var.name] = iota
        try:
            body = self.comp(t.body)
        finally:
            self.sizes.pop()
            self.lengths.pop()
            self.iotas.pop()
            self.ragged.pop()
            self.masks.pop()
            if old is None:
                self.env.pop(t.var.name, None)
            else:
                self.env[t.var.name] = old
        if depth_of(body) > k + 1:
            raise AssertionError("a build body escaped its depth")
        return self.stacked(body, k, n, N, mask)

    def at_least_zero(self, n: Arr) -> Arr:
        """A build's size as range(n) has it: a negative n is no elements (summing a constant
        over such a build would otherwise multiply it by n)."""
        if n.code in self.nonneg or n.code.isdigit():
            return n
        code = f"max({n.code}, 0)" if n.depth == 0 else f"np.maximum({n.code}, 0)"
        out = Arr(self.assign(code, "n"), n.depth, n.deps, n.rank, n.kind)
        self.nonneg.add(out.code)
        return out

    def stacked(self, body, k: int, n: Arr, N: str, mask):
        """A vector of tuples is a tuple of vectors; a vector of zero tangents is zero."""
        if isinstance(body, tuple):
            return tuple(self.stacked(b, k, n, N, mask) for b in body)
        return Stacked(body, k, n, N, mask)

    def build_loop(self, t: K.Build, n: Arr):
        """The fallback: a Python loop over the body compiled for one index at a time."""
        depth_before = self.depth
        assert depth_before == 0
        at = len(self.lines)
        i = self.name(t.var.name)
        self.emit(f"for {i} in range({n.code}):")
        self.indent += 1
        self.memo.append({})
        old = self.env.get(t.var.name)
        self.env[t.var.name] = Arr(i, 0, frozenset(), 0, "i")
        body = self.comp(t.body)
        leaves = []
        self.loop_collect(body, leaves)
        for acc, code in leaves:
            self.emit(f"{acc}.append({code})")
        self.memo.pop()
        self.indent -= 1
        if old is None:
            self.env.pop(t.var.name, None)
        else:
            self.env[t.var.name] = old
        self.lines[at:at] = ["    " * self.indent + f"{acc} = []" for acc, _ in leaves]
        return self.loop_result(body, iter(leaves), t.body.type)

    def loop_collect(self, body, leaves: list) -> None:
        if isinstance(body, tuple):
            for b in body:
                self.loop_collect(b, leaves)
            return
        if isinstance(body, Stacked):
            body = arrays.dense(self, body)
        code = body.code if isinstance(body, Arr) else arrays.rt(self, body)
        leaves.append((self.name("acc"), code))

    def loop_result(self, body, leaves, ty: Type):
        if isinstance(body, tuple):
            return tuple(self.loop_result(b, leaves, t) for b, t in zip(body, _components(ty)))
        acc, _ = next(leaves)
        if isinstance(body, (Arr, Stacked)):
            dtype = {"f": "np.float64", "i": "np.int64", "b": "np.bool_"}[kind_of(ty)]
            code = f"loop_array({acc}, {dtype}, {rank(ty) + 1})"
            return Arr(self.assign(code), 0, frozenset(), rank(ty) + 1, kind_of(ty))
        return RT(acc, is_list=True)

    # ------------------------------------------------------------ calls

    def call(self, t: K.Call):
        fn = t.fn
        p = PRIMITIVES.get(fn)
        if p is None:
            raise CatadError(f"the backend compiles one definition; {fn!r} should have been inlined", t.loc,
                             "backend")
        args = [self.comp(a) for a in t.args]
        special = CODEGEN.get(fn)
        if special is not None:
            return special(self, t, *args)
        if any(not isinstance(a, Arr) for a in args):
            args = [arrays.scalar(self, a) for a in args]
        if p.vector is not None:
            return self.op(p.vector, args, kind_of(t.type))
        self.element_loops.add(fn)
        return self.op(f"each({fn!r}, " + ", ".join("{%d}" % k for k in range(len(args))) + ")",
                       args, kind_of(t.type))

    def length(self, code: str) -> Arr:
        name = self.assign(code, "n")
        self.nonneg.add(name)
        return Arr(name, 0, frozenset(), 0, "i")


# The primitives whose code the backend writes itself (the structural ones, and those whose
# whole-array form depends on the values: not a `vector` template of the registry):
# name -> function(compiler, the call term, *its compiled arguments).
CODEGEN = {
    "check": checks.p_check, "index": gathers.p_index, "size": gathers.p_size, "dim": gathers.p_dim,
    "sum": reductions.p_sum, "tsum": reductions.p_tsum, "vmax": reductions.p_vmax, "vmin": reductions.p_vmin,
    "argmax": reductions.p_argmax, "argmin": reductions.p_argmin, "vector": arrays.p_vector,
    "tadd": tangent_ops.p_tadd, "tscale": tangent_ops.p_tscale, "tmul": tangent_ops.p_tmul,
    "update": scatters.p_update, "scatter_add": scatters.p_scatter_add,
}
