"""scipy.stats.multivariate_normal.logpdf and pdf of a point or a mean holding a nan or an inf: SciPy
gives nan (logpdf -inf, pdf 0 for an inf), and catad raised a raw ValueError ("array must not contain
infs or NaNs") from the triangular solve's check of finite input, which SciPy makes of its own
inputs only. Found by differential testing (session 18)."""
import warnings

import numpy as np
import pytest
import scipy.stats

import catad

COV = np.array([[2.0, 0.3], [0.3, 1.0]])


def logpdf(x, m):
    return scipy.stats.multivariate_normal.logpdf(x, mean=m, cov=np.array([[2.0, 0.3], [0.3, 1.0]]))


def pdf(x, m):
    return scipy.stats.multivariate_normal.pdf(x, mean=m, cov=np.array([[2.0, 0.3], [0.3, 1.0]]))


def logpdf_rows(x, m):
    return np.sum(scipy.stats.multivariate_normal.logpdf(x, mean=m, cov=np.array([[2.0, 0.3], [0.3, 1.0]]))
                  * np.array([1.0, 2.0, 3.0]))


Z = np.zeros(2)
CASES = [(np.array([np.nan, 1.0]), Z), (np.array([np.inf, 1.0]), Z), (np.array([0.5, 1.0]), np.array([np.nan, 0.0])),
         (np.array([0.5, 1.0]), np.array([0.0, -np.inf]))]


@pytest.mark.parametrize("f", [logpdf, pdf], ids=lambda f: f.__name__)
@pytest.mark.parametrize("k", range(len(CASES)))
def test_a_nonfinite_point_or_mean_gives_scipy_s_value(f, k):
    x, m = CASES[k]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = f(x, m)
        value, g = catad.value_and_grad(f, argnums=(0, 1))(x, m)
    np.testing.assert_array_equal(value, expected)
    assert g[0].shape == g[1].shape == (2,)


def test_the_finite_rows_keep_their_gradient():
    x = np.array([[np.nan, 1.0], [0.5, 0.2], [-0.3, 0.7]])
    value, g = catad.value_and_grad(logpdf_rows)(x, Z)
    assert np.isnan(value) and np.isnan(logpdf_rows(x, Z))
    finite = x[1:]
    want = -np.linalg.solve(COV, finite.T).T * np.array([[2.0], [3.0]])  # d logpdf / dx = -cov^-1 (x - m)
    np.testing.assert_allclose(g[1:], want, rtol=1e-12)
    assert np.all(np.isnan(g[0]))
