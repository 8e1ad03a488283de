"""np.linalg.svd, eigh and eigvalsh; scipy.linalg's expm, solve_triangular, cholesky, cho_factor
and cho_solve; scipy.stats.multivariate_normal's logpdf and pdf; np.lexsort (issue 16).

Values against the function itself (NumPy's and SciPy's own results: the signs and order of
singular and eigen vectors exactly), gradients in both modes against central differences of the
user's function (backend_programs.central_difference), in the forms the corpus writes them
(Kabsch alignment, the largest eigenvalue, a Gaussian log-likelihood by a triangular solve, a GP
marginal likelihood by cho_solve, a CTMC likelihood by expm); each option (UPLO, full_matrices,
compute_uv, lower, trans, unit_diagonal, check_finite); stacks of matrices; lanes a condition
discards; the derivatives' linear maps (adjoint pairs, zero and sparse tangents); errors located
with NumPy's and SciPy's messages and classes.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg
from scipy import stats

import catad
import catad.linearmaps.terms as L
from backend_programs import central_difference
from catad.lang.terms import Const
from catad.lang.types import Float, Int, Vec
from catad.linearmaps.semantics import apply, apply_reverse
from catad.tangents import ZERO, OneHot
from benchmark_modules import bench_corpus

kabsch_rmsd = bench_corpus.geometry.kabsch_rmsd
mvn_nll_cholesky = bench_corpus.statistics.mvn_nll_cholesky
mvn_nll_scipy = bench_corpus.statistics.mvn_nll_scipy
gp_neg_log_marginal_likelihood = bench_corpus.statistics.gp_neg_log_marginal_likelihood

M, V = Vec(Vec(Float)), Vec(Float)
RNG = np.random.default_rng(1617)


def spd(n: int) -> np.ndarray:
    m = RNG.normal(size=(n, n))
    return m @ m.T + n * np.eye(n)


def check_gradients(f, args, argnums=None, rtol=1e-6, atol=1e-7):
    """grad against central differences of f itself, and jvp along a random direction against
    the gradient, for each argument in argnums (all by default); the value against f's."""
    value = f(*args)
    for k in range(len(args)) if argnums is None else argnums:
        v, g = catad.value_and_grad(f, argnums=k)(*args)
        np.testing.assert_allclose(v, value, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(g, central_difference(f, args, k), rtol=rtol, atol=atol)
        d = RNG.normal(size=np.shape(args[k]))
        tangents = tuple(d if j == k else np.zeros(np.shape(a)) for j, a in enumerate(args))
        out, tan = catad.jvp(f, args, tangents)
        np.testing.assert_allclose(out, value, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(tan, np.sum(g * d), rtol=1e-9, atol=1e-10)


def values(f, *args):
    """f's result as catad computes it (the primal of a jvp with zero tangents)."""
    out, _ = catad.jvp(f, args, tuple(np.zeros(np.shape(a)) for a in args))
    return out


def vectorised(f, *args) -> bool:
    return "no Python loops" in catad.explain(f, *args).stage("code").text


# ---------------------------------------------------------------------- svd

def svd_all(a):
    U, S, Vt = np.linalg.svd(a, full_matrices=False)
    return np.sum(np.sin(U) * np.arange(U.size).reshape(U.shape)) + np.sum(S ** 1.5) + np.sum(np.cos(Vt) * Vt)


def svd_square_full(a):
    U, S, Vt = np.linalg.svd(a)
    return np.sum(U[:, 0] * Vt[0]) + S[0] - S[-1] + np.sum(U[1] ** 3)


def singular_values(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) ** 2 * np.array([3.0, 2.0, 1.0]))


def nuclear_norm(a):
    return np.sum(np.linalg.svd(a, False, False))


def test_kabsch_alignment():
    P = RNG.normal(size=(7, 3))
    Q = P @ np.linalg.qr(RNG.normal(size=(3, 3)))[0] + 0.1 * RNG.normal(size=(7, 3))
    check_gradients(kabsch_rmsd, (P, Q))


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_svd_of_square_and_rectangular_matrices(shape):
    a = RNG.normal(size=shape)
    check_gradients(svd_all, (a,), rtol=1e-5, atol=1e-6)
    if shape[0] == shape[1]:
        check_gradients(svd_square_full, (a,), rtol=1e-5, atol=1e-6)
    if min(shape) == 3:
        check_gradients(singular_values, (a,))
    check_gradients(nuclear_norm, (a,))


def decompositions(a, s):
    return np.linalg.svd(a), np.linalg.svd(a, full_matrices=False), np.linalg.svd(a, compute_uv=False), \
        np.linalg.eigh(s), np.linalg.eigh(s, UPLO="U"), np.linalg.eigvalsh(s), np.linalg.eigvalsh(s, "u")


def test_values_are_numpy_s_own_with_its_signs():
    """The kernels call NumPy: every result is NumPy's, bit for bit (the signs of the vectors too)."""
    a, s = RNG.normal(size=(4, 4)), RNG.normal(size=(5, 5))
    got, expected = values(decompositions, a, s), decompositions(a, s)
    for x, y in zip(got, expected):
        for u, w in zip(x if isinstance(x, tuple) else (x,), y if isinstance(y, tuple) else (y,)):
            np.testing.assert_array_equal(u, w)
    rect = RNG.normal(size=(5, 3))
    for x, y in zip(values(lambda m: np.linalg.svd(m, full_matrices=False), rect),
                    np.linalg.svd(rect, full_matrices=False)):
        np.testing.assert_array_equal(x, y)


def svd_full_rectangular(a):
    U, S, Vt = np.linalg.svd(a)
    return np.sum(U[:, :2] ** 2 * S[:2])


def svd_hermitian(a):
    return np.sum(np.linalg.svd(a, hermitian=True)[1])


def test_svd_errors():
    """full_matrices=True of a non-square matrix: U's extra columns have no derivative, refused
    where the call is (NumPy's default: the advice says which argument to pass)."""
    with pytest.raises(catad.ShapeError, match=r"full_matrices=True of a 5 x 3 matrix.*pass full_matrices=False") as e:
        catad.grad(svd_full_rectangular)(RNG.normal(size=(5, 3)))
    assert "test_linalg_more.py" in str(e.value)
    with pytest.raises(catad.UnsupportedSyntax, match="hermitian=True") as e:
        catad.grad(svd_hermitian)(np.eye(3))
    assert "test_linalg_more.py" in str(e.value)
    with pytest.raises(catad.CatadTypeError, match="1-dimensional array given"):
        catad.grad(nuclear_norm)(np.ones(3))


def svd_stack(base, shifts):
    stack = np.array([base * shifts[k] + np.eye(3) for k in range(len(shifts))])
    U, S, Vt = np.linalg.svd(stack)
    return np.sum(S ** 2) + np.sum(U[:, 0, 0] * Vt[:, 0, 0]) + np.sum(np.linalg.svd(stack, compute_uv=False))


def test_svd_of_a_stack_is_one_batched_call():
    args = (RNG.normal(size=(3, 3)), np.array([0.5, 1.0, 2.0, -1.5]))
    check_gradients(svd_stack, args, rtol=1e-5, atol=1e-6)
    assert vectorised(svd_stack, *args)


# ---------------------------------------------------------------------- eigh and eigvalsh

def max_eigenvalue(A):
    """The corpus's numerics.max_eigenvalue."""
    S = A + A.T
    return np.linalg.eigvalsh(S)[-1]


def eig_lower(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w * np.array([1.0, -2.0, 0.5, 3.0])) + np.sum(v[:, 1] * v[:, 2]) + np.sum(v[0] ** 2 * w)


def eig_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return np.sum(np.sin(w)) + np.sum(np.cos(v) * v)


def eigvals_upper(a):
    return np.sum(np.linalg.eigvalsh(a, UPLO="U") ** 3)


def test_largest_eigenvalue():
    check_gradients(max_eigenvalue, (RNG.normal(size=(4, 4)),))


@pytest.mark.parametrize("f, upper", [(eig_lower, False), (eig_upper, True), (eigvals_upper, True)])
def test_eigh_reads_one_triangle(f, upper):
    """NumPy reads one triangle (UPLO): the other's entries are anything, and their gradient is 0."""
    a = RNG.normal(size=(4, 4))
    check_gradients(f, (a,), rtol=1e-5, atol=1e-6)
    g = catad.grad(f)(a)
    unread = np.tril(g, -1) if upper else np.triu(g, 1)
    assert np.all(unread == 0.0) and np.any(g != 0.0)


def trace_by_eigenvalues(a):
    return np.sum(np.linalg.eigvalsh(a)) + np.sum(np.linalg.eigh(a)[0] ** 2)


def test_eigenvalues_at_a_repeated_eigenvalue():
    """Symmetric functions of the eigenvalues are smooth at a repeated eigenvalue (their
    derivative uses no gaps): at 2 I the gradient is finite and right."""
    a = 2.0 * np.eye(3)
    g = catad.grad(trace_by_eigenvalues)(a)
    np.testing.assert_allclose(g, 5.0 * np.eye(3), atol=1e-12)
    _, tan = catad.jvp(trace_by_eigenvalues, (a,), (np.tril(np.ones((3, 3))),))
    assert tan == pytest.approx(15.0)


def eig_stack(base, shifts):
    stack = np.array([base + base.T + shifts[k] * np.eye(3) for k in range(len(shifts))])
    w, v = np.linalg.eigh(stack)
    return np.sum(w * shifts[:, None]) + np.sum(np.linalg.eigvalsh(stack)[:, -1]) + np.sum(v[:, 0, :] ** 2 * w)


def test_eigh_of_a_stack_is_one_batched_call():
    args = (RNG.normal(size=(3, 3)), np.array([0.5, 1.0, 2.0]))
    check_gradients(eig_stack, args, rtol=1e-5, atol=1e-6)
    assert vectorised(eig_stack, *args)


def eig_guarded(base, scales):
    """eigh only where scales[k] > 0: the other lanes' matrices are NaN, and Python never
    decomposes them."""
    return sum(np.sum(np.linalg.eigh(base * np.log(scales[k]))[0] ** 2) if scales[k] > 0 else 0.0
               for k in range(len(scales)))


def test_lanes_a_condition_discards_are_never_decomposed():
    args = (spd(3), np.array([2.0, -1.0, 3.0, -2.0]))
    with np.errstate(invalid="ignore"):
        check_gradients(eig_guarded, args, argnums=(0,), rtol=1e-5, atol=1e-6)
    assert vectorised(eig_guarded, *args)  # every lane decomposed at once, the discarded ones as diag(1, 2, 3)


def not_square_eigh(a):
    return np.sum(np.linalg.eigh(a)[0])


def bad_uplo(a):
    return np.sum(np.linalg.eigvalsh(a, UPLO="X"))


def test_eigh_errors():
    with pytest.raises(np.linalg.LinAlgError, match="Last 2 dimensions of the array must be square") as e:
        catad.grad(not_square_eigh)(np.ones((2, 3)))
    assert isinstance(e.value, catad.LinAlgError) and "test_linalg_more.py" in str(e.value)
    with pytest.raises(catad.CatadTypeError, match="UPLO argument must be 'L' or 'U'"):
        catad.grad(bad_uplo)(np.eye(2))


# ---------------------------------------------------------------------- expm

def expm_loss(a):
    return np.sum(scipy.linalg.expm(a) * np.arange(9.0).reshape(3, 3))


def ctmc_log_likelihood(log_rates, counts, off, t=0.5):
    """numerics.ctmc_log_likelihood with the generator's off-diagonal filled by a product with
    the mask `off` (the corpus's mask assignment R[~eye] = v is another helper's)."""
    n = counts.shape[0]
    R = np.exp(log_rates) * off
    Q = R - np.diag(R.sum(axis=1))
    P = scipy.linalg.expm(Q * t)
    return -np.sum(counts * np.log(P))


def expm_stack(a, s):
    return np.sum(scipy.linalg.expm(np.array([a * s[k] for k in range(len(s))])) ** 2)


def test_expm():
    a = RNG.normal(size=(3, 3)) * 0.7
    check_gradients(expm_loss, (a,))
    np.testing.assert_array_equal(values(lambda m: scipy.linalg.expm(m), a), scipy.linalg.expm(a))
    counts = RNG.integers(1, 20, size=(4, 4)).astype(float)
    check_gradients(ctmc_log_likelihood, (RNG.normal(size=(4, 4)) * 0.3, counts, 1.0 - np.eye(4)), argnums=(0,))
    check_gradients(expm_stack, (a, np.array([0.5, 1.0, -1.0])), rtol=1e-5, atol=1e-6)
    assert vectorised(expm_stack, a, np.array([0.5, 1.0, -1.0]))


def test_expm_of_a_large_or_tiny_matrix():
    """The Frechet derivative's tangent is scaled to A's size, so the block matrix's norm is A's."""
    for scale in (1e-4, 4.0):
        a = RNG.normal(size=(3, 3)) * scale
        size = np.abs(central_difference(expm_loss, (a,), 0)).max()
        check_gradients(expm_loss, (a,), rtol=1e-5, atol=1e-7 * max(1.0, size))


def expm_vector(a):
    return np.sum(scipy.linalg.expm(a))


def test_expm_errors():
    with pytest.raises(np.linalg.LinAlgError, match="Last 2 dimensions of the array must be square") as e:
        catad.grad(expm_vector)(np.ones((2, 3)))
    assert "test_linalg_more.py" in str(e.value)
    with pytest.raises(catad.CatadTypeError, match="at least two-dimensional"):
        catad.grad(expm_vector)(np.ones(3))


# ---------------------------------------------------------------------- solve_triangular

def test_gaussian_likelihood_by_a_triangular_solve():
    args = (RNG.normal(size=3), RNG.normal(size=(3, 3)) * 0.5, RNG.normal(size=(8, 3)))
    check_gradients(mvn_nll_cholesky, args, rtol=1e-5, atol=1e-6)


def _solver(**options):
    """The options read from the closure, as constants (trans may be an int or a string)."""
    lower, unit = options.get("lower", False), options.get("unit_diagonal", False)
    trans, check = options.get("trans", 0), options.get("check_finite", True)

    def f(a, b):
        x = scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit, check_finite=check)
        return np.sum(np.sin(x))
    return f


