"""np.median is np.mean of the middle one or two sorted values, a sum from +0.0: never -0.0.
catad took the middle value itself, so 1.0 / np.median(a) of -0.0 middles was -inf where
NumPy gives inf."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import catad


def inverse_median(a):
    return 1.0 / np.median(a)


def inverse_row_medians(m):
    return np.sum(1.0 / np.median(m, axis=1))


@pytest.mark.parametrize("a", [[-0.0, 1.0, -0.0], [-0.0], [-0.0, -0.0], [1.0, -0.0, -0.0, 2.0], [-1.0, -0.0, 3.0]],
                         ids=str)
def test_sign_of_a_zero_median(a):
    a = np.array(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = inverse_median(a)
        got = catad.value_and_grad(inverse_median)(a)[0]
    assert got == expected


def test_rows():
    m = np.array([[-0.0, 1.0, -0.0], [2.0, -0.0, -1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert catad.value_and_grad(inverse_row_medians)(m)[0] == inverse_row_medians(m)


def test_medians_elsewhere():
    a = np.array([3.0, -1.5, 2.0, 0.25])
    value, g = catad.value_and_grad(inverse_median)(a)
    assert value == inverse_median(a) and math.isfinite(value)
