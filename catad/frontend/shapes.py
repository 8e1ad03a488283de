"""What the front end knows of array shapes: each axis's size as an Int term, whether it is 1,
and which sizes are equal.

NumPy's broadcasting depends on which axes have length 1, so a function is compiled once per
pattern of length-1 axes of its array arguments (catad.pipeline.signature): in the compiled program
each axis of an argument is known to be 1 or known not to be 1, while its length stays a run-time
value (a new length that is not 1 reuses the program). Every array the front end makes gets a
shape: one :class:`Dim` per axis, holding a term for the axis's size over values in scope (a
build's size is that same term) and what is known of it being 1.

Two sizes are equal when their linear forms agree (``n`` bound to ``len(v)``, ``len(v) - 1 + 1``
and ``size(v)`` are one size); every other equality NumPy or Python needs is checked once per call
by a ``check`` in the program (catad.primitives), never assumed. Nothing here decides a value:
an unknown fact only costs a check or a gather.
"""
from __future__ import annotations

from dataclasses import dataclass

from .._node import walk
from ..lang.terms import (Build, Call, Const, Get, If, Let, Term, Var, free_vars, let_chain, subterms, term_children,
                          var_names, with_children)
from ..lang.types import Int, Tuple as TupleT, Unit, Vec, rank
from ..primitives import prim

# A linear form: ({key: coefficient}, constant) frozen as (frozenset of items, constant); a key is
# an Int term that is not a sum (a size(...), an argument, a value read from an array).
Lin = tuple


@dataclass(unsafe_hash=True, slots=True)
class Dim:
    """One axis of an array: its size (an Int term) and whether it is 1 (None: not known).
    While a shape is inferred, size may be None: the bound variable's own size is used.
    Never changed once made (not declared frozen: a frozen dataclass's __init__, through
    object.__setattr__, costs three times a plain one's, and the front end makes one at every
    axis of every array it infers)."""

    size: Term | None
    one: bool | None = None


def copyable(t: Term) -> bool:
    """Whether fresh can copy t: no binders in it (a let, a build, a fold)."""
    return not any(isinstance(n, (Let, Build)) or getattr(n, "LAMBDAS", ()) for n in subterms(t))


def in_scope(cond: Term, t: Term) -> bool:
    """Whether cond, the condition of t's mark, reads no variable that t binds inside itself
    (a branch's own let), so that it can be read where t is."""
    inner = var_names(t) - {v.name for v in free_vars(t)}
    return not any(v.name in inner for v in free_vars(cond))


def without_checks(t: Term, limit: int = 200) -> Term | None:
    """A small term t with its lets put in and its checks left out, for a condition read again
    where t's value is used, after those checks have passed (a conditional expression's test
    x[0] > 0 binds and checks the index); None for a term with another binder (a build, a fold)
    or of more than `limit` nodes."""
    if len(subterms(t)) > limit:
        return None
    env: dict = {}

    def go(n: Term) -> Term:  # (recursive: the term is small)
        if isinstance(n, Var):
            return env.get(n, n)
        if isinstance(n, Let):
            if n.var.type != Unit:  # a check's binding is of the unit type: left out
                env[n.var] = go(n.rhs)
            return go(n.body)
        if isinstance(n, Build) or getattr(n, "LAMBDAS", ()):
            raise _Binder
        return with_children(n, [go(k) for k in term_children(n)])
    try:
        return go(t)
    except _Binder:
        return None


class _Binder(Exception):
    pass


