"""Calls of builtins, math and NumPy functions, array methods, and user functions.

A callee is identified by the object its name evaluates to, so `import numpy as anything`
and `from math import sin` work. Handlers come first; then the registry's aliases (scalar
primitives, elementwise on arrays when the callable is a NumPy ufunc); then user functions.
"""
from __future__ import annotations

import ast
import builtins
import functools
import inspect
import math
import sys
import types
import warnings
from typing import Any

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import Build, Const, Get, Term, Tuple
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Vec, rank, scalar_of
from ..primitives import PRIMITIVES, prim, primitive_for_callable
from . import linalg
from .common import index_chain, is_array

_LIBRARIES = {"numpy", "scipy", "sympy", "catad"}
_COMPS = (ast.ListComp, ast.GeneratorExp)


def call(lw, obj: Any, node: ast.Call, args: list) -> Term:
    """obj(*args) where args are syntax nodes or already lowered terms (a method's receiver)."""
    kwargs = {kw.arg: kw for kw in node.keywords}
    handler = _handlers().get(id(obj))
    if handler is not None or primitive_for_callable(obj) is not None:
        args = [_list_as_array(lw, a) for a in args]
    if handler is not None:
        fn, allowed = handler
        for name, kw in kwargs.items():
            if name not in allowed:
                takes = f"it takes {', '.join(allowed)}" if allowed else "pass arguments by position"
                lw.fail(kw, "keyword argument", f"{display(obj)}() does not take keyword argument {name!r}; "
                                                f"{takes}")
        return fn(lw, obj, node, args, {k: kw.value for k, kw in kwargs.items()})
    pname = primitive_for_callable(obj)
    if pname is not None:
        if kwargs:
            lw.fail(node.keywords[0], "keyword argument", f"{display(obj)}() takes no keyword arguments here")
        return _primitive(lw, pname, obj, node, args)
    fn = _user_function(obj)
    if fn is not None:
        return lw.call_user(fn, node, args)
    lw.fail(node, "function", f"{display(obj)} is not supported; supported functions: "
                              f"{', '.join(supported_names())}, and functions you define")


def _list_as_array(lw, a):
    """A local list (a parameter's, or a list display's) of scalars or of arrays of one type,
    given to a library function, is the array NumPy makes of it (np.dot(ws, ws) of a list of
    floats); any other argument is left as it is."""
    base = a.value if isinstance(a, ast.Subscript) else a
    if not (isinstance(base, ast.Name) and base.id in lw.env):
        return a
    t = lw.expr(a)
    return list_array(lw, t, a) or t


def list_array(lw, t: Term, node: ast.AST) -> Term | None:
    """The array NumPy makes of t when t is a list (catad.trees) of scalars or of arrays of one
    type; None otherwise."""
    tree = lw.tree(t)
    if tree is None or tree.kind != "list" or not t.type.items or any(x is not None for x in tree.items):
        return None
    items = list(t.items) if isinstance(t, Tuple) else [Get(k, t, t.loc) for k in range(len(t.type.items))]
    types = {x.type for x in items}
    if not (types <= {Int, Float, Bool} or len(types) == 1 and is_array(items[0])):
        return None
    floats = any(scalar_of(x.type) == Float for x in items)
    return lw.as_list(lw._display_build(items, floats, node))


_METHODS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "dot": np.dot,
            "transpose": np.transpose}


def method(lw, base: Term, attr: str, node: ast.Call) -> Term:
    if attr == "copy" and is_array(base) and not node.args and not node.keywords:
        return base  # values are never changed in place: a copy is the value (see updates.py)
    if is_array(base) and not lw.is_list(base) and attr in _METHODS:
        return call(lw, _METHODS[attr], node, [base, *node.args])
    what = "a Python list" if lw.is_list(base) else f"a {base.type}"
    lw.fail(node, "method", f"method .{attr}() of {what} is not supported; supported array methods: "
                            + ", ".join(f".{m}()" for m in _METHODS) + " (make lists arrays with np.array)")


