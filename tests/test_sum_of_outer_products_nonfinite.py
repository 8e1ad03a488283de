"""A sum of products whose indices the contraction sums apart (np.sum(np.outer(a, b)) as
sum(a) * sum(b), as NumPy's einsum also does) is NumPy's sum of the products where the result is
not finite: with a = [0, 1] and b = [-inf, 1] the term 0 * -inf is NaN, so NumPy's sum is NaN,
where catad gave -inf. (An overflow of products whose factored sum is finite:
tests/test_overflowing_products.py.)"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import catad


def outer_sum(a, b):
    return np.sum(np.outer(a, b))


def broadcast_sum(a, b):
    return np.sum(a[:, None] * b[None, :])


def einsum_sum(a, b):
    return np.sum(np.einsum("i,j->ij", a, b) * 2.0)


def row_sums(a, b):
    return np.sum(np.sum(np.outer(a, b), axis=0) ** 2)


def _same(x, y):
    return (np.isnan(x) and np.isnan(y)) or x == y


@pytest.mark.parametrize("f", [outer_sum, broadcast_sum, einsum_sum, row_sums], ids=lambda f: f.__name__)
@pytest.mark.parametrize("a,b", [([0.0, 1.0], [-np.inf, 1.0]), ([np.inf, 1.0], [0.0, 2.0]), ([np.nan, 1.0], [1.0, 2.0]),
                                 ([np.inf, 1.0], [1.0, 2.0])], ids=str)
def test_nonfinite_terms(f, a, b):
    a, b = np.array(a), np.array(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = f(a, b)
        got = catad.value_and_grad(f)(a, b)[0]
    assert _same(got, expected), (got, expected)


@pytest.mark.parametrize("f", [outer_sum, broadcast_sum, einsum_sum, row_sums], ids=lambda f: f.__name__)
def test_finite(f):
    a, b = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.25])
    value, g = catad.value_and_grad(f, argnums=(0, 1))(a, b)
    assert value == pytest.approx(f(a, b), rel=1e-12)
    h = 1e-6
    fd = [(f(a + h * e, b) - f(a - h * e, b)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(g[0], fd, rtol=1e-6)
