"""Joins, spacings, products and conversions made of other handlers' terms:

* ``np.append(arr, values, axis=None)``: both raveled and joined (axis None), or np.concatenate
  along the axis;
* ``np.logspace(start, stop, num=50, endpoint=True, base=10.0)``: NumPy's ``base ** linspace``;
* ``np.kron(a, b)`` of two vectors or two matrices: element (i p + k, j q + l) is a[i, j] b[k, l];
* ``np.linalg.multi_dot([a, b, ...])``: the dots left to right (a first vector a row, a last one a
  column, as NumPy's; NumPy may group them otherwise, which changes only the rounding);
* ``np.float64(x)``: x as a Float (an array elementwise).
"""
from __future__ import annotations

import ast

from ..errors import CatadTypeError
from ..lang.terms import Build, Const, Term
from ..lang.types import Bool, Float, Int, rank, scalar_of
from ..primitives import prim
from .calls import display
from .common import index_chain, is_array
from .numpy_arrays import (_is_none, array_arg, bind_args, concatenate, h_linspace, reshape, static_axes,
                           Failure)

import numpy as np


def h_append(lw, obj, node, args, kwargs):
    """np.append(arr, values, axis=None): raveled and joined, or joined along axis."""
    p = bind_args(lw, obj, node, args, kwargs, ("arr", "values", "axis"), 2)
    loc = lw.loc(node)
    ts = []
    for k in ("arr", "values"):
        t = lw.display(p[k]) if isinstance(p[k], (ast.List, ast.Tuple)) else lw.arg(p[k])
        t = t.replace() if lw.is_list(t) else t
        if not is_array(t):
            if t.type not in (Int, Float, Bool):
                lw.fail(node, "np.append", f"np.append() takes arrays or numbers, got a {t.type}", CatadTypeError)
            t = Build(Const(1, Int), lw.b.var(Int, loc, "_i"), t, loc)
        ts.append(t)
    kinds = {scalar_of(t.type) for t in ts}
    if kinds == {Int, Float}:
        ts = [lw.b.to_float(t, loc) for t in ts]
    elif len(kinds) > 1:
        lw.fail(node, "np.append", "np.append() of Bools and numbers is not supported", CatadTypeError)
    if _is_none(p.get("axis")):
        ts = [t if rank(t.type) == 1 else reshape(lw, t, [Const(-1, Int)], loc, np.ravel) for t in ts]
        return lw.b.share_all(ts, lambda a, b: concatenate(lw, [a, b], 0, loc, "np.append"), loc)
    r = rank(ts[0].type)
    if rank(ts[1].type) != r:
        lw.fail(node, "np.append", "all the input array dimensions except for the concatenation axis must match "
                f"exactly, but along dimension 0, the array at index 0 has {r} dimension(s) and the array at "
                f"index 1 has {rank(ts[1].type)} dimension(s)", CatadTypeError)
    axes = static_axes(lw, p["axis"], obj, r)
    if isinstance(axes, Failure) or len(axes) != 1:
        lw.fail(node, "np.append", axes.message if isinstance(axes, Failure) else "axis must be one integer",
                CatadTypeError)
    return lw.b.share_all(ts, lambda a, b: concatenate(lw, [a, b], axes[0], loc, "np.append"), loc)


def h_logspace(lw, obj, node, args, kwargs):
    """np.logspace(start, stop, num=50, endpoint=True, base=10.0): base ** np.linspace(start, stop, num, endpoint)."""
    p = bind_args(lw, obj, node, args, kwargs, ("start", "stop", "num", "endpoint", "base"), 2)
    loc = lw.loc(node)
    base = Const(10.0, Float) if _is_none(p.get("base")) else lw.b.to_float(lw.arg(p["base"]), loc)
    if base.type != Float:
        lw.fail(node, "np.logspace", f"base of np.logspace() must be a number, got a {base.type}", CatadTypeError)
    spaced = h_linspace(lw, np.linspace, node, [p["start"], p["stop"]],
                        {k: p[k] for k in ("num", "endpoint") if k in p})
    return lw.b.share(base, lambda b: lw.b.elementwise(lambda y: prim("pow", b, y, loc=loc), [spaced], loc), loc)


