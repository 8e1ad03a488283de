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
from .linalg import (_dense, _mv, _outer, _t, la_chol_jvp, la_chol_jvp_dl, la_chol_jvp_dl_t, la_chol_vjp,
                     la_chol_vjp_dl, la_chol_vjp_dl_t)


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


# P(dA) = op(tri(dA)), the matrix a tangent dA makes in the solve, and its adjoint P^T(Y) =
# tri(op^T(Y)). Differentiated again (issue 17), x may be a tangent itself (zero or sparse).

def _op_tri(da, flags):
    lower, trans, unit = _options(flags)
    t = _tri(da, lower, unit)
    return _t(t) if trans else t


def _op_tri_adjoint(y, flags):
    lower, trans, unit = _options(flags)
    return _tri(_t(y) if trans else y, lower, unit)


def la_tri_neg_matmul(x, flags, da, vec: bool | None = None):
    """dA -> -op(tri(dA)) x."""
    x, da = _dense(x), _dense(da)
    if x is None or da is None:
        return ZERO
    return -_mv(_op_tri(da, flags), x, _vec(x, vec))


def la_tri_neg_matmul_t(x, flags, g, vec: bool | None = None):
    """Its transpose: g -> -P^T(g x^T) = -tri(g x^T) (-tri(x g^T) for trans)."""
    x, g = _dense(x), _dense(g)
    if x is None or g is None:
        return ZERO
    return -_op_tri_adjoint(_outer(g, x, _vec(x, vec)), flags)


# The same product in its other factors, for the second derivatives of tri_lsolve, tri_lsolve_t,
# tri_neg_matmul and tri_neg_matmul_t (closed under differentiation, as linalg.py's neg_matmul's).

def la_tri_neg_tmatmul(y, flags, da, vec: bool | None = None):
    """dA -> -P(dA)^T y (the part of d op(T)^{-T} g that dA makes, before the solve)."""
    y, da = _dense(y), _dense(da)
    if y is None or da is None:
        return ZERO
    return -_mv(_t(_op_tri(da, flags)), y, _vec(y, vec))


def la_tri_neg_tmatmul_t(y, flags, g, vec: bool | None = None):
    """Its transpose: g -> -P^T(y g^T)."""
    y, g = _dense(y), _dense(g)
    if y is None or g is None:
        return ZERO
    return -_op_tri_adjoint(_outer(y, g, _vec(y, vec)), flags)


def la_tri_mul_neg(m, flags, x, vec: bool | None = None):
    """x -> -P(M) x."""
    m, x = _dense(m), _dense(x)
    if m is None or x is None:
        return ZERO
    return -_mv(_op_tri(m, flags), x, _vec(x, vec))


def la_tri_mul_neg_t(m, flags, g, vec: bool | None = None):
    """Its transpose: g -> -P(M)^T g."""
    m, g = _dense(m), _dense(g)
    if m is None or g is None:
        return ZERO
    return -_mv(_t(_op_tri(m, flags)), g, _vec(g, vec))


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


def _upper_too(f):
    """A lower factor's kernel f(L, dA, x) for SciPy's flags: the upper factor U = L^T of A^T's
    lower triangle, so each map is f's on the transposes, transposed (linear in each argument)."""
    def kernel(c, flags, da, x):
        da, x = _dense(da), _dense(x)
        if da is None or x is None:
            return ZERO
        return f(c, da, x) if _lower(flags) else _t(f(_t(c), _t(da), _t(x)))
    kernel.__name__ = "la_sp_" + f.__name__[3:].replace("_dl", "_dc")
    kernel.__doc__ = f"{f.__name__} for SciPy's lower or upper factor (catad/primitives/linalg.py)."
    return kernel


la_sp_chol_jvp_dc, la_sp_chol_jvp_dc_t, la_sp_chol_vjp_dc, la_sp_chol_vjp_dc_t = (_upper_too(f) for f in (
    la_chol_jvp_dl, la_chol_jvp_dl_t, la_chol_vjp_dl, la_chol_vjp_dl_t))


# ---------------------------------------------------------------- cho_solve

