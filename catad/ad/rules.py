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

from ..lang.terms import Const, Get, If, Term, iconst, is_float_one
from ..lang.types import Scalar, Float, Int, Tuple as TupleT, Type, Vec, rank
from ..linearmaps import terms as L
from ..errors import CatadError
from ..primitives import prim
from ..primitives.derivatives import partials
from ..primitives.fft import ACTIONS as _DFT_ACTIONS
from ..primitives.spectral import EIGVECS_AGAIN, SVALS_AGAIN, SVDVECS_AGAIN
from ..primitives.roots import IMPLICIT_MARKS, IMPLICIT_ZEROS, ORDERS

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


def jacobian_of_call(fn: str, xs: tuple[Term, ...], dxs: list[Term], src: Type, bind: Bind, tgt: Type) -> Term:
    """`tgt`: the call's type."""
    rule = _ARRAY_RULES.get(fn, _scalar_rule)
    opaque = rule is _scalar_rule and not _scalars(xs, tgt)
    if opaque and xs and _is_zero_tangent(xs[-1]):
        return L.Zero(src, tgt)  # an opaque map's action on the zero tangent: zero, whatever its primal values
    if fn in _NO_RULE or opaque:
        # an action of an opaque map (lmLinear) that a derivative program computes, or scatter_add
        reason = _NO_RULE.get(fn, _THIRD_NOTE if fn in _SECOND_ACTIONS else _OPAQUE_NOTE)
        raise CatadError(f"catad cannot differentiate {fn}, which a derivative program computes, again: "
                         f"{reason}", construct="higher derivative",
                         hint="differentiate the function fewer times, or compute this derivative another way "
                              "(e.g. by central differences of catad's gradient)")
    maps = rule(fn, xs, tgt, bind)
    if isinstance(maps, L.LM):  # one map from the tuple of all the arguments' tangents
        if all(isinstance(d, L.Zero) for d in dxs):
            return L.Zero(src, tgt)
        return L.Compose(maps, L.VCat(tuple(dxs)))
    return _combine(list(zip(maps, dxs)), src, tgt)


# primitives that only derivative programs hold, with no derivative of their own yet
_OPAQUE_NOTE = ("it has no derivative rule yet (the action of an opaque linear map, which a first derivative is "
                "made of)")
_THIRD_NOTE = ("the third derivatives of np.linalg's det, slogdet, inv, cholesky, eigh, eigvalsh and svd and of "
               "scipy.linalg's cholesky and expm are not supported yet (their second derivatives are opaque maps "
               "whose actions have no derivative rule; the solves' have)")
_SECOND_ACTIONS = {"det_hvp", "det_hvp_t", "det_vjp_da", "logdet_hvp", "logdet_hvp_t", "logdet_vjp_da", "inv_jvp_db", "inv_jvp_db_t", "inv_vjp_db",
                   "inv_vjp_db_t", "chol_jvp_dl", "chol_jvp_dl_t", "chol_vjp_dl", "chol_vjp_dl_t", "sp_chol_jvp_dc",
                   "sp_chol_jvp_dc_t", "sp_chol_vjp_dc", "sp_chol_vjp_dc_t", "expm_jvp_da", "expm_jvp_da_t",
                   "expm_vjp_da", "expm_vjp_da_t", "eigvals_jvp_dv", "eigvals_jvp_dv_t", "eigvals_vjp_dv",
                   "eigvals_vjp_dv_t", *SVALS_AGAIN, *EIGVECS_AGAIN, *SVDVECS_AGAIN}
_NO_RULE = {"scatter_add": "the cotangent of a gather (v[idx] for an array of indices) has no derivative rule yet"}


def _is_zero_tangent(t: Term) -> bool:
    from ..tangents import ZERO
    return isinstance(t, Const) and t.value is ZERO


def _scalars(xs: tuple[Term, ...], tgt: Type) -> bool:
    """Whether a call takes and gives scalars only (what partials derives)."""
    if not isinstance(tgt, Scalar):
        return False
    for x in xs:
        if not isinstance(x.type, Scalar):
            return False
    return True


def _scalar_rule(fn, xs, tgt, bind):
    """d p(xs) = S(dp/dx1) |><| ... |><| S(dp/dxk), where a partial that is the constant 1 is
    the identity 1, as the notes write the derivative of + (Fig. 2: d+(x, y) = 1 |><| 1), and
    one that is 1 or 0 as a condition says (max's, min's) is the identity or the zero map as it
    says: the argument not chosen adds nothing, even a tangent that is inf (0 * inf is NaN)."""
    return [L.Zero(x.type, tgt) if k is None or x.type != Float else L.One(Float) if is_float_one(k)
            else _selection(k, tgt, bind) or L.Scale(bind("k", k), Float) for x, k in zip(xs, partials(fn, xs))]


