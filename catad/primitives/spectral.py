"""Decompositions and the matrix exponential: np.linalg's svd, eigh and eigvalsh, and
scipy.linalg.expm, with the linear maps of their derivatives, as NumPy functions of stacks of
matrices (the conventions of catad/primitives/linalg.py: the last two axes are the matrix, the
axes before them broadcast; the same functions are the reference implementations and what the
backend calls on whole batches).

The values are NumPy's and SciPy's own (the kernels call them), so the signs and the order of
singular and eigen vectors are LAPACK's exactly: the derivatives below are those of the vectors
these calls return, whatever sign they chose. Static options (UPLO, full_matrices) are Int
arguments (0 or 1), constants of the program.

Derivatives, with F the matrix of inverse gaps (0 on the diagonal):

* eigh (A = V diag(w) V^T of the symmetric matrix S that the triangle UPLO names makes):
  dw_i = v_i^T dS v_i, dV = V (F o (V^T dS V)), F_ij = 1 / (w_j - w_i) (e.g. Giles 2008, "An
  extended collection of matrix derivative results for forward and reverse mode AD", 3.1);
  their transposes g -> sym*(V diag(g) V^T) and G -> sym*(V (F o (V^T G)) V^T), sym* the
  transpose of reading one triangle. At a repeated eigenvalue the eigenvectors have no
  derivative: F is infinite there, and so is what it multiplies (the eigenvalues' derivative
  does not use F).
* svd (A = U diag(s) V^T, the reduced decomposition, k = min(m, n); Townsend 2016,
  "Differentiating the singular value decomposition"; Ionescu et al. 2015): with C = U^T dA V
  and F_ij = 1 / (s_j^2 - s_i^2),
      ds = diag(C),
      dU = U (F o (C S + S C^T)) + (I - U U^T) dA V S^{-1},
      dV = V (F o (S C + C^T S)) + (I - V V^T) dA^T U S^{-1},
  and the transposes are Townsend's (3 maps: one per result, each its own pair).
* expm: the Frechet derivative L(A, E) is the top-right block of expm([[A, E], [0, A]])
  (Higham, "Functions of Matrices", 2008, eq. 3.16; Mathias 1996), and its adjoint is
  L(A^T, G) (the exponential's power series has real coefficients). E is scaled to A's norm
  first (L is linear in E), so that the block matrix is no harder for SciPy's Pade
  approximant than A is.
"""
from __future__ import annotations

import numpy as np

from ..tangents import ZERO
from .linalg import _dense, _t


def _uplo(upper) -> str:
    return "U" if int(upper) else "L"


def _sym(x, upper):
    """The symmetric matrix x's lower (upper) triangle makes: what eigh reads of a tangent."""
    if int(upper):
        return np.triu(x) + _t(np.triu(x, 1))
    return np.tril(x) + _t(np.tril(x, -1))


def _sym_t(g, upper):
    """The transpose of _sym: the cotangent of the triangle read (the other triangle's is 0)."""
    if int(upper):
        return np.triu(g) + np.triu(_t(g), 1)
    return np.tril(g) + np.tril(_t(g), -1)


def _inverse_gaps(w):
    """F_ij = 1 / (w_j - w_i) off the diagonal, 0 on it (inf where two values are equal)."""
    gaps = w[..., None, :] - w[..., :, None]
    n = np.shape(w)[-1]
    with np.errstate(divide="ignore"):
        return np.where(np.eye(n, dtype=bool), 0.0, 1.0 / np.where(np.eye(n, dtype=bool), 1.0, gaps))


def _errstate():
    return np.errstate(invalid="ignore", divide="ignore", over="ignore")


# ---------------------------------------------------------------- eigh and eigvalsh

def la_eigh(a, upper):
    w, v = np.linalg.eigh(a, UPLO=_uplo(upper))
    return w, v


def la_eigvalsh(a, upper):
    return np.linalg.eigvalsh(a, UPLO=_uplo(upper))


