"""The band structure of a linear map, read from the program that applies it (issue 17, item 3).

A forward derivative program ``fwd$g(x, dx)`` applies g's Jacobian J to the tangent dx. When
x and g(x) are vectors, :func:`band_offsets` reads from that program, symbolically (no value is
computed), which elements of dx each element o of the result reads: if every one reads dx only
at o + c for c in a fixed set C of integer offsets, J[o, j] = 0 unless j - o is in C. A sum over
independent elements, ``sum(g(v[i]) for i ...)``, has a gradient whose element i reads v only at
i, so its Hessian (the Jacobian of the gradient) is diagonal, C = {0}; ``v[i + 1] - v[i] ** 2``
makes it tridiagonal, C = {-1, 0, 1}.

The Jacobian of such a map is then recovered from w = max(C) - min(C) + 1 products J s_r, the
seeds s_r[j] = 1 where j = r mod w (Curtis, Powell and Reid, "On the estimation of sparse
Jacobian matrices", 1974: columns whose rows do not overlap share a seed), so a diagonal
Hessian costs one forward pass instead of n (catad.differentiate fills the dense result).

The analysis is a dependency analysis over the core language. The abstract value of a term is
None (unknown: any element of dx) or, for a tuple, a tuple of abstract values, or else a set
of atoms, each one way the value reads dx:

    ("at", k, c)     the whole value reads dx[k + c], k a token naming one binding of an index
                     (a build's variable, or an Int of unknown value)
    ("own", a, c)    the value's element (i0, ..., ia, ...) reads dx[ia + c], ia its index on axis a

The empty set reads nothing of dx (a primal value). Every rule is conservative: a construct it
does not know gives None, unless none of its inputs reads dx by position ("own"), when the value
reads at most what its inputs read (whatever it computes from them).
"""
from __future__ import annotations

import numbers
from typing import Any

from .terms import Build, Call, Const, Def, Get, If, Let, Term, Tuple, Var, free_vars, let_chain
from .types import Int, Tuple as TupleT, rank

# The primitives whose result's element (i0, ...) is computed from their arguments' elements at
# (i0, ...) alone, for arguments of the result's type (lower ranks are broadcast, so they must
# not read dx by position): the element's dependencies are the union of the arguments'.
ELEMENTWISE = frozenset(("add", "sub", "mul", "div", "neg", "tadd", "tscale", "tmul", "tprod", "touter",
                         "densify"))
# Sums over the first axis: the element (i1, ...) of the result sums (i0, i1, ...) over i0.
REDUCTIONS = frozenset(("sum", "tsum"))
STRUCTURAL = frozenset(("size", "dim"))  # they read shapes, never values
_INT_OPS = {"add": (2, lambda a, b: a + b), "sub": (2, lambda a, b: a - b), "mul": (2, lambda a, b: a * b),
            "neg": (1, lambda a: -a), "min": (2, min), "max": (2, max)}


class _Token:
    """One binding of an index (identity is the name: two builds reusing a variable name are
    two tokens)."""
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return self.name


