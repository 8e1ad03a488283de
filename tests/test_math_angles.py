"""math.radians and math.degrees of numbers: Python's float x * (pi / 180) and x * (180 / pi),
bit for bit, with Python's errors after them (x / math.radians(0.0) raises ZeroDivisionError)."""
import math

import numpy as np
import pytest

import catad
from located import agrees, raises_as_python, refused


def turned(x, v):
    return math.sin(math.radians(x * 30.0)) + math.degrees(v[0] * x) + math.radians(len(v)) + math.degrees(True)


@pytest.mark.parametrize("x", [0.5, -2.25, 1e300])
def test_values_as_python(x):
    v = np.array([0.75, 1.5])
    value = agrees(turned, x, v)[0] if abs(x) < 1e10 else catad.value_and_grad(turned)(x, v)[0]
    assert value == turned(x, v)


def over_zero_radians(x, v):
    return x / math.radians(v[0] * 0.0)


def test_python_float_raises():
    raises_as_python(over_zero_radians, 1.5, np.array([2.0]))


def of_an_array(x, v):
    return math.radians(v) * x  # ERR


def test_an_array_is_refused():
    refused(of_an_array, (1.5, np.array([1.0, 2.0])), "math.radians() takes a number", "np.radians")
