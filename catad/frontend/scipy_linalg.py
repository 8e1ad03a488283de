"""SciPy's linear algebra: scipy.linalg's expm, solve_triangular, cholesky, cho_factor and
cho_solve, and scipy.stats.multivariate_normal's logpdf and pdf, as calls of the primitives of
catad/primitives/spectral.py and triangular.py (which call SciPy itself), after the checks SciPy
makes, with SciPy's messages.

* ``expm(A)`` and ``cholesky(a, lower=False)`` of a matrix or a stack of them (SciPy batches);
  ``cho_factor(a, lower=False)`` is ``(c, lower)`` with c the factor in one triangle and a's
  entries in the other, as LAPACK leaves them (so their derivative is a's);
* ``solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False)`` and
  ``cho_solve((c, lower), b)`` of one matrix and a vector or a matrix b (a stack is refused: solve
  each matrix in a comprehension); ``lower`` must be a constant;
* ``check_finite`` is passed on; ``overwrite_a=True`` and ``overwrite_b=True`` are refused (SciPy
  may then change the caller's array, which a compiled function does not do);
* ``multivariate_normal.logpdf(x, mean=None, cov=1)`` (and ``pdf``), with ``allow_singular=False``:
  SciPy's parameter handling (the dimension from mean or cov, a scalar or vector cov made a
  matrix, its messages) and its checks of cov's eigenvalues (not positive semidefinite: its
  ValueError; singular: its LinAlgError); the density through the Cholesky factor of cov,
  -0.5 (d log(2 pi) + 2 sum log L_ii + |L^{-1} (x - mean)|^2) (Rasmussen & Williams, "Gaussian
  Processes for Machine Learning", 2006, A.4), which SciPy computes through eigh: equal to
  rounding, and the derivative needs no eigenvectors (eigh's have none at a repeated
  eigenvalue, as at cov = I). x is one point (d,) or points (n, d); the result is squeezed as
  SciPy squeezes it (a scalar for one point), so whether n is 1 must be known while compiling.

The handlers are rows of catad/frontend/special_calls.py's LIBRARY_HANDLERS (SciPy is never
imported here).
"""
from __future__ import annotations

import ast
import math

from ..errors import CatadTypeError
from ..lang.terms import TRUE, Build, Const, If, Let, Term, Tuple, iconst, let_chain, make_lets
from ..lang.types import Bool, Float, Int, rank, scalar_of
from ..primitives import prim
from .common import index_chain
from .linalg import each_matrix

_LOG_2PI = math.log(2.0 * math.pi)


def _params(lw, name, node, args, kwargs, names, required):
    """special_calls' binding of arguments (imported here: special_calls imports this module for
    its table)."""
    from .special_calls import _params as params
    return params(lw, name, node, args, kwargs, names, required)


def _none(a) -> bool:
    return a is None or isinstance(a, ast.Constant) and a.value is None


def _flag(lw, name: str, a, what: str, default: bool) -> bool:
    """A constant True or False argument."""
    if _none(a):
        return default
    t = lw.arg(a)
    if not (isinstance(t, Const) and t.type in (Bool, Int)):
        lw.fail(a, name, f"{what} of {name} must be True or False, a constant", CatadTypeError)
    return bool(t.value)


def _no_overwrite(lw, name: str, a, what: str) -> None:
    if _flag(lw, name, a, what, False):
        lw.fail(a, name, f"{what}=True of {name} is not supported: SciPy may then change the array passed, "
                         "and a compiled function does not change its arguments", hint=f"leave {what} False")


def _floats(lw, name: str, node, a) -> Term:
    t = lw.b.to_float(lw.arg(a), lw.loc(node))
    if scalar_of(t.type) != Float:
        lw.fail(node, name, f"{name}() takes numbers or arrays of numbers, got a {t.type}", CatadTypeError)
    return t


def _matrix(lw, name: str, node, a, stacks: bool) -> Term:
    """a as Floats of rank 2 (or more, when SciPy's batching is supported here)."""
    t = _floats(lw, name, node, a)
    r = rank(t.type)
    if r < 2:
        lw.fail(node, name, f"{name}() takes a matrix (the input array must be at least two-dimensional), got a "
                            f"{t.type}", CatadTypeError)
    if r > 2 and not stacks:
        lw.fail(node, name, f"{name}() of a stack of matrices is not supported here (SciPy solves each of them)",
                CatadTypeError, "solve each matrix in a comprehension: [f(A[k], b[k]) for k in ...]")
    return t


