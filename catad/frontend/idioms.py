"""Small idioms of numeric code, each as Python or NumPy computes it:

* ``divmod(a, b)`` of numbers: ``(a // b, a % b)``, Python's floor division and remainder (which
  is how Python's divmod defines them, for ints and floats); of arrays, and ``np.divmod``, NumPy's
  ``(np.floor_divide(a, b), np.mod(a, b))``, which its divmod equals;
* ``x.item()``: a number itself; an array's one element (NumPy's ValueError "can only convert an
  array of size 1 to a Python scalar" otherwise);
* ``sorted(v)``, ``sorted(v, reverse=True)`` of a 1-d array or list of numbers: NumPy's stable
  sort (descending: the stable sort of -v, negated back, so equal values keep their order as
  Python's reverse=True keeps it), made a Python list. Python orders a NaN as its comparisons
  happen to fall, which NumPy's sort does not reproduce: a NaN is a run-time refusal;
* ``np.meshgrid(*xi, indexing='xy')`` of vectors: NumPy's tuple of coordinate arrays (with
  'xy' the first two axes swapped), ``sparse=False``.
"""
from __future__ import annotations

import ast
import operator

from ..errors import CatadTypeError
import builtins

import numpy as np

from ..lang.terms import TRUE, Build, Const, If, Term, Tuple, make_lets
from ..lang.types import Bool, Float, Int, rank, scalar_of
from ..primitives import prim
from . import iterators
from .calls import display
from .common import MIXED, both_python, index_chain, is_array, where_python
from .numpy_arrays import _is_none, array_arg, bind_args, builds, reshape


def h_divmod(lw, obj, node, args, kwargs):
    """divmod(a, b) of numbers: (a // b, a % b), Python's floor division and remainder; of arrays,
    and np.divmod, NumPy's: (np.floor_divide(a, b), np.mod(a, b)), to which it is equal."""
    name = display(obj)
    if len(args) != 2 or kwargs:
        lw.fail(node, name, f"{name} expected 2 arguments, got {len(args)}", CatadTypeError)
    a, b = (lw.arg(x) for x in args)
    loc = lw.loc(node)
    if obj is np.divmod:  # NumPy's, of any numbers (np.divmod(1.0, 0.0) is (inf, nan))
        a, b = lw.numpy_operand(a), lw.numpy_operand(b)
    if obj is np.divmod or is_array(a) or is_array(b):
        return lw.b.share_all([a, b], lambda x, y: Tuple(tuple(lw.binop(op, x, y, node)
                                                               for op in (ast.FloorDiv(), ast.Mod())), loc), loc)

    def both(x, y):
        x, y = lw.keep_py(a, x), lw.keep_py(b, y)  # (a shared atom keeps its operand's mark)
        wa, wb = lw.py_when(x), lw.py_when(y)
        if wa is None or wb is None:  # NumPy's divmod: its inf and nan
            return Tuple((lw.binop(ast.FloorDiv(), x, y, node), lw.binop(ast.Mod(), x, y, node)), loc)
        # Python's divmod raises its own ZeroDivisionError first, where both are Python's numbers
        # (sum(e for e in v if p(e)) is Python's 0 where nothing passes); then // and % of them
        when = both_python(wa[0], wb[0])
        ints = wa[1] in (Int, Bool) and wb[1] in (Int, Bool)
        zero = Const(0, Int) if y.type == Int else Const(0.0, Float) if y.type == Float else Const(False, Bool)
        chk = lw.b.check(where_python(when, prim("ne", y, zero, loc=loc), loc), (), loc, "divmod",
                         "integer division or modulo by zero" if ints else "float divmod()", "zerodiv")
        if when is not TRUE:  # (their own checks, after this one, hold where it does)
            return make_lets(chk, Tuple((lw.binop(ast.FloorDiv(), x, y, node), lw.binop(ast.Mod(), x, y, node)), loc))
        q, r = (lw.binop(op, x.replace(), y.replace(), node) for op in (ast.FloorDiv(), ast.Mod()))  # unmarked: checked
        return make_lets(chk, Tuple((lw.as_py(q), lw.as_py(r)), loc))
    return lw.b.share_all([a, b], both, loc)



