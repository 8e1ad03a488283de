"""NumPy's index generators, polynomials, convolutions and interpolation as core terms.

Each handler (``h_*``, listed in ``TABLE`` and called through calls.py's table) makes builds,
indexing, sums and folds, so derivatives are those of these terms (no Jacobian is a matrix):

* ``np.lexsort(keys)`` of a tuple of vectors (or a matrix whose rows are the keys): NumPy's
  permutation, an Int vector (no derivative), by the ``lexsort`` primitive (for every lane of a
  build at once), whether the keys are constants or computed;
* ``np.sort(a, axis=-1)``: each lane gathered at its lexsort order (the derivative scatters the
  cotangent back through the permutation), ``np.argsort(a, axis=-1, kind='stable')`` (only a
  stable sort has one answer for ties) and ``np.median(a, axis=None)`` (the middle of the sorted
  lane, nan for a lane with a NaN or none); ``np.quantile(a, q, axis=None)`` and
  ``np.percentile`` of one number q, by NumPy's 'linear' method step by step (the same value to
  the bit, a derivative in a and in q); an Int q of np.quantile (0 or 1) takes the element
  itself, as NumPy does, with no interpolation;
* ``np.triu_indices(n, k=0, m=None)``, ``np.tril_indices``: two Int vectors, in NumPy's
  row-major order. The number of indices in each row is a closed form; their running sum
  (a scan) says, for the p-th index, its row (how many running sums are <= p) and column;
* ``np.polyval(p, x)`` (Horner, highest degree first: ``y = y * x + p[i]`` from ``y = 0``),
  ``np.polynomial.polynomial.polyval(x, c)`` (Horner from the last coefficient),
  ``np.polynomial.chebyshev.chebval(x, c)`` and ``np.polynomial.legendre.legval(x, c)``
  (Clenshaw's recurrence, NumPy's operations in NumPy's order): a fold over the coefficients
  for each element of x;
* ``np.polynomial.legendre.leggauss(n)`` for a constant n: NumPy's nodes and weights, computed
  while compiling (they do not depend on the function's inputs);
* ``np.convolve(a, v, mode='full')`` and ``np.correlate(a, v, mode='valid')``: each output
  element a sum over v of products (terms outside a are zero). NumPy swaps a and v when v is
  the longer; the result of 'full' and 'valid' does not depend on that, and that of 'same'
  is the slice of the 'full' result NumPy's swap picks;
* ``np.interp(x, xp, fp, left=None, right=None)``: for each x, the interval
  ``xp[j] <= x < xp[j+1]`` (j counts the knots <= x; xp increasing, as NumPy requires) and
  ``slope * (x - xp[j]) + fp[j]`` there, NumPy's formula; ``left``/``right`` (``fp[0]``,
  ``fp[-1]`` by default) outside, ``fp[-1]`` at ``x == xp[-1]``. The interval is chosen by
  comparisons, which have no derivative: the derivative with respect to x is the slope of
  the interval x is in (the one to its right at a knot; 0 outside ``[xp[0], xp[-1]]`` and at
  ``x == xp[-1]``), with respect to fp the interpolation weights, and with respect to xp
  that of the formula on that interval (the knots are not differentiated as the points where
  the interval changes);
* ``np.insert(arr, index, value)`` of a vector, a constant index and a scalar value;
* ``np.trapezoid(y, x=None, dx=1.0, axis=-1)`` along any axis of an array of any rank, each
  operation in NumPy's dtype (of Bools, ``y[1:] + y[:-1]`` is a logical or);
* ``scipy.integrate.simpson(y, x=None, *, dx=1.0)`` of a vector (a special_calls library row):
  SciPy 1.11 and later's rule, Simpson's on pairs of intervals (all of them for an odd number
  of samples) and, for an even number, Cartwright's correction of the last interval; the
  parity is that of the run-time length, chosen by an if.
"""
from __future__ import annotations

import ast
import math

import numpy as np
import numpy.polynomial.chebyshev
import numpy.polynomial.legendre
import numpy.polynomial.polynomial

from ..errors import CatadTypeError
from ..lang.fold import Fold
from ..lang.terms import FALSE, TRUE, Build, Const, Get, If, Term, Tuple, make_lets
from ..lang.types import Bool, Float, Int, Tuple as TupleT, rank, scalar_of, vec_of
from ..primitives import prim
from .calls import display
from .common import FALSE_ as FALSE, ONE, ZERO, all_, and_, index_chain, is_array
from .numpy_arrays import (Failure, _combine, _is_none, array_arg, bind_args, builds, insert_axes, int_arg, inverse,
                           permute, reshape, scan0, static_axes, static_int)

_NAN = Const(math.nan, Float)


def _f(v: float) -> Const:
    return Const(float(v), Float)


def _positive_check(lw, n: Term, loc, name: str, message: str, kind: str = "shape") -> list:
    """The check that the length n is at least 1 (none where that is proven)."""
    if lw.b.shapes.at_most(ONE, n):
        return []
    return lw.b.check(prim("le", ONE, n, loc=loc), (n,), loc, name, message, kind)


def _vector_arg(lw, a, obj, node, what: str, scalar: str | None = None) -> Term:
    """An argument that must be a vector (a scalar is a vector of one element, as NumPy's
    ``ndmin=1``, unless NumPy raises `scalar` for one); of Floats."""
    name = display(obj)
    t = lw.display(a) if isinstance(a, (ast.List, ast.Tuple)) else lw.arg(a)
    if lw.is_list(t):
        t = t.replace()
    if t.type in (Int, Float) and scalar is not None:
        lw.fail(node, name, f"{what} of {name}() must be a vector, got a number ({name} raises {scalar})",
                CatadTypeError)
    if t.type in (Int, Float):
        t = prim("vector", t, loc=lw.loc(node))
    if not is_array(t) or scalar_of(t.type) not in (Int, Float):
        lw.fail(node, name, f"{what} of {name}() must be a vector of numbers, got a {t.type}", CatadTypeError)
    if rank(t.type) != 1:
        lw.fail(node, name, f"{what} of {name}() must be a vector (NumPy: object too deep for desired array), "
                            f"got a {t.type}", CatadTypeError)
    return lw.b.to_float(t, lw.loc(node))


def _static_str(lw, a, obj, what: str, default: str, choices: tuple) -> str:
    if _is_none(a):
        return default
    v = a.value if isinstance(a, ast.Constant) else lw.static(a)
    if not isinstance(v, str):
        lw.fail(a, display(obj), f"{what} of {display(obj)}() must be a constant string", CatadTypeError)
    if v not in choices and len(choices) == 1:
        lw.fail(a, display(obj), f"{what} {v!r} of {display(obj)}() is not supported: catad supports "
                                 f"{choices[0]!r}", CatadTypeError)
    if v not in choices:
        lw.fail(a, display(obj), f"{what} must be one of {', '.join(repr(c) for c in choices[:-1])}, or "
                                 f"{choices[-1]!r} (got {v!r})", CatadTypeError)
    return v


# ------------------------------------------------------------ triu_indices, tril_indices

