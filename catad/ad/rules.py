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
    maps = rule(fn, xs, tgt, bind)
    if isinstance(maps, L.LM):  # one map from the tuple of all the arguments' tangents
        if all(isinstance(d, L.Zero) for d in dxs):
            return L.Zero(src, tgt)
        return L.Compose(maps, L.VCat(tuple(dxs)))
    return _combine(list(zip(maps, dxs)), src, tgt)


def _scalar_rule(fn, xs, tgt, bind):
    """d p(xs) = S(dp/dx1) |><| ... |><| S(dp/dxk)."""
    return [L.Zero(x.type, tgt) if k is None or x.type != Float else L.Scale(bind("k", k), Float)
            for x, k in zip(xs, partials(fn, xs))]


def _j_constant(fn, xs, tgt, bind):
    """A primitive whose derivative is zero (brentq's root, stop_gradient)."""
    return [L.Zero(x.type, tgt) for x in xs]


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


_ARRAY_RULES = {"index": _j_index, "sum": _j_sum, "vmax": _j_reduce, "vmin": _j_reduce, "vector": _j_vector,
                "brentq": _j_constant, "stop_gradient": _j_constant,
                "det": _j_det, "slogdet": _j_slogdet, "inv": _j_inv, "solve": _j_solve, "cholesky": _j_cholesky}


__all__ = ["jacobian_of_call"]
