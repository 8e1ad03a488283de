"""fold and its derivatives FFold and RFold as core terms (notes Section 8, Fig. 12, 14, 15),
and the trip count of a while loop (WhileCount), which makes a while loop a fold.

    fold (\\t. e) acc v : a          t : (a, b), e : a, acc : a, v : Vec b

is the final accumulator of ``acc' = e[t := (acc, v[i])]`` for i in 0..n-1. FFold and RFold
are the terms the application of an ``lmFold`` becomes (Fig. 13): the forward and reverse
derivatives of a fold as loops, with the derivative of the body as a second lambda.

A lambda is a binder field and a body field; each class lists its lambdas in ``LAMBDAS``,
which is how the generic passes (free variables, dead code, CSE, inlining) see the scopes:
the body is a scope where the binder is bound, evaluated once per iteration.

Evaluation (:func:`eval_fold`, :func:`eval_ffold`, :func:`eval_rfold`) iterates, so a fold
of a million elements needs no deep recursion; the reverse one keeps every accumulator of
the forward loop (Fig. 15 without its recursion: the recursion's stack is that list).
"""
from __future__ import annotations

from typing import Any, Callable

from .._node import node
from ..errors import CatadTypeError, Loc
from .terms import Const, Term, Var
from .types import Bool, Int, Tuple as TupleT, Type, Vec


def _elem(v: Term, what: str) -> Type:
    if not isinstance(v.type, Vec):
        raise CatadTypeError(f"{what} folds over a Vec, got a {v.type}", construct=what)
    return v.type.elem


@node
class Fold(Term):
    """fold (\\var. body) acc vec (Fig. 12): the type is the accumulator's."""

    acc: Term
    vec: Term
    var: Var
    body: Term
    loc: Loc | None = None

    LAMBDAS = (("var", "body"),)

    def __post_init__(self):
        super().__post_init__()
        self._set_type(self.acc.type)


@node
class FFold(Term):
    """FFold (\\var. body) acc vec (\\dvar. dbody) dacc dvec : da (Fig. 12, 14): the tangent
    of fold's result. dvar : ((a, b), (da, db)) and dbody : da, the tangent of one step."""

    acc: Term
    vec: Term
    var: Var
    body: Term
    dacc: Term
    dvec: Term
    dvar: Var
    dbody: Term
    loc: Loc | None = None

    LAMBDAS = (("var", "body"), ("dvar", "dbody"))

    def __post_init__(self):
        super().__post_init__()
        self._set_type(self.dbody.type)


@node
class RFold(Term):
    """RFold (\\var. body) (\\rvar. rbody) acc vec dr : (ds, (da, Vec db)) (Fig. 12, 15): the
    cotangents of fold's environment s, its initial accumulator and its vector, given dr
    that of its result. rvar : ((a, b), da) and rbody : (ds, (da, db)), one step backwards."""

    acc: Term
    vec: Term
    var: Var
    body: Term
    dr: Term
    rvar: Var
    rbody: Term
    loc: Loc | None = None

    LAMBDAS = (("var", "body"), ("rvar", "rbody"))

    def __post_init__(self):
        super().__post_init__()
        rt = self.rbody.type
        if not (isinstance(rt, TupleT) and len(rt.items) == 2 and isinstance(rt.items[1], TupleT)
                and len(rt.items[1].items) == 2):
            raise CatadTypeError(f"the body of RFold gives (ds, (da, db)), not {rt}", construct="RFold")
        ds, (da, db) = rt.items[0], rt.items[1].items
        self._set_type(TupleT((ds, TupleT((da, Vec(db))))))


@node
class Scan(Term):
    """scan (\\var. body) acc vec : Vec a, every accumulator of fold (\\var. body) acc vec:
    [acc_0 = acc, acc_1, ..., acc_n] for n = size(vec), whose last is fold's value. What a
    loop's derivatives are written with when they are differentiated again (issue 17): FFold
    and RFold keep their accumulators inside (:func:`as_scans`), and the reverse derivative of
    a scan is a scan backwards over the accumulators it kept (catad.rewrite.catalogue: rev-scan)."""

    acc: Term
    vec: Term
    var: Var
    body: Term
    loc: Loc | None = None

    LAMBDAS = (("var", "body"),)

    def __post_init__(self):
        super().__post_init__()
        self._set_type(Vec(self.acc.type))