def h_triangle_indices(lw, obj, node, args, kwargs):
    """np.triu_indices(n, k=0, m=None), np.tril_indices: the (rows, cols) Int vectors of a triangle."""
    p = bind_args(lw, obj, node, args, kwargs, ("n", "k", "m"))
    loc = lw.loc(node)
    n = int_arg(lw, p["n"], obj, "n")
    k = ZERO if _is_none(p.get("k")) else int_arg(lw, p["k"], obj, "k")
    m = n if _is_none(p.get("m")) else int_arg(lw, p["m"], obj, "m")
    upper = obj is np.triu_indices
    add = lambda a, b: prim("add", a, b, loc=loc)
    sub = lambda a, b: prim("sub", a, b, loc=loc)
    mx = lambda a, b: prim("max", a, b, loc=loc)
    mn = lambda a, b: prim("min", a, b, loc=loc)

    def body(n, k, m):
        rows_n, cols_m = mx(n, ZERO), mx(m, ZERO)

        def first(r):  # the first column of row r (upper), or the end of row r's columns (lower)
            return mx(ZERO, add(r, k)) if upper else mn(cols_m, add(add(r, k), ONE))

        def count(r):
            return mx(ZERO, sub(cols_m, first(r))) if upper else mx(ZERO, first(r))
        counts = builds(lw, [rows_n], count, loc)

        def with_counts(cs):
            cum = scan0(lw, cs, _combine(lw, "add", loc), loc)

            def with_cum(cum):
                total = prim("sum", cs, loc=loc)

                def row(q):
                    return prim("sum", builds(lw, [rows_n], lambda r: If(prim("le", prim("index", r, cum, loc=loc), q,
                                                                               loc=loc), ONE, ZERO, loc), loc), loc=loc)

                def made(tot):
                    rows = builds(lw, [tot], row, loc)

                    def col(rows):
                        def at(q):
                            r = prim("index", q, rows, loc=loc)
                            start = sub(prim("index", r, cum, loc=loc), prim("index", r, cs, loc=loc))
                            return add(first(r) if upper else ZERO, sub(q, start))
                        return Tuple((rows, builds(lw, [tot], at, loc)), loc)
                    return lw.b.share(rows, col, loc)
                return lw.b.share(total, made, loc)
            return lw.b.share(cum, with_cum, loc)
        return lw.b.share(counts, with_counts, loc)
    return lw.b.share_all([n, k, m], body, loc)


# ------------------------------------------------------------ polynomials

def _fold_over(lw, acc: Term, vec: Term, step, loc) -> Term:
    """fold step(state, element) from acc over the elements of vec."""
    ty = TupleT((acc.type, vec.type.elem))
    v = lw.b.var(ty, loc, "_f")
    body = lw.b.share(Get(0, v, loc), lambda s: lw.b.share(Get(1, v, loc), lambda e: step(s, e), loc), loc)
    return Fold(acc, vec, v, body, loc)


def _per_element(lw, f, x: Term, loc, name: str) -> Term:
    """f of each element of x (an array of any rank), or of x, a scalar."""
    if is_array(x):
        return lw.b.elementwise(lambda e: lw.b.share(e, f, loc), [x], loc, name)
    return lw.b.share(x, f, loc)


def _reversed(lw, c: Term, count: Term, last: Term, loc) -> Term:
    """The vector c[last], c[last - 1], ... of `count` elements (count >= 0 known)."""
    return builds(lw, [count], lambda t: prim("index", prim("sub", last, t, loc=loc), c, loc=loc), loc)


def h_polyval(lw, obj, node, args, kwargs):
    """np.polyval(p, x): Horner's rule, highest degree first, for each element of x."""
    p = bind_args(lw, obj, node, args, kwargs, ("p", "x"), 2)
    loc, name = lw.loc(node), display(obj)
    c = _vector_arg(lw, p["p"], obj, node, "p", "TypeError: iteration over a 0-d array")
    x = lw.b.to_float(lw.arg(p["x"]), loc)
    if scalar_of(x.type) != Float:
        lw.fail(node, name, f"x of {name}() must be a number or an array of numbers, got a {x.type}", CatadTypeError)
    mul, add = _combine(lw, "mul", loc), _combine(lw, "add", loc)
    return lw.b.share(c, lambda cs: _per_element(
        lw, lambda e: _fold_over(lw, _f(0.0), cs, lambda y, ci: add(mul(y, e), ci), loc), x, loc, name), loc)


def _series_args(lw, obj, node, args, kwargs):
    p = bind_args(lw, obj, node, args, kwargs, ("x", "c", "tensor"), 2)
    loc, name = lw.loc(node), display(obj)
    if not _is_none(p.get("tensor")):
        t = lw.arg(p["tensor"])
        if not isinstance(t, Const):
            lw.fail(p["tensor"], name, f"tensor of {name}() must be a constant", CatadTypeError)
    c = _vector_arg(lw, p["c"], obj, node, "c")
    x = lw.b.to_float(lw.arg(p["x"]), loc)
    if scalar_of(x.type) != Float:
        lw.fail(node, name, f"x of {name}() must be a number or an array of numbers, got a {x.type}", CatadTypeError)
    return c, x, loc, name


def h_power_series(lw, obj, node, args, kwargs):
    """np.polynomial.polynomial.polyval(x, c): Horner's rule from the last coefficient, for each element of x."""
    c, x, loc, name = _series_args(lw, obj, node, args, kwargs)
    mul, add = _combine(lw, "mul", loc), _combine(lw, "add", loc)

    def body(cs):
        n = lw.b.size(cs, 0, loc)
        chk = _positive_check(lw, n, loc, name, "index -1 is out of bounds for axis 0 with size {0}", "bounds")
        last = prim("sub", n, ONE, loc=loc)
        rest = _reversed(lw, cs, prim("max", prim("sub", n, ONE, loc=loc), ZERO, loc=loc),
                         prim("sub", n, Const(2, Int), loc=loc), loc)

        def each(r):
            # c0 = c[-1] + x * 0; c0 = c[-i] + c0 * x
            return _per_element(lw, lambda e: _fold_over(
                lw, add(prim("index", prim("max", last, ZERO, loc=loc), cs, loc=loc), mul(e, _f(0.0))), r,
                lambda y, ci: add(ci, mul(y, e)), loc), x, loc, name)
        return make_lets(chk, lw.b.share(rest, each, loc))
    return lw.b.share(c, body, loc)