def _values_solver(**options):
    lower, unit = options.get("lower", False), options.get("unit_diagonal", False)
    trans, check = options.get("trans", 0), options.get("check_finite", True)

    def x_of(a, b):
        return scipy.linalg.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit, check_finite=check)
    return x_of


OPTIONS = [dict(), dict(lower=True), dict(trans=1), dict(trans="T", lower=True), dict(trans="C"),
           dict(unit_diagonal=True), dict(lower=True, unit_diagonal=True, trans=2), dict(trans="N", check_finite=False)]


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("cols", [None, 2])
def test_solve_triangular_options(options, cols):
    """Values are SciPy's; the gradient of the triangle SciPy does not read (and of the diagonal,
    for unit_diagonal) is 0."""
    a = RNG.normal(size=(4, 4)) + 4 * np.eye(4)
    b = RNG.normal(size=4 if cols is None else (4, cols))
    f = _solver(**options)
    check_gradients(f, (a, b))
    x_of = _values_solver(**options)
    np.testing.assert_array_equal(values(x_of, a, b), x_of(a, b))
    g = catad.grad(f)(a, b)
    lower = options.get("lower", False)
    unread = np.triu(g, 1) if lower else np.tril(g, -1)
    assert np.all(unread == 0.0)
    if options.get("unit_diagonal"):
        assert np.all(np.diag(g) == 0.0)