def item(lw, base: Term, node: ast.Call) -> Term:
    """x.item() of a number or of an array of one element (any rank): that element."""
    if node.args or node.keywords:
        lw.fail(node, ".item()", ".item() with arguments is not supported", hint="index the array: x[i]")
    if not is_array(base):
        return base
    loc = lw.loc(node)

    def one(flat):
        n = lw.b.size(flat, 0, loc)
        chk = lw.b.check(prim("eq", n, Const(1, Int), loc=loc), (), loc, ".item()",
                         "can only convert an array of size 1 to a Python scalar")
        return make_lets(chk, prim("index", Const(0, Int), flat, loc=loc))
    flat = base if rank(base.type) == 1 else reshape(lw, base, [Const(-1, Int)], loc, np.ravel)
    return lw.b.share(flat, one, loc)


def h_sorted(lw, obj, node, args, kwargs):
    """sorted(v, reverse=False) of a 1-d array or list of numbers: NumPy's stable sort, as a list;
    with key=, the stable order of the keys (_sorted_by_key)."""
    from .numpy_signal import _sorted1
    if len(args) != 1:
        lw.fail(node, "sorted", f"sorted expected 1 argument, got {len(args)}", CatadTypeError)
    reverse = kwargs.get("reverse")
    rev = False
    if reverse is not None:
        r = lw.arg(reverse)
        if not (isinstance(r, Const) and r.type in (Int, Bool)):
            lw.fail(reverse, "sorted", "reverse= of sorted must be a constant True or False")
        rev = bool(r.value)
    # sorted(g) of a generator (a map's, a filter's: calls.call) is sorted of its list comprehension
    v = lw.arg(iterators.as_list_comprehension(lw, args[0]) if isinstance(args[0], ast.GeneratorExp) else args[0])
    if "key" in kwargs and not _is_none(kwargs["key"]):
        return _sorted_by_key(lw, node, v, kwargs["key"], rev)
    if not is_array(v) or rank(v.type) != 1:
        lw.fail(node, "sorted", f"sorted() of a {v.type} is not supported; of a 1-d array or list of numbers it is",
                CatadTypeError)
    loc = lw.loc(node)
    neg = lambda t: lw.b.elementwise(lambda e: prim("neg", e, loc=loc), [t], loc)

    def body(x):
        out = neg(lw.b.share(neg(x), lambda y: _sorted1(lw, y, loc), loc)) if rev else _sorted1(lw, x, loc)
        if scalar_of(x.type) != Float:
            return out
        i = lw.b.var(Int, loc, "_i")
        nans = lw.b.sum_all(Build(lw.b.size(x, 0, loc), i, _is_nan(lw, prim("index", i, x, loc=loc), loc), loc), loc)
        def checked(count):  # a check's condition reads variables, not builds
            chk = lw.b.check(prim("eq", count, Const(0, Int), loc=loc), (), loc, "sorted",
                             "sorted() of values holding a NaN: Python orders a NaN as its comparisons happen to "
                             "fall, which catad does not reproduce; use np.sort (NaNs last) or remove the NaNs",
                             "domain")
            return make_lets(chk, out)
        return lw.b.share(nans, checked, loc)
    out = lw.mark_zero_d_items(lw.as_list(lw.b.share(v, body, loc)), v)
    # the items in another order: all Python's (or NumPy's) still, else of a kind by their values
    kind = lw.item_kind(v) if lw.is_list(v) else "numpy"
    return lw.mark_py_items(out) if kind == "py" else out if kind == "numpy" else lw.mark_py_layout(out, MIXED)


def _sorted_by_key(lw, node, v: Term, key: ast.expr, rev: bool) -> Term:
    """sorted(v, key=f, reverse=rev): v's items (numbers) in the stable order of their keys
    (np.lexsort of the keys, of their negatives for reverse: equal keys keep their order, as in
    Python's sorted with reverse=True); a NaN key is refused when the function runs, as sorted's
    NaN is."""
    from .extremes_by_key import keys_of, numpy_items
    from .numpy_signal import _order
    loc = lw.loc(node)
    if not is_array(v) or rank(v.type) != 1:
        lw.fail(node, "sorted", f"sorted(..., key=...) of a {v.type} is not supported; of a 1-d array or a list of "
                "numbers it is", CatadTypeError)
    numpy_items(lw, v, node, "sorted(..., key=...)")
    holder = lw.names.syntax("_items")

    def body(x):
        lw.env[holder] = x
        keys = keys_of(lw, node, key, holder, "sorted")
        if keys.type.elem == Bool:  # (ints stay ints: as floats, ints past 2**53 would tie)
            keys = lw.b.elementwise(lambda e: If(e, Const(1, Int, loc), Const(0, Int, loc), loc), [keys], loc)

        def ordered(ks):
            ordering = lw.b.elementwise(lambda e: prim("neg", e, loc=loc), [ks], loc) if rev else ks

            def gathered(order):
                i = lw.b.var(Int, loc, "_i")
                return Build(lw.b.size(x, 0, loc), i, prim("index", prim("index", i, order, loc=loc), x, loc=loc), loc)
            out = lw.b.share(lw.b.share(ordering, lambda o: _order(lw, o, loc), loc), gathered, loc)
            i = lw.b.var(Int, loc, "_i")
            nans = lw.b.sum_all(Build(lw.b.size(ks, 0, loc), i, _is_nan(lw, prim("index", i, ks, loc=loc), loc), loc),
                                loc)

            def checked(count):
                chk = lw.b.check(prim("eq", count, Const(0, Int), loc=loc), (), loc, "sorted",
                                 "sorted(..., key=...) with a key that is a NaN: Python orders a NaN as its "
                                 "comparisons happen to fall, which catad does not reproduce", "domain")
                return make_lets(chk, out)
            return lw.b.share(nans, checked, loc)
        return lw.b.share(keys, ordered, loc)
    out = lw.mark_zero_d_items(lw.as_list(lw.b.share(v, body, loc)), v)
    kind = lw.item_kind(v) if lw.is_list(v) else "numpy"
    return lw.mark_py_items(out) if kind == "py" else out if kind == "numpy" else lw.mark_py_layout(out, MIXED)


