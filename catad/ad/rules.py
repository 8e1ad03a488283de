"""Jacobians of primitive calls as linear maps (notes Fig. 2).

``jacobian_of_call(p, xs, dxs, ...)`` is  dp(xs) o (dx1 x ... x dxk): the partial
Jacobian of primitive p at its (atomic) arguments xs composed with the maps dxs of
the arguments. Scalar primitives use their partial derivatives, derived once from
the registry's SymPy expression (:mod:`catad.primitives.derivatives`):

    d*(x, y) = S(y) |><| S(x)                      (notes Fig. 2)

Array primitives use the leaves of :mod:`catad.linearmaps`: the Jacobian of
``index(i, v)`` is ``lmIndex(i)`` (whose transpose is an index update, never a
one-hot vector), of ``sum`` is ``lmSum``, of ``vmax`` the index of the first
maximal element. Arguments without a tangent (Int, Bool) and zero partials are
dropped, so ``index(i, v)`` gives ``lmCompose(lmIndex(i), Dv)`` rather than
``lmCompose(lmHCat(0, lmIndex(i)), lmVCat(0, Dv))``.
"""
from __future__ import annotations

from typing import Callable

from ..lang.terms import Term, iconst
from ..lang.types import Float, Type, Vec
from ..linearmaps import terms as L
from ..errors import CatadError
from ..primitives import prim
from ..primitives.derivatives import partials

Bind = Callable[[str, Term], Term]


def _combine(parts: list[tuple[Term, Term]], src: Type, tgt: Type) -> Term:
    """(m1 |><| ... |><| mk) o (d1 x ... x dk), omitting pairs whose map or tangent is zero."""
    live = [(m, d) for m, d in parts if not isinstance(m, L.Zero) and not isinstance(d, L.Zero)]
    if not live:
        return L.Zero(src, tgt)
    if len(live) == 1:
        m, d = live[0]
        return d if isinstance(m, L.One) else L.Compose(m, d)
    return L.Compose(L.HCat(tuple(m for m, _ in live)), L.VCat(tuple(d for _, d in live)))


def _size(v: Term, bind: Bind) -> Term:
    return bind("n", prim("size", v))


def jacobian_of_call(fn: str, xs: tuple[Term, ...], dxs: list[Term], src: Type, bind: Bind) -> Term:
    tgt = prim(fn, *xs).type
    rule = _ARRAY_RULES.get(fn, _scalar_rule)
    if fn in _NO_RULE:
        raise CatadError(f"catad cannot differentiate {fn}, which a derivative program computes, again: "
                         f"{_NO_RULE[fn]}", construct="second derivative",
                         hint="differentiate the function once, or compute this derivative another way "
                              "(e.g. by central differences of catad's gradient)")
    maps = rule(fn, xs, tgt, bind)
    if isinstance(maps, L.LM):  # one map from the tuple of all the arguments' tangents
        if all(isinstance(d, L.Zero) for d in dxs):
            return L.Zero(src, tgt)
        return L.Compose(maps, L.VCat(tuple(dxs)))
    return _combine(list(zip(maps, dxs)), src, tgt)


# primitives that only derivative programs hold, with no derivative of their own yet
_LINALG_NOTE = ("the second derivatives of np.linalg's det, slogdet, inv, solve and cholesky are not "
                "supported yet (their first derivatives are opaque maps)")
_NO_RULE = {**{name: _LINALG_NOTE for name in ("logdet_jvp", "logdet_vjp", "inv_jvp", "inv_vjp", "lsolve",
                                               "lsolve_t", "neg_matmul", "neg_matmul_t", "chol_jvp", "chol_vjp")},
            "scatter_add": "the cotangent of a gather (v[idx] for an array of indices) has no derivative rule yet"}


def _scalar_rule(fn, xs, tgt, bind):
    """d p(xs) = S(dp/dx1) |><| ... |><| S(dp/dxk)."""
    return [L.Zero(x.type, tgt) if k is None or x.type != Float else L.Scale(bind("k", k), Float)
            for x, k in zip(xs, partials(fn, xs))]


def _j_index(fn, xs, tgt, bind):
    i, v = xs
    return [L.Zero(i.type, tgt), L.Index(i, _size(v, bind), v.type)]


def _j_sum(fn, xs, tgt, bind):
    (v,) = xs
    return [L.Sum(_size(v, bind), v.type)]


def _j_reduce(fn, xs, tgt, bind):
    (v,) = xs
    at = bind("i", prim("argmax" if fn == "vmax" else "argmin", v))
    return [L.Index(at, _size(v, bind), v.type)]


def _j_vector(fn, xs, tgt, bind):
    n = iconst(len(xs))
    return [L.IndexUpdate(iconst(k), n, tgt) for k in range(len(xs))]


# ---------------------------------------------------------------- linear algebra
# The standard matrix-calculus results as opaque maps (lmLinear: a forward and a transposed
# action, catad/primitives/linalg.py), at primal values bound once. Nothing forms an inverse
# where a solve will do: the actions of det's and solve's derivatives are solves.

M = Vec(Vec(Float))


def _linear(fwd: str, rev: str, args: tuple[Term, ...], s: Type, t: Type) -> L.Linear:
    return L.Linear(fwd, rev, args, s, t)


