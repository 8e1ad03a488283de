"""The methods of NumPy's ufuncs that numeric code uses, as NumPy defines them (axis=0 by default):

* ``np.add.accumulate(a, axis=0)`` and ``np.multiply.accumulate`` are np.cumsum and np.cumprod
  along the axis; ``np.maximum.accumulate`` and ``np.minimum.accumulate`` the running maximum and
  minimum (the same scan, its step NumPy's maximum: a NaN propagates from either side);
* ``np.add.reduce(a, axis=0, keepdims=False)``, ``np.multiply.reduce``, ``np.maximum.reduce`` and
  ``np.minimum.reduce`` are np.sum, np.prod, np.max and np.min over the axis (axis=None: every
  axis);
* ``np.logaddexp.reduce(a, axis=0)``: logaddexp of the elements along the axis, paired as a tree
  (equal to NumPy's left-to-right fold to rounding); no elements give -inf, logaddexp's identity
  in NumPy 2.

A ufunc's method is a new object at each attribute access, so it is found by its ufunc and name.
``dtype=``, ``out=``, ``initial=`` and ``where=`` are refused.
"""
from __future__ import annotations

import ast
import types

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import Const, If
from ..lang.types import Float, rank
from ..primitives import prim
from .numpy_arrays import (Failure, _is_none, along, along_axis, array_arg, scan0, static_axes, static_bool,
                           keep_dims, tree0)


def _name(obj) -> str:
    return f"np.{obj.__self__.__name__}.{obj.__name__}"


def _bind(lw, obj, node, args, kwargs, names: tuple) -> dict:
    name = _name(obj)
    if len(args) > len(names):
        lw.fail(node, name, f"{name}() takes at most {len(names)} arguments here ({', '.join(names)})", CatadTypeError)
    p = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            lw.fail(v, name, f"{k}= of {name}() is not supported", hint="compute it separately")
        p[k] = v
    if "array" not in p:
        lw.fail(node, name, f"{name}() needs an array", CatadTypeError)
    return p


def _nan_max(lw, kind: str, loc):
    """NumPy's maximum (minimum) of two scalars: a NaN from either side propagates."""
    def f(a, b):
        pick = lw.b.scalar(kind, [a, b], loc)
        if b.type != Float:
            return pick
        return If(prim("ne", b, b, loc=loc), b, pick, loc)
    return lambda a, b: lw.b.share_all([a, b], f, loc)


def h_accumulate(lw, obj, node, args, kwargs):
    """ufunc.accumulate(array, axis=0): the running sum, product, maximum or minimum along the axis."""
    p = _bind(lw, obj, node, args, kwargs, ("array", "axis"))
    loc, name = lw.loc(node), _name(obj)
    a = array_arg(lw, p["array"], obj, node)
    if "axis" in p and _is_none(p["axis"]):
        lw.fail(p["axis"], name, f"axis=None of {name}() is not an axis", CatadTypeError,
                "pass an integer axis (0 by default), or accumulate a.ravel()")
    axes = static_axes(lw, p.get("axis", ast.Constant(0)), obj, rank(a.type))
    if isinstance(axes, Failure):
        return axes.term(lw, a.type)
    u = obj.__self__
    if u is np.add or u is np.multiply:
        op = lambda x, y: lw.b.arith("add" if u is np.add else "mul", x, y, loc)
    else:
        op = _nan_max(lw, "max" if u is np.maximum else "min", loc)
    return lw.b.share(a, lambda x: along_axis(lw, x, axes[0], lambda y: scan0(lw, y, op, loc), loc), loc)


_REDUCTIONS = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min}


def h_reduce(lw, obj, node, args, kwargs):
    """ufunc.reduce(array, axis=0, keepdims=False): np.sum, np.prod, np.max, np.min over the axis,
    or logaddexp of the elements."""
    p = _bind(lw, obj, node, args, kwargs, ("array", "axis", "keepdims"))
    axis = p.get("axis", ast.copy_location(ast.Constant(0), node))
    u = obj.__self__
    if u is np.logaddexp:
        return _logaddexp_reduce(lw, obj, node, p, axis)
    from .calls import _handlers
    fn = _REDUCTIONS[u]
    h, _ = _handlers()[id(fn)]
    given = {"axis": axis}
    if "keepdims" in p:
        given["keepdims"] = p["keepdims"]
    return h(lw, fn, node, [p["array"]], given)


def _logaddexp_reduce(lw, obj, node, p, axis_node):
    loc, name = lw.loc(node), _name(obj)
    a = lw.b.to_float(array_arg(lw, p["array"], obj, node), loc)
    r = rank(a.type)
    axes = static_axes(lw, axis_node, obj, r)
    if isinstance(axes, Failure):
        return axes.term(lw, Float)
    keep = static_bool(lw, p.get("keepdims"), obj, "keepdims", False)
    op = lambda x, y: prim("logaddexp", x, y, loc=loc)
    unit = Const(-np.inf, Float)  # logaddexp(x, -inf) is x exactly: NumPy's identity, for no elements

    def body(x):
        return along(lw, x, None if axes is None else tuple(sorted(axes)), lambda y: tree0(lw, y, op, unit, loc), loc)
    out = lw.b.share(a, body, loc)
    return keep_dims(lw, out, r, axes, loc) if keep else out


_METHODS = {(u, "accumulate"): h_accumulate for u in (np.add, np.multiply, np.maximum, np.minimum)}
_METHODS.update({(u, "reduce"): h_reduce for u in (np.add, np.multiply, np.maximum, np.minimum, np.logaddexp)})
_KEYWORDS = {"accumulate": ("axis",), "reduce": ("axis", "keepdims")}


def lookup(obj) -> tuple | None:
    """(handler, keywords) for a ufunc's method handled here, else None."""
    if not isinstance(obj, types.BuiltinMethodType) or not isinstance(getattr(obj, "__self__", None), np.ufunc):
        return None
    h = next((h for (u, m), h in _METHODS.items() if u is obj.__self__ and m == obj.__name__), None)
    return None if h is None else (h, _KEYWORDS[obj.__name__])


def names() -> list[str]:
    return sorted(f"np.{u.__name__}.{m}" for u, m in _METHODS)


def display(obj) -> str | None:
    return _name(obj) if lookup(obj) is not None else None
