"""Writing into an array a NumPy function made new: a reduction along an axis (np.sum(m, axis=0)),
a product (np.dot(m, v)), np.sort; and into a vector a loop iterated (its elements are numbers, not
views). catad refused them as arrays that "may share their memory with another value". The rows of
a matrix a loop iterated are views of it: writing into the matrix after is still refused. Found by
differential testing (session 18)."""
import numpy as np
import pytest

import catad
from located import agrees


def sum_along_axis(m):
    a = np.sum(m, axis=0)
    a[0] = 1.0
    return np.sum(a * a)


def max_along_rows(m):
    a = np.max(m, axis=1)
    a[:] *= 2.0
    return np.sum(a * m[:, 0])


def dot_then_add(m):
    a = np.dot(m, m[0])
    a[1] += 2.0
    return np.sum(a ** 2)


def sorted_then_set(m):
    a = np.sort(m[0])
    a[-1] = 0.5
    return np.sum(a * m[1])


def after_a_loop_over_a_vector(w):
    a = np.copy(w)
    s = 0.0
    for e in a:
        s += e
    a[0] = 1.0
    return s + np.sum(a * a)


def after_a_loop_over_rows(m):
    a = np.copy(m)
    rows = []
    for r in a:
        rows.append(r)
    a[0, 0] = 5.0
    return np.sum(rows[0])


M = np.array([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])


@pytest.mark.parametrize("f", [sum_along_axis, max_along_rows, dot_then_add, sorted_then_set],
                         ids=lambda f: f.__name__)
def test_an_array_a_numpy_function_made(f):
    agrees(f, M)


def test_a_vector_a_loop_iterated():
    agrees(after_a_loop_over_a_vector, np.array([1.0, 2.0, 3.0]))


def test_a_matrix_whose_rows_a_loop_kept_is_refused():
    assert after_a_loop_over_rows(M) == 5.0 + M[0, 1] + M[0, 2]  # NumPy: rows[0] is a view of a
    with pytest.raises(catad.CatadError, match="may share its memory"):
        catad.grad(after_a_loop_over_rows)(M)
