"""np.linalg.norm(x, ord=None, axis=None, keepdims=False) as NumPy's numpy/linalg/_linalg.py
computes it, case by case:

* axis None and ord None (any rank), 'fro' or 'f' of a matrix, 2 of a vector: the square root of
  the sum of squares of every element;
* one axis (an int, or every axis of a vector): inf is ``max(|x|)`` with NumPy's ``initial=0``
  (0 for no elements), -inf ``min(|x|)``, 1 ``sum(|x|)``, None and 2 ``sqrt(sum(x * x))``, any
  other number p ``sum(|x| ** p) ** (1.0 / p)``; a string is NumPy's ValueError;
* two axes (a pair, or every axis of a matrix): 1 and -1 the largest and smallest column sum of
  ``|x|``, inf and -inf the row sums', None, 'fro' and 'f' the Frobenius norm, 2 and -2 the
  largest and smallest singular value and 'nuc' their sum (the svdvals primitive of the
  matrices moved to the last two axes, differentiated as np.linalg.svd is); other orders are
  NumPy's ValueError;
* more axes: NumPy's "Improper number of dimensions to norm."

ord=0 (the number of nonzero elements) is refused: a count, with no derivative, that would
silently give a zero gradient; ``np.sum(x != 0)`` says what it computes.
"""
from __future__ import annotations

import ast
import math

import numpy as np

from ..lang.terms import Call, Const, Term
from ..lang.types import Float, Int, rank, vec_of
from ..primitives import prim
from .calls import display
from .common import is_array
from .linalg import each_matrix
from .numpy_arrays import (Failure, _is_none, array_arg, bind_args, builds, concatenate, keep_dims, permute, reduce,
                           static_axes, static_bool)


def _order(lw, a, node, name: str):
    """ord as its Python value: None, a number (inf, -inf included) or a string."""
    if _is_none(a):
        return None
    if isinstance(a, ast.Constant) and isinstance(a.value, str):
        return a.value
    if isinstance(a, (ast.Name, ast.Attribute)) and isinstance(lw.static(a), str):  # a global string
        return lw.static(a)
    t = lw.arg(a)
    if isinstance(t, Call) and t.fn == "neg" and isinstance(t.args[0], Const):  # -np.inf
        t = Const(-t.args[0].value, t.args[0].type)
    if not isinstance(t, Const) or isinstance(t.value, bool):
        lw.fail(node, name, f"ord of {name}() must be a constant (a number, np.inf, -np.inf, 'fro' or 'nuc')",
                hint="the order chooses the formula, so it must be known when compiling")
    return t.value


def _elementwise(lw, t: Term, f, loc) -> Term:
    return lw.b.elementwise(f, [t], loc) if is_array(t) else f(t)


def _abs(lw, x: Term, loc) -> Term:
    return _elementwise(lw, x, lambda e: prim("abs", e, loc=loc), loc)


def _max0(lw, t: Term, axis: int, loc, name: str) -> Term:
    """NumPy's max(axis, initial=0) of the atom t (values >= 0): a slab of zeros put before t
    along the axis, so no elements give 0 and the maximum is read as NumPy reads it."""
    r = rank(t.type)
    sizes = [lw.b.size(t, q, loc) if q != axis else Const(1, Int) for q in range(r)]
    zeros = builds(lw, sizes, lambda *ix: Const(0.0, Float), loc)
    return lw.b.share(zeros, lambda z: lw.b.share(concatenate(lw, [z, t], axis, loc, name),
                                                   lambda c: reduce(lw, c, (axis,), "vmax", loc), loc), loc)


def _reduce(lw, t: Term, axis: int, kind: str, loc, name: str) -> Term:
    """sum, vmin or max-with-initial-0 of t (any term) along one axis."""
    if kind == "max0":
        return lw.b.share(t, lambda a: _max0(lw, a, axis, loc, name), loc)
    return lw.b.share(t, lambda a: reduce(lw, a, (axis,), kind, loc), loc)


def _sqrt_sum_squares(lw, x: Term, axes, loc) -> Term:
    squares = _elementwise(lw, x, lambda e: lw.b.share(e, lambda v: prim("mul", v, v, loc=loc), loc), loc)
    total = lw.b.share(squares, lambda s: reduce(lw, s, axes, "sum", loc), loc)
    return _elementwise(lw, total, lambda s: prim("sqrt", s, loc=loc), loc)


