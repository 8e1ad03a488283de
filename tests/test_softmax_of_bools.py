"""scipy.special.softmax and log_softmax of Bools are SciPy's TypeError (x - max(x) of Bools:
numpy boolean subtract); catad converted the Bools to floats and returned a value."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.special

import catad


def softmax_of_mask(a):
    return np.sum(scipy.special.softmax(a > 0.0) * a)


def log_softmax_of_mask(a):
    return np.sum(scipy.special.log_softmax(a > 0.0)) + a[0]


def log_softmax_of_any(a):
    return scipy.special.log_softmax(np.any(a > 1.0)) + a[0]


def softmax_of_floats(a):
    return np.sum(scipy.special.softmax((a > 0.0) * 1.0) * a)


@pytest.mark.parametrize("f", [softmax_of_mask, log_softmax_of_mask, log_softmax_of_any], ids=lambda f: f.__name__)
def test_refused_as_scipy_raises(f):
    a = np.array([0.5, -1.0, 2.0])
    with pytest.raises(TypeError, match="boolean subtract"):
        f(a)
    with pytest.raises(catad.CatadError, match="boolean subtract") as e:
        catad.grad(f)(a)
    assert "test_softmax_of_bools.py" in str(e.value)


def test_a_mask_made_float_still_works():
    a = np.array([0.5, -1.0, 2.0])
    value, g = catad.value_and_grad(softmax_of_floats)(a)
    assert value == pytest.approx(softmax_of_floats(a), rel=1e-12)
    np.testing.assert_allclose(g, scipy.special.softmax((a > 0.0) * 1.0), rtol=1e-12)
