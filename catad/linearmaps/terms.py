"""Linear-map terms (notes Fig. 3): zero, one, scale, compose, vcat, hcat, plus, vcatv,
hcatv, transpose, and the leaves that array primitives need (index, its transpose the
index update, sum and its transpose broadcast, elementwise scaling by an array).

A linear map term is a core term of type ``S -o T`` (``LinMap(S, T)``): it can be
let-bound, returned in a tuple, chosen by an ``if`` or built in a ``build`` like any
other value, which is how the Jacobian programs of Fig. 6-8 are written. Its
coefficients (the k of Scale(k), the i of an index) are core terms over the
primal variables. Evaluating a Jacobian program replaces them by constants, giving
a *linear-map value*: the same nodes with ``Const`` coefficients, which
:mod:`catad.linearmaps.semantics` applies forward and in reverse.
"""
from __future__ import annotations

from typing import Any, Callable

from .._node import node
from ..errors import CatadTypeError
from ..lang.terms import _SET_TYPE, Const, Term, Var
from ..lang.types import Float, Int, LinMap, Tuple as TupleT, Type, Vec
from ..primitives import prim


# The maps' __post_init__ check and set their type only: Node's own __post_init__ does nothing,
# so none calls super()'s (the AD and the rules make a map at every step), and types, interned,
# are compared by identity (what Type's == is).
class LM(Term):
    """A linear-map term; `src` and `tgt` are the primal types of its tangent spaces."""

    __slots__ = ()

    @property
    def src(self) -> Type:
        return self.type.src

    @property
    def tgt(self) -> Type:
        return self.type.tgt

    def _set_lm_type(self, src: Type, tgt: Type) -> None:
        # types are interned and kept (lang.types._Interned): a pair of them is known by their
        # ids, so the map type of two known types is read from a dict, not made through the
        # interning metaclass (every linear-map node the AD and the rules make asks)
        key = (id(src), id(tgt))
        t = _LM_TYPES.get(key)
        if t is None:
            t = _LM_TYPES[key] = LinMap(src, tgt)
        _SET_TYPE(self, t)

    def eval_with(self, ev):
        return evaluate_lm(self, ev)

    def show_with(self, show) -> str:
        from .printer import show_lm
        return show_lm(self, show)


_LM_TYPES: dict[tuple[int, int], LinMap] = {}  # (id(src), id(tgt)) of interned types -> LinMap(src, tgt)


def _lm_type(t: Term, what: str) -> LinMap:
    if not isinstance(t.type, LinMap):
        raise CatadTypeError(f"{what} expects a linear map, got a {t.type}", construct="linear map")
    return t.type


@node
class Zero(LM):
    """0 : S -o T."""

    s: Type
    t: Type

    def __post_init__(self):
        self._set_lm_type(self.s, self.t)


@node
class One(LM):
    """1 : S -o S, the identity."""

    s: Type

    def __post_init__(self):
        self._set_lm_type(self.s, self.s)


@node
class Scale(LM):
    """S(k) : S -o S, multiplication by the Float k."""

    k: Term
    s: Type

    def __post_init__(self):
        if self.k.type is not Float:
            raise CatadTypeError(f"lmScale takes a Float, got {self.k.type}", construct="lmScale")
        self._set_lm_type(self.s, self.s)


@node
class ScaleVec(LM):
    """Elementwise multiplication by a fixed array v of the same shape (a diagonal map)."""

    v: Term

    def __post_init__(self):
        self._set_lm_type(self.v.type, self.v.type)


@node
class Compose(LM):
    """m1 o m2 : R -o T for m1 : S -o T and m2 : R -o S (apply m2 first)."""

    m1: Term
    m2: Term

    def __post_init__(self):
        a, b = _lm_type(self.m1, "lmCompose"), _lm_type(self.m2, "lmCompose")
        if a.src is not b.tgt:
            raise CatadTypeError(f"lmCompose of {a} after {b}", construct="lmCompose")
        self._set_lm_type(b.src, a.tgt)


@node
class VCat(LM):
    """m1 x ... x mn : S -o (T1, ..., Tn) (notes' lmVCat)."""

    items: tuple[Term, ...]

    def __post_init__(self):
        ts = [_lm_type(m, "lmVCat") for m in self.items]
        if not ts or any(t.src is not ts[0].src for t in ts):
            raise CatadTypeError("lmVCat needs one or more maps with a common source", construct="lmVCat")
        self._set_lm_type(ts[0].src, TupleT(tuple(t.tgt for t in ts)))


@node
class HCat(LM):
    """m1 |><| ... |><| mn : (S1, ..., Sn) -o T (notes' lmHCat)."""

    items: tuple[Term, ...]

    def __post_init__(self):
        ts = [_lm_type(m, "lmHCat") for m in self.items]
        if not ts or any(t.tgt is not ts[0].tgt for t in ts):
            raise CatadTypeError("lmHCat needs one or more maps with a common target", construct="lmHCat")
        self._set_lm_type(TupleT(tuple(t.src for t in ts)), ts[0].tgt)


