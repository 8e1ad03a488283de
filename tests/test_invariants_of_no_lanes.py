"""A value the same in every lane of a comprehension (or a loop made one) is computed once,
outside it, even when the comprehension has no element: then Python never evaluates it, so
what it would raise (np.max of an empty array, the inverse of a singular matrix) must not be
raised. catad raised "max of an empty array" and LinAlgError there."""
from __future__ import annotations

import numpy as np
import pytest

import catad


def max_in_generator(v, x):
    return sum(np.max(v) * x for i in range(len(v)))


def max_in_loop(v, x):
    s = 0.0
    for i in range(len(v)):
        s = s + np.max(v) * x
    return s


def argmin_in_list(v, x):
    return np.sum(np.array([np.argmin(v) * x + v[i] for i in range(len(v))]))


def inverse_in_generator(m, x, n):
    return sum(np.linalg.inv(m)[0, 0] * x for i in range(n))


def cholesky_in_generator(m, x, n):
    return sum(np.linalg.cholesky(m)[1, 1] * x for i in range(n))


def solve_in_generator(m, x, n):
    return sum(np.linalg.solve(m, np.ones(2))[0] * x for i in range(n))


def _same(f, *args):
    """f's value and gradient in x against Python's (both raise the same or neither)."""
    try:
        expected = f(*args)
    except (ValueError, np.linalg.LinAlgError) as e:
        with pytest.raises(type(e)):
            catad.value_and_grad(f, argnums=1)(*args)
        return
    value, g = catad.value_and_grad(f, argnums=1)(*args)
    assert value == pytest.approx(expected, rel=1e-12)
    h = 1e-6
    a = list(args)
    a[1] = args[1] + h
    up = f(*a)
    a[1] = args[1] - h
    assert g == pytest.approx((up - f(*a)) / (2 * h), rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("f", [max_in_generator, max_in_loop, argmin_in_list], ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [np.array([]), np.array([2.0]), np.array([1.0, -3.0, 2.0])], ids=len)
def test_reductions(f, v):
    _same(f, v, 0.5)


@pytest.mark.parametrize("f", [inverse_in_generator, cholesky_in_generator, solve_in_generator],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("m", [np.zeros((2, 2)), np.array([[4.0, 1.0], [1.0, 3.0]])], ids=["singular", "spd"])
@pytest.mark.parametrize("n", [0, 1, 3])
def test_matrices(f, m, n):
    _same(f, m, 0.5, n)


def test_an_empty_comprehension_reads_nothing():
    assert catad.value_and_grad(max_in_generator, argnums=1)(np.array([]), 0.5) == (0.0, 0.0)
    assert catad.value_and_grad(inverse_in_generator, argnums=1)(np.zeros((2, 2)), 0.5, 0) == (0.0, 0.0)
