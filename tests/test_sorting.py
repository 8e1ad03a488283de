"""np.sort, np.argsort(kind='stable') and np.median: values as NumPy's (NaNs sorted last, ties,
empty lanes, every axis), gradients against central differences away from ties (the
derivative of a sort scatters the cotangent back through the permutation), and a located
refusal for np.argsort's default kind, whose order of ties is its algorithm's."""
import numpy as np
import pytest

import catad
from catad import UnsupportedSyntax
from located import agrees, marked_line, refused

RNG = np.random.default_rng(1617)
V = RNG.normal(size=7)
M = RNG.normal(size=(4, 5))
T = RNG.normal(size=(3, 2, 4))
TIES = np.array([3.0, 1.0, 3.0, np.nan, 2.0, 1.0, -np.inf, np.nan])


def weighted_sort(x, v):
    return np.sum(np.sort(v) * x * np.arange(1, v.size + 1))


def rows_sorted(x, m):
    return np.sum(np.sort(m) * np.arange(m.shape[-1]) * x)


def columns_sorted(x, m):
    return np.sum(np.sort(m, axis=0) * np.arange(m.shape[0])[:, None] * x)


def flat_sorted(x, m):
    return np.sum(np.sort(m, axis=None, kind="mergesort") * x * np.arange(m.size))


def middle_axis(x, t):
    return np.sum(np.sort(t, axis=1) * np.arange(t.shape[1])[:, None] * x)


def trimmed_mean(x, v):
    return x * np.mean(np.sort(v)[1:-1])


def medians(x, m):
    return x * np.median(m) + np.sum(np.median(m, axis=0) * np.arange(m.shape[1])) + np.sum(np.median(m, axis=-1))


def ranks(x, v):
    return x * float(np.sum(np.argsort(v, kind="stable") * np.arange(v.size)))


def sorted_in_a_loop(x, m):
    total = 0.0
    for row in m:
        total += np.sort(row)[-1] * x + np.median(row)
    return total


@pytest.mark.parametrize("f, a", [(weighted_sort, V), (rows_sorted, M), (columns_sorted, M), (flat_sorted, M),
                                  (middle_axis, T), (trimmed_mean, V), (medians, M), (medians, M[:, :4]),
                                  (sorted_in_a_loop, M)])
def test_values_and_gradients(f, a):
    agrees(f, 1.5, a, argnums=(0, 1))


def same(a, b) -> bool:
    return a == b or (np.isnan(a) and np.isnan(b))


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")
@pytest.mark.parametrize("v", [TIES, np.zeros(0), np.array([2.0]), np.array([np.nan, 1.0]), np.array([4.0, 1.0, 4.0])])
def test_values_are_numpy_s_with_nans_ties_and_empty_lanes(v):
    with np.errstate(all="ignore"):
        for f in (weighted_sort, ranks, trimmed_mean, medians_of_vector):
            assert same(catad.value_and_grad(f)(1.5, v)[0], f(1.5, v)), f.__name__


def medians_of_vector(x, v):
    return x * np.median(v)


def sorted_floats(v):
    return np.sort(v)


def stable_order(v):
    return np.argsort(v, kind="stable") * 1.0


def test_sorted_arrays_and_orders_are_numpy_s():
    for v in (TIES, np.array([5.0, -1.0, 5.0, 0.0]), np.zeros(0)):
        tangent = (np.zeros(v.shape),)
        np.testing.assert_array_equal(catad.jvp(sorted_floats, (v,), tangent)[0], np.sort(v))
        np.testing.assert_array_equal(catad.jvp(stable_order, (v,), tangent)[0], np.argsort(v, kind="stable"))


def default_argsort(v):
    return np.sum(np.argsort(np.outer(v, v))[0] * v)  # ERR (of a vector: tests/test_argsort_default_kind.py)


def test_argsort_s_default_kind_is_refused():
    refused(default_argsort, (V,), "kind='stable'", "stable", cls=UnsupportedSyntax)


def quantile_of(x, v, q):
    return x * np.quantile(v, q)


def percentile_of(x, v, q):
    return x * np.percentile(v, q)  # ERR


def quantiles_along(x, m, q):
    return x * np.sum(np.quantile(m, q, axis=0) * np.arange(m.shape[1])) + np.sum(np.percentile(m, 30.0, axis=1))


@pytest.mark.parametrize("q", [0.0, 0.1, 0.25, 0.5, 1 / 3, 0.73, 0.999, 1.0])
def test_quantiles_are_numpy_s_to_the_bit(q):
    for v in (V, V[:4], np.array([2.0]), TIES, np.array([1.0, np.inf]), np.array([-np.inf, 1.0, np.inf])):
        with np.errstate(all="ignore"):
            assert same(catad.value_and_grad(quantile_of)(1.5, v, q)[0], quantile_of(1.5, v, q)), (v, q)
            assert same(catad.value_and_grad(percentile_of)(1.5, v, 100 * q)[0], percentile_of(1.5, v, 100 * q))


@pytest.mark.parametrize("q", [0.1, 0.37, 0.9])  # (n - 1) q not an integer: away from the kinks
def test_quantile_gradients_in_the_data_and_in_q(q):
    agrees(quantile_of, 1.5, V, q, argnums=(0, 1, 2))
    agrees(percentile_of, 1.5, V, 100 * q, argnums=(1, 2))
    agrees(quantiles_along, 1.5, M, q, argnums=(0, 1, 2))


def several(x, m):
    a = np.quantile(m.ravel(), [0.1, 0.5, 0.9])
    b = np.percentile(m, np.array([25.0, 75.0]), axis=1)  # shape (2, rows): the quantiles' axis first
    c = np.quantile(m, [0.3], axis=0)
    return x * (np.sum(a * np.arange(1, 4)) + np.sum(b * np.arange(1.0, 1.0 + b.size).reshape(b.shape))
                + np.sum(c ** 2))


def quantile_rows(m):
    return np.percentile(m, [10.0, 50.0, 90.0], axis=1)


def test_a_vector_of_quantiles():
    agrees(several, 1.5, M, argnums=(0, 1))
    value, _ = catad.jvp(quantile_rows, (M,), (np.zeros_like(M),))
    assert value.shape == (3, M.shape[0]) and np.array_equal(value, quantile_rows(M))


def bad_among_several(v):
    return np.sum(np.quantile(v, [0.5, 1.5]))  # ERR


def test_one_bad_quantile_among_several_is_numpy_s_error():
    with pytest.raises(ValueError) as python:
        bad_among_several(V)
    with pytest.raises(catad.CatadError) as ours:
        catad.grad(bad_among_several)(V)
    assert str(python.value) in str(ours.value) and ours.value.loc.line == marked_line(bad_among_several)


@pytest.mark.parametrize("v, q", [(V, 101.0), (V, -1.0), (V, np.nan), (np.zeros(0), 50.0)])
def test_numpy_s_errors(v, q):
    with pytest.raises((ValueError, IndexError)) as python:
        percentile_of(1.5, v, q)
    with pytest.raises(catad.CatadError) as ours:
        catad.grad(percentile_of)(1.5, v, q)
    assert isinstance(ours.value, type(python.value)) and str(python.value) in str(ours.value)
    assert ours.value.loc.line == marked_line(percentile_of)