def h_kron(lw, obj, node, args, kwargs):
    """np.kron(a, b) of two vectors or two matrices: the blocks a[i, j] * b."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "b"), 2)
    a, b, loc = array_arg(lw, p["a"], obj, node), array_arg(lw, p["b"], obj, node), lw.loc(node)
    r = rank(a.type)
    if r != rank(b.type) or r > 2:
        lw.fail(node, "np.kron", f"np.kron() of arrays of ranks {r} and {rank(b.type)} is not supported (only two "
                                 "vectors or two matrices)", CatadTypeError)
    kinds = {scalar_of(a.type), scalar_of(b.type)}
    if Bool in kinds:
        lw.fail(node, "np.kron", "np.kron() of Bools is not supported", CatadTypeError)
    if kinds == {Int, Float}:
        a, b = lw.b.to_float(a, loc), lw.b.to_float(b, loc)

    def body(x, y):
        ps = [lw.b.size(y, q, loc) for q in range(r)]
        sizes = [prim("mul", lw.b.size(x, q, loc), ps[q], loc=loc) for q in range(r)]
        ivs = [lw.b.var(Int, loc, "_i") for _ in range(r)]
        outer = [prim("floordiv", i, n, loc=loc) for i, n in zip(ivs, ps)]
        inner = [prim("mod", i, n, loc=loc) for i, n in zip(ivs, ps)]
        out = prim("mul", index_chain(x, outer, loc), index_chain(y, inner, loc), loc=loc)
        for i, n in reversed(list(zip(ivs, sizes))):
            out = Build(n, i, out, loc)
        return out
    return lw.b.share_all([a, b], body, loc)


def h_multi_dot(lw, obj, node, args, kwargs):
    """np.linalg.multi_dot([a, b, ...]) of a list display: the dots left to right."""
    p = bind_args(lw, obj, node, args, kwargs, ("arrays",), 1)
    seq = p["arrays"]
    if not isinstance(seq, (ast.List, ast.Tuple)):
        lw.fail(node, "np.linalg.multi_dot", "np.linalg.multi_dot() takes a list display [a, b, ...] here")
    if len(seq.elts) < 2:
        lw.fail(node, "np.linalg.multi_dot", "Expecting at least two arrays.", CatadTypeError)
    loc = lw.loc(node)
    ts = [array_arg(lw, e, obj, node) for e in seq.elts]
    if any(rank(t.type) > 2 for t in ts) or any(rank(t.type) != 2 for t in ts[1:-1]):
        lw.fail(node, "np.linalg.multi_dot", "np.linalg.multi_dot() takes matrices, the first and last may be "
                "vectors", CatadTypeError)
    out = ts[0]
    for t in ts[1:]:
        out = lw.b.dot(out, t, loc)
    return out


def h_float64(lw, obj, node, args, kwargs):
    """np.float64(x): x as a Float (an array elementwise); np.float64() is 0.0."""
    if not args:
        return Const(0.0, Float, lw.loc(node))
    if len(args) != 1:
        lw.fail(node, "np.float64", f"np.float64() takes 1 argument, got {len(args)}", CatadTypeError)
    t = lw.display(args[0]) if isinstance(args[0], (ast.List, ast.Tuple)) else lw.arg(args[0])
    t = t.replace() if lw.is_list(t) else t
    if scalar_of(t.type) not in (Int, Float, Bool):
        lw.fail(node, "np.float64", f"np.float64() takes numbers or arrays of numbers, got a {t.type}", CatadTypeError)
    return lw.b.to_float(t, lw.loc(node))


TABLE = [
    ((np.append,), h_append, ("arr", "values", "axis")),
    ((np.logspace,), h_logspace, ("start", "stop", "num", "endpoint", "base")),
    ((np.kron,), h_kron, ()),
    ((np.linalg.multi_dot,), h_multi_dot, ()),
    ((np.float64,), h_float64, ()),
]

__all__ = ["TABLE"]
