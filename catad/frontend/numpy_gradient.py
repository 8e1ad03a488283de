"""np.gradient(f, *varargs, axis=None, edge_order=1) as NumPy computes it, with NumPy's formulas
and their order of operations, so values agree bit for bit.

A spacing is a number (uniform: the step) or a 1-d array of coordinates along its axis. With
coordinates, NumPy takes their differences dx and, when every dx equals dx[0], the uniform
formulas with the step dx[0]; otherwise the second-order non-uniform ones (Fornberg 1988,
"Generation of finite difference formulas on arbitrarily spaced grids", Math. Comp. 51; NumPy's
docstring derives them), inside:

    a f[i-1] + b f[i] + c f[i+1],  a = -dx2 / (dx1 (dx1 + dx2)),  b = (dx2 - dx1) / (dx1 dx2),
                                   c = dx1 / (dx2 (dx1 + dx2)),   dx1 = x[i] - x[i-1], dx2 = x[i+1] - x[i]

and at the ends first-order one-sided differences (edge_order=1) or second-order one-sided
three-point formulas (edge_order=2). Where the coordinates happen to be uniform, the value is the
uniform formula's (NumPy's) and the derivative the non-uniform formula's: the function NumPy
computes is the non-uniform formula everywhere around such a point (a perturbation of the
coordinates makes them non-uniform), so its derivative there is that formula's. The uniform
value is the non-uniform one plus a stopped difference (the roots' device, catad/frontend/roots.py).

The handler is a row of catad/frontend/calls.py's table (taking over numpy_statistics' row).
"""
from __future__ import annotations

import ast

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import Const, If, Term, Tuple, make_lets
from ..lang.types import Float, Int, rank
from ..primitives import prim
from .calls import display
from .common import ONE, ZERO, index_chain, is_array
from .numpy_arrays import Failure, array_arg, builds, static_axes

_TWO = Const(2, Int)


class _Ops:
    """Scalar arithmetic at one source location."""

    def __init__(self, loc):
        self.loc = loc

    def __getattr__(self, name):
        if name in ("add", "sub", "mul", "div", "neg", "min", "max", "eq", "le", "lt", "and_"):
            fn = "and" if name == "and_" else name
            return lambda *xs: prim(fn, *xs, loc=self.loc)
        raise AttributeError(name)

    def f(self, v: float) -> Const:
        return Const(v, Float)


def _uniform(o: _Ops, at, i, n, h, edge: int):
    """NumPy's uniform formulas at index i of n (reads at(j), step h)."""
    last = o.sub(n, ONE)
    inside = o.div(o.sub(at(o.add(i, ONE)), at(o.sub(i, ONE))), o.mul(o.f(2.0), h))
    if edge == 1:
        first = o.div(o.sub(at(ONE), at(ZERO)), h)
        end = o.div(o.sub(at(last), at(o.sub(n, _TWO))), h)
    else:
        three = lambda ks, js: o.add(o.add(o.mul(o.div(o.f(ks[0]), h), at(js[0])), o.mul(o.div(o.f(ks[1]), h), at(js[1]))),
                                     o.mul(o.div(o.f(ks[2]), h), at(js[2])))
        first = three((-1.5, 2.0, -0.5), (ZERO, ONE, _TWO))
        end = three((0.5, -2.0, 1.5), (o.sub(n, Const(3, Int)), o.sub(n, _TWO), last))
    return first, inside, end


def _nonuniform(o: _Ops, at, dx, i, n, edge: int):
    """NumPy's non-uniform formulas at index i of n (reads at(j), differences dx(j))."""
    last = o.sub(n, ONE)
    d1, d2 = dx(o.sub(i, ONE)), dx(i)
    a = o.div(o.neg(d2), o.mul(d1, o.add(d1, d2)))
    b = o.div(o.sub(d2, d1), o.mul(d1, d2))
    c = o.div(d1, o.mul(d2, o.add(d1, d2)))
    abc = lambda a, b, c, js: o.add(o.add(o.mul(a, at(js[0])), o.mul(b, at(js[1]))), o.mul(c, at(js[2])))
    inside = abc(a, b, c, (o.sub(i, ONE), i, o.add(i, ONE)))
    if edge == 1:
        first = o.div(o.sub(at(ONE), at(ZERO)), dx(ZERO))
        end = o.div(o.sub(at(last), at(o.sub(n, _TWO))), dx(o.sub(n, _TWO)))
        return first, inside, end
    d1, d2 = dx(ZERO), dx(ONE)
    s = o.add(d1, d2)
    first = abc(o.div(o.neg(o.add(o.mul(o.f(2.0), d1), d2)), o.mul(d1, s)), o.div(s, o.mul(d1, d2)),
                o.div(o.neg(d1), o.mul(d2, s)), (ZERO, ONE, _TWO))
    d1, d2 = dx(o.sub(n, Const(3, Int))), dx(o.sub(n, _TWO))
    s = o.add(d1, d2)
    end = abc(o.div(d2, o.mul(d1, s)), o.div(o.neg(o.add(d2, d1)), o.mul(d1, d2)),
              o.div(o.add(o.mul(o.f(2.0), d2), d1), o.mul(d2, s)), (o.sub(n, Const(3, Int)), o.sub(n, _TWO), last))
    return first, inside, end