def h_clenshaw(lw, obj, node, args, kwargs):
    """np.polynomial.chebyshev.chebval(x, c), np.polynomial.legendre.legval(x, c): Clenshaw's recurrence, NumPy's steps."""
    c, x, loc, name = _series_args(lw, obj, node, args, kwargs)
    legendre = obj is np.polynomial.legendre.legval
    mul, add, sub = _combine(lw, "mul", loc), _combine(lw, "add", loc), _combine(lw, "sub", loc)
    div = lambda a, b: lw.b.arith("div", a, b, loc)
    fl = lambda t: lw.b.to_float(t, loc)
    two = Const(2, Int, loc)

    def body(cs):
        n = lw.b.size(cs, 0, loc)
        chk = _positive_check(lw, n, loc, name, "index -2 is out of bounds for axis 0 with size {0}", "bounds")
        one = prim("eq", n, ONE, loc=loc)
        at = lambda i: prim("index", i, cs, loc=loc)
        # len(c) == 1: c0, c1 = c[0], 0; else c0, c1 = c[-2], c[-1], then c[-3], c[-4], ... folded in
        c0 = If(one, at(ZERO), at(prim("max", prim("sub", n, two, loc=loc), ZERO, loc=loc)), loc)
        c1 = If(one, _f(0.0), at(prim("sub", n, ONE, loc=loc)), loc)
        rest = _reversed(lw, cs, prim("max", prim("sub", n, two, loc=loc), ZERO, loc=loc),
                         prim("sub", n, Const(3, Int), loc=loc), loc)

        def each(r, a0, a1):
            def finish(fold, e):  # c0 + c1 * x
                return lw.b.share(fold, lambda s: add(Get(0, s, loc), mul(Get(1, s, loc), e)), loc)

            def cheb(e):
                def step(s, ci):  # tmp = c0; c0 = c[-i] - c1; c1 = tmp + c1 * x2
                    return lw.b.share(Get(1, s, loc), lambda b1: Tuple((
                        sub(ci, b1), add(Get(0, s, loc), mul(b1, x2))), loc), loc)
                x2 = lw.b.var(Float, loc, "_x2")
                return make_lets([(x2, mul(_f(2.0), e), loc)],
                                 finish(_fold_over(lw, Tuple((a0, a1), loc), r, step, loc), e))

            def leg(e):
                def step(s, ci):  # nd -= 1; c0 = c[-i] - c1*((nd-1)/nd); c1 = tmp + c1*x*((2*nd-1)/nd)
                    def go(b0, b1, nd):
                        return lw.b.share(prim("sub", nd, ONE, loc=loc), lambda d: Tuple((
                            sub(ci, mul(b1, div(fl(prim("sub", d, ONE, loc=loc)), fl(d)))),
                            add(b0, mul(mul(b1, e), div(fl(prim("sub", prim("mul", two, d, loc=loc), ONE, loc=loc)),
                                                        fl(d)))),
                            d), loc), loc)
                    return lw.b.share_all([Get(0, s, loc), Get(1, s, loc), Get(2, s, loc)], go, loc)
                return finish(_fold_over(lw, Tuple((a0, a1, n), loc), r, step, loc), e)
            return _per_element(lw, leg if legendre else cheb, x, loc, name)
        return make_lets(chk, lw.b.share_all([rest, c0, c1], each, loc))
    return lw.b.share(c, body, loc)


def h_leggauss(lw, obj, node, args, kwargs):
    """np.polynomial.legendre.leggauss(deg) of a constant deg: NumPy's nodes and weights, computed while compiling."""
    p = bind_args(lw, obj, node, args, kwargs, ("deg",))
    loc, name = lw.loc(node), display(obj)
    deg = static_int(lw, p["deg"], obj, "deg")
    if deg <= 0:
        return Failure(loc, name, "deg must be a positive integer").term(
            lw, TupleT((prim("vector", _f(0.0)).type,) * 2))
    nodes, weights = np.polynomial.legendre.leggauss(deg)
    vec = lambda vs: prim("vector", *(Const(float(v), Float, loc) for v in vs), loc=loc)
    return Tuple((vec(nodes), vec(weights)), loc)


# ------------------------------------------------------------ convolve, correlate

def h_convolve(lw, obj, node, args, kwargs):
    """np.convolve(a, v, mode='full'), np.correlate(a, v, mode='valid'): builds of sums of products."""
    conv = obj is np.convolve
    p = bind_args(lw, obj, node, args, kwargs, ("a", "v", "mode"), 2)
    loc, name = lw.loc(node), display(obj)
    mode = _static_str(lw, p.get("mode"), obj, "mode", "full" if conv else "valid", ("valid", "same", "full"))
    shallow = None if conv else "ValueError: object of too small depth for desired array"  # (convolve takes them)
    a = _vector_arg(lw, p["a"], obj, node, "a", shallow)
    v = _vector_arg(lw, p["v"], obj, node, "v", shallow)
    add, sub, mn, mx = (lambda x, y, o=o: prim(o, x, y, loc=loc) for o in ("add", "sub", "min", "max"))
    two = Const(2, Int, loc)

    def body(x, y):
        n, m = lw.b.size(x, 0, loc), lw.b.size(y, 0, loc)
        chk = _positive_check(lw, n, loc, name, "a cannot be empty" if conv else "first array argument cannot be empty")
        chk += _positive_check(lw, m, loc, name, "v cannot be empty" if conv else
                               "second array argument cannot be empty")
        s = mn(n, m)
        if mode == "full":
            size, off = sub(add(n, m), ONE), ZERO
        elif mode == "valid":
            size, off = add(sub(mx(n, m), s), ONE), sub(s, ONE)
        else:
            size = mx(n, m)
            off = prim("floordiv", sub(s, ONE), two, loc=loc)
            if not conv:  # correlate swaps (and reverses) when v is the longer
                off = If(prim("lt", n, m, loc=loc), prim("floordiv", s, two, loc=loc), off, loc)

        def out(off):
            def elem(t):
                def term(tv, j):
                    # convolve: a[t - j] v[j]; correlate: a[t + j - (m - 1)] v[j]; zero outside a
                    i = sub(tv, j) if conv else sub(add(tv, j), sub(m, ONE))
                    return lw.b.share(i, lambda iv: If(
                        and_(prim("le", ZERO, iv, loc=loc), prim("lt", iv, n, loc=loc)),
                        lw.b.arith("mul", prim("index", mx(ZERO, mn(iv, sub(n, ONE))), x, loc=loc),
                                   prim("index", j, y, loc=loc), loc), _f(0.0), loc), loc)
                return lw.b.share(add(t, off), lambda tv: prim("sum", builds(lw, [m], lambda j: term(tv, j), loc),
                                                               loc=loc), loc)
            return builds(lw, [size], elem, loc)
        return make_lets(chk, lw.b.share(off, out, loc))
    return lw.b.share_all([a, v], body, loc)


# ------------------------------------------------------------ interp

