"""A sum of products that the compiled code takes as a product of sums (np.sum(np.outer(a, b))
as sum(a) * sum(b), np.sum(b * s) as s * np.sum(b)) is NumPy's sum of the products where a
product may overflow: with a = [1e300, -1e300] and b = [1e10, 1] NumPy's terms are inf and -inf
and its sum NaN, where the factored sum is 0.0. Values against the function itself.

(Not caught: a sum whose partial sums overflow in NumPy's order only, as np.sum of the outer
product of [1e154, -1e154] and [1e154, 1e154], inf in NumPy's row by row order, 0.0 column by
column; and the backend's reassociation of a product of scalars, a * b[0] * b[1] as
a * (b[0] * b[1]), whose inner product may overflow or underflow where NumPy's do not.)"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import catad

BIG = np.array([1e300, -1e300])


def outer_sum(a, b):
    return np.sum(np.outer(a, b))


def broadcast_sum(a, b):
    return np.sum(a[:, None] * b[None, :])


def scaled(a, b):
    return np.sum(a * b[0])


def scaled_twice(a, b):
    return np.sum(a * b[0] * b[1])


def scaled_rows(a, b):
    return np.sum(np.sum(np.exp(np.outer(b, np.log(np.abs(a)))) * a, axis=1) * b)


def scaled_einsum(a, b):
    return np.sum(np.outer(a, b) * b[0])


FUNCTIONS = [outer_sum, broadcast_sum, scaled, scaled_twice, scaled_rows, scaled_einsum]


def _same(x, y):
    return (np.isnan(x) and np.isnan(y)) or x == y


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("a,b", [(BIG, [1e10, 1.0]), (BIG, [-1e10, 3.0]), ([1.0, -1.0], [2.0, 1.0]),
                                 ([1e200, -1e200, 5.0], [1e200, 1.0])],
                         ids=str)
def test_overflowing_products(f, a, b):
    a, b = np.array(a), np.array(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = f(a, b)
        got = catad.value_and_grad(f, argnums=(0, 1))(a, b)[0]
    assert _same(got, expected), (got, expected)
