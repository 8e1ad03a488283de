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
from . import arrays
from .values import ZERO, RT, Arr, is_zero

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
        return a
    d = max(a.depth, c.mask.depth)
    return Arr(c.assign(f"la_where_eye({c.expand(c.mask, d, 2)}, {c.lift(a, d).code})"), d,
               a.deps | c.mask.deps, a.rank, "f")


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
    return _action(c, t, "la_neg_matmul", [_primal(c, x)], da, _vec(t.type))


def p_neg_matmul_t(c: Compiler, t, x, g):
    return _action(c, t, "la_neg_matmul_t", [_primal(c, x)], g, _vec(t.args[0].type))


def p_chol_jvp(c: Compiler, t, lo, da):
    return _action(c, t, "la_chol_jvp", [_solvable(c, lo)], da)


def p_chol_vjp(c: Compiler, t, lo, g):
    return _action(c, t, "la_chol_vjp", [_solvable(c, lo)], g)