def triangular_in_a_comprehension(a, bs):
    return sum(np.sum(scipy.linalg.solve_triangular(a * (k + 1.0), bs[k], lower=True) ** 2) for k in range(len(bs)))


def test_solve_triangular_in_a_comprehension():
    args = (np.tril(RNG.normal(size=(3, 3))) + 3 * np.eye(3), RNG.normal(size=(4, 3)))
    check_gradients(triangular_in_a_comprehension, args)
    assert vectorised(triangular_in_a_comprehension, *args)


def tri_stack(a, b):
    return np.sum(scipy.linalg.solve_triangular(a, b))


def tri_overwrite(a, b):
    return np.sum(scipy.linalg.solve_triangular(a, b, overwrite_b=True))


def tri_trans(a, b):
    return np.sum(scipy.linalg.solve_triangular(a, b, trans=3))


def test_solve_triangular_errors():
    with pytest.raises(ValueError, match=r"shapes of a \(3, 3\) and b \(2,\) are incompatible") as e:
        catad.grad(tri_stack)(np.eye(3), np.ones(2))
    assert isinstance(e.value, catad.ShapeError) and "test_linalg_more.py" in str(e.value)
    with pytest.raises(ValueError, match="expected square matrix"):
        catad.grad(tri_stack)(np.ones((2, 3)), np.ones(2))
    with pytest.raises(np.linalg.LinAlgError, match="singular matrix: resolution failed at diagonal 1"):
        catad.grad(tri_stack)(np.diag([1.0, 0.0, 2.0]), np.ones(3))  # SciPy's own error, when it runs
    with pytest.raises(ValueError, match="array must not contain infs or NaNs"):
        catad.grad(tri_stack)(np.diag([1.0, np.nan]), np.ones(2))
    with pytest.raises(catad.CatadTypeError, match="stack of matrices is not supported here") as e:
        catad.grad(tri_stack)(np.ones((2, 3, 3)), np.ones(3))
    assert e.value.hint and "comprehension" in e.value.hint
    with pytest.raises(catad.UnsupportedSyntax, match="overwrite_b=True"):
        catad.grad(tri_overwrite)(np.eye(2), np.ones(2))
    with pytest.raises(catad.CatadTypeError, match="trans of scipy.linalg.solve_triangular"):
        catad.grad(tri_trans)(np.eye(2), np.ones(2))


