"""np.nanvar and np.nanstd as NumPy computes them (numpy/lib/_nanfunctions_impl.py), the NaNs
left out of every sum:

    arr = a with NaNs as 0;  cnt = the number of non-NaNs;  avg = sum(arr) / cnt
    var = sum(((arr - avg) with NaN lanes 0) ** 2) / (cnt - ddof),  nan where cnt - ddof <= 0
    std = sqrt(var)

over all elements or along axes (keepdims as NumPy's). A NaN adds nothing to the derivative (its
lane is a constant 0 wherever it is read). NumPy warns where cnt - ddof <= 0; catad gives the
nan without the warning.

The handler is a row of catad/frontend/calls.py's table.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import Const, If, Term
from ..lang.types import Bool, Float, Int, scalar_of
from ..primitives import prim
from .calls import display
from .common import is_array
from .numpy_arrays import _is_none, bind_args, keep_dims, reduce
from .numpy_logic_reductions import _counted, _each, _finish, _not_nan, _operand

_NAN = Const(math.nan, Float)


def _over(lw, f, ts: list[Term], loc) -> Term:
    """f of scalars, or elementwise over arrays (broadcasting)."""
    return lw.b.elementwise(f, ts, loc) if any(is_array(t) for t in ts) else f(*ts)


def h_nanvar(lw, obj, node, args, kwargs):
    """np.nanvar, np.nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False): the
    variance (its square root) of the elements that are not NaN."""
    names = ("a", "axis", "dtype", "out", "ddof", "keepdims")
    p = bind_args(lw, obj, node, args, kwargs, names)
    name = display(obj)
    if not _is_none(p.get("dtype")):
        lw.fail(node, name, f"dtype of {name}() is not supported", CatadTypeError)
    t, r, axes, keep = _operand(lw, obj, node, p)
    loc = lw.loc(node)
    ddof = Const(0, Int) if _is_none(p.get("ddof")) else lw.arg(p["ddof"])
    if ddof.type not in (Int, Float):
        lw.fail(node, name, f"ddof of {name}() must be a number", CatadTypeError)
    if scalar_of(t.type) == Bool:
        t = _counted(lw, t, lambda x: x, loc)
    t = lw.b.to_float(t, loc)

    def body(a):
        ok = lambda x: _not_nan(x, loc)
        arr = _each(lw, lambda x: If(ok(x), x, Const(0.0, Float), loc), a, loc)
        cnt = reduce(lw, _counted(lw, a, ok, loc), axes, "sum", loc)

        def with_count(arr, cnt):
            total = reduce(lw, arr, axes, "sum", loc)
            avg = _over(lw, lambda s, c: prim("div", s, lw.b.to_float(c, loc), loc=loc), [total, cnt], loc)
            avg = keep_dims(lw, avg, r, axes, loc) if axes is not None else avg

            def squares(m):
                dev = lw.b.elementwise(lambda x, y, z: If(ok(z), prim("sub", x, y, loc=loc), Const(0.0, Float), loc),
                                       [arr, m, a], loc)
                return lw.b.elementwise(lambda d: prim("mul", d, d, loc=loc), [dev], loc)
            sq = lw.b.share(avg, squares, loc)
            dof = _over(lw, lambda c: lw.b.arith("sub", c, ddof, loc), [cnt], loc)
            var = _over(lw, lambda s, d: If(prim("le", d, Const(0, d.type), loc=loc), _NAN,
                                            prim("div", s, lw.b.to_float(d, loc), loc=loc), loc),
                        [reduce(lw, sq, axes, "sum", loc), dof], loc)
            return var if obj is np.nanvar else _over(lw, lambda v: prim("sqrt", v, loc=loc), [var], loc)
        return lw.b.share_all([arr, cnt], with_count, loc)
    return _finish(lw, t, r, axes, keep, loc, body)


TABLE = [((np.nanvar, np.nanstd), h_nanvar, ("axis", "dtype", "out", "ddof", "keepdims"))]