def _shape(lw, a: Term) -> tuple:
    return tuple(d.size for d in lw.b.shape(a))


def _same(lw, x, y, loc) -> Term:
    return TRUE if lw.b.shapes.same(x, y) else prim("eq", x.size, y.size, loc=loc)


def _square(lw, a: Term, loc, name: str, message: str, kind: str = "shape", data=None) -> list:
    rows, cols = lw.b.shape(a)[-2:]
    return lw.b.check(_same(lw, rows, cols, loc), () if data is None else data, loc, name, message, kind,
                      equal=((rows.size, cols.size),))


def _rows_match(lw, a: Term, b: Term, loc, name: str, message: str) -> list:
    cols, rows = lw.b.shape(a)[1], lw.b.shape(b)[0]
    return lw.b.check(_same(lw, cols, rows, loc), (_shape(lw, a), _shape(lw, b)), loc, name, message,
                      equal=((rows.size, cols.size),))


def _rhs(lw, name: str, node, b) -> Term:
    t = _floats(lw, name, node, b)
    if rank(t.type) not in (1, 2):
        lw.fail(node, name, f"{name}() takes a vector or a matrix b, got a {t.type}", CatadTypeError)
    return t


# ------------------------------------------------------------ expm, cholesky, cho_factor

def h_expm(lw, obj, node, args, kwargs):
    """scipy.linalg.expm(A): SciPy's matrix exponential; its derivative the Frechet derivative."""
    name = "scipy.linalg.expm"
    (a,) = _params(lw, name, node, args, kwargs, ("A",), 1)
    loc = lw.loc(node)
    t = _matrix(lw, name, node, a, True)
    return each_matrix(lw, t, lambda m: prim("expm", m, loc=loc), 0, loc,
                       lambda m: _square(lw, m, loc, name, "Last 2 dimensions of the array must be square", "linalg"))


def _cholesky_args(lw, name, node, args, kwargs):
    a, lower_, over_, check_ = _params(lw, name, node, args, kwargs, ("a", "lower", "overwrite_a", "check_finite"), 1)
    _no_overwrite(lw, name, over_, "overwrite_a")
    lower = _flag(lw, name, lower_, "lower", False)
    flags = int(lower) + 2 * int(not _flag(lw, name, check_, "check_finite", True))
    t = _matrix(lw, name, node, a, True)
    loc = lw.loc(node)
    checks = lambda m: _square(lw, m, loc, name, "Input array is expected to be square but has the shape: {0}.",
                               data=(tuple(d.size for d in lw.b.shape(m)[-2:]),))
    return t, lower, flags, checks, loc


def h_cholesky(lw, obj, node, args, kwargs):
    """scipy.linalg.cholesky(a, lower=False): the upper (or lower) factor from that triangle of a."""
    name = "scipy.linalg.cholesky"
    t, lower, flags, checks, loc = _cholesky_args(lw, name, node, args, kwargs)
    return each_matrix(lw, t, lambda m: prim("sp_cholesky", m, iconst(flags), loc=loc), 0, loc, checks)


def h_cho_factor(lw, obj, node, args, kwargs):
    """scipy.linalg.cho_factor(a, lower=False): (c, lower), c the factor in one triangle and a in the other."""
    name = "scipy.linalg.cho_factor"
    t, lower, flags, checks, loc = _cholesky_args(lw, name, node, args, kwargs)

    def factor(m):
        def body(a, f):
            i, j = lw.b.var(Int, loc, "_i"), lw.b.var(Int, loc, "_j")
            ours = prim("le", j, i, loc=loc) if lower else prim("le", i, j, loc=loc)
            n = lw.b.size(a, 0, loc)
            return Build(n, i, Build(lw.b.size(a, 1, loc), j, If(ours, index_chain(f, [i, j], loc),
                                                                    index_chain(a, [i, j], loc), loc), loc), loc)
        return lw.b.share(m, lambda a: lw.b.share(prim("sp_cholesky", a, iconst(flags), loc=loc),
                                                  lambda f: body(a, f), loc), loc)
    # (an atom and a constant: a name bound to it keeps lower a constant for cho_solve)
    return lw.b.share(each_matrix(lw, t, factor, 0, loc, checks), lambda c: Tuple((c, Const(lower, Bool, loc)), loc),
                      loc)


