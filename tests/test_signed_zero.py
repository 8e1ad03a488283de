"""0.0 and -0.0 are two constants: 1 / (x * -0.0) is -inf where 1 / (x * 0.0) is inf, and
arctan2 of a -0.0 is -pi. Node equality and the backend's constant names once took them for one
constant, so the program computed one of them twice (a wrong value, silently)."""
import numpy as np
import pytest

import catad
from catad.lang.terms import Const
from catad.lang.types import Float


def reciprocals(x):
    return np.sum(1.0 / (x * 0.0)) - np.sum(1.0 / (x * -0.0))


def angles(x):
    return np.sum(np.arctan2(x * 0.0, -1.0) - np.arctan2(x * -0.0, -1.0)) + np.sum(x)


@pytest.mark.filterwarnings("ignore:divide by zero")
@pytest.mark.parametrize("fn", [reciprocals, angles])
def test_signed_zeros_are_distinct(fn):
    x = np.array([2.0, 3.0])
    with np.errstate(divide="ignore"):
        want = fn(x)
    assert catad.value_and_grad(fn)(x)[0] == want and catad.jvp(fn, (x,), (x,))[0] == want


def test_constants_of_zero_differ_by_sign():
    assert Const(0.0, Float) != Const(-0.0, Float)
    assert Const(-0.0, Float) == Const(-0.0, Float) and Const(0.0, Float) == Const(0.0, Float)


def plus_zero(x):
    return np.sum(1.0 / (x + 0.0)) + np.sum(np.arctan2(x + 0.0, -1.0))


def minus_zeros(x):
    return np.sum(np.arctan2(x - -0.0, -1.0)) + 2 * np.sum(np.arctan2(x - 0.0, -1.0)) + \
        4 * np.sum(np.arctan2(-0.0 + x, -1.0))


@pytest.mark.filterwarnings("ignore:divide by zero")
@pytest.mark.parametrize("fn", [plus_zero, minus_zeros])
def test_adding_zero_keeps_ieee_s_sign(fn):
    """x + 0.0 is +0.0 where x is -0.0: the rewrite rule add-zero drops only -0.0 (exact for every
    x), sub-zero only +0.0 (found by differential testing, trial 5: 1 / (x + 0.0) was -inf)."""
    x = np.array([-0.0, 0.0, 2.0])
    with np.errstate(divide="ignore"):
        want = fn(x)
    assert catad.value_and_grad(fn)(x)[0] == want and catad.jvp(fn, (x,), (x,))[0] == want


def _maximum(a, b):
    return np.maximum(a, b)


def _minimum(a, b):
    return np.minimum(a, b)


def test_maximum_and_minimum_of_a_tie_are_numpy_s_second():
    """np.maximum(-0.0, 0.0) is 0.0 and np.maximum(0.0, -0.0) is -0.0: NumPy takes b unless a is
    greater or NaN (catad took a; found by differential testing, trial 6). NaN from either side."""
    import itertools
    values = [0.0, -0.0, 1.0, np.nan, -np.inf]
    for fn, ref in ((_maximum, np.maximum), (_minimum, np.minimum)):
        for a, b in itertools.product(values, values):
            want = ref(a, b)
            got = catad.jvp(fn, (a, b), (1.0, 0.0))[0]
            assert np.array_equal(got, want, equal_nan=True) and np.signbit(got) == np.signbit(want), (fn, a, b)
        x, y = np.array([0.0, -0.0, 1.0]), np.array([-0.0, 0.0, 1.0])
        assert np.array_equal(np.signbit(catad.jvp(fn, (x, y), (x, y))[0]), np.signbit(ref(x, y)))
