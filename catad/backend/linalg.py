"""Linear algebra: det, slogdet, inv, solve, cholesky and the actions of their derivatives
(the lmLinear maps' primitives), as calls of the kernels of catad/primitives/linalg.py.

The kernels act on the last one or two axes and broadcast the leading ones, so a value inside
vectorised builds (batch axes first, values.py) is a stack of matrices for them: the arguments
are lifted to one depth and the kernel is called once. Where a vector and a matrix cannot be
told apart by their axes, the call passes `vec` from the term's type.

A kernel that solves (inv, solve, cholesky, and the derivative actions that solve with A or L)
raises LinAlgError on a singular matrix. Under a condition or in a ragged range, lanes the mask
discards may hold anything (both branches are computed, discarded lanes are padding), so there
the matrix is replaced by the identity in those lanes first (`la_where_eye`): Python would not
have computed them, and their results are discarded by the selection.

Tangents: the symbolic zero gives zero (the maps are linear) and is never materialised; sparse
tangents are made arrays; a run-time tangent (a loop's, which may be ZERO or a OneHot when the
program runs) is passed as it is: the kernels take those too, and the result is run-time.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..lang.types import rank
from ..primitives.spectral import SVDVECS_AGAIN
from . import arrays
from .values import ZERO, RT, Arr, Unvectorisable, is_zero

if TYPE_CHECKING:
    from .compiler import Compiler


def _call(c: Compiler, fn: str, args: list[Arr], rnk: int, extra: str = "") -> Arr:
    """fn(args..., extra) at the args' common depth: an array of rank rnk."""
    d = max(a.depth for a in args)
    codes = [c.lift(a, d).code for a in args] + ([extra] if extra else [])
    deps = frozenset().union(*(a.deps for a in args))
    return Arr(c.assign(f"{fn}({', '.join(codes)})", "la"), d, deps, rnk, "f")


def _primal(c: Compiler, x) -> Arr:
    return x if isinstance(x, Arr) else arrays.dense(c, x)


def _solvable(c: Compiler, a) -> Arr:
    """The matrix a kernel solves with, the identity in lanes the mask discards."""
    a = _primal(c, a)
    if c.mask is None:
        return _when_lanes(c, a)
    d = max(a.depth, c.mask.depth)
    return Arr(c.assign(f"la_where_eye({c.expand(c.mask, d, 2)}, {c.lift(a, d).code})"), d,
               a.deps | c.mask.deps, a.rank, "f")


def _when_lanes(c: Compiler, a: Arr) -> Arr:
    """a, or the identity where a build enclosing it has no lane: a matrix the same in every
    lane is solved once, even for none (sum(np.linalg.inv(m)[0, 0] for i in range(0)) reads no
    inverse of a singular m)."""
    keep = c.lanes_exist(a.depth)
    if keep is None:
        return a
    return Arr(c.assign(f"la_where_eye({keep}, {a.code})"), a.depth, a.deps, a.rank, "f")


def _vec(t) -> str:
    """The `vec` flag of a solve-like kernel: is the vector-or-matrix argument of type t a vector."""
    return repr(rank(t) == 1)


# ---------------------------------------------------------------- the functions

def p_det(c: Compiler, t, a):
    return _call(c, "la_det", [_primal(c, a)], 0)


def p_slogdet(c: Compiler, t, a):
    both = _call(c, "la_slogdet", [_primal(c, a)], 0)  # (sign, log|det|), each an array of the lanes
    return tuple(Arr(c.assign(f"{both.code}[{k}]", "la"), both.depth, both.deps, 0, "f") for k in range(2))


def p_inv(c: Compiler, t, a):
    return _call(c, "la_inv", [_solvable(c, a)], 2)


def p_solve(c: Compiler, t, a, b):
    return _call(c, "la_solve", [_solvable(c, a), _primal(c, b)], rank(t.type), _vec(t.type))


def p_cholesky(c: Compiler, t, a):
    return _call(c, "la_cholesky", [_solvable(c, a)], 2)


# ---------------------------------------------------------------- the derivatives' actions

def _action(c: Compiler, t, fn: str, primal: list[Arr], x, extra: str = ""):
    """fn(primal..., x): zero for the zero tangent, run-time for a run-time one."""
    if is_zero(x):  # the zero tangent, or a vector of them
        return ZERO
    if isinstance(x, RT):
        codes = [p.code for p in primal] + [x.code] + ([extra] if extra else [])
        return RT(c.assign(f"{fn}({', '.join(codes)})", "la"))
    return _call(c, fn, primal + [arrays.dense(c, x)], rank(t.type), extra)


