"""np.vectorize(f)(x, ...) (and vf = np.vectorize(f); vf(x, ...)): f called on each element of the
broadcast of its arguments, as NumPy's vectorize calls it: an elementwise build whose element is
the call (catad.frontend.broadcast), of a def or lambda of the function, a function of yours or
one catad knows (math.gamma, np.sin, ...).

NumPy's vectorize passes NumPy's numbers (an array's elements) and makes an array of what f
returns, of f's type (a tuple of arrays where f returns a tuple); of numbers only, an array of no
axes. Without `otypes` it raises ValueError on an argument with no elements (it calls f on the
first element to learn the type); with otypes=[float] (or 'd', np.float64) the results are made
floats. Other options (excluded, signature, cache) are refused.
"""
from __future__ import annotations

import ast

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import Const, Term, make_lets
from ..lang.types import Bool, Float, Int, rank
from ..primitives import prim
from .common import is_array, or_
from .freenames import NOT_STATIC

_MESSAGE = "cannot call `vectorize` on size 0 inputs unless `otypes` is set"


class Vectorized:
    """What vf = np.vectorize(f, ...) binds vf to: the np.vectorize(...) call, lowered where vf is called."""

    def __init__(self, node: ast.Call):
        self.node = node


def is_vectorize(lw, node: ast.expr) -> bool:
    """node is a call of np.vectorize (what the name denotes, read as Python reads it)."""
    return isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) and \
        getattr(node.func, "attr", getattr(node.func, "id", None)) == "vectorize" and lw.static(node.func) is np.vectorize


def _float_otypes(lw, node: ast.expr) -> bool:
    """otypes that ask for float64 results: [float], (float,), 'd', [np.float64], ...; else refused."""
    items = node.elts if isinstance(node, (ast.List, ast.Tuple)) else [node]
    if isinstance(node, ast.Constant) and node.value in ("d", "f8", "float64"):
        return True
    if len(items) == 1 and isinstance(items[0], (ast.Name, ast.Attribute)) and \
            lw.static(items[0]) in (float, np.float64, np.double):
        return True
    lw.fail(node, "np.vectorize", "np.vectorize(..., otypes=...) is supported for float results only (otypes=[float])")


def call(lw, vnode: ast.Call, node: ast.Call) -> Term:
    """np.vectorize(*vnode.args, **vnode.keywords)(*node.args)."""
    loc = lw.loc(node)
    if len(vnode.args) != 1 or any(isinstance(a, ast.Starred) for a in vnode.args):
        lw.fail(vnode, "np.vectorize", "np.vectorize takes the function to vectorise, and its options by keyword",
                CatadTypeError)
    otypes = False
    for kw in vnode.keywords:
        if kw.arg == "otypes":
            otypes = _float_otypes(lw, kw.value)
        elif not (kw.arg in ("excluded", "signature", "doc", "cache") and isinstance(kw.value, ast.Constant)
                  and kw.value.value in (None, False) or kw.arg == "doc"):
            lw.fail(kw, "np.vectorize", f"np.vectorize(..., {kw.arg}=...) is not supported")
    if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
        lw.fail(node, "np.vectorize", "a vectorised function is called with its arguments by position here")
    if not node.args:
        lw.fail(node, "np.vectorize", "a vectorised function needs at least one argument here", CatadTypeError)
    fnode = vnode.args[0]
    operands = [lw.expr(a) for a in node.args]
    for t, a in zip(operands, node.args):
        if t.type not in (Int, Float) and not (is_array(t) and rank(t.type) >= 1) or lw.is_list(t):
            lw.fail(a, "np.vectorize", f"a vectorised function's arguments are numbers or arrays here, got "
                    f"{'a list' if lw.is_list(t) else 'a ' + str(t.type)}", CatadTypeError,
                    hint="make a list an array first: np.array(xs)")
    # NumPy makes each argument an array: a number's element is NumPy's number
    operands = [t if is_array(t) else lw.as_numpy(t.replace()) for t in operands]

    def element(*xs):
        out = _called(lw, fnode, node, list(xs))
        if not isinstance(out, Term) or out.type not in (Int, Float, Bool):
            lw.fail(node, "np.vectorize", "the vectorised function must return a number here")
        return lw.b.to_float(out, loc) if otypes else out
    if not any(is_array(t) for t in operands):  # of numbers: NumPy's array of no axes
        return lw.as_zero_d(lw.as_numpy(lw.b.share_all(operands, element, loc)))

    def body(*ops):
        out = lw.b.elementwise(element, list(ops), loc, "np.vectorize")
        if otypes:
            return out
        empty = None  # NumPy's ValueError where an argument has no elements (its first call learns the type)
        for v in ops:
            if is_array(v):
                e = prim("eq", lw.b.count(v, loc), Const(0, Int, loc), loc=loc)
                empty = e if empty is None else or_(empty, e)
        chk = lw.b.check(prim("not", empty, loc=loc), (), loc, "np.vectorize", _MESSAGE, "domain")
        return make_lets(chk, out)
    return lw.b.share_all(operands, body, loc)


def _called(lw, fnode: ast.expr, node: ast.Call, args: list) -> Term:
    """fnode(*args), args terms: a lambda, a def of the function, a function of yours or one catad
    knows (as expressions.x_Call dispatches a call)."""
    from . import calls
    from .statements import LocalFunction
    fake = ast.copy_location(ast.Call(func=fnode, args=[], keywords=[]), node)
    lw.made_syntax.append(fake)
    if isinstance(fnode, ast.Lambda):
        return lw.call_local(lw.local_function(fnode, None), fake, args)
    obj = lw.static(fnode)
    if obj is NOT_STATIC:
        lw.fail(fnode, "np.vectorize", "np.vectorize takes a function named directly (a def, a lambda, a function "
                "of yours or NumPy's) here")
    if isinstance(obj, LocalFunction):
        return lw.call_local(obj, fake, args)
    user = calls.user_function(obj)
    if user is not None:
        return lw.call_user(user, fake, args)
    return calls.call(lw, obj, fake, args)


def h_vectorize(lw, obj, node, args, kwargs):
    """np.vectorize(f) anywhere but called at once or assigned to a name that is called."""
    lw.fail(node, "np.vectorize", "np.vectorize(f) is supported where it is called at once, np.vectorize(f)(x), "
            "or assigned to a name that is called, vf = np.vectorize(f); vf(x)")


TABLE = [((np.vectorize,), h_vectorize, ("otypes", "excluded", "signature", "doc", "cache"))]
