"""tuple(t) of a tuple, a named tuple (a plain tuple, as Python's) or a list of a length known while
compiling (frontend/iterators.h_tuple); of an array or a list held as one it is refused, located
(catad's tuples have lengths known while compiling). Oracle: the user's function (located.agrees).
catad refused tuple() on main."""
from collections import namedtuple

import numpy as np
import pytest

from located import agrees, refused

P = namedtuple("P", "a b")


def of_a_shape(x):
    n, m = tuple(x.shape)
    return np.sum(x) * n + m


def of_a_named_tuple(x):
    p = P(x[0, 0], x[0, 1])
    t = tuple(p)
    return t[0] * t[1] + len(t) + (1.0 if isinstance(t, P) else 0.0)


def of_a_list_of_arrays(x):
    rows = [x[0], x[1] * 2.0, x[0, :2]]
    t = tuple(rows)
    return np.sum(t[0] * t[1]) + np.sum(t[2]) + len(tuple())


X = np.array([[0.3, -0.7, 1.1], [0.4, 2.5, -1.2]])


@pytest.mark.parametrize("f", [of_a_shape, of_a_named_tuple, of_a_list_of_arrays])
def test_tuple(f):
    agrees(f, X)


def of_an_array(x):
    return sum(tuple(x[0]))  # ERR


def test_of_an_array_refused():
    refused(of_an_array, (X,), "tuple() of a Vec Float is not supported")
