"""NumPy's elementwise functions that are compositions of primitives or operators, each as NumPy
computes it (the registry has the one-primitive ones: np.floor, np.ceil, np.trunc, np.rint,
np.fmod):

* ``np.round``/``np.around(a, decimals=0)``: NumPy's PyArray_Round, ``rint(a * 10**d) / 10**d``
  (``rint(a / 10**-d) * 10**-d`` for d < 0), halves to even; an Int array with d >= 0 is itself;
* ``np.floor_divide``, ``np.mod``/``np.remainder``: the operators ``//`` and ``%``;
* ``np.fmax``/``np.fmin``: the maximum/minimum ignoring a NaN (NaN only when both are);
* ``np.sinc(x)``: ``sin(pi x) / (pi x)``, 1 at 0 (its derivative there is 0);
* ``np.positive``: the value; ``np.float_power``: ``a ** b`` on Floats;
* ``np.isnan``, ``np.isinf``, ``np.isfinite``: Bool results (no derivative);
* ``np.nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None)``: NaN, inf and -inf
  replaced (by default by 0 and the largest and smallest finite floats); the derivative is 1
  where x is finite, else 0.
"""
from __future__ import annotations

import ast
import math

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import FALSE, TRUE, Const, If, Term
from ..lang.types import Bool, Float, Int, scalar_of
from ..primitives import prim
from .common import is_array
from .special_calls import _map, _none, _params

_BIGGEST = float(np.finfo(np.float64).max)


def _f(v: float) -> Const:
    return Const(float(v), Float)


def _one(lw, obj, node, args, n: int = 1) -> list[Term]:
    from .calls import display
    if len(args) != n:
        lw.fail(node, display(obj), f"{display(obj)}() takes {n} argument(s), got {len(args)}", CatadTypeError)
    return [lw.arg(a) for a in args]


def _numbers(lw, node, t: Term, name: str) -> Term:
    if scalar_of(t.type) not in (Int, Float):
        lw.fail(node, name, f"{name}() takes numbers or arrays of numbers, got a {t.type}", CatadTypeError)
    return t


def _power_of_ten(n: int) -> float:
    """NumPy's power_of_ten (calculation.c): a table to 1e8, then repeated multiplication by 10."""
    if n < 9:
        return float(10 ** n)
    out = 1e9
    for _ in range(n - 9):
        out *= 10.0
    return out


def h_round(lw, obj, node, args, kwargs):
    """np.round(a, decimals=0): NumPy's rint(a * 10**d) / 10**d (halves to even)."""
    a, d = _params(lw, "np.round", node, args, kwargs, ("a", "decimals"), 1)
    t, loc = _numbers(lw, node, lw.arg(a), "np.round"), lw.loc(node)
    decimals = 0
    if not _none(d):
        dt = lw.arg(d)
        if not (isinstance(dt, Const) and dt.type == Int):
            lw.fail(node, "decimals", "decimals of np.round must be an integer constant")
        decimals = int(dt.value)
    if scalar_of(t.type) == Int:
        if decimals >= 0:
            return t
        lw.fail(node, "np.round", "np.round() of integers to negative decimals is not supported",
                hint="convert to float first (x * 1.0)")
    return _map(lw, lambda x: rounded(x, decimals, loc), [t], loc, "np.round")


def rounded(x: Term, decimals: int, loc) -> Term:
    """NumPy's rounding of the Float x to `decimals` digits: rint(x * 10**d) / 10**d, with
    NumPy's powers of ten (np.round, np.float64.__round__)."""
    if decimals == 0:
        return prim("rint", x, loc=loc)
    f = _f(_power_of_ten(abs(decimals)))
    first, then = ("mul", "div") if decimals > 0 else ("div", "mul")
    return prim(then, prim("rint", prim(first, x, f, loc=loc), loc=loc), f, loc=loc)


def h_operator(lw, obj, node, args, kwargs):
    """np.floor_divide, np.mod (np.remainder): the operators // and % with broadcasting."""
    a, b = (lw.numpy_operand(t) for t in _one(lw, obj, node, args, 2))
    op = ast.FloorDiv() if obj is np.floor_divide else ast.Mod()
    return lw.binop(op, a, b, node)


