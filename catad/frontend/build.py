"""Building core terms for the front end: binder names, sharing, promotion, array loops.

A helper that uses an operand more than once first passes it through ``share``, which
let-binds it unless it is an atom (Var or Const): no compound term is ever duplicated.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..errors import CatadTypeError, Loc, Site as Site_
from ..lang.terms import (TRUE, Build, Const, If, Let, Term, Tuple, Var, free_vars, is_atom, let_chain, make_lets,
                          may_fail)
from ..lang.types import Bool, Float, Int, Site, Tuple as TupleT, Type, Unit, Vec, rank, scalar_of, vec_of
from ..primitives import prim
from .shapes import Dim, Shapes, fresh, lin_add, lin_const, simple

ZERO = Const(0, Int)
ONE = Const(1, Int)
FALSE_ = Const(False, Bool)


def _or(a: Term, b: Term) -> Term:
    return If(a, TRUE, b)


def _and(a: Term, b: Term) -> Term:
    return If(a, b, FALSE_)


def _all(conds: list[Term]) -> Term:
    out: Term = TRUE
    for c in reversed(conds):
        out = c if out is TRUE else _and(c, out)
    return out


def _any(conds: list[Term]) -> Term:
    out: Term = FALSE_
    for c in reversed(conds):
        out = c if out is FALSE_ else _or(c, out)
    return out


def _lin_of(items: dict, c: int):
    return (frozenset((k, v) for k, v in items.items() if v), c)


def _at_end(form, var: Var, last, low: bool):
    """form with var (which runs over 0 .. last) replaced by the end that makes form lowest
    (low) or highest."""
    s = dict(form[0]).get(var, 0)
    if not s:
        return form
    items = {k: c for k, c in form[0] if k != var}
    without = _lin_of(items, form[1])
    return without if (s > 0) == low else lin_add(without, last, s)


def _ints(data) -> Term:
    """A check's data (Int terms in nested Python tuples) as a term."""
    return Tuple(tuple(_ints(x) for x in data)) if isinstance(data, tuple) else data


class Names:
    """Binder names of one Def, all distinct: a user variable keeps its name the first time it
    is bound and becomes name_1, name_2, ... after; temporaries are _t1, _i1, ....
    `reserved` holds every identifier in the source, so a generated name never captures one."""

    def __init__(self, reserved: Iterable[str]):
        self.reserved = set(reserved)
        self.taken: set[str] = set()
        self.counters: dict[str, int] = {}
        self.serial: dict[str, int] = {}  # the order in which names were made (see Builder.hoist)

    def user(self, name: str) -> str:
        if name not in self.taken:
            self.taken.add(name)
            self.serial[name] = len(self.serial) + 1
            return name
        return self._next(name + "_")

    def temp(self, prefix: str = "_t") -> str:
        return self._next(prefix)

    def _next(self, prefix: str) -> str:
        n = self.counters.get(prefix, 0)
        while True:  # the counter only grows, so this stays linear overall
            n += 1
            name = f"{prefix}{n}"
            if name not in self.reserved and name not in self.taken:
                break
        self.counters[prefix] = n
        self.taken.add(name)
        self.serial[name] = len(self.serial) + 1
        return name


def join_types(a: Type, b: Type) -> Type | None:
    """The type both of a and b convert to (Int meets Float as Float), or None."""
    if a == b:
        return a
    if rank(a) == rank(b) and {scalar_of(a), scalar_of(b)} == {Int, Float}:
        return vec_of(Float, rank(a))
    return None


def is_array(t: Term) -> bool:
    return isinstance(t.type, Vec)


def index_chain(a: Term, idx: list[Term], loc: Loc | None) -> Term:
    for i in idx:
        a = prim("index", i, a, loc=loc)
    return a


class Frame:
    """A comprehension being lowered: its index variable, its size, how many conditionals are
    around it, and the bounds checks its body hoists out to run once, before it (see
    Builder.hoist)."""

    def __init__(self, var: Var, size: Term, depth: int):
        self.var, self.size, self.depth = var, size, depth
        self.checks: list[tuple] = []  # (variable, check, location)