def la_eigvals_jvp(v, upper, da):
    """dw_i = v_i^T dS v_i."""
    da = _dense(da)
    if da is None:
        return ZERO
    return np.einsum("...ji,...jk,...ki->...i", v, _sym(da, upper), v)


def la_eigvals_vjp(v, upper, g):
    """g -> sym*(V diag(g) V^T)."""
    g = _dense(g)
    if g is None:
        return ZERO
    return _sym_t((v * g[..., None, :]) @ _t(v), upper)


def la_eigvecs_jvp(w, v, upper, da):
    """dV = V (F o (V^T dS V))."""
    da = _dense(da)
    if da is None:
        return ZERO
    with _errstate():
        return v @ (_inverse_gaps(w) * (_t(v) @ _sym(da, upper) @ v))


def la_eigvecs_vjp(w, v, upper, g):
    """G -> sym*(V (F o (V^T G)) V^T)."""
    g = _dense(g)
    if g is None:
        return ZERO
    with _errstate():
        return _sym_t(v @ (_inverse_gaps(w) * (_t(v) @ g)) @ _t(v), upper)


# Second derivatives (issue 17): the eigenvalues' maps are bilinear in V and the tangent, so
# their derivatives in V (at a fixed dA or g; S = sym(dA), D = diag(g)) are
#   d diag(V^T S V) = 2 diag(V^T S dV),            transpose g -> 2 S V diag(g);
#   d sym*(V D V^T) = sym*(dV D V^T + V D dV^T),   transpose H -> 2 sym(H) V D.
# (The eigenvectors' maps, which hold the gaps F, have no second derivative yet.)

def la_eigvals_jvp_dv(v, upper, da, e):
    da, e = _dense(da), _dense(e)
    if da is None or e is None:
        return ZERO
    return 2.0 * np.einsum("...ji,...jk,...ki->...i", v, _sym(da, upper), e)


def la_eigvals_jvp_dv_t(v, upper, da, g):
    da, g = _dense(da), _dense(g)
    if da is None or g is None:
        return ZERO
    return 2.0 * _sym(da, upper) @ (v * g[..., None, :])


def la_eigvals_vjp_dv(v, upper, g, e):
    g, e = _dense(g), _dense(e)
    if g is None or e is None:
        return ZERO
    vd = v * g[..., None, :]
    return _sym_t(e * g[..., None, :] @ _t(v) + vd @ _t(e), upper)


def la_eigvals_vjp_dv_t(v, upper, g, h):
    g, h = _dense(g), _dense(h)
    if g is None or h is None:
        return ZERO
    return 2.0 * _sym(h, upper) @ (v * g[..., None, :])


# The eigenvectors' maps, dV = V (F o (V^T dS V)) and G -> sym*(V (F o (V^T G)) V^T), depend on w
# through F (dF_ij = -F_ij^2 (dw_j - dw_i)) and on V. With C = V^T dS V (B = V^T G for the
# transpose), Q = F o C (F o B) and, for a cotangent H, K = V^T H (V^T sym(H) V), P = -K o C o F^2
# (-K o B o F^2):
#   in w:  dw -> V (dF o C) V^0,           transpose  H -> colsum(P) - rowsum(P);
#   eigvecs_jvp in V:  E -> E Q + V (F o (E^T dS V + V^T dS E)),   transpose  H -> H Q^T + dS V (J + J^T),
#                      J = F o (V^T H);
#   eigvecs_vjp in V:  E -> sym*(E Q V^T + V (F o (E^T G)) V^T + V Q E^T),
#                      transpose  H -> Hs V (Q + Q^T) + G (F o (V^T Hs V))^T, Hs = sym(H).

def _gap_sums(p):
    """colsum(P) - rowsum(P): the cotangent of w through dF_ij = -F_ij^2 (dw_j - dw_i), P carrying -F^2."""
    return np.sum(p, axis=-2) - np.sum(p, axis=-1)


def la_eigvecs_jvp_dw(w, v, upper, da, e):
    da, e = _dense(da), _dense(e)
    if da is None or e is None:
        return ZERO
    with _errstate():
        f = _inverse_gaps(w)
        df = -f * f * (e[..., None, :] - e[..., :, None])
        return v @ (df * (_t(v) @ _sym(da, upper) @ v))


