"""np.linalg.lstsq and np.polyfit, with NumPy's values and the derivative of the least-squares
solution of a matrix of full column rank.

The values are NumPy's own: the primitive ``lstsq`` calls np.linalg.lstsq (LAPACK's gelsd, an
SVD) and has derivative zero. The derivative is added as the roots' is (catad/frontend/roots.py):
x = x0 + (y - stop_gradient(y)), where y = (A^T A)^{-1} A^T b is the normal equations' solution,
equal to x0 to rounding and differentiable like any solve, so every derivative (forward, reverse,
higher) is that of the least-squares solution of a full-column-rank A:

    dx = (A^T A)^{-1} (dA^T r + A^T (db - dA x)),   r = b - A x

(Golub & Pereyra 1973, "The differentiation of pseudo-inverses"; with A^T r = 0). y - stop_gradient(y)
is 0 exactly wherever y is finite, so the value stays x0. The residuals (sum of squares of r per
column of b) take d ||r||^2 = 2 r^T (db - dA x) the same way, and the singular values svdvals'
derivative. Where A's rank (NumPy's: singular values above rcond times the largest) is below its
number of columns, the least-squares solution is not differentiable as one function of A (the
minimum-norm solution jumps as the rank changes): catad refuses at run time, at the call.

np.polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False) is NumPy's algorithm: the
Vandermonde matrix (its powers by repeated multiplication, as np.vander), rows weighted by w,
columns scaled to unit norm, lstsq with rcond = len(x) * eps, coefficients divided by the scale.
NumPy warns (RankWarning) when that matrix is rank deficient and returns the minimum-norm fit;
catad refuses there, at run time. full=True and cov are refused while compiling.

The handlers are rows of catad/frontend/calls.py's table.
"""
from __future__ import annotations

import ast

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import TRUE, Build, Const, Get, Term, Tuple, make_lets
from ..lang.types import Float, Int, rank
from ..primitives import prim
from .common import index_chain, is_array
from .numpy_arrays import _is_none, bind_args, insert_axes, reduce, stack_rows

_EPS = float(np.finfo(np.float64).eps)


def _stopped_difference(lw, y: Term, loc) -> Term:
    """y - stop_gradient(y), elementwise: 0 where y is finite, with y's derivative."""
    return lw.b.elementwise(lambda e: lw.b.share(e, lambda v: prim("sub", v, prim("stop_gradient", v, loc=loc),
                                                                    loc=loc), loc), [y], loc)


def _plus(lw, a: Term, b: Term, loc) -> Term:
    return lw.b.elementwise(lambda x, y: prim("add", x, y, loc=loc), [a, b], loc)


def _normal_solution(lw, a: Term, b: Term, loc) -> Term:
    """(A^T A)^{-1} A^T b: the least-squares solution whose derivative is the one wanted."""
    def body(at):
        return prim("solve", lw.b.dot(at, a, loc), lw.b.dot(at, b, loc), loc=loc)
    return lw.b.share(lw.b.transpose(a, loc), body, loc)


def _residuals(lw, a: Term, b: Term, y: Term, res0: Term, loc) -> Term:
    """NumPy's residuals res0 (length 0 or b's number of columns, 1 for a vector b) plus the
    stopped difference of ||b - A y||^2 per column."""
    def body(r):
        sq = lw.b.elementwise(lambda e: prim("mul", e, e, loc=loc), [r], loc)
        return lw.b.share(reduce(lw, sq, (0,), "sum", loc), lambda d: lw.b.share(
            _stopped_difference(lw, d, loc) if is_array(d) else
            prim("sub", d, prim("stop_gradient", d, loc=loc), loc=loc),
            lambda dd: _per_column(lw, res0, dd, loc), loc), loc)
    r = lw.b.elementwise(lambda p, q: prim("sub", p, q, loc=loc), [b, lw.b.dot(a, y, loc)], loc)
    return lw.b.share(r, body, loc)


def _per_column(lw, res0: Term, dd: Term, loc) -> Term:
    i = lw.b.var(Int, loc, "_i")
    extra = index_chain(dd, [i], loc) if is_array(dd) else dd
    return Build(lw.b.size(res0, 0, loc), i, prim("add", index_chain(res0, [i], loc), extra, loc=loc), loc)