def fresh(t: Term, loc=None) -> Term:
    """A copy of a small term (a size, a check) whose compound nodes are its own, located at
    loc where they were not: a compound term object occurs once in a program, however often
    a size is read (sizes are cheap to read again)."""
    cls = type(t)
    if cls is Var or cls is Const:
        return t
    if cls is Call and all(type(a) is Var or type(a) is Const for a in t.args):
        return Call(t.fn, t.args, t.ty, t.loc or loc)  # most sizes (size(x)): what the general way makes
    if isinstance(t, (Var, Const)):
        return t
    assert not isinstance(t, (Let, Build)), "a size with binders cannot be copied"
    changes = {"loc": t.loc or loc}
    for f in t._init_fields:
        v = getattr(t, f)
        if isinstance(v, Term) and not isinstance(v, Var):
            changes[f] = fresh(v, loc)
        elif isinstance(v, tuple):
            changes[f] = tuple(fresh(x, loc) if isinstance(x, Term) else x for x in v)
    return t.replace(**changes)


def canonical(a: Term, axis: int) -> Term:
    """The length of axis `axis` of atom a as the program reads it: size(a), dim(a, 1), ...
    (not size(a[0]), which an array with no rows does not have)."""
    return prim("size", a) if axis == 0 else prim("dim", a, Const(axis, Int))


def _lin(items: dict, c: int) -> Lin:
    return (frozenset((k, v) for k, v in items.items() if v), c)


def lin_add(a: Lin, b: Lin, scale: int = 1) -> Lin:
    items = dict(a[0])
    for k, v in b[0]:
        items[k] = items.get(k, 0) + scale * v
    return _lin(items, a[1] + scale * b[1])


def lin_const(a: Lin) -> int | None:
    """The value of a constant form, or None."""
    return a[1] if not a[0] else None