# ---------------------------------------------------------------------- cholesky, cho_factor, cho_solve

def test_gp_marginal_likelihood():
    args = (np.array([0.0, 0.2, -2.0]), RNG.uniform(-2, 2, size=(10, 2)), RNG.normal(size=10))
    check_gradients(gp_neg_log_marginal_likelihood, args, argnums=(0, 2), rtol=1e-5, atol=1e-6)


def sp_cholesky_upper(a):
    return np.sum(np.sin(scipy.linalg.cholesky(a)) * np.arange(16.0).reshape(4, 4))


def sp_cholesky_lower(a):
    return np.sum(np.tanh(scipy.linalg.cholesky(a, lower=True, check_finite=False)))


def factor_and_solve(a, b):
    cf = scipy.linalg.cho_factor(a)
    return np.sum(scipy.linalg.cho_solve(cf, b) ** 2) + np.sum(np.cos(cf[0]))


def factor_and_solve_lower(a, b):
    c, low = scipy.linalg.cho_factor(a, lower=True)
    return np.sum(np.sin(scipy.linalg.cho_solve((c, low), b)))


@pytest.mark.parametrize("f, lower", [(sp_cholesky_upper, False), (sp_cholesky_lower, True)])
def test_scipy_cholesky_reads_one_triangle(f, lower):
    other = np.tril(RNG.normal(size=(4, 4)), -1) if not lower else np.triu(RNG.normal(size=(4, 4)), 1)
    a = spd(4) + other  # the triangle SciPy does not read: anything
    check_gradients(f, (a,))
    g = catad.grad(f)(a)
    assert np.all((np.triu(g, 1) if lower else np.tril(g, -1)) == 0.0)