def _user_function(obj: Any) -> Any:
    """The Python function behind obj (through decorators) when it is the user's, not a library's."""
    try:
        fn = inspect.unwrap(obj)
    except ValueError:
        return None
    if not isinstance(fn, types.FunctionType):
        return None
    top = (fn.__module__ or "").split(".")[0]
    return fn if top not in _LIBRARIES and top not in sys.stdlib_module_names else None


def _primitive(lw, pname: str, obj: Any, node: ast.Call, args: list) -> Term:
    loc, name = lw.loc(node), display(obj)
    ts = [lw.arg(a) for a in args]
    arity = PRIMITIVES[pname].arity
    if arity is not None and len(ts) != arity:
        lw.fail(node, name, f"{name}() takes {arity} argument(s), got {len(ts)}", CatadTypeError)
    f = lambda *xs: lw.b.scalar(pname, list(xs), loc)
    if not any(is_array(t) for t in ts):
        return f(*ts)
    if isinstance(obj, np.ufunc):
        return lw.b.elementwise(f, ts, loc, name)  # NumPy ufuncs act elementwise
    try:
        return f(*ts)  # a primitive on vectors, such as argmax
    except CatadTypeError:
        lw.fail(node, name, f"{name}() takes scalars, got an array", CatadTypeError,
                "use the NumPy function (np.sin, np.exp, ...) for arrays")


# ------------------------------------------------------------ handlers: (lw, obj, node, args, kwargs) -> Term

def _arity(lw, obj, node, args, lo, hi=None):
    hi = lo if hi is None else hi
    if not lo <= len(args) <= hi:
        n = str(lo) if lo == hi else f"{lo} to {hi}" if hi < 99 else f"at least {lo}"
        lw.fail(node, display(obj), f"{display(obj)}() takes {n} argument(s), got {len(args)}", CatadTypeError)


def _tuple_fold(lw, t: Term, f, loc) -> Term:
    """Fold f over the components of a tuple-typed term, left to right."""
    n = len(t.type.items)

    def go(x):
        items = x.items if isinstance(x, Tuple) else [Get(k, x, loc) for k in range(n)]
        return functools.reduce(f, items)
    return go(t) if isinstance(t, Tuple) else lw.b.share(t, go, loc)


def _axis(lw, kwargs, r: int, obj, node) -> int | None:
    a = kwargs.get("axis")
    if a is None or isinstance(a, ast.Constant) and a.value is None:
        return None
    t = lw.expr(a)
    if not (isinstance(t, Const) and t.type == Int):
        lw.fail(a, "axis", f"axis of {display(obj)} must be an integer constant")
    if not -r <= t.value < r:
        # NumPy's AxisError, when the call is reached (it may sit in a branch not taken)
        return _AxisError(t.value, r, lw.loc(a), display(obj))
    return t.value % r


class _AxisError:
    """An axis out of range: the reduction becomes a check that fails, as NumPy raises."""

    def __init__(self, axis: int, r: int, loc, name: str):
        self.axis, self.r, self.loc, self.name = axis, r, loc, name

    def fail(self, lw, t: Term) -> Term:
        from ..lang.terms import FALSE, make_lets
        binds = lw.b.check(FALSE, (), self.loc, self.name, f"axis {self.axis} is out of bounds for array of "
                                                           f"dimension {self.r}")
        # what follows a failing check never runs; the reduction of axis 0 keeps the types
        return make_lets(binds, prim("sum", t, loc=self.loc))


def _dtype(lw, kwargs, obj):
    d = kwargs.get("dtype")
    if d is None:
        return None
    o = lw.static(d)
    if o is float or o is np.float64:
        return Float
    if o is int or o is np.int64:
        return Int
    lw.fail(d, "dtype", f"dtype of {display(obj)} must be float or int")


def h_sum(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 1)
    if isinstance(args[0], _COMPS):
        return lw.comprehension(args[0], "sum")
    t, loc = lw.arg(args[0]), lw.loc(node)
    if is_array(t):
        return prim("sum", t, loc=loc)  # a matrix sums its rows, as Python's sum does
    if isinstance(t.type, TupleT) and t.type.items:
        return _tuple_fold(lw, t, lambda a, b: lw.b.arith("add", a, b, loc), loc)
    lw.fail(node, "sum", f"sum() takes an array, a tuple or a generator, got a {t.type}", CatadTypeError)