def least_squares(lw, a: Term, b: Term, rcond: Term | None, loc, construct: str, rank_message: str) -> Term:
    """(x, residuals, rank, s) of np.linalg.lstsq(a, b, rcond) for the Float atoms a (a matrix)
    and b (a vector or a matrix), rcond a Float atom or None (NumPy's eps * max(m, n)); a rank
    below a's number of columns refused at run time with rank_message ({0}: the rank, {1}: the
    columns)."""
    m, n = lw.b.size(a, 0, loc), lw.b.size(a, 1, loc)
    rows = lw.b.size(b, 0, loc)
    binds = lw.b.check(TRUE if lw.b.shapes.same(lw.b.shape(a)[0], lw.b.shape(b)[0]) else prim("eq", m, rows, loc=loc),
                       (), loc, construct, "Incompatible dimensions", "linalg", equal=((rows, m),))
    if rcond is None:
        rcond = prim("mul", Const(_EPS, Float), lw.b.to_float(prim("max", m, n, loc=loc), loc), loc=loc)
    whole = lw.b.share_atom(prim("lstsq", a, b, lw.b.share_atom(rcond, binds, loc), loc=loc), binds, loc)
    x0, res0, rnk, s0 = (lw.b.share_atom(Get(k, whole, loc), binds, loc) for k in range(4))
    binds += lw.b.check(prim("eq", rnk, n, loc=loc), (rnk, n), loc, construct, rank_message, "linalg")
    y = lw.b.share_atom(_normal_solution(lw, a, b, loc), binds, loc)
    x = _plus(lw, x0, _stopped_difference(lw, y, loc), loc)
    res = _residuals(lw, a, b, y, res0, loc)
    s = _plus(lw, s0, _stopped_difference(lw, prim("svdvals", a, loc=loc), loc), loc)
    return make_lets(binds, Tuple((x, res, rnk, s), loc))


def _two_d(lw, t: Term, node, construct: str) -> Term:
    r = rank(t.type) if is_array(t) else 0
    if r != 2:
        lw.fail(node, construct, f"{r}-dimensional array given. Array must be two-dimensional", CatadTypeError)
    return t


