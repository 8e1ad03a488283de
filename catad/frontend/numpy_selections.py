"""Selections whose length is known only when the function runs, made of the positions of an
array's true (nonzero) elements, the ``flatnonzero`` primitive (boolean masks in subscripts are
subscripts.py's ``masked``):

* ``np.flatnonzero(a)``: those positions, in C order; ``np.nonzero(a)``, ``a.nonzero()`` and
  ``np.where(a)`` of one argument: the tuple of their indices along each axis;
  ``np.argwhere(a)``: those indices as the rows of a matrix. Int arrays, with no derivative;
* ``np.extract(condition, arr)``: the elements of ``arr`` (raveled) where ``condition`` (raveled)
  is true, each position checked against ``arr``'s size as NumPy's take checks it;
* ``np.delete(arr, obj, axis=None)``: ``arr`` without the positions ``obj`` names along the axis
  (an int, an array of ints, negative ones counting from the end, each checked as NumPy checks
  it, or a boolean mask of the axis's length), the kept ones selected by a mask.
"""
from __future__ import annotations

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import Build, Const, If, Term, Tuple, make_lets
from ..lang.types import Bool, Int, rank, scalar_of, vec_of
from ..primitives import prim
from .calls import display
from .common import ZERO
from .numpy_arrays import Failure, array_arg, bind_args, builds, raveled, static_axes, unravel
from .numpy_logic_reductions import _nonzero


def nonzero_positions(lw, t: Term, loc) -> Term:
    """np.flatnonzero(t) of an array: the flat (C-order) positions of its true or nonzero (NaN
    too) elements, an Int vector whose length is known when the function runs."""
    mask = t if scalar_of(t.type) == Bool else lw.b.elementwise(lambda x: _nonzero(x, loc), [t], loc)
    return prim("flatnonzero", mask, loc=loc)


def _array_of_axes(lw, obj, node, arg) -> Term:
    """The array argument, refused where it has no axes (NumPy raises or warns there)."""
    a = array_arg(lw, arg, obj, node)
    if rank(a.type) == 0:
        name = display(obj)
        lw.fail(node, name, f"{name}() of an array of no axes (a number) is not supported: NumPy raises or "
                "warns", CatadTypeError, hint="write it of a vector: np.atleast_1d(x)")
    return a


def _indices(lw, x: Term, nz: Term, loc) -> list[Term]:
    """The index along each axis of x of each flat position in nz: one Int vector per axis."""
    r = rank(x.type)
    if r == 1:
        return [nz]
    sizes = [lw.b.size(x, q, loc) for q in range(r)]
    axes = []
    for q in range(r):
        k = lw.b.var(Int, loc, "_k")
        axes.append(Build(lw.b.size(nz, 0, loc), k, unravel(prim("index", k, nz, loc=loc), sizes, loc)[q], loc))
    return axes


def h_nonzero(lw, obj, node, args, kwargs):
    """np.flatnonzero(a): the flat positions of a's true (nonzero) elements; np.nonzero(a),
    a.nonzero() and np.where(a) of one argument: the tuple of their indices along each axis
    (np.unravel_index of those positions)."""
    p = bind_args(lw, obj, node, args, kwargs, ("condition",) if obj is np.where else ("a",))
    a, loc = _array_of_axes(lw, obj, node, next(iter(p.values()))), lw.loc(node)
    if obj is np.flatnonzero:
        return nonzero_positions(lw, a, loc)
    return lw.b.share(a, lambda x: lw.b.share(nonzero_positions(lw, x, loc),
                                              lambda nz: Tuple(tuple(_indices(lw, x, nz, loc)), loc), loc), loc)


def h_argwhere(lw, obj, node, args, kwargs):
    """np.argwhere(a): the indices of a's true (nonzero) elements, one row each, in C order."""
    p = bind_args(lw, obj, node, args, kwargs, ("a",))
    a, loc = _array_of_axes(lw, obj, node, p["a"]), lw.loc(node)
    r = rank(a.type)

    def rows(x, nz):
        sizes = [lw.b.size(x, q, loc) for q in range(r)]
        k = lw.b.var(Int, loc, "_k")
        at = unravel(prim("index", k, nz, loc=loc), sizes, loc) if r > 1 else [prim("index", k, nz, loc=loc)]
        return Build(lw.b.size(nz, 0, loc), k, prim("vector", *at, loc=loc), loc)
    return lw.b.share(a, lambda x: lw.b.share(nonzero_positions(lw, x, loc), lambda nz: rows(x, nz), loc), loc)