def _selection(k: Term, tgt: Type, bind) -> Term | None:
    """If(c, 1, 0) (or If(c, 0, 1)) as the map If(c, 1, 0) (If(c, 0, 1)); None for another partial."""
    if type(k) is not If or not all(type(b) is Const and b.type == Float and b.value in (0.0, 1.0)
                                    for b in (k.then, k.orelse)) or k.then.value == k.orelse.value:
        return None
    one, zero = L.One(Float), L.Zero(Float, tgt)
    return If(bind("c", k.cond), *((one, zero) if k.then.value == 1.0 else (zero, one)))


def _j_constant(fn, xs, tgt, bind):
    """A primitive whose derivative is zero (brentq's root, stop_gradient)."""
    return [L.Zero(x.type, tgt) for x in xs]


def _j_implicit_root(fn, xs, tgt, bind):
    """The marks of brentq's root and of its derivatives' order (catad/primitives/roots.py): a
    mark of order k is the identity on its value (a map applied by the mark of order k + 1) and
    zero in the root x it reads (applied by a zero mark of order k + 1); a zero mark is zero in
    each argument (the same). So every derivative program holds the marks of its order. The root
    is exact to the third derivative (catad/frontend/roots.py): the fourth is refused."""
    k = 0 if fn == "implicit_root" else int(fn.rsplit("_d", 1)[1])
    if k + 1 == ORDERS:
        raise CatadError("catad cannot differentiate a root of scipy.optimize.brentq a fourth time: its derivatives "
                         "are exact to the third (two Newton steps of the implicit function theorem)",
                         construct="higher derivative",
                         hint="differentiate the function that finds the root at most three times")
    x = xs[0]
    mark, zero = f"implicit_root_d{k + 1}", f"implicit_zero_d{k + 1}"
    if fn == "implicit_root":
        return [L.Linear(mark, mark, (x,), Float, Float)]
    if fn.startswith("implicit_root"):
        x, v = xs
        return [L.Linear(zero, zero, (x, v), Float, Float), L.Linear(mark, mark, (x,), Float, Float)]
    return [L.Linear(zero, zero, xs[:2], Float, Float)] * 3


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
    """d det A = tr(adj(A) dA) (Jacobi's formula; det(A) tr(A^{-1} dA) where A is regular, but
    also at a singular A, where the log-determinant's map is not defined)."""
    (a,) = xs
    return [_linear("det_jvp", "det_vjp", (a,), M, Float)]


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


# ---------------------------------------------------------------- linear algebra again
# A second derivative differentiates the actions above (issue 17). Each action is linear in its
# last argument (its map there is the action itself, an lmLinear with its transpose) and
# differentiable in the primal values it is taken at, where its map is another lmLinear at the
# first derivative's value: from d A^{-1} = -A^{-1} dA A^{-1} (Giles 2008), so that the solves
# stay solves. The products -dA x, -dA^T y, -M x and their transposes are closed under this;
# the maps of logdet, inv and cholesky in their matrix (logdet_hvp, ...) have no derivative of
# their own, so a third derivative through them is refused.

def _self(fn: str, rev: str, xs: tuple[Term, ...], s: Type, t: Type) -> L.Linear:
    """An action's map in its last argument: the action itself, at the other arguments."""
    return _linear(fn, rev, xs[:-1], s, t)


def _j_det_jvp(fn, xs, tgt, bind):
    """d tr(adj(A) dA) = d^2 det(A)[dA, E] + tr(adj(A) d(dA))."""
    a, da = xs
    return [_linear("det_hvp", "det_hvp_t", (a, da), M, Float), _self(fn, "det_vjp", xs, M, Float)]


def _j_det_vjp(fn, xs, tgt, bind):
    """d (g adj(A)^T) = g G(A, E) + dg adj(A)^T (G: d^2 det(A)[E, .] as a matrix)."""
    a, g = xs
    return [_linear("det_vjp_da", "det_vjp_da", (a, g), M, M), _self(fn, "det_jvp", xs, Float, M)]


