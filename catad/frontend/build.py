"""Building core terms for the front end: binder names, sharing, shapes, promotion, array loops.

A helper that uses an operand more than once first passes it through ``share``, which
let-binds it unless it is an atom (Var or Const): no compound term is ever duplicated.

:class:`Builder` holds what is known while one function is lowered (binder names, shapes, the
comprehensions and conditionals around the term being made, the statement whose checks are
collected) and makes terms: here sharing, shapes, lengths and scalar promotion, and in its
parts

- checks.py (``Checks``): where run-time checks go;
- broadcast.py (``Broadcasting``): elementwise operations with NumPy's broadcasting, dot, transpose;
- indexing.py (``Indexing``): subscripts, indices and their bounds (proven, hoisted or checked), slices;
- reductions.py (``Reductions``): sums, max, min, mean and counts of arrays, filled arrays.

Helpers without state (and_, or_, index_chain, is_array, join_types, ...) are in common.py.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..errors import CatadTypeError, Loc
from ..lang.terms import Const, If, Let, Term, Tuple, Var, is_atom, let_chain, may_fail
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Type, Vec, rank, scalar_of
from ..primitives import prim
from .broadcast import Broadcasting
from .checks import Checks, Frame, Statement
from .common import join_types
from .indexing import Indexing
from .reductions import Reductions
from .shapes import Dim, Shapes, fresh


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

    def syntax(self, prefix: str) -> str:
        """A name for syntax the front end writes (a loop's flag, a map's item): never a name of the
        source, nor given out again, and left untaken so that its first binder keeps it."""
        name = self._next(prefix)
        self.taken.discard(name)
        return name

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


class Builder(Checks, Broadcasting, Indexing, Reductions):
    """Makes the terms of one function being lowered (see the module docstring)."""

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

    def share_atom(self, t: Term, binds: list, loc: Loc | None) -> Term:
        """t, or a variable bound to it by a binding appended to binds (for make_lets)."""
        if is_atom(t):
            return t
        v = self.bound(self.var(t.type, loc), t)
        binds.append((v, t, loc))
        return v

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

    def evaluated(self, ts: list[Term], body: Callable[..., Term], loc: Loc | None) -> Term:
        """body(*ts) with the terms that run a check (lang.terms.may_fail) bound first: a call
        evaluates all its arguments, so their checks raise whichever one it chooses, where an if
        on a scalar (np.where's) would run only the branch taken."""
        failing = [k for k, t in enumerate(ts) if may_fail(t)]
        if not failing:
            return body(*ts)

        def at(*atoms):
            args = list(ts)
            for k, a in zip(failing, atoms):
                args[k] = a
            return body(*args)
        return self.share_all([ts[k] for k in failing], at, loc)

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

    def numeric(self, t: Term, scalar: Type, loc: Loc | None) -> Term:
        """A Bool (or a Bool array) as the number it is in arithmetic with `scalar`s, as Python and
        NumPy take it: 1 and 0, an Int beside Ints, a Float beside Floats."""
        if scalar == Float:
            return self.to_float(t, loc)
        one = lambda x: If(x, Const(1, Int, loc), Const(0, Int, loc), loc)
        return self.elementwise(one, [t], loc) if isinstance(t.type, Vec) else _at_values(t, one)

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

    # ------------------------------------------------------------ shapes and lengths

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
