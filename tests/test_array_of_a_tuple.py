"""np.array and np.asarray of a tuple (an argument, a display, a variable holding one) of numbers or
of arrays of one shape are the arrays NumPy makes of them; of items of several shapes NumPy's
ValueError. They were refused ("np.array() takes a list, a list comprehension or an array").
Oracle: the function itself and central differences."""
import numpy as np
import pytest

import catad
from located import agrees


def of_a_display(x, v):
    pair = (x, 2.0 * x)
    return np.sum(np.array(pair) * v[:2]) + np.sum(np.asarray((v[0] * x, v[1]))) + np.array((1, 2))[1] * x


def of_arrays(x, v):
    a = np.array((v * x, v))
    return np.sum(a[1] * a[0])


@pytest.mark.parametrize("f", [of_a_display, of_arrays], ids=lambda f: f.__name__)
def test_values_and_derivatives(f):
    agrees(f, 0.7, np.array([1.0, 2.0, 3.0]))


def of_an_argument(x, t):
    return np.sum(np.array(t)) * x


@pytest.mark.parametrize("t", [(1.0, 2.0), (1, 2)], ids=["floats", "ints"])
def test_of_a_tuple_argument(t):
    value, grad = catad.value_and_grad(of_an_argument)(0.7, t)
    assert value == pytest.approx(of_an_argument(0.7, t), rel=1e-15)
    assert grad == pytest.approx(3.0, rel=1e-15)


def ragged(x, v):
    return np.sum(np.array((x, v)))


def test_items_of_several_shapes_are_numpys_error():
    with pytest.raises(ValueError):
        ragged(0.7, np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="inhomogeneous"):
        catad.grad(ragged)(0.7, np.array([1.0, 2.0]))