def la_eigvecs_jvp_dw_t(w, v, upper, da, h):
    da, h = _dense(da), _dense(h)
    if da is None or h is None:
        return ZERO
    with _errstate():
        f = _inverse_gaps(w)
        return _gap_sums(-(_t(v) @ h) * (_t(v) @ _sym(da, upper) @ v) * f * f)


def la_eigvecs_jvp_dv(w, v, upper, da, e):
    da, e = _dense(da), _dense(e)
    if da is None or e is None:
        return ZERO
    with _errstate():
        f, s = _inverse_gaps(w), _sym(da, upper)
        q = f * (_t(v) @ s @ v)
        return e @ q + v @ (f * (_t(e) @ s @ v + _t(v) @ s @ e))


def la_eigvecs_jvp_dv_t(w, v, upper, da, h):
    da, h = _dense(da), _dense(h)
    if da is None or h is None:
        return ZERO
    with _errstate():
        f, s = _inverse_gaps(w), _sym(da, upper)
        q = f * (_t(v) @ s @ v)
        j = f * (_t(v) @ h)
        return h @ _t(q) + s @ v @ (j + _t(j))


def la_eigvecs_vjp_dw(w, v, upper, g, e):
    g, e = _dense(g), _dense(e)
    if g is None or e is None:
        return ZERO
    with _errstate():
        f = _inverse_gaps(w)
        df = -f * f * (e[..., None, :] - e[..., :, None])
        return _sym_t(v @ (df * (_t(v) @ g)) @ _t(v), upper)


def la_eigvecs_vjp_dw_t(w, v, upper, g, h):
    g, h = _dense(g), _dense(h)
    if g is None or h is None:
        return ZERO
    with _errstate():
        f = _inverse_gaps(w)
        return _gap_sums(-(_t(v) @ _sym(h, upper) @ v) * (_t(v) @ g) * f * f)


def la_eigvecs_vjp_dv(w, v, upper, g, e):
    g, e = _dense(g), _dense(e)
    if g is None or e is None:
        return ZERO
    with _errstate():
        f = _inverse_gaps(w)
        q = f * (_t(v) @ g)
        return _sym_t(e @ q @ _t(v) + v @ (f * (_t(e) @ g)) @ _t(v) + v @ q @ _t(e), upper)


def la_eigvecs_vjp_dv_t(w, v, upper, g, h):
    g, h = _dense(g), _dense(h)
    if g is None or h is None:
        return ZERO
    with _errstate():
        f = _inverse_gaps(w)
        q = f * (_t(v) @ g)
        hs = _sym(h, upper)
        return hs @ v @ (q + _t(q)) + g @ _t(f * (_t(v) @ hs @ v))


EIGVECS_AGAIN = ("eigvecs_jvp_dw", "eigvecs_jvp_dw_t", "eigvecs_jvp_dv", "eigvecs_jvp_dv_t", "eigvecs_vjp_dw",
                 "eigvecs_vjp_dw_t", "eigvecs_vjp_dv", "eigvecs_vjp_dv_t")


# ---------------------------------------------------------------- svd

def la_svd(a, full):
    """np.linalg.svd(a, full_matrices=full), but NaN where a matrix holds an inf: LAPACK's
    decomposition with U and V never returns there (NumPy's hangs), where its singular values
    alone are NaN (np.linalg.svd(a, compute_uv=False)), and the derivatives of those ask for U
    and V. (A NaN without an inf is NumPy's LinAlgError, as there.)"""
    a = np.asarray(a, dtype=np.float64)
    full = bool(int(full))
    infinite = np.isinf(a).any(axis=(-2, -1))
    if not infinite.any():
        return tuple(np.linalg.svd(a, full_matrices=full))
    m, n = a.shape[-2:]
    k = min(m, n)
    u = np.full(a.shape[:-2] + (m, m if full else k), np.nan)
    s = np.full(a.shape[:-2] + (k,), np.nan)
    vt = np.full(a.shape[:-2] + (n if full else k, n), np.nan)
    finite = ~infinite
    if finite.any():
        u[finite], s[finite], vt[finite] = np.linalg.svd(a[finite], full_matrices=full)
    return u, s, vt