def p_det_jvp(c: Compiler, t, a, da):
    return _action(c, t, "la_det_jvp", [_solvable(c, a)], da)


def p_det_vjp(c: Compiler, t, a, g):
    return _action(c, t, "la_det_vjp", [_solvable(c, a)], g)


def p_logdet_jvp(c: Compiler, t, a, da):
    return _action(c, t, "la_logdet_jvp", [_solvable(c, a)], da)


def p_logdet_vjp(c: Compiler, t, a, g):
    return _action(c, t, "la_logdet_vjp", [_solvable(c, a)], g)


def p_inv_jvp(c: Compiler, t, b, da):
    return _action(c, t, "la_inv_jvp", [_primal(c, b)], da)


def p_inv_vjp(c: Compiler, t, b, g):
    return _action(c, t, "la_inv_vjp", [_primal(c, b)], g)


def p_lsolve(c: Compiler, t, a, db):
    return _action(c, t, "la_lsolve", [_solvable(c, a)], db, _vec(t.type))


def p_lsolve_t(c: Compiler, t, a, g):
    return _action(c, t, "la_lsolve_t", [_solvable(c, a)], g, _vec(t.type))


def p_neg_matmul(c: Compiler, t, x, da):
    return _action_at(c, t, "la_neg_matmul", [x], {0}, da, _vec(t.type))


def p_neg_matmul_t(c: Compiler, t, x, g):
    return _action_at(c, t, "la_neg_matmul_t", [x], {0}, g, _vec(t.args[0].type))


# ---------------------------------------------------------------- second derivatives' actions
# Differentiated again (issue 17), an action is taken at a first derivative's value too (dA, g,
# the x of -dA x): a tangent, which may be the zero tangent (known while compiling: the result is
# zero) or a loop's run-time tangent (the run-time call, as _action's).

def _coefficient(c: Compiler, x, ty):
    """A first derivative's value an action is taken at: ZERO, a run-time tangent, or an array."""
    if is_zero(x):
        return ZERO
    if isinstance(x, RT):
        return x
    return arrays.dense(c, x) if rank(ty) else arrays.scalar(c, x)


def _action_at(c: Compiler, t, fn: str, args: list, coefficients: set[int], x, extra: str = ""):
    """fn(args..., x), args[i] for i in coefficients a first derivative's value (typed as the
    term's argument i): zero when one of those or x is the zero tangent."""
    vals = [_coefficient(c, a, t.args[i].type) if i in coefficients else a for i, a in enumerate(args)]
    if any(v is ZERO for v in vals) or is_zero(x):
        return ZERO
    if any(isinstance(v, RT) for v in vals) or isinstance(x, RT):
        if c.depth > 0:
            raise Unvectorisable("a loop's tangents used inside a vectorised build")
        codes = [v.code for v in vals] + [x.code] + ([extra] if extra else [])
        return RT(c.assign(f"{fn}({', '.join(codes)})", "la"))
    return _call(c, fn, vals + [arrays.dense(c, x) if rank(t.args[-1].type) else arrays.scalar(c, x)],
                 rank(t.type), extra)


def p_neg_tmatmul(c: Compiler, t, y, da):
    return _action_at(c, t, "la_neg_tmatmul", [y], {0}, da, _vec(t.type))


def p_neg_tmatmul_t(c: Compiler, t, y, g):
    return _action_at(c, t, "la_neg_tmatmul_t", [y], {0}, g, _vec(t.args[0].type))


def p_mul_neg(c: Compiler, t, m, x):
    return _action_at(c, t, "la_mul_neg", [m], {0}, x, _vec(t.type))


def p_mul_neg_t(c: Compiler, t, m, g):
    return _action_at(c, t, "la_mul_neg_t", [m], {0}, g, _vec(t.type))


def _at_matrix(kernel: str, solves: bool = True):
    """The codegen of kernel(M, coefficient, x), M a primal matrix (solved with when `solves`)."""
    def p(c: Compiler, t, m, k, x):
        return _action_at(c, t, kernel, [_solvable(c, m) if solves else _primal(c, m), k], {1}, x)
    p.__name__ = "p_" + kernel[3:]
    return p


p_det_hvp, p_det_hvp_t, p_det_vjp_da, p_logdet_hvp, p_logdet_hvp_t, p_logdet_vjp_da = (_at_matrix(k) for k in (
    "la_det_hvp", "la_det_hvp_t", "la_det_vjp_da", "la_logdet_hvp", "la_logdet_hvp_t", "la_logdet_vjp_da"))
