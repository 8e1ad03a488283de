"""A run-time tangent (a loop's cotangent, ZERO or a value only known when the code runs)
selected by a condition that varies along a vectorised build's lanes: the build runs as a
loop of its own, where the condition is a number per step. rt_mask asked the whole array of
conditions for its truth: a raw ValueError ("The truth value of an array with more than one
element is ambiguous") from inside catad, from the gradient of a slice assigned the sum of a
filtered generator and then read in a loop."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import catad


def filtered_sum_then_loop(v, y):
    a = v * 0.0
    a[1:] = sum(y for e in v if e > 0.1)
    for i in range(2):
        y = y / a[1]
    return y


def filtered_sum_everywhere(v, y):
    a = v * 0.0
    a[:] = sum(y for e in v if e > 0.1)
    for i in range(2):
        y = y * a[0] + 1.0
    return y


def _central(f, v, y, h=1e-6):
    return (f(v.copy(), y + h) - f(v.copy(), y - h)) / (2 * h)


@pytest.mark.parametrize("f", [filtered_sum_then_loop, filtered_sum_everywhere], ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.0, 2.0]), np.array([0.5, 0.7])])
def test_gradient_matches_the_function_and_central_differences(f, v):
    y = 1.3
    value, g = catad.value_and_grad(f, argnums=1)(v, y)
    assert value == f(v.copy(), y)
    assert g == pytest.approx(_central(f, v, y), rel=1e-6)


def test_no_element_passes_the_filter():
    v, y = np.array([0.0, 0.05, -1.0]), 1.3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = filtered_sum_then_loop(v.copy(), y)
        value, g = catad.value_and_grad(filtered_sum_then_loop, argnums=1)(v, y)
    assert expected == np.inf and value == expected
    assert g == np.inf
