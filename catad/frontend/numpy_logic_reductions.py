"""Reductions made of the sums, maxima and minima of numpy_arrays.reduce over an elementwise
transform of the array, with NumPy's axis (an int or a tuple) and keepdims:

* ``np.any``/``np.all``: the count of nonzero (zero) elements is positive (is 0); a NaN is
  nonzero, as in NumPy; Bool results (no derivative);
* ``np.count_nonzero``: that count, an Int;
* ``np.nansum``/``np.nanmean``: the sum (mean) of the elements that are not NaN (0.0 and nan for a
  lane of NaNs only, as NumPy's); a NaN adds nothing to the derivative;
* ``np.nanmax``/``np.nanmin``: the maximum (minimum) with NaNs taken as -inf (inf), nan for a lane
  of NaNs only, NumPy's ValueError for an empty lane; the derivative goes to the first extreme
  element;
* ``np.ptp``: max - min;
* ``np.average(a, axis=None, weights=None, returned=False, keepdims=False)``: the mean, or
  sum(a * w) / sum(w) with NumPy's ZeroDivisionError message where a lane's weights sum to 0
  (a catad.DomainError, which is a ValueError); weights of a's shape (checked, never broadcast:
  NumPy's TypeError without an axis, its ValueError with one), or 1-D weights along one axis as
  NumPy broadcasts them. Axes are constants; an axis out of range is refused while compiling.
"""
from __future__ import annotations

import math

from ..errors import BoundsError, CatadTypeError
from ..lang.terms import Const, If, Term, make_lets
from ..lang.types import Bool, Float, Int, rank, scalar_of, vec_of
from ..primitives import prim
from .calls import display
from .common import ONE, ZERO, all_, is_array
from .numpy_arrays import (Failure, _is_none, bind_args, builds, count_of, insert_axes, keep_dims, nonempty_lanes,
                           reduce, static_axes, static_bool)

import numpy as np

_NAN = Const(math.nan, Float)


def _operand(lw, obj, node, p):
    """(the array, its rank, the sorted axes or None, keepdims): a number is an array of one
    element (then keepdims does not apply), as NumPy reduces it."""
    name = display(obj)
    if "out" in p and not _is_none(p["out"]):
        lw.fail(node, name, f"out= of {name}() is not supported; a compiled function makes new arrays",
                hint="assign the result")
    t, loc = lw.arg(p["a"]), lw.loc(node)
    if lw.is_list(t):
        t = t.replace()
    keep = static_bool(lw, p.get("keepdims"), obj, "keepdims", False)
    if scalar_of(t.type) not in (Int, Float, Bool):
        lw.fail(node, name, f"{name}() takes numbers or arrays of numbers, got a {t.type}", CatadTypeError)
    number = not is_array(t)
    if number:
        t, keep = builds(lw, [ONE], lambda i: t, loc), False
    r = rank(t.type)
    axes = static_axes(lw, p.get("axis"), obj, r, shown=0 if number else None)
    if isinstance(axes, Failure):  # (NumPy's AxisError, an IndexError: refused while compiling)
        lw.fail(node, name, axes.message, BoundsError if axes.kind == "bounds" else CatadTypeError)
    if number and axes == ():  # a number reduced over no axes is a number (0-d), as over its one element
        axes = (0,)
    return t, r, None if axes is None else tuple(sorted(axes)), keep


def _each(lw, f, t: Term, loc) -> Term:
    return lw.b.elementwise(f, [t], loc)


def _finish(lw, t, r, axes, keep, loc, body) -> Term:
    """body(a) of t shared, its reduced axes kept when keepdims."""
    def shaped(a):
        out = body(a)
        return keep_dims(lw, out, r, axes, loc) if keep else out
    return lw.b.share(t, shaped, loc)


def _nonzero(x: Term, loc) -> Term:
    if x.type == Bool:
        return x
    zero = Const(0.0, Float) if x.type == Float else Const(0, Int)
    return prim("ne", x, zero, loc=loc)


def _counted(lw, t: Term, test, loc) -> Term:
    """The Int array of test(x) as 1 or 0."""
    return _each(lw, lambda x: If(test(x), ONE, ZERO, loc), t, loc)


