"""np.linalg's det, slogdet, inv, cholesky and solve: calls of the primitives of the same names
(catad/primitives/linalg.py), after the checks NumPy makes.

Ranks are types, so a vector where a matrix is wanted is refused while compiling, with NumPy's
message; that the last two axes are square, and that solve's b has as many rows as A, are
checked once per call where they are not proven (a catad.ShapeError, a ValueError as NumPy's
LinAlgError is). Int and Bool arrays are made Float, as NumPy does. A stack of matrices (more
than two axes) is a build over its leading axes, which the backend compiles as one batched call.
Singular and non-positive-definite matrices raise NumPy's own LinAlgError when the program runs.

The handlers are rows of catad/frontend/calls.py's table.
"""
from __future__ import annotations

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import TRUE, Build, Get, Term, Tuple, make_lets
from ..lang.types import Int, rank
from ..primitives import prim
from .common import index_chain, is_array

_UNARY = {id(np.linalg.det): "det", id(np.linalg.slogdet): "slogdet", id(np.linalg.inv): "inv",
          id(np.linalg.cholesky): "cholesky"}


def _name(obj) -> str:
    return f"np.linalg.{obj.__name__}"


def _arity(lw, obj, node, args, n: int) -> None:
    if len(args) != n:
        lw.fail(node, _name(obj), f"{_name(obj)}() takes {n} argument(s), got {len(args)}", CatadTypeError)


def _matrices(lw, obj, node, t: Term) -> Term:
    """t as Floats, refused (NumPy's LinAlgError message) if it has fewer than two axes."""
    r = rank(t.type) if is_array(t) else 0
    if r < 2:
        lw.fail(node, _name(obj), f"{_name(obj)}(): {r}-dimensional array given. Array must be at least "
                                  f"two-dimensional", CatadTypeError)
    return lw.b.to_float(t, lw.loc(node))


def _square(lw, a: Term, obj, loc) -> list:
    """The check that a's last two axes have one length (none when that is proven)."""
    shape = lw.b.shape(a)
    rows, cols = shape[-2], shape[-1]
    cond = TRUE if lw.b.shapes.same(rows, cols) else prim("eq", rows.size, cols.size, loc=loc)
    return lw.b.check(cond, (), loc, _name(obj), "Last 2 dimensions of the array must be square",
                      equal=((rows.size, cols.size),))


def _over_stack(lw, a: Term, lead: int, f, loc) -> Term:
    """f of each matrix of the stack a, whose first `lead` axes are the stack's: nested builds."""
    idx: list[Term] = []

    def go(k: int) -> Term:
        if k == lead:
            return f(index_chain(a, list(idx), loc))
        i = lw.b.var(Int, loc, "_i")
        idx.append(i)
        return Build(lw.b.size(a, k, loc), i, go(k + 1), loc)
    return go(0)


def _project(lw, s: Term, depth: int, k: int, loc) -> Term:
    """Component k of every tuple of the nest of `depth` vectors s (a stack's slogdet: NumPy
    returns the signs and the logarithms as two arrays)."""
    idx: list[Term] = []

    def go(level: int) -> Term:
        if level == depth:
            return Get(k, index_chain(s, list(idx), loc), loc)
        i = lw.b.var(Int, loc, "_i")
        idx.append(i)
        return Build(lw.b.size(s, level, loc), i, go(level + 1), loc)
    return go(0)


def h_unary(lw, obj, node, args, kwargs):
    """det, slogdet, inv, cholesky of a matrix or a stack of them."""
    _arity(lw, obj, node, args, 1)
    loc, name = lw.loc(node), _UNARY[id(obj)]
    t = _matrices(lw, obj, node, lw.arg(args[0]))
    lead = rank(t.type) - 2

    def body(a):
        chk = _square(lw, a, obj, loc)
        if not lead:
            return make_lets(chk, prim(name, a, loc=loc))
        stack = _over_stack(lw, a, lead, lambda m: prim(name, m, loc=loc), loc)
        if name != "slogdet":
            return make_lets(chk, stack)
        return make_lets(chk, lw.b.share(stack, lambda s: Tuple(tuple(_project(lw, s, lead, k, loc)
                                                                      for k in range(2)), loc), loc))
    return lw.b.share(t, body, loc)


def h_solve(lw, obj, node, args, kwargs):
    """solve(A, b): A a matrix, b a vector or a matrix (NumPy 2 reads b as a vector when it has
    one axis)."""
    _arity(lw, obj, node, args, 2)
    loc = lw.loc(node)
    a, b = lw.arg(args[0]), lw.arg(args[1])
    a = _matrices(lw, obj, node, a)
    if rank(a.type) != 2:
        lw.fail(node, "np.linalg.solve", "np.linalg.solve() of a stack of matrices is not supported",
                CatadTypeError, "solve each matrix in a comprehension: [np.linalg.solve(A[k], b[k]) for k in ...]")
    rb = rank(b.type) if is_array(b) else 0
    if rb not in (1, 2):
        lw.fail(node, "np.linalg.solve", f"np.linalg.solve() takes a vector or a matrix b, got a {b.type}",
                CatadTypeError)
    b = lw.b.to_float(b, loc)
    sig = "solve1: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (m,m),(m)->(m)" \
        if rb == 1 else \
        "solve: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (m,m),(m,n)->(m,n)"

    def body(x, y):
        chk = _square(lw, x, obj, loc)
        cols, rows = lw.b.shape(x)[1], lw.b.shape(y)[0]
        cond = TRUE if lw.b.shapes.same(cols, rows) else prim("eq", cols.size, rows.size, loc=loc)
        chk += lw.b.check(cond, (rows.size, cols.size), loc, "np.linalg.solve",
                          sig + " (size {0} is different from {1})", equal=((rows.size, cols.size),))
        return make_lets(chk, prim("solve", x, y, loc=loc))
    return lw.b.share_all([a, b], body, loc)


HANDLERS = [((np.linalg.det, np.linalg.slogdet, np.linalg.inv, np.linalg.cholesky), h_unary, ()),
            ((np.linalg.solve,), h_solve, ())]
