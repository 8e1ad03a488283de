"""np.where of a bool and a number gives NumPy's result type, the number's (True is 1 or 1.0):
np.where(v > 0, v > 1, 0.5 * v). catad refused it (np.where() chooses between a Bool and a Float).
Each function is called itself."""
import numpy as np
import pytest

from located import agrees


def bool_or_float(v):
    return np.sum(np.where(v > 0.0, v > 1.0, v * 0.5) * v)


def float_or_bool(v):
    return np.sum(np.where(v > 0.0, 2.5, v < -1.0) * v)


def int_or_bool(v):
    return np.sum(np.where(v > 0.0, 3, v > 1.0) * v)


def of_numbers(x):
    return float(np.where(x > 0.0, x > 1.0, x * 0.5)) * x


@pytest.mark.parametrize("f", [bool_or_float, float_or_bool, int_or_bool], ids=lambda f: f.__name__)
def test_arrays(f):
    agrees(f, np.array([1.5, 0.5, -2.0, -0.5]))


@pytest.mark.parametrize("x", [1.5, 0.5, -0.5])
def test_numbers(x):
    agrees(of_numbers, x)

