"""np.array (np.asarray) of a list comprehension of Python's own numbers (math.sqrt's floats) holds
NumPy's numbers: sum, max and min of it, and a loop over it, give NumPy's, so a division by zero is
inf, not Python's ZeroDivisionError. catad kept the comprehension's mark on the array and raised
(fuzzer seed 3331563). The builtin sum of an empty array is still Python's 0. Each function is
called itself."""
import math

import numpy as np
import pytest

from located import agrees, outcome, raises_like_python


def summed(x, v):
    a = np.array([math.sqrt(abs(e) + 1.0) for e in v])
    return x * (sum(a) + 0.5) / round(x)


def largest(x, v):
    a = np.asarray([math.sqrt(abs(e) + 1.0) for e in v])
    return x + max(a) / (min(a) * 0.0)


def looped(x, v):
    a = np.array([math.sqrt(abs(e) + 1.0) * x for e in v])
    t = 0.0
    for e in a:
        t = t + e
    return t + 1.0 / (e * 0.0)


def indexed(x, v):
    a = np.array([math.exp(float(k)) for k in range(len(v))])
    return x * a[1] + sum(a) / (a[0] - 1.0)


@pytest.mark.parametrize("f", [summed, largest, looped, indexed], ids=lambda f: f.__name__)
def test_numpys_inf(f):
    args = (0.5, np.array([2.0, -2.0, 1.0]))
    with np.errstate(all="ignore"):
        assert np.isinf(f(*args))
    value, grad = __import__("catad").value_and_grad(f)(*args)
    assert value == f(*args)


def test_empty_sum_is_pythons_zero():
    args = (0.5, np.array([]))
    assert raises_like_python(outcome(summed, *args), summed, *args)


def test_gradient_where_finite():
    agrees(summed, 1.2, np.array([2.0, -2.0, 1.0]))
