"""An if whose one branch gives a run-time tangent (a loop's) and whose other an index update
still summed over a build's lanes (the cotangent of w[1:3]) selects the update made an array:
arrays.rt refused it ("catad cannot generate NumPy code for f: a vectorised value used as a
run-time value"), for plain code with an early return inside a loop inside an if."""
from __future__ import annotations

import numpy as np
import pytest

import catad


def early_return(w, y):
    if 0.5 > y:
        for e in w:
            if len(w) > 1:
                return y * e
    a = w[1:3]
    return np.sum(np.sin(a))


def early_return_sum(w, y):
    if y < 0.5:
        s = 0.0
        for e in w:
            s = s + e * y
            if s > 2.0:
                return s
    return np.sum(np.cos(w[:2])) * y


def _central(f, w, y, h=1e-6):
    gw = np.array([(f(w + h * e, y) - f(w - h * e, y)) / (2 * h) for e in np.eye(len(w))])
    return gw, (f(w, y + h) - f(w, y - h)) / (2 * h)


@pytest.mark.parametrize("f", [early_return, early_return_sum], ids=lambda f: f.__name__)
@pytest.mark.parametrize("w", [np.array([1.0, -1.0, 0.4]), np.array([2.0]), np.array([3.0, 1.5, -0.5, 2.0])],
                         ids=len)
@pytest.mark.parametrize("y", [0.9, 0.2])
def test_value_and_gradient(f, w, y):
    value, (gw, gy) = catad.value_and_grad(f, argnums=(0, 1))(w, y)
    assert value == pytest.approx(f(w, y), rel=1e-12)
    ew, ey = _central(f, w, y)
    np.testing.assert_allclose(gw, ew, rtol=1e-6, atol=1e-8)
    assert gy == pytest.approx(ey, rel=1e-6, abs=1e-8)
