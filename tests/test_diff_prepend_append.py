"""np.diff(u, prepend=..., append=...) of a vector, with a number or a vector at either end (and
with n > 1, and ints): the differences of the joined vector, as NumPy takes them. It was refused
("np.diff() does not take keyword argument 'prepend'"). Oracle: the function itself and central
differences."""
import numpy as np
import pytest

from located import agrees, refused

U = np.array([1.0, 3.0, 2.0])


def prepended(x, u):
    return np.sum(np.diff(u * x, prepend=0.0) ** 2)


def both_ends(x, u):
    return np.sum(np.diff(u * x, append=u[-1] * 2.0, prepend=np.array([1.0, x])) ** 2)


def second_order(x, u):
    return np.sum(np.diff(u * x, n=2, prepend=0) ** 2)


def of_ints(x, u):
    return np.sum(np.diff(np.arange(3), prepend=0)) * x + np.sum(np.diff(u, append=1) * x)


@pytest.mark.parametrize("f", [prepended, both_ends, second_order, of_ints], ids=lambda f: f.__name__)
def test_values_and_derivatives(f):
    agrees(f, 0.7, U)


def order_zero(x, u):
    return np.sum(np.diff(u * x, n=0, prepend=5.0))  # ERR


def test_order_zero_with_prepend_refused():
    # NumPy returns the array itself for n=0 (prepend left out); catad joined it
    refused(order_zero, (0.7, U), "n=0")
