"""A partial derivative's own lets do not shadow the program's variables (catad.ad.transform).

The formulas of catad.primitives.derivatives bind their shared subexpressions as _d1, _d2, ...,
names chosen to capture none of the call's arguments, but not apart from the rest of the
program: the Jacobian of ``tan(x)``, ``let _d1 = tan(x) in 1.0 + _d1 * _d1``, bound where a
variable ``_d1 = tanh(x)`` is in scope, had CSE take the inner ``_d1 * _d1`` for the outer one
(a wrong gradient, 2.8997 for 3.2439 below). Such a variable is the user's, or a derivative
program's own partial differentiated again (grad of grad)."""
from __future__ import annotations

import math

import pytest

import catad


def user_variable_d1(x):
    _d1 = math.tanh(x)
    c = _d1 * _d1
    return c * 2.0 + math.tan(x)


def tan_and_tanh(x):
    return math.tan(x) + math.tanh(x)


def _central(f, x: float, h: float = 1e-5) -> float:
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("x", [0.2, 0.7, 1.1])
def test_a_user_variable_named_like_a_partials_let(x):
    assert catad.grad(user_variable_d1)(x) == pytest.approx(_central(user_variable_d1, x), rel=1e-8)


@pytest.mark.parametrize("x", [0.2, 0.7, 1.1])
def test_second_and_third_derivatives_whose_partials_share_a_name(x):
    """d/dx (tan + tanh) = 2 + tan^2 - tanh^2; each derivative against central differences of the
    one before (the gradient program holds both partials' _d1, one renamed)."""
    g1 = catad.grad(tan_and_tanh)
    g2, g3 = catad.grad(g1), catad.grad(catad.grad(g1))
    t, th = math.tan(x), math.tanh(x)
    assert g1(x) == pytest.approx(2.0 + t * t - th * th, rel=1e-12)
    assert g2(x) == pytest.approx(2 * t * (1 + t * t) - 2 * th * (1 - th * th), rel=1e-12)
    assert g3(x) == pytest.approx(_central(g2, x), rel=1e-7)
