"""Terms of the core language (notes Fig. 1-2).

constant, variable, call (of a primitive or a user function, by name), tuple,
projection, let, if, and build n (lambda i. e). Indexing, sum and size are the
primitives ``index``, ``sum`` and ``size`` (Fig. 2), called like any other.

Every term knows its type: it is computed once at construction from the children's
types (which already exist), so asking for it is O(1) even at the bottom of a
10,000-binding let chain. :func:`catad.lang.typecheck.check_program` verifies
that these types are consistent.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Iterable, Iterator
from operator import is_not

import numpy as np

from .._node import Node, node, walk
from ..errors import CatadTypeError, Loc
from .types import Bool, Float, Int, Tuple as TupleT, Type, Vec, type_of_value


class ArrayValue:
    """A NumPy array constant, hashable by content; the array is read-only."""

    __slots__ = ("array", "_key")

    def __init__(self, array: np.ndarray):
        a = np.array(array, copy=True)
        a.setflags(write=False)
        self.array = a
        self._key = (a.dtype.str, a.shape, a.tobytes())

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ArrayValue) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return np.array2string(self.array, threshold=6, separator=", ").replace("\n", "")


class Term(Node):
    # `type`: the term's type, set at construction (a slot, read without a call: every pass
    # asks); `_fails`: may_fail's answer, when asked
    __slots__ = ("type", "_fails")

    def _set_type(self, t: Type) -> None:
        _SET_TYPE(self, t)

    def __str__(self) -> str:
        from .printer import show
        return show(self)

    # Terms of later stages (linear maps) that live inside core programs say how
    # they evaluate and print; the core evaluator and printer call these.
    def eval_with(self, ev):
        raise TypeError(f"not a core term: {type(self).__name__}")

    def show_with(self, show) -> str:
        raise TypeError(f"not a core term: {type(self).__name__}")


# frozen nodes refuse setattr: the slots' own setters. A core term whose type is a field's (or a
# field's type) names it in _TYPE_OF, set as the node is made (catad._node._fast_new); the others'
# __post_init__ set their type with the setter directly (Node's own __post_init__ does nothing,
# and a term is made at every step of every pass: no super() call, no method call)
_SET_TYPE = Term.__dict__["type"].__set__
_SET_FAILS = Term.__dict__["_fails"].__set__


@node
class Const(Term):
    value: Any
    ty: Type
    loc: Loc | None = None

    def __post_init__(self):
        if isinstance(self.value, np.ndarray):
            object.__setattr__(self, "value", ArrayValue(self.value))
        _SET_TYPE(self, self.ty)

    @property
    def py_value(self) -> Any:
        return self.value.array if isinstance(self.value, ArrayValue) else self.value


@node
class Var(Term):
    name: str
    ty: Type
    loc: Loc | None = None

    _TYPE_OF = "ty"  # its type (see catad._node._fast_new)


@node
class Call(Term):
    """A call of primitive or user function ``fn``; ``ty`` is its result type."""

    fn: str
    args: tuple[Term, ...]
    ty: Type
    loc: Loc | None = None

    _TYPE_OF = "ty"  # its type (see catad._node._fast_new)


@node
class Tuple(Term):
    items: tuple[Term, ...]
    loc: Loc | None = None

    def __post_init__(self):
        _SET_TYPE(self, TupleT(tuple(i.type for i in self.items)))


@node
class Get(Term):
    """Projection pi_{index+1, n}: the index-th (0-based) component of a tuple."""

    index: int
    tup: Term
    loc: Loc | None = None

    def __post_init__(self):
        t = self.tup.type
        if not isinstance(t, TupleT) or not 0 <= self.index < len(t.items):
            raise CatadTypeError(f"cannot take component {self.index} of a value of type {t}",
                                 self.loc, "projection")
        _SET_TYPE(self, t.items[self.index])


@node
class Let(Term):
    var: Var
    rhs: Term
    body: Term
    loc: Loc | None = None

    _TYPE_OF = "body.type"  # its type (see catad._node._fast_new)


@node
class If(Term):
    cond: Term
    then: Term
    orelse: Term
    loc: Loc | None = None

    _TYPE_OF = "then.type"  # its type (see catad._node._fast_new)


@node
class Build(Term):
    """build size (lambda var. body): the vector [body[var := i] for i in 0..size-1]."""

    size: Term
    var: Var
    body: Term
    loc: Loc | None = None

    def __post_init__(self):
        _SET_TYPE(self, Vec(self.body.type))


@node
class Def(Node):
    """A top-level function definition ``fun name(params) = body``."""

    name: str
    params: tuple[Var, ...]
    body: Term
    loc: Loc | None = None

    @property
    def result_type(self) -> Type:
        return self.body.type

    @property
    def param_type(self) -> Type:
        return TupleT(tuple(p.type for p in self.params))

    def __str__(self) -> str:
        from .printer import show_def
        return show_def(self)


@node
class Program(Node):
    """User definitions in dependency order; ``entry`` names the function of interest."""

    defs: tuple[Def, ...]
    entry: str

    def lookup(self, name: str) -> Def | None:
        for d in self.defs:
            if d.name == name:
                return d
        return None

    @property
    def main(self) -> Def:
        d = self.lookup(self.entry)
        assert d is not None
        return d

    def __str__(self) -> str:
        return "\n\n".join(str(d) for d in self.defs)


# ---------------------------------------------------------------- children

def term_children(t: Node) -> list["Term"]:
    """t's term children, in field order (tuples of terms flattened)."""
    return CHILDREN[type(t)](t)


