"""NumPy's index generators, polynomials, convolutions and interpolation
(catad/frontend/numpy_signal.py) and integer-array indexing by two arrays, each checked by
tests/shape_oracle.py against the user's own function run by NumPy: the value, gradients
(reverse, forward and the Jacobian) against central differences, and, where NumPy raises,
catad.ShapeError or BoundsError at the marked line.
"""
import numpy as np
import pytest
from numpy.polynomial import chebyshev, legendre, polynomial
import scipy.integrate
from scipy.special import logsumexp

import catad
from shape_oracle import check_like_numpy, rand


def arr(*shape, seed=0, low=0.5, high=1.5):
    return rand(np.random.default_rng(seed), shape, low, high)


# ---------------------------------------------------------------- triu_indices, tril_indices

def triangle_indices(n, k):
    a, b = np.triu_indices(n, k)
    c, d = np.tril_indices(n, k)
    return a, b, c, d


def triangle_indices_m(n, k, m):
    a, b = np.triu_indices(n, k, m)
    c, d = np.tril_indices(n, k=k, m=m)
    return a, b, c, d


@pytest.mark.parametrize("n", [-1, 0, 1, 2, 5])
def test_triangle_indices_are_numpy_s(n):
    for k in (-6, -2, -1, 0, 1, 3, 7):
        got = catad.vjp(triangle_indices, n, k)[0]
        want = triangle_indices(n, k)
        assert all(g.dtype.kind == "i" and np.array_equal(g, w) for g, w in zip(got, want)), (n, k)
        for m in (0, 2, 6):
            got = catad.vjp(triangle_indices_m, n, k, m)[0]
            assert all(np.array_equal(g, w) for g, w in zip(got, triangle_indices_m(n, k, m))), (n, k, m)


def lennard_jones(X):
    n = X.shape[0]
    i, j = np.triu_indices(n, k=1)
    r = np.linalg.norm(X[i] - X[j], axis=1)
    sr6 = (1.0 / r) ** 6
    return np.sum(4.0 * (sr6 ** 2 - sr6))


def upper_pairs(m):
    iu = np.triu_indices(m.shape[0], 1)
    return m[iu] * 2.0


def lower_exp(m):
    return np.exp(m[np.tril_indices(m.shape[0], -1)])


def test_pairwise_energies():
    X = np.array([[0.0, 0.1, 0.2], [1.1, 0.0, 0.3], [0.2, 1.2, 0.1], [1.0, 1.1, 0.9]])
    check_like_numpy(lennard_jones, X)
    for n in (1, 2, 4):
        check_like_numpy(upper_pairs, arr(n, n))
        check_like_numpy(lower_exp, arr(n, n))


# ---------------------------------------------------------------- two integer arrays

def gather(m, rows, cols):
    return m[rows, cols] ** 2  # <-


def gather_arange(m, y):
    return m[np.arange(len(y)), y]


def softmax_regression_nll(W, X, labels):
    logits = X @ W
    logits = logits - logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(logits[np.arange(len(labels)), labels])


def test_two_index_arrays():
    m = arr(4, 5)
    check_like_numpy(gather, m, np.array([0, 3, -1, 2]), np.array([4, 0, 2, -5]))
    check_like_numpy(gather, m, np.array([1]), np.array([4, 0, 2]))     # broadcast
    check_like_numpy(gather, m, np.array([1, 2, 0]), np.array([3]))
    check_like_numpy(gather, m, np.zeros(0, dtype=int), np.zeros(0, dtype=int))
    check_like_numpy(gather_arange, m, np.array([4, 0, 2, 1]))
    check_like_numpy(softmax_regression_nll, arr(3, 4), arr(6, 3, seed=1), np.array([0, 3, 1, 2, 2, 0]))


def test_two_index_arrays_errors_are_numpy_s():
    m = arr(4, 5)
    check_like_numpy(gather, m, np.array([0, 1]), np.array([0, 1, 2]))  # do not broadcast
    check_like_numpy(gather, m, np.array([0, 4]), np.array([0, 1]))     # row out of range
    check_like_numpy(gather, m, np.array([0, -5]), np.array([0, 1]))
    check_like_numpy(gather, m, np.array([0, 1]), np.array([0, 5]))     # column out of range


# ---------------------------------------------------------------- polynomials

def polyval_fn(p, x):
    return np.polyval(p, x)


def power_series(c, x):
    return polynomial.polyval(x, c)


def cheb_fn(c, x):
    return chebyshev.chebval(x, c)


def leg_fn(c, x):
    return legendre.legval(x, c)


def polyfit_loss(coeffs, x, y):
    return np.sum((np.polyval(coeffs, x) - y) ** 2)