def la_svdvals(a):
    return np.linalg.svd(a, compute_uv=False)


def la_svals_jvp(u, vt, da):
    """ds_k = u_k^T dA v_k."""
    da = _dense(da)
    if da is None:
        return ZERO
    return np.einsum("...ik,...ij,...kj->...k", u, da, vt)


def la_svals_vjp(u, vt, g):
    """g -> U diag(g) V^T."""
    g = _dense(g)
    if g is None:
        return ZERO
    return (u * g[..., None, :]) @ vt


# Second derivatives (issue 17): ds = diag(U^T dA V) is trilinear in U, dA and V^T, and its
# transpose U diag(g) V^T in U, g and V^T, so each one's derivative in U or V^T (at a fixed dA or
# g) is the same product with the factor replaced, and its transpose a product too. (The
# singular vectors' maps, which hold the gaps, have no second derivative yet.)

def la_svals_jvp_du(u, vt, da, e):
    """E -> diag(E^T dA V)."""
    da, e = _dense(da), _dense(e)
    return ZERO if da is None or e is None else np.einsum("...ik,...ij,...kj->...k", e, da, vt)


def la_svals_jvp_du_t(u, vt, da, g):
    """g -> dA V diag(g)."""
    da, g = _dense(da), _dense(g)
    return ZERO if da is None or g is None else (da @ _t(vt)) * g[..., None, :]


def la_svals_jvp_dvt(u, vt, da, e):
    """E -> diag(U^T dA E^T) (E a tangent of V^T)."""
    da, e = _dense(da), _dense(e)
    return ZERO if da is None or e is None else np.einsum("...ik,...ij,...kj->...k", u, da, e)


def la_svals_jvp_dvt_t(u, vt, da, g):
    """g -> diag(g) U^T dA."""
    da, g = _dense(da), _dense(g)
    return ZERO if da is None or g is None else g[..., :, None] * (_t(u) @ da)


def la_svals_vjp_du(u, vt, g, e):
    """E -> E diag(g) V^T."""
    g, e = _dense(g), _dense(e)
    return ZERO if g is None or e is None else (e * g[..., None, :]) @ vt


def la_svals_vjp_du_t(u, vt, g, h):
    """H -> H V diag(g)."""
    g, h = _dense(g), _dense(h)
    return ZERO if g is None or h is None else (h @ _t(vt)) * g[..., None, :]


def la_svals_vjp_dvt(u, vt, g, e):
    """E -> U diag(g) E."""
    g, e = _dense(g), _dense(e)
    return ZERO if g is None or e is None else (u * g[..., None, :]) @ e


def la_svals_vjp_dvt_t(u, vt, g, h):
    """H -> diag(g) U^T H."""
    g, h = _dense(g), _dense(h)
    return ZERO if g is None or h is None else g[..., :, None] * (_t(u) @ h)


SVALS_AGAIN = ("svals_jvp_du", "svals_jvp_du_t", "svals_jvp_dvt", "svals_jvp_dvt_t", "svals_vjp_du", "svals_vjp_du_t",
               "svals_vjp_dvt", "svals_vjp_dvt_t")


# The singular vectors' maps differentiated again (issue 17): each of svdu_jvp, svdvt_jvp (the
# forward actions f(U, s, V^T; X), linear in X) is differentiated in U, s and V^T by the product
# rule (_d_svdu, _d_svdvt), its adjoint in those (the cotangents of U, s, V^T of <f(.; X), H>)
# by reverse mode through the same formula (_r_svdu, _r_svdvt), and the transposed actions
# svdu_vjp, svdvt_vjp (g(.; R), linear in R) by the product rule (_d_svdu_vjp, _d_svdvt_vjp).
# The adjoint of the map P -> d g(P; R)[P] is y -> the cotangent of P of <f(P; y), R>, because
# <g(P; R), y> = <f(P; y), R>. With F the inverse gaps of s^2 and dF_ij = -F_ij^2 (2 s_j ds_j -
# 2 s_i ds_i), whose adjoint takes P (carrying -2 F^2) to s o (colsum(P) - rowsum(P)).

