"""NumPy's array creation, shape, joining and reduction functions as core terms.

Each handler (``h_*``, listed in ``TABLE`` and called through calls.py's table) makes builds,
indexing, sums and, for scans and products, folds: their derivatives are those of these terms,
so no Jacobian is a matrix. Arrays are of rank 1 and 2; a result of rank 3 is refused where it
is made. Shapes are NumPy's: the shape facts of every array made (which axes have length 1)
come from the sizes of its builds (shapes.py), and every size NumPy checks is checked once per
call, with NumPy's message, by a ``check`` (checks.py) unless it is proven while compiling.

Arguments that choose a shape (an axis, ``keepdims``, ``endpoint``, a ``reshape``'s shape
when it is a constant) must be constants; lengths (``np.eye(n)``, ``np.full((n, m), x)``) may
be Int values known only when the function runs.
"""
from __future__ import annotations

import ast
import math

import numpy as np

from ..errors import CatadTypeError
from ..lang.fold import Fold, WhileCount
from ..lang.terms import FALSE, Build, Const, Get, If, Let, Term, Tuple, make_lets
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Type, Vec, rank, scalar_of, vec_of
from ..primitives import prim
from .calls import _arity, display
from .common import ONE, ZERO, all_, and_, index_chain, is_array

_MAX_RANK = 2


# ------------------------------------------------------------ arguments

def bind_args(lw, obj, node, args: list, kwargs: dict, names: tuple, required: int = 1) -> dict:
    """NumPy's parameters `names` of obj bound to the call's positional args and keywords
    (syntax nodes, or terms for a method's receiver), as Python binds them."""
    name = display(obj)
    if len(args) > len(names):
        lw.fail(node, name, f"{name}() takes at most {len(names)} argument(s) here ({', '.join(names)}), "
                            f"got {len(args)}", CatadTypeError)
    out = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in out:
            lw.fail(v, name, f"{name}() got multiple values for argument {k!r}", CatadTypeError)
        out[k] = v
    missing = [n for n in names[:required] if n not in out]
    if missing:
        lw.fail(node, name, f"{name}() missing required argument {missing[0]!r}", CatadTypeError)
    return out


def _is_none(a) -> bool:
    return a is None or isinstance(a, ast.Constant) and a.value is None


def static_int(lw, a, obj, what: str) -> int:
    t = lw.arg(a)
    if not (isinstance(t, Const) and t.type == Int):
        lw.fail(a if isinstance(a, ast.AST) else None, what,
                f"{what} of {display(obj)} must be an integer constant, got {_shown(t)}")
    return int(t.value)


def static_bool(lw, a, obj, what: str, default: bool) -> bool:
    if _is_none(a):
        return default
    t = lw.arg(a)
    if not (isinstance(t, Const) and t.type in (Bool, Int)):
        lw.fail(a, what, f"{what} of {display(obj)} must be True or False, got {_shown(t)}")
    return bool(t.value)


def _shown(t: Term) -> str:
    return repr(t.value) if isinstance(t, Const) else f"a {t.type} computed while the function runs"


def static_axes(lw, a, obj, r: int, what: str = "axis"):
    """An axis argument: None (every axis), or a tuple of axes of a rank-r array as NumPy
    reads them (negative ones from the end). An axis out of range, or given twice, is NumPy's
    error when the call is reached (it may sit in a branch not taken): then an AxisError-like
    ``Failure``."""
    if _is_none(a):
        return None
    t = lw.arg(a)
    items = list(t.items) if isinstance(t, Tuple) else [t]
    if not all(isinstance(x, Const) and x.type == Int for x in items):
        lw.fail(a, what, f"{what} of {display(obj)} must be an integer constant or a tuple of them, "
                         f"got {_shown(t)}")
    out = []
    for x in items:
        k = int(x.value)
        if not -r <= k < r:
            return Failure(lw.loc(a), display(obj), f"axis {k} is out of bounds for array of dimension {r}",
                           "bounds")
        if k % r in out:
            return Failure(lw.loc(a), display(obj), f"duplicate value in {what!r}")
        out.append(k % r)
    return tuple(out)