def _j_logdet_jvp(fn, xs, tgt, bind):
    """d tr(A^{-1} dA) = -tr(A^{-1} E A^{-1} dA) + tr(A^{-1} d(dA))."""
    a, da = xs
    return [_linear("logdet_hvp", "logdet_hvp_t", (a, da), M, Float), _self(fn, "logdet_vjp", xs, M, Float)]


def _j_logdet_vjp(fn, xs, tgt, bind):
    """d (g A^{-T}) = -g A^{-T} E^T A^{-T} + dg A^{-T}."""
    a, g = xs
    return [_linear("logdet_vjp_da", "logdet_vjp_da", (a, g), M, M), _self(fn, "logdet_jvp", xs, Float, M)]


def _j_inv_jvp(fn, xs, tgt, bind):
    """d (-B X B) = -(E X B + B X E) - B dX B."""
    b, x = xs
    return [_linear("inv_jvp_db", "inv_jvp_db_t", (b, x), M, M), _self(fn, "inv_vjp", xs, M, M)]


def _j_inv_vjp(fn, xs, tgt, bind):
    """d (-B^T X B^T) = -(E^T X B^T + B^T X E^T) - B^T dX B^T."""
    b, x = xs
    return [_linear("inv_vjp_db", "inv_vjp_db_t", (b, x), M, M), _self(fn, "inv_jvp", xs, M, M)]


def _j_lsolve(fn, xs, tgt, bind):
    """d (A^{-1} x) = A^{-1} (-E y) + A^{-1} dx, y = A^{-1} x: solve's own form."""
    a, x = xs
    y = bind("y", prim("lsolve", a, x))
    solve = _self(fn, "lsolve_t", xs, tgt, tgt)
    return [L.Compose(solve, _linear("neg_matmul", "neg_matmul_t", (y,), M, tgt)), solve]


def _j_lsolve_t(fn, xs, tgt, bind):
    """d (A^{-T} g) = A^{-T} (-E^T y) + A^{-T} dg, y = A^{-T} g."""
    a, g = xs
    y = bind("y", prim("lsolve_t", a, g))
    solve = _self(fn, "lsolve", xs, tgt, tgt)
    return [L.Compose(solve, _linear("neg_tmatmul", "neg_tmatmul_t", (y,), M, tgt)), solve]


def _j_neg_matmul(fn, xs, tgt, bind):
    """d (-dA x) = -dA dx + (-d(dA) x)."""
    x, da = xs
    return [_linear("mul_neg", "mul_neg_t", (da,), x.type, tgt), _self(fn, "neg_matmul_t", xs, M, tgt)]


def _j_neg_matmul_t(fn, xs, tgt, bind):
    """d (-g x^T) = -g dx^T - dg x^T."""
    x, g = xs
    return [_linear("neg_tmatmul_t", "neg_tmatmul", (g,), x.type, M), _self(fn, "neg_matmul", xs, g.type, M)]


def _j_neg_tmatmul(fn, xs, tgt, bind):
    """d (-dA^T y) = -dA^T dy + (-d(dA)^T y)."""
    y, da = xs
    return [_linear("mul_neg_t", "mul_neg", (da,), y.type, tgt), _self(fn, "neg_tmatmul_t", xs, M, tgt)]


def _j_neg_tmatmul_t(fn, xs, tgt, bind):
    """d (-y g^T) = -dy g^T - y dg^T."""
    y, g = xs
    return [_linear("neg_matmul_t", "neg_matmul", (g,), y.type, M), _self(fn, "neg_tmatmul", xs, g.type, M)]


def _j_mul_neg(fn, xs, tgt, bind):
    """d (-M x) = -dM x - M dx."""
    m, x = xs
    return [_linear("neg_matmul", "neg_matmul_t", (x,), M, tgt), _self(fn, "mul_neg_t", xs, x.type, tgt)]


def _j_mul_neg_t(fn, xs, tgt, bind):
    """d (-M^T g) = -dM^T g - M^T dg."""
    m, g = xs
    return [_linear("neg_tmatmul", "neg_tmatmul_t", (g,), M, tgt), _self(fn, "mul_neg", xs, g.type, tgt)]


def _j_chol_jvp(fn, xs, tgt, bind):
    """d (L Phi(L^{-1} S L^{-T})) in L (chol_jvp_dl) and in dA (chol_jvp itself)."""
    lo, da = xs
    return [_linear("chol_jvp_dl", "chol_jvp_dl_t", (lo, da), M, M), _self(fn, "chol_vjp", xs, M, M)]


