"""NumPy's functions of numbers compute on NumPy's scalars whatever they are given: np.mod,
np.remainder, np.floor_divide, np.divide, np.true_divide, np.add, np.subtract, np.multiply and
np.power of Python's floats and ints give NumPy's inf and nan (np.mod(0.1, 0.0) is nan,
np.divide(1, 0) is inf, np.power(0.0, -2.0) is inf) where the operators of Python's numbers
raise ZeroDivisionError, and NumPy's ValueError for an int to a negative int power. catad gave
Python's errors there. Each function is called itself: catad raises what it raises, else gives
its value, and its gradient where that is finite."""
import math

import numpy as np
import pytest

import catad
from located import agrees, raises_like_python, outcome as python


def mod_of_a_max(x, k):
    return np.mod(max(0.1, x), x)


def mod(x, k):
    return np.mod(0.1, x) + x


def remainder(x, k):
    return np.remainder(0.1, x) + x


def floor_divide(x, k):
    return np.floor_divide(0.1, x) + x


def divide(x, k):
    return np.divide(0.1, x) + x


def true_divide(x, k):
    return np.true_divide(1.0, x) + x


def power(x, k):
    return np.power(0.0, -x) + x


def int_mod(x, k):
    return x * np.mod(5, k) + np.remainder(7.5, -2.0)


def int_floor_divide(x, k):
    return x * np.floor_divide(5, k)


def int_power(x, k):
    return x * np.power(2, k)


def int_divide(x, k):
    return x * np.divide(1, k)


def sum_then_divided(x, k):
    return x / np.add(1.0, -1.0)


def product_then_divided(x, k):
    return x / np.multiply(k, 0)


def difference_of_lengths_then_divided(x, k):
    return x / np.subtract(len([x]), 1)


FLOATS = [mod_of_a_max, mod, remainder, floor_divide, divide, true_divide, power]
INTS = [int_mod, int_floor_divide, int_power, int_divide, sum_then_divided, product_then_divided,
        difference_of_lengths_then_divided]



def same(got, want):
    return got == want or (math.isnan(got) and math.isnan(want))


def check(f, x, k):
    want = python(f, x, k)
    if raises_like_python(want, f, x, k):
        return
    with np.errstate(all="ignore"):
        value, g = catad.value_and_grad(f)(x, k)
    assert same(value, want), (value, want)
    if np.isfinite(want) and np.isfinite(g):
        agrees(f, x, k)


@pytest.mark.parametrize("f", FLOATS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.0, 2.0, -0.75])
def test_of_python_floats(f, x):
    check(f, x, 2)


@pytest.mark.parametrize("f", INTS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("k", [0, 2, -1])
def test_of_python_ints(f, k):
    check(f, 1.5, k)


def test_the_cases_are_numpys():
    """Where Python's operators raise, these are NumPy's numbers."""
    with np.errstate(all="ignore"):
        assert math.isnan(mod(0.0, 2)) and divide(0.0, 2) == math.inf and power(2.0, 2) == math.inf
        assert int_mod(1.5, 0) == -0.5 and int_divide(1.5, 0) == math.inf
    with pytest.raises(ZeroDivisionError):
        0.1 % 0.0
    assert python(int_power, 1.5, -1)[0] is ValueError