class Failure:
    """An error NumPy raises when the call runs: a check that fails, then a value of the
    result's type that is never computed."""

    def __init__(self, loc, construct: str, message: str, kind: str = "shape"):
        self.loc, self.construct, self.message, self.kind = loc, construct, message, kind

    def term(self, lw, ty: Type) -> Term:
        binds = lw.b.check(FALSE, (), self.loc, self.construct, self.message.replace("{", "{{").replace("}", "}}"),
                           self.kind)
        return make_lets(binds, placeholder(lw, ty, self.loc))


def placeholder(lw, ty: Type, loc=None) -> Term:
    """A value of type ty (zeros, empty arrays) where the value is never read."""
    if isinstance(ty, Vec):
        return Build(ZERO, lw.b.var(Int, loc, "_i"), placeholder(lw, ty.elem, loc), loc)
    if isinstance(ty, TupleT):
        return Tuple(tuple(placeholder(lw, x, loc) for x in ty.items), loc)
    return Const({Float: 0.0, Int: 0, Bool: False}[ty], ty, loc)


def array_arg(lw, a, obj, node, what: str = "an array") -> Term:
    """An argument that must be an array of rank 1 or 2 (a list display or a list becomes one)."""
    t = lw.arg(a)
    if lw.is_list(t):
        t = t.replace()
    if not is_array(t):
        lw.fail(node, display(obj), f"{display(obj)}() takes {what}, got a {t.type}", CatadTypeError)
    return t


def refuse_rank(lw, node, obj, r: int) -> None:
    if r > _MAX_RANK:
        lw.fail(node, display(obj), f"{display(obj)}() here makes an array of rank {r}; catad's arrays have "
                                    f"rank 1 or 2", CatadTypeError)


def dtype_of(lw, a, obj, default: Type | None) -> Type | None:
    """dtype=float, int or bool (NumPy's and Python's names), or default when absent."""
    if _is_none(a):
        return default
    o = lw.static(a)
    if o in (float, np.float64, "float64", "float"):
        return Float
    if o in (int, np.int64, "int64", "int"):
        return Int
    if o in (bool, np.bool_, "bool"):
        return Bool
    lw.fail(a, "dtype", f"dtype of {display(obj)} must be float, int or bool")


def int_arg(lw, a, obj, what: str) -> Term:
    t = lw.arg(a)
    if t.type != Int:
        lw.fail(a if isinstance(a, ast.AST) else None, display(obj),
                f"{what} of {display(obj)} must be an Int, got a {t.type}", CatadTypeError)
    return t


def shape_arg(lw, a, obj) -> list[Term]:
    """A shape: an Int, or a tuple or list of Ints (.shape of an array too)."""
    if isinstance(a, (ast.Tuple, ast.List)):
        dims = [lw.expr(e) for e in a.elts]
    else:
        t = lw.arg(a)
        if isinstance(t.type, TupleT) and not isinstance(t, Tuple):
            dims = [Get(k, t, lw.loc(a)) for k in range(len(t.type.items))]  # small: Gets of an atom
            if not isinstance(t, (ast.Name,)) and not _atomic(t):
                lw.fail(a, display(obj), f"the shape given to {display(obj)}() must be a tuple written out or "
                                         "a variable", CatadTypeError)
        else:
            dims = list(t.items) if isinstance(t, Tuple) else [t]
    if not dims or any(d.type != Int for d in dims):
        lw.fail(a, display(obj), f"the shape given to {display(obj)}() must be Ints, got "
                                 f"({', '.join(str(d.type) for d in dims)})", CatadTypeError)
    refuse_rank(lw, a, obj, len(dims))
    return dims


def _atomic(t: Term) -> bool:
    from ..lang.terms import is_atom
    return is_atom(t)


def nonneg_check(lw, ns: list[Term], loc, construct: str, message: str = "negative dimensions are not allowed"):
    conds = [prim("le", ZERO, n, loc=loc) for n in ns if not lw.b.shapes.at_most(ZERO, n)]
    return lw.b.check(all_(conds), tuple(ns), loc, construct, message)


def builds(lw, sizes: list[Term], body, loc) -> Term:
    """build(s0, \\i0. build(s1, \\i1. ... body(i0, i1, ...)))."""
    idx = [lw.b.var(Int, loc, "_i") for _ in sizes]
    out = body(*idx)
    for n, i in reversed(list(zip(sizes, idx))):
        out = Build(n, i, out, loc)
    return out