def h_fmax(lw, obj, node, args, kwargs):
    """np.fmax, np.fmin: the maximum (minimum) where neither is NaN, else the one that is not."""
    ts, loc = _one(lw, obj, node, args, 2), lw.loc(node)
    name = "max" if obj is np.fmax else "min"

    def f(a, b):
        if a.type != Float and b.type != Float:
            return prim(name, a, b, loc=loc)
        a, b = lw.b.to_float(a, loc), lw.b.to_float(b, loc)
        return If(prim("ne", a, a, loc=loc), b, If(prim("ne", b, b, loc=loc), a, prim(name, a, b, loc=loc), loc), loc)
    return _map(lw, f, ts, loc, "np.fmax" if name == "max" else "np.fmin")


# sin(y) / y = sum_k (-y^2)^k / (2k + 1)!: to y^10, within 1e-34 of it where |y| < 0.01
_SINC_SERIES = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(6))
_SINC_NEAR = 0.01


def h_sinc(lw, obj, node, args, kwargs):
    """np.sinc(x): sin(pi x) / (pi x), 1 at x == 0 (NumPy's: pi * 1e-20 there, whose sine over it
    is 1). Near 0, where the derivatives of sin(y) / y cancel (its second at 1e-8 was -4.7 for
    -pi^2/3), and at 0, where the constant 1 has none, the value is that and its derivatives
    are the Taylor series': stop_gradient(value) + (series - stop_gradient(series))."""
    t, loc = _one(lw, obj, node, args)[0], lw.loc(node)
    t = lw.b.to_float(_numbers(lw, node, t, "np.sinc"), loc)

    def series(y):
        def at(y2):
            out = _f(_SINC_SERIES[-1])
            for c in reversed(_SINC_SERIES[:-1]):
                out = prim("add", _f(c), prim("mul", y2, out, loc=loc), loc=loc)
            return out
        return lw.b.share(prim("mul", y, y, loc=loc), at, loc)

    def f(x):
        def of(y):
            value = If(prim("eq", x, _f(0.0), loc=loc), _f(1.0), prim("div", prim("sin", y, loc=loc), y, loc=loc), loc)

            def near(v):
                stopped = lambda t: prim("stop_gradient", t, loc=loc)  # noqa: E731
                return lw.b.share(series(y), lambda s: prim("add", stopped(v), prim("sub", s, stopped(s), loc=loc),
                                                             loc=loc), loc)
            return lw.b.share(value, lambda v: If(prim("lt", prim("abs", y, loc=loc), _f(_SINC_NEAR), loc=loc),
                                                  near(v), v, loc), loc)
        return lw.b.share(prim("mul", _f(math.pi), x, loc=loc), of, loc)
    return _map(lw, f, [t], loc, "np.sinc")


def h_positive(lw, obj, node, args, kwargs):
    """np.positive(x): the value (a new array); NumPy refuses Bools."""
    t = _numbers(lw, node, _one(lw, obj, node, args)[0], "np.positive")
    return t.replace() if is_array(t) and lw.is_readonly(t) else t


def h_float_power(lw, obj, node, args, kwargs):
    """np.float_power(a, b): a ** b on Floats (nan for a negative a and a fractional b)."""
    loc = lw.loc(node)
    ts = [lw.b.to_float(_numbers(lw, node, t, "np.float_power"), loc) for t in _one(lw, obj, node, args, 2)]
    return _map(lw, lambda a, b: prim("pow", a, b, loc=loc), ts, loc, "np.float_power")


_TESTS = {  # on a Float x; an Int or Bool is never NaN or infinite
    np.isnan: (lambda x, loc: prim("ne", x, x, loc=loc), False),
    np.isinf: (lambda x, loc: prim("eq", prim("abs", x, loc=loc), _f(math.inf), loc=loc), False),
    np.isfinite: (lambda x, loc: prim("le", prim("abs", x, loc=loc), _f(_BIGGEST), loc=loc), True),
}
_MATH_TESTS = {math.isnan: np.isnan, math.isinf: np.isinf, math.isfinite: np.isfinite}


