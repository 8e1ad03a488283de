"""A bool compared with a number compares as 0 or 1, in Python and NumPy alike: x > (v[0] > 0),
(x > 0) >= 0.5, v > (v > 0.5). catad refused them with its primitive's typing error. Each
function is called itself."""
import numpy as np
import pytest

import catad
from located import agrees, outcome


def number_above_a_numpy_bool(x, v):
    return x * (x > (v[0] > 0))


def numpy_bool_below_a_number(x, v):
    return x * ((v[0] > 0) < x)


def python_bool_against_a_float(x, v):
    return x * ((x > 0) >= 0.5)


def arrays(x, v):
    return np.sum(x * (v > (v > 0.5)))


def against_an_int(x, v):
    return x * ((v[0] > 0) <= 1) + x * (2 == (x > 0))


def against_nan(x, v):
    return x * (np.nan > (v[0] > 0)) + x * (0.5 < (x > 0))


@pytest.mark.parametrize("f", [number_above_a_numpy_bool, numpy_bool_below_a_number, python_bool_against_a_float,
                               arrays, against_an_int, against_nan], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.7, 1.5, -0.5])
def test_as_python(f, x):
    v = np.array([1.0, 0.25, -2.0])
    assert catad.value_and_grad(f)(x, v)[0] == outcome(f, x, v)
    agrees(f, x, v)
