"""A sum of products with a number among the factors, np.sum(b * s) or np.sum(a * b * s), was
compiled as s times the sum (or the einsum) of the rest, which differs from NumPy's sum of the
products where s is not finite: s = inf with a 0 among the other factors is NaN in NumPy's sum
(inf * 0), inf in s * sum(b). The factored form is now used where s and the sum are finite, the
products summed otherwise (as catad.backend.contractions.scaled_sum already did). Found by
differential testing (session 18).

(A finite s whose products overflow while the sum of the other factors cancels,
np.sum(np.array([1e308, -1e308]) * 10.0), NaN in NumPy: tests/test_overflowing_products.py.)"""
import numpy as np
import pytest

from located import agrees
import catad


def scaled(b, s):
    return np.sum(b * s)


def scaled_product(a, b, s):
    return np.sum(a * b * s)


def scaled_matrix_vector(m, v, s):
    return np.sum(np.dot(m, v) * s)


def scaled_rows(m, s):
    return np.sum(np.sum(m * s, axis=1) * np.array([1.0, 2.0]))


A, B = np.array([2.0, 3.0]), np.array([0.0, 1.0])
M = np.array([[0.0, 1.0], [2.0, 0.0]])
CASES = [(scaled, (B,)), (scaled_product, (A, B)), (scaled_matrix_vector, (M, B)), (scaled_rows, (M,))]


@pytest.mark.parametrize("s", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("k", range(len(CASES)))
def test_a_nonfinite_number_among_the_factors(k, s):
    f, args = CASES[k]
    with np.errstate(all="ignore"):
        expected = f(*args, s)
        value, _ = catad.value_and_grad(f, argnums=len(args))(*args, s)
    np.testing.assert_array_equal(value, expected)


@pytest.mark.parametrize("k", range(len(CASES)))
def test_finite_numbers_keep_their_gradients(k):
    f, args = CASES[k]
    agrees(f, *(a + 0.25 for a in args), 1.5, argnums=tuple(range(len(args) + 1)))