def h_isnan(lw, obj, node, args, kwargs):
    """np.isnan, np.isinf, np.isfinite: Bool tests (x != x, |x| == inf, |x| <= the largest float);
    math.isnan, math.isinf, math.isfinite of a number, Python's bool (expressions.x_Call marks it)."""
    from .calls import display
    t, loc = _one(lw, obj, node, args)[0], lw.loc(node)
    if scalar_of(t.type) not in (Int, Float, Bool) or obj in _MATH_TESTS and is_array(t):
        what = "a number" if obj in _MATH_TESTS else "numbers"
        lw.fail(node, display(obj), f"{display(obj)}() takes {what}, got a {t.type}", CatadTypeError,
                hint=f"np.{obj.__name__}(x) tests each element of an array" if obj in _MATH_TESTS else None)
    test, of_int = _TESTS[_MATH_TESTS.get(obj, obj)]
    f = (lambda x: test(x, loc)) if scalar_of(t.type) == Float else (lambda x: Const(of_int, Bool, loc))
    return _map(lw, f, [t], loc, display(obj))


def h_nan_to_num(lw, obj, node, args, kwargs):
    """np.nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None): NaN, inf, -inf replaced."""
    x, copy, *fills = _params(lw, "np.nan_to_num", node, args, kwargs, ("x", "copy", "nan", "posinf", "neginf"), 1)
    if not _none(copy) and not isinstance(lw.arg(copy), Const):
        lw.fail(node, "copy", "copy of np.nan_to_num must be a constant True or False")
    t, loc = _numbers(lw, node, lw.arg(x), "np.nan_to_num"), lw.loc(node)
    if scalar_of(t.type) == Int:
        return t
    by = []
    for a, default in zip(fills, (0.0, _BIGGEST, -_BIGGEST)):
        v = _f(default) if _none(a) else lw.b.to_float(_numbers(lw, node, lw.arg(a), "np.nan_to_num"), loc)
        if is_array(v):
            lw.fail(node, "np.nan_to_num", "np.nan_to_num() takes a number for nan=, posinf= and neginf=, not an "
                                        "array", hint="use np.where(np.isnan(x), values, x)")
        by.append(v)

    def f(v, nan, posinf, neginf):
        return If(prim("ne", v, v, loc=loc), nan,
                  If(prim("eq", v, _f(math.inf), loc=loc), posinf,
                     If(prim("eq", v, _f(-math.inf), loc=loc), neginf, v, loc), loc), loc)
    return lw.b.share_all(by, lambda *fs: _map(lw, lambda v: f(v, *fs), [t], loc, "np.nan_to_num"), loc)


def h_isclose(lw, obj, node, args, kwargs):
    """np.isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False), elementwise as NumPy 2 computes
    it: |a - b| <= atol + rtol |b| where b is finite, or a == b (inf is close to inf only), or
    both NaN with equal_nan; np.allclose(...): whether every pair is, Python's bool."""
    from .calls import display
    from .numpy_arrays import static_bool
    name, loc = display(obj), lw.loc(node)
    a, b, rtol, atol, equal_nan = _params(lw, name, node, args, kwargs, ("a", "b", "rtol", "atol", "equal_nan"), 2)
    nan_too = static_bool(lw, equal_nan, obj, "equal_nan", False)
    ts = [lw.b.to_float(_numbers(lw, node, lw.display(t) if isinstance(t, (ast.List, ast.Tuple)) else lw.arg(t),
                                 name), loc) for t in (a, b)]
    tols = [_f(default) if _none(t) else lw.b.to_float(_numbers(lw, node, lw.arg(t), name), loc)
            for t, default in ((rtol, 1e-05), (atol, 1e-08))]

    def close(x, y, rt, at):
        near = prim("le", prim("abs", prim("sub", x, y, loc=loc), loc=loc),
                    prim("add", at, prim("mul", rt, prim("abs", y, loc=loc), loc=loc), loc=loc), loc=loc)
        finite = prim("le", prim("abs", y, loc=loc), _f(_BIGGEST), loc=loc)
        out = If(If(near, finite, FALSE, loc), TRUE, prim("eq", x, y, loc=loc), loc)
        if nan_too:
            both = If(prim("ne", x, x, loc=loc), prim("ne", y, y, loc=loc), FALSE, loc)
            out = If(out, TRUE, both, loc)
        return out
    out = _map(lw, close, ts + tols, loc, name)
    if obj is np.isclose:
        return out
    if not is_array(out):
        return lw.as_py(out)
    misses = lw.b.elementwise(lambda c: If(c, Const(0, Int), Const(1, Int), loc), [out], loc)
    count = lw.b.share(misses, lambda m: lw.b.sum_all(m, loc), loc)
    return lw.as_py(prim("eq", count, Const(0, Int), loc=loc))