p_inv_jvp_db, p_inv_jvp_db_t, p_inv_vjp_db, p_inv_vjp_db_t = (_at_matrix(k, solves=False) for k in (
    "la_inv_jvp_db", "la_inv_jvp_db_t", "la_inv_vjp_db", "la_inv_vjp_db_t"))
p_chol_jvp_dl, p_chol_jvp_dl_t, p_chol_vjp_dl, p_chol_vjp_dl_t = (_at_matrix(k) for k in (
    "la_chol_jvp_dl", "la_chol_jvp_dl_t", "la_chol_vjp_dl", "la_chol_vjp_dl_t"))


def p_chol_jvp(c: Compiler, t, lo, da):
    return _action(c, t, "la_chol_jvp", [_solvable(c, lo)], da)


def p_chol_vjp(c: Compiler, t, lo, g):
    return _action(c, t, "la_chol_vjp", [_solvable(c, lo)], g)


# ---------------------------------------------------------------- decompositions and SciPy's solvers
# (catad/primitives/spectral.py and triangular.py). A static option is an Int literal, passed as
# it is. In lanes a mask discards, a decomposition sees diag(1, 2, ...) (distinct singular values
# and eigenvalues: nothing fails and no gap is zero), a solver the identity and a zero
# right-hand side (SciPy checks that its inputs are finite).

def _spread(c: Compiler, a) -> Arr:
    a = _primal(c, a)
    if c.mask is None:
        return a
    d = max(a.depth, c.mask.depth)
    return Arr(c.assign(f"la_where_spread({c.expand(c.mask, d, 2)}, {c.lift(a, d).code})"), d,
               a.deps | c.mask.deps, a.rank, "f")


def _rhs(c: Compiler, b, vec: bool) -> Arr:
    b = _primal(c, b)
    if c.mask is None:
        return b
    d = max(b.depth, c.mask.depth)
    return Arr(c.assign(f"la_where_zero({c.expand(c.mask, d, 1 if vec else 2)}, {c.lift(b, d).code})"), d,
               b.deps | c.mask.deps, b.rank, "f")


def _parts(c: Compiler, both: Arr, ranks: tuple[int, ...]) -> tuple:
    """The components of a kernel's tuple result, each an array of the lanes."""
    return tuple(Arr(c.assign(f"{both.code}[{k}]", "la"), both.depth, both.deps, r, "f") for k, r in enumerate(ranks))


def p_svd(c: Compiler, t, a, full):
    return _parts(c, _call(c, "la_svd", [_spread(c, a), full], 2), (2, 1, 2))


def p_lstsq(c: Compiler, t, a, b, rcond):
    """np.linalg.lstsq has no stacked form: one call outside vectorised builds, a Python loop
    inside them (Unvectorisable, which explain reports)."""
    a, b, rcond = (_primal(c, x) for x in (a, b, rcond))
    if any(x.depth > 0 for x in (a, b, rcond)):
        raise Unvectorisable("np.linalg.lstsq in each lane")
    whole = Arr(c.assign(f"la_lstsq({a.code}, {b.code}, {rcond.code})", "la"), 0, a.deps | b.deps | rcond.deps, 0, "f")
    return tuple(Arr(c.assign(f"{whole.code}[{k}]", "la"), 0, whole.deps, r, kind)
                 for k, (r, kind) in enumerate(((rank(t.type.items[0]), "f"), (1, "f"), (0, "i"), (1, "f"))))


def p_svdvals(c: Compiler, t, a):
    return _call(c, "la_svdvals", [_spread(c, a)], 1)


def p_eigh(c: Compiler, t, a, upper):
    return _parts(c, _call(c, "la_eigh", [_spread(c, a), upper], 2), (1, 2))


def p_eigvalsh(c: Compiler, t, a, upper):
    return _call(c, "la_eigvalsh", [_spread(c, a), upper], 1)


def p_expm(c: Compiler, t, a):
    return _call(c, "la_expm", [_solvable(c, a)], 2)


def p_trisolve(c: Compiler, t, a, b, flags):
    vec = rank(t.type) == 1
    return _call(c, "la_trisolve", [_solvable(c, a), _rhs(c, b, vec), flags], rank(t.type), repr(vec))


def p_sp_cholesky(c: Compiler, t, a, lower):
    return _call(c, "la_sp_cholesky", [_solvable(c, a), lower], 2)


def p_cho_solve(c: Compiler, t, cf, b, lower):
    vec = rank(t.type) == 1
    return _call(c, "la_cho_solve", [_solvable(c, cf), _rhs(c, b, vec), lower], rank(t.type), repr(vec))