def h_any(lw, obj, node, args, kwargs):
    """np.any, np.all, np.count_nonzero: counts of nonzero (for all: zero) elements along axes."""
    names = ("a", "axis", "keepdims") if obj is np.count_nonzero else ("a", "axis", "out", "keepdims")
    p = bind_args(lw, obj, node, args, kwargs, names)
    t, r, axes, keep = _operand(lw, obj, node, p)
    loc = lw.loc(node)
    if obj is np.all:
        test = lambda x: prim("not", _nonzero(x, loc), loc=loc)
    else:
        test = lambda x: _nonzero(x, loc)

    def body(a):
        counts = reduce(lw, _counted(lw, a, test, loc), axes, "sum", loc)
        if obj is np.count_nonzero:
            return counts
        f = (lambda c: prim("eq", c, ZERO, loc=loc)) if obj is np.all else (lambda c: prim("gt", c, ZERO, loc=loc))
        return _each(lw, f, counts, loc) if is_array(counts) else f(counts)
    return _finish(lw, t, r, axes, keep, loc, body)


def _not_nan(x: Term, loc) -> Term:
    return prim("eq", x, x, loc=loc)


def h_nansum(lw, obj, node, args, kwargs):
    """np.nansum, np.nanmean: the sum or mean of the elements that are not NaN."""
    names = ("a", "axis", "dtype", "out", "keepdims")
    p = bind_args(lw, obj, node, args, kwargs, names)
    if not _is_none(p.get("dtype")):
        lw.fail(node, display(obj), f"dtype of {display(obj)}() is not supported", CatadTypeError)
    t, r, axes, keep = _operand(lw, obj, node, p)
    loc, mean = lw.loc(node), obj is np.nanmean
    if scalar_of(t.type) == Bool:
        t = _counted(lw, t, lambda x: x, loc)
    if scalar_of(t.type) == Int:  # never NaN: the plain reduction (a mean is a Float)
        return _finish(lw, t, r, axes, keep, loc, lambda a: reduce(lw, a, axes, "mean" if mean else "sum", loc))

    def body(a):
        total = reduce(lw, _each(lw, lambda x: If(_not_nan(x, loc), x, Const(0.0, Float), loc), a, loc),
                       axes, "sum", loc)
        if not mean:
            return total
        n = reduce(lw, _counted(lw, a, lambda x: _not_nan(x, loc), loc), axes, "sum", loc)
        f = lambda s, c: prim("div", s, prim("to_float", c, loc=loc), loc=loc)  # 0 / 0: nan, as NumPy's
        return lw.b.elementwise(f, [total, n], loc) if is_array(total) else f(total, n)
    return _finish(lw, t, r, axes, keep, loc, body)


def h_nanmax(lw, obj, node, args, kwargs):
    """np.nanmax, np.nanmin: the extreme of the elements that are not NaN (nan if none is)."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "axis", "out", "keepdims"))
    t, r, axes, keep = _operand(lw, obj, node, p)
    loc, kind = lw.loc(node), "vmax" if obj is np.nanmax else "vmin"
    if scalar_of(t.type) == Bool:  # the extreme of the 1s and 0s, a Bool again
        def of_bools(a):
            m = reduce(lw, _counted(lw, a, lambda x: x, loc), axes, kind, loc)
            f = lambda c: prim("ne", c, ZERO, loc=loc)
            return make_lets(nonempty_lanes(lw, a, axes, "f" + kind[1:], loc),
                             _each(lw, f, m, loc) if is_array(m) else f(m))
        return _finish(lw, t, r, axes, keep, loc, of_bools)
    if scalar_of(t.type) != Float:  # (NumPy's np.max: no NaN to skip)
        return _finish(lw, t, r, axes, keep, loc,
                       lambda a: make_lets(nonempty_lanes(lw, a, axes, kind, loc), reduce(lw, a, axes, kind, loc)))
    fill = Const(-math.inf if kind == "vmax" else math.inf, Float)

    def body(a):
        ext = reduce(lw, _each(lw, lambda x: If(_not_nan(x, loc), x, fill, loc), a, loc), axes, kind, loc)
        n = reduce(lw, _counted(lw, a, lambda x: _not_nan(x, loc), loc), axes, "sum", loc)
        f = lambda e, c: If(prim("eq", c, ZERO, loc=loc), _NAN, e, loc)
        out = lw.b.elementwise(f, [ext, n], loc) if is_array(ext) else f(ext, n)
        return make_lets(nonempty_lanes(lw, a, axes, "f" + kind[1:], loc), out)
    return _finish(lw, t, r, axes, keep, loc, body)


def h_ptp(lw, obj, node, args, kwargs):
    """np.ptp(a, axis=None, keepdims=False): max - min along the axes."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "axis", "out", "keepdims"))
    t, r, axes, keep = _operand(lw, obj, node, p)
    loc = lw.loc(node)
    if scalar_of(t.type) == Bool:
        lw.fail(node, "np.ptp", "np.ptp() of Bools is NumPy's TypeError (numpy boolean subtract)", CatadTypeError)

    def body(a):
        hi, lo = reduce(lw, a, axes, "vmax", loc), reduce(lw, a, axes, "vmin", loc)
        f = lambda x, y: prim("sub", x, y, loc=loc)
        return make_lets(nonempty_lanes(lw, a, axes, "vmax", loc),
                         lw.b.elementwise(f, [hi, lo], loc) if is_array(hi) else f(hi, lo))
    return _finish(lw, t, r, axes, keep, loc, body)


