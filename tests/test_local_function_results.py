"""A def or lambda written inside the compiled function returns Python's numbers as Python's:
g = lambda t: math.sin(t) * 2.0, then g(x) / 0.0 raises ZeroDivisionError as Python's float does
(catad gave inf: the result of a local function was NumPy's), and a NumPy number it returns stays
NumPy's. Each function is called itself."""
import math

import numpy as np
import pytest

import catad
from located import agrees, outcome, raises_like_python


def lambda_of_math(x, v):
    g = lambda t: math.sin(t) * 2.0  # noqa: E731
    return g(x) / 0.0


def def_of_math(x, v):
    def g(t):
        return math.sin(t) * 2.0
    return g(x) / 0.0


def sum_of_two_calls(x, v):
    g = lambda t: math.sin(t) * 2.0  # noqa: E731
    s = g(x) + g(x)
    return np.sin(s / max(0.0, -abs(np.sum(v))))


def returns_numpys(x, v):
    g = lambda t: t * v[0]  # noqa: E731
    return g(x) / (v[0] - v[0])


def returns_a_tuple(x, v):
    def g(t):
        return math.cos(t), t * v[0]
    a, b = g(x)
    return a / (a - a) if x > 10.0 else b / (b - b)


def returns_a_display_unpacked(x, v):
    a, b = (lambda: (math.cos(x), v[0] * 2.0))()
    return a / (x - x) if x > 10.0 else b / (b - b)


def returns_a_display_of_pythons(x, v):
    a, b = (lambda: (math.cos(x), 2.0))()
    return b / (x - x)


def returns_on_two_paths(x, v):
    def g(t):
        if t > 0.0:
            return t * 2.0
        return -t
    return g(x) / (x - x)


def used_smoothly(x, v):
    g = lambda t: math.sin(t) * 2.0  # noqa: E731
    return g(x) * np.sum(v) + g(2.0 * x)


@pytest.mark.parametrize("f", [lambda_of_math, def_of_math, sum_of_two_calls, returns_numpys, returns_a_tuple,
                               returns_a_display_unpacked, returns_a_display_of_pythons, returns_on_two_paths],
                         ids=lambda f: f.__name__)
def test_as_python(f):
    v = np.array([1.0, 2.0])
    want = outcome(f, 0.7, v)
    if raises_like_python(want, f, 0.7, v):
        return
    with np.errstate(all="ignore"):
        value = catad.value_and_grad(f)(0.7, v)[0]
    assert value == want or (np.isnan(value) and np.isnan(want))


def test_the_kinds_seen():
    v = np.array([1.0, 2.0])
    with pytest.raises(ZeroDivisionError):
        lambda_of_math(0.7, v)
    with np.errstate(all="ignore"):
        assert returns_numpys(0.7, v) == np.inf and np.isinf(returns_a_tuple(0.7, v))


def test_gradient():
    agrees(used_smoothly, 0.7, np.array([1.0, 2.0]))