def p_lexsort(c: Compiler, t, *keys):
    """np.lexsort along the last axis, every lane at once (an Int vector per lane)."""
    keys = [_primal(c, k) for k in keys]
    d = max(k.depth for k in keys)
    fn = "lexsort_rows" if len(t.args) == 1 and rank(t.args[0].type) == 2 else "lexsort_keys"
    code = f"{fn}({', '.join(c.lift(k, d).code for k in keys)})"
    return Arr(c.assign(code, "order"), d, frozenset().union(*(k.deps for k in keys)), 1, "i")


def p_svals_jvp(c: Compiler, t, u, vt, da):
    return _action(c, t, "la_svals_jvp", [_primal(c, u), _primal(c, vt)], da)


def p_svals_vjp(c: Compiler, t, u, vt, g):
    return _action(c, t, "la_svals_vjp", [_primal(c, u), _primal(c, vt)], g)


def _usv(c: Compiler, u, s, vt) -> list[Arr]:
    return [_primal(c, u), _primal(c, s), _primal(c, vt)]


def p_svdu_jvp(c: Compiler, t, u, s, vt, da):
    return _action(c, t, "la_svdu_jvp", _usv(c, u, s, vt), da)


def p_svdu_vjp(c: Compiler, t, u, s, vt, g):
    return _action(c, t, "la_svdu_vjp", _usv(c, u, s, vt), g)


def p_svdvt_jvp(c: Compiler, t, u, s, vt, da):
    return _action(c, t, "la_svdvt_jvp", _usv(c, u, s, vt), da)


def p_svdvt_vjp(c: Compiler, t, u, s, vt, g):
    return _action(c, t, "la_svdvt_vjp", _usv(c, u, s, vt), g)


def p_eigvals_jvp(c: Compiler, t, v, upper, da):
    return _action(c, t, "la_eigvals_jvp", [_primal(c, v), upper], da)


def p_eigvals_vjp(c: Compiler, t, v, upper, g):
    return _action(c, t, "la_eigvals_vjp", [_primal(c, v), upper], g)


def p_eigvecs_jvp(c: Compiler, t, w, v, upper, da):
    return _action(c, t, "la_eigvecs_jvp", [_primal(c, w), _primal(c, v), upper], da)


def p_eigvecs_vjp(c: Compiler, t, w, v, upper, g):
    return _action(c, t, "la_eigvecs_vjp", [_primal(c, w), _primal(c, v), upper], g)


def p_expm_jvp(c: Compiler, t, a, da):
    return _action(c, t, "la_expm_jvp", [_solvable(c, a)], da)


def p_expm_vjp(c: Compiler, t, a, g):
    return _action(c, t, "la_expm_vjp", [_solvable(c, a)], g)


def p_tri_lsolve(c: Compiler, t, a, flags, db):
    return _action(c, t, "la_tri_lsolve", [_solvable(c, a), flags], db, _vec(t.type))


def p_tri_lsolve_t(c: Compiler, t, a, flags, g):
    return _action(c, t, "la_tri_lsolve_t", [_solvable(c, a), flags], g, _vec(t.type))


def p_tri_neg_matmul(c: Compiler, t, x, flags, da):
    return _action_at(c, t, "la_tri_neg_matmul", [x, flags], {0}, da, _vec(t.type))


def p_tri_neg_matmul_t(c: Compiler, t, x, flags, g):
    return _action_at(c, t, "la_tri_neg_matmul_t", [x, flags], {0}, g, _vec(t.args[0].type))


def p_tri_neg_tmatmul(c: Compiler, t, y, flags, da):
    return _action_at(c, t, "la_tri_neg_tmatmul", [y, flags], {0}, da, _vec(t.type))


def p_tri_neg_tmatmul_t(c: Compiler, t, y, flags, g):
    return _action_at(c, t, "la_tri_neg_tmatmul_t", [y, flags], {0}, g, _vec(t.args[0].type))


def p_tri_mul_neg(c: Compiler, t, m, flags, x):
    return _action_at(c, t, "la_tri_mul_neg", [m, flags], {0}, x, _vec(t.type))


def p_tri_mul_neg_t(c: Compiler, t, m, flags, g):
    return _action_at(c, t, "la_tri_mul_neg_t", [m, flags], {0}, g, _vec(t.type))


def p_cho_mul_neg(c: Compiler, t, cf, d, flags, v):
    return _action_at(c, t, "la_cho_mul_neg", [cf, d, flags], {0, 1}, v, _vec(t.type))


def p_cho_sym_mul(c: Compiler, t, x, g, flags, e):
    return _action_at(c, t, "la_cho_sym_mul", [x, g, flags], {0, 1}, e, _vec(t.args[0].type))


