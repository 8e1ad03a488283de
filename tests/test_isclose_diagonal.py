"""np.isclose and np.allclose (NumPy 2's formula: |a - b| <= atol + rtol |b| where b is finite,
or a == b; NaNs equal with equal_nan; allclose Python's bool), and np.diagonal / a.diagonal()
of a matrix (offset, axis1, axis2; NumPy's read-only view). Values against the function itself,
gradients against central differences."""
import numpy as np
import pytest

import catad
from located import agrees, refused

inf, nan = np.inf, np.nan
A = np.array([1.0, 1.0 + 1e-9, inf, inf, -inf, nan, nan, 0.0, 1e-9, 2.0, 1.0])
B = np.array([1.0, 1.0, inf, -inf, -inf, nan, 1.0, 1e-9, 0.0, 2.1, 1.0 + 2e-5])


def closeness(a, b):
    return (np.isclose(a, b), np.isclose(a, b, equal_nan=True), np.isclose(a, b, rtol=0.1),
            np.isclose(a, 1.0, atol=0.5), np.isclose(a[0], b[1]), np.isclose(b, a, 1e-4, 0.0),
            np.allclose(a[:2], b[:2]), np.allclose(a, b, equal_nan=True), np.allclose(a[0], b[0]))


def test_isclose_and_allclose_values():
    got = catad.vjp(closeness, A, B)[0]
    for g, w in zip(got, closeness(A, B)):
        assert type(g) is type(w) or np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)


def converged(x):
    y = x * 0.5 + 0.5
    return np.sum(y ** 2) if np.allclose(x, y, atol=0.1) else np.sum(np.where(np.isclose(x, 2.0), x, x ** 3))


@pytest.mark.parametrize("x", [np.array([1.0, 1.05, 0.98]), np.array([2.0, 0.5, -1.0])], ids=str)
def test_in_conditions(x):
    agrees(converged, x)


M = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def diagonals(m):
    return (np.sum(np.diagonal(m) ** 2) + np.sum(m.diagonal(1) * 3.0) + np.sum(np.diagonal(m, -1))
            + np.sum(np.diagonal(m, 1, 1, 0)) + np.sum(m.diagonal(offset=2, axis1=-2, axis2=-1) ** 3))


def test_diagonal():
    agrees(diagonals, M)
    agrees(diagonals, M.T * 0.5)


def written(m):
    d = np.diagonal(m)
    d[0] = 1.0  # ERR
    return np.sum(d)


def test_the_diagonal_is_read_only():
    with pytest.raises(ValueError, match="read-only"):
        written(M.copy())
    refused(written, (M,), "read-only")