def with_children(t: Node, kids: list["Term"]) -> Node:
    """t with its term children replaced, in the order of :func:`term_children` (t itself
    when each is the one it has)."""
    return WITH_CHILDREN[type(t)](t, kids)


class _PerClass(dict):
    """class of node -> its function, written by `make` when the class is first met."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, cls: type):
        f = self[cls] = self.make(cls)
        return f


def _compile_children(cls: type):
    lines = ["def children(t):"]
    items = []  # of one list display; a field declared a term (or a tuple of terms) holds one: read without a test
    for f, kind in _plan(cls):
        if kind == 1:
            items.append(f"t.{f}")
        elif kind == 2:
            items.append(f"*t.{f}")
        else:
            lines += [f"    v = t.{f}",
                      f"    v{len(items)} = [x for x in v if isinstance(x, Term)] if isinstance(v, tuple) else "
                      f"[v] if isinstance(v, Term) else ()"]
            items.append(f"*v{len(items)}")
    lines.append(f"    return [{', '.join(items)}]")
    return _define("\n".join(lines), "children", cls)


def _compile_with(cls: type):
    plan = _plan(cls)
    lines = ["def with_children(t, kids):", "    k = 0", "    changed = False"]
    for f, kind in plan:
        v = f"f_{f}"  # a local named after the field (not a field name: Scale has a field k)
        if kind == 1:  # declared a term: holds one
            lines += [f"    {v} = t.{f}",
                      f"    new = kids[k]",
                      f"    k += 1",
                      f"    if new is not {v}:",
                      f"        {v} = new",
                      f"        changed = True"]
        elif kind == 2:  # declared a tuple of terms: holds one
            lines += [f"    {v} = t.{f}",
                      f"    n = len({v})",
                      f"    new = kids[k:k + n]",
                      f"    k += n",
                      f"    for a, b in zip(new, {v}):",
                      f"        if a is not b:",
                      f"            {v} = tuple(new)",
                      f"            changed = True",
                      f"            break"]
        else:
            lines += [f"    {v} = t.{f}",
                      f"    if isinstance({v}, Term):",
                      f"        new = kids[k]",
                      f"        k += 1",
                      f"        if new is not {v}:",
                      f"            {v} = new",
                      f"            changed = True",
                      f"    elif isinstance({v}, tuple):",
                      f"        items, moved = [], False",
                      f"        for x in {v}:",
                      f"            if isinstance(x, Term):",
                      f"                new = kids[k]",
                      f"                k += 1",
                      f"                moved = moved or new is not x",
                      f"                items.append(new)",
                      f"            else:",
                      f"                items.append(x)",
                      f"        if moved:",
                      f"            {v} = tuple(items)",
                      f"            changed = True"]
    planned = {f for f, _ in plan}
    args = ", ".join(f"f_{f}" if f in planned else f"t.{f}" for f in cls._init_fields)
    lines += ["    if not changed:", "        return t", f"    return cls({args})"]
    return _define("\n".join(lines), "with_children", cls)


# term_children and with_children as one function per class of node, written from its plan
# (below) when the class is first met: no loop over the fields, no look-up by name, and the
# new node made at once. Every pass calls them at every node: the hottest loops read these
# tables themselves (CHILDREN[type(t)](t)), a call fewer per node.
CHILDREN: dict[type, Any] = _PerClass(_compile_children)
WITH_CHILDREN: dict[type, Any] = _PerClass(_compile_with)


def _define(src: str, name: str, cls: type):
    env = {"Term": Term, "cls": cls}
    exec(src, env)
    fn = env[name]
    fn.__qualname__ = f"{name}[{cls.__name__}]"
    return fn


# The fields of a class of node that may hold terms: 1 for a term, 2 for a tuple of terms,
# 0 for a field whose declared type does not say (looked at every time). Fields declared
# to hold names, numbers, types or locations never hold terms and are not looked at.
_PLANS: dict[type, tuple[tuple[str, int], ...]] = {}
_NO_TERMS = {"str", "int", "bool", "Type", "Loc | None", "tuple[int, ...]", "tuple[Type, ...]", "tuple[str, ...]"}
_ONE = {"Term", "Var"}
_MANY = {"tuple[Term, ...]", "tuple[Var, ...]"}


def _plan(cls: type) -> tuple[tuple[str, int], ...]:
    declared = {f.name: f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "")
                for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else {}
    plan = tuple((f, 1 if declared.get(f) in _ONE else 2 if declared.get(f) in _MANY else 0)
                 for f in cls._fields if declared.get(f) not in _NO_TERMS)
    _PLANS[cls] = plan
    return plan


# ---------------------------------------------------------------- helpers

def const(value: Any, loc: Loc | None = None) -> Const:
    return Const(value, type_of_value(value, "constant"), loc)


def fconst(x: float) -> Const:
    return Const(float(x), Float)


def iconst(n: int) -> Const:
    return Const(int(n), Int)


TRUE = Const(True, Bool)
FALSE = Const(False, Bool)


def let_chain(t: Term) -> tuple[list[Let], Term]:
    """Split ``let x1 = e1 in ... let xn = en in body`` into ([lets...], body) without recursion."""
    lets = []
    while type(t) is Let:  # no class derives from Let (nor from Var or Const: is_atom)
        lets.append(t)
        t = t.body
    return lets, t


def make_lets(bindings: Iterable[tuple[Var, Term] | tuple[Var, Term, Loc | None]], body: Term) -> Term:
    """Nest bindings (outermost first) around body, iteratively."""
    for b in reversed(list(bindings)):
        body = Let(b[0], b[1], body, b[2] if len(b) > 2 else None)
    return body


def remake_lets(kept: Iterable[tuple[Let, Term]], body: Term) -> Term:
    """The lets of a chain that a pass kept, each (the let, its new right side), nested
    around body: a let whose right side and body are the ones it had is itself (a pass
    that changes nothing below a point of a chain makes no new lets there)."""
    for lt, rhs in reversed(list(kept)):
        body = lt if rhs is lt.rhs and body is lt.body else Let(lt.var, rhs, body, lt.loc)
    return body


def is_atom(t: Term) -> bool:
    cls = type(t)
    return cls is Var or cls is Const


def is_float_one(t: Any) -> bool:
    """Is t the Float constant 1.0 (1.0 * v is exactly v, v inf or NaN too)?"""
    return type(t) is Const and type(t.value) is float and t.value == 1.0


def free_vars(t: Term, cache: dict[int, frozenset] | None = None) -> frozenset:
    """Free variables of t. Post-order over an explicit stack; `cache` maps id(term) to
    its free variables and may be shared across calls (keep the terms alive meanwhile).
    A node's term children are read by its class's generated function (term_children), once
    per node: to_cl asks for the set of every subterm."""
    memo = {} if cache is None else cache
    stack: list = [(t, None)]
    while stack:
        n, kids = stack[-1]
        if kids is None:
            if id(n) in memo:
                stack.pop()
                continue
            cls = type(n)
            if cls is Var:
                memo[id(n)] = frozenset((n,))
                stack.pop()
                continue
            if cls is Const:
                memo[id(n)] = _NO_VARS
                stack.pop()
                continue
            kids = term_children(n)
            missing = [(k, None) for k in kids if id(k) not in memo]
            if missing:
                stack[-1] = (n, kids)
                stack.extend(missing)
                continue
        stack.pop()
        memo[id(n)] = _fv_node(n, kids, memo)
    return memo[id(t)]


_NO_VARS: frozenset = frozenset()


def _fv_node(n: Term, kids: list, memo: dict[int, frozenset]) -> frozenset:
    """n's free variables from its term children's (`kids`, in memo)."""
    cls = type(n)
    if cls is Let or cls is Build:
        first, body = memo[id(n.rhs if cls is Let else n.size)], memo[id(n.body)]
        if n.var in body:
            body = body - {n.var}
        return _union(first, body)
    if getattr(n, "LAMBDAS", ()):  # fold and its derivatives (catad.lang.fold): binders
        return _fv_lambdas(n, lambda k: memo[id(k)])
    if len(kids) == 1:
        return memo[id(kids[0])]
    if len(kids) == 2:
        return _union(memo[id(kids[0])], memo[id(kids[1])])
    return _NO_VARS.union(*[memo[id(k)] for k in kids])


def _union(a: frozenset, b: frozenset) -> frozenset:
    """a | b, which is a or b itself where one holds the other: most nodes' sets are one of
    their children's (a long program's sets are one per subterm: fewer of them, less memory)."""
    if a <= b:
        return b
    if b <= a:
        return a
    return a | b


class ChainFreeVars:
    """Free variables of terms, memoised by identity, for passes that ask about a let
    chain from its innermost binding outwards (the rewrite engine's dead-let rule).

    A let's set is its body's set less the bound variable plus its right side's. Copying
    the body's set at every let, as :func:`free_vars` does, stores one set per let: n^2
    elements for a chain of n lets whose variables stay live to its end (a reverse
    program, whose cotangents read the primal values), which made compiling a
    10,000-statement chain superlinear and took gigabytes. Here a let whose body is a let
    takes over its body's set and updates it in place, so asking about every let of a
    chain, innermost first, costs O(n) in all. The body's own entry is dropped then;
    asking about it again recomputes it.

    A returned set is read-only and valid until the next call (a later call may hand it
    over to an enclosing let).
    """

    def __init__(self) -> None:
        self._memo: dict[int, set] = {}
        self._alive: list[Term] = []  # the ids keying _memo stay valid while these live

    def __call__(self, t: Term) -> set:
        cls = type(t)
        if cls is Var:
            return {t}
        if cls is Const:
            return set()
        memo = self._memo
        known = memo.get(id(t))
        if known is not None:
            return known
        if cls is Call:  # a call of atoms (most right sides): its variables, not kept
            out = set()
            for a in t.args:
                kind = type(a)
                if kind is Var:
                    out.add(a)
                elif kind is not Const:
                    break
            else:
                return out
        if cls is Let:  # most questions: a let whose body's set is known and whose right side is flat
            self._alive.append(t)
            out = self._let(t)
            if out is not None:
                memo[id(t)] = out
                return out
        else:
            out = _shallow_free_vars(t)
            if out is not None:  # (not kept, as a call of atoms' set)
                return out
            self._alive.append(t)
        stack = [t]
        while stack:
            n = stack[-1]
            if id(n) in memo:
                stack.pop()
                continue
            cls = type(n)
            kids = n.args if cls is Call else _fv_children(n)
            # checked at every visit, not only the first: a sibling's let may have taken
            # over a child's set meanwhile (a let body shared by two lets). Atoms, most
            # children, are read directly and not memoised.
            missing = None
            for k in kids:
                kind = type(k)
                if kind is not Var and kind is not Const and id(k) not in memo:
                    if missing is None:
                        missing = [k]
                    else:
                        missing.append(k)
            if missing is not None:
                stack.extend(missing)
                continue
            stack.pop()
            if cls is Call:  # most nodes: the union of the arguments'
                out = set()
                for k in kids:
                    kind = type(k)
                    if kind is Var:
                        out.add(k)
                    elif kind is not Const:
                        out |= memo[id(k)]
                memo[id(n)] = out
            else:
                memo[id(n)] = self._node(n, kids)
        return memo[id(t)]

    def remember(self, t: Term, fv: set) -> None:
        """Take fv as t's free variables (a pass that made t knows them: catad.rewrite.sweeps)."""
        self._alive.append(t)
        self._memo[id(t)] = fv

    def _let(self, t: Let) -> set | None:
        """t's set without the stack, when its body's is known (an atom's, or memoised: asked
        innermost first, the let below was asked just before), or None: what _node computes,
        the body's set handed over. Its right side's set is asked first (a call of atoms, most
        right sides, has its variables added to the body's, no set made for it; a linear map's
        right side takes the stack alone)."""
        rhs, body = t.rhs, t.body
        memo = self._memo
        kind = type(body)
        if kind is not Var and kind is not Const and (body is rhs or id(body) not in memo):
            return None
        flat = rhs.args if type(rhs) is Call else None  # a call of atoms: its variables added below
        if flat is not None:
            for a in flat:
                kind = type(a)
                if kind is not Var and kind is not Const:
                    flat = None
                    break
        kind = type(rhs)
        first = None if flat is not None or kind is Var or kind is Const else self(rhs)
        kind = type(body)
        if kind is Let:
            out = memo.pop(id(body), None)  # handed over, not copied: see the class docstring
            if out is None:  # rhs's question took it over (a term shared between the two)
                return None
        elif kind is Var:
            out = {body}
        elif kind is Const:
            out = set()
        else:
            known = memo.get(id(body))
            if known is None:
                return None
            out = set(known)
        out.discard(t.var)
        if first is not None:
            out |= first
        elif flat is not None:
            for a in flat:
                if type(a) is Var:
                    out.add(a)
        elif type(rhs) is Var:
            out.add(rhs)
        return out

    def _of(self, k: Term) -> set:
        """The free variables of a child whose own are known (memoised, or an atom)."""
        kind = type(k)
        if kind is Var:
            return {k}
        if kind is Const:
            return set()
        return self._memo[id(k)]

    def _node(self, n: Term, kids) -> set:
        memo, cls = self._memo, type(n)
        if cls is Let or cls is Build:  # kids: the right side (the size) and the body
            first, body = kids
            kind = type(body)
            if cls is Let and kind is Let and body is not first:
                out = memo.pop(id(body))  # handed over, not copied: see the class docstring
            elif kind is Var:
                out = {body}
            elif kind is Const:
                out = set()
            else:
                out = set(memo[id(body)])
            out.discard(n.var)
            kind = type(first)
            if kind is Var:
                out.add(first)
            elif kind is not Const:
                out |= memo[id(first)]
            return out
        if getattr(n, "LAMBDAS", ()):
            return set(_fv_lambdas(n, self._of))
        out = set()
        for k in kids:
            kind = type(k)
            if kind is Var:
                out.add(k)
            elif kind is not Const:
                out |= memo[id(k)]
        return out


def _binder_free_children(cls: type):
    """CHILDREN[cls], for a class binding no variable (not a let, a build or a term with
    lambdas), whose free variables are its children's; else None."""
    if cls is Let or cls is Build or getattr(cls, "LAMBDAS", ()) or not issubclass(cls, Term):
        return None
    return CHILDREN[cls]


_BINDER_FREE_CHILDREN: dict[type, Any] = _PerClass(_binder_free_children)


def _shallow_free_vars(t: Term) -> set | None:
    """The free variables of t where t binds none and its children are atoms or bind none and
    have atoms for children (a linear map's right side, lmCompose(lmScale(k), Dc): half the
    lets of a Jacobian), read off directly; else None (ChainFreeVars' stack and memo)."""
    children = _BINDER_FREE_CHILDREN
    kids = children[type(t)]
    if kids is None:
        return None
    out = set()
    for k in kids(t):
        kind = type(k)
        if kind is Var:
            out.add(k)
        elif kind is not Const:
            grand = children[kind]
            if grand is None:
                return None
            for g in grand(k):
                kind = type(g)
                if kind is Var:
                    out.add(g)
                elif kind is not Const:
                    return None
    return out


def _fv_children(n: Term):
    """The children whose free variables make up n's (a binder's own variable is not one)."""
    cls = type(n)
    if cls is Let:
        return (n.rhs, n.body)
    if cls is Build:
        return (n.size, n.body)
    if cls is Call:
        return n.args
    if not isinstance(n, Term):
        return ()
    if getattr(n, "LAMBDAS", ()):  # a lambda's binder is not a free variable
        binders = {f for f, _ in n.LAMBDAS}
        return [getattr(n, f) for f in n._fields if f not in binders and isinstance(getattr(n, f), Term)]
    return term_children(n)


def _fv_lambdas(n: Term, of) -> frozenset:
    """The free variables of a term with lambdas (class attribute LAMBDAS: pairs of binder
    and body fields, catad.lang.fold): its operands', and each body's but its binder."""
    binders = {f for f, _ in n.LAMBDAS}
    bodies = {b: v for v, b in n.LAMBDAS}
    out: frozenset = frozenset()
    for f in n._fields:
        k = getattr(n, f)
        if f in binders or not isinstance(k, Term):
            continue
        fv = of(k)
        out = out | (fv - {getattr(n, bodies[f])} if f in bodies else fv)
    return out


def subterms(t: Term) -> list[Term]:
    """Every distinct term node of t (not its types), each once, without recursion."""
    seen: set[int] = set()
    out, stack = [], [t]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n)
        if type(n) is not Var and type(n) is not Const:
            stack.extend(term_children(n))
    return out