def h_average(lw, obj, node, args, kwargs):
    """np.average(a, axis=None, weights=None, returned=False, keepdims=False): sum(a w) / sum(w)."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "axis", "weights", "returned", "keepdims"))
    if static_bool(lw, p.get("returned"), obj, "returned", False):
        lw.fail(node, "np.average", "returned=True of np.average() is not supported",
                hint="compute the sum of the weights beside it")
    loc = lw.loc(node)
    w = None if _is_none(p.get("weights")) else lw.b.to_float(lw.arg(p["weights"]), loc)
    w = w.replace() if w is not None and lw.is_list(w) else w
    a0 = lw.arg(p["a"])
    failure = static_axes(lw, p["axis"], obj, 0) if not is_array(a0) and not _is_none(p.get("axis")) else None
    if isinstance(failure, Failure):  # NumPy counts a number's elements along the axis: there is none
        return Failure(failure.loc, failure.construct, "axis: " + failure.message, failure.kind).term(lw, Float)
    if w is not None and not is_array(w) and not is_array(a0) and _is_none(p.get("axis")):  # two numbers
        x = lw.b.to_float(a0, loc)
        return lw.b.share(w, lambda v: _divided(lw, prim("mul", x, v, loc=loc), v, loc), loc)
    if w is not None and is_array(w) and not is_array(a0):  # shapes () and w's differ (an axis is refused above)
        lw.fail(node, "np.average", _NUMPY_SAYS["no axis"], CatadTypeError)
    t, r, axes, keep = _operand(lw, obj, node, p)
    t = lw.b.to_float(t, loc)
    if w is None:  # NumPy's a.mean(axis), then a.size / avg.size: a ZeroDivisionError for an empty result
        def mean(a):
            others = ONE
            for q in range(r):
                if axes is not None and q not in axes:
                    others = prim("mul", others, lw.b.size(a, q, loc), loc=loc)
            chk = [] if axes is None else lw.b.check(prim("gt", others, ZERO, loc=loc), (), loc, "np.average",
                                                     "division by zero", "domain")
            return make_lets(chk, reduce(lw, a, axes, "mean", loc))
        return _finish(lw, t, r, axes, keep, loc, mean)
    if w.type == t.type:
        given = static_axes(lw, p.get("axis"), obj, r)  # in the order given (axes is sorted)

        def weighted(a, v):
            chk = _shape_of_a(lw, a, v, axes, given, loc)
            return make_lets(chk, _weighted(lw, a, v, axes, loc))
        out = lw.b.share_all([t, w], weighted, loc)
    elif is_array(w) and rank(w.type) == 1 and axes is not None and len(axes) == 1:
        out = lw.b.share_all([t, w], lambda a, v: _along_axis(lw, a, v, r, axes[0], loc), loc)
    else:
        if axes is None:  # NumPy's TypeError
            lw.fail(node, "np.average", _NUMPY_SAYS["no axis"], CatadTypeError)
        if rank(w.type) != len(axes):  # never a.shape along the axes: NumPy's ValueError where the call runs
            never = t.type if keep else vec_of(Float, r - len(axes))  # the type of a result never computed
            return Failure(loc, "np.average", _NUMPY_SAYS["length"]).term(lw, never)
        lw.fail(node, "np.average", "weights of another shape than a's are supported as a vector along one axis",
                hint="pass weights of a's shape, or a vector of a.shape[axis] weights with one axis")
    return keep_dims(lw, out, r, axes, loc) if keep else out


def _numpy_says(call) -> str:
    """What this NumPy's np.average says (its words change between versions)."""
    try:
        call()
    except (TypeError, ValueError) as e:
        return str(e)
    raise AssertionError("np.average accepted weights it should refuse")


