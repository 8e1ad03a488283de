"""Python's max (min) of floats gives the first of the largest (smallest): of -0.0 and 0.0, the
one that comes first, which 1.0 / max(...) shows as -inf or inf. catad took np.max, which gives
the one it reads last."""
from __future__ import annotations

import math

import numpy as np
import pytest

import catad


def max_of_generator(v):
    return 1.0 / max(e * 0.0 for e in v)


def max_of_vector(v):
    return 1.0 / max(v)


def min_of_generator(v):
    return 1.0 / min(e for e in v)


def max_plus(v):
    return max(v) * v[0] + max(e * e for e in v)


VS = [np.array([-1.0, 1.0]), np.array([1.0, -1.0]), np.array([-0.0, 0.0]), np.array([0.0, -0.0]),
      np.array([0.0, -0.0, 0.0])]


@pytest.mark.parametrize("f", [max_of_generator, max_of_vector, min_of_generator], ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", VS, ids=lambda v: str(v.tolist()))
def test_the_first_of_equal_zeros(f, v):
    with np.errstate(divide="ignore"):
        expected = f(v)
        got = catad.value_and_grad(f)(v)[0]
    assert got == expected and math.copysign(1.0, got) == math.copysign(1.0, expected)


@pytest.mark.parametrize("v", [np.array([1.0, 3.0, 2.0]), np.array([3.0, 3.0, -1.0]), np.array([-2.0, 0.5])])
def test_gradient(v):
    value, g = catad.value_and_grad(max_plus)(v)
    assert value == max_plus(v)
    h = 1e-6
    fd = [(max_plus(v + h * e) - max_plus(v - h * e)) / (2 * h) for e in np.eye(len(v))]
    if len(set(v.tolist())) == len(v):  # away from ties, where max is differentiable
        np.testing.assert_allclose(g, fd, rtol=1e-6)
    else:  # a tie of v[0] and v[1]: the derivative through the first of the largest, which Python's
        # max picks (max(v) + v[0] + 2 v[0] in v[0], nothing in v[1])
        np.testing.assert_array_equal(g, [v[0] + v[0] + 2 * v[0], 0.0, 0.0])
