"""Calls of scipy.special and scipy.stats functions that are more than one primitive, and of
NumPy's elementwise functions that are operators or compositions of primitives.

scipy.special's one-primitive functions (expit, gammaln, xlogy, ...) are registry rows
(their ``library_aliases``); here are the others, each made of primitives as SciPy computes it:

* ``logsumexp(a, axis=None, b=None, keepdims=False)``: ``m + log(sum(b * exp(a - m)))`` with
  ``m`` the maximum over the axis (0 where it is not finite, as SciPy), so nothing overflows;
  its gradient is the softmax. Lanes of no elements give what the installed SciPy gives (asked
  of it: -inf from SciPy 1.15 on, a constant, where the max of nothing is never taken).
  ``softmax`` and ``log_softmax`` are ``exp(a - lse)`` and ``a - lse`` with ``lse`` kept along
  the axis (of no elements, NumPy's ValueError for the max, as SciPy's);
* ``multigammaln(a, d)``: the sum of d gammaln terms, with SciPy's ValueError when some
  ``a <= (d - 1) / 2`` (a catad.ShapeError, which is a ValueError);
* ``scipy.stats.norm.ppf(q, loc, scale)`` is ``ndtri(q) * scale + loc``; the distributions'
  logpdf, pdf, cdf, ..., logpmf and pmf are scipy_stats.py's table;
* ``scipy.special.softplus(x)`` is SciPy's ``np.logaddexp(0, x)``;
* ``np.add``, ``np.subtract``, ``np.multiply``, ``np.divide`` (``np.true_divide``): the operators;
  ``np.heaviside``, ``np.reciprocal`` and ``np.clip`` (with ``a_min=``/``a_max=``, or ``min=``/
  ``max=``, and ``None`` for no bound).

``scipy.integrate.simpson`` is numpy_signal.py's (a row here, so that its name is SciPy's);
scipy.linalg's functions and ``scipy.stats.multivariate_normal``'s are scipy_linalg.py's.

SciPy is never imported here: a name is looked up only once its module is loaded (a function that
calls scipy.special.logsumexp has imported it). Messages name SciPy's functions as users write
them (``scipy.special.logsumexp``, ``scipy.stats.t.logpdf``), not by their private modules.
"""
from __future__ import annotations

import ast
import functools
import math
import sys
import types
from typing import Any

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import Build, Const, If, Term, make_lets
from ..lang.types import Bool, Float, Int, rank, scalar_of
from ..primitives import PRIMITIVES, prim
from . import scipy_linalg, scipy_stats
from .common import index_chain, is_array

_NAN = Const(math.nan, Float)


def _f(v: float) -> Const:
    return Const(float(v), Float)


# ------------------------------------------------------------ arguments

def _params(lw, name: str, node: ast.Call, args: list, kwargs: dict, names: tuple, required: int) -> list:
    """The arguments by position and keyword, in the order of `names` (None where not given)."""
    if len(args) > len(names):
        lw.fail(node, name, f"{name}() takes at most {len(names)} arguments ({', '.join(names)}), got {len(args)}",
                CatadTypeError)
    out = list(args) + [None] * (len(names) - len(args))
    for k, v in kwargs.items():
        i = names.index(k)
        if out[i] is not None:
            lw.fail(v, name, f"{name}() got multiple values for argument {k!r}", CatadTypeError)
        out[i] = v
    missing = [n for n, v in zip(names[:required], out) if v is None]
    if missing:
        lw.fail(node, name, f"{name}() is missing argument {missing[0]!r}", CatadTypeError)
    return out


def _none(a) -> bool:
    return a is None or isinstance(a, ast.Constant) and a.value is None


def _floats(lw, name: str, node, a) -> Term:
    """An argument as Floats (an Int or an array of Ints converted; a list display an array)."""
    t = lw.display(a) if isinstance(a, (ast.List, ast.Tuple)) else lw.arg(a)
    t = lw.b.to_float(t, lw.loc(node))
    if scalar_of(t.type) != Float:
        lw.fail(node, name, f"{name}() takes numbers or arrays of numbers, got a {t.type}", CatadTypeError)
    return t


