"""math.prod multiplies with Python's *: 1 * np.float64 is NumPy's, so math.prod of a list that
holds a NumPy number is NumPy's (its % 0.0 is nan), and of Python's numbers only Python's (its
% 0.0 raises ZeroDivisionError). catad took every math function's result to be Python's."""
import math

import numpy as np
import pytest

import catad
from located import outcome, raises_like_python


def of_a_clip(x, v):
    y = math.prod([np.clip(1.0, -1.0, 2.0), x])
    return y % (y - y)


def of_an_element(x, v):
    y = math.prod([v[0], x])
    return y % (y - y)


def of_pythons(x, v):
    y = math.prod([x, 2.0])
    return y % (y - y)


def of_a_shape(x, v):
    y = math.prod(v.shape) * x
    return x / (y - y)


@pytest.mark.parametrize("f", [of_a_clip, of_an_element, of_pythons, of_a_shape], ids=lambda f: f.__name__)
def test_as_python(f):
    v = np.array([1.5, 2.0])
    want = outcome(f, 2.0, v)
    if raises_like_python(want, f, 2.0, v):  # (Python's numbers: Python's error)
        return
    with np.errstate(all="ignore"):
        value = catad.value_and_grad(f)(2.0, v)[0]
    assert np.isnan(want) and np.isnan(value)


def test_the_kinds():
    v = np.array([1.5, 2.0])
    with np.errstate(all="ignore"):
        assert np.isnan(of_an_element(2.0, v))
    with pytest.raises(ZeroDivisionError):
        of_pythons(2.0, v)
