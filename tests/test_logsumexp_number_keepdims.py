"""scipy.special.logsumexp of a number with keepdims=True is what the installed SciPy gives: an
array of one element from SciPy 1.15 on (it reads the number as one), where catad gave a
number; np.ndim of it was 0 for 1."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.special

import catad


def kept(x):
    t = scipy.special.logsumexp(x, keepdims=True)
    return np.ndim(t) * 1.0 + np.sum(t) * x


def kept_weighted(x):
    t = scipy.special.logsumexp(x, b=2.0, axis=0, keepdims=True)
    return np.ndim(t) * 1.0 + np.sum(t * x)


def not_kept(x):
    t = scipy.special.logsumexp(x * 2.0)
    return np.ndim(t) * 1.0 + t


@pytest.mark.parametrize("f", [kept, kept_weighted, not_kept], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.7, -2.5])
def test_value_and_gradient(f, x):
    value, g = catad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    h = 1e-6
    assert g == pytest.approx((f(x + h) - f(x - h)) / (2 * h), rel=1e-6)


def test_shape_is_scipys():
    def shape_of(x):
        return scipy.special.logsumexp(x, keepdims=True)
    primal, tangent = catad.jvp(shape_of, (0.5,), (1.0,))
    assert np.shape(primal) == np.shape(shape_of(0.5)) and np.shape(tangent) == np.shape(shape_of(0.5))
