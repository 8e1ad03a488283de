"""scipy.special.logsumexp, softmax and log_softmax along any axis of an array of any rank. The
reduced value kept as an axis of length 1 (the max that shifts the exponentials, the normaliser,
keepdims=True) was put at position 1 for every axis past 0, as for a matrix: along axis 2 of a
rank-3 array the shift and the normaliser broadcast against the wrong axis, a silently wrong
value and gradient (or a ShapeError where the shapes did not broadcast). Found by differential
testing (session 18). Values are SciPy's own; gradients central differences (located.agrees)."""
import numpy as np
import pytest
import scipy.special

import catad
from located import agrees

W3 = np.random.default_rng(3).normal(size=(2, 3, 4))  # weights making each output element count


def lse_axis2(x):
    return scipy.special.logsumexp(x, axis=2)


def lse_axis1(x):
    return scipy.special.logsumexp(x, axis=1)


def lse_axis_minus1_kept(x):
    return scipy.special.logsumexp(x, axis=-1, keepdims=True)


def lse_axis1_kept(x):
    return scipy.special.logsumexp(x, axis=1, keepdims=True)


def lse_axis2_weighted(x):
    return scipy.special.logsumexp(x, axis=2, b=np.abs(W3) + 0.1)


def lse_all_kept(x):
    return scipy.special.logsumexp(x, keepdims=True)


def softmax_axis2(x):
    return scipy.special.softmax(x, axis=2)


def softmax_axis_minus2(x):
    return scipy.special.softmax(x, axis=-2)


def softmax_axis0(x):
    return scipy.special.softmax(x, axis=0)


def log_softmax_axis2(x):
    return scipy.special.log_softmax(x, axis=2)


def log_softmax_axis1(x):
    return scipy.special.log_softmax(x, axis=1)


FUNCTIONS = [lse_axis2, lse_axis1, lse_axis_minus1_kept, lse_axis1_kept, lse_axis2_weighted, lse_all_kept,
             softmax_axis2, softmax_axis_minus2, softmax_axis0, log_softmax_axis2, log_softmax_axis1]


def _x():
    return np.random.default_rng(7).uniform(-2.0, 2.0, (2, 3, 4))


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_values_are_scipy_s(f):
    x = _x()
    expected = f(x)
    out, _ = catad.jvp(f, (x,), (np.zeros_like(x),))
    assert np.shape(out) == np.shape(expected)
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_gradients_are_central_differences(f):
    x = _x()
    c = np.random.default_rng(11).normal(size=np.shape(f(x)))
    agrees(_weighted_by(f, c), x)


def _weighted_by(f, c):
    def weighted(x):
        return np.sum(f(x) * c)
    return weighted


def lse_rank4_axis3(x):
    return np.sum(scipy.special.logsumexp(x, axis=3) * np.arange(1.0, 7.0).reshape(2, 1, 3))


def softmax_rank4_axis2(x):
    return np.sum(scipy.special.softmax(x, axis=2) * np.arange(1.0, 25.0).reshape(2, 1, 3, 4))


@pytest.mark.parametrize("f", [lse_rank4_axis3, softmax_rank4_axis2], ids=lambda f: f.__name__)
def test_rank_four(f):
    x = np.random.default_rng(2).uniform(-2.0, 2.0, (2, 1, 3, 4))
    agrees(f, x)
