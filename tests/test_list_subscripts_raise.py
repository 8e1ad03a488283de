"""A Python list takes integers and slices as indices, nothing else: l[0, 1] of a list of lists,
l[[0, 1]], l[np.array([0, 1])], l[None] and l[:, None] raise TypeError in Python. catad, which
holds a list of numbers as an array, gave NumPy's result. Each function is called itself; the
same subscripts of np.array(l) still give NumPy's result."""
import numpy as np
import pytest

import catad
from located import agrees, outcome, raises_like_python


def tuple_of_a_nested_list(x):
    m = [[x, 2.0 * x], [3.0 * x, x]]
    return m[0, 1]


def list_index(x):
    l = [x, 2.0 * x, 3.0 * x]
    return l[[0, 1]][1]


def array_index(x):
    l = [x, 2.0 * x, 3.0 * x]
    return l[np.array([0, 2])][1]


def none_index(x):
    l = [x, 2.0 * x]
    return np.sum(l[None])


def slice_and_none(x):
    l = [x, 2.0 * x]
    return np.sum(l[:, None])


def one_item_tuple(x):
    l = [x, 2.0 * x, 3.0 * x]
    return l[0,]


def only_where_taken(x):
    m = [[x, 2.0 * x], [3.0 * x, x]]
    return m[0, 1] if x > 1.0 else m[1][0]


@pytest.mark.parametrize("f", [tuple_of_a_nested_list, list_index, array_index, none_index, slice_and_none,
                               one_item_tuple],
                         ids=lambda f: f.__name__)
def test_raises_type_error_as_python(f):
    assert raises_like_python(outcome(f, 0.5), f, 0.5)


def test_raises_only_where_python_does():
    assert raises_like_python(outcome(only_where_taken, 1.5), only_where_taken, 1.5)
    assert catad.grad(only_where_taken)(0.5) == 3.0


def arrays_of_the_lists(x):
    m = np.array([[x, 2.0 * x], [3.0 * x, x]])
    l = np.array([x, 2.0 * x, 3.0 * x])
    return m[0, 1] + l[[0, 1]][1] + l[np.array([0, 2])][1] + np.sum(l[None]) + np.sum(l[:, None])


def test_arrays_index_as_numpy():
    agrees(arrays_of_the_lists, 0.5)


def list_indexed_plainly(x):
    l = [x, 2.0 * x, 3.0 * x]
    m = [[x, 2.0 * x], [3.0 * x, x]]
    return l[1] + l[-1] + np.sum(l[1:]) + m[1][0] + np.sum(m[0][:])


def test_list_integers_and_slices_as_python():
    agrees(list_indexed_plainly, 0.5)
