"""Reversals and rank padding, as builds reading the argument (their derivatives are the
gathers' and scatters' of those reads):

* ``np.flip(m, axis=None)`` (an int or a tuple; None: every axis), ``np.fliplr`` (axis 1),
  ``np.flipud`` (axis 0): element i of a flipped axis of length n is element n - 1 - i;
* ``np.rot90(m, k=1, axes=(0, 1))`` with k a constant: NumPy's flips and transposes;
* ``np.atleast_1d``, ``np.atleast_2d``: a number as an array of one element, a vector as a row.
"""
from __future__ import annotations

from ..errors import CatadTypeError, ShapeError
from ..lang.terms import Const, Tuple
from ..lang.types import Bool, Float, Int, rank
from ..primitives import prim
from .calls import display
from .common import ONE, index_chain, is_array
from .numpy_arrays import (Failure, _is_none, array_arg, bind_args, builds, insert_axes, permute, static_axes,
                           static_int)

import numpy as np


def flipped(lw, a, axes, loc):
    """a with each axis in `axes` reversed: index n - 1 - i along it."""
    r = rank(a.type)

    def body(x):
        sizes = [lw.b.size(x, q, loc) for q in range(r)]
        return builds(lw, sizes, lambda *ix: index_chain(x, [
            prim("sub", prim("sub", sizes[q], ONE, loc=loc), ix[q], loc=loc) if q in axes else ix[q]
            for q in range(r)], loc), loc)
    return lw.b.share(a, body, loc) if axes else a


def h_flip(lw, obj, node, args, kwargs):
    """np.flip(m, axis=None), np.fliplr(m), np.flipud(m): axes reversed."""
    names = ("m", "axis") if obj is np.flip else ("m",)
    p = bind_args(lw, obj, node, args, kwargs, names)
    t, loc = array_arg(lw, p["m"], obj, node), lw.loc(node)
    r = rank(t.type)
    if obj is np.flip:
        axes = static_axes(lw, p.get("axis"), obj, r)
        axes = tuple(range(r)) if axes is None else axes
    else:
        need = 2 if obj is np.fliplr else 1
        if r < need:
            lw.fail(node, display(obj), "Input must be >= 2-d." if need == 2 else "Input must be >= 1-d.",
                    ShapeError)
        axes = (1,) if obj is np.fliplr else (0,)
    if isinstance(axes, Failure):  # NumPy's normalize_axis_tuple words a repeated axis so
        repeated = axes.message.startswith("duplicate")
        return (Failure(axes.loc, axes.construct, "repeated axis", axes.kind) if repeated else axes).term(lw, t.type)
    return flipped(lw, t, set(axes), loc)


def h_rot90(lw, obj, node, args, kwargs):
    """np.rot90(m, k=1, axes=(0, 1)): NumPy's flip of axes[1] then the transpose swapping the two
    (k = 1), both flips (k = 2), or the transpose then the flip (k = 3)."""
    p = bind_args(lw, obj, node, args, kwargs, ("m", "k", "axes"))
    t, loc = array_arg(lw, p["m"], obj, node), lw.loc(node)
    k = 1 if _is_none(p.get("k")) else static_int(lw, p["k"], obj, "k")
    r = rank(t.type)
    ax = (0, 1)
    if not _is_none(p.get("axes")):  # NumPy's checks, in its order, of the axes as given
        a = lw.arg(p["axes"])
        items = a.items if isinstance(a, Tuple) else (a,)
        if len(items) != 2:
            lw.fail(node, "np.rot90", "len(axes) must be 2.", ShapeError)
        if not all(isinstance(x, Const) and x.type == Int for x in items):
            lw.fail(node, "np.rot90", "axes of np.rot90 must be integer constants")
        ax = tuple(int(x.value) for x in items)
    if ax[0] == ax[1] or abs(ax[0] - ax[1]) == r:
        lw.fail(node, "np.rot90", "Axes must be different.", ShapeError)
    if not all(-r <= q < r for q in ax):
        lw.fail(node, "np.rot90", f"Axes={ax} out of range for array of ndim={r}.", ShapeError)
    ax = tuple(q % r for q in ax)
    k %= 4
    if k == 0:
        return t
    if k == 2:
        return flipped(lw, t, {ax[0], ax[1]}, loc)
    perm = list(range(r))
    perm[ax[0]], perm[ax[1]] = perm[ax[1]], perm[ax[0]]
    if k == 1:
        return lw.b.share(flipped(lw, t, {ax[1]}, loc), lambda x: permute(lw, x, perm, loc), loc)
    return lw.b.share(permute(lw, t, perm, loc), lambda x: flipped(lw, x, {ax[1]}, loc), loc)


def _at_least(lw, t, n: int, loc):
    if not is_array(t):
        return builds(lw, [ONE] * n, lambda *ix: t, loc)
    if rank(t.type) < n:  # a vector as a row
        return lw.b.share(t, lambda x: insert_axes(lw, x, [0], loc), loc)
    return t


def h_atleast(lw, obj, node, args, kwargs):
    """np.atleast_1d, np.atleast_2d: each argument with at least that many axes (a tuple of them
    for several)."""
    if not args:
        lw.fail(node, display(obj), f"{display(obj)}() takes at least one argument", CatadTypeError)
    n, loc = (1 if obj is np.atleast_1d else 2), lw.loc(node)
    ts = []
    for a in args:
        t = lw.arg(a)
        t = t.replace() if lw.is_list(t) else t
        if not (is_array(t) or t.type in (Int, Float, Bool)):
            lw.fail(node, display(obj), f"{display(obj)}() takes numbers or arrays, got a {t.type}", CatadTypeError)
        ts.append(_at_least(lw, t, n, loc))
    return ts[0] if len(ts) == 1 else Tuple(tuple(ts), loc)


TABLE = [
    ((np.flip,), h_flip, ("m", "axis")),
    ((np.fliplr, np.flipud), h_flip, ("m",)),
    ((np.rot90,), h_rot90, ("m", "k", "axes")),
    ((np.atleast_1d, np.atleast_2d), h_atleast, ()),
]

__all__ = ["TABLE", "flipped"]