def _failure(lw, order, n_axes: int, node, loc, name: str) -> Failure | None:
    """NumPy's ValueError for an order the axes do not take (raised where the call runs); ord=0 of
    vectors refused while compiling."""
    if n_axes == 1 and isinstance(order, str):
        return Failure(loc, name, f"Invalid norm order '{order}' for vectors")
    if n_axes == 1 and order == 0:
        lw.fail(node, name, f"{name}(x, ord=0) counts the nonzero elements: a count, with no derivative",
                hint="write np.sum(x != 0) for the count (its gradient is zero)")
    if n_axes == 2 and order not in (2, -2, "nuc", 1, -1, math.inf, -math.inf, None, "fro", "f"):
        return Failure(loc, name, "Invalid norm order for matrices.")
    if n_axes > 2 or n_axes == 0:  # (axis=())
        return Failure(loc, name, "Improper number of dimensions to norm.")
    return None


def _vector_norm(lw, x: Term, q: int, order, loc, name: str) -> Term:
    """The norm along axis q of the atom x (NumPy's len(axis) == 1 branch)."""
    if order is None or order == 2:
        return _sqrt_sum_squares(lw, x, (q,), loc)
    if order == math.inf:
        return _reduce(lw, _abs(lw, x, loc), q, "max0", loc, name)
    if order == -math.inf:
        return _reduce(lw, _abs(lw, x, loc), q, "vmin", loc, name)
    if order == 1:
        return _reduce(lw, _abs(lw, x, loc), q, "sum", loc, name)
    p = Const(float(order), Float)
    powered = _elementwise(lw, x, lambda e: prim("pow", prim("abs", e, loc=loc), p, loc=loc), loc)
    total = _reduce(lw, powered, q, "sum", loc, name)
    inv = Const(float(np.reciprocal(float(order))), Float)  # NumPy's reciprocal(ord, dtype=float)
    return _elementwise(lw, total, lambda s: prim("pow", s, inv, loc=loc), loc)


def _matrix_norm(lw, x: Term, row: int, col: int, order, loc, name: str) -> Term:
    """The norm over the axes (row, col) of the atom x (NumPy's len(axis) == 2 branch)."""
    r = rank(x.type)
    if order in (2, -2, "nuc"):
        # NumPy's _multi_svd_norm: the singular values of the matrices moved to the last two axes
        others = [q for q in range(r) if q not in (row, col)]
        moved = lw.b.share(x, lambda a: permute(lw, a, others + [row, col], loc), loc)
        s = lw.b.share(moved, lambda m: each_matrix(lw, m, lambda a: prim("svdvals", a, loc=loc), 0, loc), loc)
        kind = {2: "max0", -2: "vmin", "nuc": "sum"}[order]
        return _reduce(lw, s, r - 2, kind, loc, name)
    if order in (1, -1):
        kind = "max0" if order == 1 else "vmin"
        return _reduce(lw, _reduce(lw, _abs(lw, x, loc), row, "sum", loc, name), col - (col > row), kind, loc, name)
    if order in (math.inf, -math.inf):
        kind = "max0" if order > 0 else "vmin"
        return _reduce(lw, _reduce(lw, _abs(lw, x, loc), col, "sum", loc, name), row - (row > col), kind, loc, name)
    return _sqrt_sum_squares(lw, x, tuple(sorted((row, col))), loc)  # None, 'fro', 'f'



def h_norm(lw, obj, node, args, kwargs):
    """np.linalg.norm(x, ord=None, axis=None, keepdims=False): NumPy's vector and matrix norms."""
    p = bind_args(lw, obj, node, args, kwargs, ("x", "ord", "axis", "keepdims"))
    x, loc, name = array_arg(lw, p["x"], obj, node), lw.loc(node), display(obj)
    x = lw.b.to_float(x, loc)  # NumPy: x.astype(float) for integers
    r = rank(x.type)
    order = _order(lw, p.get("ord"), node, name)
    keep = static_bool(lw, p.get("keepdims"), obj, "keepdims", False)
    axes = static_axes(lw, p.get("axis"), obj, r)
    if isinstance(axes, Failure):
        if axes.message.startswith("duplicate"):
            axes = Failure(axes.loc, name, "Duplicate axes given.")
        return axes.term(lw, Float)
    if axes is None and (order is None or order in ("f", "fro") and r == 2 or order == 2 and r == 1):
        out = lw.b.share(x, lambda a: _sqrt_sum_squares(lw, a, None, loc), loc)
        return keep_dims(lw, out, r, None, loc) if keep else out
    axes = tuple(range(r)) if axes is None else axes
    failed = _failure(lw, order, len(axes), node, loc, name)
    if failed is not None:
        return failed.term(lw, vec_of(Float, max(r - len(axes), 0)))
    if len(axes) == 1:
        out = lw.b.share(x, lambda a: _vector_norm(lw, a, axes[0], order, loc, name), loc)
    else:
        out = lw.b.share(x, lambda a: _matrix_norm(lw, a, axes[0], axes[1], order, loc, name), loc)
    return keep_dims(lw, out, r, axes, loc) if keep else out


TABLE = [((np.linalg.norm,), h_norm, ("ord", "axis", "keepdims"))]
