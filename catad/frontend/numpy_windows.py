"""NumPy's window functions and sliding windows as core terms.

* ``np.hanning(M)``, ``np.hamming``, ``np.blackman`` and ``np.bartlett`` of an Int M (known only
  when the function runs, as ``frames.shape[1]``): builds of NumPy's formulas in NumPy's order of
  operations (n = 1 - M + 2k, then ``0.5 + 0.5 * cos(pi * n / (M - 1))``, ...; no element for
  M < 1, [1.0] for M == 1). They depend on an Int only, so their derivative is 0.
* ``numpy.lib.stride_tricks.sliding_window_view(x, window_shape, axis=None)``: NumPy's strided
  view, as a gather: the build whose element at (i_0, ..., i_{r-1}, k_0, ..., k_{w-1}) reads x at
  i_a plus the k_j of the windows along axis a (an axis may be windowed several times, as NumPy
  allows). Its derivative is that read (forward) and, in reverse, the scatter-add of the windows'
  cotangents back into x's (overlapping windows add up), which the backend compiles as one
  gather and one scatter-add: never a matrix. NumPy's checks, in NumPy's order: no negative
  window, an axis in range, as many windows as axes, no window longer than what is left of its
  axis. The view is read-only, as NumPy's (``writeable=True`` is refused): an assignment to it is
  refused while compiling (NumPy raises "assignment destination is read-only").

The handlers are rows of catad/frontend/calls.py's table.
"""
from __future__ import annotations

import ast
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..errors import CatadTypeError
from ..lang.terms import Const, If, Term, Tuple, make_lets
from ..lang.types import Float, Int, Tuple as TupleT, rank, scalar_of, vec_of
from ..primitives import prim
from .calls import display
from .common import ONE, ZERO, all_, any_, index_chain
from .numpy_arrays import Failure, _is_none, array_arg, bind_args, builds, shape_arg, static_bool

_PI = Const(math.pi, Float)


def _f(v: float) -> Const:
    return Const(float(v), Float)


# ------------------------------------------------------------ window functions

def _cosine_window(coefs):
    """c0 + c1 cos(pi n / (M - 1)) [+ c2 cos(2.0 pi n / (M - 1))] in NumPy's order of operations."""
    def elem(lw, n: Term, m1: Term, loc) -> Term:
        mul = lambda a, b: prim("mul", a, b, loc=loc)
        add = lambda a, b: prim("add", a, b, loc=loc)
        cos1 = prim("cos", prim("div", mul(_PI, n), m1, loc=loc), loc=loc)
        out = add(_f(coefs[0]), mul(_f(coefs[1]), cos1))
        if len(coefs) > 2:  # blackman: + 0.08 * cos(2.0 * pi * n / (M - 1))
            cos2 = prim("cos", prim("div", mul(_f(2.0 * math.pi), n), m1, loc=loc), loc=loc)
            out = add(out, mul(_f(coefs[2]), cos2))
        return out
    return elem


def _bartlett(lw, n: Term, m1: Term, loc) -> Term:
    """where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1))."""
    q = prim("div", n, m1, loc=loc)
    return lw.b.share(q, lambda r: If(prim("le", n, _f(0.0), loc=loc), prim("add", _f(1.0), r, loc=loc),
                                      prim("sub", _f(1.0), r, loc=loc), loc), loc)


_WINDOWS = {id(np.hanning): _cosine_window((0.5, 0.5)), id(np.hamming): _cosine_window((0.54, 0.46)),
            id(np.blackman): _cosine_window((0.42, 0.5, 0.08)), id(np.bartlett): _bartlett}


def h_window(lw, obj, node, args, kwargs):
    """np.hanning(M), np.hamming, np.blackman, np.bartlett of an Int M: NumPy's formula at n = 1 - M + 2k."""
    p = bind_args(lw, obj, node, args, kwargs, ("M",), 1)
    loc = lw.loc(node)
    m = lw.arg(p["M"])
    if m.type != Int:
        lw.fail(p["M"], display(obj), f"M of {display(obj)}() must be an Int here, got a {m.type}", CatadTypeError,
                "give the window's length as an int")
    elem = _WINDOWS[id(obj)]

    def body(mv):
        fm = lw.b.to_float(mv, loc)
        m1 = prim("sub", fm, _f(1.0), loc=loc)

        def at(k):
            n = lw.b.to_float(prim("add", prim("sub", ONE, mv, loc=loc), prim("mul", Const(2, Int), k, loc=loc),
                                   loc=loc), loc)
            value = lw.b.share(n, lambda nv: lw.b.share(m1, lambda mm: elem(lw, nv, mm, loc), loc), loc)
            return If(prim("eq", mv, ONE, loc=loc), _f(1.0), value, loc)  # M == 1: ones(1)
        return builds(lw, [prim("max", mv, ZERO, loc=loc)], at, loc)  # M < 1: no element
    return lw.b.share(m, body, loc)