@pytest.mark.parametrize("f", [factor_and_solve, factor_and_solve_lower])
@pytest.mark.parametrize("cols", [None, 3])
def test_cho_factor_and_cho_solve(f, cols):
    """cho_factor's c holds a's entries in the triangle it does not factor (as LAPACK leaves
    them), so their derivative is a's; cho_solve reads the factor's triangle only."""
    a, b = spd(4), RNG.normal(size=4 if cols is None else (4, cols))
    check_gradients(f, (a, b))


def factor_values(a, b):
    cu, cl = scipy.linalg.cho_factor(a), scipy.linalg.cho_factor(a, lower=True)
    return scipy.linalg.cholesky(a), scipy.linalg.cholesky(a, lower=True), cu[0], cl[0], \
        scipy.linalg.cho_solve(cu, b), scipy.linalg.cho_solve(cl, b)


def test_scipy_factor_values_are_scipy_s_own():
    a, b = spd(4) + np.triu(RNG.normal(size=(4, 4)), 1), RNG.normal(size=(4, 2))
    for x, y in zip(values(factor_values, a, b), factor_values(a, b)):
        np.testing.assert_array_equal(x, y)


def cholesky_stack(base, shifts):
    stack = np.array([base @ base.T + shifts[k] * np.eye(3) for k in range(len(shifts))])
    return np.sum(scipy.linalg.cholesky(stack) ** 2) + np.sum(scipy.linalg.cho_factor(stack, lower=True)[0])


def test_cholesky_of_a_stack():
    args = (RNG.normal(size=(3, 3)), np.array([1.0, 2.0, 3.0]))
    check_gradients(cholesky_stack, args, rtol=1e-5, atol=1e-6)
    assert vectorised(cholesky_stack, *args)


def cho_solve_not_constant(a, b, low):
    return np.sum(scipy.linalg.cho_solve((a, low > 0), b))


def cho_solve_plain(a, b):
    return np.sum(scipy.linalg.cho_solve((a, False), b))