def compound_subterms(t: Term) -> Iterator[Term]:
    """The distinct term nodes of t that are not atoms, each once, lazily (subterms without
    its list and its atoms: a walk that may stop early, or reads only these)."""
    seen: set[int] = set()
    stack = [t]
    while stack:
        n = stack.pop()
        cls = type(n)
        if cls is Var or cls is Const or id(n) in seen:
            continue
        seen.add(id(n))
        yield n
        stack.extend(CHILDREN[cls](n))


def var_names(*terms: Term) -> set[str]:
    """The names of every variable in the terms, bound or free (each other node visited once)."""
    names: set[str] = set()
    seen: set[int] = set()
    stack = list(terms)
    while stack:
        n = stack.pop()
        cls = type(n)
        if cls is Var:
            names.add(n.name)
        elif cls is not Const and id(n) not in seen:
            seen.add(id(n))
            stack.extend(term_children(n))
    return names


def failing(call: Term) -> Term:
    """call (a Call of a user function, whose body runs a check), known to may_fail: a call's
    checks are in the callee's body, which may_fail does not see."""
    _SET_FAILS(call, True)
    return call


# The calls that may raise when they run: ``check`` (a shape or bounds check), and the
# primitives whose own implementation raises on some values (np.linalg.inv's LinAlgError of a
# singular matrix): the registry adds each one registered with `raises` (catad.primitives).
FAILING: set[str] = {"check"}