class Structure:
    """The dependency analysis of one program (the defs it may call are not looked into)."""

    def __init__(self, shapes: dict[Var, tuple] | None = None):
        self.values: dict[Var, Any] = {}   # a variable's abstract value
        self.indices: dict[Var, tuple] = {}  # an Int variable's (token, offset)
        # the shapes of the arguments at hand, and the Ints computed from them alone (a
        # slice's start min(1, size(x)) is 1 inside a build over max(size(x) - 1, 0))
        self.ints: dict[Var, int] = {}
        self.shapes = shapes or {}

    def term(self, t: Term) -> Any:
        """The abstract value of t (lets walked iteratively: no recursion per statement)."""
        lets, body = let_chain(t)
        for lt in lets:
            self.bind(lt.var, lt.rhs)
        return self._node(body)

    def bind(self, x: Var, rhs: Term) -> None:
        self.values[x] = self.term(rhs)  # binds rhs's own lets, which the Int's value reads
        if x.type == Int:
            value = self.int_of(rhs)
            if value is not None:
                self.ints[x] = value
            self.indices[x] = self.index_of(rhs)

    def index_of(self, t: Term) -> tuple:
        """(token, offset) with t == token + offset; an Int of unknown value is a fresh token."""
        if isinstance(t, Var):  # an Int of unknown value is one token wherever it is read
            return self.indices.setdefault(t, (_Token(t.name), 0))
        if isinstance(t, Let):  # its lets are bound: term(t) came first
            return self.index_of(let_chain(t)[1])
        if isinstance(t, Call) and t.fn in ("add", "sub") and len(t.args) == 2:
            a, b = t.args
            c = self.int_of(b)
            if c is not None:
                tok, d = self.index_of(a)
                return tok, d + (c if t.fn == "add" else -c)
            c = self.int_of(a)
            if t.fn == "add" and c is not None:
                tok, d = self.index_of(b)
                return tok, d + c
        return _Token("?"), 0

    def int_of(self, t: Term) -> int | None:
        """The value of an Int computed from constants and the arguments' shapes, else None."""
        if isinstance(t, Const):
            return int(t.py_value) if _is_int(t) else None
        if isinstance(t, Var):
            return self.ints.get(t)
        if isinstance(t, Let):  # its lets are bound: term(t) came first
            return self.int_of(let_chain(t)[1])
        if not isinstance(t, Call) or t.type != Int:
            return None
        if t.fn in STRUCTURAL:
            return self._shape_of(t)
        args = [self.int_of(a) for a in t.args]
        if None in args or t.fn not in _INT_OPS or len(args) != _INT_OPS[t.fn][0]:
            return None
        return _INT_OPS[t.fn][1](*args)

    def _shape_of(self, t: Call) -> int | None:
        x = t.args[0]
        shape = self.shapes.get(x) if isinstance(x, Var) else None
        axis = 0 if t.fn == "size" else self.int_of(t.args[1]) if len(t.args) > 1 else None
        if shape is None or axis is None or not 0 <= axis < len(shape):
            return None
        return int(shape[axis])

    def _node(self, t: Term) -> Any:
        if isinstance(t, Var):
            return self.values.get(t, frozenset())
        if isinstance(t, Const):
            return frozenset()
        if isinstance(t, Let):
            return self.term(t)
        if isinstance(t, Tuple):
            return tuple(self.term(x) for x in t.items)
        if isinstance(t, Get):
            return _get(self.term(t.tup), t.index)
        if isinstance(t, If):
            return _union([self.term(t.cond), self.term(t.then), self.term(t.orelse)], elementwise=True)
        if isinstance(t, Build):
            return self._build(t)
        if isinstance(t, Call):
            return self._call(t)
        return self._opaque(t)

    def _build(self, t: Build) -> Any:
        tok = _Token(t.var.name)
        self.indices[t.var] = (tok, 0)
        self.values[t.var] = frozenset()
        return _map(self.term(t.body), lambda s: _built(s, tok))

    def _call(self, t: Call) -> Any:
        if t.fn in STRUCTURAL:
            return frozenset()
        args = [self.term(a) for a in t.args]
        if t.fn == "index" and len(args) == 2:
            tok, c = self.index_of(t.args[0])
            return _map(args[1], lambda s: _indexed(s, tok, c))
        if t.fn == "update" and len(args) == 3:
            tok, c = self.index_of(t.args[0])
            return _map(args[1], lambda s: _updated(s, tok, c))
        if t.fn in REDUCTIONS and len(args) == 1:
            return _map(args[0], _reduced)
        if t.fn in ELEMENTWISE:
            same = [a for a, x in zip(args, t.args) if x.type == t.type]
            other = [a for a, x in zip(args, t.args) if x.type != t.type]
            if any(_positional(a) for a in other):
                return None
            if isinstance(t.type, TupleT) and any(_positional(a) for a in same):  # component by component
                return _componentwise(same, len(t.type.items))
            return _union(same + other, elementwise=True)
        return _union(args, elementwise=False)

    def _opaque(self, t: Term) -> Any:
        """A loop or any other construct: at most what its free variables read, none by position."""
        return _union([self.values.get(x, frozenset()) for x in free_vars(t)], elementwise=False)


def _is_int(t: Term) -> bool:
    return isinstance(t, Const) and isinstance(t.py_value, numbers.Integral) and not isinstance(t.py_value, bool)


def _flat(a: Any) -> frozenset | None:
    """The atoms of a value, its tuples' components together (None: unknown)."""
    if a is None or isinstance(a, frozenset):
        return a
    out: frozenset = frozenset()
    for x in a:
        f = _flat(x)
        if f is None:
            return None
        out |= f
    return out


