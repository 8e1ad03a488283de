"""The gradient of np.linalg.solve(a, b) where a holds a nan or an inf and NumPy's solve gives nan:
the reverse pass solves with a's transpose, whose LU can meet an exact zero pivot that a's own did
not, and a raw LinAlgError ("Singular matrix") escaped. It is nan there now, as the derivatives of
slogdet already were. Found by differential testing (session 18)."""
import numpy as np
import pytest

import catad
from located import agrees


def solve_ones(a):
    return np.sum(np.linalg.solve(a, np.ones(2)))


def solve_matrix(a):
    return np.sum(np.linalg.solve(a, np.array([[1.0, 2.0], [0.5, -1.0]])))


NONFINITE = [np.array([[0.0, 0.0], [1.0, np.nan]]), np.array([[0.0, 0.0], [1.0, np.inf]])]


@pytest.mark.parametrize("f", [solve_ones, solve_matrix], ids=lambda f: f.__name__)
@pytest.mark.parametrize("k", range(len(NONFINITE)))
def test_a_solve_numpy_gives_as_nan_has_a_nan_gradient(f, k):
    a = NONFINITE[k]
    with np.errstate(all="ignore"):
        expected = f(a)
        value, g = catad.value_and_grad(f)(a)
    assert np.isnan(expected) and np.isnan(value) and g.shape == (2, 2) and np.isnan(g).all()


@pytest.mark.parametrize("f", [solve_ones, solve_matrix], ids=lambda f: f.__name__)
def test_a_regular_matrix(f):
    agrees(f, np.array([[2.0, 0.5], [0.3, 1.5]]))


def test_a_singular_matrix_is_numpy_s_error():
    with pytest.raises(np.linalg.LinAlgError):
        solve_ones(np.zeros((2, 2)))
    with pytest.raises(np.linalg.LinAlgError):
        catad.grad(solve_ones)(np.zeros((2, 2)))
