"""x ** y's partials where the function is constant in that argument: x ** 0 is 1 for every x,
so d/dx is 0 at y = 0 (y * x ** (y - 1) is 0 * inf at x = 0); 0 ** y is 0 for every y > 0, so
d/dy is 0 there (x ** y * log(x) is 0 * -inf). catad gave NaN for both, where central
differences (and JAX) give 0."""
from __future__ import annotations

import numpy as np
import pytest

import catad
from located import hessian_by_differences


def zero_to_the(y):
    return 0.0 ** y


def power(x, y):
    return x ** y


def np_power(x, y):
    return np.sum(np.power(x, y))


def float_power(x, y):
    return np.sum(np.float_power(x, y) * 2.0)


def _central(f, args, k, h=1e-7):
    up, dn = list(args), list(args)
    up[k], dn[k] = args[k] + h, args[k] - h
    return (f(*up) - f(*dn)) / (2 * h)


@pytest.mark.parametrize("y", [0.9, 2.0, 3.5])
def test_the_exponents_partial_at_a_zero_base(y):
    assert catad.grad(zero_to_the)(y) == 0.0 == _central(zero_to_the, (y,), 0)
    gx, gy = catad.grad(power, argnums=(0, 1))(0.0, y)
    assert gy == 0.0
    assert catad.jvp(power, (0.0, y), (0.0, 1.0))[1] == 0.0


@pytest.mark.parametrize("x", [0.0, 1e-320, 2.0, -1.5])
def test_the_bases_partial_at_a_zero_exponent(x):
    gx, gy = catad.grad(power, argnums=(0, 1))(x, 0.0)
    assert gx == 0.0
    assert catad.jvp(power, (x, 0.0), (1.0, 0.0))[1] == 0.0


def test_arrays():
    x, y = np.array([0.0, 2.0, 0.0, 1.5]), np.array([2.0, 0.0, 0.0, 1.25])
    for f in (np_power, float_power):
        gx, gy = catad.grad(f, argnums=(0, 1))(x, y)
        assert np.isfinite(gx).all() and gx[1] == 0.0 and gx[2] == 0.0
        assert gy[0] == 0.0
        assert gx[3] == pytest.approx(_central(lambda a: f(np.array([0.0, 2.0, 0.0, a]), y), (1.5,), 0), rel=1e-6)


@pytest.mark.parametrize("x,y", [(2.0, 3.0), (0.5, -1.5), (3.0, 0.5)])
def test_elsewhere_unchanged(x, y):
    gx, gy = catad.grad(power, argnums=(0, 1))(x, y)
    assert gx == pytest.approx(y * x ** (y - 1), rel=1e-14)
    assert gy == pytest.approx(x ** y * np.log(x), rel=1e-14)


def self_power(x):
    return (x + 1.0) ** x


def powers(v):
    return np.sum(v[:2] ** v[2:])


@pytest.mark.parametrize("x", [0.0, 0.5])
def test_second_derivatives_at_a_zero_exponent(x):
    """d/dy of the base's partial y * x ** (y - 1) is 1/x at y = 0, where the partial is 0: a
    constant 0 there made catad's Hessian of (x + 1) ** x at 0 half what it is (fuzzer seed 3261000)."""
    assert catad.hessian(self_power)(x) == pytest.approx(hessian_by_differences(self_power, (x,), 0), rel=1e-6)
    v = np.array([2.0, 0.5, 0.0, x])
    np.testing.assert_allclose(catad.hessian(powers)(v), hessian_by_differences(powers, (v,), 0), rtol=1e-6, atol=1e-6)
