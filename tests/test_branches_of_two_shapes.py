"""An if on one Python bool whose branches give arrays of two shapes (`b if c else a`): the
derivative programs compute both branches, and the zero tangent of the branch not taken is
shaped as the other branch's. catad's tangents are shaped as their values all the same (it
runs the branch taken only where one is not), in every mode: forward, reverse, Jacobians,
Hessians. These raised a raw ValueError (cannot reshape array of size 1 into shape (3,))."""

import numpy as np
import pytest

import catad
from located import central

A, B = np.array([1.0, 2.0, 3.0]), np.array([10.0])


def pick(a, b):
    c = b if np.sum(b) > np.sum(a) else a
    return np.sum(c * c)


def pick_array(b):
    return b * 2.0 if np.sum(b) > 5.0 else np.ones(3)


def pick_statement(a, b):
    if np.sum(b) > np.sum(a):
        c = np.sin(b)
    else:
        c = a * 2.0
    return np.sum(c * a[0])


@pytest.mark.parametrize("a,b", [(A, B), (B, A), (A, np.array([-10.0])), (np.array([-1.0]), A)])
def test_the_gradient_of_each_argument_has_its_shape(a, b):
    for f in (pick, pick_statement):
        value, (ga, gb) = catad.value_and_grad(f, argnums=(0, 1))(a, b)
        assert value == f(a, b)
        np.testing.assert_allclose(ga, central(f, (a, b), 0), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(gb, central(f, (a, b), 1), rtol=1e-6, atol=1e-7)
        assert catad.hessian(f, argnums=0)(a, b).shape == a.shape * 2


@pytest.mark.parametrize("b", [np.array([1.0]), np.array([7.0]), np.array([1.0, 2.0, 3.0])])
def test_a_tangent_has_the_shape_of_the_value(b):
    value, tangent = catad.jvp(pick_array, (b,), (np.ones_like(b),))
    np.testing.assert_array_equal(value, pick_array(b))
    assert tangent.shape == value.shape
    np.testing.assert_allclose(tangent, 2.0 * np.ones_like(b) if np.sum(b) > 5.0 else np.zeros(3))
    jac = catad.jacobian(pick_array)(b)
    assert jac.shape == value.shape + b.shape
    np.testing.assert_allclose(jac, 2.0 * np.eye(len(b)) if np.sum(b) > 5.0 else np.zeros((3, len(b))))
