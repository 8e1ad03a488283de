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


def _lower_cotangent(g):
    """A cotangent of a Cholesky factor L (None for the symbolic zero) without its upper
    triangle: L's zeros there do not depend on A, and an inf or NaN there (the cotangent of
    np.sqrt(np.abs(L)) at them) would meet L^T's zeros in L^T G as a NaN."""
    g = _dense(g)
    return None if g is None else np.tril(g)


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


# ---------------------------------------------------------------- derivatives of det
# d det A = tr(adj(A) dA) (Jacobi's formula) holds at every A, singular ones too, where
# det(A) A^{-1} does not exist: the adjugate is taken from the SVD there.

def _adjugate(a):
    """adj(A) of every matrix of a stack, singular or not: by the SVD (_adjugate_svd) where the
    matrix is finite; by its minors where it holds an inf or a nan, whose SVD LAPACK never ends
    (inf) or fails (nan), and whose adjugate is what the determinants of its minors give, as
    np.linalg.det gives det(A) of such a matrix."""
    a = np.asarray(a, dtype=np.float64)
    finite = np.isfinite(a).all(axis=(-2, -1))
    if finite.all():
        return _adjugate_svd(a)
    out = np.empty(a.shape)
    out[finite] = _adjugate_svd(a[finite])
    out[~finite] = _adjugate_by_minors(a[~finite])
    return out


def _adjugate_by_minors(a):
    """adj(A)[j, i] = (-1)^(i + j) det(A without row i and column j), for every matrix of a stack."""
    n = a.shape[-1]
    if n == 1:
        return np.ones(a.shape)
    out = np.empty(a.shape)
    for i in range(n):
        rows = np.delete(a, i, axis=-2)
        for j in range(n):
            out[..., j, i] = (-1.0) ** (i + j) * np.linalg.det(np.delete(rows, j, axis=-1))
    return out


def _adjugate_svd(a):
    """adj(A) of every finite matrix of a stack, singular or not, by the SVD A = U S V^T:
    adj(A) = det(U) det(V) V diag(prod_{j != i} s_j) U^T (adj(XY) = adj(Y) adj(X), and
    adj(Q) = det(Q) Q^T for an orthogonal Q)."""
    u, s, vt = np.linalg.svd(a)
    n = s.shape[-1]
    others = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1)
    sign = np.linalg.det(u) * np.linalg.det(vt)
    return sign[..., None, None] * ((_t(vt) * others[..., None, :]) @ _t(u))


def _adj_t(a):
    """adj(A)^T = det(A) A^{-T}: by one solve where every matrix is regular and finite, else as
    _adjugate makes it (a solve with an inf or a nan makes every entry nan, where the cofactors
    of the entries a nan or inf is not in are numbers)."""
    n = np.shape(a)[-1]
    try:
        if not np.isfinite(a).all():
            raise np.linalg.LinAlgError
        inv_t = np.linalg.solve(_t(a), np.broadcast_to(np.eye(n), np.shape(a)))
    except np.linalg.LinAlgError:
        return _t(_adjugate(a))
    return np.linalg.det(a)[..., None, None] * inv_t


def la_det_jvp(a, da):
    """d det A = tr(adj(A) dA) = sum(adj(A)^T * dA)."""
    da = _dense(da)
    if da is None:
        return ZERO
    return np.einsum("...ij,...ij->...", _adj_t(a), da)


def la_det_vjp(a, g):
    """The transpose: g -> g adj(A)^T (the whole gradient)."""
    g = _dense(g)
    if g is None:
        return ZERO
    return g[..., None, None] * _adj_t(a)


# ---------------------------------------------------------------- derivatives of log|det|
# log|det A| is -inf at a singular A and has no derivative there: its derivatives' solves give
# nan in those matrices' lanes (a stack's regular matrices keep theirs), as NumPy's arithmetic
# gives nan where a value has none, not np.linalg's LinAlgError (nothing the user wrote raised).

def _solve_or_nan(a, b):
    """np.linalg.solve(a, b) of matrices b, nan in the lanes whose matrix is singular."""
    try:
        return np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        a, b = np.broadcast_arrays(a, b)
        out = np.full(b.shape, np.nan)
        for lane in np.ndindex(a.shape[:-2]):
            try:
                out[lane] = np.linalg.solve(a[lane], b[lane])
            except np.linalg.LinAlgError:
                pass
        return out


def la_logdet_jvp(a, da):
    """d log|det A| = tr(A^{-1} dA), by one solve."""
    da = _dense(da)
    if da is None:
        return ZERO
    return np.trace(_solve_or_nan(a, da), axis1=-2, axis2=-1)