def h_interp(lw, obj, node, args, kwargs):
    """np.interp(x, xp, fp, left=None, right=None): NumPy's piecewise-linear formula on the interval of each x."""
    p = bind_args(lw, obj, node, args, kwargs, ("x", "xp", "fp", "left", "right", "period"), 3)
    loc, name = lw.loc(node), display(obj)
    if not _is_none(p.get("period")):
        lw.fail(p["period"], name, f"period of {name}() is not supported")
    x = lw.b.to_float(lw.arg(p["x"]), loc)
    if scalar_of(x.type) != Float:
        lw.fail(node, name, f"x of {name}() must be a number or an array of numbers, got a {x.type}", CatadTypeError)
    shallow = "ValueError: object of too small depth for desired array"
    xp = _vector_arg(lw, p["xp"], obj, node, "xp", shallow)
    fp = _vector_arg(lw, p["fp"], obj, node, "fp", shallow)
    ends = []
    for k in ("left", "right"):
        if _is_none(p.get(k)):
            ends.append(None)
            continue
        e = lw.b.to_float(lw.arg(p[k]), loc)
        if e.type != Float:
            lw.fail(p[k], name, f"{k} of {name}() must be a number, got a {e.type}", CatadTypeError)
        ends.append(e)
    add, sub, mul = _combine(lw, "add", loc), _combine(lw, "sub", loc), _combine(lw, "mul", loc)
    div = lambda a, b: lw.b.arith("div", a, b, loc)
    isnan = lambda t: prim("ne", t, t, loc=loc)

    def body(xps, fps, *given):
        it = iter(given)
        left, right = (next(it) if e is not None else None for e in ends)
        n, nf = lw.b.size(xps, 0, loc), lw.b.size(fps, 0, loc)
        chk = _positive_check(lw, n, loc, name, "array of sample points is empty")
        if not lw.b.shapes.equal(n, nf):
            chk += lw.b.check(prim("eq", n, nf, loc=loc), (), loc, name, "fp and xp are not of the same length.",
                              equal=((nf, n),))
        last = prim("sub", n, ONE, loc=loc)
        at = lambda i, v: prim("index", i, v, loc=loc)
        lo = left if left is not None else at(ZERO, fps)
        hi = right if right is not None else at(last, fps)

        def at_x(e):
            # j: the number of knots <= x, less one; read within 0 <= j <= n - 2 (j + 1 <= n - 1)
            count = prim("sum", builds(lw, [n], lambda r: If(prim("le", at(r, xps), e, loc=loc), ONE, ZERO, loc),
                                       loc), loc=loc)

            def inner(j):
                jj = prim("max", prim("min", j, prim("sub", n, Const(2, Int), loc=loc), loc=loc), ZERO, loc=loc)

                def formula(j0, j1):
                    x0, x1, f0, f1 = at(j0, xps), at(j1, xps), at(j0, fps), at(j1, fps)

                    def with_slope(slope):
                        first = add(mul(slope, sub(e, x0)), f0)
                        second = add(mul(slope, sub(e, x1)), f1)
                        # NumPy: at a knot fp[j]; where the formula is nan, the one from the right end,
                        # then fp[j] where fp[j] == fp[j + 1]
                        return lw.b.share(first, lambda r: If(isnan(r), If(prim("eq", x0, e, loc=loc), f0, lw.b.share(
                            second, lambda r2: If(and_(isnan(r2), prim("eq", f0, f1, loc=loc)), f0, r2, loc), loc),
                            loc), r, loc), loc)
                    return lw.b.share(div(sub(f1, f0), sub(x1, x0)), with_slope, loc)
                value = lw.b.share(jj, lambda j0: lw.b.share(prim("min", prim("add", j0, ONE, loc=loc), last, loc=loc),
                                                            lambda j1: formula(j0, j1), loc), loc)
                return If(isnan(e), _NAN, If(prim("lt", at(last, xps), e, loc=loc), hi, If(
                    prim("eq", e, at(last, xps), loc=loc), at(last, fps), If(
                        prim("lt", j, ZERO, loc=loc), lo, value, loc), loc), loc), loc)
            return lw.b.share(prim("sub", count, ONE, loc=loc), inner, loc)
        return make_lets(chk, _per_element(lw, at_x, x, loc, name))
    return lw.b.share_all([xp, fp] + [e for e in ends if e is not None], body, loc)


# ------------------------------------------------------------ insert

def h_insert(lw, obj, node, args, kwargs):
    """np.insert(arr, index, value) of a vector (a matrix flattened), a constant index and a scalar value."""
    p = bind_args(lw, obj, node, args, kwargs, ("arr", "obj", "values", "axis"), 3)
    loc, name = lw.loc(node), display(obj)
    a = array_arg(lw, p["arr"], obj, node)
    if not _is_none(p.get("axis")) and not (rank(a.type) == 1 and static_int(lw, p["axis"], obj, "axis") in (0, -1)):
        lw.fail(p["axis"], name, f"axis of {name}() is supported only for a vector (axis=0)")
    k = static_int(lw, p["obj"], obj, "the index")
    value = lw.arg(p["values"])
    if value.type not in (Int, Float, Bool):
        lw.fail(p["values"], name, f"{name}() here inserts one number (a scalar value), got a {value.type}",
                CatadTypeError)
    if rank(a.type) == 2:
        a = reshape(lw, a, [Const(-1, Int)], loc, obj)
    elem = scalar_of(a.type)
    if elem == Float:
        value = lw.b.to_float(value, loc)
    elif value.type != elem:
        lw.fail(p["values"], name, f"{name}() of a {elem} array takes a {elem} value here (NumPy would convert "
                                   f"the {value.type})", CatadTypeError)

    def body(v, val):
        n = lw.b.size(v, 0, loc)
        kk = Const(k, Int, loc)
        bound = Const(abs(k) if k < 0 else k, Int, loc)
        if k < 0:
            ok = prim("le", bound, n, loc=loc)
            pos = prim("add", n, kk, loc=loc)
        else:
            ok = prim("le", bound, n, loc=loc)
            pos = kk
        chk = [] if lw.b.shapes.at_most(bound, n) else lw.b.check(
            ok, (n,), loc, name, f"index {k} is out of bounds for axis 0 with size {{0}}", "bounds")

        def made(q):
            def elem(i):
                before = prim("lt", i, q, loc=loc)
                back = prim("max", prim("sub", i, ONE, loc=loc), ZERO, loc=loc)
                return If(before, prim("index", prim("min", i, prim("max", prim("sub", n, ONE, loc=loc), ZERO, loc=loc),
                                                     loc=loc), v, loc=loc),
                          If(prim("eq", i, q, loc=loc), val, prim("index", back, v, loc=loc), loc), loc)
            return builds(lw, [prim("add", n, ONE, loc=loc)], elem, loc)
        return make_lets(chk, lw.b.share(pos, made, loc))
    return lw.b.share_all([a, value], body, loc)


# ------------------------------------------------------------ trapezoid along an axis

def _numpy_scalar_op(lw, name: str, x: Term, y: Term, loc) -> Term:
    """x + y or x * y (name add or mul) of two elements as NumPy's arrays compute them: two
    Bools make a Bool (add is logical or, mul logical and: True + True is True); a Bool beside
    a number is that number's 1 or 0."""
    if x.type == Bool and y.type == Bool:
        return If(x, TRUE, y, loc) if name == "add" else If(x, y, FALSE, loc)
    if x.type == Bool:
        x = lw.b.numeric(x, y.type, loc)
    if y.type == Bool:
        y = lw.b.numeric(y, x.type, loc)
    return lw.b.arith(name, x, y, loc)


def _adjacent(lw, a: Term, axis: int, op, loc) -> Term:
    """op(a[..., i + 1, ...], a[..., i, ...]) along `axis` of atom a (max(n - 1, 0) long there)."""
    sizes = [lw.b.size(a, q, loc) for q in range(rank(a.type))]
    sizes[axis] = prim("max", prim("sub", sizes[axis], ONE, loc=loc), ZERO, loc=loc)

    def elem(*ix):
        up = list(ix)
        up[axis] = prim("add", ix[axis], ONE, loc=loc)
        return op(index_chain(a, up, loc), index_chain(a, list(ix), loc))
    return builds(lw, sizes, elem, loc)