def with_shape(lw, t: Term, dims: tuple, body, loc) -> Term:
    """let v = t in body(v), v known to have the shape `dims` (Dims over values in scope), as a
    fold's result has its initial value's shape."""
    v = lw.b.var(t.type, loc)
    lw.b.shapes.dims[v.name] = dims
    return Let(v, t, body(v), loc)


# ------------------------------------------------------------ creation

def _unit(ty: Type, value, loc) -> Const:
    return Const({Float: float, Int: int, Bool: bool}[ty](value), ty, loc)


def h_eye(lw, obj, node, args, kwargs):
    """np.eye(N, M=None, k=0, dtype=float), np.identity(n, dtype=float)."""
    loc = lw.loc(node)
    if obj is np.identity:
        p = bind_args(lw, obj, node, args, kwargs, ("n", "dtype"))
        p["N"] = p.pop("n")
    else:
        p = bind_args(lw, obj, node, args, kwargs, ("N", "M", "k", "dtype"))
    ty = dtype_of(lw, p.get("dtype"), obj, Float)
    n = int_arg(lw, p["N"], obj, "N")
    m = n if _is_none(p.get("M")) else int_arg(lw, p["M"], obj, "M")
    k = ZERO if _is_none(p.get("k")) else int_arg(lw, p["k"], obj, "k")

    def body(n, m, k):
        chk = nonneg_check(lw, [n, m], loc, display(obj))

        def elem(i, j):
            on = prim("eq", j, i if isinstance(k, Const) and k.value == 0 else prim("add", i, k, loc=loc), loc=loc)
            return on if ty == Bool else If(on, _unit(ty, 1, loc), _unit(ty, 0, loc), loc)
        return make_lets(chk, builds(lw, [n, m], elem, loc))
    return lw.b.share_all([n, m, k], body, loc)


def h_full(lw, obj, node, args, kwargs):
    """np.full(shape, fill_value, dtype=None) of a scalar fill value."""
    loc = lw.loc(node)
    p = bind_args(lw, obj, node, args, kwargs, ("shape", "fill_value", "dtype"), 2)
    dims = shape_arg(lw, p["shape"], obj)
    fill = lw.arg(p["fill_value"])
    if is_array(fill) or fill.type not in (Int, Float, Bool):
        lw.fail(p["fill_value"], display(obj), f"the fill value of {display(obj)}() must be a number, got a "
                f"{fill.type}", CatadTypeError, "for an array, broadcast it: x + np.zeros(shape)")
    fill = _as_dtype(lw, fill, dtype_of(lw, p.get("dtype"), obj, None), p.get("dtype"), obj, loc)

    def body(*atoms):
        *ns, f = atoms
        return make_lets(nonneg_check(lw, ns, loc, display(obj)), builds(lw, ns, lambda *ix: f, loc))
    return lw.b.share_all(dims + [fill], body, loc)


def _as_dtype(lw, t: Term, ty: Type | None, where, obj, loc) -> Term:
    if ty is None or scalar_of(t.type) == ty:
        return t
    if ty == Float:
        return lw.b.to_float(t, loc)
    lw.fail(where, "dtype", f"{display(obj)}() cannot convert a {scalar_of(t.type)} to {ty} here", CatadTypeError)


def h_full_like(lw, obj, node, args, kwargs):
    """np.full_like(a, fill_value): a's shape and dtype."""
    loc = lw.loc(node)
    p = bind_args(lw, obj, node, args, kwargs, ("a", "fill_value", "dtype"), 2)
    a = array_arg(lw, p["a"], obj, node)
    fill = lw.arg(p["fill_value"])
    if is_array(fill) or fill.type not in (Int, Float, Bool):
        lw.fail(p["fill_value"], display(obj), f"the fill value of {display(obj)}() must be a number, got a "
                f"{fill.type}", CatadTypeError)
    ty = dtype_of(lw, p.get("dtype"), obj, scalar_of(a.type))
    if fill.type != ty:
        if ty == Float:
            fill = lw.b.to_float(fill, loc)
        else:
            lw.fail(p["fill_value"], display(obj), f"{display(obj)}() of an array of {ty} with a {fill.type} fill "
                    "value converts it, which is not supported", CatadTypeError, "pass dtype=float")
    return lw.b.share(fill, lambda f: lw.b.elementwise(lambda x: f, [a], loc), loc)


