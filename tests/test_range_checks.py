"""math's overflow test of r = f(x) (frontend/calls.py: not(|r| > MAX and |x| <= MAX)) is one
runtime.check_range call in the generated code, which passes in one pass over r where r holds
no inf and otherwise runs the test itself: the errors and values stay Python's, for elements
that overflow, for inf, -inf and NaN arguments, and in lanes a branch does not take."""
import math

import numpy as np
import pytest

import catad
from catad import RangeError
from catad.pipeline import bind


def sum_exp(v):
    return sum(math.exp(v[i]) for i in range(len(v)))


def sum_exp_guarded(v):
    return sum(math.exp(v[i]) if v[i] < 700.0 else 0.0 for i in range(len(v)))


def sum_exp_squared(v):
    return sum(math.exp(v[i]) ** 2 for i in range(len(v)))


def rows_logsumexp(x):
    return sum(math.log(sum(math.exp(x[i, j]) for j in range(x.shape[1]))) for i in range(x.shape[0]))


def python(f, v):
    try:
        return f(v), None
    except OverflowError as e:
        return None, e


@pytest.mark.parametrize("f", [sum_exp, sum_exp_guarded, sum_exp_squared])
@pytest.mark.parametrize("bad", [None, 710.0, 400.0, math.inf, -math.inf, math.nan])
def test_range_checks_are_pythons(f, bad):
    v = np.linspace(-3.0, 2.0, 3000)
    if bad is not None:
        v[1234] = bad
    value, error = python(f, v)
    if error is not None:
        with pytest.raises(RangeError) as ours:
            catad.grad(f)(v)
        assert isinstance(ours.value, OverflowError)
        return
    got, g = catad.value_and_grad(f)(v)
    assert got == pytest.approx(value, rel=1e-12, nan_ok=True)
    assert np.shape(g) == v.shape


def test_a_matrix_of_lanes_overflows_in_one_lane_only():
    x = np.random.default_rng(0).standard_normal((1000, 10))
    assert catad.grad(rows_logsumexp)(x) == pytest.approx(
        np.exp(x) / np.exp(x).sum(axis=1, keepdims=True), rel=1e-10)
    x[617, 3] = 720.0
    with pytest.raises(OverflowError):
        rows_logsumexp(x)
    with pytest.raises(RangeError):
        catad.grad(rows_logsumexp)(x)
    x[617, 3] = math.nan
    assert math.isnan(catad.value_and_grad(rows_logsumexp)(x)[0])


@pytest.mark.parametrize("f", [sum_exp, sum_exp_squared, rows_logsumexp])
def test_the_test_is_one_call(f):
    arg = np.ones((4, 3)) if f is rows_logsumexp else np.ones(5)
    source = bind(f, (arg,)).pipeline.code("primal").source
    assert "check_range(" in source and "np.abs(" not in source