@node
class WhileCount(Term):
    """count (\\cvar. cond) (\\var. body) acc : Int, the number of steps of

        while cond[cvar := (acc, i)]: acc = body[var := (acc, i)]; i = i + 1

    from acc (i counts from 0): how a Python ``while`` loop's trip count is found before it
    runs as a fold over ``range(count)`` (catad/frontend/loops.py). An Int, so its derivative
    is zero and the fold carries the loop's derivatives (notes Fig. 13-15 unchanged). The two
    lambdas take the fold's step (acc, i); each has its own binder, as renaming passes need."""

    acc: Term
    cvar: Var
    cond: Term
    var: Var
    body: Term
    loc: Loc | None = None

    LAMBDAS = (("cvar", "cond"), ("var", "body"))

    def __post_init__(self):
        super().__post_init__()
        self._set_type(Int)


FOLDS = (Fold, FFold, RFold, Scan, WhileCount)


def lambdas(t: Term) -> tuple[tuple[Var, Term], ...]:
    """The (binder, body) pairs of t's lambdas; () for a term without any."""
    return tuple((getattr(t, v), getattr(t, b)) for v, b in getattr(type(t), "LAMBDAS", ()))


def operands(t: Term) -> list[Term]:
    """t's children outside its lambdas (evaluated once, before the loop)."""
    inside = {f for pair in getattr(type(t), "LAMBDAS", ()) for f in pair}
    return [getattr(t, f) for f in t._fields if f not in inside and isinstance(getattr(t, f), Term)]


# ---------------------------------------------------------------- typing (Fig. 12)

def check_fold(t: Term, check: Callable[[Term, Var | None], Type]) -> Type:
    """t's type, checking it by Fig. 12; check(term, binder) types a term (a lambda's body
    with its binder in scope)."""
    if isinstance(t, WhileCount):
        return _check_while(t, check)
    acc, vec = check(t.acc, None), check(t.vec, None)
    if isinstance(t, Scan):
        _expect(t.var.type, TupleT((acc, _elem(t.vec, "scan"))), "the variable of scan's lambda")
        _expect(check(t.body, t.var), acc, "the body of scan's lambda")
        return t.type
    b = _elem(t.vec, type(t).__name__)
    step = TupleT((acc, b))
    _expect(t.var.type, step, f"the variable of {type(t).__name__}'s lambda")
    _expect(check(t.body, t.var), acc, f"the body of {type(t).__name__}'s lambda")
    if isinstance(t, FFold):
        dacc, dvec = check(t.dacc, None), check(t.dvec, None)
        _expect(dacc, acc, "FFold's dacc")
        _expect(dvec, vec, "FFold's dv")
        _expect(t.dvar.type, TupleT((step, TupleT((acc, b)))), "FFold's t_dt")
        _expect(check(t.dbody, t.dvar), acc, "FFold's e_dt")
    if isinstance(t, RFold):
        _expect(check(t.dr, None), acc, "RFold's dr")
        _expect(t.rvar.type, TupleT((step, acc)), "RFold's t_dr")
        rb = check(t.rbody, t.rvar)
        _expect(rb.items[1], TupleT((acc, b)), "the (da, db) of RFold's e_dr")
    return t.type


def _check_while(t: WhileCount, check: Callable[[Term, Var | None], Type]) -> Type:
    step = TupleT((check(t.acc, None), Int))
    _expect(t.cvar.type, step, "the variable of a while count's condition")
    _expect(t.var.type, step, "the variable of a while count's step")
    _expect(check(t.cond, t.cvar), Bool, "the condition of a while count")
    _expect(check(t.body, t.var), step.items[0], "the step of a while count")
    return t.type