# ------------------------------------------------------------ solve_triangular, cho_solve

_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}  # 'C' (conjugate) solves as 'T' for real matrices


def h_solve_triangular(lw, obj, node, args, kwargs):
    """scipy.linalg.solve_triangular(a, b, trans, lower, unit_diagonal): SciPy's solve with one triangle of a."""
    name = "scipy.linalg.solve_triangular"
    a, b, trans_, lower_, unit_, over_, check_ = _params(
        lw, name, node, args, kwargs, ("a", "b", "trans", "lower", "unit_diagonal", "overwrite_b", "check_finite"), 2)
    _no_overwrite(lw, name, over_, "overwrite_b")
    trans = 0 if _none(trans_) else trans_.value if isinstance(trans_, ast.Constant) else lw.static(trans_)
    if trans not in _TRANS or isinstance(trans, bool):
        lw.fail(trans_, name, f"trans of {name} must be a constant 0, 1, 2, 'N', 'T' or 'C'", CatadTypeError)
    flags = (int(_flag(lw, name, lower_, "lower", False)) + 2 * _TRANS[trans]
             + 8 * int(_flag(lw, name, unit_, "unit_diagonal", False))
             + 16 * int(not _flag(lw, name, check_, "check_finite", True)))
    loc = lw.loc(node)
    t, rhs = _matrix(lw, name, node, a, False), _rhs(lw, name, node, b)

    def body(x, y):
        chk = _square(lw, x, loc, name, "expected square matrix")
        chk += _rows_match(lw, x, y, loc, name, "shapes of a {0} and b {1} are incompatible")
        return make_lets(chk, prim("trisolve", x, y, iconst(flags), loc=loc))
    return lw.b.share_all([t, rhs], body, loc)


def _rebuild_lets(lets: list, body: Term) -> Term:
    for lt in reversed(lets):
        body = Let(lt.var, lt.rhs, body, lt.loc)
    return body


def _factor_and_lower(lw, name: str, node, cl) -> tuple[Term, bool]:
    """cho_solve's (c, lower): a tuple whose second item is a constant (cho_factor's result, or a
    display such as (L, True))."""
    if isinstance(cl, (ast.Tuple, ast.List)) and len(cl.elts) == 2:
        return lw.arg(cl.elts[0]), _flag(lw, name, cl.elts[1], "lower", False)
    t = lw.arg(cl)
    lets, body = let_chain(t)  # cho_factor(a) called in place: its lets, then (c, lower)
    if isinstance(body, Tuple) and len(body.items) == 2 and isinstance(body.items[1], Const) and \
            body.items[1].type == Bool:
        return _rebuild_lets(lets, body.items[0]), bool(body.items[1].value)
    lw.fail(cl, name, f"the first argument of {name} must be (c, lower) with lower a constant True or False",
            CatadTypeError, "pass cho_factor's result, or a tuple such as (L, True)")


def h_cho_solve(lw, obj, node, args, kwargs):
    """scipy.linalg.cho_solve((c, lower), b): x with (L L^T) x = b, L the factor in c's triangle."""
    name = "scipy.linalg.cho_solve"
    cl, b, over_, check_ = _params(lw, name, node, args, kwargs, ("c_and_lower", "b", "overwrite_b", "check_finite"), 2)
    _no_overwrite(lw, name, over_, "overwrite_b")
    c, lower = _factor_and_lower(lw, name, node, cl)
    flags = int(lower) + 2 * int(not _flag(lw, name, check_, "check_finite", True))
    loc = lw.loc(node)
    c = lw.b.to_float(c, loc)
    if rank(c.type) != 2:
        lw.fail(node, name, f"{name}() takes the factor as a matrix, got a {c.type}" if rank(c.type) < 2 else
                f"{name}() of a stack of factors is not supported here (SciPy solves each of them)", CatadTypeError,
                None if rank(c.type) < 2 else "solve each matrix in a comprehension")
    rhs = _rhs(lw, name, node, b)

    def body(x, y):
        chk = _square(lw, x, loc, name, "The factored matrix c is not square.")
        chk += _rows_match(lw, x, y, loc, name, "incompatible dimensions ({0} and {1})")
        return make_lets(chk, prim("cho_solve", x, y, iconst(flags), loc=loc))
    return lw.b.share_all([c, rhs], body, loc)