def _static(lw, name: str, a, what: str, kind: type) -> Any:
    """A constant argument (an axis, a flag): its Python value."""
    if _none(a) or isinstance(a, (ast.Name, ast.Attribute)) and lw.static(a) is None:  # a global None too
        return None
    if isinstance(a, ast.Tuple):
        lw.fail(a, what, f"{what} of {name} must be an integer or None; a tuple of axes is not supported",
                hint="reduce one axis at a time, or pass axis=None for all of them")
    t = lw.expr(a)
    want = Int if kind is int else Bool
    if not (isinstance(t, Const) and t.type == want):
        lw.fail(a, what, f"{what} of {name} must be a constant {kind.__name__}")
    return t.value


def _axis(lw, name: str, a, r: int) -> int | None:
    axis = _static(lw, name, a, "axis", int)
    if axis is None:
        return None
    if not -r <= axis < r:
        lw.fail(a, "axis", f"axis {axis} is out of bounds for array of dimension {r}", CatadTypeError)
    return axis % r


def _number_axis(lw, name: str, a, shown: int) -> None:
    """SciPy reads a number as an array of one element along axis 0 (or -1): another axis is its
    AxisError, which names the dimension `shown` (logsumexp's 1, softmax's 0)."""
    axis = _static(lw, name, a, "axis", int)
    if axis is not None and axis not in (0, -1):
        lw.fail(a, "axis", f"axis {axis} is out of bounds for array of dimension {shown}", CatadTypeError)


def _map(lw, f, ts: list, loc, name: str) -> Term:
    """f on scalars (each argument an atom, shared once), elementwise with broadcasting over
    arrays; None arguments are passed to f as None."""
    present = [t for t in ts if t is not None]

    def on_scalars(*xs):
        def body(*atoms):
            it = iter(atoms)
            return f(*(None if t is None else next(it) for t in ts))
        return lw.b.share_all(list(xs), body, loc)
    if any(is_array(t) for t in present):
        return lw.b.elementwise(on_scalars, present, loc, name)
    return on_scalars(*present)


# ------------------------------------------------------------ reductions along an axis, kept

def _reduce(lw, t: Term, axis: int | None, kind: str, loc) -> Term:
    """sum or vmax of t over `axis` (every axis when None); a scalar is its own reduction."""
    if not is_array(t):
        return t
    if axis is None:
        return lw.b.sum_all(t, loc) if kind == "sum" else lw.b.share(t, lambda m: lw.b.reduce_all(m, kind, loc), loc)
    return lw.b.share(t, lambda m: lw.b.reduce_axis(m, axis, kind, loc), loc)


def _keep(lw, t: Term, r: int, axis: int | None, loc) -> Term:
    """The result of a reduction of a rank-r array with its reduced axes kept, of length 1
    (NumPy's keepdims): numpy_arrays.keep_dims (imported here: it imports calls, which imports
    this module)."""
    from .numpy_arrays import keep_dims
    return keep_dims(lw, t, r, None if axis is None else (axis,), loc) if r else t


def _finite_or_zero(lw, loc):
    """SciPy's shift: the maximum where it is finite, else 0 (all -inf, or an inf: no nan from inf - inf)."""
    return lambda m: If(prim("eq", prim("sub", m, m, loc=loc), _f(0.0), loc=loc), m, _f(0.0), loc)


