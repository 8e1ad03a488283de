"""np.cov and np.corrcoef as NumPy computes them, from builds, sums and dots (np.gradient is
catad/frontend/numpy_gradient.py's):

* ``np.cov(m, rowvar=True, bias=False, ddof=None)`` (no y, no weights): the rows (columns) the
  variables, X - mean(X) times its transpose times 1 / (N - ddof) (1 / 0: inf where N <= ddof,
  as NumPy's, which warns), squeezed;
* ``np.corrcoef(x, rowvar=True)``: cov(x) / sqrt(d_i) / sqrt(d_j) clipped to [-1, 1]; of one
  variable, cov / cov (NumPy's: 1.0, or nan), unclipped.
"""
from __future__ import annotations

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import Const, If, Term, Tuple, make_lets
from ..lang.types import Float, Int, rank
from ..primitives import prim
from .calls import display
from .common import ONE, ZERO, index_chain, is_array
from .numpy_arrays import _is_none, array_arg, bind_args, builds, reduce, static_axes, static_bool, Failure

_TWO = Const(2, Int)


def _covariance(lw, x: Term, ddof: Term, loc) -> Term:
    """(X - mean) (X - mean)^T * (1 / fact) of the atom X (variables by observations)."""
    nv, nobs = lw.b.size(x, 0, loc), lw.b.size(x, 1, loc)

    def centred(avg):
        xc = builds(lw, [nv, nobs], lambda i, j: prim("sub", index_chain(x, [i, j], loc), index_chain(avg, [i], loc),
                                                      loc=loc), loc)
        return lw.b.share(xc, lambda c: lw.b.dot(c, lw.b.transpose(c, loc), loc), loc)
    fact = prim("sub", lw.b.to_float(nobs, loc), ddof, loc=loc)
    inv = If(prim("le", fact, Const(0.0, Float), loc=loc), Const(np.inf, Float),
             prim("div", Const(1.0, Float), fact, loc=loc), loc)  # NumPy: fact = 0.0, then true_divide(1, fact)
    c = lw.b.share(reduce(lw, x, (1,), "mean", loc), centred, loc)
    return lw.b.share_all([c, inv], lambda m, k: lw.b.elementwise(lambda e: prim("mul", e, k, loc=loc), [m], loc),
                          loc)


def h_cov(lw, obj, node, args, kwargs):
    """np.cov(m, rowvar=True, bias=False, ddof=None): NumPy's covariance matrix, squeezed."""
    names = ("m", "y", "rowvar", "bias", "ddof") if obj is np.cov else ("x", "y", "rowvar")
    p = bind_args(lw, obj, node, args, kwargs, names)
    if not _is_none(p.get("y")):
        lw.fail(node, display(obj), f"y of {display(obj)}() is not supported", hint="stack the variables first")
    loc = lw.loc(node)
    m = lw.b.to_float(array_arg(lw, p[names[0]], obj, node), loc)
    if rank(m.type) > 2:
        lw.fail(node, display(obj), "m has more than 2 dimensions", CatadTypeError)
    rowvar = static_bool(lw, p.get("rowvar"), obj, "rowvar", True)
    bias = static_bool(lw, p.get("bias"), obj, "bias", False)
    ddof = Const(0.0 if bias else 1.0, Float) if _is_none(p.get("ddof")) else lw.b.to_float(lw.arg(p["ddof"]), loc)
    vector = rank(m.type) == 1
    if vector:
        x = builds(lw, [ONE], lambda i: m, loc)
    else:
        one = lw.b.units(m)[0 if rowvar else 1]  # NumPy squeezes the matrix of one variable too
        vector = bool(one)
        x = m if rowvar else lw.b.transpose(m, loc)
        if one is None:  # compiled for a matrix: one variable at run time is refused there
            x = lw.b.share(x, lambda a: make_lets(lw.b.check(
                prim("ne", lw.b.size(a, 0, loc), ONE, loc=loc), (), loc, display(obj),
                f"{display(obj)}() of one variable is a number, and catad compiled it for a matrix (whether m "
                "holds one variable was not known while compiling)", "unsupported"), a), loc)
    c = lw.b.share(x, lambda a: _covariance(lw, a, ddof, loc), loc)
    if obj is np.corrcoef and not vector:
        c = lw.b.share(c, lambda v: _correlation(lw, v, loc), loc)
    if not vector:
        return c
    # NumPy squeezes: one variable gives a number; its correlation is NumPy's c / c (exactly 1.0,
    # or nan), not c / sqrt(c) / sqrt(c), which rounds to 0.9999999999999999 for some c
    one = lambda v: index_chain(v, [ZERO, ZERO], loc)
    if obj is np.corrcoef:
        return lw.b.share(c, lambda v: lw.b.share(one(v), lambda u: prim("div", u, u, loc=loc), loc), loc)
    return lw.b.share(c, one, loc)


def _correlation(lw, c: Term, loc) -> Term:
    """c_ij / sqrt(c_ii) / sqrt(c_jj), clipped to [-1, 1] as NumPy's corrcoef."""
    n = lw.b.size(c, 0, loc)

    def body(sd):
        def elem(i, j):
            v = prim("div", prim("div", index_chain(c, [i, j], loc), index_chain(sd, [i], loc), loc=loc),
                     index_chain(sd, [j], loc), loc=loc)
            return lw.b.share(v, lambda u: If(prim("ne", u, u, loc=loc), u, prim("min", prim(
                "max", u, Const(-1.0, Float), loc=loc), Const(1.0, Float), loc=loc), loc), loc)
        return builds(lw, [n, n], elem, loc)
    return lw.b.share(builds(lw, [n], lambda i: prim("sqrt", index_chain(c, [i, i], loc), loc=loc), loc), body, loc)


TABLE = [
    ((np.cov,), h_cov, ("m", "y", "rowvar", "bias", "ddof")),
    ((np.corrcoef,), h_cov, ("x", "y", "rowvar")),
]

__all__ = ["TABLE"]