def _positional(a: Any) -> bool:
    f = _flat(a)
    return f is None or any(atom[0] == "own" for atom in f)


def _union(args: list, elementwise: bool) -> frozenset | None:
    """What a value computed from args reads: all they read; by position only elementwise."""
    out: frozenset = frozenset()
    for a in args:
        f = _flat(a)
        if f is None or (not elementwise and any(atom[0] == "own" for atom in f)):
            return None
        out |= f
    return out


def _componentwise(args: list, n: int) -> Any:
    """The union of tuple values' atoms component by component (None unless each is a tuple)."""
    if not all(isinstance(a, tuple) and len(a) == n for a in args):
        return None
    return tuple(_union([a[k] for a in args], elementwise=True) for k in range(n))


def _map(a: Any, fn) -> Any:
    """fn applied to each set of atoms of a (through tuples: a Vec of tuples is read as a tuple
    of Vecs, which is how a build of a tuple, its index and its components relate)."""
    if a is None:
        return None
    if isinstance(a, frozenset):
        return fn(a)
    return tuple(_map(x, fn) for x in a)


def _get(a: Any, k: int) -> Any:
    return a[k] if isinstance(a, tuple) else a


def _built(s: frozenset | None, tok: _Token) -> frozenset | None:
    """build(n, \\k. body): body's reads at k are the element's own; its own axes move in by one."""
    if s is None:
        return None
    out = set()
    for atom in s:
        if atom[0] == "at" and atom[1] is tok:
            out.add(("own", 0, atom[2]))
        elif atom[0] == "own":
            out.add(("own", atom[1] + 1, atom[2]))
        else:
            out.add(atom)
    return frozenset(out)


def _indexed(s: frozenset | None, tok: _Token, c: int) -> frozenset | None:
    """x[tok + c]: the element's reads by its own first index become reads at tok."""
    if s is None:
        return None
    out = set()
    for atom in s:
        if atom[0] == "own" and atom[1] == 0:
            out.add(("at", tok, atom[2] + c))
        elif atom[0] == "own":
            out.add(("own", atom[1] - 1, atom[2]))
        else:
            out.add(atom)
    return frozenset(out)


def _updated(s: frozenset | None, tok: _Token, c: int) -> frozenset | None:
    """update(tok + c, r, n): element o = tok + c is r (the others 0), so r's reads at tok + d
    are the element's own at offset d - c."""
    if s is None:
        return None
    out = set()
    for atom in s:
        if atom[0] == "at" and atom[1] is tok:
            out.add(("own", 0, atom[2] - c))
        elif atom[0] == "own":
            out.add(("own", atom[1] + 1, atom[2]))
        else:
            out.add(atom)
    return frozenset(out)


def _reduced(s: frozenset | None) -> frozenset | None:
    """A sum over the first axis mixes its elements: reads by that position are unknown."""
    if s is None or any(atom[0] == "own" and atom[1] == 0 for atom in s):
        return None
    return frozenset(("own", atom[1] - 1, atom[2]) if atom[0] == "own" else atom for atom in s)


def band_offsets(fwd: Def, n_params: int, k: int, shapes: tuple = ()) -> frozenset | None:
    """The offsets C (see the module) of the Jacobian of the result's tangent with respect to
    the tangent of parameter k, for a forward program fwd(x1, ..., xn, dx1, ..., dxn) returning
    (y, dy) with dxk and dy vectors; None when the analysis cannot show a band (also when dy
    reads dxk at an index that is not its own plus a constant). `shapes`, those of the
    arguments x1, ..., xn at hand, give the Ints computed from them (the offsets of slices)."""
    dx = fwd.params[n_params + k]
    result = fwd.result_type
    if not (rank(dx.type) == 1 and isinstance(result, TupleT) and rank(result.items[1]) == 1):
        return None
    s = Structure({p: shape for p, shape in zip(fwd.params, shapes)})
    s.values[dx] = frozenset({("own", 0, 0)})
    f = _flat(_get(s.term(fwd.body), 1))
    if f is None or any(atom[0] != "own" or atom[1] != 0 for atom in f):
        return None
    return frozenset(atom[2] for atom in f)


__all__ = ["ELEMENTWISE", "REDUCTIONS", "Structure", "band_offsets"]