# ------------------------------------------------------------ multivariate_normal

def _one(lw, t: Term, axis: int) -> bool | None:
    """Is axis `axis` of t known to have length 1 (True), known not to (False), or neither."""
    return lw.b.units(t)[axis]


def _as_vector(lw, t: Term, loc) -> Term:
    """A scalar as a vector of one element; a vector as it is."""
    return Build(iconst(1), lw.b.var(Int, loc, "_k"), t, loc) if rank(t.type) == 0 else t


def _dimension(lw, name, node, mean: Term | None, cov: Term | None, loc) -> tuple[Term, bool]:
    """SciPy's dimension (mean's size, else cov's rows, else 1) and whether it is 1, which must be
    known while compiling (SciPy reads x and cov differently then)."""
    if mean is not None:
        dim, one = (iconst(1), True) if rank(mean.type) == 0 else (lw.b.size(mean, 0, loc), _one(lw, mean, 0))
    elif cov is None or rank(cov.type) < 2:
        dim, one = iconst(1), True
    else:
        dim, one = lw.b.size(cov, 0, loc), _one(lw, cov, 0)
    if one is None:
        lw.fail(node, name, f"{name}: whether the distribution has one dimension must be known while compiling "
                            "(SciPy reads x differently then)", hint="pass mean as an argument of the function")
    return dim, one


_MISMATCH = "Dimension mismatch: array 'cov' is of shape {0}, but 'mean' is a vector of length {1}."


def _cov_matrix(lw, name, cov: Term | None, dim: Term, loc) -> Term:
    """SciPy's cov as a matrix: a scalar times the identity, a vector's diagonal, a matrix as it is,
    of shape (dim, dim) (SciPy's messages otherwise); cov an atom."""
    zero = Const(0.0, Float)
    i, j = lw.b.var(Int, loc, "_i"), lw.b.var(Int, loc, "_j")
    diagonal = lambda v: Build(dim, i, Build(dim, j, If(prim("eq", i, j, loc=loc), v(i), zero, loc), loc), loc)
    if cov is None or rank(cov.type) == 0:
        return diagonal(lambda i: Const(1.0, Float) if cov is None else cov)
    size = lw.b.size(cov, 0, loc)
    if rank(cov.type) == 1:
        chk = lw.b.check(prim("eq", size, dim, loc=loc), ((size,), dim), loc, name, _MISMATCH)
        return make_lets(chk, diagonal(lambda i: index_chain(cov, [i], loc)))
    rows, cols = lw.b.shape(cov)
    shape = (rows.size, cols.size)
    chk = lw.b.check(_same(lw, rows, cols, loc), (shape,), loc, name,
                     "Array 'cov' must be square if it is two dimensional, but cov.shape = {0}.",
                     equal=((rows.size, cols.size),))
    chk += lw.b.check(prim("eq", rows.size, dim, loc=loc), (shape, dim), loc, name, _MISMATCH)
    return make_lets(chk, cov)


def _psd_checked(lw, name, cov: Term, body: Term, loc) -> Term:
    """body after SciPy's _PSD checks of the eigenvalues s of cov (an atom; from its lower
    triangle), eps = 1e6 * machine epsilon * max|s|: min(s) < -eps is not positive semidefinite
    (SciPy's ValueError), and, with allow_singular=False, some s <= eps is singular (its LinAlgError)."""
    def with_s(s):
        k = lw.b.var(Int, loc, "_k")
        largest = prim("vmax", Build(lw.b.size(s, 0, loc), k, prim("abs", index_chain(s, [k], loc), loc=loc), loc),
                       loc=loc)

        def with_bounds(lo, eps):
            chk = lw.b.check(prim("le", prim("neg", eps, loc=loc), lo, loc=loc), (), loc, name,
                             "The input matrix must be symmetric positive semidefinite.")
            chk += lw.b.check(prim("gt", lo, eps, loc=loc), (), loc, name,
                              "When `allow_singular is False`, the input matrix must be symmetric positive definite.",
                              "linalg")
            return make_lets(chk, body)
        return lw.b.share_all([prim("vmin", s, loc=loc), prim("mul", Const(1e6 * 2.0 ** -52, Float), largest, loc=loc)],
                              with_bounds, loc)
    eig = lw.b.share(prim("eigvalsh", cov, iconst(0), loc=loc), with_s, loc)
    return _finite_checked(lw, name, cov, eig, loc)


