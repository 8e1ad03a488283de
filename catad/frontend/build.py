"""Building core terms for the front end: binder names, sharing, promotion, array loops.

A helper that uses an operand more than once first passes it through ``share``, which
let-binds it unless it is an atom (Var or Const): no compound term is ever duplicated.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..errors import CatadTypeError, Loc
from ..lang.terms import Build, Const, If, Let, Term, Var, is_atom, let_chain
from ..lang.types import Bool, Float, Int, Type, Vec, rank, scalar_of, vec_of
from ..primitives import prim

ZERO = Const(0, Int)


class Names:
    """Binder names of one Def, all distinct: a user variable keeps its name the first time it
    is bound and becomes name_1, name_2, ... after; temporaries are _t1, _i1, ....
    `reserved` holds every identifier in the source, so a generated name never captures one."""

    def __init__(self, reserved: Iterable[str]):
        self.reserved = set(reserved)
        self.taken: set[str] = set()
        self.counters: dict[str, int] = {}

    def user(self, name: str) -> str:
        if name not in self.taken:
            self.taken.add(name)
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


class Builder:
    def __init__(self, names: Names):
        self.names = names

    def var(self, ty: Type, loc: Loc | None, prefix: str = "_t") -> Var:
        return Var(self.names.temp(prefix), ty, loc)

    def share(self, t: Term, body: Callable[[Term], Term], loc: Loc | None) -> Term:
        if is_atom(t):
            return body(t)
        v = self.var(t.type, loc)
        return Let(v, t, body(v), loc)

    def share_all(self, ts: list[Term], body: Callable[..., Term], loc: Loc | None) -> Term:
        binds, atoms = [], []
        for t in ts:
            if is_atom(t):
                atoms.append(t)
            else:
                v = self.var(t.type, loc)
                binds.append((v, t))
                atoms.append(v)
        out = body(*atoms)
        for v, t in reversed(binds):
            out = Let(v, t, out, loc)
        return out

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
        """The length of axis `axis` of atom a (columns of a matrix: size(index(0, m)))."""
        return prim("size", index_chain(a, [ZERO] * axis, loc), loc=loc)

    def elementwise(self, f: Callable[..., Term], operands: list[Term], loc: Loc | None) -> Term:
        """f on scalars, looped over arrays with NumPy's broadcasting: a lower-rank operand
        (or a scalar) is matched against the trailing axes of the others."""
        def go(atoms, applied, rems):
            r = max(rems)
            if r == 0:
                return f(*(index_chain(a, idx, loc) for a, idx in zip(atoms, applied)))
            # the size comes from the operand needing the fewest index(0, .) steps to reach this axis
            lead = min((j for j, k in enumerate(rems) if k == r), key=lambda j: len(applied[j]))
            n = self.size(atoms[lead], len(applied[lead]), loc)
            i = self.var(Int, loc, "_i")
            applied = [idx + [i] if k == r else idx for idx, k in zip(applied, rems)]
            rems = [k - 1 if k == r else k for k in rems]
            return Build(n, i, go(atoms, applied, rems), loc)
        return self.share_all(operands, lambda *atoms: go(atoms, [[] for _ in atoms],
                                                          [rank(a.type) for a in atoms]), loc)

    def sum_products(self, n: Term, x: Callable[[Term], Term], y: Callable[[Term], Term],
                     loc: Loc | None) -> Term:
        k = self.var(Int, loc, "_k")
        return prim("sum", Build(n, k, self.arith("mul", x(k), y(k), loc), loc), loc=loc)

    def dot(self, a: Term, b: Term, loc: Loc | None) -> Term:
        """np.dot / @ for ranks (1,1), (2,1), (1,2), (2,2)."""
        ra, rb = rank(a.type), rank(b.type)
        if ra == 0 or rb == 0:
            return self.elementwise(lambda x, y: self.arith("mul", x, y, loc), [a, b], loc)
        if ra > 2 or rb > 2:
            raise CatadTypeError(f"dot takes vectors and matrices, got {a.type} and {b.type}", loc, "dot")

        def body(x, y):
            ix = lambda t, *idx: index_chain(t, list(idx), loc)
            if ra == 1 and rb == 1:
                return self.sum_products(self.size(x, 0, loc), lambda k: ix(x, k), lambda k: ix(y, k), loc)
            i, j = self.var(Int, loc, "_i"), self.var(Int, loc, "_j")
            if ra == 2 and rb == 1:
                return Build(self.size(x, 0, loc), i, self.sum_products(
                    self.size(y, 0, loc), lambda k: ix(x, i, k), lambda k: ix(y, k), loc), loc)
            if ra == 1:
                return Build(self.size(y, 1, loc), j, self.sum_products(
                    self.size(x, 0, loc), lambda k: ix(x, k), lambda k: ix(y, k, j), loc), loc)
            return Build(self.size(x, 0, loc), i, Build(self.size(y, 1, loc), j, self.sum_products(
                self.size(y, 0, loc), lambda k: ix(x, i, k), lambda k: ix(y, k, j), loc), loc), loc)
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

    def filled(self, dims: list[Term], value: Const, loc: Loc | None) -> Term:
        """np.zeros / np.ones: nested builds of a constant."""
        def body(*ns):
            out: Term = value
            for n, i in reversed([(n, self.var(Int, loc, "_i")) for n in ns]):
                out = Build(n, i, out, loc)
            return out
        return self.share_all(dims, body, loc)

    def subscript(self, x: Term, items: list[tuple], loc: Loc | None) -> Term:
        """x[items] where an item is ("index", i), ("take", a) for an array a of Ints (the result
        has a's axes there) or ("slice", lo, hi) (None = open end); a negative constant counts from
        the end; slices and takes become builds."""
        if not items:
            return x
        for k, it in enumerate(items):
            if it[0] == "take" and not is_atom(it[1]):  # bound once, not inside the builds of slices
                return self.share(it[1], lambda a: self.subscript(x, items[:k] + [("take", a)] + items[k + 1:],
                                                                  loc), loc)
        item, rest = items[0], items[1:]
        if item[0] == "take":
            def take(a, ix):
                ks = [self.var(Int, loc, "_i") for _ in range(rank(ix.type))]
                out = self.subscript(prim("index", index_chain(ix, ks, loc), a, loc=loc), rest, loc)
                for q, k in reversed(list(enumerate(ks))):
                    out = Build(self.size(ix, q, loc), k, out, loc)
                return out
            return self.share_all([x, item[1]], take, loc)
        if item[0] == "index":
            i = item[1]
            if _negative(i):
                return self.share(x, lambda a: self.subscript(
                    prim("index", self._from_end(a, i, loc), a, loc=loc), rest, loc), loc)
            return self.subscript(prim("index", i, x, loc=loc), rest, loc)
        lo, hi = item[1], item[2]

        def body(a):
            start = ZERO if lo is None else self._from_end(a, lo, loc) if _negative(lo) else lo
            stop = self.size(a, 0, loc) if hi is None else self._from_end(a, hi, loc) if _negative(hi) else hi

            def with_start(s):
                k = self.var(Int, loc, "_i")
                at_zero = isinstance(s, Const) and s.value == 0
                n = stop if at_zero else prim("sub", stop, s, loc=loc)
                pos = k if at_zero else prim("add", k, s, loc=loc)
                return Build(n, k, self.subscript(prim("index", pos, a, loc=loc), rest, loc), loc)
            return self.share(start, with_start, loc)
        return self.share(x, body, loc)

    def _from_end(self, a: Term, c: Const, loc: Loc | None) -> Term:
        return prim("sub", self.size(a, 0, loc), Const(-c.value, Int, c.loc), loc=loc)


def _negative(t: Term | None) -> bool:
    return isinstance(t, Const) and t.type == Int and t.value < 0


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