def _np_diff(lw, x: Term, axis: int, loc) -> Term:
    """np.diff(x, axis=axis) of atom x: x[1:] - x[:-1], of Bools x[1:] != x[:-1] (NumPy's)."""
    if scalar_of(x.type) == Bool:
        return _adjacent(lw, x, axis, lambda u, v: prim("ne", u, v, loc=loc), loc)
    return _adjacent(lw, x, axis, lambda u, v: lw.b.arith("sub", u, v, loc), loc)


def _trapezoid_steps(lw, p, obj, node, r: int, axis: int, loc):
    """NumPy's d of np.trapezoid for y of rank r integrated along `axis` (normalised; p["axis"]
    as given): dx, np.diff(x) of a vector x laid along the axis, or np.diff(x, axis=axis) of an
    array x (the axis as given, taken against x's rank, as NumPy's), or a Failure."""
    name = display(obj)
    if _is_none(p.get("x")):
        return _f(1.0) if _is_none(p.get("dx")) else lw.arg(p["dx"])
    x = array_arg(lw, p["x"], obj, node)
    rx = rank(x.type)
    if rx == 1:
        d = lw.b.share(x, lambda v: _np_diff(lw, v, 0, loc), loc)
        return insert_axes(lw, d, [q for q in range(r) if q != axis], loc)
    given = -1 if _is_none(p.get("axis")) else static_int(lw, p["axis"], obj, "axis")
    if not -rx <= given < rx:
        return Failure(loc, name, f"axis {given} is out of bounds for array of dimension {rx}", "bounds")
    return lw.b.share(x, lambda v: _np_diff(lw, v, given % rx, loc), loc)


def h_trapezoid(lw, obj, node, args, kwargs):
    """np.trapezoid(y, x=None, dx=1.0, axis=-1) of an array of any rank: NumPy's
    (d * (y[1:] + y[:-1]) / 2.0).sum(axis), each operation in NumPy's dtype (Bools add as a
    logical or), d broadcast against the pairs as NumPy's."""
    p = bind_args(lw, obj, node, args, kwargs, ("y", "x", "dx", "axis"))
    y, loc, name = array_arg(lw, p["y"], obj, node), lw.loc(node), display(obj)
    r = rank(y.type)
    out_type = vec_of(Float, r - 1)  # y's rank less the axis summed
    axis = -1 if _is_none(p.get("axis")) else static_int(lw, p["axis"], obj, "axis")
    if not -r <= axis < r:  # NumPy's IndexError, from its list of slices
        return Failure(loc, name, f"axis {axis} is out of bounds for array of dimension {r}", "bounds").term(
            lw, out_type)
    axis %= r
    d = _trapezoid_steps(lw, p, obj, node, r, axis, loc)
    if isinstance(d, Failure):
        return d.term(lw, out_type)
    if is_array(d) and rank(d.type) > r:  # NumPy would then sum along an axis of the broadcast result
        lw.fail(node, name, f"{name}() with x or dx of more dimensions than y is not supported", CatadTypeError)

    def body(v, dd):
        pairs = _adjacent(lw, v, axis, lambda u, w: _numpy_scalar_op(lw, "add", u, w, loc), loc)
        terms = lw.b.elementwise(lambda s, q: lw.b.arith("div", _numpy_scalar_op(lw, "mul", s, q, loc), _f(2.0), loc),
                                 [dd, pairs], loc, name)
        return lw.b.share(terms, lambda t: lw.b.reduce_axis(t, axis, "sum", loc), loc)
    return lw.b.share_all([y, d], body, loc)


# ------------------------------------------------------------ lexsort

def h_lexsort(lw, obj, node, args, kwargs):
    """np.lexsort(keys): the Int permutation sorting by the last key, then the one before (no derivative)."""
    p = bind_args(lw, obj, node, args, kwargs, ("keys", "axis"))
    loc = lw.loc(node)
    keys = p["keys"]
    items = [lw.arg(k) for k in keys.elts] if isinstance(keys, (ast.Tuple, ast.List)) else None
    if items is None:
        t = lw.arg(keys)
        items = [Get(k, t, loc) for k in range(len(t.type.items))] if isinstance(t.type, TupleT) else [t]
    matrix = len(items) == 1 and is_array(items[0]) and rank(items[0].type) == 2
    if not items or not (matrix or all(is_array(k) and rank(k.type) == 1 for k in items)) or \
            any(scalar_of(k.type) not in (Int, Float, Bool) for k in items):
        lw.fail(node, "np.lexsort", "np.lexsort() takes a tuple of vectors of numbers, or a matrix whose rows are "
                                    f"the keys, got {', '.join(str(k.type) for k in items) or 'no keys'}", CatadTypeError)
    if not _is_none(p.get("axis")):
        t = lw.arg(p["axis"])
        last = (-1, 1) if matrix else (-1, 0)
        if not (isinstance(t, Const) and t.type == Int and t.value in last):
            lw.fail(p["axis"], "np.lexsort", "axis of np.lexsort must be the keys' last axis (-1) here", CatadTypeError)
    def body(*ks):
        if matrix:
            return prim("lexsort", *ks, loc=loc)
        n = lw.b.shape(ks[0])[0]
        same = [prim("eq", n.size, lw.b.shape(k)[0].size, loc=loc) for k in ks[1:]
                if not lw.b.shapes.same(n, lw.b.shape(k)[0])]
        chk = lw.b.check(all_(same), (), loc, "np.lexsort", "all keys need to be the same shape")
        return make_lets(chk, prim("lexsort", *ks, loc=loc))
    return lw.b.share_all(items, body, loc)


# ------------------------------------------------------------ sorting: np.sort, np.argsort, np.median

def _order(lw, v: Term, loc) -> Term:
    """The Int permutation sorting atom vector v, ties in their order, NaNs last: np.lexsort((v,)),
    which is np.argsort(v, kind='stable')."""
    return prim("lexsort", v, loc=loc)


def _sorted1(lw, v: Term, loc) -> Term:
    """Atom vector v in ascending order: v gathered at its order (a gather, whose derivative is
    the scatter of the cotangent back through the permutation)."""
    def body(order):
        i = lw.b.var(Int, loc, "_i")
        return Build(lw.b.size(v, 0, loc), i, prim("index", prim("index", i, order, loc=loc), v, loc=loc), loc)
    return lw.b.share(_order(lw, v, loc), body, loc)


