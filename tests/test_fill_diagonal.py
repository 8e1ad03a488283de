"""np.fill_diagonal(m, value) as a statement, of a matrix of the function and a number: the
assignment m[d, d] = value it makes in place, d over the shorter side (NumPy's wrap=False). Of
the caller's array it is refused (NumPy would change the caller's array), an array value and
other uses refused, located. Oracle: the user's function itself (located.agrees). catad refused
np.fill_diagonal on main."""
import numpy as np
import pytest

from located import agrees, refused


def pair_energy(p):
    d = np.sqrt(np.sum((p[:, None, :] - p[None, :, :]) ** 2, axis=-1) + 1e-12)
    inv = 1.0 / d
    np.fill_diagonal(inv, 0.0)
    return 0.5 * np.sum(inv)


def of_a_tall_matrix(x):
    m = np.outer(x, x[:2])
    np.fill_diagonal(m, x[0] * 2.0)
    return np.sum(m * m)


def of_a_wide_matrix(x):
    m = np.outer(x[:2], x)
    np.fill_diagonal(m, 1.5)
    return np.sum(m ** 3)


P = np.array([[0.3, -0.7], [1.1, 0.4], [-1.6, 0.2], [0.5, 0.9]])
X = np.array([0.3, -0.7, 1.1, 0.4])


@pytest.mark.parametrize("f, x", [(pair_energy, P), (of_a_tall_matrix, X), (of_a_wide_matrix, X)])
def test_fill_diagonal(f, x):
    agrees(f, x)


def of_the_callers_array(m):
    np.fill_diagonal(m, 0.0)  # ERR
    return np.sum(m)


def of_an_array_value(m):
    k = m * 2.0
    np.fill_diagonal(k, m[0])  # ERR
    return np.sum(k)


def as_a_value(m):
    k = m * 2.0
    none = np.fill_diagonal(k, 0.0)  # ERR
    return np.sum(k)


def test_refused():
    refused(of_the_callers_array, (np.eye(3),), "the caller passed")
    refused(of_an_array_value, (np.eye(3),), "with a number as the value")
    refused(as_a_value, (np.eye(3),), "as a statement of its own")
