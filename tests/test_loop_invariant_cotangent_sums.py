"""The gradient of a loop that only assigns a loop-invariant value (x = a @ a in every step): the
reverse loop's cotangent of a is copies of one run-time tangent (rt_repeat), and added to
another term (a's index update) it was refused while compiling: "catad cannot generate NumPy
code for g: a vector of tuples or of zero tangents as an array"."""
from __future__ import annotations

import numpy as np
import pytest

import catad


def invariant_dot(v):
    a = np.zeros(len(v))
    a[1] = np.sum(v)
    x = 0.0
    for e in v:
        x = a @ a
    return x


def invariant_dot_of_other(v, w):
    a = w * 1.0
    a[0] = np.sum(v)
    x = 0.5
    for e in v:
        x = np.dot(a, a) + x * 0.0
    return x


def _check(f, *args):
    value, g = catad.value_and_grad(f, argnums=tuple(range(len(args))))(*[a.copy() for a in args])
    assert value == pytest.approx(f(*[a.copy() for a in args]), rel=1e-12)
    h = 1e-6
    for k, a in enumerate(args):
        fd = []
        for e in np.eye(len(a)):
            up = [b.copy() for b in args]
            dn = [b.copy() for b in args]
            up[k] = a + h * e
            dn[k] = a - h * e
            fd.append((f(*up) - f(*dn)) / (2 * h))
        np.testing.assert_allclose(g[k], fd, rtol=1e-6, atol=1e-8)
        assert np.shape(g[k]) == np.shape(a)


@pytest.mark.parametrize("v", [np.array([1.0, 2.0]), np.array([0.5, -1.0, 3.0])], ids=len)
def test_invariant_dot(v):
    _check(invariant_dot, v)


@pytest.mark.parametrize("v", [np.array([1.0, 2.0]), np.array([]), np.array([3.0])], ids=len)
def test_invariant_dot_of_other(v):
    w = np.array([0.5, 1.5, -2.0])
    if len(v) == 0:
        value, (gv, gw) = catad.value_and_grad(invariant_dot_of_other, argnums=(0, 1))(v, w)
        assert value == 0.5 and gv.shape == (0,) and gw.tolist() == [0.0, 0.0, 0.0]
        return
    _check(invariant_dot_of_other, v, w)
