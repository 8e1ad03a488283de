"""Reductions over no axes, axis=() (NumPy: each result is one element, the array itself for sum,
prod, max, min, mean and their nan twins; zeros for var and std, nan with ddof=1): they raised a
raw IndexError from the front end (by_axis and count_of read axes[0] of the empty tuple); so did
np.linalg.norm(x, axis=()), which is NumPy's ValueError ("Improper number of dimensions to norm.").
np.argmax(x, axis=()) is NumPy's TypeError: a refusal. Found by differential testing (session 18)."""
import numpy as np
import pytest

import catad
from located import agrees


def sum_(a): return np.sum(np.sum(a, axis=()) * 1.5)
def prod_(a): return np.sum(np.prod(a, axis=()) * 1.5)
def mean_(a): return np.sum(np.mean(a, axis=()) * 1.5)
def var_(a): return np.sum(np.var(a, axis=()) + a)
def std_(a): return np.sum(np.std(a, axis=()) + a)
def max_(a): return np.sum(np.max(a, axis=()) * 1.5)
def min_method(a): return np.sum(a.min(axis=()) * 1.5)
def max_kept(a): return np.sum(np.max(a, axis=(), keepdims=True) * 1.5)
def ptp_(a): return np.sum(np.ptp(a, axis=()) + a)
def nanmax_(a): return np.sum(np.nanmax(a, axis=()) * 1.5)
def nansum_(a): return np.sum(np.nansum(a, axis=()) * 1.5)
def nanmean_(a): return np.sum(np.nanmean(a, axis=()) * 1.5)
def nanvar_(a): return np.sum(np.nanvar(a, axis=()) + a)
def any_(a): return np.sum(np.any(a > 0, axis=()) * 1.5) + np.sum(a)
def all_(a): return np.sum(np.all(a > 0, axis=()) * 1.5) + np.sum(a)
def average_(a): return np.sum(np.average(a, axis=()) * 1.5)
def weighted_average(a): return np.sum(np.average(a, axis=(), weights=a * a + 1.0) * 1.5)
def count_nonzero_(a): return np.sum(np.count_nonzero(a, axis=()) * 1.5) + np.sum(a)
def sum_of_flags(a): return np.sum(np.sum(a > 0, axis=()) * 1.5) + np.sum(a)
def max_of_nothing(a): return np.sum(np.max(a[:0], axis=()) * 1.5) + np.sum(a)


def var_ddof1(a): return np.sum(np.var(a, axis=(), ddof=1) + a)
def argmax_(a): return np.sum(np.argmax(a, axis=()) * 1.5)
def norm_(a): return np.sum(np.linalg.norm(a, axis=()))
def norm_ord1(a): return np.sum(np.linalg.norm(a, ord=1, axis=()))


A = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]])


@pytest.mark.parametrize("f", [sum_, prod_, mean_, var_, max_, min_method, max_kept, ptp_, nanmax_, nansum_,
                               nanmean_, nanvar_, any_, all_, average_, weighted_average, count_nonzero_,
                               sum_of_flags, max_of_nothing], ids=lambda f: f.__name__)
def test_a_reduction_over_no_axes_is_numpy_s(f):
    agrees(f, A)


def test_std_over_no_axes_is_zeros():
    # (its gradient is sqrt's at 0: NaN, as JAX's, where the differences of the constant 0 give 0)
    value, _ = catad.value_and_grad(std_)(A)
    assert value == std_(A) == np.sum(A)


def test_var_over_no_axes_with_one_degree_of_freedom_is_nan():
    with np.errstate(all="ignore"):
        assert np.isnan(var_ddof1(A))
    value, g = catad.value_and_grad(var_ddof1)(A)
    assert np.isnan(value) and g.shape == A.shape


def test_argmax_over_no_axes_is_refused_as_numpy_s_type_error():
    with pytest.raises(TypeError):
        argmax_(A)
    with pytest.raises(catad.CatadTypeError, match="one integer"):
        catad.grad(argmax_)(A)


@pytest.mark.parametrize("f", [norm_, norm_ord1], ids=lambda f: f.__name__)
def test_a_norm_over_no_axes_is_numpy_s_error(f):
    with pytest.raises(ValueError, match="Improper number of dimensions to norm"):
        f(A)
    with pytest.raises(catad.ShapeError, match="Improper number of dimensions to norm"):
        catad.grad(f)(A)
