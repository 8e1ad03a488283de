"""A function's own function returning a tuple keeps, in its caller, which items are Python's own
numbers. catad tracks them because Python's arithmetic raises where NumPy's gives inf or nan
(x / 0). A returned tuple's items were all taken for NumPy's, so k(x)[1] / 0, with k returning
(x, abs(x)), gave nan where Python raises ZeroDivisionError (loop fuzzer, seed 93783). The call
is now a tuple display of its items, each marked as the callee returns it (undecided where it is
Python's at some returns only)."""
from __future__ import annotations

import numpy as np
import pytest

import catad
from located import agrees


def pair(a):
    return a, abs(a)


def either(a):
    if a > 0.0:
        return np.float64(a), a * 2.0
    return np.float64(a), np.sin(a)


def counted(v):
    return np.sum(v), len(v)


def item(x):
    return np.sin(pair(x)[1] / 0)


def unpacked(x):
    p, q = pair(x)
    return np.sin(q / 0) + p


def mean_by_count(v):
    total, n = counted(v[:0])
    return total + 1.0 / n + np.sum(v)  # (1.0 / n: of Python numbers, raising at n == 0)


def numpy_item(x):
    return np.sin(pair(np.float64(x))[1] / 0)


@pytest.mark.parametrize("f", [item, unpacked])
def test_a_python_number_taken_from_a_returned_tuple_raises_as_python(f):
    with pytest.raises(ZeroDivisionError):
        f(1.5)
    with pytest.raises(ZeroDivisionError):  # (catad's ZeroDivisionError_ is one)
        catad.value_and_grad(f)(1.5)


def test_an_int_count_returned_in_a_tuple_divides_as_python():
    v = np.array([0.5, 2.0])
    with pytest.raises(ZeroDivisionError):
        mean_by_count(v)
    with pytest.raises(ZeroDivisionError):
        catad.grad(mean_by_count)(v)


def test_numpys_items_stay_numpys():
    with np.errstate(divide="ignore", invalid="ignore"):
        assert np.isnan(numpy_item(1.5))
        value, g = catad.value_and_grad(numpy_item)(1.5)
    assert np.isnan(value)


def test_an_item_python_s_at_some_returns_only():
    def use(x):
        return either(x)[1] / 0.0
    with pytest.raises(ZeroDivisionError):
        use(1.5)
    with pytest.raises(catad.CatadError):
        catad.grad(use)(1.5)


def test_values_and_gradients_where_nothing_raises():
    def smooth(x):
        p, q = pair(x)
        return p * q + either(x)[1] * 3.0
    for x in (1.5, -0.7):
        agrees(smooth, x)