def la_logdet_vjp(a, g):
    """The transpose: g -> g A^{-T} (A^{-T} = solve(A^T, I), the whole gradient)."""
    g = _dense(g)
    if g is None:
        return ZERO
    n = np.shape(a)[-1]
    return g[..., None, None] * _solve_or_nan(_t(a), np.broadcast_to(np.eye(n), np.shape(a)))


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
    # nan where A^T's LU meets a zero pivot its own did not (A holding a nan or an inf, whose solve
    # NumPy gave as nan): nothing the user wrote raised
    if g.ndim == 1 if vec is None else vec:
        return _solve_or_nan(_t(a), np.asarray(g)[..., None])[..., 0]
    return _solve_or_nan(_t(a), g)


# Differentiated again (issue 17), x is the first derivative's value, which may be a tangent (the
# zero tangent or an index update at run time): these products take it too.

def _mv(m, x, vec: bool):
    """m x for a vector or a matrix x (stacks of them)."""
    return (m @ x[..., None])[..., 0] if vec else m @ x


def _outer(x, y, vec: bool):
    """x y^T for two vectors or two matrices (stacks of them)."""
    return x[..., :, None] * y[..., None, :] if vec else x @ _t(y)


def la_neg_matmul(x, da, vec: bool | None = None):
    """dA -> -dA x (x a vector or a matrix)."""
    x, da = _dense(x), _dense(da)
    if x is None or da is None:
        return ZERO
    return -_mv(da, x, x.ndim == 1 if vec is None else vec)


def la_neg_matmul_t(x, g, vec: bool | None = None):
    """Its transpose: g -> -g x^T (an outer product for vectors)."""
    x, g = _dense(x), _dense(g)
    if x is None or g is None:
        return ZERO
    return -_outer(g, x, x.ndim == 1 if vec is None else vec)


# The same product -M x in its other factors, for the second derivatives of lsolve, lsolve_t,
# neg_matmul and neg_matmul_t (catad.ad.rules: the six maps are closed under differentiation).

def la_neg_tmatmul(y, da, vec: bool | None = None):
    """dA -> -dA^T y (the part of d A^{-T} g that dA makes, before the solve)."""
    y, da = _dense(y), _dense(da)
    if y is None or da is None:
        return ZERO
    return -_mv(_t(da), y, y.ndim == 1 if vec is None else vec)


def la_neg_tmatmul_t(y, g, vec: bool | None = None):
    """Its transpose: g -> -y g^T."""
    y, g = _dense(y), _dense(g)
    if y is None or g is None:
        return ZERO
    return -_outer(y, g, y.ndim == 1 if vec is None else vec)


def la_mul_neg(m, x, vec: bool | None = None):
    """x -> -M x."""
    m, x = _dense(m), _dense(x)
    if m is None or x is None:
        return ZERO
    return -_mv(m, x, x.ndim == 1 if vec is None else vec)


def la_mul_neg_t(m, g, vec: bool | None = None):
    """Its transpose: g -> -M^T g."""
    m, g = _dense(m), _dense(g)
    if m is None or g is None:
        return ZERO
    return -_mv(_t(m), g, g.ndim == 1 if vec is None else vec)


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
    g = _lower_cotangent(g)
    if g is None:
        return ZERO
    lt = _t(lo)
    z = np.linalg.solve(lt, _phi(lt @ g))            # L^{-T} Phi(L^T G)
    p = _t(np.linalg.solve(lt, _t(z)))               # ... L^{-1}
    return _phi(p + _t(p))


# ---------------------------------------------------------------- second derivatives (issue 17)
# The actions above differentiated in their primal argument, at a fixed tangent (dA, g, ...;
# possibly the zero tangent or an index update), each with its transpose. From
# d A^{-1} = -A^{-1} dA A^{-1} (Giles 2008, "Collected matrix derivative results"), and for
# cholesky by differentiating Murray's formulas above in L.

def _scalar(k):
    """A Float (per lane: an array of the batch axes) that multiplies matrices."""
    return np.asarray(k, dtype=np.float64)[..., None, None]


def _sandwich_t(a, x):
    """(A^{-1} X A^{-1})^T = A^{-T} X^T A^{-T}, by two solves."""
    y = _solve_or_nan(a, x)                          # A^{-1} X
    return _solve_or_nan(_t(a), _t(y))               # A^{-T} (A^{-1} X)^T