def _median1(lw, v: Term, loc) -> Term:
    """The median of atom vector v as np.median computes it: the middle of the sorted values (the
    mean of the two middle ones for an even length), nan when v holds a NaN (sorted last) or is
    empty."""
    nan = Const(math.nan, Float, loc)

    def body(s):
        n = lw.b.size(s, 0, loc)
        at = lambda k: lw.b.to_float(prim("index", k, s, loc=loc), loc)
        half = prim("floordiv", n, Const(2, Int), loc=loc)
        last = at(prim("sub", n, ONE, loc=loc))
        odd = prim("eq", prim("mod", n, Const(2, Int), loc=loc), ONE, loc=loc)
        # np.median is np.mean of the middle one or two, a sum from +0.0 (so never -0.0)
        zero = Const(0.0, Float, loc)
        plus = lambda a, b: prim("add", a, b, loc=loc)  # noqa: E731
        mid = If(odd, plus(zero, at(half)),
                 prim("div", plus(plus(zero, at(prim("sub", half, ONE, loc=loc))), at(half)), Const(2.0, Float), loc=loc),
                 loc)
        return If(prim("eq", n, ZERO, loc=loc), nan, If(prim("ne", last, last, loc=loc), nan, mid, loc), loc)
    return lw.b.share(_sorted1(lw, v, loc), body, loc)


def _quantile1(lw, v: Term, q: Term, loc) -> Term:
    """np.quantile(v, q) of atom vector v at atom Float q in [0, 1] (checked by the caller), by
    NumPy's 'linear' method step by step, so the value is NumPy's to the bit: the virtual index
    (n - 1) * q, its floor (a count: catad has no Float-to-Int conversion) and the next index
    (the last element from (n - 1) on), gamma, and NumPy's _lerp, which takes b - (b - a)(1 - gamma)
    from gamma = 0.5 on; nan for a lane holding a NaN."""
    f = lambda x: lw.b.to_float(x, loc)
    F = lambda c: Const(c, Float, loc)

    def body(s):
        n = lw.b.size(s, 0, loc)
        last = prim("sub", n, ONE, loc=loc)
        at = lambda k: f(prim("index", k, s, loc=loc))

        def with_virtual(virtual):
            above = prim("ge", virtual, f(last), loc=loc)
            below = prim("sum", builds(lw, [prim("max", last, ZERO, loc=loc)], lambda k: If(
                prim("le", f(prim("add", k, ONE, loc=loc)), virtual, loc=loc), ONE, ZERO, loc), loc), loc=loc)

            def with_floor(p):
                prev = If(above, last, p, loc)
                nxt = If(above, last, prim("add", p, ONE, loc=loc), loc)
                gamma = prim("sub", virtual, If(above, F(-1.0), f(p), loc), loc=loc)

                def lerp(a, b, g):
                    d = prim("sub", b, a, loc=loc)
                    return If(prim("ge", g, F(0.5), loc=loc),
                              prim("sub", b, prim("mul", d, prim("sub", F(1.0), g, loc=loc), loc=loc), loc=loc),
                              prim("add", a, prim("mul", d, g, loc=loc), loc=loc), loc)
                value = lw.b.share_all([at(prev), at(nxt), gamma], lerp, loc)
                tail = at(last)
                return If(prim("ne", tail, tail, loc=loc), F(math.nan), value, loc)
            return lw.b.share(below, with_floor, loc)
        return lw.b.share(prim("mul", f(last), q, loc=loc), with_virtual, loc)
    return lw.b.share(_sorted1(lw, v, loc), body, loc)


