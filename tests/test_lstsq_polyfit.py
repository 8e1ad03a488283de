"""np.linalg.lstsq and np.polyfit (catad/frontend/lstsq.py): NumPy's values (lstsq's four results
bit for bit, polyfit's coefficients to rounding: catad's column sums add in another order), the
derivative of the least-squares solution of a full-column-rank matrix against central
differences, forward and reverse, and a second derivative; NumPy's errors; the located refusals
of a rank-deficient matrix (at run time) and of full=True / cov (while compiling)."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import catad
from located import agrees, hessian_by_differences, marked_line, refused

RNG = np.random.default_rng(505)
T = np.linspace(0, 1, 16)


def lstsq_all(a, b):
    return np.linalg.lstsq(a, b, rcond=None)


def lstsq_rcond(a, b):
    return np.linalg.lstsq(a, b, 1e-3)


@pytest.mark.parametrize("shape,bshape", [((6, 3), (6,)), ((6, 3), (6, 2)), ((3, 3), (3,)), ((3, 3), (3, 0)),
                                          ((1, 1), (1,)), ((4, 1), (4, 2)), ((5, 0), (5,))])
@pytest.mark.parametrize("fn", [lstsq_all, lstsq_rcond])
def test_lstsq_values_are_numpy_s(fn, shape, bshape):
    a, b = RNG.normal(size=shape), RNG.normal(size=bshape)
    got, _ = catad.vjp(fn, a, b)
    want = fn(a, b)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        assert np.array_equal(g, w)


def lstsq_loss(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b, rcond=None)
    return np.sum(np.sin(x)) + 0.5 * np.sum(res) + np.sum(s ** 2) + rank


@pytest.mark.parametrize("shape,bshape", [((6, 3), (6,)), ((6, 3), (6, 2)), ((3, 3), (3,)), ((4, 1), (4,)),
                                          ((1, 1), (1,))])
def test_lstsq_gradients(shape, bshape):
    a, b = RNG.normal(size=shape), RNG.normal(size=bshape)
    agrees(lstsq_loss, a, b, argnums=0)
    agrees(lstsq_loss, a, b, argnums=1)


def trial_fit(p):  # the trial's idiom: coefficients of a quadratic fitted to a model's curve
    A = np.stack([np.ones(16), T, T ** 2], axis=1)
    y = p[0] * np.sin(p[1] * T)
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    return np.sum(coef ** 2)


def test_lstsq_of_a_model():
    agrees(trial_fit, np.array([0.5, 1.2]))


def cubed(a, b):
    x = np.linalg.lstsq(a, b, rcond=None)[0]
    return np.sum(x ** 3)


def test_lstsq_second_derivative():
    a, b = RNG.normal(size=(5, 3)), RNG.normal(size=5)
    h = catad.hessian(cubed)(a, b)
    np.testing.assert_allclose(h, hessian_by_differences(cubed, (a, b), 0), rtol=1e-6, atol=1e-7)


def rank_deficient(a, b):
    x, *_ = np.linalg.lstsq(a, b, rcond=None)  # ERR
    return np.sum(x)


@pytest.mark.parametrize("a", [np.ones((4, 2)), np.ones((2, 4)), np.zeros((0, 2))])
def test_rank_deficient_is_refused_at_the_call(a):
    with pytest.raises(catad.LinAlgError) as info:
        catad.grad(rank_deficient)(a, np.ones(len(a)))
    assert info.value.loc.line == marked_line(rank_deficient)
    assert "full column rank" in str(info.value)


def incompatible(a, b):
    return np.sum(np.linalg.lstsq(a, b)[0])  # ERR


def test_numpy_s_errors():
    with pytest.raises(np.linalg.LinAlgError, match="Incompatible dimensions") as info:
        catad.grad(incompatible)(np.ones((4, 2)), np.ones(3))
    assert info.value.loc.line == marked_line(incompatible)
    with pytest.raises(np.linalg.LinAlgError):
        incompatible(np.ones((4, 2)), np.ones(3))
    refused(incompatible, (np.ones(4), np.ones(4)), "1-dimensional array given")
    refused(incompatible, (np.ones((4, 2)), np.ones((4, 2, 1))), "3-dimensional array given")


# ---------------------------------------------------------------- np.polyfit

def fit3(x, y):
    return np.polyfit(x, y, 3)


def fit_w(x, y, w):
    return np.polyfit(x, y, 2, w=w)


def fit_rows(x, y):
    return np.polyfit(x, y, 1)


def fit0(x, y):
    return np.polyfit(x, y, 0)


@pytest.mark.parametrize("fn,args", [(fit3, (T, RNG.normal(size=16))),
                                     (fit_w, (T, RNG.normal(size=16), RNG.uniform(0.5, 2, 16))),
                                     (fit_rows, (T, RNG.normal(size=(16, 3)))),
                                     (fit0, (np.array([0.3]), np.array([2.0]))),
                                     (fit_rows, (np.array([0.0, 1.0]), np.array([1.0, 3.0])))])
def test_polyfit_values(fn, args):
    got, _ = catad.vjp(fn, *args)
    want = fn(*args)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def polyfit_loss(c):  # the trial's idiom: fitting a polynomial's own values gives it back
    y = np.polyval(c, T)
    fit = np.polyfit(T, y, 2)
    return np.sum((fit - c) ** 2) + np.sum(fit)


def polyfit_weighted(x, y, w):
    return np.sum(np.polyfit(x, y, 2, w=w) * np.array([1.0, -2.0, 0.5]))


def polyfit_columns(x, y):
    return np.sum(np.sin(np.polyfit(x, y, 2)))


def test_polyfit_gradients():
    agrees(polyfit_loss, np.array([0.5, 1.2, -0.3]))
    x, y, w = np.sort(RNG.uniform(-1, 2, 9)), RNG.normal(size=9), RNG.uniform(0.5, 2, 9)
    for k in range(3):
        agrees(polyfit_weighted, x, y, w, argnums=k)
    for k in range(2):
        agrees(polyfit_columns, x, RNG.normal(size=(9, 2)), argnums=k)


def too_few_points(x, y):
    return np.sum(np.polyfit(x, y, 3))  # ERR


def test_polyfit_rank_deficient_and_numpy_s_errors():
    with pytest.raises(catad.LinAlgError, match="rank 3 < deg") as info:
        catad.grad(too_few_points)(np.arange(3.0), np.arange(3.0))
    assert info.value.loc.line == marked_line(too_few_points)
    with pytest.raises(TypeError, match="expected x and y to have same length"):
        catad.grad(too_few_points)(np.arange(5.0), np.arange(4.0))
    with pytest.raises(TypeError, match="expected non-empty vector for x"):
        catad.grad(too_few_points)(np.zeros(0), np.zeros(0))
    with pytest.raises(TypeError, match="expected non-empty vector for x"):
        too_few_points(np.zeros(0), np.zeros(0))


def full_fit(x, y):
    return np.polyfit(x, y, 2, full=True)  # ERR


def cov_fit(x, y):
    return np.polyfit(x, y, 2, cov=True)  # ERR


def variable_degree(x, y, d):
    return np.polyfit(x, y, d)  # ERR


def negative_degree(x, y):
    return np.polyfit(x, y, -1)  # ERR


def test_polyfit_refusals():
    x = np.arange(5.0)
    refused(full_fit, (x, x), "full=")
    refused(cov_fit, (x, x), "cov=")
    refused(variable_degree, (x, x, 2), "constant int")
    refused(negative_degree, (x, x), "expected deg >= 0")