def la_logdet_hvp(a, da, e):
    """e -> d tr(A^{-1} dA) = -tr(A^{-1} e A^{-1} dA)."""
    da, e = _dense(da), _dense(e)
    if da is None or e is None:
        return ZERO
    return -np.einsum("...ij,...ji->...", _solve_or_nan(a, e), _solve_or_nan(a, da))


def la_logdet_hvp_t(a, da, k):
    """Its transpose: k -> -k A^{-T} dA^T A^{-T}."""
    da, k = _dense(da), _dense(k)
    if da is None or k is None:
        return ZERO
    return -_scalar(k) * _sandwich_t(a, da)


def la_logdet_vjp_da(a, g, e):
    """e -> d (g A^{-T}) = -g A^{-T} e^T A^{-T}: its own transpose (X -> C X^T C is self-adjoint)."""
    g, e = _dense(g), _dense(e)
    if g is None or e is None:
        return ZERO
    return -_scalar(g) * _sandwich_t(a, e)


def _det_second(a, x):
    """G with d^2 det(A)[X, E] = sum(G * E), symmetric in X and E. Where A is regular:
    det(A) (tr(A^{-1} X) A^{-T} - A^{-T} X^T A^{-T}); where it is not, from the expansion of
    d^2 det as determinants with two columns replaced: G[:, j] = sum_{i != j} adj(B_i)^T[:, j],
    B_i being A with its column i replaced by X's."""
    n = np.shape(a)[-1]
    try:
        if not np.isfinite(a).all():  # (as _adj_t)
            raise np.linalg.LinAlgError
        inv_t = np.linalg.solve(_t(a), np.broadcast_to(np.eye(n), np.shape(a)))
    except np.linalg.LinAlgError:
        out = np.zeros(np.broadcast_shapes(np.shape(a), np.shape(x)))
        for i in range(n):
            b = np.array(np.broadcast_to(a, out.shape))
            b[..., :, i] = np.broadcast_to(x, out.shape)[..., :, i]
            cof = _t(_adjugate(b))
            cof[..., :, i] = 0.0
            out += cof
        return out
    trace = np.einsum("...ij,...ij->...", inv_t, x)
    return np.linalg.det(a)[..., None, None] * (trace[..., None, None] * inv_t - inv_t @ _t(x) @ inv_t)


def la_det_hvp(a, da, e):
    """e -> d tr(adj(A) dA) = d^2 det(A)[dA, e]."""
    da, e = _dense(da), _dense(e)
    if da is None or e is None:
        return ZERO
    return np.einsum("...ij,...ij->...", _det_second(a, da), e)


def la_det_hvp_t(a, da, k):
    """Its transpose: k -> k G(A, dA)."""
    da, k = _dense(da), _dense(k)
    if da is None or k is None:
        return ZERO
    return _scalar(k) * _det_second(a, da)


def la_det_vjp_da(a, g, e):
    """e -> d (g adj(A)^T) = g G(A, e): its own transpose (d^2 det is symmetric)."""
    g, e = _dense(g), _dense(e)
    if g is None or e is None:
        return ZERO
    return _scalar(g) * _det_second(a, e)


def la_inv_jvp_db(b, x, e):
    """e -> d (-B X B) in B = -(e X B + B X e)."""
    x, e = _dense(x), _dense(e)
    if x is None or e is None:
        return ZERO
    return -(e @ x @ b + b @ x @ e)


def la_inv_jvp_db_t(b, x, h):
    """Its transpose: H -> -(H B^T X^T + X^T B^T H)."""
    x, h = _dense(x), _dense(h)
    if x is None or h is None:
        return ZERO
    bt, xt = _t(b), _t(x)
    return -(h @ bt @ xt + xt @ bt @ h)


def la_inv_vjp_db(b, x, e):
    """e -> d (-B^T X B^T) in B = -(e^T X B^T + B^T X e^T)."""
    x, e = _dense(x), _dense(e)
    if x is None or e is None:
        return ZERO
    bt, et = _t(b), _t(e)
    return -(et @ x @ bt + bt @ x @ et)


def la_inv_vjp_db_t(b, x, h):
    """Its transpose: H -> -(X B^T H^T + H^T B^T X)."""
    x, h = _dense(x), _dense(h)
    if x is None or h is None:
        return ZERO
    bt, ht = _t(b), _t(h)
    return -(x @ bt @ ht + ht @ bt @ x)