def test_cholesky_errors():
    with pytest.raises(np.linalg.LinAlgError, match="2-th leading minor of the array is not positive definite"):
        catad.grad(sp_cholesky_upper)(np.diag([1.0, -1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match=r"Input array is expected to be square but has the shape: \(2, 3\)\.") as e:
        catad.grad(sp_cholesky_lower)(np.ones((2, 3)))
    assert "test_linalg_more.py" in str(e.value)
    with pytest.raises(ValueError, match="The factored matrix c is not square."):
        catad.grad(cho_solve_plain)(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match=r"incompatible dimensions \(\(2, 2\) and \(3,\)\)"):
        catad.grad(cho_solve_plain)(np.eye(2), np.ones(3))
    with pytest.raises(catad.CatadTypeError, match="lower of scipy.linalg.cho_solve must be True or False") as e:
        catad.grad(cho_solve_not_constant)(np.eye(2), np.ones(2), 1.0)
    assert "test_linalg_more.py" in str(e.value)


# ---------------------------------------------------------------------- multivariate_normal

def test_mvn_likelihood_as_the_corpus_writes_it():
    args = (RNG.normal(size=3), RNG.normal(size=(3, 3)) * 0.5, RNG.normal(size=(8, 3)))
    check_gradients(mvn_nll_scipy, args, rtol=1e-5, atol=1e-6)


def mvn_point(x, mean, cov):
    return stats.multivariate_normal.logpdf(x, mean, cov)


def mvn_points_pdf(x, mean, cov):
    return stats.multivariate_normal.pdf(x, mean=mean, cov=cov)


def mvn_no_mean(x, cov):
    return stats.multivariate_normal.logpdf(x, cov=cov)


def mvn_scalar_cov(x, mean, s):
    return stats.multivariate_normal.logpdf(x, mean, s)


def mvn_standard(x):
    return stats.multivariate_normal.logpdf(x)


@pytest.mark.parametrize("f, args", [
    (mvn_point, lambda: (RNG.normal(size=3), RNG.normal(size=3), spd(3))),
    (mvn_point, lambda: (RNG.normal(size=(1, 3)), RNG.normal(size=3), spd(3))),     # one point: a scalar
    (mvn_point, lambda: (RNG.normal(size=(5, 3)), RNG.normal(size=3), spd(3))),
    (mvn_points_pdf, lambda: (RNG.normal(size=(4, 2)), RNG.normal(size=2), spd(2))),
    (mvn_point, lambda: (RNG.normal(size=3), RNG.normal(size=3), np.array([1.0, 2.0, 0.5]))),  # a diagonal cov
    (mvn_scalar_cov, lambda: (RNG.normal(size=(4, 3)), RNG.normal(size=3), 1.7)),
    (mvn_no_mean, lambda: (RNG.normal(size=(4, 3)), spd(3))),
    (mvn_point, lambda: (RNG.normal(size=4), np.array([0.3]), np.array([[2.0]]))),  # dim 1: 4 points
    (mvn_point, lambda: (1.2, 0.3, 2.0)),
    (mvn_standard, lambda: (RNG.normal(size=5),)),
])
def test_mvn_shapes_as_scipy_reads_them(f, args):
    args = args()
    value = f(*args)
    got = values(f, *args)
    assert np.shape(got) == np.shape(value)
    np.testing.assert_allclose(got, value, rtol=1e-12, atol=1e-12)
    check_gradients(_weighted(f, len(args), np.arange(1.0, 1.0 + np.size(value))), args, rtol=1e-5, atol=1e-6)


def _weighted(f, arity: int, w):
    """A scalar of f's result, a vector or a scalar: sum(w * f(...))."""
    if arity == 1:
        return lambda x: np.sum(w * f(x))
    if arity == 2:
        return lambda x, m: np.sum(w * f(x, m))
    return lambda x, m, c: np.sum(w * f(x, m, c))


def test_mvn_at_an_identity_covariance():
    """cov = I has one eigenvalue n times; the density's derivative is still finite (catad uses
    the Cholesky factor, not eigenvectors)."""
    x, mean = RNG.normal(size=(3, 3)), RNG.normal(size=3)
    check_gradients(lambda x, m, c: np.sum(mvn_point(x, m, c)), (x, mean, np.eye(3)), rtol=1e-5, atol=1e-6)


def mvn_allow(x):
    return stats.multivariate_normal.logpdf(x, allow_singular=True)


def test_mvn_errors_are_scipy_s():
    x, mean = np.ones(2), np.zeros(2)
    singular = np.array([[1.0, 1.0], [1.0, 1.0]])
    with pytest.raises(np.linalg.LinAlgError, match="must be symmetric positive definite") as e:
        catad.grad(mvn_point)(x, mean, singular)
    assert "test_linalg_more.py" in str(e.value)
    with pytest.raises(np.linalg.LinAlgError, match="must be symmetric positive definite"):
        stats.multivariate_normal.logpdf(x, mean, singular)
    with pytest.raises(ValueError, match="must be symmetric positive semidefinite"):
        catad.grad(mvn_point)(x, mean, np.diag([1.0, -1.0]))
    with pytest.raises(ValueError, match=r"Dimension mismatch: array 'cov' is of shape \(3, 3\), but 'mean' is a "
                                         r"vector of length 2\."):
        catad.grad(mvn_point)(x, mean, np.eye(3))
    with pytest.raises(ValueError, match=r"Array 'cov' must be square if it is two dimensional, but cov.shape = "
                                         r"\(2, 3\)\."):
        catad.grad(mvn_point)(x, mean, np.ones((2, 3)))
    with pytest.raises(catad.UnsupportedSyntax, match="allow_singular=True"):
        catad.grad(mvn_allow)(x)


# ---------------------------------------------------------------------- lexsort

def lexsort_of_triangle(x, d):
    """adbench.gmm_scipy_style's ordering of a triangle's indices column by column."""
    rows, cols = np.tril_indices(d, -1)
    order = np.lexsort((rows, cols))
    rows, cols = rows[order], cols[order]
    return np.sum(x[rows] * x[cols] * np.arange(1.0, len(rows) + 1.0))


def lexsort_constant(x):
    """Keys written as constants."""
    order = np.lexsort((np.array([2, 1, 2, 0]), np.array([1, 1, 0, 0])))
    return np.sum(x[order] * np.arange(4.0))


def lexsort_run_time(x, k1, k2):
    return np.sum(x[np.lexsort([k1, k2])] * np.arange(1.0, len(x) + 1.0))


def lexsort_rows(x, keys):
    return np.sum(x[np.lexsort(keys)] * np.arange(1.0, len(x) + 1.0))


def lexsort_lanes(x, keys):
    return sum(np.sum(x[np.lexsort((keys[k], x))] * np.arange(len(x))) for k in range(len(keys)))


def test_lexsort():
    x = RNG.normal(size=6)
    check_gradients(lexsort_of_triangle, (x, 4), argnums=(0,))
    check_gradients(lexsort_constant, (x[:4],))
    k1, k2 = RNG.integers(0, 3, size=6), RNG.integers(0, 2, size=6)
    check_gradients(lexsort_run_time, (x, k1, k2), argnums=(0,))
    keys = RNG.integers(0, 2, size=(3, 6)).astype(float)
    check_gradients(lexsort_rows, (x, keys), argnums=(0,))
    check_gradients(lexsort_lanes, (x, keys), argnums=(0,))
    assert vectorised(lexsort_lanes, x, keys)
    order = values(lambda k1, k2: np.lexsort((k1, k2)), k1, k2)
    assert order.dtype.kind == "i"
    np.testing.assert_array_equal(order, np.lexsort((k1, k2)))


def test_lexsort_errors():
    with pytest.raises(ValueError, match="all keys need to be the same shape") as e:
        catad.grad(lexsort_run_time)(np.ones(3), np.arange(3), np.arange(4))
    assert "test_linalg_more.py" in str(e.value)
    with pytest.raises(catad.CatadTypeError, match="np.lexsort"):
        catad.grad(lambda x: np.sum(x[np.lexsort(3)]))(np.ones(3))


# ---------------------------------------------------------------------- loops

def recurrence(m, b):
    """Each function in a loop whose state feeds the next iteration's matrices."""
    acc = 0.0
    for j in range(2):
        s = np.tanh(acc)
        U, S, Vt = np.linalg.svd(m * (1.0 + 0.1 * s), full_matrices=False)
        w, v = np.linalg.eigh(m + m.T + s * np.eye(3))
        x = scipy.linalg.solve_triangular(m + 3 * np.eye(3), b * s + 1.0, lower=True, trans="T")
        y = scipy.linalg.cho_solve(scipy.linalg.cho_factor(m @ m.T + np.eye(3)), b * s)
        e = scipy.linalg.expm(m * 0.1 * s)
        acc = 0.5 * acc + 0.1 * (S[0] + np.sum(U[:, 0] * Vt[0]) + w[-1] + np.sum(v[:, 0] ** 2 * x) + np.sum(y)
                                 + np.sum(e) + np.sum(scipy.linalg.cholesky(m @ m.T + np.eye(3))))
    return acc


def batch_of_loops(base, shifts, b):
    return sum(recurrence(base + shifts[k] * np.eye(3), b) for k in range(len(shifts)))


def test_in_loops_and_a_comprehension_that_runs_as_a_python_loop():
    """A loop's derivative carries run-time tangents (catad.backend.linalg passes them to the
    kernels); in a comprehension the loop runs element by element."""
    base, b = RNG.normal(size=(3, 3)), RNG.normal(size=3)
    check_gradients(recurrence, (base, b), rtol=1e-5, atol=1e-6)
    args = (base, np.array([0.5, 1.0, 2.0]), b)
    check_gradients(batch_of_loops, args, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------- the linear maps

def _maps():
    n = 4
    a, s = RNG.normal(size=(n, 3)), RNG.normal(size=(n, n))
    u, sv, vt = np.linalg.svd(a, full_matrices=False)
    w, v = np.linalg.eigh(s)
    low = np.linalg.cholesky(spd(n))
    tri = np.tril(RNG.normal(size=(n, n))) + n * np.eye(n)
    x, xm = RNG.normal(size=n), RNG.normal(size=(n, 2))
    c = lambda value, ty=M: Const(value, ty)
    one = Const(1, Int)
    return [
        ("svals_jvp", "svals_vjp", (c(u), c(vt)), M, V, (n, 3), (3,)),
        ("svdu_jvp", "svdu_vjp", (c(u), c(sv, V), c(vt)), M, M, (n, 3), (n, 3)),
        ("svdvt_jvp", "svdvt_vjp", (c(u), c(sv, V), c(vt)), M, M, (n, 3), (3, 3)),
        ("eigvals_jvp", "eigvals_vjp", (c(v), one), M, V, (n, n), (n,)),
        ("eigvecs_jvp", "eigvecs_vjp", (c(w, V), c(v), Const(0, Int)), M, M, (n, n), (n, n)),
        ("expm_jvp", "expm_vjp", (c(s * 0.3),), M, M, (n, n), (n, n)),
        ("tri_lsolve", "tri_lsolve_t", (c(tri), Const(3, Int)), V, V, (n,), (n,)),
        ("tri_lsolve", "tri_lsolve_t", (c(tri), Const(5, Int)), M, M, (n, 2), (n, 2)),
        ("tri_neg_matmul", "tri_neg_matmul_t", (c(x, V), Const(7, Int)), M, V, (n, n), (n,)),
        ("tri_neg_matmul", "tri_neg_matmul_t", (c(xm), Const(0, Int)), M, M, (n, n), (n, 2)),
        ("sp_chol_jvp", "sp_chol_vjp", (c(low), one), M, M, (n, n), (n, n)),
        ("sp_chol_jvp", "sp_chol_vjp", (c(low.T), Const(0, Int)), M, M, (n, n), (n, n)),
        ("cho_lsolve", "cho_lsolve", (c(low), one), V, V, (n,), (n,)),
        ("cho_neg_matmul", "cho_neg_matmul_t", (c(low), c(x, V), one), M, V, (n, n), (n,)),
        ("cho_neg_matmul", "cho_neg_matmul_t", (c(low.T), c(xm), Const(0, Int)), M, M, (n, n), (n, 2)),
    ]


@pytest.mark.parametrize("k", range(15))
def test_each_linear_map_s_actions_are_adjoint(k):
    """<m . x, y> = <x, y ._R m> for every lmLinear the new Jacobians make, on dense, zero and
    sparse (one-hot row) tangents."""
    fwd, rev, args, src, tgt, xs, ys = _maps()[k]
    m = L.Linear(fwd, rev, args, src, tgt)
    for _ in range(3):
        x, y = RNG.normal(size=xs), RNG.normal(size=ys)
        assert np.sum(apply(m, x) * y) == pytest.approx(np.sum(x * apply_reverse(m, y)), rel=1e-10, abs=1e-12)
    assert apply(m, ZERO) is ZERO and apply_reverse(m, ZERO) is ZERO
    row = RNG.normal(size=xs[1:])
    dense = np.zeros(xs)
    dense[1] = row
    np.testing.assert_allclose(apply(m, OneHot(1, row, xs[0])), apply(m, dense))


# ---------------------------------------------------------------------- what catad prints

def test_gradients_solve_and_never_invert():
    for f, args in [(mvn_nll_cholesky, (np.zeros(3), np.eye(3), np.ones((4, 3)))),
                    (gp_neg_log_marginal_likelihood, (np.zeros(3), np.ones((4, 2)), np.ones(4)))]:
        rev = catad.explain(f, *args).stage("reverse").text
        assert "inv(" not in rev
        assert ("tri_lsolve_t(" in rev) if f is mvn_nll_cholesky else ("cho_lsolve(" in rev)
    jac = catad.explain(max_eigenvalue, np.eye(3)).stage("jacobian").text
    assert "lmLinear(eigvals_jvp/eigvals_vjp" in jac and "eigvecs" not in jac


def test_standard_normal_reads_a_vector_as_points():
    """With no mean and no cov the dimension is 1, so a vector is n points (SciPy's reading)."""
    got = values(mvn_standard, np.zeros(3))
    np.testing.assert_allclose(got, np.full(3, -0.5 * math.log(2 * math.pi)), rtol=1e-15)
    np.testing.assert_allclose(got, stats.multivariate_normal.logpdf(np.zeros(3)), rtol=1e-15)