def _dgaps(f, s, ds):
    return -f * f * (2.0 * (s * ds)[..., None, :] - 2.0 * (s * ds)[..., :, None])


def _gap_cot(p, s):
    return s * (np.sum(p, axis=-2) - np.sum(p, axis=-1))


def _d_svdu(u, s, vt, x, du, ds, dvt):
    """d svdu_jvp(U, s, V^T; X) along (dU, ds, dV^T)."""
    v, dv = _t(vt), _t(dvt)
    f = _inverse_gaps(s * s)
    xv = x @ v
    c = _t(u) @ xv
    m = c * s[..., None, :] + s[..., :, None] * _t(c)
    inner = f * m
    dc = _t(du) @ xv + _t(u) @ x @ dv
    dm = dc * s[..., None, :] + s[..., :, None] * _t(dc) + c * ds[..., None, :] + ds[..., :, None] * _t(c)
    dinner = _dgaps(f, s, ds) * m + f * dm
    r = xv - u @ c
    return du @ inner + u @ dinner + (x @ dv - du @ c - u @ dc) / s[..., None, :] - r * (ds / (s * s))[..., None, :]


def _r_svdu(u, s, vt, x, h):
    """The cotangents (of U, s, V^T) of <svdu_jvp(U, s, V^T; X), H>."""
    v = _t(vt)
    f = _inverse_gaps(s * s)
    xv = x @ v
    c = _t(u) @ xv
    m = c * s[..., None, :] + s[..., :, None] * _t(c)
    hs = h / s[..., None, :]
    k = _t(u) @ h
    j = f * k
    gc = (j + _t(j)) * s[..., None, :] - _t(u) @ hs
    gu = h @ _t(f * m) - hs @ _t(c) + xv @ _t(gc)
    gv = _t(x) @ hs + _t(x) @ u @ gc
    r = xv - u @ c
    gs = (-np.sum(r * h, axis=-2) / (s * s) + _gap_cot(-2.0 * f * f * k * m, s) + np.sum(c * j, axis=-2)
          + np.sum(_t(c) * j, axis=-1))
    return gu, gs, _t(gv)


def _d_svdu_vjp(u, s, vt, g, du, ds, dvt):
    """d svdu_vjp(U, s, V^T; G) along (dU, ds, dV^T)."""
    f = _inverse_gaps(s * s)
    utg = _t(u) @ g
    j = f * utg
    dj = _dgaps(f, s, ds) * utg + f * (_t(du) @ g)
    rest = g - u @ utg
    w = u @ ((j + _t(j)) * s[..., None, :]) + rest / s[..., None, :]
    dw = (du @ ((j + _t(j)) * s[..., None, :]) + u @ ((dj + _t(dj)) * s[..., None, :] + (j + _t(j)) * ds[..., None, :])
          - (du @ utg + u @ (_t(du) @ g)) / s[..., None, :] - rest * (ds / (s * s))[..., None, :])
    return dw @ vt + w @ dvt


def _d_svdvt(u, s, vt, x, du, ds, dvt):
    """d svdvt_jvp(U, s, V^T; X) along (dU, ds, dV^T)."""
    v, dv = _t(vt), _t(dvt)
    f = _inverse_gaps(s * s)
    xtu = _t(x) @ u
    c = _t(xtu) @ v
    m = s[..., :, None] * c + _t(c) * s[..., None, :]
    dc = _t(du) @ x @ v + _t(xtu) @ dv
    dm = ds[..., :, None] * c + s[..., :, None] * dc + _t(dc) * s[..., None, :] + _t(c) * ds[..., None, :]
    dinner = _dgaps(f, s, ds) * m + f * dm
    r = xtu - v @ _t(c)
    dy = (dv @ (f * m) + v @ dinner + (_t(x) @ du - dv @ _t(c) - v @ _t(dc)) / s[..., None, :]
          - r * (ds / (s * s))[..., None, :])
    return _t(dy)