def _j_chol_vjp(fn, xs, tgt, bind):
    """d Phi(P + P^T), P = L^{-T} Phi(L^T G) L^{-1}, in L (chol_vjp_dl) and in G (chol_vjp itself)."""
    lo, g = xs
    return [_linear("chol_vjp_dl", "chol_vjp_dl_t", (lo, g), M, M), _self(fn, "chol_jvp", xs, M, M)]


# SciPy's solve_triangular, cholesky and cho_solve the same way: P(dA) = op(tri(dA)) and its
# adjoint (catad/primitives/triangular.py) in place of dA; dM = dL L^T + L dL^T is symmetric in
# the factor and its tangent, so cho_solve's maps are mostly themselves at swapped arguments.

def _j_tri_lsolve(fn, xs, tgt, bind):
    """d (op(T)^{-1} x) = op(T)^{-1} (-P(E) y) + op(T)^{-1} dx, y = op(T)^{-1} x."""
    a, f, x = xs
    y = bind("y", prim("tri_lsolve", a, f, x))
    solve = _self(fn, "tri_lsolve_t", xs, tgt, tgt)
    return [L.Compose(solve, _linear("tri_neg_matmul", "tri_neg_matmul_t", (y, f), M, tgt)), L.Zero(Int, tgt), solve]


def _j_tri_lsolve_t(fn, xs, tgt, bind):
    """d (op(T)^{-T} g) = op(T)^{-T} (-P(E)^T y) + op(T)^{-T} dg, y = op(T)^{-T} g."""
    a, f, g = xs
    y = bind("y", prim("tri_lsolve_t", a, f, g))
    solve = _self(fn, "tri_lsolve", xs, tgt, tgt)
    return [L.Compose(solve, _linear("tri_neg_tmatmul", "tri_neg_tmatmul_t", (y, f), M, tgt)), L.Zero(Int, tgt),
            solve]


def _j_tri_neg_matmul(fn, xs, tgt, bind):
    """d (-P(dA) x) = -P(dA) dx - P(d(dA)) x."""
    x, f, da = xs
    return [_linear("tri_mul_neg", "tri_mul_neg_t", (da, f), x.type, tgt), L.Zero(Int, tgt),
            _self(fn, "tri_neg_matmul_t", xs, M, tgt)]


def _j_tri_neg_matmul_t(fn, xs, tgt, bind):
    """d (-P^T(g x^T)) = -P^T(g dx^T) - P^T(dg x^T)."""
    x, f, g = xs
    return [_linear("tri_neg_tmatmul_t", "tri_neg_tmatmul", (g, f), x.type, M), L.Zero(Int, M),
            _self(fn, "tri_neg_matmul", xs, g.type, M)]


def _j_tri_neg_tmatmul(fn, xs, tgt, bind):
    """d (-P(dA)^T y) = -P(dA)^T dy - P(d(dA))^T y."""
    y, f, da = xs
    return [_linear("tri_mul_neg_t", "tri_mul_neg", (da, f), y.type, tgt), L.Zero(Int, tgt),
            _self(fn, "tri_neg_tmatmul_t", xs, M, tgt)]


def _j_tri_neg_tmatmul_t(fn, xs, tgt, bind):
    """d (-P^T(y g^T)) = -P^T(dy g^T) - P^T(y dg^T)."""
    y, f, g = xs
    return [_linear("tri_neg_matmul_t", "tri_neg_matmul", (g, f), y.type, M), L.Zero(Int, M),
            _self(fn, "tri_neg_tmatmul", xs, g.type, M)]


def _j_tri_mul_neg(fn, xs, tgt, bind):
    """d (-P(M) x) = -P(dM) x - P(M) dx."""
    m, f, x = xs
    return [_linear("tri_neg_matmul", "tri_neg_matmul_t", (x, f), M, tgt), L.Zero(Int, tgt),
            _self(fn, "tri_mul_neg_t", xs, x.type, tgt)]


def _j_tri_mul_neg_t(fn, xs, tgt, bind):
    """d (-P(M)^T g) = -P(dM)^T g - P(M)^T dg."""
    m, f, g = xs
    return [_linear("tri_neg_tmatmul", "tri_neg_tmatmul_t", (g, f), M, tgt), L.Zero(Int, tgt),
            _self(fn, "tri_mul_neg", xs, g.type, tgt)]


