"""scipy.stats.multivariate_normal with a cov holding an inf or a NaN anywhere: SciPy's _PSD
calls eigh(check_finite=True), a ValueError ('array must not contain infs or NaNs'). catad
raised a raw LinAlgError from its eigenvalues, or its own 'not positive semidefinite', and
with an inf above the diagonal only (eigh reads the lower triangle) it returned a value."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

import catad

INF, NAN = np.inf, np.nan


def logpdf(x, c):
    return scipy.stats.multivariate_normal.logpdf(x, mean=np.zeros(2), cov=c)


def pdf(x, c):
    return scipy.stats.multivariate_normal.pdf(x, mean=np.zeros(2), cov=c)


def scaled_identity(x, c):
    return scipy.stats.multivariate_normal.logpdf(x, mean=np.zeros(2), cov=c * np.eye(2))


BAD = [np.array([[2.0, NAN], [NAN, 1.0]]), np.array([[2.0, INF], [0.5, 1.0]]), np.array([[-INF, 0.5], [0.5, 1.0]]),
       np.array([2.0, INF]), np.array([NAN, 1.0]), INF]


@pytest.mark.parametrize("f", [logpdf, pdf], ids=lambda f: f.__name__)
@pytest.mark.parametrize("c", BAD, ids=range(len(BAD)))
def test_raises_scipys_value_error(f, c):
    x = np.array([0.5, 1.0])
    with pytest.raises(ValueError, match="array must not contain infs or NaNs"):
        f(x, c)
    with pytest.raises(catad.CatadError, match="array must not contain infs or NaNs") as e:
        catad.value_and_grad(f)(x, c)
    assert isinstance(e.value, ValueError)
    assert "test_mvn_nonfinite_cov.py" in str(e.value)


def test_an_inf_times_the_identity():
    x = np.array([0.5, 1.0])
    with np.errstate(invalid="ignore"), pytest.raises(ValueError, match="infs or NaNs"):
        scaled_identity(x, INF)
    with np.errstate(invalid="ignore"), pytest.raises(catad.CatadError, match="infs or NaNs"):
        catad.grad(scaled_identity)(x, INF)


def test_a_finite_cov_still_gives_scipys_value_and_gradient():
    x, c = np.array([0.5, 1.0]), np.array([[2.0, 0.5], [0.5, 1.0]])
    value, g = catad.value_and_grad(logpdf)(x, c)
    assert value == pytest.approx(logpdf(x, c), rel=1e-12)
    h = 1e-6
    fd = [(logpdf(x + h * e, c) - logpdf(x - h * e, c)) / (2 * h) for e in np.eye(2)]
    np.testing.assert_allclose(g, fd, rtol=1e-6)