def h_np_sum(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 1)
    loc = lw.loc(node)
    if isinstance(args[0], _COMPS) and kwargs.get("axis") is None:
        return lw.b.sum_all(lw.comprehension(args[0], "sum"), loc)
    t = lw.comprehension(args[0], None) if isinstance(args[0], ast.ListComp) else lw.arg(args[0])
    if not is_array(t):
        return _scalar_or_fail(lw, t, obj, node)
    axis = _axis(lw, kwargs, rank(t.type), obj, node)
    if isinstance(axis, _AxisError):
        return axis.fail(lw, t)
    if axis is None:
        return lw.b.sum_all(t, loc)
    if axis == 0:
        return prim("sum", t, loc=loc)
    return lw.b.share(t, lambda m: lw.b.reduce_axis(m, axis, "sum", loc), loc)


def h_mean(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 1)
    loc = lw.loc(node)
    t = lw.comprehension(args[0], None) if isinstance(args[0], ast.ListComp) else lw.arg(args[0])
    if not is_array(t):
        return lw.b.to_float(_scalar_or_fail(lw, t, obj, node), loc)
    axis = _axis(lw, kwargs, rank(t.type), obj, node)
    if isinstance(axis, _AxisError):
        return lw.b.to_float(axis.fail(lw, t), loc)
    if axis is None or rank(t.type) == 1:
        return lw.b.mean(t, loc)
    div = lambda x, y: lw.b.arith("div", x, y, loc)
    return lw.b.share(t, lambda m: lw.b.elementwise(div, [lw.b.reduce_axis(m, axis, "sum", loc),
                                                          lw.b.to_float(lw.b.size(m, axis, loc), loc)], loc), loc)


def _scalar_or_fail(lw, t, obj, node):
    if t.type in (Int, Float):
        return t
    lw.fail(node, display(obj), f"{display(obj)}() takes an array, got a {t.type}", CatadTypeError)


def h_max(lw, obj, node, args, kwargs):
    """builtin max/min: of one array, tuple or generator, or of several scalars."""
    _arity(lw, obj, node, args, 1, 99)
    loc, pair = lw.loc(node), obj.__name__
    reduce = "v" + pair
    if len(args) == 1:
        if isinstance(args[0], _COMPS):
            return lw.comprehension(args[0], reduce)
        t = lw.arg(args[0])
        if isinstance(t.type, Vec) and t.type.elem in (Int, Float):
            return prim(reduce, t, loc=loc)
        if isinstance(t.type, TupleT) and t.type.items:
            return _tuple_fold(lw, t, lambda a, b: lw.b.scalar(pair, [a, b], loc), loc)
        lw.fail(node, pair, f"{pair}() of one argument takes a vector, a tuple or a generator, got a {t.type}",
                CatadTypeError)
    ts = [lw.arg(a) for a in args]
    if any(is_array(t) for t in ts):
        lw.fail(node, pair, f"{pair}() of several arrays is not supported", CatadTypeError,
                f"use np.{pair}imum(a, b) for elementwise {pair}ima")
    return functools.reduce(lambda a, b: lw.b.scalar(pair, [a, b], loc), ts)


def h_np_max(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 1)
    loc = lw.loc(node)
    reduce = "vmax" if obj in (np.max, np.amax) else "vmin"
    if isinstance(args[0], _COMPS):
        t = lw.comprehension(args[0], None) if isinstance(args[0], ast.ListComp) else lw.arg(args[0])
    else:
        t = lw.arg(args[0])
    if not is_array(t):
        return _scalar_or_fail(lw, t, obj, node)
    axis = _axis(lw, kwargs, rank(t.type), obj, node)
    if isinstance(axis, _AxisError):
        return axis.fail(lw, t)
    if axis is None:
        return lw.b.share(t, lambda m: lw.b.reduce_all(m, reduce, loc), loc)
    return lw.b.share(t, lambda m: lw.b.reduce_axis(m, axis, reduce, loc), loc)


