"""A product of constants that is zero has IEEE's sign: -2.0 * 0.0 is -0.0, and 1 / -0.0 is -inf.
The rule mul-zero made every such product +0.0, so v[0] / (-2.0 * 0) gave +inf where Python's
NumPy gives -inf (found by differential testing, session 28)."""
import math

import numpy as np
import pytest

import catad
from catad.lang.terms import Const
from catad.lang.types import Float
from catad.primitives import prim
from catad.rewrite import BY_NAME


@pytest.mark.parametrize("a", [-2.0, 2.0, -0.0, 0.0])
@pytest.mark.parametrize("zero", [0.0, -0.0])
@pytest.mark.parametrize("zero_first", [True, False])
def test_mul_zero_keeps_the_sign(a, zero, zero_first):
    args = (Const(zero, Float), Const(a, Float)) if zero_first else (Const(a, Float), Const(zero, Float))
    out = BY_NAME["mul-zero"].apply(prim("mul", *args))
    assert isinstance(out, Const) and out.value == 0.0
    assert math.copysign(1.0, out.value) == math.copysign(1.0, a * zero)


def over_negative_zero(x, v):
    return v[0] / (-2.0 * 0) + x


def over_negative_zero_float(x, v):
    return v[0] / (-2.0 * 0.0) * x


def sign_of_product(x, v):
    z = -2.0 * 0
    return np.copysign(1.0, z) * x


def sign_of_quotient(x, v):
    z = 0.0 / -4.0
    return np.copysign(3.0, z) * x + np.arctan2(z, -1.0)


@pytest.mark.parametrize("f", [over_negative_zero, over_negative_zero_float, sign_of_product, sign_of_quotient],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [1.5, -0.5])
def test_values_as_python(f, x):
    v = np.array([2.0, 1.0])
    with np.errstate(divide="ignore"):
        expected = f(x, v)
    value, _ = catad.value_and_grad(f)(x, v)
    assert value == expected
    out, _ = catad.jvp(f, (x, v), (1.0, np.zeros(2)))
    assert out == expected
