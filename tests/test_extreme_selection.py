"""The derivative of max and min (np.maximum, np.minimum, builtin max and min, np.clip's bounds) takes
the tangent of the argument chosen and nothing of the other: the map is the identity or the zero
map as the comparison says, where it was the scale by 1.0 or 0.0, so forward mode multiplied the
tangent of the argument not chosen by 0, and an infinite one gave NaN: jvp of
np.maximum(np.log(0.0) / y, 1.0) was NaN where grad gave 0. Found by differential testing
(session 18). Central differences are taken away from ties."""
import math

import numpy as np
import pytest

import catad
from located import agrees


def maximum_of_minus_inf(y):
    return np.maximum(np.log(0.0) / y, 1.0) * y


def minimum_of_plus_inf(y):
    return np.minimum(-np.log(0.0) * y, 2.0 * y)


def builtin_max_of_minus_inf(y):
    return max(-np.inf * y, y * y)


def builtin_min(y):
    return min(y * 3.0, math.exp(y))


def clip_of_inf(y):
    return np.clip(np.log(0.0) * y, -1.0, 2.0) + y


def maximum_of_vectors(v):
    return np.sum(np.maximum(np.log(v - 0.5), v * 0.1) * v)


@pytest.mark.parametrize("f", [maximum_of_minus_inf, minimum_of_plus_inf, builtin_max_of_minus_inf, clip_of_inf],
                         ids=lambda f: f.__name__)
def test_the_argument_not_chosen_adds_nothing_even_an_infinite_tangent(f):
    with np.errstate(all="ignore"):
        value = f(0.7)
        _, t = catad.jvp(f, (0.7,), (1.0,))
        g = catad.grad(f)(0.7)
        h = 1e-6
        expected = (f(0.7 + h) - f(0.7 - h)) / (2 * h)
    assert np.isfinite(value) and t == g == pytest.approx(expected, rel=1e-6)


def test_a_vector_with_an_infinite_tangent_where_it_is_not_chosen():
    v = np.array([0.5, 0.9, 3.0])  # log(0) at the first: -inf, not chosen
    with np.errstate(all="ignore"):
        _, t = catad.jvp(maximum_of_vectors, (v,), (np.ones(3),))
        g = catad.grad(maximum_of_vectors)(v)
    assert np.all(np.isfinite(g)) and t == pytest.approx(np.sum(g), rel=1e-12)


@pytest.mark.parametrize("y", [0.3, 2.5])
def test_builtin_min_either_way(y):
    agrees(builtin_min, y)


def test_the_hessian_of_a_maximum():
    v = np.array([0.7, 0.9, 3.0])
    h = catad.hessian(maximum_of_vectors)(v)
    g = catad.grad(maximum_of_vectors)
    e = 1e-5
    numeric = np.stack([(g(v + e * d) - g(v - e * d)) / (2 * e) for d in np.eye(3)], axis=1)
    np.testing.assert_allclose(h, numeric, rtol=1e-6, atol=1e-8)