def h_extract(lw, obj, node, args, kwargs):
    """np.extract(condition, arr): np.compress(np.ravel(condition), np.ravel(arr)), the elements of
    arr at the positions where condition is true (a condition longer than arr is NumPy's
    IndexError where a true element lies past arr's end)."""
    p = bind_args(lw, obj, node, args, kwargs, ("condition", "arr"), 2)
    c, a = _array_of_axes(lw, obj, node, p["condition"]), _array_of_axes(lw, obj, node, p["arr"])
    loc = lw.loc(node)
    positions = nonzero_positions(lw, raveled(lw, c, loc), loc)
    return lw.b.subscript(raveled(lw, a, loc), [("take", positions)], loc)


def h_delete(lw, obj, node, args, kwargs):
    """np.delete(arr, obj, axis=None): arr (raveled where axis is None) without the positions obj
    names along the axis: an int or an array of ints (negative ones from the end; each one out of
    range is NumPy's IndexError), or a boolean mask of the axis's length (NumPy's ValueError for
    another). The positions kept are a mask, which selects them (masked)."""
    p = bind_args(lw, obj, node, args, kwargs, ("arr", "obj", "axis"), 2)
    a, loc, name = array_arg(lw, p["arr"], obj, node), lw.loc(node), display(obj)
    if rank(a.type) == 0:
        lw.fail(node, name, "np.delete() of a number is not supported", CatadTypeError)
    axes = static_axes(lw, p.get("axis"), obj, rank(a.type))
    if isinstance(axes, Failure):
        return axes.term(lw, vec_of(scalar_of(a.type), rank(a.type)))
    if axes is None:
        a, axis = raveled(lw, a, loc), 0
    elif len(axes) != 1:
        lw.fail(node, name, "axis of np.delete() must be one int", CatadTypeError)
    else:
        axis = axes[0]
    o = lw.arg(p["obj"])
    if scalar_of(o.type) not in (Int, Bool) or o.type == Bool or rank(o.type) > 1:
        lw.fail(node, name, f"np.delete() takes an int, a vector of ints or a boolean mask as obj, got a {o.type}",
                CatadTypeError, hint="slices: np.delete(a, np.arange(start, stop))")

    def body(x, ob):
        n = lw.b.size(x, axis, loc)
        k = lw.b.var(Int, loc, "_j")
        if ob.type == Int:  # (checked as an index of x's axis, and wrapped)
            wrapped = lw.b.subscript(Build(n, k, k, loc), [("index", ob)], loc)
            keep = lw.b.share(wrapped, lambda w: builds(lw, [n], lambda j: prim("ne", j, w, loc=loc), loc), loc)
        elif scalar_of(ob.type) == Int:
            wrapped = lw.b.subscript(Build(n, k, k, loc), [("take", ob)], loc)
            keep = lw.b.share(wrapped, lambda w: builds(lw, [n], lambda j: _none_equal(lw, j, w, loc), loc), loc)
        else:
            chk = lw.b.check(prim("eq", lw.b.size(ob, 0, loc), n, loc=loc), (n,), loc, name,
                             "boolean array argument obj to delete must be one dimensional and match the axis "
                             "length of {0}")
            keep = make_lets(chk, lw.b.elementwise(lambda m: prim("not", m, loc=loc), [ob], loc))
        return lw.masked(x, [("slice", None, None)] * axis + [("mask", keep)], node)
    return lw.b.share_all([a, o], body, loc)


def _none_equal(lw, j: Term, w: Term, loc) -> Term:
    """Whether no element of the Int vector w is j."""
    k = lw.b.var(Int, loc, "_k")
    hits = Build(lw.b.size(w, 0, loc), k, If(prim("eq", j, prim("index", k, w, loc=loc), loc=loc), Const(1, Int),
                                              ZERO, loc), loc)
    return prim("eq", prim("sum", hits, loc=loc), ZERO, loc=loc)


TABLE = [
    ((np.flatnonzero, np.nonzero), h_nonzero, ()),
    ((np.argwhere,), h_argwhere, ()),
    ((np.extract,), h_extract, ()),
    ((np.delete,), h_delete, ("axis",)),
]

__all__ = ["TABLE", "h_nonzero", "nonzero_positions"]