def h_linspace(lw, obj, node, args, kwargs):
    """np.linspace(start, stop, num=50, endpoint=True) of scalars, computed as NumPy does:
    k * step + start with step = (stop - start) / div, and the last element stop."""
    loc = lw.loc(node)
    p = bind_args(lw, obj, node, args, kwargs, ("start", "stop", "num", "endpoint"), 2)
    ends = [lw.b.to_float(lw.arg(p[k]), loc) for k in ("start", "stop")]
    if any(t.type != Float for t in ends):
        lw.fail(node, display(obj), f"{display(obj)}() takes scalar start and stop, got "
                                    f"{ends[0].type} and {ends[1].type}", CatadTypeError)
    num = Const(50, Int, loc) if _is_none(p.get("num")) else int_arg(lw, p["num"], obj, "num")
    endpoint = static_bool(lw, p.get("endpoint"), obj, "endpoint", True)
    f = lambda x: lw.b.to_float(x, loc)
    zero = Const(0.0, Float, loc)

    def body(start, stop, n):
        chk = lw.b.check(prim("le", ZERO, n, loc=loc), (n,), loc, display(obj),
                         "Number of samples, {0}, must be non-negative.")

        def spaced(div, delta):
            def with_step(step):
                def elem(k):
                    # NumPy: k * step, or (k / div) * delta where step underflows to 0, or k * delta
                    # where div is 0; then + start
                    scaled = If(prim("eq", step, zero, loc=loc),
                                prim("mul", prim("div", f(k), f(div), loc=loc), delta, loc=loc),
                                prim("mul", f(k), step, loc=loc), loc)
                    value = prim("add", If(prim("lt", ZERO, div, loc=loc), scaled,
                                           prim("mul", f(k), delta, loc=loc), loc), start, loc=loc)
                    if not endpoint:
                        return value
                    return If(and_(prim("eq", k, div, loc=loc), prim("lt", ONE, n, loc=loc)), stop, value, loc)
                return builds(lw, [n], elem, loc)
            step = If(prim("lt", ZERO, div, loc=loc), prim("div", delta, f(div), loc=loc), delta, loc)
            return lw.b.share(step, with_step, loc)
        div = prim("sub", n, ONE, loc=loc) if endpoint else n
        return make_lets(chk, lw.b.share_all([div, prim("sub", stop, start, loc=loc)], spaced, loc))
    return lw.b.share_all(ends + [num], body, loc)


def h_angle(lw, obj, node, args, kwargs):
    """np.radians / np.deg2rad and np.degrees / np.rad2deg: NumPy's x * (pi / 180), x * (180 / pi)."""
    _arity(lw, obj, node, args, 1)
    t, loc = lw.arg(args[0]), lw.loc(node)
    k = Const(math.pi / 180.0 if obj in (np.radians, np.deg2rad) else 180.0 / math.pi, Float, loc)
    f = lambda x: prim("mul", lw.b.to_float(x, loc), k, loc=loc)
    return lw.b.elementwise(f, [t], loc) if is_array(t) else f(t)


TABLE = [
    ((np.eye, np.identity), h_eye, ("M", "k", "dtype")),
    ((np.full,), h_full, ("shape", "fill_value", "dtype")),
    ((np.full_like,), h_full_like, ("a", "fill_value", "dtype")),
    ((np.linspace,), h_linspace, ("start", "stop", "num", "endpoint")),
    ((np.radians, np.deg2rad, np.degrees, np.rad2deg), h_angle, ()),
]


# ------------------------------------------------------------ shape

def insert_axes(lw, t: Term, positions: list[int], loc) -> Term:
    """t with an axis of length 1 at each of `positions` of the result (x[:, None],
    np.expand_dims): a build of size 1 there, whose index reads nothing."""
    if not positions:
        return t
    out_rank = rank(t.type) + len(positions)

    def body(a):
        sizes, axis = [], 0
        for q in range(out_rank):
            if q in positions:
                sizes.append(Const(1, Int, loc))
            else:
                sizes.append(lw.b.size(a, axis, loc))
                axis += 1
        return builds(lw, sizes, lambda *ix: index_chain(a, [i for q, i in enumerate(ix) if q not in positions],
                                                         loc), loc)
    return lw.b.share(t, body, loc)