@pytest.mark.parametrize("n", [1, 2, 3, 6])
@pytest.mark.parametrize("fn", [polyval_fn, power_series, cheb_fn, leg_fn])
def test_polynomials(fn, n):
    c = arr(n, low=-1.0, high=1.0)
    check_like_numpy(fn, c, arr(5, low=-1.0, high=1.0, seed=1))
    check_like_numpy(fn, c, 0.3)
    check_like_numpy(fn, c, arr(2, 3, low=-1.0, high=1.0, seed=2))
    check_like_numpy(fn, c, np.array([-1, 0, 2]))  # Int x


def test_polynomial_values_are_numpy_s_bit_for_bit():
    c, x = np.array([0.3, -1.2, 2.5, 0.7, -0.1]), np.linspace(-1.3, 1.7, 11)
    for fn in (polyval_fn, power_series, cheb_fn, leg_fn):
        assert np.array_equal(catad.vjp(fn, c, x)[0], fn(c, x)), fn.__name__


def test_polynomial_of_no_coefficients():
    for fn in (power_series, cheb_fn, leg_fn):  # NumPy's IndexError
        check_like_numpy(fn, np.zeros(0), arr(3))
    check_like_numpy(polyval_fn, np.zeros(0), arr(3))  # zeros
    check_like_numpy(polyfit_loss, arr(4), arr(10, seed=1), arr(10, seed=2))


def gauss_legendre_integral(theta, n=8):
    nodes, weights = legendre.leggauss(n)
    x = 0.5 * (nodes + 1.0)
    return 0.5 * np.sum(weights * np.exp(-theta[0] * x) * np.cos(theta[1] * x))


def leggauss_three(a):
    x, w = legendre.leggauss(3)
    return x * a + w


def test_leggauss():
    check_like_numpy(gauss_legendre_integral, np.array([0.7, 1.3]))
    check_like_numpy(leggauss_three, 1.5)


def leggauss_run_time(a, n):
    x, w = legendre.leggauss(n)
    return np.sum(x * a)


def test_leggauss_needs_a_constant_degree():
    with pytest.raises(catad.UnsupportedSyntax, match="deg of .*leggauss must be an integer constant"):
        catad.grad(leggauss_run_time)(1.0, 3)


# ---------------------------------------------------------------- convolve, correlate

def convolve_full(a, v):
    return np.convolve(a, v)  # <-


def convolve_same(a, v):
    return np.convolve(a, v, mode="same")  # <-


def convolve_valid(a, v):
    return np.convolve(a, v, "valid")  # <-


def correlate_full(a, v):
    return np.correlate(a, v, mode="full")  # <-


def correlate_same(a, v):
    return np.correlate(a, v, "same")  # <-


def correlate_valid(a, v):
    return np.correlate(a, v)  # <-


CONVOLUTIONS = [convolve_full, convolve_same, convolve_valid, correlate_full, correlate_same, correlate_valid]


@pytest.mark.parametrize("fn", CONVOLUTIONS)
def test_convolutions(fn):
    for n, m in ((6, 3), (3, 6), (4, 4), (1, 5), (5, 1), (5, 2), (2, 5), (7, 4), (4, 7)):
        check_like_numpy(fn, arr(n), arr(m, seed=1))


@pytest.mark.parametrize("fn", CONVOLUTIONS)
def test_convolutions_of_empty_arrays_are_numpy_s_error(fn):
    check_like_numpy(fn, np.zeros(0), arr(3), shapes=())  # NumPy's message names no shape
    check_like_numpy(fn, arr(3), np.zeros(0), shapes=())


def fir_least_squares(h, x, target):
    y = np.convolve(x, h, mode="valid")
    return np.sum((y - target) ** 2)


def autocorrelation_loss(x, max_lag=4):
    xc = x - x.mean()
    acf = np.correlate(xc, xc, mode="full")[len(x) - 1:]
    acf = acf / acf[0]
    return np.sum(acf[1:max_lag + 1] ** 2)


def convolve_bad_mode(a):
    return np.convolve(a, a, mode="middle")


def convolve_matrix(m):
    return np.convolve(m, m)


def test_convolution_losses_and_refusals():
    check_like_numpy(fir_least_squares, arr(3), arr(10, seed=1), arr(8, seed=2))
    check_like_numpy(autocorrelation_loss, arr(9, low=-1.0, high=1.0))
    with pytest.raises(catad.CatadTypeError, match="mode must be one of 'valid', 'same', or 'full'"):
        catad.grad(convolve_bad_mode)(arr(3))
    with pytest.raises(catad.CatadTypeError, match="must be a vector"):
        catad.vjp(convolve_matrix, arr(2, 2))


# ---------------------------------------------------------------- interp

def interp_fn(x, xp, fp):
    return np.interp(x, xp, fp)  # <-


def interp_ends(x, xp, fp, lo, hi):
    return np.interp(x, xp, fp, left=lo, right=hi)