def _logsumexp(lw, a: Term, b: Term | None, axis: int | None, r: int, loc, name: str, empty=False) -> Term:
    """log(sum(b * exp(a))) over axis, as its reduced value (not kept). `empty`: the installed
    SciPy's logsumexp of lanes of no elements (_empty_lanes), or False for NumPy's ValueError
    for the max of nothing (SciPy's softmax)."""
    def body(*ab):
        A, B = ab if b is not None else (ab[0], None)
        # entries with b == 0 do not count for the maximum (SciPy): they add nothing
        am = A if B is None else _map(lw, lambda x, y: If(prim("eq", y, _f(0.0), loc=loc), _f(-math.inf), x, loc),
                                      [A, B], loc, name)

        def with_max(M0, none):
            Mk = M0 if axis is None else _keep(lw, M0, r, axis, loc)  # a scalar broadcasts as it is
            shifted = lambda x, m: prim("exp", prim("sub", x, m, loc=loc), loc=loc)
            if B is None:
                E = _map(lw, shifted, [A, Mk], loc, name)
            else:  # a term with b == 0 is 0, even where exp overflows (SciPy), and its derivative
                # in b is exp(x - m) (where that is finite; 0 where it overflows)
                def term(x, y, m):
                    def weighted(e):  # exp(x - m) once, for both branches
                        finite = If(prim("lt", e, _f(math.inf), loc=loc), e, _f(0.0), loc)
                        return If(prim("eq", y, _f(0.0), loc=loc), prim("mul", y, finite, loc=loc),
                                  prim("mul", y, e, loc=loc), loc)
                    return lw.b.share(shifted(x, m), weighted, loc)
                E = _map(lw, term, [A, B, Mk], loc, name)
            S = _reduce(lw, E, axis, "sum", loc)
            result = lambda s, m: prim("add", prim("log", s, loc=loc), m, loc=loc)
            if none is not None:  # SciPy's -inf for lanes of nothing, a constant (log(0) + 0 has a nan tangent)
                result = (lambda f: lambda s, m: If(none, _f(-math.inf), f(s, m), loc))(result)
            return _map(lw, result, [S, M0], loc, name)

        def shifted_sum(t, none):  # of atom t (am); none: a Bool atom, the lanes have no elements
            peak = _reduce(lw, t, axis, "vmax", loc) if none is None else _guarded_max(lw, t, axis, none, loc)
            M0 = _map(lw, _finite_or_zero(lw, loc), [peak], loc, name)  # SciPy's shift
            return lw.b.share(M0, lambda m: with_max(m, none), loc)
        if empty is False or not is_array(am):
            return shifted_sum(am, None)
        return lw.b.share(am, lambda t: _when_lanes_empty(lw, t, axis, empty, shifted_sum, loc, name), loc)
    return lw.b.share_all([a] if b is None else [a, b], body, loc)


@functools.lru_cache(maxsize=None)
def _empty_lanes(obj, r: int, axis: int | None):
    """What the installed SciPy's logsumexp `obj` gives for lanes of no elements of a rank-r
    array along axis (None: all): None where it is -inf (SciPy 1.15 and later), else the
    exception it raises (SciPy 1.15 and later index the shape with a tuple of every axis, an
    IndexError, for axis=None of a rank-2 array; earlier versions raise NumPy's ValueError for
    the max of nothing). Asked of SciPy itself, as its behaviour changed between versions."""
    shape = [1] * r
    shape[0 if axis is None else axis] = 0
    try:
        with np.errstate(all="ignore"):
            out = obj(np.zeros(shape), axis=axis)
    except Exception as e:  # noqa: BLE001 - whichever SciPy raises is the answer
        return e
    if np.all(np.asarray(out) == -np.inf):
        return None
    return NotImplementedError(f"this SciPy's logsumexp of no elements is {out!r}, which catad does not compute")


def _when_lanes_empty(lw, t: Term, axis: int | None, empty, shifted_sum, loc, name: str) -> Term:
    """shifted_sum(t, none) for the lanes of atom t along axis (None: all of t), with SciPy's
    answer where they have no elements: `empty` None, -inf (none the Bool atom saying so); an
    exception, a check raising it (a ValueError, SciPy before 1.15: the max's own error)."""
    n = lw.b.count(t, loc) if axis is None else lw.b.size(t, axis, loc)
    if lw.b.shapes.at_most(Const(1, Int), n) or isinstance(empty, ValueError):
        return shifted_sum(t, None)
    if empty is not None:
        kind = "bounds" if isinstance(empty, IndexError) else "unsupported"
        return make_lets(lw.b.check(prim("lt", Const(0, Int), n, loc=loc), (), loc, name,
                                    str(empty).replace("{", "{{").replace("}", "}}"), kind), shifted_sum(t, None))
    return lw.b.share(prim("eq", n, Const(0, Int), loc=loc), lambda none: shifted_sum(t, none), loc)


def _guarded_max(lw, t: Term, axis: int | None, none: Term, loc) -> Term:
    """vmax of atom t over axis (None: all), -inf for each lane where the Bool atom `none` holds
    (the lanes have no elements), so that the max of nothing is never taken."""
    guard = lambda x: If(none, _f(-math.inf), x, loc)
    if axis is None:
        return guard(lw.b.reduce_all(t, "vmax", loc))
    return lw.b.reduce_axis(t, axis, "vmax", loc, guard)


