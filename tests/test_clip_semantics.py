"""np.clip as NumPy computes it (catad/frontend/special_calls.py h_clip): with both bounds, the
clip ufunc, which keeps x on a tie (0.0 and -0.0 too) and gives NaN where x or a bound is NaN;
with one bound, np.maximum's or np.minimum's, where a tie gives the bound. catad kept x where a
bound was NaN (np.clip(1.0, nan, 10.0) gave 1.0). Values are compared bit for bit (the sign of
a zero too), gradients against central differences away from the kinks."""
import itertools
import math

import numpy as np
import pytest

import catad


def both(x, lo, hi):
    return np.clip(x, lo, hi) * 2.0


def below(x, lo):
    return np.clip(x, lo, None) * 2.0


def above(x, hi):
    return np.clip(x, None, hi) * 2.0


def of_vector(v, lo, hi):
    return np.sum(np.clip(v, lo, hi) ** 2)


VALUES = [math.nan, -0.0, 0.0, 0.5, 1.0, 2.0, -1.0]


def same(a, b):
    return math.isnan(a) and math.isnan(b) or a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


@pytest.mark.parametrize("x,lo,hi", list(itertools.product(VALUES, repeat=3)))
def test_a_number_clipped_is_numpy_s_to_the_bit(x, lo, hi):
    for f, args in ((both, (x, lo, hi)), (below, (x, lo)), (above, (x, hi))):
        assert same(catad.value_and_grad(f)(*args)[0], float(f(*args))), (f.__name__, args)


def test_a_vector_clipped_and_its_gradient():
    v = np.array(VALUES)
    for lo, hi in itertools.product(VALUES, repeat=2):
        assert same(catad.value_and_grad(of_vector)(v, lo, hi)[0], float(of_vector(v, lo, hi)))
    w = np.array([-1.3, 0.2, 0.7, 1.6])
    g = catad.grad(of_vector, argnums=(0, 1, 2))(w, 0.1, 1.2)
    h = 1e-6
    np.testing.assert_allclose(g[0], [(of_vector(w + h * e, 0.1, 1.2) - of_vector(w - h * e, 0.1, 1.2)) / (2 * h)
                                      for e in np.eye(4)], rtol=1e-6, atol=1e-8)
    assert g[1] == pytest.approx((of_vector(w, 0.1 + h, 1.2) - of_vector(w, 0.1 - h, 1.2)) / (2 * h), rel=1e-6)
    assert g[2] == pytest.approx((of_vector(w, 0.1, 1.2 + h) - of_vector(w, 0.1, 1.2 - h)) / (2 * h), rel=1e-6)