def interp_loss(knot_values, knots, x, y):
    return np.sum((np.interp(x, knots, knot_values) - y) ** 2)


def test_interp():
    xp, fp = np.array([0.0, 0.2, 0.5, 0.55, 1.0]), arr(5)
    x = np.array([-0.5, 0.05, 0.13, 0.31, 0.52, 0.63, 0.93, 1.4])
    check_like_numpy(interp_fn, x, xp, fp)
    check_like_numpy(interp_fn, 0.37, xp, fp)
    check_like_numpy(interp_fn, x.reshape(2, 4), xp, fp)
    check_like_numpy(interp_fn, x, np.array([0.5]), np.array([2.0]))
    check_like_numpy(interp_ends, x, xp, fp, -1.0, 3.0)
    check_like_numpy(interp_loss, arr(6), np.linspace(0, 1, 6), x, arr(8, seed=3))


def test_interp_values_at_knots_and_ends_are_numpy_s():
    xp, fp = np.array([0.0, 0.2, 0.5, 1.0]), np.array([1.0, -2.0, 0.5, 4.0])
    x = np.array([-1.0, 0.0, 0.2, 0.5, 0.7, 1.0, 2.0, np.nan, np.inf, -np.inf])
    assert np.array_equal(catad.vjp(interp_fn, x, xp, fp)[0], interp_fn(x, xp, fp), equal_nan=True)
    # at a knot, the derivative with respect to x is the slope of the interval to its right
    _, jvp = catad.jvp(interp_fn, (np.array([0.2, 0.5]), xp, fp), (np.ones(2), np.zeros(4), np.zeros(4)))
    assert np.allclose(jvp, [(0.5 + 2.0) / 0.3, 3.5 / 0.5])


def test_interp_errors_are_numpy_s():
    check_like_numpy(interp_fn, arr(3), np.zeros(0), np.zeros(0), shapes=())  # NumPy's messages name no shape
    check_like_numpy(interp_fn, arr(3), arr(3), arr(2), shapes=())


# ---------------------------------------------------------------- insert

def insert_front(x):
    c = np.cumsum(np.insert(x, 0, 0.0))
    return (c[3:] - c[:-3]) / 3


def insert_at(x):
    return np.insert(x, 2, 5.0) + np.insert(x, -1, 1.5) * 2.0  # <-


def test_insert():
    check_like_numpy(insert_front, arr(6))
    for n in (2, 3, 5):
        check_like_numpy(insert_at, arr(n))
    check_like_numpy(insert_at, arr(1))  # NumPy's IndexError


# ---------------------------------------------------------------- scipy.integrate.simpson

def simpson_x(y, x):
    return scipy.integrate.simpson(y, x=x)  # <-


def simpson_dx(y, h):
    return scipy.integrate.simpson(y, dx=h)


def simpson_integral(params, x):
    mu, log_s = params
    y = np.exp(-0.5 * ((x - mu) / np.exp(log_s)) ** 2)
    return scipy.integrate.simpson(y, x=x)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 9])
def test_simpson_odd_and_even_numbers_of_samples(n):
    x = np.cumsum(arr(n, seed=4, low=0.1, high=1.0))
    check_like_numpy(simpson_x, arr(n), x)
    check_like_numpy(simpson_dx, arr(n), 0.3)


def test_simpson():
    check_like_numpy(simpson_integral, np.array([0.2, -0.3]), np.linspace(-3, 3, 21))
    check_like_numpy(simpson_integral, np.array([0.2, -0.3]), np.linspace(-3, 3, 20))
    check_like_numpy(simpson_x, arr(4), arr(3), shapes=())  # SciPy's ValueError


# ---------------------------------------------------------------- trapezoid along an axis

def trapezoid_rows(y, x):
    return np.trapezoid(y, x)  # <-


def trapezoid_columns(y, x):
    return np.trapezoid(y, x=x, axis=0)  # <-


def trapezoid_dx(y, h):
    return np.trapezoid(y, dx=h, axis=-2) + np.trapezoid(y, axis=1)[0]


def test_trapezoid_along_an_axis():
    y = arr(3, 4)
    check_like_numpy(trapezoid_rows, y, np.cumsum(arr(4, seed=1)))
    check_like_numpy(trapezoid_rows, y, arr(3, 4, seed=1))
    check_like_numpy(trapezoid_columns, y, np.cumsum(arr(3, seed=1)))
    check_like_numpy(trapezoid_columns, y, arr(3, 4, seed=2))
    check_like_numpy(trapezoid_dx, y, 0.3)
    check_like_numpy(trapezoid_dx, arr(1, 1), 0.3)
    check_like_numpy(trapezoid_rows, y, np.cumsum(arr(2, seed=1)))  # d of length 1 broadcasts, as NumPy's
    check_like_numpy(trapezoid_rows, y, np.cumsum(arr(3, seed=1)))  # NumPy's broadcast error
