"""A loop's reverse step where a value it keeps is a vector of zero tangents, build(n, \\i. 0) (an
array made fresh in the loop and written into in a branch, whose cotangent is the zero tangent):
the code generator refused it as a run-time value ("a vector of tuples or of zero tangents as an
array ... please report it"). It is the zero tangent. Found by differential testing (session 18)."""
import numpy as np
import pytest

import catad
from located import agrees


def dead_store_in_a_branch(y, m):
    for i in range(3):
        a = y * np.sum(m, axis=0)
        if i > 0:
            y = y * 2.0
        else:
            a[0] = 1.0
    return y


def used_store_in_a_branch(y, m):
    s = 0.0
    for i in range(3):
        a = y * np.sum(m, axis=0)
        if i > 0:
            y = y * 2.0
        else:
            a[0] = 1.0
        s = s + np.sum(a * a)
    return s + y


@pytest.mark.parametrize("f", [dead_store_in_a_branch, used_store_in_a_branch], ids=lambda f: f.__name__)
def test_gradients(f):
    m = np.array([[0.5, -1.0], [0.3, 0.2]])
    agrees(f, 0.7, m, argnums=(0, 1))


def test_the_hessian_in_y():
    m = np.array([[0.5, -1.0], [0.3, 0.2]])
    h = catad.hessian(used_store_in_a_branch)(0.7, m)
    e = 1e-4
    g = catad.grad(used_store_in_a_branch)
    assert h == pytest.approx((g(0.7 + e, m) - g(0.7 - e, m)) / (2 * e), rel=1e-7)
