"""A loop over range(len(w)) that reads w[0] every pass runs no pass for an empty w: its reads
are vectorised (hoisted out of the loop, read safely when there is no lane), and the cotangent
of the read, the update of element 0 by the sum over the lanes, was made for a vector of length 0,
where element 0 is out of bounds: the reverse program raised a raw IndexError. An update of an
empty vector is its only tangent, the zero one. Found by differential testing (session 18)."""
import numpy as np
import pytest

import catad
from located import agrees


def subtract_first(x, w):
    for i in range(len(w)):
        x -= w[0]
    return x + np.sum(w)


def zip_then_subtract(x, w):
    for a, b in zip(w, w):
        x = 0.5
    for i in range(len(w)):
        x -= w[0]
    return x + np.sum(w)


def add_last_squared(x, w):
    for i in range(len(w)):
        x = x + w[-1] * w[-1]
    return x


@pytest.mark.parametrize("f", [subtract_first, zip_then_subtract, add_last_squared], ids=lambda f: f.__name__)
def test_no_pass_over_an_empty_vector(f):
    w = np.array([])
    value, (gx, gw) = catad.value_and_grad(f, argnums=(0, 1))(-1.6, w)
    assert value == f(-1.6, w) and gx == 1.0 and gw.shape == (0,)
    _, t = catad.jvp(f, (-1.6, w), (1.0, w))
    assert t == 1.0


@pytest.mark.parametrize("f", [subtract_first, zip_then_subtract, add_last_squared], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [1, 3])
def test_passes_over_a_vector(f, n):
    agrees(f, -1.6, np.linspace(0.5, 1.5, n), argnums=(0, 1))
