"""Linear algebra kernels: np.linalg's det, slogdet, inv, solve and cholesky, and the linear
maps of their derivatives, as NumPy functions of stacks of matrices.

Every kernel works on the last one or two axes and broadcasts the axes before them, so the
same function is the reference implementation of a primitive (catad.primitives.registry, on
one matrix) and the code the backend calls inside vectorised builds (catad.backend.linalg,
where values carry leading batch axes). Where a vector and a matrix cannot be told apart by
their number of axes (a vector inside a build has as many as a matrix outside), the caller
says which with `vec`.

The derivative kernels are the standard matrix-calculus results, each a linear map of a
tangent (`d...`) or a cotangent (`g...`) at fixed primal values, applied by solving rather
than by forming an inverse, except where the result is the inverse (the gradient of log|det A|
is A^{-T}, computed by one solve of A^T against the identity). A tangent or cotangent may be
catad's symbolic zero, which every such kernel maps to zero, or a sparse index update, which
it makes dense first (catad.tangents).
"""
from __future__ import annotations

import numpy as np

from ..tangents import ZERO, densify


def _t(x):
    """The transpose of every matrix of a stack."""
    return np.swapaxes(x, -1, -2)


def _dense(x):
    """A tangent as an array (None for the symbolic zero)."""
    x = densify(x)
    return None if x is ZERO else np.asarray(x, dtype=np.float64)


def _vec(x) -> bool:
    """A tangent's value on one matrix (the reference semantics): a vector or a matrix."""
    return np.ndim(densify(x)) == 1


# ---------------------------------------------------------------- the functions

def la_det(a):
    return np.linalg.det(a)


def la_slogdet(a):
    sign, logabsdet = np.linalg.slogdet(a)
    return sign, logabsdet


def la_inv(a):
    return np.linalg.inv(a)


def la_solve(a, b, vec: bool):
    """np.linalg.solve(a, b) for a vector b (vec) or a matrix b, each possibly a stack (NumPy 2
    reads a b of more than one axis as matrices: a stack of vectors needs the trailing axis)."""
    if vec:
        return np.linalg.solve(a, np.asarray(b)[..., None])[..., 0]
    return np.linalg.solve(a, b)


def la_cholesky(a):
    return np.linalg.cholesky(a)


# ---------------------------------------------------------------- derivatives of log|det|

def la_logdet_jvp(a, da):
    """d log|det A| = tr(A^{-1} dA), by one solve."""
    da = _dense(da)
    if da is None:
        return ZERO
    return np.trace(np.linalg.solve(a, da), axis1=-2, axis2=-1)


def la_logdet_vjp(a, g):
    """The transpose: g -> g A^{-T} (A^{-T} = solve(A^T, I), the whole gradient)."""
    g = _dense(g)
    if g is None:
        return ZERO
    n = np.shape(a)[-1]
    return g[..., None, None] * np.linalg.solve(_t(a), np.broadcast_to(np.eye(n), np.shape(a)))


# ---------------------------------------------------------------- derivatives of the inverse

def la_inv_jvp(b, da):
    """d A^{-1} = -B dA B at B = A^{-1}."""
    da = _dense(da)
    return ZERO if da is None else -(b @ da @ b)


def la_inv_vjp(b, g):
    """The transpose: G -> -B^T G B^T."""
    g = _dense(g)
    if g is None:
        return ZERO
    bt = _t(b)
    return -(bt @ g @ bt)


# ---------------------------------------------------------------- derivatives of solve
# x = A^{-1} b: dx = A^{-1} (db - dA x), one solve; its transpose g -> (-y x^T, y) with
# y = A^{-T} g, one solve. The map is the solve after (dA, db) -> db - dA x.

def la_lsolve(a, db, vec: bool | None = None):
    """db -> A^{-1} db."""
    db = _dense(db)
    if db is None:
        return ZERO
    return la_solve(a, db, db.ndim == 1 if vec is None else vec)


def la_lsolve_t(a, g, vec: bool | None = None):
    """Its transpose: g -> A^{-T} g."""
    g = _dense(g)
    if g is None:
        return ZERO
    return la_solve(_t(a), g, g.ndim == 1 if vec is None else vec)


def la_neg_matmul(x, da, vec: bool | None = None):
    """dA -> -dA x (x a vector or a matrix)."""
    da = _dense(da)
    if da is None:
        return ZERO
    vec = np.ndim(x) == 1 if vec is None else vec
    return -(da @ x[..., None])[..., 0] if vec else -(da @ x)


def la_neg_matmul_t(x, g, vec: bool | None = None):
    """Its transpose: g -> -g x^T (an outer product for vectors)."""
    g = _dense(g)
    if g is None:
        return ZERO
    vec = np.ndim(x) == 1 if vec is None else vec
    return -(g[..., :, None] * x[..., None, :]) if vec else -(g @ _t(x))


# ---------------------------------------------------------------- derivatives of cholesky
# Murray (2016), "Differentiation of the Cholesky decomposition", with NumPy's reading of A:
# only its lower triangle, so a tangent dA acts as the symmetric matrix sym(dA) its lower
# triangle makes. dL = L Phi(L^{-1} sym(dA) L^{-T}), Phi = the lower triangle with its diagonal
# halved. Phi is symmetric (a mask), sym's transpose is P -> Phi(P + P^T), so the transpose is
# G -> Phi(P + P^T) with P = L^{-T} Phi(L^T G) L^{-1}. Triangular systems are solved with
# np.linalg.solve (NumPy has no triangular solver; catad does not depend on SciPy).

def _phi(x):
    n = np.shape(x)[-1]
    return x * (np.tril(np.ones((n, n))) - 0.5 * np.eye(n))


def _sym_lower(x):
    """The symmetric matrix that x's lower triangle makes."""
    return np.tril(x) + _t(np.tril(x, -1))


def la_chol_jvp(lo, da):
    da = _dense(da)
    if da is None:
        return ZERO
    y = np.linalg.solve(lo, _sym_lower(da))          # L^{-1} S
    z = _t(np.linalg.solve(lo, _t(y)))               # L^{-1} S L^{-T}
    return lo @ _phi(z)


def la_chol_vjp(lo, g):
    g = _dense(g)
    if g is None:
        return ZERO
    lt = _t(lo)
    z = np.linalg.solve(lt, _phi(lt @ g))            # L^{-T} Phi(L^T G)
    p = _t(np.linalg.solve(lt, _t(z)))               # ... L^{-1}
    return _phi(p + _t(p))


def la_where_eye(keep, a):
    """a where keep holds, the identity elsewhere (lanes a condition discards: catad.backend.linalg)."""
    return np.where(keep, a, np.eye(np.shape(a)[-1]))


KERNELS = {f.__name__: f for f in (la_where_eye, la_det, la_slogdet, la_inv, la_solve, la_cholesky, la_logdet_jvp,
                                   la_logdet_vjp, la_inv_jvp, la_inv_vjp, la_lsolve, la_lsolve_t,
                                   la_neg_matmul, la_neg_matmul_t, la_chol_jvp, la_chol_vjp)}