_NUMPY_SAYS = {"no axis": _numpy_says(lambda: np.average(np.ones((2, 3)), weights=np.ones(3))),
               "length": _numpy_says(lambda: np.average(np.ones((2, 3)), weights=np.ones(2), axis=1))}


def _shape_of_a(lw, a: Term, v: Term, axes, given, loc) -> list:
    """NumPy's check that weights v of a's rank have a's shape (it does not broadcast them): its
    TypeError without an axis, its ValueError with one. NumPy also takes, for a tuple of all the
    axes out of order, weights ordered as the tuple: catad does not (a refusal, not NumPy's error)."""
    conds, equal = [], []
    for da, dv in zip(lw.b.shape(a), lw.b.shape(v)):
        if not lw.b.shapes.same(da, dv):
            conds.append(prim("eq", da.size, dv.size, loc=loc))
            equal.append((dv.size, da.size))
    if not conds:
        return []
    if axes is None:
        return lw.b.check(all_(conds), (), loc, "np.average", _NUMPY_SAYS["no axis"], equal=tuple(equal),
                          raises=TypeError)
    if list(given) != sorted(given):
        return lw.b.check(all_(conds), (), loc, "np.average", "weights of another shape than a's, ordered as the "
                          "axis tuple, are not supported", "unsupported", equal=tuple(equal))
    return lw.b.check(all_(conds), (), loc, "np.average", _NUMPY_SAYS["length"], "shape", equal=tuple(equal))


def _weighted(lw, a: Term, v: Term, axes, loc) -> Term:
    """sum(a v) / sum(v) over axes (a and v atoms of one shape)."""
    weighted = lw.b.elementwise(lambda x, y: prim("mul", x, y, loc=loc), [a, v], loc)
    scl = reduce(lw, v, axes, "sum", loc)
    return lw.b.share(scl, lambda s: _divided(lw, reduce(lw, weighted, axes, "sum", loc), s, loc), loc)


def _along_axis(lw, a: Term, v: Term, r: int, axis: int, loc) -> Term:
    """1-D weights v along axis of a: NumPy's check of their length, then v with axes of length
    1 around it (as NumPy's broadcast_to and swapaxes make it); its sum is one number."""
    chk = lw.b.check(prim("eq", lw.b.size(a, axis, loc), lw.b.size(v, 0, loc), loc=loc), (), loc, "np.average",
                     _NUMPY_SAYS["length"], "shape")
    weighted = lw.b.elementwise(lambda x, y: prim("mul", x, y, loc=loc),
                                [a, insert_axes(lw, v, [q for q in range(r) if q != axis], loc)], loc)
    scl = lw.b.sum_all(v, loc)
    return make_lets(chk, lw.b.share(scl, lambda s: _divided(lw, reduce(lw, weighted, (axis,), "sum", loc), s,
                                                             loc), loc))


def _divided(lw, num: Term, scl: Term, loc) -> Term:
    """num / scl after NumPy's check that no sum of weights is 0."""
    zero = Const(0.0, Float)
    zeros = _counted(lw, scl, lambda s: prim("eq", s, zero, loc=loc), loc) if is_array(scl) else None
    count = reduce(lw, zeros, None, "sum", loc) if zeros is not None else If(prim("eq", scl, zero, loc=loc), ONE,
                                                                                ZERO, loc)

    def checked(c):
        chk = lw.b.check(prim("eq", c, ZERO, loc=loc), (), loc, "np.average",
                         "Weights sum to zero, can't be normalized", "zerodiv")
        f = lambda x, y: prim("div", x, y, loc=loc)
        return make_lets(chk, lw.b.elementwise(f, [num, scl], loc) if is_array(num) else f(num, scl))
    return lw.b.share(count, checked, loc)


TABLE = [
    ((np.any, np.all), h_any, ("axis", "out", "keepdims")),
    ((np.count_nonzero,), h_any, ("axis", "keepdims")),
    ((np.nansum, np.nanmean), h_nansum, ("axis", "dtype", "out", "keepdims")),
    ((np.nanmax, np.nanmin), h_nanmax, ("axis", "out", "keepdims")),
    ((np.ptp,), h_ptp, ("axis", "out", "keepdims")),
    ((np.average,), h_average, ("axis", "weights", "returned", "keepdims")),
]

__all__ = ["TABLE"]