@node
class Plus(LM):
    """m1 (+) m2 : S -o T."""

    m1: Term
    m2: Term

    def __post_init__(self):
        a, b = _lm_type(self.m1, "lmPlus"), _lm_type(self.m2, "lmPlus")
        if a is not b:
            raise CatadTypeError(f"lmPlus of {a} and {b}", construct="lmPlus")
        self._set_lm_type(a.src, a.tgt)


def _vec_of_maps(ms: Term, what: str) -> LinMap:
    t = ms.type
    if not (isinstance(t, Vec) and isinstance(t.elem, LinMap)):
        raise CatadTypeError(f"{what} takes a Vec of linear maps, got {t}", construct=what)
    return t.elem


@node
class VCatV(LM):
    """V(ms) : S -o Vec T for ms : Vec (S -o T)."""

    ms: Term

    def __post_init__(self):
        e = _vec_of_maps(self.ms, "lmVCatV")
        self._set_lm_type(e.src, Vec(e.tgt))


@node
class HCatV(LM):
    """H(ms) : Vec S -o T for ms : Vec (S -o T)."""

    ms: Term

    def __post_init__(self):
        e = _vec_of_maps(self.ms, "lmHCatV")
        self._set_lm_type(Vec(e.src), e.tgt)


@node
class Transpose(LM):
    """m^T : T -o S."""

    m: Term

    def __post_init__(self):
        a = _lm_type(self.m, "lmTranspose")
        self._set_lm_type(a.tgt, a.src)


@node
class Index(LM):
    """v |-> v[i] : Vec T -o T (the notes' H(one-hot), without the one-hot vector)."""

    i: Term
    n: Term
    s: Type  # Vec T

    def __post_init__(self):
        self._set_lm_type(self.s, self.s.elem)


@node
class IndexUpdate(LM):
    """x |-> the Vec T of size n that is x at i and 0 elsewhere: the transpose of Index.
    Applied in reverse it reads one element; applied forward its result is sparse."""

    i: Term
    n: Term
    s: Type  # Vec T

    def __post_init__(self):
        self._set_lm_type(self.s.elem, self.s)


@node
class Sum(LM):
    """v |-> sum(v) : Vec T -o T."""

    n: Term
    s: Type  # Vec T

    def __post_init__(self):
        self._set_lm_type(self.s, self.s.elem)


@node
class Broadcast(LM):
    """x |-> [x, ..., x] (n copies) : T -o Vec T, the transpose of Sum."""

    n: Term
    s: Type  # Vec T

    def __post_init__(self):
        self._set_lm_type(self.s.elem, self.s)


@node
class Linear(LM):
    """An opaque linear map given by two primitives of catad.primitives: its forward action
    `fwd` and its transposed action `rev`, at fixed primal values `args` (the Jacobians of the
    linear-algebra functions, e.g. dA -> -B dA B at B = inv(A)):

        lmLinear(fwd, rev, args) . x = fwd(*args, x)        r ._R lmLinear(fwd, rev, args) = rev(*args, r)

    and its transpose is lmLinear(rev, fwd, args). Both primitives take a symbolic zero or a
    sparse tangent. The pair must be adjoint: <fwd(*args, x), r> = <x, rev(*args, r)> (checked
    by tests/test_linalg.py for each pair the Jacobians use)."""

    fwd: str
    rev: str
    args: tuple[Term, ...]
    s: Type
    t: Type

    def __post_init__(self):
        for name, x, y in ((self.fwd, self.s, self.t), (self.rev, self.t, self.s)):
            got = prim(name, *self.args, zero_tangent(x)).type
            if got != y:
                raise CatadTypeError(f"lmLinear: {name} maps {x} to {got}, not {y}", construct="lmLinear")
        self._set_lm_type(self.s, self.t)


@node
class LMFold(LM):
    """lmFold (\\var. body) (\\var. dbody) acc vec : (s, (a, Vec b)) -o a (notes Fig. 12-13),
    the Jacobian of fold (\\var. body) acc vec with respect to its environment s (the
    variables its body reads), its initial accumulator and its vector. dbody : (s, (a, b)) -o a
    is the Jacobian of one step, body's, with respect to s and var.

    Its lambdas read variables of the enclosing scope, so its value (:meth:`eval_with`)
    closes over them: `closure` holds their values and acc's and vec's (None in a term)."""

    acc: Term
    vec: Term
    var: Var
    body: Term
    dbody: Term
    closure: Any = None

    LAMBDAS = (("var", "body"), ("var", "dbody"))

    def __post_init__(self):
        d = _lm_type(self.dbody, "lmFold")
        if not (isinstance(d.src, TupleT) and len(d.src.items) == 2):
            raise CatadTypeError(f"lmFold's step Jacobian has source (s, (a, b)), not {d.src}", construct="lmFold")
        s = d.src.items[0]
        self._set_lm_type(TupleT((s, TupleT((self.acc.type, self.vec.type)))), self.acc.type)

    @property
    def env_type(self) -> Type:
        """s, the fold's environment."""
        return self.src.items[0]

    def eval_with(self, ev):
        from ..lang.terms import free_vars
        free = (free_vars(self.body) | free_vars(self.dbody)) - {self.var}
        return self.replace(closure=FoldClosure({x: ev(x) for x in free}, ev(self.acc), ev(self.vec)))