def h_abs(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 1)
    t, loc = lw.arg(args[0]), lw.loc(node)
    if obj is builtins.abs:
        lw.refuse_lists(node, [t], "abs()")
    floats = obj is math.fabs or obj is np.fabs  # fabs always gives a Float
    if is_array(t) and obj is math.fabs:
        lw.fail(node, "math.fabs", "math.fabs() takes a scalar, got an array", CatadTypeError, "use np.abs")
    f = lambda x: prim("abs", lw.b.to_float(x, loc) if floats else x, loc=loc)
    return lw.b.elementwise(f, [t], loc) if is_array(t) else f(t)


def h_float(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 1)
    t = lw.arg(args[0])
    if t.type not in (Int, Float, Bool):
        lw.fail(node, "float", f"float() takes a number, got a {t.type}", CatadTypeError,
                "use np.asarray(v, dtype=float) or v * 1.0 for arrays")
    return lw.b.to_float(t, lw.loc(node))


def h_len(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 1)
    t, loc = lw.arg(args[0]), lw.loc(node)
    if is_array(t):
        return lw.b.length(t, loc)
    if isinstance(t.type, TupleT):
        return Const(len(t.type.items), Int, loc)
    lw.fail(node, "len", f"len() takes an array or a tuple, got a {t.type}", CatadTypeError)


def h_pow(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 2)
    a, b = (lw.arg(x) for x in args)
    if obj is math.pow:
        if is_array(a) or is_array(b):
            lw.fail(node, "math.pow", "math.pow() takes scalars, got an array", CatadTypeError,
                    "use ** or np.power")
        loc = lw.loc(node)
        return prim("pow", lw.b.to_float(a, loc), lw.b.to_float(b, loc), loc=loc)
    return lw.binop(ast.Pow(), a, b, node)


def h_array(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 1)
    a, loc = args[0], lw.loc(node)
    if isinstance(a, (ast.List, ast.Tuple)):
        t = lw.display(a)
    elif isinstance(a, ast.ListComp):
        t = lw.comprehension(a, None)
    else:
        t = lw.arg(a)
        if not is_array(t):
            lw.fail(node, display(obj), f"{display(obj)}() takes a list, a list comprehension or an array, "
                                        f"got a {t.type}", CatadTypeError)
        if lw.is_list(t):
            t = t.replace()  # an equal but distinct term: the array is not marked as a list
    dtype = _dtype(lw, kwargs, obj)
    if dtype == Float:
        return lw.b.to_float(t, loc)
    if dtype == Int and scalar_of(t.type) != Int:
        lw.fail(node, "dtype", f"cannot convert an array of {scalar_of(t.type)} to int", CatadTypeError)
    return t


def h_filled(lw, obj, node, args, kwargs):
    """np.zeros(n), np.ones((n, m)), ..."""
    _arity(lw, obj, node, args, 1)
    a, loc = args[0], lw.loc(node)
    if isinstance(a, (ast.Tuple, ast.List)):
        dims = [lw.expr(e) for e in a.elts]
    else:
        t = lw.arg(a)
        dims = list(t.items) if isinstance(t, Tuple) else [t]
        if isinstance(t.type, TupleT) and not isinstance(t, Tuple):
            n = len(t.type.items)
            return lw.b.share(t, lambda x: _filled(lw, obj, node, [Get(k, x, loc) for k in range(n)], kwargs), loc)
    return _filled(lw, obj, node, dims, kwargs)


def _filled(lw, obj, node, dims, kwargs):
    if not dims or any(d.type != Int for d in dims):
        lw.fail(node, display(obj), f"the shape given to {display(obj)}() must be Ints, got "
                                    f"({', '.join(str(d.type) for d in dims)})", CatadTypeError)
    one = obj is np.ones
    value = Const(1, Int) if one else Const(0, Int)
    if _dtype(lw, kwargs, obj) != Int:
        value = Const(float(value.value), Float)
    return lw.b.filled(dims, value, lw.loc(node), display(obj))


def h_like(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 1)
    t, loc = lw.arg(args[0]), lw.loc(node)
    if not is_array(t) or scalar_of(t.type) not in (Int, Float):
        lw.fail(node, display(obj), f"{display(obj)}() takes an array of numbers, got a {t.type}", CatadTypeError)
    fill = 1 if obj is np.ones_like else 0
    value = Const(float(fill), Float) if scalar_of(t.type) == Float else Const(fill, Int)
    return lw.b.elementwise(lambda x: value, [t], loc)