def _finite_checked(lw, name, cov: Term, body: Term, loc) -> Term:
    """body after SciPy's eigh(check_finite=True) in _PSD: a cov holding an inf or a NaN is its
    ValueError (the eigenvalues' LAPACK call would not converge): the largest |entry| must be
    below inf, which a NaN, compared, is not."""
    i, j = lw.b.var(Int, loc, "_i"), lw.b.var(Int, loc, "_j")
    row = Build(lw.b.size(cov, 1, loc), j, prim("abs", index_chain(cov, [i, j], loc), loc=loc), loc)
    largest = prim("vmax", Build(lw.b.size(cov, 0, loc), i, prim("vmax", row, loc=loc), loc), loc=loc)

    def with_largest(big):
        chk = lw.b.check(prim("lt", big, Const(math.inf, Float), loc=loc), (), loc, name,
                         "array must not contain infs or NaNs", "domain")
        return make_lets(chk, body)
    return lw.b.share(largest, with_largest, loc)


def _mvn(kind: str):
    def h(lw, obj, node, args, kwargs):
        """scipy.stats.multivariate_normal's logpdf or pdf(x, mean, cov): through cov's Cholesky factor."""
        name = f"scipy.stats.multivariate_normal.{kind}"
        x_, mean_, cov_, sing_ = _params(lw, name, node, args, kwargs, ("x", "mean", "cov", "allow_singular"), 1)
        if _flag(lw, name, sing_, "allow_singular", False):
            lw.fail(sing_, name, f"allow_singular=True of {name} is not supported (a singular cov's density lives "
                                 "on a subspace)", hint="leave allow_singular False")
        loc = lw.loc(node)
        x = _floats(lw, name, node, x_)
        mean = None if _none(mean_) else _floats(lw, name, node, mean_)
        cov = None if _none(cov_) else _floats(lw, name, node, cov_)
        if mean is not None and rank(mean.type) > 1:
            lw.fail(mean_, name, f"mean of {name} must be a scalar or a vector, got a {mean.type}", CatadTypeError)
        if cov is not None and rank(cov.type) > 2:
            lw.fail(cov_, name, f"Array 'cov' must be at most two-dimensional, but cov.ndim = {rank(cov.type)}",
                    CatadTypeError)
        if rank(x.type) > 2:
            lw.fail(x_, name, f"x of {name} must be one point or a matrix of points (rows), got a {x.type}",
                    CatadTypeError, "reshape the points to (n, d)")
        given = [t for t in (x, mean, cov) if t is not None]

        def body(*atoms):
            it = iter(atoms)
            xs = next(it)
            m = next(it) if mean is not None else None
            c = next(it) if cov is not None else None
            dim, one = _dimension(lw, name, node, m, c, loc)
            X, squeeze = _points(lw, name, x_, xs, one, loc)

            def with_points(Xa, ma=None):
                def with_cov(C):
                    d = lw.b.shape(Xa)[1]
                    chk = lw.b.check(prim("eq", d.size, dim, loc=loc), (d.size, dim), loc, name,
                                     "x has points of {0} components and the distribution has {1} dimensions")
                    dens = lw.b.share(prim("cholesky", C, loc=loc), lambda L: _log_density(
                        lw, kind, Xa, ma, L, dim, squeeze, loc), loc)
                    return make_lets(chk, _psd_checked(lw, name, C, dens, loc))
                return lw.b.share(_cov_matrix(lw, name, c, dim, loc), with_cov, loc)
            return lw.b.share_all([X] + ([_as_vector(lw, m, loc)] if m is not None else []), with_points, loc)
        return lw.b.share_all(given, body, loc)
    return h