# ------------------------------------------------------------ sliding windows

def _window_axes(lw, a, obj, node, r: int, count: int):
    """axis= of sliding_window_view: None (every axis, one window each), an int or a tuple of
    ints, normalised, repeats allowed; a Failure (NumPy's error where the call runs)."""
    name = display(obj)
    if _is_none(a):
        if count != r:
            return Failure(lw.loc(node), name,
                           f"Since axis is `None`, must provide window_shape for all dimensions of `x`; got {count} "
                           f"window_shape elements and `x.ndim` is {r}.")
        return tuple(range(r))
    t = lw.arg(a)
    items = list(t.items) if isinstance(t, Tuple) else [t]
    if not all(isinstance(x, Const) and x.type == Int for x in items):
        lw.fail(a, name, f"axis of {name}() must be an integer constant or a tuple of them", CatadTypeError)
    out = []
    for x in items:
        k = int(x.value)
        if not -r <= k < r:
            return Failure(lw.loc(a), name, f"axis {k} is out of bounds for array of dimension {r}", "bounds")
        out.append(k % r)
    if len(out) != count:
        return Failure(lw.loc(a), name, f"Must provide matching length window_shape and axis; got {count} "
                                        f"window_shape elements and {len(out)} axes elements.")
    return tuple(out)


def h_sliding_window_view(lw, obj, node, args, kwargs):
    """numpy.lib.stride_tricks.sliding_window_view(x, window_shape, axis=None): a read-only view, as a gather."""
    p = bind_args(lw, obj, node, args, kwargs, ("x", "window_shape", "axis", "subok", "writeable"), 2)
    name, loc = display(obj), lw.loc(node)
    if static_bool(lw, p.get("writeable"), obj, "writeable", False):
        lw.fail(p["writeable"], name, f"{name}(..., writeable=True) makes a view whose writes change x, which a "
                                      "compiled function does not do", hint="leave the view read-only, and build a "
                                      "new array from it (a comprehension, np.where, arithmetic)")
    static_bool(lw, p.get("subok"), obj, "subok", False)  # an ndarray has no subclass to keep
    x = array_arg(lw, p["x"], obj, node)
    ws = _window_shape(lw, p["window_shape"], obj)
    r = rank(x.type)
    axes = _window_axes(lw, p.get("axis"), obj, node, r, len(ws))

    def body(xv, *wv):
        wv = list(wv)
        checks = []
        negative = [prim("lt", w, ZERO, loc=loc) for w in wv if not lw.b.shapes.at_most(ZERO, w)]
        if negative:
            checks += lw.b.check(prim("not", any_(negative), loc=loc), (), loc, name,
                                 "`window_shape` cannot contain negative values")
        if isinstance(axes, Failure):
            return make_lets(checks, axes.term(lw, vec_of(scalar_of(x.type), r + len(wv))))
        shape = lw.b.shape(xv)
        left = [d.size for d in shape]  # what is left of each axis (NumPy's x_shape_trimmed)
        fits = []
        for ax, w in zip(axes, wv):
            if not lw.b.shapes.at_most(w, left[ax]):
                fits.append(prim("le", w, left[ax], loc=loc))
            left[ax] = prim("add", prim("sub", left[ax], w, loc=loc), ONE, loc=loc)
        if fits:
            checks += lw.b.check(all_(fits), (), loc, name, "window shape cannot be larger than input array shape")

        def elem(*ix):
            idx = list(ix[:r])
            for j, ax in enumerate(axes):
                idx[ax] = prim("add", idx[ax], ix[r + j], loc=loc)
            return index_chain(xv, idx, loc)
        view = builds(lw, left + wv, elem, loc)
        return make_lets(checks, view)
    return lw.mark_readonly(lw.b.share_all([x] + ws, body, loc))


def _window_shape(lw, a, obj) -> list[Term]:
    """window_shape: an Int, or a tuple of Ints (a display, a variable, x.shape[1:])."""
    if isinstance(a, (ast.Tuple, ast.List)):
        return shape_arg(lw, a, obj)
    t = lw.arg(a)
    if t.type == Int:
        return [t]
    if isinstance(t.type, TupleT) and all(x == Int for x in t.type.items):
        return shape_arg(lw, t, obj)
    lw.fail(a, display(obj), f"window_shape of {display(obj)}() must be an Int or a tuple of Ints, got a {t.type}",
            CatadTypeError)


TABLE = [
    ((np.hanning, np.hamming, np.blackman, np.bartlett), h_window, ()),
    ((sliding_window_view,), h_sliding_window_view, ("window_shape", "axis", "subok", "writeable")),
]

__all__ = ["TABLE", "h_window", "h_sliding_window_view"]