def may_fail(t: Term) -> bool:
    """Does evaluating t run a call that may raise (a ``check``, or a primitive in FAILING)?
    Such a let is kept even when nothing uses its value: Python would have raised there.
    The answer is kept on each node (the passes ask it of the same right sides again and
    again), computed children first on an explicit stack."""
    fails = getattr(t, "_fails", None)
    if fails is not None:
        return fails
    if type(t) is Call:  # most questions: a call of atoms, answered without the stack
        for a in t.args:
            if type(a) is not Var and type(a) is not Const:
                break
        else:
            fails = t.fn in FAILING
            _SET_FAILS(t, fails)
            return fails
    stack = [t]
    while stack:
        n = stack[-1]
        if getattr(n, "_fails", None) is not None:
            stack.pop()
            continue
        kids = term_children(n)
        # an atom never fails (and keeps no answer: most children are atoms)
        todo = [k for k in kids if type(k) is not Var and type(k) is not Const and getattr(k, "_fails", None) is None]
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        _SET_FAILS(n, (isinstance(n, Call) and n.fn in FAILING) or any(getattr(k, "_fails", False) for k in kids))
    return t._fails


def rename(t: Term, env: dict) -> Term:
    """t with the variables of env (Var -> Var) renamed, where the names of t's own binders
    are not among env's targets (the front end's names are unique)."""
    return rebuilt(t, lambda n: env.get(n, n) if type(n) is Var else n)


def rebuilt(t: Term, atom: Callable[[Term], Term], node: Callable[[Term], Term] | None = None) -> Term:
    """t with each atom (Var, Const) a made atom(a), and each compound node, its children
    rebuilt, made node(n) of it (n itself where node is None). Post-order on an explicit stack,
    each distinct object once; a node whose children are all kept is kept (before node).
    (A stack entry holds the node's children once they are read: None before its first visit.
    The children tables are read here, not through term_children and with_children: the front
    end renames each statement's element as it fuses it, the inliner each body it puts in.)"""
    memo: dict[int, Term] = {}
    children, with_kids = CHILDREN, WITH_CHILDREN
    stack: list = [(t, None)]
    while stack:
        n, kids = stack.pop()
        if kids is None:
            if id(n) in memo:
                continue
            cls = type(n)
            if cls is Var or cls is Const:
                memo[id(n)] = atom(n)
                continue
            kids = children[cls](n)
            stack.append((n, kids))
            for k in kids:
                if id(k) not in memo:
                    stack.append((k, None))
            continue
        new = [memo[id(k)] for k in kids]
        out = with_kids[type(n)](n, new) if any(map(is_not, new, kids)) else n
        memo[id(n)] = out if node is None else node(out)
    return memo[id(t)]
