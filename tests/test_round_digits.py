"""round(x, n): of Python's float, Python's own rounding (its exact decimal value rounded to n
digits: round(2.675, 2) is 2.67); of NumPy's float, NumPy's rint(x * 10**n) / 10**n (2.68); of
an int, the int. Its derivative is 0. Each function is called itself."""
import math

import numpy as np
import pytest

import catad
from catad.primitives.registry import PRIMITIVES
from located import agrees, raises_like_python, outcome as python


def python_float(x, v):
    return round(x, 2) + x


def numpy_float(x, v):
    return round(v[0], 2) + x


def to_tens(x, v):
    return round(x * 1.0, -1) * 3.0 + x


def of_an_int(x, v):
    return round(len(v), 1) * x


def by_keyword(x, v):
    return round(x, ndigits=1) + x


def none_digits(x, v):
    return round(x, None) * x


def python_divided(x, v):
    return 1.0 / round(x, 1)


def numpy_divided(x, v):
    return 1.0 / round(v[0], 1)


def in_a_generator(x, v):
    return sum(round(e * x, 3) for e in [x, 2.0 * x])


def over_an_array(x, v):
    return sum(round(e, 1) for e in v) * x


FUNCTIONS = [python_float, numpy_float, to_tens, of_an_int, by_keyword, none_digits, python_divided, numpy_divided,
             in_a_generator, over_an_array]
POINTS = [(2.675, np.array([2.675])), (0.285, np.array([1.005, 0.125])), (0.04, np.array([0.04])),
          (1234.5, np.array([-5.015, 2.5])), (math.nan, np.array([math.inf]))]



@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x, v", POINTS, ids=["2.675", "0.285", "0.04", "1234.5", "nan"])
def test_as_python(f, x, v):
    want = python(f, x, v)
    if raises_like_python(want, f, x, v):
        return
    value, g = catad.value_and_grad(f)(x, v)
    assert value == want or (math.isnan(value) and math.isnan(want))


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_gradient_off_the_jumps(f):
    """(Central differences straddle a jump of round at the points above: here none is near.)"""
    agrees(f, 0.3141, np.array([1.234, 0.567]))


def test_python_and_numpy_round_apart():
    assert round(2.675, 2) == 2.67 and round(np.float64(2.675), 2) == 2.68
    assert catad.value_and_grad(python_float)(2.675, np.array([2.675])) == (2.67 + 2.675, 1.0)
    assert catad.value_and_grad(numpy_float)(2.675, np.array([2.675])) == (2.68 + 2.675, 1.0)


def test_the_primitive_is_pythons_round():
    p = PRIMITIVES["round_digits"]
    for x, n in [(2.675, 2), (0.125, 2), (-5.015, 2), (1234.5, -1), (1e300, -299), (0.5, 0)]:
        assert p.impl(x, float(n)) == round(x, n)


def test_ndigits_of_numpy_floats_known_only_at_run_time_is_refused():
    def digits_at_run_time(x, v, n):
        return round(v[0], n) + x
    with pytest.raises(catad.CatadError, match="known while compiling"):
        catad.grad(digits_at_run_time)(1.0, np.array([2.5]), 2)


def round_of_a_where(x, v):
    return round(np.where(x > 0.0, x, 1.0), 1) * x


def round_of_a_where_to_int(x, v):
    return round(np.where(x > 0.0, x, 1.0)) * x


@pytest.mark.parametrize("f", [round_of_a_where, round_of_a_where_to_int], ids=lambda f: f.__name__)
def test_round_of_an_array_of_no_axes_is_refused(f):
    """(ndarray has no __round__: Python raises TypeError.)"""
    assert python(f, 2.0, None)[0] is TypeError
    with pytest.raises(catad.CatadError, match="__round__"):
        catad.grad(f)(2.0, None)