def _expect(got: Type, want: Type, what: str) -> None:
    if got != want:
        raise CatadTypeError(f"{what} has type {got}, expected {want}", construct="fold")


# ---------------------------------------------------------------- reference evaluation

def _split(x: Any, n: int) -> tuple:
    from ..tangents import ZERO
    return (ZERO,) * n if x is ZERO else tuple(x)


def _element(v: Any, i: int) -> Any:
    from ..tangents import tget
    return v[i] if isinstance(v, list) else tget(v, i)


def eval_fold(t: Fold, ev: Callable, ev_in: Callable) -> Any:
    """ev(term) evaluates in the current scope; ev_in(body, var, value) with var bound."""
    acc, v = ev(t.acc), ev(t.vec)
    for i in range(len(v)):
        acc = ev_in(t.body, t.var, (acc, v[i]))
    return acc


def eval_ffold(t: FFold, ev: Callable, ev_in: Callable) -> Any:
    """Fig. 14 as a loop: the tangent is carried along with the accumulator."""
    acc, v, dacc, dv = ev(t.acc), ev(t.vec), ev(t.dacc), ev(t.dvec)
    for i in range(len(v)):
        x = (acc, v[i])
        dacc = ev_in(t.dbody, t.dvar, (x, (dacc, _element(dv, i))))
        acc = ev_in(t.body, t.var, x)
    return dacc


def eval_rfold(t: RFold, ev: Callable, ev_in: Callable) -> Any:
    """Fig. 15 as two loops: forward keeping every accumulator, then backwards summing the
    environment's cotangents and collecting each element's."""
    from ..tangents import Acc
    from .evaluate import make_vector
    acc, v, dacc = ev(t.acc), ev(t.vec), ev(t.dr)
    n = len(v)
    accs = []
    for i in range(n):
        accs.append(acc)
        acc = ev_in(t.body, t.var, (acc, v[i]))
    ds, dbs = Acc(), [None] * n
    for i in reversed(range(n)):
        step_ds, rest = _split(ev_in(t.rbody, t.rvar, ((accs[i], v[i]), dacc)), 2)
        dacc, dbs[i] = _split(rest, 2)
        ds.add(step_ds)
    return ds.value(), (dacc, make_vector(dbs, t.type.items[1].items[1]))


def eval_scan(t: Scan, ev: Callable, ev_in: Callable) -> Any:
    """fold, keeping every accumulator (a loop)."""
    from .evaluate import make_vector
    acc, v = ev(t.acc), ev(t.vec)
    states = [acc]
    for i in range(len(v)):
        acc = ev_in(t.body, t.var, (acc, v[i]))
        states.append(acc)
    return make_vector(states, t.type)


def eval_while_count(t: WhileCount, ev: Callable, ev_in: Callable) -> int:
    """The steps a while loop takes from acc (a loop, as Python runs it)."""
    acc, i = ev(t.acc), 0
    while ev_in(t.cond, t.cvar, (acc, i)):
        acc = ev_in(t.body, t.var, (acc, i))
        i += 1
    return i


EVALUATORS = {Fold: eval_fold, FFold: eval_ffold, RFold: eval_rfold, Scan: eval_scan, WhileCount: eval_while_count}


# ---------------------------------------------------------------- derivative loops as scans

_FRESH = __import__("itertools").count()


def _fresh(base: str, ty: Type) -> Var:
    """A binder no program names ('$' is in no source name, the counter in no other binder)."""
    return Var(f"{base}${next(_FRESH)}", ty)


