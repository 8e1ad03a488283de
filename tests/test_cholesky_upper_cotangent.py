"""The reverse rule of a Cholesky factor drops the cotangent of its upper triangle, which is
constant 0 (independent of A): catad.grad of np.sum(np.sqrt(np.abs(L))) was NaN in every entry
(the inf cotangent at L's zeros met L^T's zeros in L^T G), where jvp and central differences are
finite. Also scipy.linalg.cholesky (lower and upper) and the Hessian's rules."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.linalg

import catad


def np_factor(c):
    L = np.linalg.cholesky(c @ c.T + 4.0 * np.eye(3))
    return np.sum(np.sqrt(np.abs(L)))


def scipy_lower(c):
    L = scipy.linalg.cholesky(c @ c.T + 4.0 * np.eye(3), lower=True)
    return np.sum(np.sqrt(np.abs(L)))


def scipy_upper(c):
    U = scipy.linalg.cholesky(c @ c.T + 4.0 * np.eye(3))
    return np.sum(np.sqrt(np.abs(U)))


C = np.array([[0.1, -0.3, 0.6], [0.1, -0.5, 0.4], [1.3, 0.9, -0.8]])


def _central(f, c, h=1e-6):
    out = np.zeros_like(c)
    for i in range(c.shape[0]):
        for j in range(c.shape[1]):
            e = np.zeros_like(c)
            e[i, j] = h
            out[i, j] = (f(c + e) - f(c - e)) / (2 * h)
    return out


@pytest.mark.parametrize("f", [np_factor, scipy_lower, scipy_upper], ids=lambda f: f.__name__)
def test_gradient(f):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = catad.grad(f)(C)
    np.testing.assert_allclose(g, _central(f, C), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("f", [np_factor, scipy_lower], ids=lambda f: f.__name__)
def test_hessian_vector_product_is_finite_and_agrees(f):
    v = np.ones_like(C) * 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hv = catad.hvp(f, (C,), (v,))
        g = catad.grad(f)
        h = 1e-5
        fd = (g(C + h * v) - g(C - h * v)) / (2 * h)
    assert np.isfinite(hv).all()
    np.testing.assert_allclose(hv, fd, rtol=1e-4, atol=1e-6)