def h_logsumexp(lw, obj, node, args, kwargs):
    """scipy.special.logsumexp(a, axis, b, keepdims): shifted by the max, stable; its gradient is the softmax."""
    name = library_name(obj)
    a, axis_, b_, keep_, sign_ = _params(lw, name, node, args, kwargs, ("a", "axis", "b", "keepdims", "return_sign"), 1)
    if _static(lw, name, sign_, "return_sign", bool):
        lw.fail(sign_, "return_sign", f"return_sign=True of {name} is not supported",
                hint="use b >= 0, or compute the sign separately")
    loc = lw.loc(node)
    a = _floats(lw, name, node, a)
    b = None if _none(b_) else _floats(lw, name, node, b_)
    r = max(rank(a.type), rank(b.type) if b is not None else 0)
    if not r:
        _number_axis(lw, name, axis_, 1)
    axis = _axis(lw, name, axis_, r) if r else None
    out = _logsumexp(lw, a, b, axis, r, loc, name, _empty_lanes(obj, r, axis) if r else False)
    if not _static(lw, name, keep_, "keepdims", bool):
        return out
    if not r and _number_kept_as_vector(obj):  # this SciPy reads a number as an array of one element
        return Build(Const(1, Int, loc), lw.b.var(Int, loc, "_k"), out, loc)
    return _keep(lw, out, r, axis, loc)


@functools.lru_cache(maxsize=None)
def _number_kept_as_vector(obj) -> bool:
    """Whether the installed SciPy's logsumexp of a number with keepdims=True is an array of one
    element (SciPy 1.15 and later) rather than a number: asked of it, as it changed."""
    return np.shape(obj(0.0, keepdims=True)) == (1,)


def _softmax(log: bool):
    def h(lw, obj, node, args, kwargs):
        """scipy.special.softmax or log_softmax(x, axis): exp(x - logsumexp(x)), stable."""
        name = library_name(obj)
        x, axis_ = _params(lw, name, node, args, kwargs, ("x", "axis"), 1)
        loc = lw.loc(node)
        given = lw.display(x) if isinstance(x, (ast.List, ast.Tuple)) else lw.arg(x)
        if scalar_of(given.type) == Bool:  # SciPy's x - max(x) of Bools
            lw.fail(node, name, f"{name}() of Bools is NumPy's TypeError (numpy boolean subtract, the `-` operator, "
                                "is not supported)", CatadTypeError, "convert the mask first: mask * 1.0")
        x = lw.b.to_float(given, loc)
        if scalar_of(x.type) != Float:
            lw.fail(node, name, f"{name}() takes numbers or arrays of numbers, got a {x.type}", CatadTypeError)
        r = rank(x.type)
        if not r:
            _number_axis(lw, name, axis_, 0)
        axis = _axis(lw, name, axis_, r) if r else None

        def body(X):
            lse = _keep(lw, _logsumexp(lw, X, None, axis, r, loc, name), r, axis, loc)
            f = (lambda v, l: prim("sub", v, l, loc=loc)) if log else \
                (lambda v, l: prim("exp", prim("sub", v, l, loc=loc), loc=loc))
            return _map(lw, f, [X, lse], loc, name)
        return lw.b.share(x, body, loc)
    return h


def h_multigammaln(lw, obj, node, args, kwargs):
    """log of the multivariate gamma function: d(d-1)/4 log(pi) + sum_j gammaln(a - (j-1)/2)."""
    name = library_name(obj)
    a, d_ = _params(lw, name, node, args, kwargs, ("a", "d"), 2)
    d = _static(lw, name, d_, "d", int)
    if d is None or d < 1:
        lw.fail(d_, name, f"d of {name} must be a constant int >= 1")
    loc = lw.loc(node)
    a = _floats(lw, name, node, a)
    limit = 0.5 * (d - 1)

    def f(x):
        out: Term = _f(0.25 * d * (d - 1) * math.log(math.pi))
        for j in range(1, d + 1):
            arg = x if j == 1 else prim("sub", x, _f(0.5 * (j - 1)), loc=loc)
            out = prim("add", out, prim("gammaln", arg, loc=loc), loc=loc)
        return out
    # SciPy raises ValueError when any a <= (d - 1) / 2 (a nan does not count)
    bad = lambda x: If(prim("le", x, _f(limit), loc=loc), Const(1, Int), Const(0, Int), loc)

    def body(A):
        def checked(count):  # a check's condition reads variables, not builds
            chk = lw.b.check(prim("eq", count, Const(0, Int), loc=loc), (), loc, name,
                             f"condition a > 0.5 * (d-1) ({limit}) not met")
            return make_lets(chk, _map(lw, f, [A], loc, name))
        count = lw.b.sum_all(_map(lw, bad, [A], loc, name), loc) if is_array(A) else bad(A)
        return lw.b.share(count, checked, loc)
    return lw.b.share(a, body, loc)