def as_scans(t: Term) -> Term:
    """FFold and RFold, which only derivative programs hold, as loops without derivative lambdas
    (for a derivative program differentiated again, issue 17), the same value:

    FFold (\\t. e) acc v (\\t_dt. e_dt) dacc dv is the fold of the pairs (acc, dacc):

        snd (fold (\\u. let t = (fst (fst u), v[snd u]); t_dt = (t, (snd (fst u), dv[snd u]))
                        in (e, e_dt)) (acc, dacc) (range n))

    RFold (\\t. e) (\\t_dr. e_dr) acc v dr keeps the accumulators S of the forward loop in a scan,
    then the cotangents C of the accumulators in a scan backwards (C[k] is that of S[n - k]),
    and each step's cotangents of the environment and of its element in builds over the steps:

        let S = scan (\\t. e) acc v
        let C = scan (\\u. let j = n - 1 - snd u in fst (snd e_dr[t_dr := ((S[j], v[j]), fst u)])) dr (range n)
        let R = build(n, \\i. e_dr[t_dr := ((S[i], v[i]), C[n - 1 - i])])
        (tsum(build(n, \\i. fst R[i])), (C[n], build(n, \\i. snd (snd R[i]))))

    Tangent accumulators are densified (the zero tangent as zeros shaped like the primal), so
    that a scan keeps arrays (catad.primitives: densify)."""
    from ..primitives import prim
    from .terms import Build, Get, Let, Tuple, make_lets
    lets = []

    def atom(x: Term, base: str) -> Term:
        if isinstance(x, Var) or type(x).__name__ == "Const":
            return x
        v = _fresh(base, x.type)
        lets.append((v, x))
        return v

    vec = atom(t.vec, "v")
    n = _fresh("n", Int)
    lets.append((n, prim("size", vec)))
    k = _fresh("k", Int)
    steps = Build(n, k, k)
    if isinstance(t, FFold):
        dvec = atom(t.dvec, "dv")
        a = t.acc.type
        u = _fresh("u", TupleT((TupleT((a, a)), Int)))
        j, st, b = _fresh("j", Int), _fresh("s", TupleT((a, a))), _fresh("b", a)
        body = make_lets([(j, Get(1, u)), (st, Get(0, u)),
                          (t.var, Tuple((Get(0, st), prim("index", j, vec)))),
                          (b, t.body),
                          (t.dvar, Tuple((t.var, Tuple((Get(1, st), prim("index", j, dvec))))))],
                         Tuple((b, prim("densify", t.dbody, b))))
        acc = atom(t.acc, "acc")
        fold = Fold(Tuple((acc, prim("densify", t.dacc, acc))), steps, u, body)
        return make_lets(lets, Get(1, fold))
    assert isinstance(t, RFold), type(t).__name__
    a = t.acc.type
    S = _fresh("S", Vec(a))
    lets.append((S, Scan(t.acc, vec, t.var, t.body)))

    def one_less(x: Term) -> Term:
        return prim("sub", prim("sub", n, x), Const(1, Int))
    u = _fresh("u", TupleT((a, Int)))
    j = _fresh("j", Int)
    back = make_lets([(j, one_less(Get(1, u))),
                      (t.rvar, Tuple((Tuple((prim("index", j, S), prim("index", j, vec))), Get(0, u))))],
                     prim("densify", Get(0, Get(1, t.rbody)), prim("index", j, S)))
    C = _fresh("C", Vec(a))
    lets.append((C, Scan(prim("densify", t.dr, prim("index", n, S)), steps, u, back)))
    i = _fresh("i", Int)
    each = make_lets([(t.rvar, Tuple((Tuple((prim("index", i, S), prim("index", i, vec))),
                                      prim("index", one_less(i), C))))], t.rbody)
    R = _fresh("R", Vec(t.rbody.type))
    lets.append((R, Build(n, i, each)))
    i2, i3 = _fresh("i", Int), _fresh("i", Int)
    ds = prim("tsum", Build(n, i2, Get(0, prim("index", i2, R))))
    dbs = Build(n, i3, Get(1, Get(1, prim("index", i3, R))))
    return make_lets(lets, Tuple((ds, Tuple((prim("index", n, C), dbs)))))


__all__ = ["FOLDS", "EVALUATORS", "FFold", "Fold", "RFold", "Scan", "WhileCount", "as_scans", "check_fold", "lambdas",
           "operands"]