def h_lstsq(lw, obj, node, args, kwargs):
    """np.linalg.lstsq(a, b, rcond=None): NumPy's (x, residuals, rank, s), differentiated for a
    of full column rank (catad/frontend/lstsq.py)."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "b", "rcond"), 2)
    loc, name = lw.loc(node), "np.linalg.lstsq"
    a = lw.b.to_float(_two_d(lw, lw.arg(p["a"]), node, name), loc)
    b = lw.arg(p["b"])
    if not is_array(b) or rank(b.type) > 2:
        _two_d(lw, b, node, name)
    b = lw.b.to_float(b, loc)
    rc = None if _is_none(p.get("rcond")) else lw.b.to_float(lw.arg(p["rcond"]), loc)
    if rc is not None and rc.type != Float:
        lw.fail(node, name, "rcond of np.linalg.lstsq must be a number", CatadTypeError)
    message = ("np.linalg.lstsq(a, b): a has rank {0} < {1} columns: catad differentiates the least-squares "
               "solution of a matrix of full column rank only (the minimum-norm solution of a rank-deficient "
               "one is not differentiable where the rank changes); drop dependent columns, or regularise")
    return lw.b.share_all([a, b] + ([rc] if rc is not None else []),
                          lambda x, y, *r: least_squares(lw, x, y, r[0] if r else None, loc, name, message), loc)


# ---------------------------------------------------------------- np.polyfit

def _vander(lw, x: Term, order: int, loc) -> Term:
    """np.vander(x, order): column j holds x**(order - 1 - j), each power the one before times x
    (NumPy's multiply.accumulate), as a matrix (the columns stacked, then transposed)."""
    binds, cols = [], []
    power = lw.b.share_atom(lw.b.elementwise(lambda e: Const(1.0, Float, loc), [x], loc), binds, loc)
    for k in range(order):
        cols.append(power)
        if k + 1 < order:
            nxt = x if k == 0 else lw.b.elementwise(lambda p, e: prim("mul", p, e, loc=loc), [power, x], loc)
            power = lw.b.share_atom(nxt, binds, loc)
    stacked = lw.b.share_atom(stack_rows(lw, cols[::-1], loc, "np.vander", ""), binds, loc)
    return make_lets(binds, lw.b.transpose(stacked, loc))


def _static_deg(lw, a, node, name: str) -> int:
    t = lw.arg(a)
    if not (isinstance(t, Const) and t.type == Int):
        lw.fail(node, name, f"deg of {name} must be a constant int (it sets the number of coefficients)",
                CatadTypeError)
    return int(t.value)


def h_polyfit(lw, obj, node, args, kwargs):
    """np.polyfit(x, y, deg, rcond=None, full=False, w=None): NumPy's scaled Vandermonde least
    squares (catad/frontend/lstsq.py), the coefficients highest power first."""
    p = bind_args(lw, obj, node, args, kwargs, ("x", "y", "deg", "rcond", "full", "w", "cov"), 3)
    loc, name = lw.loc(node), "np.polyfit"
    for opt in ("full", "cov"):
        if opt in p and not (isinstance(p[opt], ast.Constant) and p[opt].value is False):
            lw.fail(node, name, f"np.polyfit(..., {opt}=...) is not supported (only {opt}=False)",
                    hint="call np.linalg.lstsq on the Vandermonde matrix for the residuals" if opt == "full" else
                    "compute the covariance from the fit's residuals yourself")
    deg = _static_deg(lw, p["deg"], node, name)
    if deg < 0:
        lw.fail(node, name, "expected deg >= 0", CatadTypeError)
    x, y = (lw.b.to_float(lw.arg(p[k]), loc) for k in ("x", "y"))
    if not is_array(x) or rank(x.type) != 1:
        lw.fail(node, name, "expected 1D vector for x", CatadTypeError)
    if not is_array(y) or rank(y.type) > 2:
        lw.fail(node, name, "expected 1D or 2D array for y", CatadTypeError)
    w = None if _is_none(p.get("w")) else lw.b.to_float(lw.arg(p["w"]), loc)
    if w is not None and (not is_array(w) or rank(w.type) != 1):
        lw.fail(node, name, "expected a 1-d array for weights", CatadTypeError)
    rc = None if _is_none(p.get("rcond")) else lw.b.to_float(lw.arg(p["rcond"]), loc)
    message = ("np.polyfit: the Vandermonde matrix of x has rank {0} < deg + 1 = {1} (NumPy warns 'Polyfit may be "
               "poorly conditioned' and returns the minimum-norm fit, which catad does not differentiate); "
               "lower deg or use more distinct x")
    ts = [x, y] + ([w] if w is not None else []) + ([rc] if rc is not None else [])

    def body(xv, yv, *rest):
        wv = rest[0] if w is not None else None
        rcv = rest[-1] if rc is not None else None
        n, ny = lw.b.size(xv, 0, loc), lw.b.size(yv, 0, loc)
        binds = lw.b.check(prim("lt", Const(0, Int), n, loc=loc), (), loc, name, "expected non-empty vector for x",
                           raises=TypeError)
        binds += lw.b.check(TRUE if lw.b.shapes.same(lw.b.shape(xv)[0], lw.b.shape(yv)[0]) else
                            prim("eq", n, ny, loc=loc), (), loc, name, "expected x and y to have same length",
                            equal=((ny, n),), raises=TypeError)
        if rcv is None:
            rcv = lw.b.share_atom(prim("mul", lw.b.to_float(n, loc), Const(_EPS, Float), loc=loc), binds, loc)
        lhs = lw.b.share_atom(_vander(lw, xv, deg + 1, loc), binds, loc)
        rhs = yv
        if wv is not None:
            nw = lw.b.size(wv, 0, loc)
            binds += lw.b.check(TRUE if lw.b.shapes.same(lw.b.shape(wv)[0], lw.b.shape(yv)[0]) else
                                prim("eq", nw, ny, loc=loc), (), loc, name, "expected w and y to have the same length",
                                equal=((nw, ny),), raises=TypeError)
            col = lw.b.share_atom(insert_axes(lw, wv, [1], loc), binds, loc)
            times = lambda t, f: lw.b.share_atom(lw.b.elementwise(lambda u, v: prim("mul", u, v, loc=loc), [t, f],
                                                                  loc), binds, loc)
            lhs = times(lhs, col)
            rhs = times(rhs, col if rank(yv.type) == 2 else wv)
        sq = lw.b.elementwise(lambda e: prim("mul", e, e, loc=loc), [lhs], loc)
        scale = lw.b.share_atom(lw.b.elementwise(lambda e: prim("sqrt", e, loc=loc), [reduce(lw, sq, (0,), "sum", loc)],
                                                 loc), binds, loc)
        scaled = lw.b.share_atom(lw.b.elementwise(lambda u, v: prim("div", u, v, loc=loc), [lhs, scale], loc), binds,
                                 loc)
        fit = lw.b.share_atom(least_squares(lw, scaled, rhs, rcv, loc, name, message), binds, loc)
        c = lw.b.share_atom(Get(0, fit, loc), binds, loc)
        per = scale if rank(yv.type) == 1 else insert_axes(lw, scale, [1], loc)
        return make_lets(binds, lw.b.elementwise(lambda u, v: prim("div", u, v, loc=loc), [c, per], loc))
    return lw.b.share_all(ts, body, loc)


HANDLERS = [((np.linalg.lstsq,), h_lstsq, ("rcond",)), ((np.polyfit,), h_polyfit, ("rcond", "full", "w", "cov"))]
