"""Reading one element of an array the function made, s = a[1], is a copy (a number), not a view:
catad counted every subscript as a reference to the array, and a later a[0] = 2.0 was refused
as writing into an array that "may share its memory with another value". A row of a matrix,
r = m[0], is a view: writing into m after it is still refused. Found by differential testing
(session 18)."""
import numpy as np
import pytest

import catad
from located import agrees


def element_then_write(v):
    a = v.copy()
    s = a[1]
    a[0] = 2.0
    return np.sum(a * a) + s


def elements_then_write(m):
    a = m.copy()
    x, y = a[0, 1], a[1, 0]
    a[0, 0] = x * y
    return np.sum(a * a)


def row_then_write(m):
    a = m.copy()
    r = a[0]
    a[0, 0] = 5.0
    return np.sum(r)


@pytest.mark.parametrize("f, x", [(element_then_write, np.array([1.0, 2.0, 3.0])),
                                  (elements_then_write, np.array([[1.0, 2.0], [0.5, -1.0]]))],
                         ids=["element", "elements"])
def test_a_number_read_out_of_an_array_is_a_copy(f, x):
    agrees(f, x)


def test_a_row_is_a_view():
    m = np.array([[1.0, 2.0], [0.5, -1.0]])
    assert row_then_write(m) == 7.0  # NumPy: r sees the write
    with pytest.raises(catad.CatadError, match="may share its memory"):
        catad.grad(row_then_write)(m)