def _r_svdvt(u, s, vt, x, h):
    """The cotangents (of U, s, V^T) of <svdvt_jvp(U, s, V^T; X), H>."""
    v = _t(vt)
    f = _inverse_gaps(s * s)
    xtu = _t(x) @ u
    c = _t(xtu) @ v
    m = s[..., :, None] * c + _t(c) * s[..., None, :]
    hy = _t(h)
    hs = hy / s[..., None, :]
    k = _t(v) @ hy
    j = f * k
    gc = s[..., :, None] * (j + _t(j)) - _t(hs) @ v
    gu = x @ hs + x @ v @ _t(gc)
    gv = hy @ _t(f * m) - hs @ c + xtu @ gc
    r = xtu - v @ _t(c)
    gs = (-np.sum(r * hy, axis=-2) / (s * s) + _gap_cot(-2.0 * f * f * k * m, s) + np.sum(c * j, axis=-1)
          + np.sum(_t(c) * j, axis=-2))
    return gu, gs, _t(gv)


def _d_svdvt_vjp(u, s, vt, g, du, ds, dvt):
    """d svdvt_vjp(U, s, V^T; G) along (dU, ds, dV^T)."""
    f = _inverse_gaps(s * s)
    q = vt @ _t(g)
    kk = f * q
    dq = dvt @ _t(g)
    dkk = _dgaps(f, s, ds) * q + f * dq
    rest = g - _t(q) @ vt
    z = s[..., :, None] * (kk + _t(kk)) @ vt + rest / s[..., :, None]
    dz = (ds[..., :, None] * (kk + _t(kk)) @ vt + s[..., :, None] * (dkk + _t(dkk)) @ vt
          + s[..., :, None] * (kk + _t(kk)) @ dvt - rest * (ds / (s * s))[..., :, None]
          - (_t(dq) @ vt + _t(q) @ dvt) / s[..., :, None])
    return du @ z + u @ dz


_SVD_PARTS = ("du", "ds", "dvt")


def _svd_action(kind: str, name: str, part: str):
    """The kernel name_part(U, s, V^T, x_or_r, e) (kind "d": the derivative along e in part) or
    name_part_t(U, s, V^T, x_or_r, h) (kind "t": its transpose)."""
    k = _SVD_PARTS.index(part)
    d_fwd, d_vjp, rev = {"svdu": (_d_svdu, _d_svdu_vjp, _r_svdu), "svdvt": (_d_svdvt, _d_svdvt_vjp, _r_svdvt)}[name[:-4]]
    vjp = name.endswith("_vjp")

    def kernel(u, s, vt, a, b):
        a, b = _dense(a), _dense(b)
        if a is None or b is None:
            return ZERO
        with _errstate():
            if kind == "d":
                zeros = [np.zeros(np.shape(u)), np.zeros(np.shape(s)), np.zeros(np.shape(vt))]
                zeros[k] = b
                return (d_vjp if vjp else d_fwd)(u, s, vt, a, *zeros)
            # the transpose: of the forward action's map, <f(P; a), b>; of the transposed action's, <f(P; b), a>
            return rev(u, s, vt, b, a)[k] if vjp else rev(u, s, vt, a, b)[k]
    kernel.__name__ = f"la_{name}_{part}" + ("_t" if kind == "t" else "")
    kernel.__doc__ = f"{'The transpose of ' if kind == 't' else ''}d {name} in {part[1:]} (see above)."
    return kernel


SVDVECS_AGAIN = {f"{name}_{part}" + ("_t" if kind == "t" else ""): _svd_action(kind, name, part)
                 for name in ("svdu_jvp", "svdu_vjp", "svdvt_jvp", "svdvt_vjp") for part in _SVD_PARTS
                 for kind in ("d", "t")}


def la_svdu_jvp(u, s, vt, da):
    """dU = U (F o (C S + S C^T)) + (dA V - U C) S^{-1}, C = U^T dA V."""
    da = _dense(da)
    if da is None:
        return ZERO
    with _errstate():
        dav = da @ _t(vt)
        c = _t(u) @ dav
        inner = _inverse_gaps(s * s) * (c * s[..., None, :] + s[..., :, None] * _t(c))
        return u @ inner + (dav - u @ c) / s[..., None, :]