def h_digamma(lw, obj, node, args, kwargs):
    """scipy.special.digamma (psi): the digamma primitive, but -1/x at x = +-0, where SciPy gives
    -inf at 0.0 and inf at -0.0 (the primitive, the derivative of lgamma, is nan at every pole)."""
    name = library_name(obj)
    (x,) = _params(lw, name, node, args, {}, ("x",), 1)
    loc = lw.loc(node)
    f = lambda v: If(prim("eq", v, _f(0.0), loc=loc), prim("div", _f(-1.0), v, loc=loc), prim("digamma", v, loc=loc),
                     loc)
    return _map(lw, f, [_floats(lw, name, node, x)], loc, name)


# ------------------------------------------------------------ scipy.stats.norm.ppf

def h_norm_ppf(lw, obj, node, args, kwargs):
    """scipy.stats.norm.ppf(q, loc=0, scale=1): ndtri(q) * scale + loc as SciPy's ppf computes it
    (-inf * scale + loc at q == 0, inf * scale + loc at 1, nan outside [0, 1]); nan where scale <= 0."""
    name = library_name(obj)
    given = _params(lw, name, node, args, kwargs, ("q", "loc", "scale"), 1)
    loc = lw.loc(node)
    ts = [_floats(lw, name, node, x) if i == 0 or not _none(x) else None for i, x in enumerate(given)]

    def f(q, m, s):
        v = prim("ndtri", q, loc=loc)
        v = v if s is None else prim("mul", v, s, loc=loc)
        v = v if m is None else prim("add", v, m, loc=loc)
        if s is not None and not (isinstance(s, Const) and s.value > 0):
            v = If(prim("gt", s, _f(0.0), loc=loc), v, _NAN, loc)
        return v
    return _map(lw, f, ts, loc, name)


def h_softplus(lw, obj, node, args, kwargs):
    """scipy.special.softplus(x): SciPy's np.logaddexp(0, x), log(1 + exp(x)) without overflow."""
    name = library_name(obj)
    (x,) = _params(lw, name, node, args, {}, ("x",), 1)
    loc = lw.loc(node)
    return _map(lw, lambda v: prim("logaddexp", _f(0.0), v, loc=loc), [_floats(lw, name, node, x)], loc, name)


# ------------------------------------------------------------ NumPy's elementwise functions

_OPERATORS = {"add": ast.Add, "subtract": ast.Sub, "multiply": ast.Mult, "divide": ast.Div,
              "true_divide": ast.Div}


def h_operator(lw, obj, node, args, kwargs):
    """np.add(a, b) is a + b (and so on), with its broadcasting and promotion."""
    name = f"np.{obj.__name__}"
    if len(args) != 2:
        lw.fail(node, name, f"{name}() takes 2 arguments, got {len(args)}", CatadTypeError)
    a, b = (lw.numpy_operand(lw.arg(x)) for x in args)
    return lw.binop(_OPERATORS[obj.__name__](), a, b, node)


def h_heaviside(lw, obj, node, args, kwargs):
    """np.heaviside(x, h0): 0 for x < 0, h0 at 0, 1 for x > 0, nan for nan. Its partial in x is 0
    (where it is defined, and chosen 0 at 0); in h0 it is 1 where x == 0."""
    if len(args) != 2:
        lw.fail(node, "np.heaviside", f"np.heaviside() takes 2 arguments, got {len(args)}", CatadTypeError)
    loc = lw.loc(node)
    ts = [lw.b.to_float(lw.arg(a), loc) for a in args]

    def f(x, h0):
        at_zero = If(prim("eq", x, _f(0.0), loc=loc), h0, _NAN, loc)
        return If(prim("lt", x, _f(0.0), loc=loc), _f(0.0),
                  If(prim("gt", x, _f(0.0), loc=loc), _f(1.0), at_zero, loc), loc)
    return _map(lw, f, ts, loc, "np.heaviside")