def _j_sp_chol_jvp(fn, xs, tgt, bind):
    """chol_jvp's maps (above) for SciPy's lower or upper factor."""
    c, f, da = xs
    return [_linear("sp_chol_jvp_dc", "sp_chol_jvp_dc_t", (c, f, da), M, M), L.Zero(Int, M),
            _self(fn, "sp_chol_vjp", xs, M, M)]


def _j_sp_chol_vjp(fn, xs, tgt, bind):
    """chol_vjp's maps (above) for SciPy's lower or upper factor."""
    c, f, g = xs
    return [_linear("sp_chol_vjp_dc", "sp_chol_vjp_dc_t", (c, f, g), M, M), L.Zero(Int, M),
            _self(fn, "sp_chol_jvp", xs, M, M)]


def _j_cho_lsolve(fn, xs, tgt, bind):
    """d (M^{-1} x) = M^{-1} (-dM(C, E) y) + M^{-1} dx, y = M^{-1} x (M^{-1} its own transpose)."""
    c, f, x = xs
    y = bind("y", prim("cho_lsolve", c, f, x))
    solve = _self(fn, "cho_lsolve", xs, tgt, tgt)
    return [L.Compose(solve, _linear("cho_neg_matmul", "cho_neg_matmul_t", (c, y, f), M, tgt)), L.Zero(Int, tgt),
            solve]


def _j_cho_neg_matmul(fn, xs, tgt, bind):
    """d (-dM(C, D) x) = -dM(E, D) x - dM(C, D) dx - dM(C, dD) x (dM symmetric in C, D)."""
    c, x, f, d = xs
    return [_linear("cho_neg_matmul", "cho_neg_matmul_t", (d, x, f), M, tgt),
            _linear("cho_mul_neg", "cho_mul_neg", (c, d, f), x.type, tgt), L.Zero(Int, tgt),
            _self(fn, "cho_neg_matmul_t", xs, M, tgt)]


def _j_cho_neg_matmul_t(fn, xs, tgt, bind):
    """d (-tri(S(g, x) C)) = -tri(S E) - tri(S(g, dx) C) - tri(S(dg, x) C), S(g, x) = g x^T + x g^T."""
    c, x, f, g = xs
    return [_linear("cho_sym_mul", "cho_sym_mul", (x, g, f), M, M),
            _linear("cho_neg_matmul_t", "cho_neg_matmul", (c, g, f), x.type, M), L.Zero(Int, M),
            _self(fn, "cho_neg_matmul", xs, g.type, M)]


def _j_cho_mul_neg(fn, xs, tgt, bind):
    """d (-dM(C, D) v) = -dM(E, D) v - dM(C, dD) v - dM(C, D) dv."""
    c, d, f, v = xs
    return [_linear("cho_neg_matmul", "cho_neg_matmul_t", (d, v, f), M, tgt),
            _linear("cho_neg_matmul", "cho_neg_matmul_t", (c, v, f), M, tgt), L.Zero(Int, tgt),
            _self(fn, "cho_mul_neg", xs, tgt, tgt)]


def _j_cho_sym_mul(fn, xs, tgt, bind):
    """d (-tri(S(g, x) E)) = -tri(S(g, dx) E) - tri(S(dg, x) E) - tri(S(g, x) dE)."""
    x, g, f, e = xs
    return [_linear("cho_neg_matmul_t", "cho_neg_matmul", (e, g, f), x.type, M),
            _linear("cho_neg_matmul_t", "cho_neg_matmul", (e, x, f), g.type, M), L.Zero(Int, M),
            _self(fn, "cho_sym_mul", xs, M, M)]


def _j_expm_jvp(fn, xs, tgt, bind):
    """d L(A, E) = expm_jvp_da(A, E, dA) + L(A, dE) (the Frechet derivative is linear in E)."""
    a, e = xs
    return [_linear("expm_jvp_da", "expm_jvp_da_t", (a, e), M, M), _self(fn, "expm_vjp", xs, M, M)]


def _j_expm_vjp(fn, xs, tgt, bind):
    """d L(A^T, G) = expm_vjp_da(A, G, dA) + L(A^T, dG)."""
    a, g = xs
    return [_linear("expm_vjp_da", "expm_vjp_da_t", (a, g), M, M), _self(fn, "expm_jvp", xs, M, M)]


def _j_eigvals_jvp(fn, xs, tgt, bind):
    """d diag(V^T dS V) = 2 diag(V^T dS dV) + diag(V^T d(dS) V)."""
    v, upper, da = xs
    return [_linear("eigvals_jvp_dv", "eigvals_jvp_dv_t", (v, upper, da), M, V), L.Zero(Int, V),
            _self(fn, "eigvals_vjp", xs, M, V)]