def _value_of(o: _Ops, u: Term, v: Term) -> Term:
    """u's value with v's derivative: u + (v - v), the difference stopped (0 where v is finite;
    u itself where it is not, as where coordinates repeat)."""
    stop = lambda t: prim("stop_gradient", t, loc=o.loc)
    return If(o.eq(o.sub(v, v), o.f(0.0)), o.add(stop(u), o.sub(v, stop(v))), u, o.loc)


def _pick(o: _Ops, i, n, parts):
    first, inside, end = parts
    return If(o.eq(i, ZERO), first, If(o.eq(i, o.sub(n, ONE)), end, inside, o.loc), o.loc)


def _along(lw, f: Term, axis: int, spacing: Term, edge: int, loc) -> Term:
    """The gradient of atom f along axis; spacing a Float atom (a step) or a vector atom of
    coordinates (its length checked against the axis)."""
    o, r = _Ops(loc), rank(f.type)
    sizes = [lw.b.size(f, q, loc) for q in range(r)]
    n = sizes[axis]
    binds = lw.b.check(o.le(Const(edge + 1, Int), n), (), loc, "np.gradient",
                       "Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) "
                       "elements are required.")
    coords = is_array(spacing)
    if coords:
        m = lw.b.size(spacing, 0, loc)
        binds += lw.b.check(o.eq(m, n), (), loc, "np.gradient",
                            "when 1d, distances must match the length of the corresponding dimension",
                            equal=((m, n),))
        dxv = lw.b.share_atom(builds(lw, [o.sub(n, ONE)], lambda k: o.sub(index_chain(spacing, [o.add(k, ONE)], loc),
                                                                          index_chain(spacing, [k], loc)), loc),
                              binds, loc)
        h0 = lw.b.share_atom(index_chain(dxv, [ZERO], loc), binds, loc)
        same = lw.b.elementwise(lambda d: o.eq(d, h0), [dxv], loc)
        uniform = lw.b.share_atom(prim("eq", lw.b.sum_all(lw.b.elementwise(
            lambda s: If(s, ZERO, ONE, loc), [same], loc), loc), ZERO, loc=loc), binds, loc)
    top = o.sub(n, _TWO)

    def elem(*ix):
        i = ix[axis]
        clamp = lambda j, hi: o.min(o.max(j, ZERO), hi)  # reads stay in range in every branch
        at = lambda j: index_chain(f, [clamp(j, o.sub(n, ONE)) if q == axis else ix[q] for q in range(r)], loc)
        if not coords:
            return _pick(o, i, n, _uniform(o, at, i, n, spacing, edge))
        dx = lambda j: index_chain(dxv, [clamp(j, top)], loc)
        exact = _nonuniform(o, at, dx, i, n, edge)
        uni = _uniform(o, at, i, n, h0, edge)
        chosen = [lw.b.share(e, lambda v: If(uniform, _value_of(o, u, v), v, loc), loc) for e, u in zip(exact, uni)]
        return _pick(o, i, n, chosen)
    return make_lets(binds, builds(lw, sizes, elem, loc))


def _edge_order(lw, a, node) -> int:
    if a is None:
        return 1
    t = lw.arg(a)
    if not (isinstance(t, Const) and t.type == Int):
        lw.fail(node, "np.gradient", "edge_order of np.gradient must be a constant, 1 or 2", CatadTypeError)
    if t.value > 2:
        lw.fail(node, "np.gradient", "'edge_order' greater than 2 not supported", CatadTypeError)
    if t.value < 1:
        lw.fail(node, "np.gradient", "'edge_order' less than 1 not supported", CatadTypeError)
    return int(t.value)


def h_gradient(lw, obj, node, args, kwargs):
    """np.gradient(f, *varargs, axis=None, edge_order=1): NumPy's second-order differences inside
    and first- or second-order ones at the ends, with steps or coordinates."""
    if not args:
        lw.fail(node, "np.gradient", "np.gradient() missing required argument 'f'", CatadTypeError)
    loc = lw.loc(node)
    f = lw.b.to_float(array_arg(lw, args[0], obj, node), loc)
    edge = _edge_order(lw, kwargs.get("edge_order"), node)
    r = rank(f.type)
    axes = static_axes(lw, kwargs.get("axis"), obj, r)
    if isinstance(axes, Failure):
        lw.fail(node, "np.gradient", axes.message, CatadTypeError)
    one = axes is not None and len(axes) == 1 or axes is None and r == 1
    axes = tuple(range(r)) if axes is None else tuple(axes)
    spacings = [lw.b.to_float(lw.arg(a), loc) for a in args[1:]]
    for s, a in zip(spacings, args[1:]):
        if is_array(s) and rank(s.type) != 1:
            lw.fail(node, "np.gradient", "distances must be either scalars or 1d", CatadTypeError)
    if not spacings:
        spacings = [Const(1.0, Float)] * len(axes)
    elif len(spacings) == 1 and not is_array(spacings[0]):
        spacings = spacings * len(axes)
    elif len(spacings) != len(axes):
        lw.fail(node, "np.gradient", "invalid number of arguments", CatadTypeError)

    def body(x, *hs):
        outs = [_along(lw, x, q, h, edge, loc) for q, h in zip(axes, hs)]
        return outs[0] if one else Tuple(tuple(outs), loc)
    return lw.b.share_all([f] + spacings, body, loc)


TABLE = [((np.gradient,), h_gradient, ("axis", "edge_order"))]