class Shapes:
    """The shapes of the array variables of one function and the linear forms of its Int
    variables (both by binder name: the front end's names are unique in a definition)."""

    def __init__(self) -> None:
        self.dims: dict[str, tuple[Dim, ...]] = {}
        self.forms: dict[str, Lin] = {}
        self.ones: dict[Lin, bool] = {}   # sizes known to be 1 or not, by linear form
        self.units: dict[str, tuple] = {}  # tuple-typed variables: their components' length-1 axes
        self.same_as: dict[Lin, Lin] = {}  # sizes a check has made equal (to a representative)
        self._inferred: dict[int, tuple] = {}  # id -> (term, its inferred shape): see infer
        self.values: dict[str, Term] = {}  # array variables: the value each is bound to (see note)
        self._lengths: dict[tuple, Lin] = {}  # (fn, its arguments' names, values) -> its linear form

    # ------------------------------------------------------------ linear forms of Int terms

    def lin(self, t: Term) -> Lin:
        if isinstance(t, Const) and t.type == Int:
            return _lin({}, int(t.value))
        if isinstance(t, Var) and t.name in self.forms:
            return self.forms[t.name]
        if isinstance(t, Call) and t.type == Int:
            a = t.args
            if t.fn == "add":
                return lin_add(self.lin(a[0]), self.lin(a[1]))
            if t.fn == "sub":
                return lin_add(self.lin(a[0]), self.lin(a[1]), -1)
            if t.fn == "neg":
                return lin_add(_lin({}, 0), self.lin(a[0]), -1)
            if t.fn == "mul":
                x, y = self.lin(a[0]), self.lin(a[1])
                for s, o in ((x, y), (y, x)):
                    k = lin_const(s)
                    if k is not None:
                        return lin_add(_lin({}, 0), o, k)
            if t.fn in ("size", "dim"):  # most keys: one form per length, whose key term is one
                key = _atoms_key(t)      # object (forms compare by identity, not a walk of two
                if key is not None:      # equal terms) and whose hash is computed once
                    form = self._lengths.get(key)
                    if form is None:
                        form = self._lengths[key] = _lin({t: 1}, 0)
                    return form
        return _lin({t: 1}, 0)

    def note_int(self, v: Var, value: Term) -> None:
        """v is bound to the Int value: it has value's linear form (an alias of a size)."""
        self.forms[v.name] = self.lin(value)

    def equal(self, a: Term, b: Term) -> bool:
        return self.rep(self.lin(a)) == self.rep(self.lin(b))

    def rep(self, form: Lin) -> Lin:
        while form in self.same_as:
            form = self.same_as[form]
        return form

    def learn(self, a: Term, b: Term) -> None:
        """a check that has passed made a and b equal (for the code after it)."""
        x, y = self.rep(self.lin(a)), self.rep(self.lin(b))
        if x != y:
            self.same_as[x] = y
            if self.ones.get(x) is not None:
                self.ones.setdefault(y, self.ones[x])

    def saved(self):
        """What is known now, to restore after a branch (which may learn what holds only there):
        the sizes made equal and those known to be 1 or not (learn makes them known through an
        equality)."""
        return dict(self.same_as), dict(self.ones)

    def restore(self, saved) -> None:
        self.same_as, self.ones = dict(saved[0]), dict(saved[1])

    def at_most(self, a: Term, b: Term, k: int = 0) -> bool:
        """Is a <= b + k provable: a - b is a constant plus lengths (never negative) taken
        away?"""
        items, c = lin_add(self.lin(a), self.lin(b), -1)
        return c <= k and all(n < 0 and _length(key) for key, n in items)

    def one_of(self, size: Term) -> bool | None:
        form = self.lin(size)
        c = lin_const(form)
        return (c == 1) if c is not None else self.ones.get(form)

    def dim(self, size: Term) -> Dim:
        return Dim(size, self.one_of(size))

    def same(self, a: Dim, b: Dim) -> bool:
        """Are two axes provably of one length?"""
        if a.one is True and b.one is True:
            return True
        return a.size is not None and b.size is not None and self.equal(a.size, b.size)

    # ------------------------------------------------------------ shapes of terms

    def param(self, v: Var, units) -> None:
        """An argument's shape: canonical sizes, each known to be 1 or not (units: per axis
        True, False or None; for a tuple, a tuple of those per component)."""
        if isinstance(v.type, TupleT):
            if units is not None:
                self.units[v.name] = units
            return
        if isinstance(v.type, Vec):
            self.dims[v.name] = tuple(self._known(Dim(canonical(v, k), None if units is None else units[k]))
                                      for k in range(rank(v.type)))

    def _known(self, d: Dim) -> Dim:
        if d.one is not None and d.size is not None:
            self.ones.setdefault(self.lin(d.size), d.one)
        return d

    def note(self, v: Var, value: Term) -> None:
        """v is bound to value: it gets value's shape where that is known in v's scope."""
        if v.type == Int:
            self.note_int(v, value)
        if isinstance(v.type, TupleT) and isinstance(value, (Var, Get)):
            units = self.tuple_units(value)
            if units is not None:
                self.units[v.name] = units
        if not isinstance(v.type, Vec):
            return
        self.values[v.name] = value  # for lengths computed inside it (catad.frontend.lists)
        known = self.infer(value) or (None,) * rank(v.type)
        self.dims[v.name] = tuple(self._fill(d, v, k) for k, d in enumerate(known))

    def _fill(self, d: Dim | None, v: Term, k: int) -> Dim:
        if d is not None and d.size is not None:
            return d
        return self._known(Dim(canonical(v, k), None if d is None else d.one))

    def of(self, atom: Term) -> tuple[Dim, ...]:
        """The shape of an atom (a Var or a constant); () for a scalar."""
        if not isinstance(atom.type, Vec):
            return ()
        if isinstance(atom, Var):
            if atom.name not in self.dims:
                self.dims[atom.name] = tuple(self.dim(canonical(atom, k)) for k in range(rank(atom.type)))
            return self.dims[atom.name]
        known = self.infer(atom)
        return tuple(self._fill(d, atom, k) for k, d in enumerate(known))

    def tuple_units(self, t: Term):
        if isinstance(t, Var):
            return self.units.get(t.name)
        if isinstance(t, Get):
            inner = self.tuple_units(t.tup)
            return None if inner is None else inner[t.index]
        return None

    def infer(self, t: Term) -> tuple[Dim | None, ...] | None:
        """The shape of t as far as it is known in t's own scope (None for an axis that is not),
        or None when t is not an array. Remembered per term (a term is asked about when it is
        bound, fused and read): a term's scope, and so its shape, does not change."""
        if isinstance(t, (Var, Const)):
            return self._infer(t)
        known = self._inferred.get(id(t))
        if known is None or known[0] is not t:
            known = self._inferred[id(t)] = (t, self._infer(t))
        return known[1]

    def _infer(self, t: Term) -> tuple[Dim | None, ...] | None:
        if not isinstance(t.type, Vec):
            return None
        r = rank(t.type)
        unknown = (None,) * r
        if isinstance(t, Var):
            return self.of(t)
        if isinstance(t, Get):
            units = self.tuple_units(t)
            return unknown if units is None else tuple(Dim(None, one) for one in units)
        if isinstance(t, Const):
            return tuple(Dim(Const(n, Int), n == 1) for n in t.py_value.shape)
        if isinstance(t, Build):
            inner = self.infer(t.body) if isinstance(t.body.type, Vec) else ()
            first = self.dim(t.size) if simple(t.size) else None
            return (first,) + _outside(inner or (None,) * (r - 1), lambda: _binders(t.body) | {t.var.name})
        if isinstance(t, Let):
            lets, body = let_chain(t)
            return _outside(self.infer(body) or unknown, lambda: {lt.var.name for lt in lets} | _binders(body))
        if isinstance(t, If):
            a, b = self.infer(t.then) or unknown, self.infer(t.orelse) or unknown
            return tuple(x if x is not None and y is not None and self.same(x, y) else None for x, y in zip(a, b))
        if isinstance(t, Call) and t.fn in ("index", "sum") and isinstance(t.args[-1].type, Vec):
            inner = self.infer(t.args[-1])
            return inner[1:] if inner is not None else unknown
        if isinstance(t, Call) and t.fn == "vector":
            first = self.infer(t.args[0]) if isinstance(t.args[0].type, Vec) else ()
            return (Dim(Const(len(t.args), Int), len(t.args) == 1),) + tuple(first or (None,) * (r - 1))
        return unknown