def la_cho_solve(c, b, flags, vec: bool):
    return _as_matrix(b, vec, lambda m: _scipy().cho_solve((c, _lower(flags)), m, check_finite=not int(flags) & 2))


def la_cho_lsolve(c, flags, db, vec: bool | None = None):
    """db -> M^{-1} db (its own transpose: M is symmetric)."""
    db = _dense(db)
    if db is None:
        return ZERO
    return la_cho_solve(c, db, int(flags) | 2, _vec(db, vec))


def _dm(c, d, low: bool):
    """dM = D L^T + L D^T (D^T U + U^T D) for the triangles L of c and D of d read: symmetric in c, d."""
    f, df = _tri(c, low), _tri(d, low)
    return df @ _t(f) + f @ _t(df) if low else _t(df) @ f + _t(f) @ df


def la_cho_neg_matmul(c, x, flags, dc, vec: bool | None = None):
    """dc -> -dM x, dM = dL L^T + L dL^T (dU^T U + U^T dU), dL the triangle of dc read. Differentiated
    again, c and x may be tangents (zero or sparse) too."""
    c, x, dc = _dense(c), _dense(x), _dense(dc)
    if c is None or x is None or dc is None:
        return ZERO
    return -_mv(_dm(c, dc, _lower(flags)), x, _vec(x, vec))


def _sym_tri(s, e, low: bool):
    """-tri(S E) (-tri(E S)) for E the triangle of e read."""
    f = _tri(e, low)
    return -_tri(s @ f if low else f @ s, low)


def la_cho_neg_matmul_t(c, x, flags, g, vec: bool | None = None):
    """Its transpose: g -> -tri((G + G^T) L) (-tri(U (G + G^T))), G = g x^T."""
    c, x, g = _dense(c), _dense(x), _dense(g)
    if c is None or x is None or g is None:
        return ZERO
    outer = _outer(g, x, _vec(x, vec))
    return _sym_tri(outer + _t(outer), c, _lower(flags))


# Second derivatives (issue 17): dM is symmetric in the factor and its tangent, and G + G^T in g
# and x, so the derivatives of cho_neg_matmul and cho_neg_matmul_t in their other arguments are
# themselves at swapped arguments, but for two: -dM(C, D) v in v and -tri((G + G^T) E) in E, each
# its own transpose (dM and G + G^T are symmetric).

def la_cho_mul_neg(c, d, flags, v, vec: bool | None = None):
    """v -> -dM(C, D) v (its own transpose)."""
    c, d, v = _dense(c), _dense(d), _dense(v)
    if c is None or d is None or v is None:
        return ZERO
    return -_mv(_dm(c, d, _lower(flags)), v, _vec(v, vec))


def la_cho_sym_mul(x, g, flags, e, vec: bool | None = None):
    """E -> -tri((G + G^T) E) (-tri(E (G + G^T))), G = g x^T, E's triangle read (its own transpose)."""
    x, g, e = _dense(x), _dense(g), _dense(e)
    if x is None or g is None or e is None:
        return ZERO
    outer = _outer(g, x, _vec(x, vec))
    return _sym_tri(outer + _t(outer), e, _lower(flags))


def la_where_zero(keep, b):
    """b where keep holds, 0 elsewhere (a right-hand side in lanes a condition discards: SciPy
    checks that its inputs are finite, and Python would not have computed these)."""
    return np.where(keep, b, 0.0)


KERNELS = {f.__name__: f for f in (la_trisolve, la_tri_lsolve, la_tri_lsolve_t, la_tri_neg_matmul,
                                   la_tri_neg_matmul_t, la_sp_cholesky, la_sp_chol_jvp, la_sp_chol_vjp,
                                   la_cho_solve, la_cho_lsolve, la_cho_neg_matmul, la_cho_neg_matmul_t,
                                   la_where_zero, la_tri_neg_tmatmul, la_tri_neg_tmatmul_t, la_tri_mul_neg,
                                   la_tri_mul_neg_t, la_sp_chol_jvp_dc, la_sp_chol_jvp_dc_t, la_sp_chol_vjp_dc,
                                   la_sp_chol_vjp_dc_t, la_cho_mul_neg, la_cho_sym_mul)}