class Statement:
    """A statement being lowered: the checks that go before it (see Builder.check)."""

    def __init__(self, serial: int, depth: int):
        self.serial, self.depth = serial, depth
        self.checks: list[tuple] = []  # (variable, check, location)


class Builder:
    def __init__(self, names: Names):
        self.names = names
        self.shapes = Shapes()
        self.frames: list[Frame] = []   # the comprehensions around what is being lowered
        self.branch_depth = 0           # how many conditionals (if, and/or, filters) around it
        self.statement: Statement | None = None  # the statement being lowered
        self.equal: list[tuple[Term, Term]] = []  # sizes the check being made makes equal

    def var(self, ty: Type, loc: Loc | None, prefix: str = "_t") -> Var:
        return Var(self.names.temp(prefix), ty, loc)

    def bound(self, v: Var, value: Term) -> Var:
        """v, now bound to value: its shape (or Int value's linear form) is recorded."""
        self.shapes.note(v, value)
        return v

    def share(self, t: Term, body: Callable[[Term], Term], loc: Loc | None) -> Term:
        if is_atom(t):
            return body(t)
        v = self.bound(self.var(t.type, loc), t)
        return Let(v, t, body(v), loc)

    def share_all(self, ts: list[Term], body: Callable[..., Term], loc: Loc | None) -> Term:
        binds, atoms = [], []
        for t in ts:
            if is_atom(t):
                atoms.append(t)
            else:
                v = self.bound(self.var(t.type, loc), t)
                binds.append((v, t))
                atoms.append(v)
        out = body(*atoms)
        for v, t in reversed(binds):
            out = Let(v, t, out, loc)
        return out

    def units(self, t: Term):
        """Which axes of t's value are known to have length 1 (True), known not to (False) or
        neither (None): per axis for an array, per component for a tuple, None for a scalar.
        A user function is compiled for the pattern of its arguments (see catad.pipeline.signature)."""
        if isinstance(t.type, Vec):
            known = self.shapes.infer(t) or (None,) * rank(t.type)
            return tuple(None if d is None else d.one for d in known)
        if isinstance(t.type, TupleT):
            if isinstance(t, Tuple):
                return tuple(self.units(x) for x in t.items)
            return self.shapes.tuple_units(t)
        return None

    def shape(self, a: Term) -> tuple[Dim, ...]:
        """The shape of atom a (() for a scalar)."""
        return self.shapes.of(a)

    def check(self, cond: Term, data: tuple, loc: Loc | None, construct: str, message: str,
              kind: str = "shape", equal: tuple = ()) -> list[tuple]:
        """The binding of a run-time check to put before the operation (none when cond is True).
        `equal`: pairs of sizes the check makes equal, known from then on where it runs
        unconditionally."""
        if isinstance(cond, Const) and cond.value is True:
            return []
        site = Const(Site_(loc, construct, message, kind), Site)
        binding = (self.var(Unit, loc, "_chk"), fresh(prim("check", cond, _ints(data), site, loc=loc), loc), loc)
        local = self.place([binding])
        if not local and not self.frames:
            for a, b in equal:
                self.shapes.learn(a, b)
        return local

    def place(self, bindings: list[tuple]) -> list[tuple]:
        """The checks of bindings that must stay where they are; the others go before the
        whole statement, where the program reads more plainly: those outside comprehensions
        and conditionals that read only what is known before the statement."""
        st = self.statement
        if st is None or self.frames or self.branch_depth != st.depth:
            return bindings
        local = []
        for b in bindings:
            if all(self.names.serial.get(v.name, 0) <= st.serial for v in free_vars(b[1])):
                st.checks.append(b)
            else:
                local.append(b)
        return local

    # ------------------------------------------------------------ scalars and promotion

    def to_float(self, t: Term, loc: Loc | None) -> Term:
        """t as Float (arrays elementwise); anything but Int and Bool is returned unchanged,
        so the primitive that receives it reports the type error."""
        ty = t.type
        if isinstance(ty, Vec):
            if scalar_of(ty) not in (Int, Bool):
                return t
            return self.elementwise(lambda x: self.to_float(x, loc), [t], loc)
        if ty not in (Int, Bool):
            return t
        if isinstance(t, Const):
            return Const(float(t.value), Float, t.loc or loc)
        return _at_values(t, lambda x: prim("to_float", x, loc=loc))

    def coerce(self, t: Term, ty: Type, loc: Loc | None) -> Term:
        """t converted to ty, which join_types produced from t.type."""
        if t.type == ty:
            return t
        return _at_values(t, lambda x: self.to_float(x, loc))

    def scalar(self, name: str, args: list[Term], loc: Loc | None) -> Term:
        """Primitive `name` on scalars; Int arguments become Float when its rule wants Floats."""
        try:
            return prim(name, *args, loc=loc)
        except CatadTypeError as first:
            if not any(a.type == Int for a in args):
                raise
            try:
                return prim(name, *(self.to_float(a, loc) for a in args), loc=loc)
            except CatadTypeError:
                raise first from None

    def arith(self, name: str, a: Term, b: Term, loc: Loc | None) -> Term:
        """A scalar binary operator with Python's numeric rules."""
        if name == "pow":
            if a.type == Int and b.type == Int and isinstance(b, Const) and b.value >= 0:
                return prim("pow", a, b, loc=loc)
            return prim("pow", self.to_float(a, loc), self.to_float(b, loc), loc=loc)
        if name == "div":
            return prim("div", self.to_float(a, loc), self.to_float(b, loc), loc=loc)
        return self.scalar(name, [a, b], loc)

    def if_(self, cond: Term, a: Term, b: Term, loc: Loc | None, mismatch: str,
            blame: Loc | None = None, construct: str = "if") -> Term:
        if cond.type != Bool:
            raise CatadTypeError(f"a condition must be a Bool, got {cond.type}", loc, construct)
        ty = join_types(a.type, b.type)
        if ty is None:
            raise CatadTypeError(mismatch.format(a=a.type, b=b.type), blame or loc, construct)
        return If(cond, self.coerce(a, ty, loc), self.coerce(b, ty, loc), loc)

    # ------------------------------------------------------------ arrays

    def size(self, a: Term, axis: int, loc: Loc | None) -> Term:
        """The length of axis `axis` of atom a (the term its shape holds)."""
        return fresh(self.shape(a)[axis].size, loc)

    def length(self, t: Term, loc: Loc | None) -> Term:
        """len(t): the length its shape holds (len(m[i]) is m's columns), without computing t
        unless computing it runs a check (len(m[5]) raises where m has fewer rows)."""
        known = self.shapes.infer(t)
        if known and known[0] is not None and known[0].size is not None and not may_fail(t):
            return fresh(known[0].size, loc)
        return self.share(t, lambda a: self.size(a, 0, loc), loc)

    def elementwise(self, f: Callable[..., Term], operands: list[Term], loc: Loc | None,
                    construct: str = "elementwise operation") -> Term:
        """f on scalars, looped over arrays with NumPy's broadcasting: shapes are aligned at their
        last axes; along an axis, operands of length 1 are stretched (read at 0) and the others
        must have one length, proven while compiling or checked once per call."""
        def body(*atoms):
            shapes = [self.shape(a) for a in atoms]
            r = max(len(s) for s in shapes)
            binds, conds, plan = [], [], []
            for k in range(r):
                members = [(j, s[len(s) - r + k]) for j, s in enumerate(shapes) if len(s) >= r - k]
                out, reads, b, c = self.broadcast_axis(members, loc)
                binds += b
                conds += c
                plan.append((out, reads))
            message = f"{construct}: operands could not be broadcast together with shapes " + \
                " ".join("{%d}" % j for j in range(len(atoms)))
            binds += self.check(_all(conds), tuple(tuple(d.size for d in s) for s in shapes), loc, construct,
                                message, equal=tuple(self.equal))
            self.equal.clear()

            def go(k, idx):
                if k == r:
                    return f(*(index_chain(a, ix, loc) for a, ix in zip(atoms, idx)))
                out, reads = plan[k]
                i = self.var(Int, loc, "_i")
                idx = [ix + [reads[j](i)] if j in reads else ix for j, ix in enumerate(idx)]
                return Build(fresh(out.size, loc), i, go(k + 1, idx), loc)
            return make_lets(binds, go(0, [[] for _ in atoms]))
        return self.share_all(operands, body, loc)

    def broadcast_axis(self, members: list[tuple[int, Dim]], loc: Loc | None):
        """One axis of a broadcast: (its Dim, how each operand j reads it at index i, bindings,
        conditions the check must hold). Operands of length 1 read index 0; of the others,
        those of one proven length read i, and a length not known to differ from 1 reads
        min(i, length - 1): i where it is the broadcast length, 0 where it is 1."""
        sh = self.shapes
        at_i, at_zero = (lambda i: i), (lambda i: ZERO)
        rest = [(j, d) for j, d in members if d.one is not True]
        if not rest:
            return members[0][1], {j: at_i for j, _ in members}, [], []
        reads = {j: at_zero for j, d in members if d.one is True}
        classes: list[list[tuple[int, Dim]]] = []
        for j, d in rest:
            home = next((c for c in classes if sh.same(c[0][1], d)), None)
            if home is None:
                classes.append([(j, d)])
            else:
                home.append((j, d))
        if len(classes) == 1:
            reads.update({j: at_i for j, _ in rest})
            return classes[0][0][1], reads, [], []
        known = [c for c in classes if any(d.one is False for _, d in c)]
        is_known = lambda c: any(c is k for k in known)
        binds, conds = [], []
        if known:
            out = next(d for _, d in known[0] if d.one is False)
            for c in classes:
                n = c[0][1].size
                if c is known[0]:
                    pass
                elif is_known(c):
                    conds.append(prim("eq", out.size, n, loc=loc))
                    self.equal.append((n, out.size))
                else:
                    conds.append(_or(prim("eq", out.size, n, loc=loc), prim("eq", n, ONE, loc=loc)))
                for j, _ in c:
                    reads[j] = at_i if is_known(c) else self.clamp(n, loc)
            return out, reads, binds, conds
        sizes = [c[0][1].size for c in classes]
        value: Term = ONE  # the first length that is not 1, or 1
        for n in reversed(sizes):
            value = If(prim("ne", fresh(n, loc), ONE, loc=loc), fresh(n, loc), value, loc)
        b = self.bound(self.var(Int, loc, "_n"), value)
        conds = [_or(prim("eq", n, ONE, loc=loc), prim("eq", n, b, loc=loc)) for n in sizes]
        for c in classes:
            for j, _ in c:
                reads[j] = self.clamp(c[0][1].size, loc)
        return Dim(b, None), reads, [(b, value, loc)], conds

    def clamp(self, n: Term, loc: Loc | None) -> Callable[[Term], Term]:
        return lambda i: prim("min", i, prim("sub", fresh(n, loc), ONE, loc=loc), loc=loc)

    def sum_products(self, n: Term, x: Callable[[Term], Term], y: Callable[[Term], Term],
                     loc: Loc | None) -> Term:
        k = self.var(Int, loc, "_k")
        return prim("sum", Build(n, k, self.arith("mul", x(k), y(k), loc), loc), loc=loc)

    def dot(self, a: Term, b: Term, loc: Loc | None, construct: str = "np.dot") -> Term:
        """np.dot / @ for ranks (1,1), (2,1), (1,2), (2,2): the contracted lengths must be
        equal (NumPy does not broadcast them)."""
        ra, rb = rank(a.type), rank(b.type)
        if ra == 0 or rb == 0:
            return self.elementwise(lambda x, y: self.arith("mul", x, y, loc), [a, b], loc, construct)
        if ra > 2 or rb > 2:
            raise CatadTypeError(f"dot takes vectors and matrices, got {a.type} and {b.type}", loc, "dot")

        def body(x, y):
            sx, sy = self.shape(x), self.shape(y)
            kx, ky = sx[-1], sy[0]
            message = f"{construct}: shapes {{0}} and {{1}} not aligned: {{2}} (dim {ra - 1}) != {{3}} (dim 0)"
            cond = TRUE if self.shapes.same(kx, ky) else prim("eq", kx.size, ky.size, loc=loc)
            chk = self.check(cond, (tuple(d.size for d in sx), tuple(d.size for d in sy), kx.size, ky.size),
                             loc, construct, message, equal=((kx.size, ky.size),))
            ix = lambda t, *idx: index_chain(t, list(idx), loc)
            n = fresh(kx.size, loc)
            if ra == 1 and rb == 1:
                out = self.sum_products(n, lambda k: ix(x, k), lambda k: ix(y, k), loc)
            elif ra == 2 and rb == 1:
                i = self.var(Int, loc, "_i")
                out = Build(fresh(sx[0].size, loc), i, self.sum_products(n, lambda k: ix(x, i, k), lambda k: ix(y, k), loc),
                            loc)
            elif ra == 1:
                j = self.var(Int, loc, "_j")
                out = Build(fresh(sy[1].size, loc), j, self.sum_products(n, lambda k: ix(x, k), lambda k: ix(y, k, j), loc),
                            loc)
            else:
                i, j = self.var(Int, loc, "_i"), self.var(Int, loc, "_j")
                out = Build(fresh(sx[0].size, loc), i, Build(fresh(sy[1].size, loc), j, self.sum_products(
                    n, lambda k: ix(x, i, k), lambda k: ix(y, k, j), loc), loc), loc)
            return make_lets(chk, out)
        return self.share_all([a, b], body, loc)

    def transpose(self, m: Term, loc: Loc | None) -> Term:
        if rank(m.type) != 2:
            return m  # NumPy: .T of a vector is the vector
        def body(a):
            i, j = self.var(Int, loc, "_i"), self.var(Int, loc, "_j")
            return Build(self.size(a, 1, loc), j, Build(self.size(a, 0, loc), i,
                                                       index_chain(a, [i, j], loc), loc), loc)
        return self.share(m, body, loc)

    def reduce_axis(self, m: Term, axis: int, reduce: str, loc: Loc | None) -> Term:
        """NumPy's reduction of atom m along `axis` by the primitive `reduce` (sum, vmax or vmin):
        builds over the other axes around the reduction of the values along `axis`."""
        r = rank(m.type)
        lead = [self.var(Int, loc, "_i") for _ in range(axis)]
        if axis == r - 1 or reduce == "sum":
            body = prim(reduce, index_chain(m, lead, loc), loc=loc)  # sum adds the rows: NumPy's axis 0
        else:
            trail = [self.var(Int, loc, "_j") for _ in range(axis + 1, r)]
            k = self.var(Int, loc, "_k")
            body = prim(reduce, Build(self.size(m, axis, loc), k, index_chain(m, lead + [k] + trail, loc), loc),
                        loc=loc)
            for q, j in reversed(list(zip(range(axis + 1, r), trail))):
                body = Build(self.size(m, q, loc), j, body, loc)
        for q, i in reversed(list(enumerate(lead))):
            body = Build(self.size(m, q, loc), i, body, loc)
        return body

    def reduce_all(self, m: Term, reduce: str, loc: Loc | None) -> Term:
        """vmax or vmin of every element of atom m, row by row."""
        if rank(m.type) == 1:
            return prim(reduce, m, loc=loc)
        i, row = self.var(Int, loc, "_i"), self.var(m.type.elem, loc)
        of_row = Let(row, prim("index", i, m, loc=loc), self.reduce_all(row, reduce, loc), loc)
        return prim(reduce, Build(self.size(m, 0, loc), i, of_row, loc), loc=loc)

    def sum_all(self, t: Term, loc: Loc | None) -> Term:
        for _ in range(rank(t.type)):
            t = prim("sum", t, loc=loc)  # a matrix sums to its column sums, then to a scalar
        return t

    def count(self, a: Term, loc: Loc | None) -> Term:
        """Number of elements of atom a."""
        n = self.size(a, 0, loc)
        for axis in range(1, rank(a.type)):
            n = prim("mul", n, self.size(a, axis, loc), loc=loc)
        return n

    def mean(self, t: Term, loc: Loc | None) -> Term:
        return self.share(t, lambda a: prim("div", self.to_float(self.sum_all(a, loc), loc),
                                            self.to_float(self.count(a, loc), loc), loc=loc), loc)

    def filled(self, dims: list[Term], value: Const, loc: Loc | None, construct: str = "np.zeros") -> Term:
        """np.zeros / np.ones: nested builds of a constant (a negative length is NumPy's error)."""
        def body(*ns):
            nonneg = [prim("le", ZERO, n, loc=loc) for n in ns if not self.shapes.at_most(ZERO, n)]
            chk = self.check(_all(nonneg), tuple(ns), loc, construct, "negative dimensions are not allowed")
            out: Term = value
            for n, i in reversed([(n, self.var(Int, loc, "_i")) for n in ns]):
                out = Build(n, i, out, loc)
            return make_lets(chk, out)
        return self.share_all(dims, body, loc)

    def subscript(self, x: Term, items: list[tuple], loc: Loc | None, axis: int = 0) -> Term:
        """x[items] where an item is ("index", i), ("take", a) for an array a of Ints (the result
        has a's axes there) or ("slice", lo, hi) (None = open end); slices and takes become builds.
        Indices mean what they mean in Python (negative ones count from the end) and are checked
        against their axis (see index); slice bounds are clipped to the axis, as Python does."""
        if not items:
            return x
        for k, it in enumerate(items):
            if it[0] == "take" and not is_atom(it[1]):  # bound once, not inside the builds of slices
                return self.share(it[1], lambda a: self.subscript(x, items[:k] + [("take", a)] + items[k + 1:],
                                                                  loc, axis), loc)
        item, rest = items[0], items[1:]
        if item[0] == "take":
            def take(a, ix):
                ks = [self.var(Int, loc, "_i") for _ in range(rank(ix.type))]
                chk, i = self.index(a, index_chain(ix, ks, loc), axis, loc, in_place=True)
                out = make_lets(chk, self.subscript(prim("index", i, a, loc=loc), rest, loc, axis + 1))
                for q, k in reversed(list(enumerate(ks))):
                    out = Build(self.size(ix, q, loc), k, out, loc)
                return out
            return self.share_all([x, item[1]], take, loc)
        if item[0] == "index":
            def at(a):
                chk, i = self.index(a, item[1], axis, loc)
                return make_lets(chk, self.subscript(prim("index", i, a, loc=loc), rest, loc, axis + 1))
            return self.share(x, at, loc)

        def sliced(a):
            binds, start, n = self.slice_bounds(item[1], item[2], self.shape(a)[0], loc)
            k = self.var(Int, loc, "_i")
            pos = k if isinstance(start, Const) and start.value == 0 else prim("add", k, start, loc=loc)
            return make_lets(binds, Build(n, k, self.subscript(prim("index", pos, a, loc=loc), rest, loc,
                                                               axis + 1), loc))
        return self.share(x, sliced, loc)

    def index(self, a: Term, i: Term, axis: int, loc: Loc | None, in_place: bool = False):
        """(bindings, j): j is the index i of atom a's first axis in range 0 <= j < len, as
        Python reads it (i + len for a negative i), and the bindings check that -len <= i < len.
        A check is left out where the range is proven while compiling, and put before the
        enclosing comprehensions (one check per call, not per element) where it can be."""
        d = self.shape(a)[0]
        message = f"index {{0}} is out of bounds for axis {axis} with size {{1}}"

        def chk(cond, shown):
            return self.check(cond, (shown, d.size), loc, "index", message, "bounds")
        if isinstance(i, Const):
            c = int(i.value)
            if c >= 0:
                ok = self.shapes.at_most(Const(c + 1, Int), d.size)
                return ([] if ok else chk(prim("lt", i, d.size, loc=loc), i)), i
            ok = self.shapes.at_most(Const(-c, Int), d.size)
            j = prim("sub", fresh(d.size, loc), Const(-c, Int), loc=loc)
            return ([] if ok else chk(prim("le", Const(-c, Int), d.size, loc=loc), i)), j
        hoisted = None if in_place else self.hoist(i, d, message, loc)
        if hoisted is not None:
            return [], i if hoisted else self._wrap(i, fresh(d.size, loc), loc)
        binds = []
        if not is_atom(i):
            v = self.bound(self.var(Int, loc, "_ix"), i)
            binds, i = [(v, i, loc)], v
        inside = _and(prim("le", prim("neg", d.size, loc=loc), i, loc=loc), prim("lt", i, d.size, loc=loc))
        nonneg = lin_const(self.shapes.lin(i)) is not None and lin_const(self.shapes.lin(i)) >= 0
        return binds + chk(inside, i), i if nonneg else self._wrap(i, fresh(d.size, loc), loc)

    def _wrap(self, i: Term, n: Term, loc: Loc | None) -> Term:
        return self.share(i, lambda j: If(prim("lt", j, ZERO, loc=loc), prim("add", j, n, loc=loc), j, loc), loc)

    def hoist(self, i: Term, d: Dim, message: str, loc: Loc | None) -> bool | None:
        """Prove, or check once before an enclosing comprehension, that i is in range at every
        element; the result says whether i is never negative (None: i is not linear in the
        comprehensions' indices, and its check stays where it is).

        The extremes of i over the elements come from each index running over 0 .. size - 1,
        innermost comprehension first (a ragged range(j) is bounded by j's own extremes). What
        is not proven is checked before the outermost comprehension that i's other parts, the
        sizes in between and len are all known before, with nothing conditional in between
        (an index in a branch not taken must not raise), when every one has elements."""
        sh = self.shapes
        form = sh.lin(i)
        if not any(dict(form[0]).get(f.var) for f in self.frames) or not all(simple(k) for k, _ in form[0]):
            return None
        lo, hi = self.extremes(form, self.frames)
        nonneg = lin_const(lo) is not None and lin_const(lo) >= 0
        upper = lin_const(lin_add(hi, sh.lin(d.size), -1))
        lower = lin_const(lin_add(lo, sh.lin(d.size)))
        if upper is not None and upper <= -1 and (nonneg or lower is not None and lower >= 0):
            return nonneg
        for t, top in enumerate(self.frames):
            ours = self.frames[t:]
            others = [k for k, _ in form[0] if not any(k == f.var for f in ours)]
            if top.depth != self.branch_depth or not self._before(top, [f.size for f in ours] + [d.size] + others):
                continue
            lo, hi = self.extremes(form, ours)
            lo_t, hi_t = self.term_of(lo, loc), self.term_of(hi, loc)
            # hi < len, written hi + 1 <= len: for range(n) with v[i] that is n <= len(v)
            conds = [prim("le", self.term_of(lin_add(hi, _lin_of({}, 1)), loc), d.size, loc=loc)]
            if not nonneg:
                conds.insert(0, prim("le", prim("neg", d.size, loc=loc), lo_t, loc=loc))
            # with no elements nothing is read; an upper bound n + c <= len (c <= 0) holds then anyway
            steps = [(f, c) for k, c in form[0] for f in ours if k == f.var]
            plain = nonneg and len(ours) == 1 and steps == [(top, 1)] and form[1] <= 0 and len(form[0]) == 1
            cond = _all(conds) if plain else _or(_any([prim("le", f.size, ZERO, loc=loc) for f in ours]), _all(conds))
            shown = self.first_bad(form, ours, lo_t, hi_t, d, nonneg, loc)
            top.checks += self.check(cond, (shown, d.size), loc, "index", message, "bounds")
            return nonneg
        return None

    def extremes(self, form, frames: list[Frame]):
        """(lowest, highest) linear forms of `form` over the elements of `frames`."""
        lo = hi = form
        for f in reversed(frames):
            last = lin_add(self.shapes.lin(f.size), _lin_of({}, -1))
            lo, hi = _at_end(lo, f.var, last, low=True), _at_end(hi, f.var, last, low=False)
        return lo, hi

    def first_bad(self, form, frames, lo: Term, hi: Term, d: Dim, nonneg: bool, loc: Loc | None) -> Term:
        """The index Python would stop at, shown when the check fails: the first out of range in
        iteration order (exact for one index stepping by 1 or -1; else an extreme out of range)."""
        steps = [c for k, c in form[0] if any(k == f.var for f in frames)]
        n = d.size
        if steps == [1] and nonneg:  # only the upper end can fail
            return n if isinstance(lo, Const) and lo.value == 0 else prim("max", lo, n, loc=loc)
        if steps == [1]:
            return If(prim("lt", hi, n, loc=loc), lo, prim("max", lo, n, loc=loc), loc)
        if steps == [-1]:
            below = prim("sub", prim("neg", n, loc=loc), ONE, loc=loc)
            return If(prim("lt", hi, n, loc=loc), prim("min", hi, below, loc=loc), hi, loc)
        return If(prim("lt", hi, n, loc=loc), lo, hi, loc)

    def _before(self, frame: Frame, terms: list[Term]) -> bool:
        """Are all variables of terms bound before frame's index variable?"""
        limit = self.names.serial.get(frame.var.name, 0)
        return all(self.names.serial.get(v.name, 0) < limit for t in terms for v in free_vars(t))

    def term_of(self, form, loc: Loc | None) -> Term:
        """A linear form as a term."""
        out: Term | None = None
        for k, c in sorted(form[0], key=lambda kc: str(kc[0])):
            t = k if c == 1 else prim("mul", Const(c, Int), k, loc=loc)
            out = t if out is None else prim("add", out, t, loc=loc)
        if out is None:
            return Const(form[1], Int)
        return out if form[1] == 0 else prim("add", out, Const(form[1], Int), loc=loc)

    def slice_bounds(self, lo: Term | None, hi: Term | None, d: Dim, loc: Loc | None):
        """(bindings, start, length) of the slice lo:hi of an axis of length d, clipped as Python
        clips it (never an error: v[2:10] of a length-5 vector has 3 elements). Constant bounds
        counted from either end give the length max(d - k, 0), one term for v[1:] and v[:-1]."""
        n = d.size
        def const(t):
            return t.value if isinstance(t, Const) else None
        a = 0 if lo is None else const(lo)
        b = None if hi is None else const(hi)
        from_end = (hi is None or b is not None and b < 0) and a is not None and a >= 0
        if from_end:
            k = a + (0 if hi is None else -b)
            if k == 0:
                return [], ZERO, fresh(n, loc)
            start = ZERO if a == 0 else Const(a, Int) if self.shapes.at_most(Const(a, Int), n) else \
                prim("min", Const(a, Int), fresh(n, loc), loc=loc)
            length = prim("sub", fresh(n, loc), Const(k, Int), loc=loc)
            if not self.shapes.at_most(Const(k, Int), n):
                length = prim("max", length, ZERO, loc=loc)
            return [], start, length
        binds = []

        def atom(t):
            if t is None or is_atom(t):
                return t
            v = self.bound(self.var(Int, loc, "_s"), t)
            binds.append((v, t, loc))
            return v
        lo, hi = atom(lo), atom(hi)

        def clip(t, default):
            if t is None:
                return default
            c = const(t)
            if c == 0:
                return ZERO
            if c is not None and c > 0:
                return prim("min", t, fresh(n, loc), loc=loc)
            if c is not None:
                return prim("max", prim("add", fresh(n, loc), t, loc=loc), ZERO, loc=loc)
            return If(prim("lt", t, ZERO, loc=loc), prim("max", prim("add", fresh(n, loc), t, loc=loc), ZERO, loc=loc),
                      prim("min", t, fresh(n, loc), loc=loc), loc)
        start, stop = atom(clip(lo, ZERO)), atom(clip(hi, fresh(n, loc)))
        return binds, start, prim("max", prim("sub", stop, start, loc=loc), ZERO, loc=loc)


def _at_values(t: Term, f: Callable[[Term], Term]) -> Term:
    """f applied where t's value is produced: under its lets and in both arms of its ifs."""
    lets, body = let_chain(t)
    if isinstance(body, If):
        body = If(body.cond, _at_values(body.then, f), _at_values(body.orelse, f), body.loc)
    else:
        body = f(body)
    for lt in reversed(lets):
        body = Let(lt.var, lt.rhs, body, lt.loc)
    return body
