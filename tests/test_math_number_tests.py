"""math.isnan, math.isinf and math.isfinite of a number: Python's bools (True / 0 raises, as in
Python), tested as np.isnan and friends are; of an array, refused as the TypeError Python raises.
Before, refused as unsupported functions."""
import math

import numpy as np
import pytest

import catad
from catad.errors import CatadTypeError, ZeroDivisionError_
from located import agrees, refused


def overflowed(x):
    if not math.isfinite(x * 1e308 * 10.0):
        return x * 2.0 + math.isinf(-x * 1e308 * 10.0)
    return x


def classified(x):
    return (math.isnan(x - x) + math.isinf(x) + math.isfinite(3)) * x


@pytest.mark.parametrize("fn", [overflowed, classified], ids=lambda f: f.__name__)
def test_math_number_tests(fn):
    with np.errstate(over="ignore"):
        agrees(fn, 1.5)
        agrees(fn, 1e-320)


def over_zero(x):
    return math.isnan(x) / 0


def test_their_bools_are_python_s():
    with pytest.raises(ZeroDivisionError):
        over_zero(1.5)
    with pytest.raises(ZeroDivisionError_):
        catad.value_and_grad(over_zero)(1.5)


def of_an_array(v):
    return math.isnan(v) * 1.0  # ERR


def test_of_an_array_is_refused():
    with pytest.raises(TypeError):
        of_an_array(np.ones(2))
    refused(of_an_array, (np.ones(2),), "math.isnan() takes a number", "np.isnan(x)", cls=CatadTypeError)