def la_svdu_vjp(u, s, vt, g):
    """G -> U ((J + J^T) S) V^T + (G - U U^T G) S^{-1} V^T, J = F o (U^T G)."""
    g = _dense(g)
    if g is None:
        return ZERO
    with _errstate():
        utg = _t(u) @ g
        j = _inverse_gaps(s * s) * utg
        return (u @ ((j + _t(j)) * s[..., None, :]) + (g - u @ utg) / s[..., None, :]) @ vt


def la_svdvt_jvp(u, s, vt, da):
    """dV^T with dV = V (F o (S C + C^T S)) + (dA^T U - V C^T) S^{-1}, C = U^T dA V."""
    da = _dense(da)
    if da is None:
        return ZERO
    with _errstate():
        v = _t(vt)
        datu = _t(da) @ u
        c = _t(datu) @ v                                   # U^T dA V
        inner = _inverse_gaps(s * s) * (s[..., :, None] * c + _t(c) * s[..., None, :])
        return _t(v @ inner + (datu - v @ _t(c)) / s[..., None, :])


def la_svdvt_vjp(u, s, vt, g):
    """G (the cotangent of V^T) -> U (S (K + K^T)) V^T + U S^{-1} G (I - V V^T), K = F o (V^T G^T)."""
    g = _dense(g)
    if g is None:
        return ZERO
    with _errstate():
        v = _t(vt)
        vtgv = vt @ _t(g)                                  # V^T G_V, G_V = G^T
        k = _inverse_gaps(s * s) * vtgv
        return u @ (s[..., :, None] * (k + _t(k)) @ vt + (g - _t(vtgv) @ vt) / s[..., :, None])


# ---------------------------------------------------------------- expm

def _expm(a):
    import scipy.linalg  # only a function that calls scipy.linalg.expm reaches this
    return scipy.linalg.expm(a)


def la_expm(a):
    return _expm(a)


def _frechet(a, e):
    """L(A, E): the top-right block of expm([[A, E], [0, A]]), E scaled to A's 1-norm."""
    n = np.shape(a)[-1]
    norm = lambda x: np.max(np.sum(np.abs(x), axis=-2), axis=-1)
    size_e, size_a = norm(e), norm(a)
    scale = np.where(size_e == 0, 1.0, size_e / np.where(size_a == 0, 1.0, size_a))[..., None, None]
    shape = np.broadcast_shapes(np.shape(a), np.shape(e))
    big = np.zeros(shape[:-2] + (2 * n, 2 * n))
    big[..., :n, :n] = a
    big[..., n:, n:] = a
    big[..., :n, n:] = e / scale
    return _expm(big)[..., :n, n:] * scale


def la_expm_jvp(a, da):
    """dA -> L(A, dA)."""
    da = _dense(da)
    return ZERO if da is None else _frechet(a, da)


def la_expm_vjp(a, g):
    """G -> L(A^T, G), the adjoint."""
    g = _dense(g)
    return ZERO if g is None else _frechet(_t(a), g)


# Second derivatives (issue 17): L(A, E) is the top-right block of expm(X), X = [[A, E], [0, A]],
# so its derivative in A along D is the top-right block of L(X, diag(D, D)) (Higham 2008,
# "Functions of Matrices", Section 3.2, the block triangular form applied twice), and its adjoint
# in D is the sum of the diagonal blocks of L(X^T, [[0, H], [0, 0]]) (L(X, .)'s adjoint being
# L(X^T, .)). E is scaled to A's 1-norm first (the map is linear in E).