def _j_eigvals_vjp(fn, xs, tgt, bind):
    """d sym*(V diag(g) V^T) = sym*(dV diag(g) V^T + V diag(g) dV^T) + sym*(V diag(dg) V^T)."""
    v, upper, g = xs
    return [_linear("eigvals_vjp_dv", "eigvals_vjp_dv_t", (v, upper, g), M, M), L.Zero(Int, M),
            _self(fn, "eigvals_jvp", xs, V, M)]


def _j_eigvecs_jvp(fn, xs, tgt, bind):
    """d (V (F(w) o (V^T dS V))) in w (through F), in V and in dA (the map itself)."""
    w, v, upper, da = xs
    return [_linear("eigvecs_jvp_dw", "eigvecs_jvp_dw_t", xs, V, M), _linear("eigvecs_jvp_dv", "eigvecs_jvp_dv_t", xs, M, M),
            L.Zero(Int, M), _self(fn, "eigvecs_vjp", xs, M, M)]


def _j_eigvecs_vjp(fn, xs, tgt, bind):
    """d sym*(V (F(w) o (V^T G)) V^T) in w, in V and in G (the map itself)."""
    w, v, upper, g = xs
    return [_linear("eigvecs_vjp_dw", "eigvecs_vjp_dw_t", xs, V, M), _linear("eigvecs_vjp_dv", "eigvecs_vjp_dv_t", xs, M, M),
            L.Zero(Int, M), _self(fn, "eigvecs_jvp", xs, M, M)]


def _j_svd_vectors(fn, xs, tgt, bind):
    """svdu_jvp, svdu_vjp, svdvt_jvp, svdvt_vjp: each differentiated in U, s and Vh
    (catad/primitives/spectral.py) and in its tangent (the map itself)."""
    rev = {"svdu_jvp": "svdu_vjp", "svdu_vjp": "svdu_jvp", "svdvt_jvp": "svdvt_vjp", "svdvt_vjp": "svdvt_jvp"}[fn]
    x = xs[-1]
    return [_linear(f"{fn}_{part}", f"{fn}_{part}_t", xs, ty, tgt)
            for part, ty in (("du", M), ("ds", V), ("dvt", M))] + [_self(fn, rev, xs, x.type, tgt)]


def _j_svals_jvp(fn, xs, tgt, bind):
    """d diag(U^T dA V) = diag(dU^T dA V) + diag(U^T dA dV) + diag(U^T d(dA) V)."""
    u, vt, da = xs
    return [_linear("svals_jvp_du", "svals_jvp_du_t", xs, M, V), _linear("svals_jvp_dvt", "svals_jvp_dvt_t", xs, M, V),
            _self(fn, "svals_vjp", xs, M, V)]


def _j_svals_vjp(fn, xs, tgt, bind):
    """d (U diag(g) V^T) = dU diag(g) V^T + U diag(g) dV^T + U diag(dg) V^T."""
    u, vt, g = xs
    return [_linear("svals_vjp_du", "svals_vjp_du_t", xs, M, M), _linear("svals_vjp_dvt", "svals_vjp_dvt_t", xs, M, M),
            _self(fn, "svals_jvp", xs, V, M)]


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


# ---------------------------------------------------------------- discrete Fourier transforms
# Each transform is linear over the reals: its Jacobian is the transform itself, an lmLinear map
# whose forward action applies it to the tangent and whose transposed action is the adjoint
# transform (catad/primitives/fft.py), both one np.fft call.

def _j_dft(fn, xs, tgt, bind):
    """d fft(z, n, axis, norm) = lmLinear(fft_jvp, fft_vjp, (n, m, axis, norm)), m the input's
    length along the axis (the adjoint cuts or pads back to it); the transposed action gives the
    real part (vjp_re) when the input is real."""
    z, n, axis, norm = xs
    a = z.type.items[0] if isinstance(z.type, TupleT) else z.type
    part = Get(0, z) if isinstance(z.type, TupleT) else z
    k = rank(a) + int(axis.value)  # axis is a constant from the end
    m = bind("m", prim("size", part) if k == 0 else prim("dim", part, iconst(k)))
    real = isinstance(z.type, Vec) and fn != "rfft"
    rev = f"{fn}_vjp_re" if real else f"{fn}_vjp"
    lin = L.Linear(f"{fn}_jvp", rev, (n, m, axis, norm), z.type, tgt)
    return [lin] + [L.Zero(Int, tgt)] * 3


