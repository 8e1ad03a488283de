"""SciPy's triangular solvers: scipy.linalg.solve_triangular, cholesky (and cho_factor, which the
front end makes of it) and cho_solve, with the linear maps of their derivatives, as functions of
stacks of matrices (the conventions of catad/primitives/linalg.py).

The values are SciPy's own (the kernels call it, with its checks: a singular triangle raises
SciPy's LinAlgError, a non-finite input its ValueError). SciPy reads only one triangle of each
matrix, so each derivative is that of the triangle read: the other triangle's derivative is 0.
Static options are Int arguments, constants of the program: solve_triangular's `flags` is
lower + 2 trans (0, 1 or 2) + 8 unit_diagonal + 16 (not check_finite); cholesky's and cho_solve's `flags` are
lower + 2 (not check_finite); derivative kernels never check (a tangent is not SciPy's input).
Like np.linalg.solve's (linalg.py), a derivative of a solve is applied by solving, never by
forming an inverse:

* solve_triangular, x = op(T)^{-1} b with T the triangle read (strictly, for a unit diagonal)
  and op the identity or the transpose (trans): dx = op(T)^{-1} (db - op(dT) x), its transpose
  g -> (-tri(y x^T) or -tri(x y^T), y) with y = op(T)^{-T} g, one solve with the other trans;
* cholesky: NumPy's map (Murray 2016, linalg.py's la_chol_jvp) for lower=True; the upper
  factor U = L^T of the matrix A^T's lower triangle makes, so dU = (chol_jvp(U^T, dA^T))^T;
* cho_solve, x = M^{-1} b with M = L L^T (or U^T U): dx = M^{-1} (db - dM x), dM = dL L^T + L dL^T
  (dU^T U + U^T dU); M^{-1} is its own transpose, and dL's cotangent is -tri((G + G^T) L)
  (-tri(U (G + G^T))) with G = y x^T, y = M^{-1} g.
"""
from __future__ import annotations

import numpy as np

from ..tangents import ZERO
from .linalg import _dense, _t, la_chol_jvp, la_chol_vjp


def _scipy():
    import scipy.linalg  # only a function that calls scipy.linalg reaches this
    return scipy.linalg


def _options(flags) -> tuple[bool, int, bool]:
    """solve_triangular's (lower, trans, unit_diagonal); trans 2 ('C') is 1 for real matrices, but
    SciPy takes another LAPACK path for it, so the primal solve passes it on."""
    flags = int(flags)
    return bool(flags & 1), (flags >> 1) & 3, bool(flags & 8)


def _lower(flags) -> bool:
    """cholesky's and cho_solve's lower."""
    return bool(int(flags) & 1)


def _as_matrix(b, vec, f):
    """f of b as a matrix: a vector (vec) is one column (SciPy reads a b of more than one axis
    as matrices, so a stack of vectors needs the trailing axis)."""
    if vec:
        return f(np.asarray(b)[..., None])[..., 0]
    return f(b)


def _vec(x, vec) -> bool:
    return np.ndim(x) == 1 if vec is None else vec


def _tri(x, lower: bool, unit: bool = False):
    """The triangle of x that SciPy reads (without the diagonal, for a unit diagonal)."""
    return np.tril(x, -1 if unit else 0) if lower else np.triu(x, 1 if unit else 0)


# ---------------------------------------------------------------- solve_triangular

def la_trisolve(a, b, flags, vec: bool):
    lower, trans, unit = _options(flags)
    return _as_matrix(b, vec, lambda m: _scipy().solve_triangular(
        a, m, trans=trans, lower=lower, unit_diagonal=unit, check_finite=not int(flags) & 16))


def la_tri_lsolve(a, flags, db, vec: bool | None = None):
    """db -> op(T)^{-1} db."""
    db = _dense(db)
    if db is None:
        return ZERO
    return la_trisolve(a, db, int(flags) | 16, _vec(db, vec))


def la_tri_lsolve_t(a, flags, g, vec: bool | None = None):
    """Its transpose: g -> op(T)^{-T} g (the other trans)."""
    g = _dense(g)
    if g is None:
        return ZERO
    lower, trans, unit = _options(flags)
    return la_trisolve(a, g, int(lower) + 2 * int(not trans) + 8 * int(unit) + 16, _vec(g, vec))