def _blocks(a, e):
    """X = [[A, E / s], [0, A]] and s (E scaled to A's 1-norm)."""
    n = np.shape(a)[-1]
    norm = lambda x: np.max(np.sum(np.abs(x), axis=-2), axis=-1)
    size_e, size_a = norm(e), norm(a)
    scale = np.where(size_e == 0, 1.0, size_e / np.where(size_a == 0, 1.0, size_a))[..., None, None]
    shape = np.broadcast_shapes(np.shape(a), np.shape(e))
    x = np.zeros(shape[:-2] + (2 * n, 2 * n))
    x[..., :n, :n] = a
    x[..., n:, n:] = a
    x[..., :n, n:] = e / scale
    return x, scale


def la_expm_jvp_da(a, e, d):
    """D -> d L(A, E) in A along D."""
    e, d = _dense(e), _dense(d)
    if e is None or d is None:
        return ZERO
    n = np.shape(a)[-1]
    x, scale = _blocks(a, e)
    dd = np.zeros(np.broadcast_shapes(np.shape(x), np.shape(d)[:-2] + (2 * n, 2 * n)))
    dd[..., :n, :n] = d
    dd[..., n:, n:] = d
    return _frechet(x, dd)[..., :n, n:] * scale


def la_expm_jvp_da_t(a, e, h):
    """Its transpose: H -> the sum of the diagonal blocks of L(X^T, [[0, H], [0, 0]])."""
    e, h = _dense(e), _dense(h)
    if e is None or h is None:
        return ZERO
    n = np.shape(a)[-1]
    x, scale = _blocks(a, e)
    hh = np.zeros(np.broadcast_shapes(np.shape(x), np.shape(h)[:-2] + (2 * n, 2 * n)))
    hh[..., :n, n:] = h
    k = _frechet(_t(x), hh) * scale
    return k[..., :n, :n] + k[..., n:, n:]


def la_expm_vjp_da(a, g, d):
    """D -> d L(A^T, G) in A along D: la_expm_jvp_da at A^T along D^T."""
    g, d = _dense(g), _dense(d)
    if g is None or d is None:
        return ZERO
    return la_expm_jvp_da(_t(a), g, _t(d))


def la_expm_vjp_da_t(a, g, h):
    """Its transpose."""
    g, h = _dense(g), _dense(h)
    if g is None or h is None:
        return ZERO
    return _t(la_expm_jvp_da_t(_t(a), g, h))


def la_where_spread(keep, a):
    """a where keep holds, elsewhere a matrix of a's shape with distinct singular values and
    eigenvalues (diag(1, 2, ...)): lanes a condition discards hold anything, and their
    decomposition must neither fail nor make the derivative's gaps infinite."""
    m, n = np.shape(a)[-2:]
    spread = np.zeros((m, n))
    k = min(m, n)
    spread[np.arange(k), np.arange(k)] = np.arange(1.0, k + 1.0)
    return np.where(keep, a, spread)


KERNELS = {f.__name__: f for f in (la_eigh, la_eigvalsh, la_eigvals_jvp, la_eigvals_vjp, la_eigvecs_jvp,
                                   la_eigvecs_vjp, la_svd, la_svdvals, la_svals_jvp, la_svals_vjp, la_svdu_jvp,
                                   la_svdu_vjp, la_svdvt_jvp, la_svdvt_vjp, la_expm, la_expm_jvp, la_expm_vjp,
                                   la_where_spread, la_expm_jvp_da, la_expm_jvp_da_t, la_expm_vjp_da,
                                   la_expm_vjp_da_t, la_eigvals_jvp_dv, la_eigvals_jvp_dv_t, la_eigvals_vjp_dv,
                                   la_eigvals_vjp_dv_t, la_svals_jvp_du, la_svals_jvp_du_t, la_svals_jvp_dvt,
                                   la_svals_jvp_dvt_t, la_svals_vjp_du, la_svals_vjp_du_t, la_svals_vjp_dvt,
                                   la_svals_vjp_dvt_t, la_eigvecs_jvp_dw, la_eigvecs_jvp_dw_t, la_eigvecs_jvp_dv,
                                   la_eigvecs_jvp_dv_t, la_eigvecs_vjp_dw, la_eigvecs_vjp_dw_t, la_eigvecs_vjp_dv,
                                   la_eigvecs_vjp_dv_t, *SVDVECS_AGAIN.values())}