def _dft_transpose(fn: str, x: Type) -> str:
    """The action adjoint to fn (a *_jvp, *_vjp or *_vjp_re of catad.primitives.fft) on x: a
    forward action's transpose is the transposed action (its real part when x is real, as for the
    transform's own map), a transposed action's the forward one."""
    name, kind = fn.split("_", 1)
    if kind != "jvp":
        return f"{name}_jvp"
    return f"{name}_vjp_re" if isinstance(x, Vec) and name != "rfft" else f"{name}_vjp"


def _j_dft_action(fn, xs, tgt, bind):
    """An action of a transform's derivative, fn(n, m, axis, norm, x), is linear in x and does not
    depend on a primal value: its Jacobian in x is the action itself (lmLinear(fn, its adjoint, (n,
    m, axis, norm))), in the Int parameters zero. So a second derivative through np.fft is exact:
    the same np.fft calls, applied to the second-order tangents."""
    *ints, x = xs
    lin = L.Linear(fn, _dft_transpose(fn, x.type), tuple(ints), x.type, tgt)
    return [L.Zero(Int, tgt)] * 4 + [lin]


# ---------------------------------------------------------------- decompositions and SciPy's solvers
# (catad/primitives/spectral.py and triangular.py). A static option is an Int argument, whose
# map is zero; a decomposition's results are bound once and read by each map.

V = Vec(Float)


def _parts(bind: Bind, name: str, call: Term, n: int) -> list[Term]:
    whole = bind(name, call)
    return [bind(name + str(k), Get(k, whole)) for k in range(n)]


def _j_svd(fn, xs, tgt, bind):
    """d(U, S, Vh) by Townsend (2016): one map per result, at the decomposition."""
    a, full = xs
    u, s, vt = _parts(bind, "USV", prim("svd", a, full), 3)
    return [L.VCat((_linear("svdu_jvp", "svdu_vjp", (u, s, vt), M, M), _linear("svals_jvp", "svals_vjp", (u, vt), M, V),
                    _linear("svdvt_jvp", "svdvt_vjp", (u, s, vt), M, M))), L.Zero(Int, tgt)]


def _j_svdvals(fn, xs, tgt, bind):
    """ds_k = u_k^T dA v_k, at the reduced decomposition."""
    (a,) = xs
    u, _, vt = _parts(bind, "USV", prim("svd", a, iconst(0)), 3)
    return [_linear("svals_jvp", "svals_vjp", (u, vt), M, V)]


def _j_eigh(fn, xs, tgt, bind):
    """dw_i = v_i^T dS v_i, dV = V (F o (V^T dS V))."""
    a, upper = xs
    w, v = _parts(bind, "WV", prim("eigh", a, upper), 2)
    return [L.VCat((_linear("eigvals_jvp", "eigvals_vjp", (v, upper), M, V),
                    _linear("eigvecs_jvp", "eigvecs_vjp", (w, v, upper), M, M))), L.Zero(Int, tgt)]


def _j_eigvalsh(fn, xs, tgt, bind):
    """dw_i = v_i^T dS v_i, at eigh's eigenvectors."""
    a, upper = xs
    _, v = _parts(bind, "WV", prim("eigh", a, upper), 2)
    return [_linear("eigvals_jvp", "eigvals_vjp", (v, upper), M, V), L.Zero(Int, tgt)]


def _j_expm(fn, xs, tgt, bind):
    """The Frechet derivative L(A, .) and its adjoint L(A^T, .)."""
    (a,) = xs
    return [_linear("expm_jvp", "expm_vjp", (a,), M, M)]


def _j_trisolve(fn, xs, tgt, bind):
    """x = op(T)^{-1} b: dx = op(T)^{-1} (db - op(dT) x), one map from (dA, db, flags) as solve's."""
    a, b, flags = xs
    x = bind("x", prim("trisolve", a, b, flags))
    rhs = L.HCat((_linear("tri_neg_matmul", "tri_neg_matmul_t", (x, flags), M, b.type), L.One(b.type),
                  L.Zero(Int, b.type)))
    return L.Compose(_linear("tri_lsolve", "tri_lsolve_t", (a, flags), b.type, b.type), rhs)


