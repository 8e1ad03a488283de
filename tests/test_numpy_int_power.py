"""A power of NumPy's ints (elements of an Int array, either side) is NumPy's int power: an Int
(so % or // by a NumPy 0 is 0, not NaN as a float's), and a negative power raises ValueError as
NumPy's does; Python's ints keep Python's power. bool(x) is Python's bool (~bool(x) is -1 or -2).
Values and errors against the function itself."""
import warnings

import numpy as np
import pytest

import catad


def powers(x, k):
    return (k[0] ** k[1]) * x + (2 ** k[1]) * x + (k[1] ** 2) * x + ((k[0] ** k[1]) % k[2]) * x \
        + ((k[0] ** k[1]) // k[2]) * x


def inverted_truths(x, k):
    return (~bool(x > 1.0)) * x + (~bool(k[1])) * x + (x > 0.5) ** (~(-k[2] - 1)) * x


@pytest.mark.parametrize("f", [powers, inverted_truths], ids=lambda f: f.__name__)
@pytest.mark.parametrize("k", [np.array([3, 2, 0]), np.array([2, 3, 5]), np.array([0, 0, 1])], ids=str)
def test_values_and_gradients(f, k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = f(1.5, k)
        assert catad.value_and_grad(f)(1.5, k) == (expected, expected / 1.5)


@pytest.mark.parametrize("f", [powers, inverted_truths], ids=lambda f: f.__name__)
def test_a_negative_power_of_numpy_ints_raises(f):
    k = np.array([3, -1, -3])
    with pytest.raises(ValueError, match="negative integer powers"):
        f(1.5, k)
    with pytest.raises(ValueError, match="negative integer powers"):
        catad.grad(f)(1.5, k)


def xor_mask_power(x, k):
    return np.sum(((k > 0) ^ (k > 1)) ** (len(k) - 2)) * x + np.sum(((k > 0) ^ (k > 2)) ** ((x > 0) * 2)) * x


def test_a_power_of_an_elementwise_expression():
    """The power's check reads its base: an element made by a let (^'s) is bound first (was a raw
    AssertionError)."""
    k = np.array([0, 2, 1])
    assert catad.value_and_grad(xor_mask_power)(1.5, k) == (xor_mask_power(1.5, k), xor_mask_power(1.0, k))
