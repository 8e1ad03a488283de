"""math.gamma, as Python computes it: Gamma(x), Python's ValueError at its poles (0, -1, -2, ...,
and -inf) and OverflowError where a finite x's value is past the largest float (x > 171.6). It
was refused (not supported). Each function is called itself."""
import math

import numpy as np
import pytest

from located import agrees, outcome, raises_like_python


def of_a_float(x):
    return math.gamma(x) * x


def of_an_element(x, v):
    return math.gamma(v[0] * x) + math.gamma(abs(x) + 0.5)


@pytest.mark.parametrize("x", [0.5, 1.7, -2.5, 3.0, 150.0])
def test_values_and_derivatives(x):
    agrees(of_a_float, x)


def test_of_an_element():
    agrees(of_an_element, 1.3, np.array([2.5, -1.0]), argnums=(0, 1))


@pytest.mark.parametrize("x", [0.0, -0.0, -1.0, -4.0, -math.inf, 172.0, 1e-310])
def test_pythons_errors(x):
    want = outcome(of_a_float, x)
    assert raises_like_python(want, of_a_float, x)


@pytest.mark.parametrize("x", [math.inf, math.nan, -171.5])
def test_values_at_the_edges(x):
    import catad
    got = catad.value_and_grad(of_a_float)(x)[0]
    want = of_a_float(x)
    assert got == want or math.isnan(got) and math.isnan(want)
