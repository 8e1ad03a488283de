"""The sign of a zero from a sum with a scalar factor. NumPy adds from +0.0, so np.sum is never
-0.0, and catad's k * sum(a) (the factored scaled sum, einsum's scalars) was -0.0 where k is
negative and the sum 0: 1.0 / np.sum(a * -0.0) gave -inf where NumPy gives inf."""
from __future__ import annotations

import math

import numpy as np
import pytest

import catad


def sum_of_negative_zeros(a):
    return 1.0 / np.sum(a * -0.0)


def scaled(a, s):
    return 1.0 / np.sum(a * s)


def scaled_product(a, b, s):
    return 1.0 / np.sum(a * b * s)


def scaled_rows(m, s):
    return np.sum(1.0 / np.sum(m * s, axis=1))


def scaled_dot(a, b, s):
    return 1.0 / np.dot(a * s, b)


CASES = [(sum_of_negative_zeros, (np.array([1.0, 2.0]),)),
         (scaled, (np.array([1.0, 2.0]), -0.0)),
         (scaled, (np.array([0.0, 0.0]), -3.0)),
         (scaled, (np.array([-0.0, 0.0]), 2.0)),
         (scaled_product, (np.array([1.0, 2.0]), np.array([0.0, 0.0]), -1.0)),
         (scaled_rows, (np.ones((2, 3)), -0.0)),
         (scaled_dot, (np.array([1.0, 2.0]), np.array([0.0, 0.0]), -2.0))]


@pytest.mark.parametrize("f,args", CASES, ids=[f"{f.__name__}-{k}" for k, (f, _) in enumerate(CASES)])
def test_value_is_numpys_bit_for_bit(f, args):
    with np.errstate(all="ignore"):
        expected = f(*args)
        got = catad.value_and_grad(f)(*args)[0]
    assert math.copysign(1.0, got) == math.copysign(1.0, expected) and got == expected


def test_nonzero_sums_unchanged():
    a, s = np.array([1.0, 2.0, 3.5]), -0.25
    assert catad.value_and_grad(scaled)(a, s)[0] == pytest.approx(scaled(a, s), rel=1e-15)
