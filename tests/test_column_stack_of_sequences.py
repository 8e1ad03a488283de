"""np.column_stack of a list of vectors made by a comprehension or appends, or of a matrix (a
sequence of its rows), or of a list of matrices: columns (the transpose) or matrices side by side,
as NumPy makes them. It was refused ("of a matrix (a sequence of rows) is not supported", though
the user passed a list of arrays). Oracle: the function itself and central differences."""
import numpy as np
import pytest

from located import agrees

V = np.array([1.0, 2.0, 3.0])


def vandermonde(x, v):
    a = np.column_stack([v ** p for p in range(3)])
    return np.sum(a @ np.array([1.0, x, x * x]))


def of_a_matrix(x, v):
    return np.sum(np.column_stack(np.outer(v, v) * x) * np.arange(3.0))


def of_matrices(x, v):
    return np.sum(np.column_stack([np.outer(v, v) * x, np.outer(v, v)]) ** 2)


def appended(x, v):
    cols = []
    for p in range(3):
        cols.append(v * x ** p)
    return np.sum(np.column_stack(cols)[1])


@pytest.mark.parametrize("f", [vandermonde, of_a_matrix, of_matrices, appended], ids=lambda f: f.__name__)
def test_values_and_derivatives(f):
    agrees(f, 0.7, V)