def _points(lw, name, node, x: Term, one: bool, loc) -> tuple[Term, bool]:
    """SciPy's points as the rows of a matrix, and whether SciPy squeezes the result to a scalar
    (one point): a scalar is one point of one component; a vector n points of one component when
    the dimension is 1, else one point; a matrix n points (one when n is 1, known while compiling)."""
    r = rank(x.type)
    if r == 0 and not one:
        lw.fail(node, name, f"x of {name} is a scalar and the distribution has more than one dimension (SciPy "
                            "broadcasts it to every component)", CatadTypeError, "pass np.full(d, x)")
    p, q = lw.b.var(Int, loc, "_p"), lw.b.var(Int, loc, "_q")
    if r == 0:
        return Build(iconst(1), p, Build(iconst(1), q, x, loc), loc), True
    if r == 1 and not one:
        return Build(iconst(1), p, x, loc), True
    single = _one(lw, x, 0)
    if single is None:
        lw.fail(node, name, f"{name}: whether x holds one point must be known while compiling (SciPy returns a "
                            "scalar then)", hint="pass x as an argument of the function")
    if r == 1:
        return Build(lw.b.size(x, 0, loc), p, Build(iconst(1), q, index_chain(x, [p], loc), loc), loc), single
    return x, single


def _log_density(lw, kind, X: Term, m: Term | None, L: Term, dim: Term, squeeze: bool, loc) -> Term:
    """-0.5 (d log 2 pi + 2 sum log L_ii + |L^{-1} (x - m)|^2) for each row x of X (pdf: its exp)."""
    j, p = lw.b.var(Int, loc, "_j"), lw.b.var(Int, loc, "_p")
    n = lw.b.size(X, 0, loc)
    dev = index_chain(X, [p, j], loc)
    if m is not None:
        dev = prim("sub", dev, index_chain(m, [j], loc), loc=loc)
    devT = Build(dim, j, Build(n, p, dev, loc), loc)                          # (d, n): a column per point
    k = lw.b.var(Int, loc, "_k")
    logdet = prim("sum", Build(dim, k, prim("log", index_chain(L, [k, k], loc), loc=loc), loc), loc=loc)
    const = prim("add", prim("mul", prim("to_float", dim, loc=loc), Const(_LOG_2PI, Float), loc=loc),
                 prim("mul", Const(2.0, Float), logdet, loc=loc), loc=loc)

    def with_z(z, c):
        q, i = lw.b.var(Int, loc, "_q"), lw.b.var(Int, loc, "_i")
        maha = prim("sum", Build(dim, i, lw.b.share(index_chain(z, [i, q], loc), lambda e: prim("mul", e, e, loc=loc),
                                                    loc), loc), loc=loc)
        value = prim("mul", Const(-0.5, Float), prim("add", c, maha, loc=loc), loc=loc)
        if kind == "pdf":
            value = prim("exp", value, loc=loc)
        out = Build(n, q, value, loc)
        return prim("index", iconst(0), out, loc=loc) if squeeze else out
    # (not checked finite: SciPy gives nan where x or the mean holds a nan or an inf)
    return lw.b.share_all([prim("trisolve", L, devT, iconst(1 + 16), loc=loc), const], with_z, loc)


LIBRARY_HANDLERS: dict[str, tuple] = {
    "scipy.linalg.expm": (h_expm, ("A",)),
    "scipy.linalg.cholesky": (h_cholesky, ("a", "lower", "overwrite_a", "check_finite")),
    "scipy.linalg.cho_factor": (h_cho_factor, ("a", "lower", "overwrite_a", "check_finite")),
    "scipy.linalg.cho_solve": (h_cho_solve, ("c_and_lower", "b", "overwrite_b", "check_finite")),
    "scipy.linalg.solve_triangular": (h_solve_triangular, ("a", "b", "trans", "lower", "unit_diagonal", "overwrite_b",
                                                          "check_finite")),
    "scipy.stats.multivariate_normal.logpdf": (_mvn("logpdf"), ("x", "mean", "cov", "allow_singular")),
    "scipy.stats.multivariate_normal.pdf": (_mvn("pdf"), ("x", "mean", "cov", "allow_singular")),
}