def h_reciprocal(lw, obj, node, args, kwargs):
    """np.reciprocal(x) of Floats: 1 / x elementwise."""
    if len(args) != 1:
        lw.fail(node, "np.reciprocal", f"np.reciprocal() takes 1 argument, got {len(args)}", CatadTypeError)
    t, loc = lw.arg(args[0]), lw.loc(node)
    if scalar_of(t.type) == Int:
        lw.fail(node, "np.reciprocal", "np.reciprocal() of integers is NumPy's integer division (1 // x)",
                CatadTypeError, "write 1.0 / x for the reciprocal as a float")
    return _map(lw, lambda x: prim("div", _f(1.0), x, loc=loc), [t], loc, "np.reciprocal")


def h_clip(lw, obj, node, args, kwargs):
    """np.clip(a, a_min, a_max): min(max(a, a_min), a_max) in NumPy's order; a bound None is none.
    The bounds by keyword as a_min=/a_max= (or NumPy 2's min=/max=)."""
    if "min" in kwargs or "max" in kwargs:
        kwargs = {{"min": "a_min", "max": "a_max"}.get(k, k): v for k, v in kwargs.items()}
    a, lo, hi = _params(lw, "np.clip", node, args, kwargs, ("a", "a_min", "a_max"), 1)
    if _none(lo) and _none(hi) and not _CLIPS_TO_NOTHING:
        lw.fail(node, "np.clip", "np.clip() needs a_min or a_max (NumPy raises ValueError: one of max or min "
                                 "must be given)")
    loc = lw.loc(node)
    ts = [lw.arg(a)] + [None if _none(x) else lw.arg(x) for x in (lo, hi)]

    def f(x, lo, hi):  # NumPy's clip of one bound is np.maximum's (np.minimum's), where a tie gives the bound
        if lo is None and hi is None:
            return x
        if lo is None:
            return numpy_maximum(lw, "min", x, hi, loc)
        if hi is None:
            return numpy_maximum(lw, "max", x, lo, loc)
        return _bounded(lw, "min", _bounded(lw, "max", x, lo, loc), hi, loc)
    return _map(lw, f, ts, loc, "np.clip")


def _clips_to_nothing() -> bool:
    """Whether this NumPy's np.clip takes no bound (NumPy 2.1 and later: a copy), not ValueError."""
    try:
        np.clip(np.zeros(1), None, None)
    except ValueError:
        return False
    return True


_CLIPS_TO_NOTHING = _clips_to_nothing()


def numpy_maximum(lw, name: str, a: Term, b: Term, loc) -> Term:
    """np.maximum (np.minimum, `name` "min") of two scalars: b unless a is greater (less) or NaN,
    so a tie (0.0 and -0.0 too) gives b. The primitive is Python's max(b, a), b unless a is
    greater: a NaN b is taken first. Both are bound first: NumPy evaluates b (its checks raise)
    whether a is NaN or not."""
    if a.type != Float or isinstance(a, Const):  # only a Float a can be NaN
        return lw.b.scalar(name, [b, a], loc)
    return lw.b.share_all([a, b], lambda x, y: lw.b.if_(prim("ne", x, x, loc=loc), x, lw.b.scalar(name, [y, x], loc),
                                                         loc, "{a} {b}"), loc)


def _bounded(lw, kind: str, a: Term, bound: Term, loc) -> Term:
    """The clip ufunc's max(a, bound) (min), where NumPy's np.clip has both bounds: a unless the
    bound is beyond it (a tie, 0.0 and -0.0 too, keeps a: Python's max(a, bound)), and NaN where
    either is (a NaN a Python's max keeps, a NaN bound is taken first). Both are bound first: a's
    checks run whether the bound is NaN or not."""
    if bound.type != Float or isinstance(bound, Const) and not math.isnan(bound.value):
        return lw.b.scalar(kind, [a, bound], loc)
    return lw.b.share_all([a, bound], lambda x, b: If(prim("ne", b, b, loc=loc), b, lw.b.scalar(kind, [x, b], loc), loc),
                          loc)


# ------------------------------------------------------------ the tables

# SciPy's functions handled here: public dotted name -> (handler, keyword arguments it takes)
def _simpson(lw, obj, node, args, kwargs):
    """scipy.integrate.simpson(y, x=None, *, dx=1.0) of a vector: SciPy's composite rule (numpy_signal.h_simpson)."""
    from .numpy_signal import h_simpson
    return h_simpson(lw, obj, node, args, kwargs)