def _j_sp_cholesky(fn, xs, tgt, bind):
    """Murray's map for the lower factor, transposed for the upper one."""
    a, lower = xs
    c = bind("C", prim("sp_cholesky", a, lower))
    return [_linear("sp_chol_jvp", "sp_chol_vjp", (c, lower), M, M), L.Zero(Int, tgt)]


def _j_cho_solve(fn, xs, tgt, bind):
    """x = M^{-1} b, M = L L^T: dx = M^{-1} (db - dM x), one map from (dC, db, lower)."""
    c, b, lower = xs
    x = bind("x", prim("cho_solve", c, b, lower))
    rhs = L.HCat((_linear("cho_neg_matmul", "cho_neg_matmul_t", (c, x, lower), M, b.type), L.One(b.type),
                  L.Zero(Int, b.type)))
    return L.Compose(_linear("cho_lsolve", "cho_lsolve", (c, lower), b.type, b.type), rhs)


_ARRAY_RULES = {"index": _j_index, "sum": _j_sum, "fsum": _j_sum, "vmax": _j_reduce, "vmin": _j_reduce, "vector": _j_vector,
                "brentq": _j_constant, "stop_gradient": _j_constant, "lstsq": _j_constant,
                **{name: _j_implicit_root for name in IMPLICIT_MARKS + IMPLICIT_ZEROS},
                "det": _j_det, "slogdet": _j_slogdet, "inv": _j_inv, "solve": _j_solve, "cholesky": _j_cholesky,
                "svd": _j_svd, "svdvals": _j_svdvals, "eigh": _j_eigh, "eigvalsh": _j_eigvalsh, "expm": _j_expm,
                "det_jvp": _j_det_jvp, "det_vjp": _j_det_vjp,
                "logdet_jvp": _j_logdet_jvp, "logdet_vjp": _j_logdet_vjp, "inv_jvp": _j_inv_jvp,
                "inv_vjp": _j_inv_vjp, "lsolve": _j_lsolve, "lsolve_t": _j_lsolve_t, "neg_matmul": _j_neg_matmul,
                "neg_matmul_t": _j_neg_matmul_t, "neg_tmatmul": _j_neg_tmatmul, "neg_tmatmul_t": _j_neg_tmatmul_t,
                "mul_neg": _j_mul_neg, "mul_neg_t": _j_mul_neg_t, "chol_jvp": _j_chol_jvp, "chol_vjp": _j_chol_vjp,
                "tri_lsolve": _j_tri_lsolve, "tri_lsolve_t": _j_tri_lsolve_t, "tri_neg_matmul": _j_tri_neg_matmul,
                "tri_neg_matmul_t": _j_tri_neg_matmul_t, "tri_neg_tmatmul": _j_tri_neg_tmatmul,
                "tri_neg_tmatmul_t": _j_tri_neg_tmatmul_t, "tri_mul_neg": _j_tri_mul_neg,
                "tri_mul_neg_t": _j_tri_mul_neg_t, "sp_chol_jvp": _j_sp_chol_jvp, "sp_chol_vjp": _j_sp_chol_vjp,
                "cho_lsolve": _j_cho_lsolve, "cho_neg_matmul": _j_cho_neg_matmul,
                "cho_neg_matmul_t": _j_cho_neg_matmul_t, "cho_mul_neg": _j_cho_mul_neg, "cho_sym_mul": _j_cho_sym_mul,
                "expm_jvp": _j_expm_jvp, "expm_vjp": _j_expm_vjp, "eigvals_jvp": _j_eigvals_jvp,
                "eigvals_vjp": _j_eigvals_vjp, "svals_jvp": _j_svals_jvp, "svals_vjp": _j_svals_vjp,
                "eigvecs_jvp": _j_eigvecs_jvp, "eigvecs_vjp": _j_eigvecs_vjp,
                **{name: _j_svd_vectors for name in ("svdu_jvp", "svdu_vjp", "svdvt_jvp", "svdvt_vjp")},
                "trisolve": _j_trisolve, "sp_cholesky": _j_sp_cholesky, "cho_solve": _j_cho_solve,
                **{name: _j_dft for name in ("fft", "ifft", "rfft", "irfft")},
                **{name: _j_dft_action for name in _DFT_ACTIONS},
                "tadd": _j_tadd, "tscale": _j_tscale, "touter": _j_touter, "tdot": _j_tdot, "tmul": _j_tmul,
                "tprod": _j_tprod, "tsum": _j_tsum, "update": _j_update, "densify": _j_densify}


__all__ = ["jacobian_of_call"]