def h_math_isclose(lw, obj, node, args, kwargs):
    """math.isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0) of numbers: Python's bool, as Python
    computes it: equal numbers are close (an infinity to itself), an infinity is close to nothing
    else, and otherwise |b - a| <= |rel_tol * b| or |rel_tol * a| or abs_tol (NaN: never); a
    negative tolerance raises Python's ValueError."""
    from ..lang.terms import make_lets
    from .common import or_
    loc = lw.loc(node)
    if len(args) != 2:
        lw.fail(node, "math.isclose", f"isclose() takes exactly 2 positional arguments ({len(args)} given)",
                CatadTypeError)
    given = [lw.value_arg(a) for a in args] + [lw.arg(kwargs[k]) if k in kwargs else _f(d)
                                               for k, d in (("rel_tol", 1e-09), ("abs_tol", 0.0))]
    for t, a in zip(given, args + [kwargs.get("rel_tol"), kwargs.get("abs_tol")]):
        if not isinstance(t, Term) or is_array(t) or t.type not in (Int, Float, Bool):
            lw.fail(a if a is not None else node, "math.isclose", "math.isclose() takes numbers (a real number is "
                    f"required, got a {getattr(t, 'type', type(t).__name__)})", CatadTypeError,
                    hint="np.isclose(a, b) compares arrays elementwise")
    ts = [lw.b.to_float(t, loc) for t in given]

    def close(a, b, rel, tol):
        inf = or_(prim("eq", prim("abs", a, loc=loc), _f(math.inf), loc=loc),
                  prim("eq", prim("abs", b, loc=loc), _f(math.inf), loc=loc))
        diff = prim("abs", prim("sub", b, a, loc=loc), loc=loc)
        near = or_(or_(prim("le", diff, prim("abs", prim("mul", rel, b, loc=loc), loc=loc), loc=loc),
                       prim("le", diff, prim("abs", prim("mul", rel, a, loc=loc), loc=loc), loc=loc)),
                   prim("le", diff, tol, loc=loc))
        out = If(prim("eq", a, b, loc=loc), TRUE, If(inf, FALSE, near, loc), loc)
        ok = If(prim("ge", rel, _f(0.0), loc=loc), prim("ge", tol, _f(0.0), loc=loc), FALSE, loc)
        chk = lw.b.check(ok, (), loc, "math.isclose", "tolerances must be non-negative", "domain")
        return make_lets(chk, out)
    return lw.as_py(lw.b.share_all(ts, close, loc))


TABLE = [
    ((np.round, np.around), h_round, ("decimals",)),
    ((np.floor_divide, np.mod), h_operator, ()),
    ((np.fmax, np.fmin), h_fmax, ()),
    ((np.sinc,), h_sinc, ()),
    ((np.positive,), h_positive, ()),
    ((np.float_power,), h_float_power, ()),
    ((np.isnan, np.isinf, np.isfinite, math.isnan, math.isinf, math.isfinite), h_isnan, ()),
    ((np.nan_to_num,), h_nan_to_num, ("copy", "nan", "posinf", "neginf")),
    ((np.isclose, np.allclose), h_isclose, ("rtol", "atol", "equal_nan")),
    ((math.isclose,), h_math_isclose, ("rel_tol", "abs_tol")),
]

__all__ = ["TABLE"]