def _sp_chol_at(kernel: str):
    """The codegen of kernel(C, flags, dA, x): C a factor, dA a first derivative's value."""
    def p(c: Compiler, t, cf, flags, da, x):
        return _action_at(c, t, kernel, [_solvable(c, cf), flags, da], {2}, x)
    p.__name__ = "p_" + kernel[3:]
    return p


p_sp_chol_jvp_dc, p_sp_chol_jvp_dc_t, p_sp_chol_vjp_dc, p_sp_chol_vjp_dc_t = (_sp_chol_at(k) for k in (
    "la_sp_chol_jvp_dc", "la_sp_chol_jvp_dc_t", "la_sp_chol_vjp_dc", "la_sp_chol_vjp_dc_t"))


def p_sp_chol_jvp(c: Compiler, t, cf, lower, da):
    return _action(c, t, "la_sp_chol_jvp", [_solvable(c, cf), lower], da)


def p_sp_chol_vjp(c: Compiler, t, cf, lower, g):
    return _action(c, t, "la_sp_chol_vjp", [_solvable(c, cf), lower], g)


def p_cho_lsolve(c: Compiler, t, cf, lower, db):
    return _action(c, t, "la_cho_lsolve", [_solvable(c, cf), lower], db, _vec(t.type))


def p_cho_neg_matmul(c: Compiler, t, cf, x, lower, dc):
    return _action_at(c, t, "la_cho_neg_matmul", [cf, x, lower], {0, 1}, dc, _vec(t.type))


def p_cho_neg_matmul_t(c: Compiler, t, cf, x, lower, g):
    return _action_at(c, t, "la_cho_neg_matmul_t", [cf, x, lower], {0, 1}, g, _vec(t.args[1].type))


p_expm_jvp_da, p_expm_jvp_da_t, p_expm_vjp_da, p_expm_vjp_da_t = (_at_matrix(k) for k in (
    "la_expm_jvp_da", "la_expm_jvp_da_t", "la_expm_vjp_da", "la_expm_vjp_da_t"))


def _at_vectors(kernel: str):
    """The codegen of kernel(V, upper, coefficient, x): V eigh's eigenvectors."""
    def p(c: Compiler, t, v, upper, k, x):
        return _action_at(c, t, kernel, [_primal(c, v), upper, k], {2}, x)
    p.__name__ = "p_" + kernel[3:]
    return p


p_eigvals_jvp_dv, p_eigvals_jvp_dv_t, p_eigvals_vjp_dv, p_eigvals_vjp_dv_t = (_at_vectors(k) for k in (
    "la_eigvals_jvp_dv", "la_eigvals_jvp_dv_t", "la_eigvals_vjp_dv", "la_eigvals_vjp_dv_t"))


def _at_singular_vectors(kernel: str):
    """The codegen of kernel(U, Vh, coefficient, x)."""
    def p(c: Compiler, t, u, vt, k, x):
        return _action_at(c, t, kernel, [_primal(c, u), _primal(c, vt), k], {2}, x)
    p.__name__ = "p_" + kernel[3:]
    return p


for _name in ("svals_jvp_du", "svals_jvp_du_t", "svals_jvp_dvt", "svals_jvp_dvt_t", "svals_vjp_du", "svals_vjp_du_t",
              "svals_vjp_dvt", "svals_vjp_dvt_t"):
    globals()["p_" + _name] = _at_singular_vectors("la_" + _name)


def _at_eigenvectors(kernel: str):
    """The codegen of kernel(w, V, upper, coefficient, x)."""
    def p(c: Compiler, t, w, v, upper, k, x):
        return _action_at(c, t, kernel, [_primal(c, w), _primal(c, v), upper, k], {3}, x)
    p.__name__ = "p_" + kernel[3:]
    return p


for _name in ("eigvecs_jvp_dw", "eigvecs_jvp_dw_t", "eigvecs_jvp_dv", "eigvecs_jvp_dv_t", "eigvecs_vjp_dw",
              "eigvecs_vjp_dw_t", "eigvecs_vjp_dv", "eigvecs_vjp_dv_t"):
    globals()["p_" + _name] = _at_eigenvectors("la_" + _name)


def _at_decomposition(kernel: str):
    """The codegen of kernel(U, s, Vh, coefficient, x): svd's factors, a first derivative's value."""
    def p(c: Compiler, t, u, sv, vt, k, x):
        return _action_at(c, t, kernel, [_primal(c, u), _primal(c, sv), _primal(c, vt), k], {3}, x)
    p.__name__ = "p_" + kernel[3:]
    return p


for _name in SVDVECS_AGAIN:
    globals()["p_" + _name] = _at_decomposition("la_" + _name)
