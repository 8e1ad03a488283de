"""Array methods that are NumPy functions of the array: a.clip(lo, hi) (also min=, max=),
a.round(decimals), a.any(axis), a.all(axis), a.argsort(axis, kind). Values against the function
itself, gradients against central differences."""
import numpy as np
import pytest

import catad
from located import agrees

X = np.array([0.3, -1.2, 2.1, 0.8, -0.4, 1.6])


def clipped(x):
    return np.sum(x.clip(-0.5, 1.0) ** 2) + np.sum(x.clip(max=0.9) * x) + np.sum(x.clip(min=0.0))


def rounded(x):
    return np.sum(x.round(1) * x) + np.sum(x.round() * x)


def any_all(x):
    m = x.reshape(2, 3)
    return np.sum(x) * (m > 0).any() + np.sum(np.where((m > -1.0).all(axis=1), 1.0, 2.0)) * x[0] + \
        np.sum(np.where((m > 0).any(axis=0), m, 0.0))


def ordered(x):
    return np.sum(x[x.argsort(kind="stable")] * np.arange(6.0)) + np.sum(x[x.argsort(kind="stable")][:2])


@pytest.mark.parametrize("f", [clipped, rounded, any_all, ordered], ids=lambda f: f.__name__)
def test_values_and_gradients(f):
    agrees(f, X)
    agrees(f, X * -0.7 + 0.05)


def test_integer_results():
    def f(x):
        return x.argsort(kind="stable"), x.round(), (x > 0).all(), x.clip(0.0, 1.0)
    got, _ = catad.vjp(f, X)
    for g, w in zip(got, f(X)):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)