def _atoms_key(t: Call) -> tuple | None:
    """A call of variables and constants as a key of names and values (None for another call):
    the front end's variable names are unique in a definition, so one key is one value."""
    key = [t.fn]
    for a in t.args:
        if type(a) is Var:
            key.append(a.name)
        elif type(a) is Const and type(a.value) is int:
            key.append(a.value)
        else:
            return None
    return tuple(key)


def _length(t: Term) -> bool:
    """Is t never negative: the length of an axis, or max(..., 0)?"""
    return isinstance(t, Call) and (t.fn in ("size", "dim") or t.fn == "max" and any(
        isinstance(a, Const) and a.type == Int and a.value >= 0 for a in t.args))


def simple(t: Term) -> bool:
    """A size that binds nothing (it can be copied where it is read: see fresh)."""
    if isinstance(t, (Var, Const)) or isinstance(t, Call) and all(isinstance(a, (Var, Const)) for a in t.args):
        return True  # most sizes (size(x), a length): no walk
    return not any(isinstance(n, (Let, Build)) for n in walk(t))


def _binders(t: Term) -> set[str]:
    """Names bound anywhere inside t (lets and builds)."""
    return {n.var.name for n in walk(t) if isinstance(n, (Let, Build))}


def _mentions(t: Term, names: set[str]) -> bool:
    return any(isinstance(n, Var) and n.name in names for n in walk(t))


def _outside(dims: tuple, names) -> tuple:
    """dims with the sizes that mention a variable bound inside (out of scope) made unknown;
    names() gives those variables, asked only when a size mentions a variable at all."""
    if not any(d is not None and d.size is not None and not isinstance(d.size, Const) for d in dims):
        return dims
    inside = names()
    return tuple(d if d is None or d.size is None or not _mentions(d.size, inside) else None for d in dims)


__all__ = ["Dim", "Shapes", "canonical", "fresh", "lin_add", "lin_const", "simple"]