def h_quantile(lw, obj, node, args, kwargs):
    """np.quantile(a, q, axis=None) and np.percentile(a, q, axis=None) of a number q (or a vector
    of them: one result each, its axis first), by NumPy's
    default method ('linear'): each lane sorted, then interpolated between the two values around
    (n - 1) * q as NumPy interpolates (a derivative in a and in q). NumPy's errors: q outside
    [0, 1] ([0, 100]) is a ValueError, an empty lane an IndexError."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "q", "axis", "out", "overwrite_input", "method", "keepdims"),
                  2)
    for k in ("out", "keepdims"):
        if not _is_none(p.get(k)) and not (k == "keepdims" and lw.static(p[k]) is False):
            lw.fail(p[k], display(obj), f"{k}= of {display(obj)}() is not supported", CatadTypeError,
                    hint="np.expand_dims(..., k) keeps the axis")
    _static_str(lw, p.get("method"), obj, "method", "linear", ("linear",))
    a, loc = array_arg(lw, p["a"], obj, node), lw.loc(node)
    q = lw.comprehension(p["q"], None) if isinstance(p["q"], ast.ListComp) else lw.arg(p["q"])
    if rank(q.type) > 1 or scalar_of(q.type) not in (Int, Float):
        lw.fail(p["q"], display(obj), f"q of {display(obj)}() must be a number or a vector of them here, got a "
                f"{q.type}", CatadTypeError, hint="call it once per row of quantiles")
    if is_array(q):  # one result per quantile, in front of the lanes' axes (NumPy's shape)
        def each(qs):
            return builds(lw, [lw.b.size(qs, 0, loc)], lambda k: _quantile_of(
                lw, obj, node, p, a, prim("index", k, qs, loc=loc), loc), loc)
        return lw.b.share(q, each, loc)
    return _quantile_of(lw, obj, node, p, a, q, loc)


def _quantile_of(lw, obj, node, p, a: Term, q: Term, loc) -> Term:
    """np.quantile / np.percentile of a at the number q. An Int q of np.quantile (0 or 1) makes
    NumPy's virtual index (n - 1) * q an integer, and NumPy then takes that element itself, in
    a's dtype (-inf at q=0 of a lane holding -inf, where interpolating gives nan); np.percentile
    divides q by 100 first, so it always interpolates, as np.quantile of a Float q does."""
    name = display(obj)
    direct = obj is np.quantile and q.type == Int
    if not direct and scalar_of(a.type) == Bool:
        lw.fail(node, name, f"{name}() of Bools interpolates, which is NumPy's TypeError (numpy boolean subtract)",
                CatadTypeError, hint="convert them to numbers first, e.g. mask * 1.0")
    what = "Quantiles must be in the range [0, 1]"
    if obj is np.percentile:
        q, what = prim("div", lw.b.to_float(q, loc), Const(100.0, Float), loc=loc), \
            "Percentiles must be in the range [0, 100]"
    elif not direct:
        q = lw.b.to_float(q, loc)
    axis, a = _sort_axis(lw, obj, node, p, a, None)
    lo, hi = (ZERO, ONE) if direct else (Const(0.0, Float), Const(1.0, Float))

    def body(qv, x):
        ok = and_(prim("le", lo, qv, loc=loc), prim("le", qv, hi, loc=loc))
        chk = lw.b.check(ok, (), loc, name, what, "domain")

        def lane(v):
            n = lw.b.size(v, 0, loc)
            empty = lw.b.check(prim("lt", ZERO, n, loc=loc), (), loc, name,
                               "index -1 is out of bounds for axis 0 with size 0", "bounds")
            return make_lets(empty, (_quantile_element if direct else _quantile1)(lw, v, qv, loc))
        return make_lets(chk, _along_last(lw, x, axis, lane, False, loc))
    return lw.b.share_all([q, a], body, loc)


def _quantile_element(lw, v: Term, q: Term, loc) -> Term:
    """np.quantile(v, q) of atom vector v (not empty) at an atom Int q in {0, 1}: the sorted
    element (n - 1) * q, as NumPy takes it for an integer virtual index (no interpolation); nan
    for a lane of Floats holding a NaN (NumPy's, whose NaNs sort last)."""
    def body(s):
        last = prim("sub", lw.b.size(s, 0, loc), ONE, loc=loc)
        value = prim("index", prim("mul", last, q, loc=loc), s, loc=loc)
        if scalar_of(s.type) != Float:
            return value
        tail = prim("index", last, s, loc=loc)
        return If(prim("ne", tail, tail, loc=loc), _NAN, value, loc)
    return lw.b.share(_sorted1(lw, v, loc), body, loc)


def _along_last(lw, a: Term, axis: int, f1, keep_axis: bool, loc) -> Term:
    """f1 (of an atom vector) applied along `axis` of atom a, one lane per index of the other
    axes; its vector results put back along `axis` (keep_axis), or its numbers in their place."""
    r = rank(a.type)
    if r == 1:
        return f1(a)
    perm = tuple(q for q in range(r) if q != axis) + (axis,)

    def lanes(t):
        sizes = [lw.b.size(t, q, loc) for q in range(r - 1)]
        out = builds(lw, sizes, lambda *ix: lw.b.share(index_chain(t, list(ix), loc), f1, loc), loc)
        return lw.b.share(out, lambda u: permute(lw, u, inverse(perm), loc), loc) if keep_axis else out
    return lw.b.share(permute(lw, a, perm, loc), lanes, loc)


def _sort_axis(lw, obj, node, p, a: Term, default: int | None = -1):
    """The axis np.sort/np.argsort/np.median work along (None: the flattened array), the array."""
    axis = default if "axis" not in p else None if _is_none(p["axis"]) else p["axis"]
    if axis is None:
        flat = a if rank(a.type) == 1 else reshape(lw, a, [Const(-1, Int)], lw.loc(node), obj)
        return 0, flat
    axes = static_axes(lw, axis if isinstance(axis, ast.AST) else ast.Constant(axis), obj, rank(a.type))
    if isinstance(axes, Failure) or len(axes) != 1:
        lw.fail(p.get("axis", node), display(obj), f"axis of {display(obj)}() must be one axis of the array, or None",
                CatadTypeError)
    return axes[0], a


_KINDS = ("quicksort", "mergesort", "heapsort", "stable")


def _no_order(lw, obj, p):
    if not _is_none(p.get("order")):
        lw.fail(p["order"], display(obj), f"order= of {display(obj)}() sorts structured arrays, which catad does not "
                                         "have", CatadTypeError)


def h_sort(lw, obj, node, args, kwargs):
    """np.sort(a, axis=-1): each lane along axis gathered at its np.lexsort order (NaNs last);
    every kind= gives the same values."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "axis", "kind", "order", "stable"))
    _no_order(lw, obj, p)
    _static_str(lw, p.get("kind"), obj, "kind", "quicksort", _KINDS)
    a, loc = array_arg(lw, p["a"], obj, node), lw.loc(node)
    axis, a = _sort_axis(lw, obj, node, p, a)
    return lw.b.share(a, lambda x: _along_last(lw, x, axis, lambda v: _sorted1(lw, v, loc), True, loc), loc)


def h_argsort(lw, obj, node, args, kwargs):
    """np.argsort(a, axis=-1, kind='stable'): the Int order of each lane (no derivative). Only a
    stable sort has one answer for ties: the default kind orders them as its algorithm happens to."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "axis", "kind", "order", "stable"))
    _no_order(lw, obj, p)
    kind = _static_str(lw, p.get("kind"), obj, "kind", "quicksort", _KINDS)
    stable = not _is_none(p.get("stable")) and (p["stable"].value if isinstance(p["stable"], ast.Constant)
                                               else lw.static(p["stable"])) is True
    a, loc = array_arg(lw, p["a"], obj, node), lw.loc(node)
    axis, a = _sort_axis(lw, obj, node, p, a)
    if not stable and kind not in ("stable", "mergesort"):
        if rank(a.type) != 1:
            lw.fail(node, display(obj), "np.argsort() orders equal values as its sorting algorithm happens to unless "
                    "the sort is stable, so catad computes only a stable one", hint="pass kind='stable': equal "
                                                                                   "values then keep their order")
        return lw.b.share(a, lambda v: lw.b.share(_order(lw, v, loc), lambda o: _untied(lw, v, o, loc), loc), loc)
    return lw.b.share(a, lambda x: _along_last(lw, x, axis, lambda v: _order(lw, v, loc), True, loc), loc)


def _untied(lw, v: Term, order: Term, loc) -> Term:
    """The stable order of vector v, checked when the function runs to hold no two equal values
    (two NaNs are equal here): then every sorting algorithm, np.argsort's default one too, gives
    this order; where two are equal, the default kind orders them as it happens to, and catad
    refuses."""
    j = lw.b.var(Int, loc, "_j")
    at = lambda k: prim("index", prim("index", k, order, loc=loc), v, loc=loc)  # noqa: E731

    def tied(x, y):
        same = prim("eq", x, y, loc=loc)
        if scalar_of(v.type) == Float:
            same = If(same, TRUE, If(prim("ne", x, x, loc=loc), prim("ne", y, y, loc=loc), FALSE, loc), loc)
        return If(same, Const(1, Int, loc), Const(0, Int, loc), loc)
    n = lw.b.size(v, 0, loc)
    pairs = prim("max", prim("sub", n, Const(1, Int, loc), loc=loc), Const(0, Int, loc), loc=loc)
    body = lw.b.share(at(j), lambda x: lw.b.share(at(prim("add", j, Const(1, Int, loc), loc=loc)),
                                                  lambda y: tied(x, y), loc), loc)
    count = lw.b.sum_all(Build(pairs, j, body, loc), loc)

    def checked(c):
        chk = lw.b.check(prim("eq", c, Const(0, Int, loc), loc=loc), (), loc, "np.argsort",
                         "np.argsort() of values holding equal values: its default kind orders them as its sorting "
                         "algorithm happens to, which catad does not reproduce; pass kind='stable' (equal values then "
                         "keep their order)", "unsupported")
        return make_lets(chk, order)
    return lw.b.share(count, checked, loc)


def h_median(lw, obj, node, args, kwargs):
    """np.median(a, axis=None): the middle of each lane's sorted values (the mean of the two
    middle ones for an even length; nan for a lane holding a NaN, or an empty one)."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "axis", "out", "overwrite_input", "keepdims"))
    for k in ("out", "keepdims"):
        if not _is_none(p.get(k)) and not (k == "keepdims" and lw.static(p[k]) is False):
            lw.fail(p[k], display(obj), f"{k}= of np.median() is not supported", CatadTypeError,
                    hint="np.expand_dims(np.median(a, axis=k), k) keeps the axis")
    a, loc = array_arg(lw, p["a"], obj, node), lw.loc(node)
    axis, a = _sort_axis(lw, obj, node, p, a, None)
    return lw.b.share(a, lambda x: _along_last(lw, x, axis, lambda v: _median1(lw, v, loc), False, loc), loc)


TABLE = [
    ((np.sort,), h_sort, ("axis", "kind", "order", "stable")),
    ((np.argsort,), h_argsort, ("axis", "kind", "order", "stable")),
    ((np.median,), h_median, ("axis", "out", "overwrite_input", "keepdims")),
    ((np.quantile, np.percentile), h_quantile, ("axis", "out", "overwrite_input", "method", "keepdims")),
    ((np.lexsort,), h_lexsort, ("axis",)),
    ((np.triu_indices, np.tril_indices), h_triangle_indices, ("k", "m")),
    ((np.polyval,), h_polyval, ()),
    ((np.polynomial.polynomial.polyval,), h_power_series, ("tensor",)),
    ((np.polynomial.chebyshev.chebval, np.polynomial.legendre.legval), h_clenshaw, ("tensor",)),
    ((np.polynomial.legendre.leggauss,), h_leggauss, ()),
    ((np.convolve, np.correlate), h_convolve, ("mode",)),
    ((np.interp,), h_interp, ("left", "right", "period")),
    ((np.insert,), h_insert, ("axis",)),
    ((np.trapezoid,), h_trapezoid, ("x", "dx", "axis")),
]


# ------------------------------------------------------------ scipy.integrate.simpson

def h_simpson(lw, obj, node, args, kwargs):
    """scipy.integrate.simpson(y, x=None, *, dx=1.0) of a vector: SciPy's (1.11 and later) composite rule, with Cartwright's correction of the last interval for an even number of samples."""
    name = "scipy.integrate.simpson"
    if len(args) > 2:
        lw.fail(node, name, f"{name}() takes at most 2 positional arguments (y, x), got {len(args)}", CatadTypeError)
    p = dict(zip(("y", "x"), args))
    for k, v in kwargs.items():
        if k in p:
            lw.fail(v, name, f"{name}() got multiple values for argument {k!r}", CatadTypeError)
        p[k] = v
    if "y" not in p:
        lw.fail(node, name, f"{name}() missing required argument 'y'", CatadTypeError)
    loc = lw.loc(node)
    if not _is_none(p.get("axis")):
        t = lw.arg(p["axis"])
        if not (isinstance(t, Const) and t.type == Int and t.value in (0, -1)):
            lw.fail(p["axis"], name, f"axis of {name}() is supported only for a vector (axis=-1 or 0)")
    y = _vector_arg(lw, p["y"], obj, node, "y", "IndexError: tuple index out of range")
    has_x = not _is_none(p.get("x"))
    x = _vector_arg(lw, p["x"], obj, node, "x", "ValueError: If given, shape of x must be 1-D or the same "
                    "as y.") if has_x else None
    dx = _f(1.0) if _is_none(p.get("dx")) else lw.b.to_float(lw.arg(p["dx"]), loc)
    if dx.type != Float:
        lw.fail(p["dx"], name, f"dx of {name}() must be a number, got a {dx.type}", CatadTypeError)
    add, sub, mul = _combine(lw, "add", loc), _combine(lw, "sub", loc), _combine(lw, "mul", loc)
    div = lambda a, b: lw.b.arith("div", a, b, loc)
    two = Const(2, Int, loc)
    ip = lambda o: (lambda a, b: prim(o, a, b, loc=loc))
    iadd, isub, imul, imax = ip("add"), ip("sub"), ip("mul"), ip("max")

    def safe_div(num, den):  # np.true_divide(num, den, out=zeros, where=den != 0)
        return lw.b.share(den, lambda d: If(prim("ne", d, _f(0.0), loc=loc), div(num, d), _f(0.0), loc), loc)

    def body(ys, xs, dxv):
        n = lw.b.size(ys, 0, loc)
        chk = []
        if xs is not None and not lw.b.shapes.equal(n, lw.b.size(xs, 0, loc)):
            chk += lw.b.check(prim("eq", n, lw.b.size(xs, 0, loc), loc=loc), (), loc, name,
                              "If given, length of x along axis must be the same as y.", equal=((lw.b.size(
                                  xs, 0, loc), n),))
        chk += _positive_check(lw, n, loc, name, "index -1 is out of bounds for axis 0 with size {0}", "bounds")
        at = lambda v, i: prim("index", imax(i, ZERO), v, loc=loc)
        h = lambda i: sub(at(xs, iadd(i, ONE)), at(xs, i))  # np.diff(x)[i]
        pairs = imax(prim("floordiv", isub(n, ONE), two, loc=loc), ZERO)

        def pair(k):
            i = imul(two, k)
            y0, y1, y2 = at(ys, i), at(ys, iadd(i, ONE)), at(ys, iadd(i, two))
            if xs is None:
                return add(add(y0, mul(_f(4.0), y1)), y2)

            def spaced(h0, h1):
                def with_sums(hsum, ratio):
                    inv = safe_div(_f(1.0), ratio)
                    return mul(div(hsum, _f(6.0)), add(add(
                        mul(y0, sub(_f(2.0), inv)), mul(y1, mul(hsum, safe_div(hsum, mul(h0, h1))))),
                        mul(y2, sub(_f(2.0), ratio))))
                return lw.b.share_all([add(h0, h1), safe_div(h0, h1)], with_sums, loc)
            return lw.b.share_all([h(i), h(iadd(i, ONE))], spaced, loc)
        total = prim("sum", builds(lw, [pairs], pair, loc), loc=loc)
        basic = total if xs is not None else mul(total, div(dxv, _f(3.0)))

        def even(b):
            last = isub(n, ONE)
            ylast, yprev, yprev2 = at(ys, last), at(ys, isub(n, two)), at(ys, isub(n, Const(3, Int)))
            step = (lambda i: h(i)) if xs is not None else (lambda i: dxv)

            def two_points(hl):  # 0.0 + 0.5 * last_dx * (y[-1] + y[-2])
                return add(_f(0.0), mul(mul(_f(0.5), hl), add(ylast, yprev)))

            def corrected(h0, h1):
                alpha = safe_div(add(mul(_f(2.0), mul(h1, h1)), mul(mul(_f(3.0), h0), h1)), mul(_f(6.0), add(h1, h0)))
                beta = safe_div(add(mul(h1, h1), mul(mul(_f(3.0), h0), h1)), mul(_f(6.0), h0))
                eta = safe_div(mul(_f(1.0), mul(mul(h1, h1), h1)), mul(mul(_f(6.0), h0), add(h0, h1)))
                return add(add(b, sub(add(mul(alpha, ylast), mul(beta, yprev)), mul(eta, yprev2))), _f(0.0))
            hl = step(isub(n, two))
            return If(prim("eq", n, two, loc=loc), two_points(hl),
                      lw.b.share_all([step(isub(n, Const(3, Int))), hl], corrected, loc), loc)
        odd = prim("eq", prim("mod", n, two, loc=loc), ONE, loc=loc)
        return make_lets(chk, lw.b.share(basic, lambda b: If(odd, b, even(b), loc), loc))
    if x is None:
        return lw.b.share_all([y, dx], lambda ys, d: body(ys, None, d), loc)
    return lw.b.share_all([y, x], lambda ys, xs: body(ys, xs, None), loc)
