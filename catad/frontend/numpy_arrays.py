"""NumPy's array creation, shape, joining and reduction functions as core terms.

Each handler (``h_*``, listed in ``TABLE`` and called through calls.py's table) makes builds,
indexing, sums and, for scans and products, folds: their derivatives are those of these terms,
so no Jacobian is a matrix. Arrays are of any rank (an axis is moved first, worked along and
moved back where a function works along one axis). Shapes are NumPy's: the shape facts of every array made (which axes have length 1)
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
from ..lang.terms import FALSE, TRUE, Build, Const, Get, If, Let, Term, Tuple, is_atom, make_lets
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Type, Vec, rank, scalar_of, vec_of
from ..primitives import prim
from .calls import _arity, display
from .common import ONE, ZERO, all_, and_, index_chain, is_array
from .shapes import fresh

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


def static_axes(lw, a, obj, r: int, what: str = "axis", shown: int | None = None):
    """An axis argument: None (every axis), or a tuple of axes of a rank-r array as NumPy
    reads them (negative ones from the end). An axis out of range, or given twice, is NumPy's
    error when the call is reached (it may sit in a branch not taken): then an AxisError-like
    ``Failure``, which names the array's rank as `shown` (a number reduced as a vector of one:
    NumPy's 0)."""
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
            return Failure(lw.loc(a), display(obj), f"axis {k} is out of bounds for array of dimension "
                           f"{r if shown is None else shown}", "bounds")
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
    """An argument that must be an array (a list display or a list becomes one)."""
    t = lw.arg(a)
    if lw.is_list(t):
        t = t.replace()
    if not is_array(t):
        lw.fail(node, display(obj), f"{display(obj)}() takes {what}, got a {t.type}", CatadTypeError)
    return t


def dtype_of(lw, a, obj, default: Type | None) -> Type | None:
    """dtype=float, int or bool (NumPy's and Python's names), or default when absent."""
    if _is_none(a):
        return default
    o = a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else lw.static(a)  # dtype="float64"
    if o in (float, np.float64, "float64", "float", "f8"):
        return Float
    if o in (int, np.int64, "int64", "int", "i8"):
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
            if not is_atom(t):  # its items are read once each: bound first, not computed per item
                lw.fail(a, display(obj), f"the shape given to {display(obj)}() must be a tuple written out or "
                                         "a variable", CatadTypeError)
            dims = [Get(k, t, lw.loc(a)) for k in range(len(t.type.items))]
        else:
            dims = list(t.items) if isinstance(t, Tuple) else [t]
    if not dims or any(d.type != Int for d in dims):
        lw.fail(a, display(obj), f"the shape given to {display(obj)}() must be Ints, got "
                                 f"({', '.join(str(d.type) for d in dims)})", CatadTypeError)
    return dims


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


def zero_of(ty: Type, loc) -> Const:
    """The zero of a scalar type (0.0, 0 or False): what NumPy fills with in an array of that dtype."""
    return _unit(ty, 0, loc)


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
    if scalar_of(t.type) == Bool:  # as np.sin of Bools: NumPy's value is a float16, which catad has not
        name = display(obj)
        lw.fail(node, name, f"{name}() of a Bool computes in float16 in NumPy (the smallest float holding a "
                            "bool), which catad does not have", CatadTypeError,
                f"convert it to numbers first, e.g. {name}(mask * 1.0), a float64 where NumPy's of Bools is a float16")
    k = Const(math.pi / 180.0 if obj in (np.radians, np.deg2rad) else 180.0 / math.pi, Float, loc)
    f = lambda x: prim("mul", lw.b.to_float(x, loc), k, loc=loc)
    return lw.b.elementwise(f, [t], loc) if is_array(t) else f(t)


def h_math_angle(lw, obj, node, args, kwargs):
    """math.radians(x), math.degrees(x) of a number: Python's float x * (pi / 180), x * (180 / pi)
    (CPython's degToRad and radToDeg, NumPy's constants too)."""
    _arity(lw, obj, node, args, 1)
    t, loc = lw.arg(args[0]), lw.loc(node)
    name = display(obj)
    if is_array(t) or t.type not in (Int, Float, Bool):
        lw.fail(node, name, f"{name}() takes a number, got a {t.type}", CatadTypeError,
                hint=f"use np.{obj.__name__} for an array")
    k = Const(math.pi / 180.0 if obj is math.radians else 180.0 / math.pi, Float, loc)
    return lw.as_py(prim("mul", lw.b.to_float(t, loc), k, loc=loc))


def h_math_fmod(lw, obj, node, args, kwargs):
    """math.fmod(x, y) of numbers: Python's float, C's fmod (the sign of x; x itself for an
    infinite y), and CPython's ValueError where that is NaN of x and y not NaN (y == 0, x
    infinite)."""
    _arity(lw, obj, node, args, 2)
    ts, loc = [lw.arg(a) for a in args], lw.loc(node)
    for t in ts:
        if is_array(t) or t.type not in (Int, Float, Bool):
            lw.fail(node, "math.fmod", f"math.fmod() takes numbers, got a {t.type}", CatadTypeError,
                    hint="use np.fmod for arrays")
    x, y = (lw.b.to_float(t, loc) for t in ts)

    def checked(a, b):
        def check(r):
            domain = and_(prim("ne", r, r, loc=loc), and_(prim("eq", a, a, loc=loc), prim("eq", b, b, loc=loc)))
            return make_lets(lw.b.check(prim("not", domain, loc=loc), (), loc, "math.fmod", "math domain error",
                                        "domain"), r)
        return lw.b.share(prim("fmod", a, b, loc=loc), check, loc)
    return lw.as_py(lw.b.share_all([x, y], checked, loc))