def h_dot(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 2)
    a, b = (lw.arg(x) for x in args)
    if obj is np.matmul:
        return lw.binop(ast.MatMult(), a, b, node)
    return lw.b.dot(a, b, lw.loc(node))


def h_maximum(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 2)
    ts, loc = [lw.arg(x) for x in args], lw.loc(node)
    name = "max" if obj is np.maximum else "min"

    def f(a, b):
        if b.type != Float or isinstance(b, Const):  # only a Float b can be NaN
            return lw.b.scalar(name, [a, b], loc)
        # the primitive is Python's max (a NaN b gives a); NumPy's propagates a NaN from either side
        return lw.b.share(b, lambda y: lw.b.if_(prim("ne", y, y, loc=loc), y, lw.b.scalar(name, [a, y], loc),
                                                 loc, "{a} {b}"), loc)
    return lw.b.elementwise(f, ts, loc, display(obj)) if any(is_array(t) for t in ts) else f(*ts)


def h_where(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 3)
    ts, loc = [lw.arg(x) for x in args], lw.loc(node)
    f = lambda c, a, b: lw.b.if_(c, a, b, loc, "np.where() chooses between a {a} and a {b}; give them one type")
    return lw.b.elementwise(f, ts, loc, "np.where") if any(is_array(t) for t in ts) else f(*ts)


def h_transpose(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 1)
    t = lw.arg(args[0])
    if not is_array(t):
        lw.fail(node, "np.transpose", f"np.transpose() takes an array, got a {t.type}", CatadTypeError)
    return lw.b.transpose(t, lw.loc(node))


def _square(lw, loc):
    return lambda x: lw.b.share(x, lambda a: lw.b.arith("mul", a, a, loc), loc)


def h_square(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 1)
    t, loc = lw.arg(args[0]), lw.loc(node)
    return lw.b.elementwise(_square(lw, loc), [t], loc) if is_array(t) else _square(lw, loc)(t)


def h_norm(lw, obj, node, args, kwargs):
    """np.linalg.norm: the Euclidean norm of a vector, the Frobenius norm of a matrix."""
    _arity(lw, obj, node, args, 1)
    t, loc = lw.arg(args[0]), lw.loc(node)
    if not is_array(t):
        lw.fail(node, "np.linalg.norm", f"np.linalg.norm() takes an array, got a {t.type}", CatadTypeError)
    squares = lw.b.elementwise(_square(lw, loc), [t], loc)
    return prim("sqrt", lw.b.to_float(lw.b.sum_all(squares, loc), loc), loc=loc)


def h_outer(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 2)
    ts, loc = [lw.arg(x) for x in args], lw.loc(node)
    if any(rank(t.type) != 1 for t in ts):
        lw.fail(node, "np.outer", f"np.outer() takes two vectors, got {ts[0].type} and {ts[1].type}",
                CatadTypeError)

    def body(x, y):
        i, j = lw.b.var(Int, loc, "_i"), lw.b.var(Int, loc, "_j")
        return Build(lw.b.size(x, 0, loc), i, Build(lw.b.size(y, 0, loc), j, lw.b.arith(
            "mul", index_chain(x, [i], loc), index_chain(y, [j], loc), loc), loc), loc)
    return lw.b.share_all(ts, body, loc)


def h_clip(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 3)
    ts, loc = [lw.arg(x) for x in args], lw.loc(node)
    f = lambda x, lo, hi: lw.b.scalar("min", [lw.b.scalar("max", [x, lo], loc), hi], loc)  # NumPy's order
    return lw.b.elementwise(f, ts, loc, "np.clip") if any(is_array(t) for t in ts) else f(*ts)


