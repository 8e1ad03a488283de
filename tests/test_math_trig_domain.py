"""math.sin, math.cos and math.tan of an infinite number raise ValueError ("math domain error") in
Python, where NumPy's give nan: catad gave nan. They are checked as math.log's domain is (a NaN is
Python's nan, no error). Found by differential testing (session 18)."""
import math

import numpy as np
import pytest

import catad
from located import agrees


def sine_of_scaled_inf(x):
    return math.sin(x * np.inf)


def cosine(x):
    return math.cos(x) * 2.0


def tangent(x):
    return math.tan(x) + x


def sum_of_sines(a):
    return sum(math.sin(e) for e in a)


def numpy_sine_of_inf(x):
    return np.sin(x * np.inf)


@pytest.mark.parametrize("f, x", [(sine_of_scaled_inf, 2.0), (cosine, math.inf), (tangent, -math.inf),
                                  (sum_of_sines, np.array([0.1, np.inf]))], ids=lambda v: getattr(v, "__name__", ""))
def test_an_infinite_angle_raises_as_python(f, x):
    with pytest.raises(ValueError, match="math domain error"):
        f(x)
    with pytest.raises(catad.DomainError, match="math domain error"):
        catad.value_and_grad(f)(x)


def test_a_nan_angle_is_nan_as_python():
    value, g = catad.value_and_grad(sine_of_scaled_inf)(0.0)  # 0 * inf: nan
    assert math.isnan(value) and math.isnan(sine_of_scaled_inf(0.0))
    value, g = catad.value_and_grad(sum_of_sines)(np.array([0.1, np.nan]))
    assert math.isnan(value) and g[0] == pytest.approx(math.cos(0.1))


def test_numpy_s_sine_of_inf_is_nan():
    with np.errstate(invalid="ignore"):
        assert math.isnan(numpy_sine_of_inf(2.0))
        assert math.isnan(catad.value_and_grad(numpy_sine_of_inf)(2.0)[0])


@pytest.mark.parametrize("f", [cosine, tangent], ids=lambda f: f.__name__)
def test_finite_angles(f):
    agrees(f, 0.3)