@node
class LMScan(LM):
    """lmScan (\\var. dbody) S vec : (s, (a, Vec b)) -o Vec a, the Jacobian of scan (\\var. body)
    acc vec (catad.lang.fold.Scan) with respect to its environment s, its initial accumulator and
    its vector, at its accumulators S (the scan's value): the tangent of S[0] is dacc's, that of
    S[j + 1] is dbody . (ds, (dS[j], dv[j])) with var = (S[j], vec[j]). dbody : (s, (a, b)) -o a is
    the Jacobian of one step (as lmFold's); the forward loop is not run again (S holds it).

    Its value closes over dbody's free variables and S's and vec's values (`closure`, as lmFold's)."""

    states: Term
    vec: Term
    var: Var
    dbody: Term
    closure: Any = None

    LAMBDAS = (("var", "dbody"),)

    def __post_init__(self):
        d = _lm_type(self.dbody, "lmScan")
        if not (isinstance(d.src, TupleT) and len(d.src.items) == 2) or not isinstance(self.states.type, Vec):
            raise CatadTypeError(f"lmScan's step Jacobian has source (s, (a, b)), not {d.src}", construct="lmScan")
        s = d.src.items[0]
        self._set_lm_type(TupleT((s, TupleT((self.states.type.elem, self.vec.type)))), self.states.type)

    @property
    def env_type(self) -> Type:
        return self.src.items[0]

    def eval_with(self, ev):
        from ..lang.terms import free_vars
        free = free_vars(self.dbody) - {self.var}
        return self.replace(closure=FoldClosure({x: ev(x) for x in free}, ev(self.states), ev(self.vec)))


class FoldClosure:
    """The run-time part of an lmFold value: the lambdas' free variables and acc and v.
    Compared and hashed by identity (values hold arrays)."""

    __slots__ = ("env", "acc", "vec")

    def __init__(self, env: dict, acc: Any, vec: Any):
        self.env, self.acc, self.vec = env, acc, vec

    def __repr__(self) -> str:
        return "<closure>"


# ---------------------------------------------------------------- application (notes Fig. 3)

@node
class Apply(Term):
    """lmApply(m, x) = m . x, a tangent of m's target."""

    m: Term
    x: Term

    def __post_init__(self):  # (the sweeps make one at every step: no call but on an error)
        t = self.m.type
        _SET_TYPE(self, (t if type(t) is LinMap else _lm_type(self.m, "lmApply")).tgt)

    def eval_with(self, ev):
        from .semantics import apply
        return apply(ev(self.m), ev(self.x))

    def show_with(self, show) -> str:
        return f"lmApply({show(self.m)}, {show(self.x)})"


@node
class ApplyR(Term):
    """lmApplyR(r, m) = r ._R m, a cotangent of m's source."""

    r: Term
    m: Term

    def __post_init__(self):  # (the sweeps make one at every step: no call but on an error)
        t = self.m.type
        _SET_TYPE(self, (t if type(t) is LinMap else _lm_type(self.m, "lmApplyR")).src)

    def eval_with(self, ev):
        from .semantics import apply_reverse
        return apply_reverse(ev(self.m), ev(self.r))

    def show_with(self, show) -> str:
        return f"lmApplyR({show(self.r)}, {show(self.m)})"


def zero_tangent(t: Type) -> Const:
    """The symbolic zero of the tangent space of t."""
    from ..tangents import ZERO
    return Const(ZERO, t)


# ---------------------------------------------------------------- evaluation of coefficients

LM_FIELDS = ("m1", "m2", "m", "items")  # fields holding linear maps (not coefficients)


def _frozen(value: Any, ty: Type) -> Const:
    return Const(tuple(value) if isinstance(value, list) else value, ty)


def evaluate_lm(t: LM, ev: Callable[[Term], Any]) -> LM:
    """The linear-map value of t: every coefficient term evaluated by `ev` and frozen as a
    Const, every sub-map evaluated likewise (sub-maps that are values already are reused)."""
    changes = {}
    for f in t._fields:
        v = getattr(t, f)
        if f in LM_FIELDS:
            changes[f] = tuple(ev(x) for x in v) if isinstance(v, tuple) else ev(v)
        elif isinstance(v, Term) and not isinstance(v, Const):
            changes[f] = _frozen(ev(v), v.type)
        elif isinstance(v, tuple) and any(isinstance(x, Term) and not isinstance(x, Const) for x in v):
            changes[f] = tuple(x if isinstance(x, Const) else _frozen(ev(x), x.type) for x in v)  # lmLinear's args
    return t.replace(**changes) if changes else t


__all__ = ["Apply", "ApplyR", "zero_tangent", "LM", "Zero", "One", "Scale", "ScaleVec", "Compose", "VCat", "HCat", "Plus", "VCatV", "HCatV",
           "Transpose", "Index", "IndexUpdate", "Sum", "Broadcast", "Linear", "LMFold", "LMScan", "FoldClosure", "evaluate_lm", "Int"]