def _chol_z(lo, da):
    """Z = L^{-1} sym(dA) L^{-T} (symmetric), as in la_chol_jvp."""
    y = np.linalg.solve(lo, _sym_lower(da))
    return _t(np.linalg.solve(lo, _t(y)))


def la_chol_jvp_dl(lo, da, e):
    """e -> d (L Phi(Z)) in L, Z = L^{-1} S L^{-T}: e Phi(Z) - L Phi(K + K^T), K = L^{-1} e Z."""
    da, e = _dense(da), _dense(e)
    if da is None or e is None:
        return ZERO
    z = _chol_z(lo, da)
    k = np.linalg.solve(lo, e) @ z
    return e @ _phi(z) - lo @ _phi(k + _t(k))


def la_chol_jvp_dl_t(lo, da, g):
    """Its transpose: G -> G Phi(Z)^T - L^{-T} (H + H^T) Z, H = Phi(L^T G)."""
    da, g = _dense(da), _dense(g)
    if da is None or g is None:
        return ZERO
    z = _chol_z(lo, da)
    h = _phi(_t(lo) @ g)
    return g @ _t(_phi(z)) - np.linalg.solve(_t(lo), h + _t(h)) @ z


def _chol_p(lo, g):
    """P = L^{-T} Phi(L^T G) L^{-1}, as in la_chol_vjp."""
    lt = _t(lo)
    z = np.linalg.solve(lt, _phi(lt @ g))
    return _t(np.linalg.solve(lt, _t(z)))


def _linv_right(lo, x):
    """X L^{-1} = (L^{-T} X^T)^T."""
    return _t(np.linalg.solve(_t(lo), _t(x)))


def la_chol_vjp_dl(lo, g, e):
    """e -> d Phi(P + P^T) in L: Phi(Q + Q^T), Q = dP = -L^{-T} e^T P - P e L^{-1} + L^{-T} Phi(e^T G) L^{-1}."""
    g, e = _lower_cotangent(g), _dense(e)
    if g is None or e is None:
        return ZERO
    p = _chol_p(lo, g)
    lt = _t(lo)
    q = -np.linalg.solve(lt, _t(e) @ p) - _linv_right(lo, p @ e) + _linv_right(lo, np.linalg.solve(lt, _phi(_t(e) @ g)))
    return _phi(q + _t(q))


def la_chol_vjp_dl_t(lo, g, h):
    """Its transpose: H -> -(P + P^T) R L^{-T} + G Phi(L^{-1} R L^{-T})^T, R = Phi(H) + Phi(H)^T."""
    g, h = _lower_cotangent(g), _dense(h)
    if g is None or h is None:
        return ZERO
    p = _chol_p(lo, g)
    r = _phi(h) + _t(_phi(h))
    lr = np.linalg.solve(lo, r)                      # L^{-1} R
    lrl = _t(np.linalg.solve(lo, _t(lr)))            # L^{-1} R L^{-T}
    return -_t(np.linalg.solve(lo, _t((p + _t(p)) @ r))) + g @ _t(_phi(lrl))


def la_lstsq(a, b, rcond):
    """np.linalg.lstsq(a, b, rcond): NumPy's own (x, residuals, rank, s), the rank an int (the
    front end adds the derivative: catad/frontend/lstsq.py)."""
    x, res, rnk, s = np.linalg.lstsq(a, b, rcond=float(rcond))
    return x, res, int(rnk), s


def la_where_eye(keep, a):
    """a where keep holds, the identity elsewhere (lanes a condition discards: catad.backend.linalg)."""
    return np.where(keep, a, np.eye(np.shape(a)[-1]))


KERNELS = {f.__name__: f for f in (la_where_eye, la_lstsq, la_det, la_slogdet, la_inv, la_solve, la_cholesky,
                                   la_det_jvp, la_det_vjp, la_det_hvp, la_det_hvp_t, la_det_vjp_da, la_logdet_jvp,
                                   la_logdet_vjp, la_inv_jvp, la_inv_vjp, la_lsolve, la_lsolve_t,
                                   la_neg_matmul, la_neg_matmul_t, la_chol_jvp, la_chol_vjp, la_neg_tmatmul,
                                   la_neg_tmatmul_t, la_mul_neg, la_mul_neg_t, la_logdet_hvp, la_logdet_hvp_t,
                                   la_logdet_vjp_da, la_inv_jvp_db, la_inv_jvp_db_t, la_inv_vjp_db, la_inv_vjp_db_t,
                                   la_chol_jvp_dl, la_chol_jvp_dl_t, la_chol_vjp_dl, la_chol_vjp_dl_t)}
