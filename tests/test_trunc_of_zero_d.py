"""math.trunc of an array of no axes (np.where of numbers gives one) is Python's TypeError: ndarray
has no __trunc__ (math.floor and math.ceil convert it to a float first, and work). catad gave the
truncated number (found by differential testing, session 28, seed 2103291)."""
import math

import numpy as np
import pytest

import catad
from located import refused


def trunc_of_where(x, v):
    return x * math.trunc(np.where(v[0] > 0.1, 3.5, v[1]))  # ERR


def floor_of_where(x, v):
    return x * (math.floor(np.where(v[0] > 0.1, 3.5, v[1])) + math.ceil(np.where(v[0] > 0.1, 3.5, v[1])))


def test_trunc_is_refused_as_python_raises():
    v = np.array([1.0, 2.0])
    with pytest.raises(TypeError, match="__trunc__"):
        trunc_of_where(1.5, v)
    refused(trunc_of_where, (1.5, v), "__trunc__", cls=catad.CatadTypeError)


def test_floor_and_ceil_convert():
    v = np.array([1.0, 2.0])
    assert catad.value_and_grad(floor_of_where)(1.5, v) == (floor_of_where(1.5, v), 7.0)