def h_arange(lw, obj, node, args, kwargs):
    _arity(lw, obj, node, args, 1, 2)
    ts, loc = [lw.arg(x) for x in args], lw.loc(node)
    if any(t.type != Int for t in ts):
        lw.fail(node, "np.arange", "np.arange() is supported with Int bounds only", CatadTypeError,
                "for Floats write np.array([a + k * h for k in range(n)])")
    start, stop = (Const(0, Int), ts[0]) if len(ts) == 1 else ts
    k = lw.b.var(Int, loc, "_i")
    if isinstance(start, Const) and start.value == 0:
        return lw.b.share(stop, lambda n: Build(prim("max", n, Const(0, Int), loc=loc), k, k, loc), loc)
    return lw.b.share_all([start, stop], lambda a, b: Build(prim("max", prim("sub", b, a, loc=loc), Const(0, Int),
                                                                     loc=loc), k, prim("add", a, k, loc=loc), loc), loc)


def h_to_int(lw, obj, node, args, kwargs):
    lw.fail(node, display(obj), f"{display(obj)}() converts to an Int, which is not supported",
            hint="use // for integer division, or keep the value a Float")


def h_iteration_only(lw, obj, node, args, kwargs):
    lw.fail(node, obj.__name__, f"{obj.__name__}() is only supported as the iterable of a comprehension",
            hint=f"e.g. [e for x in {obj.__name__}(...)] or sum(e for x in {obj.__name__}(...))")


def h_print(lw, obj, node, args, kwargs):
    lw.fail(node, "print", "print is not supported in a compiled function; print outside it")


_REFUSED = [(builtins.print, h_print), (builtins.int, h_to_int), (builtins.round, h_to_int),
            (math.floor, h_to_int), (math.ceil, h_to_int), (math.trunc, h_to_int)]


@functools.lru_cache(maxsize=None)
def _handlers() -> dict[int, tuple]:
    table = [
        ((builtins.sum,), h_sum, ()), ((np.sum,), h_np_sum, ("axis",)), ((np.mean,), h_mean, ("axis",)),
        ((builtins.max, builtins.min), h_max, ()), ((np.max, np.amax, np.min, np.amin), h_np_max, ("axis",)),
        ((builtins.abs, np.abs, np.absolute, math.fabs, np.fabs), h_abs, ()),
        ((builtins.float,), h_float, ()), ((builtins.len,), h_len, ()),
        ((builtins.pow, np.power, math.pow), h_pow, ()),
        ((np.array, np.asarray, np.copy), h_array, ("dtype",)), ((np.zeros, np.ones, np.empty), h_filled, ("dtype",)),
        ((np.zeros_like, np.ones_like, np.empty_like), h_like, ()), ((np.dot, np.matmul), h_dot, ()),
        ((np.maximum, np.minimum), h_maximum, ()), ((np.where,), h_where, ()),
        ((np.transpose,), h_transpose, ()), ((range, zip, enumerate), h_iteration_only, ()),
        ((np.square,), h_square, ()), ((np.linalg.norm,), h_norm, ()), ((np.outer,), h_outer, ()),
        ((np.clip,), h_clip, ()), ((np.arange,), h_arange, ()),
    ] + [((o,), h, ()) for o, h in _REFUSED] + linalg.HANDLERS
    return {id(o): (h, allowed) for objs, h, allowed in table for o in objs}


@functools.lru_cache(maxsize=None)
def _catalogue() -> tuple[dict[int, str], tuple[str, ...]]:
    """Public names in builtins, math and numpy of everything the front end can call:
    (the shortest name of each object by id, every name sorted)."""
    ids = set(_handlers()) - {id(o) for o, _ in _REFUSED}
    ids |= {id(a) for p in PRIMITIVES.values() for a in p.aliases}
    short: dict[int, str] = {}
    every = []
    for mod, prefix in ((builtins, ""), (math, "math."), (np, "np."), (np.linalg, "np.linalg.")):
        for n in dir(mod):
            if n.startswith("_"):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    o = getattr(mod, n)
                except Exception:
                    continue
            if id(o) in ids:
                every.append(prefix + n)
                if id(o) not in short or len(prefix + n) < len(short[id(o)]):
                    short[id(o)] = prefix + n
    return short, tuple(sorted(every))


def supported_names() -> list[str]:
    return list(_catalogue()[1])


def display(obj: Any) -> str:
    name = _catalogue()[0].get(id(obj))
    if name:
        return name
    mod = getattr(obj, "__module__", None)
    base = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__
    return f"{mod}.{base}" if mod and mod != "builtins" else base
