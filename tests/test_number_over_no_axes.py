"""A number reduced over no axes (np.sum(x, axis=()), with or without keepdims) is a number in
NumPy, 0-d; catad reduced it as an array of one element over no axes and kept that axis, an
array of shape (1,): np.ndim(np.sum(x, axis=())) was 1, and a value built on it wrong."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import catad

REDUCTIONS = [np.sum, np.prod, np.max, np.min, np.mean, np.var, np.std, np.ptp, np.nansum, np.nanmean, np.nanvar,
              np.nanstd, np.nanmax, np.nanmin]


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("red", REDUCTIONS, ids=lambda r: r.__name__)
def test_shape_and_value(red, keep):
    def f(x):
        t = red(x * 2.0, axis=(), keepdims=keep)
        return np.ndim(t) * 10.0 + np.sum(t) + x
    for x in (0.75, np.float64(-1.5)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = f(x)
            value, g = catad.value_and_grad(f)(x)
        assert value == pytest.approx(expected, rel=1e-12)
        if red in (np.std, np.nanstd):  # sqrt of a zero variance: the gradient's 0 * inf (a NaN) is
            continue                    # the reverse rule's, catad's std of one element everywhere
        h = 1e-6
        assert g == pytest.approx((f(x + h) - f(x - h)) / (2 * h), rel=1e-6, abs=1e-8)


def test_jvp_of_a_reduced_number_is_a_number():
    def g(v):
        return np.max(np.sum(v), axis=(), keepdims=True)
    v = np.array([0.5, 1.5])
    primal, tangent = catad.jvp(g, (v,), (np.ones(2),))
    assert np.shape(primal) == np.shape(g(v)) == () and np.shape(tangent) == ()
    assert primal == 2.0 and tangent == 2.0


def any_kept(x):
    return np.ndim(np.any(x > 0.0, axis=(), keepdims=True)) * 1.0 + x


def all_of_none(x):
    return np.ndim(np.all(x > 0.0, axis=())) * 1.0 + x


def nonzeros_of_none(x):
    return np.ndim(np.count_nonzero(x, axis=())) * 1.0 + x


@pytest.mark.parametrize("f", [any_kept, all_of_none, nonzeros_of_none], ids=lambda f: f.__name__)
def test_logic_reductions(f):
    assert catad.value_and_grad(f)(0.5)[0] == f(0.5)
