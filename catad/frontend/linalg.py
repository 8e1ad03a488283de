"""np.linalg's det, slogdet, inv, cholesky, solve, svd, eigh and eigvalsh: calls of the
primitives of the same names (catad/primitives/linalg.py and spectral.py), after the checks
NumPy makes.

Ranks are types, so a vector where a matrix is wanted is refused while compiling, with NumPy's
message. That the last two axes are square is checked once per call where it is not proven (a
catad.LinAlgError, which is also NumPy's LinAlgError), and that solve's b has as many rows as A
(a catad.ShapeError, a ValueError as NumPy's). Int and Bool arrays are made Float, as NumPy
does. A stack of matrices (more than two axes) is a build over its leading axes, which the
backend compiles as one batched call. Singular and non-positive-definite matrices raise NumPy's
own LinAlgError when the program runs. svd(a) with full_matrices=True (NumPy's default) is
differentiated for square matrices only, checked like a shape (see _full_square).

The handlers are rows of catad/frontend/calls.py's table.
"""
from __future__ import annotations

import ast

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import TRUE, Build, Const, Get, Term, Tuple, iconst, make_lets
from ..lang.types import Bool, Int, rank
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
    return lw.b.check(cond, (), loc, _name(obj), "Last 2 dimensions of the array must be square", "linalg",
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


# ---------------------------------------------------------------- svd, eigh, eigvalsh
# Each a primitive on one matrix (catad/primitives/spectral.py calls NumPy itself, so the signs
# and order of the vectors are LAPACK's), and a build over the leading axes of a stack, whose
# tuple results are projected into one array per component as NumPy returns them.

def each_matrix(lw, t: Term, f, parts: int, loc, checks=None) -> Term:
    """f of the matrix t, or of each matrix of the stack t (a build over its leading axes), after
    the checks checks(t) makes (of the whole stack, once); f's result a tuple of `parts`
    components (parts > 0), which a stack returns as `parts` arrays."""
    lead = rank(t.type) - 2

    def body(a):
        chk = checks(a) if checks is not None else []
        if not lead:
            return make_lets(chk, f(a))
        stack = _over_stack(lw, a, lead, f, loc)
        if parts:
            stack = lw.b.share(stack, lambda s: Tuple(tuple(_project(lw, s, lead, k, loc) for k in range(parts)),
                                                      loc), loc)
        return make_lets(chk, stack)
    return lw.b.share(t, body, loc)


def _flag(lw, obj, node, a, what: str, default: bool) -> bool:
    if a is None or isinstance(a, ast.Constant) and a.value is None:
        return default
    t = lw.arg(a)
    if not (isinstance(t, Const) and t.type in (Bool, Int)):
        lw.fail(a, _name(obj), f"{what} of {_name(obj)} must be True or False, a constant", CatadTypeError)
    return bool(t.value)


def _bind(lw, obj, node, args, kwargs, names: tuple) -> list:
    """The arguments by position and keyword, in the order of names (None where not given)."""
    if len(args) > len(names):
        lw.fail(node, _name(obj), f"{_name(obj)}() takes at most {len(names)} arguments, got {len(args)}",
                CatadTypeError)
    out = list(args) + [None] * (len(names) - len(args))
    for k, v in kwargs.items():
        i = names.index(k)
        if out[i] is not None:
            lw.fail(v, _name(obj), f"{_name(obj)}() got multiple values for argument {k!r}", CatadTypeError)
        out[i] = v
    if out[0] is None:
        lw.fail(node, _name(obj), f"{_name(obj)}() missing required argument {names[0]!r}", CatadTypeError)
    return out


def h_svd(lw, obj, node, args, kwargs):
    """np.linalg.svd(a, full_matrices=True, compute_uv=True): NumPy's (U, S, Vh), or S; of a stack too."""
    a, full_, uv_, herm_ = _bind(lw, obj, node, args, kwargs, ("a", "full_matrices", "compute_uv", "hermitian"))
    loc = lw.loc(node)
    if _flag(lw, obj, node, herm_, "hermitian", False):
        lw.fail(herm_, "np.linalg.svd", "np.linalg.svd(a, hermitian=True) is not supported",
                hint="for a symmetric matrix use np.linalg.eigh, or leave hermitian False")
    full, uv = _flag(lw, obj, node, full_, "full_matrices", True), _flag(lw, obj, node, uv_, "compute_uv", True)
    t = _matrices(lw, obj, node, lw.arg(a))
    if not uv:
        return each_matrix(lw, t, lambda m: prim("svdvals", m, loc=loc), 0, loc)

    return each_matrix(lw, t, lambda m: prim("svd", m, iconst(int(full)), loc=loc), 3, loc,
                       (lambda a: _full_square(lw, a, loc)) if full else None)


def _full_square(lw, m: Term, loc) -> list:
    """full_matrices=True is differentiated for a square matrix only: for m != n the last |m - n|
    columns of U (rows of Vh) are an orthonormal completion LAPACK picks, with no derivative."""
    rows, cols = lw.b.shape(m)[-2:]
    cond = TRUE if lw.b.shapes.same(rows, cols) else prim("eq", rows.size, cols.size, loc=loc)
    return lw.b.check(cond, (rows.size, cols.size), loc, "np.linalg.svd",
                      "np.linalg.svd(a) with full_matrices=True of a {0} x {1} matrix: catad differentiates "
                      "the full U and Vh of square matrices only (the extra columns of U or rows of Vh are "
                      "an arbitrary orthonormal completion, with no derivative); pass full_matrices=False",
                      equal=((rows.size, cols.size),))


def _uplo(lw, obj, a) -> int:
    """UPLO='L' (0) or 'U' (1), in either case, as NumPy reads it."""
    if a is None:
        return 0
    v = a.value if isinstance(a, ast.Constant) else lw.static(a)
    if not isinstance(v, str):
        lw.fail(a, _name(obj), f"UPLO of {_name(obj)} must be a constant string, 'L' or 'U'", CatadTypeError)
    if v.upper() not in ("L", "U"):
        lw.fail(a, _name(obj), "UPLO argument must be 'L' or 'U'", CatadTypeError)
    return int(v.upper() == "U")


def h_eigh(lw, obj, node, args, kwargs):
    """np.linalg.eigh(a, UPLO='L') and eigvalsh: NumPy's eigenvalues (and eigenvectors) from one triangle."""
    a, uplo_ = _bind(lw, obj, node, args, kwargs, ("a", "UPLO"))
    loc, upper = lw.loc(node), iconst(_uplo(lw, obj, uplo_))
    t = _matrices(lw, obj, node, lw.arg(a))
    name = "eigh" if obj is np.linalg.eigh else "eigvalsh"
    return each_matrix(lw, t, lambda m: prim(name, m, upper, loc=loc), 2 if name == "eigh" else 0, loc,
                       lambda a: _square(lw, a, obj, loc))


HANDLERS = [((np.linalg.det, np.linalg.slogdet, np.linalg.inv, np.linalg.cholesky), h_unary, ()),
            ((np.linalg.solve,), h_solve, ()),
            ((np.linalg.svd,), h_svd, ("a", "full_matrices", "compute_uv", "hermitian")),
            ((np.linalg.eigh, np.linalg.eigvalsh), h_eigh, ("a", "UPLO"))]