def la_tri_neg_matmul(x, flags, da, vec: bool | None = None):
    """dA -> -op(tri(dA)) x."""
    da = _dense(da)
    if da is None:
        return ZERO
    lower, trans, unit = _options(flags)
    t = _tri(da, lower, unit)
    t = _t(t) if trans else t
    return -(t @ x[..., None])[..., 0] if _vec(x, vec) else -(t @ x)


def la_tri_neg_matmul_t(x, flags, g, vec: bool | None = None):
    """Its transpose: g -> -tri(g x^T) (-tri(x g^T) for trans)."""
    g = _dense(g)
    if g is None:
        return ZERO
    lower, trans, unit = _options(flags)
    left, right = (x, g) if trans else (g, x)
    outer = left[..., :, None] * right[..., None, :] if _vec(x, vec) else left @ _t(right)
    return -_tri(outer, lower, unit)


# ---------------------------------------------------------------- cholesky

def la_sp_cholesky(a, flags):
    return _scipy().cholesky(a, lower=_lower(flags), check_finite=not int(flags) & 2)


def la_sp_chol_jvp(c, flags, da):
    """NumPy's map for the lower factor; dU = (chol_jvp(U^T, dA^T))^T for the upper one."""
    da = _dense(da)
    if da is None:
        return ZERO
    return la_chol_jvp(c, da) if _lower(flags) else _t(la_chol_jvp(_t(c), _t(da)))


def la_sp_chol_vjp(c, flags, g):
    g = _dense(g)
    if g is None:
        return ZERO
    return la_chol_vjp(c, g) if _lower(flags) else _t(la_chol_vjp(_t(c), _t(g)))


# ---------------------------------------------------------------- cho_solve

def la_cho_solve(c, b, flags, vec: bool):
    return _as_matrix(b, vec, lambda m: _scipy().cho_solve((c, _lower(flags)), m, check_finite=not int(flags) & 2))


def la_cho_lsolve(c, flags, db, vec: bool | None = None):
    """db -> M^{-1} db (its own transpose: M is symmetric)."""
    db = _dense(db)
    if db is None:
        return ZERO
    return la_cho_solve(c, db, int(flags) | 2, _vec(db, vec))


def la_cho_neg_matmul(c, x, flags, dc, vec: bool | None = None):
    """dc -> -dM x, dM = dL L^T + L dL^T (dU^T U + U^T dU), dL the triangle of dc read."""
    dc = _dense(dc)
    if dc is None:
        return ZERO
    low = _lower(flags)
    f, df = _tri(c, low), _tri(dc, low)
    dm = df @ _t(f) + f @ _t(df) if low else _t(df) @ f + _t(f) @ df
    return -(dm @ x[..., None])[..., 0] if _vec(x, vec) else -(dm @ x)


def la_cho_neg_matmul_t(c, x, flags, g, vec: bool | None = None):
    """Its transpose: g -> -tri((G + G^T) L) (-tri(U (G + G^T))), G = g x^T."""
    g = _dense(g)
    if g is None:
        return ZERO
    low = _lower(flags)
    f = _tri(c, low)
    outer = g[..., :, None] * x[..., None, :] if _vec(x, vec) else g @ _t(x)
    sym = outer + _t(outer)
    return -_tri(sym @ f if low else f @ sym, low)


def la_where_zero(keep, b):
    """b where keep holds, 0 elsewhere (a right-hand side in lanes a condition discards: SciPy
    checks that its inputs are finite, and Python would not have computed these)."""
    return np.where(keep, b, 0.0)


KERNELS = {f.__name__: f for f in (la_trisolve, la_tri_lsolve, la_tri_lsolve_t, la_tri_neg_matmul,
                                   la_tri_neg_matmul_t, la_sp_cholesky, la_sp_chol_jvp, la_sp_chol_vjp,
                                   la_cho_solve, la_cho_lsolve, la_cho_neg_matmul, la_cho_neg_matmul_t,
                                   la_where_zero)}