def _brentq(lw, obj, node, args, kwargs):
    """scipy.optimize.brentq(f, a, b, args=(), ...): SciPy's root of your function f, its derivative by the implicit function theorem."""
    from .roots import h_brentq  # roots.py lowers the function given to it (the lowerer's parts)
    return h_brentq(lw, obj, node, args, kwargs)


LIBRARY_HANDLERS: dict[str, tuple] = {
    "scipy.special.logsumexp": (h_logsumexp, ("axis", "b", "keepdims", "return_sign")),
    "scipy.special.softmax": (_softmax(False), ("axis",)),
    "scipy.special.log_softmax": (_softmax(True), ("axis",)),
    "scipy.special.multigammaln": (h_multigammaln, ("a", "d")),
    "scipy.special.digamma": (h_digamma, ()), "scipy.special.psi": (h_digamma, ()),
    **scipy_stats.LIBRARY_HANDLERS,  # the distributions' logpdf, pdf, cdf, ..., logpmf, pmf
    "scipy.stats.norm.ppf": (h_norm_ppf, ("q", "loc", "scale")),
    "scipy.special.softplus": (h_softplus, ()),
    "scipy.integrate.simpson": (_simpson, ("x", "dx", "axis")),
    **scipy_linalg.LIBRARY_HANDLERS,  # scipy.linalg's solvers and expm, multivariate_normal
    "scipy.optimize.brentq": (_brentq, ("f", "a", "b", "args", "xtol", "rtol", "maxiter", "full_output", "disp")),
}


def _resolve(name: str) -> Any:
    """The object of a dotted name whose module (scipy.special, scipy.stats) is loaded, else None."""
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        m = sys.modules.get(".".join(parts[:cut]))
        if m is not None:
            obj = m
            for p in parts[cut:]:
                obj = getattr(obj, p, None)
                if obj is None:
                    return None
            return obj
    return None


def _key(obj: Any):
    """A bound method (scipy.stats.norm.logpdf is a new one at each look-up) by its receiver and
    function name; anything else by identity."""
    if isinstance(obj, types.MethodType):
        return id(obj.__self__), obj.__func__.__name__
    return id(obj)


@functools.lru_cache(maxsize=8)
def _table(loaded: tuple) -> dict:
    out = {}
    for name, row in LIBRARY_HANDLERS.items():
        obj = _resolve(name)
        if obj is not None:
            out[_key(obj)] = (name, row)
    return out


def _loaded() -> tuple:
    return tuple(m in sys.modules for m in ("scipy.special", "scipy.stats", "scipy.integrate", "scipy.linalg",
                                            "scipy.optimize"))


def lookup(obj: Any) -> tuple | None:
    """(handler, keyword arguments) for a SciPy callable handled here, else None."""
    hit = _table(_loaded()).get(_key(obj))
    return None if hit is None else hit[1]


def names() -> list[str]:
    """Every SciPy name catad can call: the handlers here and the registry's library aliases."""
    lib = {n for p in PRIMITIVES.values() for n in p.library_aliases}
    return sorted(lib | set(LIBRARY_HANDLERS))


def library_name(obj: Any) -> str | None:
    """The public name of a SciPy callable, as users write it: scipy.special.logsumexp (defined in
    scipy.special._logsumexp), scipy.stats.t.logpdf (a method of rv_continuous); None for objects
    of other libraries."""
    hit = _table(_loaded()).get(_key(obj))
    if hit is not None:
        return hit[0]
    if isinstance(obj, types.MethodType):
        owner = _public_name_of(obj.__self__, getattr(type(obj.__self__), "__module__", ""))
        return f"{owner}.{obj.__func__.__name__}" if owner else None
    module = getattr(obj, "__module__", None)
    if module is None and type(obj).__name__ == "ufunc":  # SciPy's ufuncs have no module
        module = "scipy.special._ufuncs"
    return _public_name_of(obj, module or "")


def _public_name_of(obj: Any, module: str) -> str | None:
    """The shortest public path name under `module`'s public parents (scipy.special, scipy) that
    holds obj."""
    if module.split(".")[0] != "scipy":
        return None
    parts = [p for p in module.split(".")]
    public = []
    for p in parts:
        if p.startswith("_"):
            break
        public.append(p)
    for cut in range(len(public), 0, -1):
        m = sys.modules.get(".".join(public[:cut]))
        if m is None:
            continue
        for attr in dir(m):
            if not attr.startswith("_") and getattr(m, attr, None) is obj:
                return f"{'.'.join(public[:cut])}.{attr}"
    return None