def _is_nan(lw, e: Term, loc) -> Term:
    """1 where e is a NaN, else 0 (an Int, summed)."""
    return lw.b.share(e, lambda x: If(prim("ne", x, x, loc=loc), Const(1, Int), Const(0, Int), loc), loc)


def h_meshgrid(lw, obj, node, args, kwargs):
    """np.meshgrid(*xi, indexing='xy', sparse=False): the coordinate arrays of vectors (the first two
    axes swapped for 'xy')."""
    name = display(obj)
    for k, v in kwargs.items():
        if k == "indexing":
            continue
        if k == "sparse" and isinstance(v, ast.Constant) and v.value is False:
            continue
        if k == "copy":
            continue
        lw.fail(v, name, f"{k}= of {name}() is not supported" if k != "sparse" else "sparse=True of np.meshgrid() is "
                "not supported", hint="leave sparse False")
    ind = kwargs.get("indexing")
    indexing = "xy" if ind is None else ind.value if isinstance(ind, ast.Constant) else lw.static(ind)
    if indexing not in ("xy", "ij"):
        lw.fail(ind, name, "Valid values for `indexing` are 'xy' and 'ij'.", CatadTypeError)
    loc = lw.loc(node)
    xs = [array_arg(lw, a, obj, node) for a in args]
    if any(rank(x.type) != 1 for x in xs):
        lw.fail(node, name, f"{name}() of vectors is supported (NumPy flattens other arrays first)",
                CatadTypeError, "pass x.ravel()")
    if not xs:
        return Tuple((), loc)

    def body(*vs):
        sizes = [lw.b.size(v, 0, loc) for v in vs]
        axis_of = list(range(len(vs)))  # output axis holding input k's index
        if indexing == "xy" and len(vs) > 1:
            sizes[0], sizes[1] = sizes[1], sizes[0]
            axis_of[0], axis_of[1] = 1, 0
        return Tuple(tuple(builds(lw, sizes, lambda *ix, k=k: index_chain(v, [ix[axis_of[k]]], loc), loc)
                           for k, v in enumerate(vs)), loc)
    return lw.b.share_all(xs, body, loc)


_OPERATORS = {operator.add: ast.Add, operator.sub: ast.Sub, operator.mul: ast.Mult, operator.truediv: ast.Div,
              operator.floordiv: ast.FloorDiv, operator.mod: ast.Mod, operator.pow: ast.Pow,
              operator.matmul: ast.MatMult}


def h_operator_fn(lw, obj, node, args, kwargs):
    """operator.add(a, b), operator.mul, ... (the operator module's arithmetic): a + b, a * b, ...
    as Python computes them (a function given to functools.reduce or map, most often)."""
    name = f"operator.{obj.__name__}"
    if len(args) != 2:
        lw.fail(node, name, f"{obj.__name__} expected 2 arguments, got {len(args)}", CatadTypeError)
    a, b = (lw.value_arg(x) for x in args)
    return lw.binop(_OPERATORS[obj](), a, b, node)


TABLE = [((builtins.divmod, np.divmod), h_divmod, ()), (tuple(_OPERATORS), h_operator_fn, ()), ((builtins.sorted,), h_sorted, ("key", "reverse")),
         ((np.meshgrid,), h_meshgrid, ("indexing", "sparse", "copy"))]