TABLE = [
    ((math.radians, math.degrees), h_math_angle, ()),
    ((math.fmod,), h_math_fmod, ()),
    ((np.eye,), h_eye, ("N", "M", "k", "dtype")),
    ((np.identity,), h_eye, ("n", "dtype")),
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


def _flat_reader(lw, a: Term, loc):
    """k -> the element at flat (C-order) position k of atom a (see unravel)."""
    r = rank(a.type)
    if r == 1:
        return lambda k: prim("index", k, a, loc=loc)
    sizes = [lw.b.size(a, q, loc) for q in range(r)]
    return lambda k: index_chain(a, unravel(k, sizes, loc), loc)


def unravel(k: Term, sizes: list[Term], loc) -> list[Term]:
    """The indices of flat (C-order) position k in an array of these sizes (np.unravel_index):
    index q is (k // stride_q) % size_q, stride_q the product of the sizes after q (no % for
    axis 0)."""
    idx, stride = [], None
    for q in range(len(sizes) - 1, -1, -1):
        at = k if stride is None else prim("floordiv", k, stride, loc=loc)
        idx.append(at if q == 0 else prim("mod", at, sizes[q], loc=loc))
        stride = sizes[q] if stride is None else prim("mul", stride, sizes[q], loc=loc)
    return idx[::-1]


def _flat_index(ix: tuple, sz: tuple, loc) -> Term:
    """The C-order flat position of index ix in an array of sizes sz: ((i0 * s1 + i1) * s2 + i2)..."""
    out = ix[0]
    for i, n in zip(ix[1:], sz[1:]):
        out = prim("add", prim("mul", out, n, loc=loc), i, loc=loc)
    return out


def raveled(lw, t: Term, loc) -> Term:
    """np.ravel(t): a number a vector of one."""
    if not is_array(t):
        return Build(Const(1, Int), lw.b.var(Int, loc, "_i"), t, loc)
    return t if rank(t.type) == 1 else reshape(lw, t, [Const(-1, Int)], loc, np.ravel)


def reshape(lw, t: Term, dims: list[Term], loc, obj, shown_reversed: bool = False) -> Term:
    """t with the shape dims (one may be the constant -1: what the size leaves), read in C
    order; NumPy's error when the sizes disagree (naming dims reversed: an F-order reshape's)."""
    name = display(obj)
    unknown = [q for q, d in enumerate(dims) if isinstance(d, Const) and d.value == -1]
    if len(unknown) > 1:
        return Failure(loc, name, "can only specify one unknown dimension").term(lw, vec_of(scalar_of(t.type),
                                                                                             len(dims)))

    def body(a, *ds):
        n = lw.b.count(a, loc)
        known = [d for q, d in enumerate(ds) if q not in unknown]
        prod = known[0] if known else ONE
        for d in known[1:]:
            prod = prim("mul", prod, d, loc=loc)
        # the shape as NumPy prints it: (3,4), (3,), and for a -1 (4), (4,newaxis) or (2,newaxis,4)
        # (a leading -1 is not shown)
        field = {q: k + 1 for k, q in enumerate(q for q in range(len(ds)) if q not in unknown)}
        parts = []
        for j, q in enumerate(reversed(range(len(ds))) if shown_reversed else range(len(ds))):
            if q in unknown:
                if j:
                    parts.append("newaxis")
            else:
                parts.append("{%d}" % field[q])
        shown = "(" + ",".join(parts) + ("," if len(parts) == 1 and not unknown else "") + ")"
        message = "cannot reshape array of size {0} into shape " + shown
        nonneg = [prim("le", ZERO, d, loc=loc) for d in known if not lw.b.shapes.at_most(ZERO, d)]
        if unknown:
            fits = and_(prim("ne", prod, ZERO, loc=loc), prim("eq", prim("mod", n, prod, loc=loc), ZERO, loc=loc))
        else:
            fits = prim("eq", prod, n, loc=loc) if not lw.b.shapes.equal(prod, n) else None
        conds = nonneg + ([fits] if fits is not None else [])
        chk = lw.b.check(all_(conds), (n, *known), loc, name, message)
        sizes = list(ds)

        def made(*sz):
            read = _flat_reader(lw, a, loc)
            return builds(lw, list(sz), lambda *ix: read(_flat_index(ix, sz, loc)), loc)
        if unknown:
            sizes[unknown[0]] = prim("floordiv", n, prod, loc=loc)
        return make_lets(chk, lw.b.share_all(sizes, made, loc))
    return lw.b.share_all([t] + list(dims), body, loc)


def _order(lw, p: dict, obj) -> str:
    """The order= of a reshape: 'C' (rows first, the default) or 'F' (columns first). 'A' and 'K'
    follow the array's memory layout, which a compiled function does not see."""
    a = p.get("order")
    if a is None or isinstance(a, ast.Constant) and a.value is None:
        return "C"
    v = a.value if isinstance(a, ast.Constant) else lw.static(a)
    if v not in ("C", "F"):
        lw.fail(a, display(obj), f"order={v!r} of {display(obj)}() is not supported; 'C' and 'F' are ('A' and "
                "'K' follow the array's memory layout)", CatadTypeError, hint="order='C' or order='F'")
    return v


def _reshaped(lw, a: Term, dims: list, order: str, loc, obj) -> Term:
    """a reshaped to dims in C or F order: F order is C order with the axes of a and of the
    result reversed (np.reshape(a, s, order='F') == np.reshape(a.T, s[::-1]).T)."""
    if order == "C":
        return reshape(lw, a, dims, loc, obj)
    out = reshape(lw, lw.b.transpose(a, loc) if rank(a.type) > 1 else a, list(reversed(dims)), loc, obj, True)
    return lw.b.transpose(out, loc) if rank(out.type) > 1 else out


def h_reshape(lw, obj, node, args, kwargs):
    """np.reshape(a, shape, order='C'), a.reshape(shape) and a.reshape(d0, d1, order=...)."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "shape", "order"), 2)
    a = array_arg(lw, p["a"], obj, node)
    dims = shape_arg(lw, p["shape"], obj)
    return _reshaped(lw, a, dims, _order(lw, p, obj), lw.loc(node), obj)


def h_ravel(lw, obj, node, args, kwargs):
    """np.ravel(a, order='C'), a.ravel(), a.flatten(): the elements in C (or F) order."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "order"), 1)
    a = array_arg(lw, p["a"], obj, node)
    if rank(a.type) == 1:
        return a
    return _reshaped(lw, a, [Const(-1, Int)], _order(lw, p, obj), lw.loc(node), obj)


def h_expand_dims(lw, obj, node, args, kwargs):
    """np.expand_dims(a, axis): a new axis of length 1."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "axis"), 2)
    a, loc = array_arg(lw, p["a"], obj, node), lw.loc(node)
    t = lw.arg(p["axis"])
    n_new = len(t.items) if isinstance(t, Tuple) else 1
    out_rank = rank(a.type) + n_new
    axes = static_axes(lw, p["axis"], obj, out_rank)
    if isinstance(axes, Failure):
        return axes.term(lw, vec_of(scalar_of(a.type), out_rank))
    return insert_axes(lw, a, sorted(axes), loc)


def h_squeeze(lw, obj, node, args, kwargs):
    """np.squeeze(a, axis=None): without the axes of length 1 (axis=None: those known to be 1
    where the function is compiled, the pattern of its arguments' length-1 axes)."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "axis"))
    a, loc, name = array_arg(lw, p["a"], obj, node), lw.loc(node), display(obj)
    r = rank(a.type)
    axes = static_axes(lw, p.get("axis"), obj, r)
    if isinstance(axes, Failure):
        return axes.term(lw, a.type)

    def body(x):
        shape = lw.b.shape(x)
        if axes is None:
            if any(d.one is None for d in shape):
                lw.fail(node, name, f"{name}() without axis needs to know which axes have length 1, and the "
                        "length of an axis of this array is not known while compiling", hint="give axis=")
            gone = [q for q, d in enumerate(shape) if d.one]
            chk = []
        else:
            gone = list(axes)
            conds = [prim("eq", shape[q].size, ONE, loc=loc) for q in gone if shape[q].one is not True]
            chk = lw.b.check(all_(conds), (), loc, name,
                             "cannot select an axis to squeeze out which has size not equal to one")
        if len(gone) == r:
            return make_lets(chk, index_chain(x, [ZERO] * r, loc))  # NumPy gives a 0-d array: a scalar here
        kept = [q for q in range(r) if q not in gone]
        return make_lets(chk, builds(lw, [lw.b.size(x, q, loc) for q in kept], lambda *ix: index_chain(
            x, [ix[kept.index(q)] if q in kept else ZERO for q in range(r)], loc), loc))
    return lw.b.share(a, body, loc)


def permute(lw, a: Term, perm, loc) -> Term:
    """np.transpose(a, perm): axis q of the result is axis perm[q] of a."""
    r = rank(a.type)
    perm = tuple(perm)
    if perm == tuple(range(r)):
        return a
    if perm == tuple(range(r - 1, -1, -1)):
        return lw.b.transpose(a, loc)
    return lw.b.share(a, lambda x: builds(lw, [lw.b.size(x, perm[q], loc) for q in range(r)], lambda *ix: index_chain(
        x, [ix[perm.index(d)] for d in range(r)], loc), loc), loc)


def to_front(r: int, axis: int) -> tuple:
    """The permutation moving `axis` of a rank-r array first, the others in order."""
    return (axis,) + tuple(d for d in range(r) if d != axis)


def inverse(perm) -> tuple:
    return tuple(sorted(range(len(perm)), key=lambda q: perm[q]))


def _renamed(f: Failure, message: str) -> Failure:
    return Failure(f.loc, f.construct, message, f.kind) if f.message.startswith("duplicate") else f


def h_transpose(lw, obj, node, args, kwargs):
    """np.transpose(a, axes=None), np.permute_dims, a.transpose(*axes)."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "axes"))
    a = lw.arg(p["a"])
    if not is_array(a):
        lw.fail(node, display(obj), f"{display(obj)}() takes an array, got a {a.type}", CatadTypeError)
    r = rank(a.type)
    if _is_none(p.get("axes")):
        return lw.b.transpose(a, lw.loc(node))
    t = lw.arg(p["axes"])
    n = len(t.items) if isinstance(t, Tuple) else 1
    if n != r:
        return Failure(lw.loc(node), display(obj), "axes don't match array").term(lw, a.type)
    axes = static_axes(lw, p["axes"], obj, r, "axes")
    if isinstance(axes, Failure):
        return _renamed(axes, "repeated axis in transpose").term(lw, a.type)
    return permute(lw, a, axes, lw.loc(node))


def h_swapaxes(lw, obj, node, args, kwargs):
    """np.swapaxes(a, axis1, axis2) and .swapaxes: two axes exchanged."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "axis1", "axis2"), 3)
    a = array_arg(lw, p["a"], obj, node)
    r = rank(a.type)
    got = []
    for k in ("axis1", "axis2"):
        ax = static_axes(lw, p[k], obj, r, k)
        if isinstance(ax, Failure):
            return ax.term(lw, a.type)
        if len(ax) != 1:
            lw.fail(p[k], display(obj), f"{k} of {display(obj)}() must be one integer", CatadTypeError)
        got.append(ax[0])
    perm = list(range(r))
    perm[got[0]], perm[got[1]] = perm[got[1]], perm[got[0]]
    return permute(lw, a, perm, lw.loc(node))


def h_moveaxis(lw, obj, node, args, kwargs):
    """np.moveaxis(a, source, destination) of an axis or a tuple of them, as NumPy orders them."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "source", "destination"), 3)
    a = array_arg(lw, p["a"], obj, node)
    r = rank(a.type)
    got = []
    for k in ("source", "destination"):
        ax = static_axes(lw, p[k], obj, r, k)
        if isinstance(ax, Failure):
            return _renamed(ax, f"repeated axis in `{k}` argument").term(lw, a.type)
        got.append(ax)
    source, destination = got
    if len(source) != len(destination):
        return Failure(lw.loc(node), display(obj), "`source` and `destination` arguments must have the same number "
                       "of elements").term(lw, a.type)
    order = [d for d in range(r) if d not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return permute(lw, a, order, lw.loc(node))


def h_shape(lw, obj, node, args, kwargs):
    """np.shape(a), np.size(a), np.ndim(a) of an array or a scalar."""
    _arity(lw, obj, node, args, 1)
    t, loc = lw.arg(args[0]), lw.loc(node)
    r = rank(t.type)
    if not is_array(t) and t.type not in (Int, Float, Bool):
        lw.fail(node, display(obj), f"{display(obj)}() takes an array or a number, got a {t.type}", CatadTypeError)
    if obj is np.ndim:
        return Const(r, Int, loc)
    if obj is np.size:
        return lw.b.share(t, lambda a: lw.b.count(a, loc), loc) if r else Const(1, Int, loc)
    return lw.b.share(t, lambda a: Tuple(tuple(lw.b.size(a, k, loc) for k in range(r)), loc), loc)


TABLE += [
    ((np.reshape,), h_reshape, ("a", "shape", "order")),
    ((np.ravel,), h_ravel, ("a", "order")),
    ((np.expand_dims,), h_expand_dims, ("a", "axis")),
    ((np.squeeze,), h_squeeze, ("a", "axis")),
    ((np.transpose, np.permute_dims), h_transpose, ("a", "axes")),
    ((np.swapaxes,), h_swapaxes, ("a", "axis1", "axis2")),
    ((np.moveaxis,), h_moveaxis, ("a", "source", "destination")),
    ((np.shape, np.size, np.ndim), h_shape, ()),
]


def method(lw, base: Term, attr: str, node: ast.Call):
    """An array method NumPy has as a function (a.reshape(2, 3), a.prod(axis=0), ...) as a call
    of that function, or None for a method this module does not know."""
    fn = METHODS.get(attr)
    if fn is None:
        return None
    args = list(node.args)
    if attr in ("reshape", "transpose") and len(args) > 1:  # a.reshape(2, 3): the shape written out
        args = [ast.copy_location(ast.Tuple(elts=args, ctx=ast.Load()), args[0])]
    from .calls import call
    return call(lw, fn, node, [base, *args])


def astype(lw, base: Term, node: ast.Call) -> Term:
    """a.astype(dtype) of float, int or bool (NumPy's and Python's names): a new array, converted
    as NumPy casts: numbers to bools by != 0, bools to 1 and 0, floats to ints toward 0. A NaN,
    an infinity or a float past int64 made an int is refused at run time (NumPy's value there is
    the C cast's, undefined: int64's least on x86, with a warning)."""
    if len(node.args) + len(node.keywords) != 1 or node.keywords and node.keywords[0].arg != "dtype":
        lw.fail(node, ".astype()", ".astype() is supported with its dtype alone (float, int or bool)")
    loc, where = lw.loc(node), node.args[0] if node.args else node.keywords[0].value
    ty, mine = dtype_of(lw, where, np.ndarray.astype, None), scalar_of(base.type)
    if ty == mine:
        return base.replace()  # a new array: not a view, nor marked as the base is
    if ty == Float:
        return lw.b.to_float(base, loc)
    if ty == Bool:
        from .calls import truth
        return truth(lw, base, loc)
    if mine == Bool:
        return lw.b.numeric(base, Int, loc)

    def truncated(x):
        ok = prim("lt", prim("abs", x, loc=loc), Const(2.0 ** 63, Float), loc=loc)  # (False for NaN)
        binds = lw.b.check(ok, (x,), loc, ".astype(int)", ".astype(int) of {0}: NumPy's value is undefined "
                           "(not finite, or past int64)", "range")
        return make_lets(binds, prim("trunc_int", x, loc=loc))
    return lw.b.elementwise(truncated, [base], loc)


METHODS = {"reshape": np.reshape, "ravel": np.ravel, "flatten": np.ravel, "transpose": np.transpose,
           "squeeze": np.squeeze, "swapaxes": np.swapaxes}


# ------------------------------------------------------------ folds in log2(n) steps
#
# A product or a running sum/product needs each element combined with those before it. A fold
# over the elements would run n Python iterations; instead these fold over ceil(log2 n) steps,
# each a whole-array build: a product pairs neighbours, halving the array (O(n) work in all),
# and a running sum or product adds to each element the one `stride` before it, doubling the
# stride (Hillis and Steele's scan: O(n log n) work). Reverse mode keeps each step's array, so
# n log n numbers for a scan. The order of the additions is not NumPy's one by one, so the last
# bits of a running sum may differ from NumPy's.

def _steps(lw, start: Term, cond, step, loc) -> Term:
    """The number of steps s -> step(s) from start while cond(s) (a WhileCount)."""
    cv, sv = lw.b.var(TupleT((Int, Int)), loc, "_s"), lw.b.var(TupleT((Int, Int)), loc, "_s")
    return WhileCount(start, cv, cond(Get(0, cv, loc)), sv, step(Get(0, sv, loc)), loc)


def _rows_op(lw, op, x: Term, i: Term, y: Term, j: Term, take_y: Term, loc) -> Term:
    """Element i of x combined with element j of y where take_y holds, else element i of x;
    elementwise along the other axes for arrays of rank 2 and more."""
    ks = [lw.b.var(Int, loc, "_j") for _ in range(rank(x.type) - 1)]
    xi, yj = index_chain(x, [i, *ks], loc), index_chain(y, [j, *ks], loc)
    out = If(take_y, op(yj, xi), xi, loc)
    for q, k in reversed(list(enumerate(ks, 1))):
        out = Build(prim("dim", x, Const(q, Int), loc=loc), k, out, loc)
    return out


def scan0(lw, a: Term, op, loc) -> Term:
    """The running op (earlier elements first) of atom a along axis 0: NumPy's cumsum/cumprod."""
    n = lw.b.size(a, 0, loc)
    count = _steps(lw, ONE, lambda s: prim("lt", s, n, loc=loc), lambda s: prim("mul", s, Const(2, Int), loc=loc),
                   loc)
    acc_t = TupleT((a.type, Int))
    fv = lw.b.var(TupleT((acc_t, Int)), loc, "_f")

    def step(state):
        def body(s, stride):
            i = lw.b.var(Int, loc, "_i")
            back = prim("max", prim("sub", i, stride, loc=loc), ZERO, loc=loc)  # read only where i >= stride
            out = Build(prim("size", s, loc=loc), i, _rows_op(lw, op, s, i, s, back, prim("le", stride, i, loc=loc),
                                                             loc), loc)
            return Tuple((out, prim("mul", stride, Const(2, Int), loc=loc)), loc)
        return lw.b.share(Get(0, state, loc), lambda s: lw.b.share(Get(1, state, loc), lambda st: body(s, st),
                                                                   loc), loc)
    ks = lw.b.var(Int, loc, "_k")
    body = lw.b.share(Get(0, fv, loc), step, loc)
    fold = lw.b.share(count, lambda c: Fold(Tuple((a, ONE), loc), Build(c, ks, ks, loc), fv, body, loc), loc)
    return _get_shaped(lw, fold, lw.b.shape(a), loc)


def _get_shaped(lw, fold: Term, dims: tuple, loc) -> Term:
    """Item 0 of a fold's (array, ...) result, known to have the shape dims."""
    return lw.b.share(fold, lambda r: with_shape(lw, Get(0, r, loc), dims, lambda v: v, loc), loc)


def tree0(lw, a: Term, op, unit: Term, loc) -> Term:
    """op of all the elements of atom a along axis 0 (rows combined elementwise), pairing
    neighbours. The elements are followed by one unit (op's identity, exactly: x * 1.0 is x), so
    that there is always an element 0 to read, also where a has none."""
    two = Const(2, Int, loc)
    n = lw.b.size(a, 0, loc)
    padded = prim("add", n, ONE, loc=loc)
    first = _along0(lw, a, padded, lambda i, read: If(prim("lt", i, n, loc=loc), read(i), unit, loc), loc)
    count = _steps(lw, padded, lambda s: prim("lt", ONE, s, loc=loc),
                   lambda s: prim("floordiv", prim("add", s, ONE, loc=loc), two, loc=loc), loc)
    fv = lw.b.var(TupleT((a.type, Int)), loc, "_f")

    def halve(s):
        m = prim("size", s, loc=loc)
        i = lw.b.var(Int, loc, "_i")
        first = prim("mul", two, i, loc=loc)
        second = prim("add", first, ONE, loc=loc)
        # element 2i with element 2i + 1 where there is one (read at a clamped index elsewhere)
        body = _rows_op(lw, lambda y, x: op(x, y), s, first, s, prim("min", second, prim("sub", m, ONE, loc=loc),
                                                                      loc=loc), prim("lt", second, m, loc=loc), loc)
        return Build(prim("floordiv", prim("add", m, ONE, loc=loc), two, loc=loc), i, body, loc)
    ks = lw.b.var(Int, loc, "_k")
    body = lw.b.share(Get(0, fv, loc), halve, loc)
    out = lw.b.share_all([first, count], lambda f, c: prim("index", ZERO, Fold(f, Build(c, ks, ks, loc), fv, body,
                                                                                loc), loc=loc), loc)
    if rank(a.type) == 1:
        return out
    return with_shape(lw, out, lw.b.shape(a)[1:], lambda v: v, loc)


# ------------------------------------------------------------ reductions

def keep_dims(lw, t: Term, r: int, axes, loc) -> Term:
    """A reduction's result with the reduced axes kept, of length 1 (keepdims=True)."""
    return insert_axes(lw, t, sorted(range(r) if axes is None else axes), loc)


def _float(lw, t: Term, loc) -> Term:
    return lw.b.to_float(t, loc)


def _combine(lw, name: str, loc):
    return lambda x, y: lw.b.arith(name, x, y, loc)


def along(lw, a: Term, axes, per_axis0, loc) -> Term:
    """A reduction of atom a over `axes` (None: all; sorted) made from per_axis0, the reduction
    of an atom along its axis 0: all axes are axis 0 again and again; some, one at a time from
    the last, each moved first."""
    r = rank(a.type)
    if axes is None or len(axes) == r:
        out = per_axis0(a)
        for _ in range(r - 1):
            out = lw.b.share(out, per_axis0, loc)
        return out
    return by_axis(lw, a, axes, lambda x, q: per_axis0(x) if q == 0 else lw.b.share(
        permute(lw, x, to_front(rank(x.type), q), loc), per_axis0, loc), loc)


def by_axis(lw, a: Term, axes, one, loc) -> Term:
    """A reduction over the sorted `axes` of atom a as one(x, q), x reduced along its axis q,
    from the last axis to the first (so the axes before stay where they are); over no axes
    (axis=()), a itself, as NumPy's."""
    if not axes:
        return a
    out = one(a, axes[-1])
    for q in reversed(axes[:-1]):
        out = lw.b.share(out, lambda x, q=q: one(x, q), loc)
    return out


def count_of(lw, a: Term, axes, loc) -> Term:
    """How many elements each result of reducing atom a over axes combines."""
    if axes is None:
        return lw.b.count(a, loc)
    if not axes:
        return ONE  # each result is one element (axis=())
    n = lw.b.size(a, axes[0], loc)
    for q in axes[1:]:
        n = prim("mul", n, lw.b.size(a, q, loc), loc=loc)
    return n


# NumPy's ValueError for each reduction without an identity, over no elements
NO_IDENTITY = {"vmax": "zero-size array to reduction operation maximum which has no identity",
               "vmin": "zero-size array to reduction operation minimum which has no identity",
               "fmax": "zero-size array to reduction operation fmax which has no identity",
               "fmin": "zero-size array to reduction operation fmin which has no identity",
               "argmax": "attempt to get argmax of an empty sequence",
               "argmin": "attempt to get argmin of an empty sequence"}


def nonempty_lanes(lw, a: Term, axes, kind: str, loc) -> list:
    """The check that a reduction without an identity (NO_IDENTITY's kinds) of atom a over axes
    (None: all) has elements to combine: NumPy raises where the reduced axes' lengths multiply to
    0, however many results there are (np.max of a (0, 0) array along axis 1 raises, of a (0, 3)
    one does not). A binding of its own, so it raises where the call is even when nothing uses
    the reduction's value: dead-code elimination keeps a check and drops an unused reduction."""
    lanes = count_of(lw, a, axes, loc)
    if isinstance(lanes, Const) and lanes.value > 0:
        return []
    name = kind.removeprefix("v")
    return lw.b.check(prim("lt", ZERO, lanes, loc=loc), (), loc, name,
                      f"{name} of an empty array (NumPy raises ValueError: {NO_IDENTITY[kind]})")


def reduce(lw, a: Term, axes, kind: str, loc, ddof: Term | None = None) -> Term:
    """NumPy's reduction `kind` of atom a over axes (None: all), without keepdims."""
    r = rank(a.type)
    if kind == "sum":
        if axes is None or len(axes) == r:
            return lw.b.sum_all(a, loc)
        return by_axis(lw, a, axes, lambda x, q: lw.b.reduce_axis(x, q, "sum", loc), loc)
    if kind in ("vmax", "vmin"):
        if axes is None or len(axes) == r:
            return lw.b.reduce_all(a, kind, loc)
        return by_axis(lw, a, axes, lambda x, q: lw.b.reduce_axis(x, q, kind, loc), loc)
    if kind == "prod":
        unit = Const(1.0, Float, loc) if scalar_of(a.type) == Float else Const(1, Int, loc)
        return along(lw, a, axes, lambda x: tree0(lw, x, _combine(lw, "mul", loc), unit, loc), loc)
    if kind == "mean":
        def divide(n):
            f = lambda x: prim("div", _float(lw, x, loc), _float(lw, n, loc), loc=loc)
            total = reduce(lw, a, axes, "sum", loc)
            return lw.b.elementwise(f, [total], loc) if is_array(total) else f(total)
        return lw.b.share(count_of(lw, a, axes, loc), divide, loc)
    if kind in ("var", "std"):
        return _variance(lw, a, axes, kind, ddof, loc)
    if kind in ("argmax", "argmin"):
        if r == 1:
            return prim(kind, a, loc=loc)
        if axes is None:
            return lw.b.share(reshape(lw, a, [Const(-1, Int)], loc, np.ravel), lambda v: prim(kind, v, loc=loc), loc)
        last = tuple(d for d in range(r) if d != axes[0]) + (axes[0],)  # the axis moved last
        return lw.b.share(permute(lw, a, last, loc), lambda m: builds(lw, [lw.b.size(m, q, loc) for q in range(
            r - 1)], lambda *ix: prim(kind, index_chain(m, list(ix), loc), loc=loc), loc), loc)
    raise AssertionError(kind)


def _variance(lw, a: Term, axes, kind: str, ddof: Term | None, loc) -> Term:
    """NumPy's _var: the mean kept as an axis of length 1, the squares of the differences from
    it summed, divided by max(n - ddof, 0); std is its square root."""
    r = rank(a.type)

    def body(x, n):
        mean = keep_dims(lw, reduce(lw, x, axes, "mean", loc), r, axes, loc)
        diff = lw.b.elementwise(lambda p, q: lw.b.arith("sub", _float(lw, p, loc), q, loc), [x, mean], loc)
        sq = lw.b.elementwise(lambda d: lw.b.share(d, lambda e: prim("mul", e, e, loc=loc), loc), [diff], loc)
        dof = _float(lw, n, loc) if ddof is None else prim("sub", _float(lw, n, loc), _float(lw, ddof, loc), loc=loc)
        dof = prim("max", dof, Const(0.0, Float, loc), loc=loc)

        def divide(total, d):
            f = lambda s: prim("div", s, d, loc=loc)
            if kind == "std":
                f = (lambda g: lambda s: prim("sqrt", g(s), loc=loc))(f)
            return lw.b.elementwise(f, [total], loc) if is_array(total) else f(total)
        return lw.b.share_all([lw.b.share(sq, lambda s: reduce(lw, s, axes, "sum", loc), loc), dof], divide, loc)
    return lw.b.share(count_of(lw, a, axes, loc), lambda n: body(a, n), loc)


_REDUCERS = {np.sum: "sum", np.prod: "prod", np.mean: "mean", np.max: "vmax", np.amax: "vmax",
             np.min: "vmin", np.amin: "vmin", np.var: "var", np.std: "std", np.argmax: "argmax",
             np.argmin: "argmin"}
_SIGNATURES = {  # NumPy's parameters, in order (out, initial and where are not supported)
    "sum": ("a", "axis", "dtype", "out", "keepdims"), "prod": ("a", "axis", "dtype", "out", "keepdims"),
    "mean": ("a", "axis", "dtype", "out", "keepdims"), "vmax": ("a", "axis", "out", "keepdims"),
    "vmin": ("a", "axis", "out", "keepdims"), "var": ("a", "axis", "dtype", "out", "ddof", "keepdims"),
    "std": ("a", "axis", "dtype", "out", "ddof", "keepdims"), "argmax": ("a", "axis", "out", "keepdims"),
    "argmin": ("a", "axis", "out", "keepdims")}
_COMPS = (ast.ListComp, ast.GeneratorExp)


def h_reduce(lw, obj, node, args, kwargs):
    """np.sum, np.prod, np.mean, np.max, np.min, np.var, np.std, np.argmax, np.argmin with
    axis (an int or a tuple) and keepdims, and the array methods of the same names."""
    kind, loc, name = _REDUCERS[obj], lw.loc(node), display(obj)
    p = bind_args(lw, obj, node, args, kwargs, _SIGNATURES[kind])
    if "out" in p and not _is_none(p["out"]):
        lw.fail(p["out"], name, f"out= of {name}() is not supported; a compiled function makes new arrays",
                hint="assign the result")
    a0 = p["a"]
    if kind == "sum" and isinstance(a0, ast.GeneratorExp) and _is_none(p.get("axis")) and _is_none(p.get("keepdims")):
        return lw.b.sum_all(lw.comprehension(a0, "sum"), loc)  # np.sum(e for ...): no vector made
    t = lw.as_list(lw.comprehension(a0, None)) if isinstance(a0, ast.ListComp) else lw.arg(a0)
    if lw.is_list(t):
        if not (_is_none(p.get("axis")) and _is_none(p.get("keepdims"))):  # (over every axis: one number)
            t = lw.nonempty_list(t, node, f"{name}()")  # NumPy makes [] the array of shape (0,)
        t = t.replace()
    keep = static_bool(lw, p.get("keepdims"), obj, "keepdims", False)
    dtype = dtype_of(lw, p.get("dtype"), obj, None)
    number = not is_array(t)
    if number:
        if t.type not in (Int, Float, Bool) or isinstance(a0, ast.GeneratorExp):
            lw.fail(node, name, f"{name}() takes an array, got a {t.type}", CatadTypeError)
        if _is_none(p.get("axis")) and kind in ("sum", "prod", "vmax", "vmin"):
            if t.type == Bool and kind in ("sum", "prod"):  # NumPy's sum of True is the int 1
                return lw.b.numeric(t, Int, loc)
            if t.type == Float and kind == "sum":  # NumPy adds from 0.0: the sum of -0.0 is 0.0
                return prim("add", t, Const(0.0, Float), loc=loc)
            return t
        if _is_none(p.get("axis")) and kind == "mean":
            return prim("add", lw.b.to_float(t, loc), Const(0.0, Float), loc=loc)  # (of -0.0: 0.0)
        failure = static_axes(lw, p["axis"], obj, 0) if kind in ("mean", "var", "std") and \
            not _is_none(p.get("axis")) else None
        if isinstance(failure, Failure):  # NumPy counts a number's elements along the axis: there is none
            return failure.term(lw, Float)
        t = builds(lw, [ONE], lambda i: t, loc)  # NumPy reduces a number as an array of one element
        keep = False
    r = rank(t.type)
    axes = static_axes(lw, p.get("axis"), obj, r, shown=0 if number else None)
    if isinstance(axes, Failure):
        return axes.term(lw, Float if kind not in ("argmax", "argmin") else Int)
    if number and axes == ():  # a number reduced over no axes is a number (0-d), as over its one element
        axes = (0,)
    if axes is not None and kind in ("argmax", "argmin") and len(axes) != 1:
        lw.fail(p["axis"], name, f"axis of {name}() must be one integer", CatadTypeError)
    if axes is not None:
        axes = tuple(sorted(axes))
    ddof = None if _is_none(p.get("ddof")) else lw.arg(p["ddof"])
    if ddof is not None and ddof.type not in (Int, Float):
        lw.fail(p["ddof"], name, f"ddof of {name}() must be a number, got a {ddof.type}", CatadTypeError)
    if dtype == Float:
        t = lw.b.to_float(t, loc)
    elif dtype is not None and dtype != scalar_of(t.type):
        lw.fail(p["dtype"], "dtype", f"dtype of {name}() may only be float here", CatadTypeError)
    flags = scalar_of(t.type) == Bool
    if flags:  # NumPy counts True as 1 (sum, prod, argmax), averages 1.0s (mean, var, std)
        one, zero = (ONE, ZERO) if kind not in ("mean", "var", "std") else (Const(1.0, Float), Const(0.0, Float))
        t = lw.b.elementwise(lambda x: If(x, one, zero, loc), [t], loc)

    def body(a):
        out = reduce(lw, a, axes, kind, loc, ddof)
        if flags and kind in ("vmax", "vmin"):  # of Bools, a Bool: any, all
            out = lw.b.elementwise(lambda x: prim("ne", x, ZERO, loc=loc), [out], loc) if is_array(out) \
                else prim("ne", out, ZERO, loc=loc)
        out = keep_dims(lw, out, r, axes, loc) if keep else out
        return make_lets(nonempty_lanes(lw, a, axes, kind, loc), out) if kind in NO_IDENTITY else out
    return lw.b.share(t, body, loc)


TABLE += [((fn,), h_reduce, _SIGNATURES[kind][1:]) for fn, kind in _REDUCERS.items()]
METHODS.update({"sum": np.sum, "prod": np.prod, "mean": np.mean, "max": np.max, "min": np.min, "var": np.var,
                "std": np.std, "argmax": np.argmax, "argmin": np.argmin})


# ------------------------------------------------------------ along an axis: scans, differences, rolls

def along_axis(lw, a: Term, axis: int, f0, loc) -> Term:
    """f0 (an array of the same rank from an atom, working along axis 0) applied along `axis`
    of atom a: the axis moved first, and back after."""
    if axis == 0:
        return f0(a)
    perm = to_front(rank(a.type), axis)
    return lw.b.share(permute(lw, a, perm, loc), lambda t: lw.b.share(f0(t), lambda u: permute(
        lw, u, inverse(perm), loc), loc), loc)


def _along0(lw, a: Term, n: Term, elem, loc) -> Term:
    """An array of a's shape but n along axis 0, of elem(i, read) at index (i, ...), where
    read(k) is a[k, ...] (the same index along the other axes)."""
    rest = [lw.b.size(a, q, loc) for q in range(1, rank(a.type))]
    return builds(lw, [n] + rest, lambda i, *js: elem(i, lambda k: index_chain(a, [k, *js], loc)), loc)


def _one_axis(lw, p, obj, t: Term, default):
    """The axis argument of a function taking one axis: an int normalised, or a Failure;
    default when absent (None: the flattened array, as NumPy's)."""
    if _is_none(p.get("axis")):
        return default
    axes = static_axes(lw, p["axis"], obj, rank(t.type))
    if isinstance(axes, Failure):
        return axes
    if len(axes) != 1:
        lw.fail(p["axis"], display(obj), f"axis of {display(obj)}() must be one integer", CatadTypeError)
    return axes[0]


def h_cumulative(lw, obj, node, args, kwargs):
    """np.cumsum, np.cumprod (axis=None: of the flattened array), as a scan (see scan0)."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "axis", "dtype"))
    a, loc = array_arg(lw, p["a"], obj, node), lw.loc(node)
    if dtype_of(lw, p.get("dtype"), obj, None) == Float:
        a = lw.b.to_float(a, loc)
    if scalar_of(a.type) == Bool:
        a = lw.b.elementwise(lambda x: If(x, ONE, ZERO, loc), [a], loc)
    axis = _one_axis(lw, p, obj, a, None)
    if isinstance(axis, Failure):
        return axis.term(lw, a.type)
    op = _combine(lw, "add" if obj is np.cumsum else "mul", loc)
    f0 = lambda x: scan0(lw, x, op, loc)
    if axis is None:
        flat = a if rank(a.type) == 1 else reshape(lw, a, [Const(-1, Int)], loc, obj)
        return lw.b.share(flat, f0, loc)
    return lw.b.share(a, lambda x: along_axis(lw, x, axis, f0, loc), loc)


def _diff0(lw, a: Term, loc) -> Term:
    """a[1:] - a[:-1] along axis 0 of atom a."""
    n = lw.b.size(a, 0, loc)
    size = prim("max", prim("sub", n, ONE, loc=loc), ZERO, loc=loc)
    return _along0(lw, a, size, lambda i, read: lw.b.arith("sub", read(prim("add", i, ONE, loc=loc)), read(i), loc),
                   loc)


def h_diff(lw, obj, node, args, kwargs):
    """np.diff(a, n=1, axis=-1, prepend=, append=): O(len) per order n; prepend and append (of a
    vector: a number or a vector) joined to its ends first, as NumPy does."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "n", "axis", "prepend", "append"))
    a, loc = array_arg(lw, p["a"], obj, node), lw.loc(node)
    order = 1 if _is_none(p.get("n")) else static_int(lw, p["n"], obj, "n")
    if any(k in p and _is_none(p[k]) for k in ("prepend", "append")):
        lw.fail(node, display(obj), f"{display(obj)}() with prepend=None or append=None: NumPy makes None an array "
                "of objects", CatadTypeError, hint="leave the keyword out")
    if order == 0 and any(k in p for k in ("prepend", "append")):
        lw.fail(node, display(obj), f"{display(obj)}(n=0) with prepend or append is not supported (NumPy returns the "
                "array itself, having computed them)", hint="leave them out")
    ends = [(k, lw.arg(p[k])) for k in ("prepend", "append") if k in p]
    if ends:
        if rank(a.type) != 1 or any(rank(t.type) > 1 or scalar_of(t.type) == Bool for _, t in ends):
            lw.fail(node, display(obj), f"{display(obj)}() with prepend or append is supported for a vector and "
                    "a number or a vector", hint="join them first: np.concatenate(...)")
        parts = [t if is_array(t) else builds(lw, [ONE], lambda i, t=t: t, loc) for _, t in ends]
        pre = [x for (k, _), x in zip(ends, parts) if k == "prepend"]
        post = [x for (k, _), x in zip(ends, parts) if k == "append"]
        ys = pre + [a] + post
        if any(scalar_of(y.type) == Float for y in ys):
            ys = [lw.b.to_float(y, loc) for y in ys]
        a = _join(lw, ys, 0, loc, display(obj))
    axis = _one_axis(lw, p, obj, a, rank(a.type) - 1)
    if isinstance(axis, Failure):
        return axis.term(lw, a.type)
    if order < 0:
        return Failure(loc, display(obj), f"order must be non-negative but got {order}").term(lw, a.type)
    if scalar_of(a.type) == Bool:
        lw.fail(node, display(obj), f"{display(obj)}() of Bools is not supported", CatadTypeError)
    for _ in range(order):
        a = lw.b.share(a, lambda x: along_axis(lw, x, axis, lambda y: _diff0(lw, y, loc), loc), loc)
    return a


def _roll0(lw, a: Term, shift: Term, loc) -> Term:
    n = lw.b.size(a, 0, loc)
    src = lambda i: prim("mod", prim("sub", i, shift, loc=loc), n, loc=loc)  # Python's mod: never negative
    return _along0(lw, a, n, lambda i, read: read(src(i)), loc)


def h_roll(lw, obj, node, args, kwargs):
    """np.roll(a, shift, axis=None) by an Int shift."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "shift", "axis"), 2)
    a, loc = array_arg(lw, p["a"], obj, node), lw.loc(node)
    shift = int_arg(lw, p["shift"], obj, "shift")
    axis = _one_axis(lw, p, obj, a, None)
    if isinstance(axis, Failure):
        return axis.term(lw, a.type)

    def body(x, s):
        if axis is None and rank(a.type) >= 2:
            flat = reshape(lw, x, [Const(-1, Int)], loc, obj)
            rolled = lw.b.share(flat, lambda f: _roll0(lw, f, s, loc), loc)
            return reshape(lw, rolled, [lw.b.size(x, q, loc) for q in range(rank(a.type))], loc, obj)
        return along_axis(lw, x, axis or 0, lambda y: _roll0(lw, y, s, loc), loc)
    return lw.b.share_all([a, shift], body, loc)


TABLE += [
    ((np.cumsum, np.cumprod), h_cumulative, ("axis", "dtype")),
    ((np.diff,), h_diff, ("n", "axis", "prepend", "append")),
    ((np.roll,), h_roll, ("shift", "axis")),
]
METHODS.update({"cumsum": np.cumsum, "cumprod": np.cumprod})


# ------------------------------------------------------------ joining and splitting

class Rows:
    """A sequence argument that is one array (a list filled by append, or an ndarray): the
    arrays to join are its items along axis 0, a number of them known only at run time."""

    def __init__(self, t: Term):
        self.t = t


def sequence_arg(lw, a, obj, node, rows: bool = False) -> list[Term] | Rows:
    """The arrays of a sequence argument: a list or tuple display (each item lowered on its
    own: [[0.0], x] is two arrays, not a ragged matrix), or a tuple or list value; with `rows`,
    an array or a vector list is Rows (the caller joins its items)."""
    if isinstance(a, (ast.List, ast.Tuple)):
        items = [lw.expr(e) for e in a.elts]
    else:
        t = lw.arg(a)
        if rows and is_array(t):
            return Rows(t.replace() if lw.is_list(t) else t)
        if not isinstance(t.type, TupleT):
            if is_array(t) and rank(t.type) == 2:  # a matrix is a sequence of its rows
                lw.fail(a, display(obj), f"{display(obj)}() of a matrix (a sequence of rows) is not supported",
                        hint="pass a list of arrays")
            lw.fail(a, display(obj), f"{display(obj)}() takes a list or tuple of arrays, got a {t.type}",
                    CatadTypeError)
        items = list(t.items) if isinstance(t, Tuple) else [Get(k, t, lw.loc(a)) for k in range(len(t.type.items))]
    if not items:
        lw.fail(a, display(obj), "need at least one array to concatenate")
    out = []
    for x in items:
        if lw.is_list(x):
            x = x.replace()
        if not is_array(x) and x.type not in (Int, Float, Bool):
            lw.fail(a, display(obj), f"{display(obj)}() takes arrays, got a {x.type}", CatadTypeError)
        out.append(x)
    floats = any(scalar_of(x.type) == Float for x in out)
    return [lw.b.to_float(x, lw.loc(node)) if floats else x for x in out]


def _same_rank(lw, xs: list[Term], obj, loc):
    ranks = [rank(x.type) for x in xs]
    for k, r in enumerate(ranks):
        if r != ranks[0]:
            return Failure(loc, display(obj), "all the input arrays must have same number of dimensions, but the "
                           f"array at index 0 has {ranks[0]} dimension(s) and the array at index {k} has {r} "
                           "dimension(s)")
    return None


def concatenate(lw, xs: list[Term], axis: int, loc, name: str) -> Term:
    """Atoms xs (one rank) joined along axis: NumPy's checks that the other axes agree (array
    by array, axis by axis), then a build whose element comes from the array its index falls in
    (the axis moved first and back)."""
    binds = []
    r = rank(xs[0].type)
    for k, x in enumerate(xs[1:], 1):
        for other in range(r):
            if other == axis:
                continue
            d0, dk = lw.b.shape(xs[0])[other], lw.b.shape(x)[other]
            if not lw.b.shapes.same(d0, dk):
                binds += lw.b.check(prim("eq", d0.size, dk.size, loc=loc), (d0.size, dk.size), loc, name,
                                    _JOIN_MESSAGE.format(axis=other, k=k), equal=((dk.size, d0.size),))
    if axis != 0:
        perm = to_front(r, axis)
        ts = [permute(lw, x, perm, loc) for x in xs]
        out = lw.b.share_all(ts, lambda *us: lw.b.share(_concatenate0(lw, list(us), loc), lambda c: permute(
            lw, c, inverse(perm), loc), loc), loc)
    else:
        out = _concatenate0(lw, xs, loc)
    return make_lets(binds, out)


def _concatenate0(lw, xs: list[Term], loc) -> Term:
    """Atoms xs joined along axis 0 (their other axes known to agree)."""
    r = rank(xs[0].type)
    sizes = [lw.b.size(x, 0, loc) for x in xs]
    offsets, total = [], sizes[0]
    for n in sizes[1:]:
        offsets.append(total)
        total = prim("add", total, n, loc=loc)

    def body(offs, total):
        def elem(i, *rest):
            out = index_chain(xs[-1], [prim("sub", i, offs[-1], loc=loc) if offs else i, *rest], loc)
            for k in range(len(xs) - 2, -1, -1):
                at = i if k == 0 else prim("sub", i, offs[k - 1], loc=loc)
                out = If(prim("lt", i, offs[k], loc=loc), index_chain(xs[k], [at, *rest], loc), out, loc)
            return out
        dims = [total] + [lw.b.size(xs[0], q, loc) for q in range(1, r)]
        return builds(lw, dims, elem, loc)
    # the offsets and the total bound once (they are sums of sizes)
    return lw.b.share_all(offsets + [total], lambda *vs: body(list(vs[:-1]), vs[-1]), loc)


def _some_rows(lw, v: Term, loc, name: str, message: str) -> list:
    """The check that the array v, a sequence of arrays, has one at least (NumPy's error)."""
    n = lw.b.size(v, 0, loc)
    if lw.b.shapes.at_most(ONE, n):
        return []
    return lw.b.check(prim("lt", ZERO, n, loc=loc), (), loc, name, message)


def joined_rows(lw, t: Term, axis: int, loc, obj, message: str) -> Term:
    """np.concatenate(t, axis) of an array t read as the sequence of its items (arrays of rank
    r - 1 >= 1): t's first axis moved before the items' axis `axis`, merged with it."""
    r = rank(t.type)
    name = display(obj)

    def body(v):
        order = list(range(1, axis + 1)) + [0] + list(range(axis + 1, r))
        w = permute(lw, v, order, loc)

        def merged(x):
            dims = [lw.b.size(x, q, loc) for q in range(r)]
            return reshape(lw, x, dims[:axis] + [prim("mul", dims[axis], dims[axis + 1], loc=loc)] + dims[axis + 2:],
                           loc, obj)
        return make_lets(_some_rows(lw, v, loc, name, message), lw.b.share(w, merged, loc))
    return lw.b.share(t, body, loc)


def h_concatenate(lw, obj, node, args, kwargs):
    """np.concatenate(arrays, axis=0) of a list or tuple of arrays, or of the items of an array."""
    p = bind_args(lw, obj, node, args, kwargs, ("arrays", "axis"))
    loc, name = lw.loc(node), display(obj)
    xs = sequence_arg(lw, p["arrays"], obj, node, rows=True)
    if isinstance(xs, Rows):
        t = xs.t
        if rank(t.type) < 2:
            return Failure(loc, name, "zero-dimensional arrays cannot be concatenated").term(lw, vec_of(Float, 1))
        message = "need at least one array to concatenate"
        if _is_none(p.get("axis")) and "axis" in p:  # every item flattened, one after the other
            return lw.b.share(t, lambda v: make_lets(_some_rows(lw, v, loc, name, message),
                                                     reshape(lw, v, [Const(-1, Int)], loc, obj)), loc)
        axis = 0 if "axis" not in p else static_axes(lw, p["axis"], obj, rank(t.type) - 1)
        if isinstance(axis, Failure):
            return axis.term(lw, vec_of(scalar_of(t.type), rank(t.type) - 1))
        return joined_rows(lw, t, axis if isinstance(axis, int) else axis[0], loc, obj, message)
    if any(not is_array(x) for x in xs):
        return Failure(loc, name, "zero-dimensional arrays cannot be concatenated").term(lw, vec_of(Float, 1))
    bad = _same_rank(lw, xs, obj, loc)
    if bad:
        return bad.term(lw, xs[0].type)
    if _is_none(p.get("axis")) and "axis" in p:  # axis=None: the arrays flattened
        xs = [reshape(lw, x, [Const(-1, Int)], loc, obj) if rank(x.type) >= 2 else x for x in xs]
        axis = 0
    else:
        axis = 0 if "axis" not in p else static_axes(lw, p["axis"], obj, rank(xs[0].type))
        if isinstance(axis, Failure):
            return axis.term(lw, xs[0].type)
        axis = axis if isinstance(axis, int) else axis[0]
    return lw.b.share_all(xs, lambda *ys: concatenate(lw, list(ys), axis, loc, name), loc)


def stack_rows(lw, xs: list[Term], loc, name: str, message: str) -> Term:
    """Arrays (atoms) of one shape as the items of an array of one more axis (scalars as a
    vector), with NumPy's check that the shapes agree (axis by axis)."""
    if not is_array(xs[0]):
        return prim("vector", *xs, loc=loc)
    binds = []
    for k, x in enumerate(xs[1:], 1):
        for q in range(rank(x.type)):
            d0, dk = lw.b.shape(xs[0])[q], lw.b.shape(x)[q]
            if not lw.b.shapes.same(d0, dk):
                binds += lw.b.check(prim("eq", d0.size, dk.size, loc=loc), (d0.size, dk.size), loc, name,
                                    message.replace("{k}", str(k)), equal=((dk.size, d0.size),))
    if rank(xs[0].type) == 1:
        return make_lets(binds, prim("vector", *xs, loc=loc))

    def elem(i, *rest):  # a vector literal holds scalars or vectors: item i of a higher rank chosen by i
        out = index_chain(xs[-1], list(rest), loc)
        for k in range(len(xs) - 2, -1, -1):
            out = If(prim("eq", i, Const(k, Int), loc=loc), index_chain(xs[k], list(rest), loc), out, loc)
        return out
    sizes = [Const(len(xs), Int, loc)] + [lw.b.size(xs[0], q, loc) for q in range(rank(xs[0].type))]
    return make_lets(binds, builds(lw, sizes, elem, loc))


def h_stack(lw, obj, node, args, kwargs):
    """np.stack(arrays, axis=0) of scalars or arrays of one shape."""
    p = bind_args(lw, obj, node, args, kwargs, ("arrays", "axis"))
    loc, name = lw.loc(node), display(obj)
    xs = sequence_arg(lw, p["arrays"], obj, node, rows=True)
    if isinstance(xs, Rows):  # the items of an array (a list filled by append) stacked: the array
        r = rank(xs.t.type)
        axis = 0 if _is_none(p.get("axis")) else static_axes(lw, p["axis"], obj, r)
        if isinstance(axis, Failure):
            return axis.term(lw, xs.t.type)
        axis = axis if isinstance(axis, int) else axis[0]
        return lw.b.share(xs.t, lambda v: make_lets(_some_rows(lw, v, loc, name, "need at least one array to stack"),
                                                    permute(lw, v, inverse(to_front(r, axis)), loc)), loc)
    if len({x.type for x in xs}) > 1:
        return Failure(loc, name, "all input arrays must have the same shape").term(lw, vec_of(Float, 1))
    r = rank(xs[0].type) + 1
    axis = 0 if _is_none(p.get("axis")) else static_axes(lw, p["axis"], obj, r)
    if isinstance(axis, Failure):
        return axis.term(lw, vec_of(scalar_of(xs[0].type), r))
    axis = axis if isinstance(axis, int) else axis[0]
    message = "all input arrays must have the same shape"

    def body(*ys):
        rows = stack_rows(lw, list(ys), loc, name, message)
        return rows if axis == 0 else permute(lw, rows, inverse(to_front(r, axis)), loc)
    return lw.b.share_all(xs, body, loc)


_JOIN_MESSAGE = ("all the input array dimensions except for the concatenation axis must match exactly, but along "
                 "dimension {axis}, the array at index 0 has size {{0}} and the array at index {k} has size {{1}}")


def h_stacks(lw, obj, node, args, kwargs):
    """np.vstack, np.hstack, np.column_stack, as NumPy defines them from concatenate."""
    _arity(lw, obj, node, args, 1)
    loc, name = lw.loc(node), display(obj)
    xs = sequence_arg(lw, args[0], obj, node, rows=True)
    if isinstance(xs, Rows):
        if obj is np.column_stack and rank(xs.t.type) == 1:
            lw.fail(args[0], name, f"{name}() of numbers is not supported", hint="pass a list of vectors")
        return _stacked_items(lw, xs.t, obj, loc)

    def body(*ys):
        ys = list(ys)
        if obj is np.hstack:
            if all(rank(y.type) <= 1 for y in ys):  # vectors (and numbers) end to end
                ys = [y if is_array(y) else builds(lw, [ONE], lambda i, y=y: y, loc) for y in ys]
                return _join(lw, ys, 0, loc, name)
            return _join(lw, ys, 1, loc, name)
        if obj is np.vstack:  # vectors (and numbers) as rows
            if all(not is_array(y) for y in ys):
                return builds(lw, [Const(len(ys), Int, loc), ONE], lambda i, j: prim("index", i, prim(
                    "vector", *ys, loc=loc), loc=loc), loc)
            if all(rank(y.type) == 1 for y in ys):
                return stack_rows(lw, ys, loc, name, _JOIN_MESSAGE.format(axis=1, k="{k}"))
            ys = [insert_axes(lw, y, [0] if is_array(y) else [0, 1], loc) if rank(y.type) < 2 else y for y in ys]
            return _join(lw, ys, 0, loc, name)
        # column_stack: vectors (and numbers) as columns
        if all(rank(y.type) == 1 for y in ys):
            rows = stack_rows(lw, ys, loc, name, _JOIN_MESSAGE.format(axis=0, k="{k}"))
            return lw.b.share(rows, lambda m: lw.b.transpose(m, loc), loc)
        ys = [insert_axes(lw, y, [1] if is_array(y) else [0, 1], loc) if rank(y.type) < 2 else y for y in ys]
        return _join(lw, ys, 1, loc, name)
    return lw.b.share_all(xs, body, loc)


def _stacked_items(lw, t: Term, obj, loc) -> Term:
    """np.vstack / np.hstack of the items of an array t (items of rank r - 1), as NumPy makes
    them at least 2-d (vstack) or 1-d (hstack) and concatenates them."""
    r, message = rank(t.type), "need at least one array to concatenate"
    if obj is np.column_stack:  # vectors as columns (the transpose), matrices side by side
        if r == 2:
            return lw.b.share(t, lambda v: make_lets(_some_rows(lw, v, loc, display(obj), message),
                                                     lw.b.transpose(v, loc)), loc)
        return joined_rows(lw, t, 1, loc, obj, message)
    if obj is np.vstack:
        if r == 1:  # numbers as rows of one
            return lw.b.share(t, lambda v: make_lets(_some_rows(lw, v, loc, display(obj), message),
                                                     insert_axes(lw, v, [1], loc)), loc)
        if r == 2:  # vectors as rows
            return lw.b.share(t, lambda v: make_lets(_some_rows(lw, v, loc, display(obj), message), v), loc)
        return joined_rows(lw, t, 0, loc, obj, message)
    if r == 1:  # numbers end to end
        return lw.b.share(t, lambda v: make_lets(_some_rows(lw, v, loc, display(obj), message), v), loc)
    return joined_rows(lw, t, 0 if r == 2 else 1, loc, obj, message)


def _join(lw, ys: list[Term], axis: int, loc, name: str) -> Term:
    bad = _same_rank(lw, ys, np.concatenate, loc)
    if bad:
        return bad.term(lw, ys[0].type)
    return lw.b.share_all(ys, lambda *zs: concatenate(lw, list(zs), axis, loc, name), loc)


def h_split(lw, obj, node, args, kwargs):
    """np.split(a, sections, axis=0) into a constant number of equal parts, or at a constant list
    of indices (the parts a[:i1], a[i1:i2], ..., a[ik:] as slices, so clipped as slices are): a tuple."""
    p = bind_args(lw, obj, node, args, kwargs, ("ary", "indices_or_sections", "axis"), 2)
    a, loc, name = array_arg(lw, p["ary"], obj, node), lw.loc(node), display(obj)
    points = _split_points(lw, p["indices_or_sections"])
    if points is not None:
        return _split_at(lw, p, obj, a, points, loc)
    k = static_int(lw, p["indices_or_sections"], obj, "the number of sections")
    if k <= 0:
        lw.fail(p["indices_or_sections"], name, "number sections must be larger than 0.", CatadTypeError)
    axis = _one_axis(lw, p, obj, a, 0)
    if isinstance(axis, Failure):
        return axis.term(lw, TupleT((a.type,) * k))

    def body(x):
        n = lw.b.size(x, axis, loc)
        chk = lw.b.check(prim("eq", prim("mod", n, Const(k, Int), loc=loc), ZERO, loc=loc), (), loc, name,
                         "array split does not result in an equal division")

        def parts(m):
            def part(q):
                start = lambda i: i if q == 0 else prim("add", prim("mul", Const(q, Int), m, loc=loc), i, loc=loc)
                sizes = [m if d == axis else lw.b.size(x, d, loc) for d in range(rank(x.type))]
                return builds(lw, sizes, lambda *ix: index_chain(x, [start(i) if d == axis else i for d, i in
                                                                     enumerate(ix)], loc), loc)
            return Tuple(tuple(part(q) for q in range(k)), loc)
        return make_lets(chk, lw.b.share(prim("floordiv", n, Const(k, Int), loc=loc), parts, loc))
    return lw.b.share(a, body, loc)


def _split_points(lw, a) -> list[int] | None:
    """The indices of np.split written as a list or tuple of integer constants, else None."""
    if not isinstance(a, (ast.List, ast.Tuple)):
        return None
    items = [lw.arg(e) for e in a.elts]
    if not all(isinstance(t, Const) and t.type == Int for t in items):
        lw.fail(a, "np.split", "the indices of np.split must be integer constants, e.g. np.split(x, [2, 5])")
    return [int(t.value) for t in items]


def _split_at(lw, p, obj, a: Term, points: list[int], loc) -> Term:
    axis = _one_axis(lw, p, obj, a, 0)
    if isinstance(axis, Failure):
        return axis.term(lw, TupleT((a.type,) * (len(points) + 1)))

    def body(x):
        n = lw.b.size(x, axis, loc)

        def bound(i: int | None) -> Term:  # a slice bound i as Python clips it into [0, n]
            if i is None:
                return n
            if i >= 0:
                return prim("min", Const(i, Int), n, loc=loc)
            return prim("max", prim("add", n, Const(i, Int), loc=loc), ZERO, loc=loc)

        def part(lo: int, hi: int | None) -> Term:
            def sized(start):
                m = prim("max", prim("sub", bound(hi), start, loc=loc), ZERO, loc=loc)
                sizes = [m if d == axis else lw.b.size(x, d, loc) for d in range(rank(x.type))]
                return builds(lw, sizes, lambda *ix: index_chain(
                    x, [prim("add", start, i, loc=loc) if d == axis else i for d, i in enumerate(ix)], loc), loc)
            return lw.b.share(bound(lo), sized, loc)
        edges = [0, *points, None]
        return Tuple(tuple(part(lo, hi) for lo, hi in zip(edges, edges[1:])), loc)
    return lw.b.share(a, body, loc)


def h_repeat(lw, obj, node, args, kwargs):
    """np.repeat(a, repeats, axis=None) with an Int number of repeats."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "repeats", "axis"), 2)
    a, loc, name = array_arg(lw, p["a"], obj, node), lw.loc(node), display(obj)
    reps = lw.arg(p["repeats"])
    if reps.type != Int:
        lw.fail(p["repeats"], name, f"repeats of {name}() must be an Int (an array of repeats is not supported)",
                CatadTypeError)
    axis = _one_axis(lw, p, obj, a, None)
    if isinstance(axis, Failure):
        return axis.term(lw, a.type)

    def body(x, k):
        chk = nonneg_check(lw, [k], loc, name)
        if axis is None and rank(x.type) >= 2:
            x = reshape(lw, x, [Const(-1, Int)], loc, obj)
        return make_lets(chk, lw.b.share(x, lambda y: along_axis(lw, y, axis or 0, lambda z: _repeat0(lw, z, k, loc),
                                                                  loc), loc))
    return lw.b.share_all([a, reps], body, loc)


def _repeat0(lw, a: Term, k: Term, loc) -> Term:
    n = prim("mul", lw.b.size(a, 0, loc), k, loc=loc)
    return _along0(lw, a, n, lambda i, read: read(prim("floordiv", i, k, loc=loc)), loc)


def h_tile(lw, obj, node, args, kwargs):
    """np.tile(A, reps) with reps an Int or a pair of Ints."""
    p = bind_args(lw, obj, node, args, kwargs, ("A", "reps"), 2)
    a, loc, name = array_arg(lw, p["A"], obj, node), lw.loc(node), display(obj)
    reps = shape_arg(lw, p["reps"], obj)
    r = max(rank(a.type), len(reps))
    reps = [ONE] * (r - len(reps)) + reps

    def body(x, *ks):
        if rank(x.type) < r:
            x = insert_axes(lw, x, list(range(r - rank(x.type))), loc)
        chk = nonneg_check(lw, list(ks), loc, name)

        def tiled(y):
            ns = [lw.b.size(y, q, loc) for q in range(r)]
            sizes = [n if isinstance(k, Const) and k.value == 1 else prim("mul", n, k, loc=loc)
                     for n, k in zip(ns, ks)]
            return builds(lw, sizes, lambda *ix: index_chain(y, [
                i if isinstance(k, Const) and k.value == 1 else prim("mod", i, n, loc=loc)
                for i, n, k in zip(ix, ns, ks)], loc), loc)
        return make_lets(chk, lw.b.share(x, tiled, loc))
    return lw.b.share_all([a] + reps, body, loc)


def h_pad(lw, obj, node, args, kwargs):
    """np.pad(array, pad_width) with constant values (0, or constant_values=c)."""
    p = bind_args(lw, obj, node, args, kwargs, ("array", "pad_width", "mode"), 2)
    a, loc, name = array_arg(lw, p["array"], obj, node), lw.loc(node), display(obj)
    if not _is_none(p.get("mode")):
        m = p["mode"]
        if not (isinstance(m, ast.Constant) and m.value == "constant"):
            lw.fail(m, name, f"{name}() supports mode='constant' only")
    fill = Const(0.0, Float, loc) if "constant_values" not in kwargs else lw.arg(kwargs["constant_values"])
    if is_array(fill) or fill.type not in (Int, Float):
        lw.fail(kwargs.get("constant_values"), name, f"constant_values of {name}() must be a number", CatadTypeError)
    if scalar_of(a.type) == Float or fill.type == Int and scalar_of(a.type) == Int:
        fill = lw.b.to_float(fill, loc) if scalar_of(a.type) == Float else fill
    else:
        lw.fail(node, name, f"{name}() of an array of {scalar_of(a.type)} with a {fill.type} value converts it, "
                            "which is not supported", CatadTypeError)
    r = rank(a.type)
    widths = _pad_widths(lw, p["pad_width"], obj, r)

    def body(x, f, *ws):
        pairs = [ws[2 * q: 2 * q + 2] for q in range(r)]
        chk = nonneg_check(lw, list(ws), loc, name, "index can't contain negative values")

        def elem(*ix):
            inside, at = [], []
            for q, (i, (before, _)) in enumerate(zip(ix, pairs)):
                j = prim("sub", i, before, loc=loc)
                at.append(j)
                inside += [prim("le", ZERO, j, loc=loc), prim("lt", j, lw.b.size(x, q, loc), loc=loc)]
            return If(all_(inside), index_chain(x, at, loc), f, loc)
        sizes = [prim("add", prim("add", lw.b.size(x, q, loc), b, loc=loc), e, loc=loc) for q, (b, e) in
                 enumerate(pairs)]
        return make_lets(chk, builds(lw, sizes, elem, loc))
    return lw.b.share_all([a, fill] + widths, body, loc)


def _pad_widths(lw, a, obj, r: int) -> list[Term]:
    """pad_width as (before, after) per axis, flattened: n, (b, e), or ((b0, e0), (b1, e1))."""
    def ints(node):
        if isinstance(node, (ast.Tuple, ast.List)):
            return [ints(e) for e in node.elts]
        t = lw.expr(node)
        if t.type != Int:
            lw.fail(node, display(obj), f"pad_width of {display(obj)}() must be Ints", CatadTypeError)
        return t
    w = ints(a)
    if not isinstance(w, list):
        w = [w, w]
    if all(not isinstance(x, list) for x in w):
        w = [w] * r if len(w) == 2 else [w * 2] * r if len(w) == 1 else None
    if w is None or len(w) != r or any(not isinstance(x, list) or len(x) not in (1, 2) for x in w):
        lw.fail(a, display(obj), f"pad_width of {display(obj)}() must be n, (before, after) or one pair per axis")
    return [y for x in w for y in (x * 2 if len(x) == 1 else x)]


TABLE += [
    ((np.concatenate,), h_concatenate, ("arrays", "axis")),
    ((np.stack,), h_stack, ("arrays", "axis")),
    ((np.vstack, np.hstack, np.column_stack), h_stacks, ()),
    ((np.split,), h_split, ("indices_or_sections", "axis")),
    ((np.repeat,), h_repeat, ("repeats", "axis")),
    ((np.tile,), h_tile, ("reps",)),
    ((np.pad,), h_pad, ("pad_width", "mode", "constant_values")),
]
METHODS.update({"repeat": np.repeat})


# ------------------------------------------------------------ matrices: diagonals, triangles, cross products

def _diagonal(lw, m: Term, k: int, loc) -> Term:
    """The k-th diagonal of atom m, a matrix: m[i + r0, i + c0] for i < its length."""
    r0, c0 = max(-k, 0), max(k, 0)
    rows = prim("sub", lw.b.size(m, 0, loc), Const(r0, Int), loc=loc) if r0 else lw.b.size(m, 0, loc)
    cols = prim("sub", lw.b.size(m, 1, loc), Const(c0, Int), loc=loc) if c0 else lw.b.size(m, 1, loc)
    n = prim("max", prim("min", rows, cols, loc=loc), ZERO, loc=loc)
    shift = lambda i, c: i if c == 0 else prim("add", i, Const(c, Int), loc=loc)
    return builds(lw, [n], lambda i: index_chain(m, [shift(i, r0), shift(i, c0)], loc), loc)


def h_trace(lw, obj, node, args, kwargs):
    """np.trace(a, offset=0): the sum of a diagonal."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "offset"))
    a, loc = array_arg(lw, p["a"], obj, node), lw.loc(node)
    k = 0 if _is_none(p.get("offset")) else static_int(lw, p["offset"], obj, "offset")
    r = rank(a.type)
    if r < 2:
        return Failure(loc, display(obj), "diag requires an array of at least two dimensions").term(
            lw, scalar_of(a.type))
    if r == 2:
        return lw.b.share(a, lambda m: prim("sum", _diagonal(lw, m, k, loc), loc=loc), loc)
    # rank 3 and more: the traces of the matrices over the first two axes, at each index of the others
    last = tuple(range(2, r)) + (0, 1)
    return lw.b.share(permute(lw, a, last, loc), lambda t: builds(lw, [lw.b.size(t, q, loc) for q in range(r - 2)],
                      lambda *ix: lw.b.share(index_chain(t, list(ix), loc), lambda m: prim(
                          "sum", _diagonal(lw, m, k, loc), loc=loc), loc), loc), loc)


def h_diag(lw, obj, node, args, kwargs):
    """np.diag(v, k=0): a vector's diagonal matrix, or a matrix's diagonal."""
    p = bind_args(lw, obj, node, args, kwargs, ("v", "k"))
    a, loc = array_arg(lw, p["v"], obj, node), lw.loc(node)
    k = 0 if _is_none(p.get("k")) else static_int(lw, p["k"], obj, "k")
    if rank(a.type) > 2:
        return Failure(loc, display(obj), "Input must be 1- or 2-d.").term(lw, a.type)
    if rank(a.type) == 2:
        return lw.b.share(a, lambda m: _diagonal(lw, m, k, loc), loc)
    zero = zero_of(scalar_of(a.type), loc)  # NumPy keeps the dtype: False for Bools

    def body(v):
        n = lw.b.size(v, 0, loc)
        size = prim("add", n, Const(abs(k), Int), loc=loc) if k else n

        def elem(i, j):
            on = prim("eq", j, prim("add", i, Const(k, Int), loc=loc) if k else i, loc=loc)
            return If(on, prim("index", i if k >= 0 else j, v, loc=loc), zero, loc)
        return builds(lw, [size, size], elem, loc)
    return lw.b.share(a, body, loc)


def h_diagonal(lw, obj, node, args, kwargs):
    """np.diagonal(a, offset=0, axis1=0, axis2=1), a.diagonal(...), of a matrix: its diagonal,
    NumPy's read-only view (assigning into it is refused, as NumPy raises)."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "offset", "axis1", "axis2"))
    a, loc = array_arg(lw, p["a"], obj, node), lw.loc(node)
    k = 0 if _is_none(p.get("offset")) else static_int(lw, p["offset"], obj, "offset")
    if rank(a.type) < 2:
        return Failure(loc, display(obj), "diag requires an array of at least two dimensions").term(
            lw, vec_of(scalar_of(a.type), 1))
    if rank(a.type) > 2:
        lw.fail(node, display(obj), f"{display(obj)}() of a stack of matrices (rank {rank(a.type)}) is not supported",
                CatadTypeError, "take each matrix's: np.stack([np.diagonal(m) for m in t])")
    axes = [default if _is_none(p.get(n)) else static_int(lw, p[n], obj, n)
            for n, default in (("axis1", 0), ("axis2", 1))]
    axes = [x + 2 if -2 <= x < 0 else x for x in axes]
    if not all(x in (0, 1) for x in axes) or axes[0] == axes[1]:
        lw.fail(node, display(obj), f"axis1 and axis2 of {display(obj)}() of a matrix must be 0 and 1 (or 1 and "
                "0) in some order", CatadTypeError)
    k = k if axes == [0, 1] else -k  # (the transpose's diagonal at offset k is the matrix's at -k)
    return lw.mark_readonly(lw.b.share(a, lambda m: _diagonal(lw, m, k, loc), loc))


def h_triangle(lw, obj, node, args, kwargs):
    """np.triu(m, k=0), np.tril(m, k=0) (a vector is taken as the rows of a square matrix)."""
    p = bind_args(lw, obj, node, args, kwargs, ("m", "k"))
    a, loc = array_arg(lw, p["m"], obj, node), lw.loc(node)
    k = ZERO if _is_none(p.get("k")) else int_arg(lw, p["k"], obj, "k")
    zero = zero_of(scalar_of(a.type), loc)  # NumPy keeps the dtype: False for Bools
    upper = obj is np.triu
    if rank(a.type) > 2:
        lw.fail(node, display(obj), f"{display(obj)}() of a stack of matrices (rank {rank(a.type)}) is not supported",
                CatadTypeError, "apply it to each matrix, e.g. np.stack([np.triu(m) for m in t])")

    def body(m, k):
        rows = lw.b.size(m, 0, loc)
        keep = lambda i, j: prim("le", k, prim("sub", j, i, loc=loc), loc=loc) if upper else \
            prim("le", prim("sub", j, i, loc=loc), k, loc=loc)
        if rank(a.type) == 1:
            return builds(lw, [rows, rows], lambda i, j: If(keep(i, j), prim("index", j, m, loc=loc), zero, loc), loc)
        return builds(lw, [rows, lw.b.size(m, 1, loc)], lambda i, j: If(keep(i, j), index_chain(m, [i, j], loc),
                                                                          zero, loc), loc)
    return lw.b.share_all([a, k], body, loc)


def h_cross(lw, obj, node, args, kwargs):
    """np.cross(a, b) of 3-vectors (or rows of 3 elements, broadcast as NumPy does)."""
    _arity(lw, obj, node, args, 2)
    loc, name = lw.loc(node), display(obj)
    a, b = (array_arg(lw, x, obj, node) for x in args)
    ra, rb = rank(a.type), rank(b.type)
    if max(ra, rb) > 2:
        lw.fail(node, name, f"{name}() of arrays of rank 3 or more is not supported", CatadTypeError)

    def body(x, y):
        binds = []
        for t in (x, y):
            d = lw.b.shape(t)[-1]
            three = Const(3, Int, loc)
            if not lw.b.shapes.equal(d.size, three):
                binds += lw.b.check(prim("eq", d.size, three, loc=loc), (d.size,), loc, name,
                                    "incompatible dimensions for cross product (dimension must be 3 here; catad "
                                    "does not take NumPy's 2-element vectors), got {0}", equal=((d.size, three),))
        col = lambda t, c: prim("index", Const(c, Int), t, loc=loc) if rank(t.type) == 1 else builds(
            lw, [lw.b.size(t, 0, loc)], lambda i: index_chain(t, [i, Const(c, Int)], loc), loc)
        mul = _combine(lw, "mul", loc)
        comps = []
        for c0, c1, c2 in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):
            f = lambda p, q, r, s: lw.b.arith("sub", mul(p, q), mul(r, s), loc)
            ts = [col(x, c1), col(y, c2), col(x, c2), col(y, c1)]
            comps.append(lw.b.elementwise(f, ts, loc, name) if max(ra, rb) == 2 else f(*ts))
        if max(ra, rb) == 1:
            return make_lets(binds, prim("vector", *comps, loc=loc))

        def rows(*cs):
            return builds(lw, [lw.b.size(cs[0], 0, loc)], lambda i: prim(
                "vector", *(prim("index", i, c, loc=loc) for c in cs), loc=loc), loc)
        return make_lets(binds, lw.b.share_all(comps, rows, loc))
    return lw.b.share_all([a, b], body, loc)


TABLE += [
    ((np.trace,), h_trace, ("offset",)),
    ((np.diag,), h_diag, ("k",)),
    ((np.diagonal,), h_diagonal, ("offset", "axis1", "axis2")),
    ((np.triu, np.tril), h_triangle, ("k",)),
    ((np.cross,), h_cross, ()),
]
METHODS.update({"trace": np.trace})
# methods whose functions other modules handle (a.clip(0, 1) is np.clip(a, 0, 1), and so on)
METHODS.update({"clip": np.clip, "round": np.round, "any": np.any, "all": np.all, "argsort": np.argsort,
                "diagonal": np.diagonal, "nonzero": np.nonzero})


# ------------------------------------------------------------ np.arange

def h_arange(lw, obj, node, args, kwargs):
    """np.arange(stop), (start, stop), (start, stop, step), of Ints or Floats, as NumPy computes
    it: ceil((stop - start) / step) elements (none if that is negative), the first start, the
    second start + step, the k-th start + k * ((start + step) - start)."""
    _arity(lw, obj, node, args, 1, 3)
    loc, name = lw.loc(node), display(obj)
    ts = [lw.arg(a) for a in args]
    for k in ("start", "stop", "step"):
        if k in kwargs:
            lw.fail(kwargs[k], name, f"{name}() takes its bounds by position here")
    if any(t.type not in (Int, Float) for t in ts):
        lw.fail(node, name, f"{name}() takes Ints or Floats, got ({', '.join(str(t.type) for t in ts)})",
                CatadTypeError)
    start, stop, step = (Const(0, Int, loc), ts[0], Const(1, Int, loc)) if len(ts) == 1 else \
        (ts[0], ts[1], Const(1, Int, loc)) if len(ts) == 2 else ts
    ty = dtype_of(lw, kwargs.get("dtype"), obj, Float if any(t.type == Float for t in ts) else Int)
    if ty == Int and any(t.type == Float for t in ts):
        lw.fail(kwargs.get("dtype"), name, f"{name}() with Float bounds and dtype=int is not supported",
                CatadTypeError)
    if ty == Bool:
        lw.fail(kwargs.get("dtype"), name, f"{name}() of Bools is not supported", CatadTypeError)
    k = lw.b.var(Int, loc, "_i")
    if ty == Int:
        if isinstance(step, Const) and step.value == 1:  # the common range(n)-like case
            if isinstance(start, Const) and start.value == 0:
                return lw.b.share(stop, lambda n: Build(prim("max", n, ZERO, loc=loc), k, k, loc), loc)
            return lw.b.share_all([start, stop], lambda a, b: Build(prim("max", prim("sub", b, a, loc=loc), ZERO,
                                                                         loc=loc), k, prim("add", a, k, loc=loc),
                                                                    loc), loc)

        def ints(a, b, s):
            chk = [] if isinstance(s, Const) and s.value != 0 else \
                lw.b.check(prim("ne", s, ZERO, loc=loc), (), loc, name, "division by zero")
            # ceil((b - a) / s) = -((a - b) // s), exactly, for either sign of s
            n = prim("max", prim("neg", prim("floordiv", prim("sub", a, b, loc=loc), s, loc=loc), loc=loc), ZERO,
                     loc=loc)
            return make_lets(chk, Build(n, k, prim("add", a, prim("mul", k, s, loc=loc), loc=loc), loc))
        return lw.b.share_all([start, stop, step], ints, loc)
    f = lambda t: lw.b.to_float(t, loc)

    def floats(a, b, s):
        chk = [] if isinstance(s, Const) and s.value != 0 else \
            lw.b.check(prim("ne", s, Const(0.0, Float, loc), loc=loc), (), loc, name, "division by zero")

        def counted(q):
            inf = Const(math.inf, Float, loc)
            chk2 = lw.b.check(prim("eq", q, q, loc=loc), (), loc, name, "arange: cannot compute length")
            # (an infinite length either way, also of a start of inf, where NumPy's is not 0)
            chk2 += lw.b.check(prim("lt", prim("abs", q, loc=loc), inf, loc=loc), (), loc, name,
                               "Maximum allowed size exceeded")
            return make_lets(chk2, lw.b.share(ceil_count(lw, q, loc), lambda n: lw.b.share(
                prim("sub", prim("add", a, s, loc=loc), a, loc=loc), lambda d: Build(n, k, If(
                    prim("eq", k, ZERO, loc=loc), a, If(prim("eq", k, ONE, loc=loc), prim("add", a, s, loc=loc),
                                                         prim("add", a, prim("mul", f(k), d, loc=loc), loc=loc),
                                                         loc), loc), loc), loc), loc))
        return make_lets(chk, lw.b.share(prim("div", prim("sub", b, a, loc=loc), s, loc=loc), counted, loc))
    return lw.b.share_all([f(start), f(stop), f(step)], floats, loc)


def ceil_count(lw, q: Term, loc) -> Term:
    """max(ceil(q), 0) as an Int, for an atom q (a finite Float): the Int has no Float
    conversion in the core language, so a search: c doublings until 2**c >= q, then a binary
    search of [0, 2**c] for the least Int n with n >= q (O(log q) scalar steps)."""
    f = lambda t: lw.b.to_float(t, loc)
    two = Const(2, Int, loc)
    doublings = _steps(lw, ONE, lambda s: prim("lt", f(s), q, loc=loc), lambda s: prim("mul", s, two, loc=loc), loc)

    def search(c):
        hi = prim("pow", two, c, loc=loc)
        fv = lw.b.var(TupleT((TupleT((Int, Int)), Int)), loc, "_f")

        def step(state):
            def body(lo, hi):
                mid = prim("floordiv", prim("add", lo, hi, loc=loc), two, loc=loc)
                return lw.b.share(mid, lambda m: lw.b.share(prim("lt", f(m), q, loc=loc), lambda below: Tuple((
                    If(below, prim("add", m, ONE, loc=loc), lo, loc), If(below, hi, m, loc)), loc), loc), loc)
            return lw.b.share(Get(0, state, loc), lambda lo: lw.b.share(Get(1, state, loc), lambda h: body(lo, h),
                                                                        loc), loc)
        ks = lw.b.var(Int, loc, "_k")
        fold = Fold(Tuple((ZERO, hi), loc), Build(prim("add", c, ONE, loc=loc), ks, ks, loc), fv,
                    lw.b.share(Get(0, fv, loc), step, loc), loc)
        return Get(0, fold, loc)
    return lw.b.share(doublings, search, loc)


TABLE += [((np.arange,), h_arange, ("dtype",))]


# ------------------------------------------------------------ np.einsum and batched matmul

_EINSUM_COUNT = ("{} operands provided to einstein sum function than specified in the subscripts string")


def _shape_text(parts: list[str]) -> str:
    """A shape as NumPy prints it in einsum's and matmul's messages: leading newaxes left
    out, (3,) for one axis."""
    while parts and parts[0] == "newaxis":
        parts = parts[1:]
    return "(" + ",".join(parts) + ("," if len(parts) == 1 else "") + ")"


def contract(lw, ops: list[Term], letters: list[str], out: str, loc, name: str, mismatch) -> Term:
    """The sum over the letters not in `out` of the products of the elements of atoms ops,
    operand k indexed by letters[k] (a letter twice in one operand: its diagonal), as builds
    over the letters of out: NumPy's einsum. A letter's lengths in one operand must be equal
    (NumPy's message); across operands they broadcast (1 stretches) and a mismatch is
    mismatch(iteration letters), a message over the operands' sizes {k} in order."""
    binds = []
    for k, (x, ls) in enumerate(zip(ops, letters)):
        shape = lw.b.shape(x)
        for q, c in enumerate(ls):
            first = ls.index(c)
            if first != q and not lw.b.shapes.same(shape[first], shape[q]):
                a, b = shape[first].size, shape[q].size
                binds += lw.b.check(prim("eq", a, b, loc=loc), (a, b), loc, name,
                                    f"dimensions in operand {k} for collapsing index '{c}' don't match ({{0}} != {{1}})",
                                    equal=((b, a),))
    summed = sorted({c for ls in letters for c in ls} - set(out))
    order = list(out) + summed
    dims, reads, conds = {}, {}, []
    for c in order:
        members = [(k, lw.b.shape(x)[ls.index(c)]) for k, (x, ls) in enumerate(zip(ops, letters)) if c in ls]
        dim, rd, b, cs = lw.b.broadcast_axis(members, loc)
        dims[c], reads[c] = dim, rd
        binds += b
        conds += cs
    sizes = tuple(d.size for x in ops for d in lw.b.shape(x))
    binds += lw.b.check(all_(conds), sizes, loc, name, mismatch(order), equal=tuple(lw.b.equal))
    lw.b.equal.clear()

    def product(ix: dict) -> Term:
        out_t = None
        for k, (x, ls) in enumerate(zip(ops, letters)):
            e = index_chain(x, [reads[c][k](ix[c]) for c in ls], loc)
            out_t = e if out_t is None else lw.b.arith("mul", out_t, e, loc)
        return out_t

    def summing(ix: dict, rest: list[str]) -> Term:
        if not rest:
            return product(ix)
        i = lw.b.var(Int, loc, "_k")
        return prim("sum", Build(fresh(dims[rest[0]].size, loc), i, summing({**ix, rest[0]: i}, rest[1:]), loc), loc=loc)

    body = builds(lw, [fresh(dims[c].size, loc) for c in out], lambda *ix: summing(dict(zip(out, ix)), summed), loc) \
        if out else summing({}, summed)
    return make_lets(binds, body)


def _ellipsis_named(text: str, ranks: list[int]) -> tuple[str, str | None]:
    """Subscripts with '...' written out with letters of their own: each operand's ellipsis
    stands for its axes not named, aligned on the right across operands as NumPy broadcasts
    them; the output (implicit: the ellipsis axes, then the letters used once, sorted) gets them
    all. Returns (subscripts, None), or (text, NumPy's error message)."""
    ins, arrow, out = text.partition("->")
    terms = ins.split(",")
    for k, term in enumerate(terms + ([out] if arrow else [])):
        if term.replace("...", "", 1).count(".") or term.count("...") > 1:
            which = f"operand {k}" if k < len(terms) else "the output"
            return text, (f"einstein sum subscripts string contains a '.' that is not part of an ellipsis ('...') "
                          f"in {which}")
    if len(terms) != len(ranks):
        return text, None  # the caller says how many operands there should be
    widths = []
    for k, (term, r) in enumerate(zip(terms, ranks)):
        named = len(term.replace("...", ""))
        if "..." in term and named > r:
            return text, f"einstein sum subscripts string contains too many subscripts for operand {k}"
        widths.append(r - named if "..." in term else 0)
    width = max(widths, default=0)
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in text][:width]
    if arrow and "..." not in out and width > 0:
        return text, ("output has more dimensions than subscripts given in einstein sum, but no '...' ellipsis "
                      "provided to broadcast the extra dimensions.")
    named = [t.replace("...", "".join(spare[width - w:])) for t, w in zip(terms, widths)]
    if arrow:
        out = out.replace("...", "".join(spare))
    else:
        used = "".join(t.replace("...", "") for t in terms)
        out = "".join(spare) + "".join(sorted(c for c in set(used) if used.count(c) == 1))
    return ",".join(named) + "->" + out, None


def h_einsum(lw, obj, node, args, kwargs):
    """np.einsum(subscripts, *operands) with explicit ('ij,jk->ik') or implicit output,
    repeated letters (traces, diagonals), any number of operands, and '...' for the axes not named."""
    loc, name = lw.loc(node), display(obj)
    if not args:
        lw.fail(node, name, f"{name}() takes the subscripts and the operands", CatadTypeError)
    spec = args[0]
    from .freenames import NOT_STATIC  # freenames imports statements, which imports this
    written = lw.static_str(spec) if isinstance(spec, ast.AST) else NOT_STATIC
    if written is NOT_STATIC:
        lw.fail(spec, name, f"the subscripts of {name}() must be a string known while compiling, e.g. 'ij,jk->ik'")
    text = written.replace(" ", "")
    if text.count("->") > 1 or "-" in text.replace("->", "") or ">" in text.replace("->", ""):
        lw.fail(spec, name, f"{name}() subscripts must have at most one '->'", CatadTypeError)
    ops = [array_arg(lw, a, obj, node) if not isinstance(a, ast.Constant) else lw.arg(a) for a in args[1:]]
    for x in ops:
        if scalar_of(x.type) not in (Int, Float):
            lw.fail(node, name, f"{name}() takes arrays of numbers, got a {x.type}", CatadTypeError)
    if any(scalar_of(x.type) == Float for x in ops):
        ops = [lw.b.to_float(x, loc) for x in ops]
    if "." in text:
        text, message = _ellipsis_named(text, [rank(x.type) for x in ops])
        if message is not None:
            elem = Float if any(scalar_of(x.type) == Float for x in ops) else Int
            return Failure(loc, name, message).term(lw, elem)
    ins, arrow, out = text.partition("->")
    letters = ins.split(",")
    counts = {}
    for c in "".join(letters):
        counts[c] = counts.get(c, 0) + 1
    if not arrow:
        out = "".join(sorted(c for c, n in counts.items() if n == 1))
    elem = Float if any(scalar_of(x.type) == Float for x in ops) else Int
    fail = lambda message: Failure(loc, name, message).term(lw, vec_of(elem, len(out)) if out else elem)
    bad = next((c for c in text.replace("->", "").replace(",", "") if not c.isalpha()), None)
    if bad is not None:
        return fail(f"invalid subscript '{bad}' in einstein sum subscripts string, subscripts must be letters")
    if len(letters) != len(ops):
        return fail(_EINSUM_COUNT.format("more" if len(letters) > len(ops) else "fewer"))
    for k, (x, ls) in enumerate(zip(ops, letters)):
        if len(ls) > rank(x.type):
            return fail(f"einstein sum subscripts string contains too many subscripts for operand {k}")
        if len(ls) < rank(x.type):
            return fail("operand has more dimensions than subscripts given in einstein sum, but no '...' ellipsis "
                        "provided to broadcast the extra dimensions.")
    for c in out:
        if out.count(c) > 1:
            return fail(f"einstein sum subscripts string includes output subscript '{c}' multiple times")
        if c not in counts:
            return fail(f"einstein sum subscripts string included output subscript '{c}' which never appeared in "
                        "an input")

    def mismatch(order):
        parts, j = [], 0
        for x, ls in zip(ops, letters):
            own = ["{%d}" % (j + q) for q in range(len(ls))]
            j += len(ls)
            mapped = [own[ls.index(c)] if c in ls else "newaxis" for c in order]
            parts.append(f"{_shape_text(own)}->{_shape_text(mapped)} ")
        return "operands could not be broadcast together with remapped shapes [original->remapped]: " + "".join(parts)
    return lw.b.share_all(ops, lambda *xs: contract(lw, list(xs), letters, out, loc, name, mismatch), loc)


TABLE += [((np.einsum,), h_einsum, ("optimize",))]


_MATMUL_CORE = ("matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
                "(n?,k),(k,m?)->(n?,m?) (size {0} is different from {1})")


def matmul(lw, a: Term, b: Term, loc) -> Term:
    """a @ b with an operand of rank 3 or more: NumPy's stacks of matrices, the axes before
    the last two broadcast (a vector is a row on the left, a column on the right, its axis
    then dropped); the contracted lengths must be equal."""
    ra, rb = rank(a.type), rank(b.type)
    nb = max(ra, rb) - 2
    batch = [chr(ord("A") + q) for q in range(nb)]
    la = "".join(batch[nb - (ra - 2):]) + "nk" if ra > 1 else "k"
    lb = "".join(batch[nb - (rb - 2):]) + "km" if rb > 1 else "k"
    out = "".join(batch) + ("n" if ra > 1 else "") + ("m" if rb > 1 else "")
    if scalar_of(a.type) == Float or scalar_of(b.type) == Float:
        a, b = lw.b.to_float(a, loc), lw.b.to_float(b, loc)

    def mismatch(order):
        parts, j = [], 0
        for ls, r in ((la, ra), (lb, rb)):
            own = ["{%d}" % (j + q) for q in range(r)]
            nbatch = max(r - 2, 0)
            lead = ["newaxis"] * (nb - nbatch)
            parts.append(f"{_shape_text(own)}->{_shape_text(lead + own[:nbatch] + ['newaxis'] * min(r, 2))} ")
            j += r
        core = (["{%d}" % (ra - 2)] if ra > 1 else []) + (["{%d}" % (ra + rb - 1)] if rb > 1 else [])
        return ("operands could not be broadcast together with remapped shapes [original->remapped]: "
                + "".join(parts) + f" and requested shape {_shape_text(core)}")

    def body(x, y):
        kx, ky = lw.b.shape(x)[-1], lw.b.shape(y)[0 if rb == 1 else -2]
        chk = [] if lw.b.shapes.same(kx, ky) else lw.b.check(prim("eq", kx.size, ky.size, loc=loc),
                                                              (ky.size, kx.size), loc, "matmul", _MATMUL_CORE,
                                                              equal=((ky.size, kx.size),))
        return make_lets(chk, contract(lw, [x, y], [la, lb], out, loc, "matmul", mismatch))
    return lw.b.share_all([a, b], body, loc)


def h_inner(lw, obj, node, args, kwargs):
    """np.inner(a, b): the sums of products over the last axes of a and b (the others side by
    side: shape a.shape[:-1] + b.shape[:-1]); a number times an array when one is a number.
    The last axes' lengths must be equal (no broadcasting of 1), as NumPy checks."""
    a, b = (lw.arg(x) for x in _two(lw, obj, node, args))
    loc = lw.loc(node)
    if not is_array(a) or not is_array(b):
        return lw.binop(ast.Mult(), a, b, node)
    ra, rb = rank(a.type), rank(b.type)
    la, lb = _LETTERS[:ra - 1] + "z", _LETTERS[ra - 1:ra + rb - 2] + "z"
    # NumPy's words: b's shape with its last axis first, as its implementation moves it
    shown = (_shape_text(["{%d}" % k for k in range(ra)]) + " and "
             + _shape_text(["{%d}" % (ra + rb - 1)] + ["{%d}" % (ra + k) for k in range(rb - 1)]))
    message = f"shapes {shown} not aligned: {{{ra - 1}}} (dim {ra - 1}) != {{{ra + rb - 1}}} (dim 0)"

    def body(x, y):
        sx, sy = lw.b.shape(x), lw.b.shape(y)
        chk = [] if lw.b.shapes.same(sx[-1], sy[-1]) else lw.b.check(
            prim("eq", sx[-1].size, sy[-1].size, loc=loc), tuple(d.size for d in sx + sy), loc, "np.inner",
            message, equal=((sx[-1].size, sy[-1].size),))
        # the same sizes in the same order: contract's own check (of 1 broadcasting) never fails after chk
        return make_lets(chk, contract(lw, [x, y], [la, lb], la[:-1] + lb[:-1], loc, "np.inner", lambda _: message))
    return lw.b.share_all([a, b], body, loc)


def h_vdot(lw, obj, node, args, kwargs):
    """np.vdot(a, b) of real arrays: the sum of the products of their elements in C order (both
    flattened; their sizes must be equal, as NumPy's reshape checks); of numbers, their product."""
    a, b = (lw.arg(x) for x in _two(lw, obj, node, args))
    loc = lw.loc(node)
    if not is_array(a) and not is_array(b):
        return lw.binop(ast.Mult(), a, b, node)
    if not (is_array(a) and is_array(b)):
        lw.fail(node, "np.vdot", "np.vdot() of a number and an array is not supported (NumPy takes it only when the "
                "array has one element)", hint="write np.sum(a * b)")
    flat = [t if rank(t.type) == 1 else reshape(lw, t, [Const(-1, Int)], loc, np.ravel) for t in (a, b)]

    def body(x, y):
        nx, ny = lw.b.shape(x)[0].size, lw.b.shape(y)[0].size
        chk = [] if lw.b.shapes.same(lw.b.shape(x)[0], lw.b.shape(y)[0]) else lw.b.check(
            prim("eq", nx, ny, loc=loc), (ny, nx), loc, "np.vdot", "cannot reshape array of size {0} into shape ({1},)",
            equal=((nx, ny),))
        message = "cannot reshape array of size {1} into shape ({0},)"  # contract's sizes: x's, then y's
        return make_lets(chk, contract(lw, [x, y], ["z", "z"], "", loc, "np.vdot", lambda _: message))
    return lw.b.share_all(flat, body, loc)


def _two(lw, obj, node, args) -> list:
    if len(args) != 2:
        lw.fail(node, display(obj), f"{display(obj)}() takes 2 arguments, got {len(args)}", CatadTypeError)
    return args


_LETTERS = "abcdefghijklmnopqrstuvwxy"
TABLE += [((np.inner,), h_inner, ()), ((np.vdot,), h_vdot, ())]


def h_logical(lw, obj, node, args, kwargs):
    """np.logical_not, np.logical_and, np.logical_or, np.logical_xor, elementwise with NumPy's
    broadcasting; a number is true where it is not 0."""
    loc, name = lw.loc(node), display(obj)
    _arity(lw, obj, node, args, 1 if obj is np.logical_not else 2)
    ts = [lw.arg(a) for a in args]
    for t in ts:
        if scalar_of(t.type) not in (Bool, Int, Float):
            lw.fail(node, name, f"{name}() takes Bools or numbers, got a {t.type}", CatadTypeError)

    def truth(x):
        if x.type == Bool:
            return x
        zero = Const(0.0, Float, loc) if x.type == Float else ZERO
        return prim("ne", x, zero, loc=loc)

    def f(*xs):
        xs = [truth(x) for x in xs]
        if obj is np.logical_not:
            return prim("not", xs[0], loc=loc)
        if obj is np.logical_and:
            return If(xs[0], xs[1], FALSE, loc)
        if obj is np.logical_or:
            return If(xs[0], TRUE, xs[1], loc)
        return lw.b.share(xs[1], lambda y: If(xs[0], prim("not", y, loc=loc), y, loc), loc)
    return lw.b.elementwise(f, ts, loc, name) if any(is_array(t) for t in ts) else f(*ts)


TABLE += [((np.logical_not, np.logical_and, np.logical_or, np.logical_xor), h_logical, ())]