def _logdet(a: Term) -> L.Linear:
    """d log|det A| = tr(A^{-1} dA); its transpose g -> g A^{-T}."""
    return _linear("logdet_jvp", "logdet_vjp", (a,), M, Float)


def _j_det(fn, xs, tgt, bind):
    """d det A = det(A) tr(A^{-1} dA): the log-determinant's map scaled by det(A)."""
    (a,) = xs
    return [L.Compose(L.Scale(bind("d", prim("det", a)), Float), _logdet(a))]


def _j_slogdet(fn, xs, tgt, bind):
    """d (sign, log|det A|) = (0, tr(A^{-1} dA)): the sign is locally constant."""
    (a,) = xs
    return [L.VCat((L.Zero(M, Float), _logdet(a)))]


def _j_inv(fn, xs, tgt, bind):
    """d A^{-1} = -B dA B at B = A^{-1}; transpose G -> -B^T G B^T."""
    (a,) = xs
    return [_linear("inv_jvp", "inv_vjp", (bind("B", prim("inv", a)),), M, M)]


def _j_solve(fn, xs, tgt, bind):
    """x = A^{-1} b: dx = A^{-1} (db - dA x), one map from (dA, db), so that the forward
    tangent takes one solve with A and the cotangent one with A^T (y = A^{-T} g, then
    (-y x^T, y)), whichever arguments vary."""
    a, b = xs
    x = bind("x", prim("solve", a, b))
    rhs = L.HCat((_linear("neg_matmul", "neg_matmul_t", (x,), M, b.type), L.One(b.type)))
    return L.Compose(_linear("lsolve", "lsolve_t", (a,), b.type, b.type), rhs)


def _j_cholesky(fn, xs, tgt, bind):
    """dL = L Phi(L^{-1} sym(dA) L^{-T}) (Murray 2016), sym(dA) made of dA's lower triangle."""
    (a,) = xs
    return [_linear("chol_jvp", "chol_vjp", (bind("L", prim("cholesky", a)),), M, M)]


# ---------------------------------------------------------------- tangent operations
# A derivative program is a program (issue 17): differentiated again, its tangent operations
# are ordinary linear or bilinear functions of their arguments, whose tangent arguments are now
# primal values (possibly the zero tangent or an index update at run time). Their partials
# with respect to a tangent argument are the products of two tangents (touter, tdot, tprod),
# given as lmLinear maps by a forward and a transposed action.

def _by(fwd: str, rev: str, coefficient: Term, s: Type, t: Type) -> L.Linear:
    """x |-> fwd(coefficient, x), whose transpose is r |-> rev(coefficient, r)."""
    return _linear(fwd, rev, (coefficient,), s, t)


def _j_tadd(fn, xs, tgt, bind):
    """d (a + b) = da + db."""
    return [L.One(tgt), L.One(tgt)]


def _j_tscale(fn, xs, tgt, bind):
    """d (k a) = dk a + k da: the map dk |-> dk a (touter, transpose <a, r>) and lmScale(k)."""
    k, a = xs
    return [_by("touter", "tdot", a, Float, tgt), L.Scale(k, tgt)]


def _j_touter(fn, xs, tgt, bind):
    """touter(a, k) = k a: d = k da + dk a."""
    a, k = xs
    return [L.Scale(k, tgt), _by("touter", "tdot", a, Float, tgt)]


def _j_tdot(fn, xs, tgt, bind):
    """d <a, r> = <da, r> + <a, dr>; the transpose of x |-> <c, x> is k |-> k c."""
    a, r = xs
    return [_by("tdot", "touter", r, a.type, Float), _by("tdot", "touter", a, a.type, Float)]


def _j_tmul(fn, xs, tgt, bind):
    """d (v * x) = x * dv + v * dx (elementwise; both maps are their own transposes)."""
    v, x = xs
    return [_by("tprod", "tprod", x, tgt, tgt), L.ScaleVec(v)]


def _j_tprod(fn, xs, tgt, bind):
    """d (a * b) = b * da + a * db."""
    a, b = xs
    return [_by("tprod", "tprod", b, tgt, tgt), _by("tprod", "tprod", a, tgt, tgt)]


def _j_tsum(fn, xs, tgt, bind):
    (v,) = xs
    return [L.Sum(_size(v, bind), v.type)]


def _j_update(fn, xs, tgt, bind):
    """update(i, r, n) is linear in r: its map is the index update itself (transpose: r[i])."""
    i, r, n = xs
    return [L.Zero(i.type, tgt), L.IndexUpdate(i, n, tgt), L.Zero(n.type, tgt)]


def _j_densify(fn, xs, tgt, bind):
    """densify(t, like) is t (another representation of the same tangent); like gives a shape."""
    t, like = xs
    return [L.One(tgt), L.Zero(like.type, tgt)]


_ARRAY_RULES = {"index": _j_index, "sum": _j_sum, "vmax": _j_reduce, "vmin": _j_reduce, "vector": _j_vector,
                "det": _j_det, "slogdet": _j_slogdet, "inv": _j_inv, "solve": _j_solve, "cholesky": _j_cholesky,
                "tadd": _j_tadd, "tscale": _j_tscale, "touter": _j_touter, "tdot": _j_tdot, "tmul": _j_tmul,
                "tprod": _j_tprod, "tsum": _j_tsum, "update": _j_update, "densify": _j_densify}


__all__ = ["jacobian_of_call"]
