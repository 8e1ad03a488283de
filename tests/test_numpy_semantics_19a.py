"""NumPy's and SciPy's semantics that catad did not match (found by differential testing,
session 18): each case compares catad with the user's function run by NumPy itself (values,
derivatives against central differences, or the error NumPy raises; see shape_oracle)."""
import numpy as np
import pytest
from scipy.special import logsumexp, softmax

import catad
from located import refused
from shape_oracle import check_like_numpy

RNG = np.random.default_rng(19)


def same_as_numpy(f, *args):
    """catad's value of f at args is NumPy's to the bit (a difference in the last place is
    within check_like_numpy's tolerance)."""
    with np.errstate(all="ignore"):
        want = f(*args)
        got = catad.vjp(f, *args)[0]
    assert np.shape(got) == np.shape(want) and np.array_equal(got, want, equal_nan=True), (got, want)
Y3 = RNG.normal(size=(2, 3, 4)) * 3.0


# ---------------------------------------------------------------- np.trapezoid: dtypes and ranks

def trapezoid_of_mask(a):
    return np.trapezoid(a > 0.0) * 1.0  # True + True is True in NumPy (a logical or)


def trapezoid_of_mask_int_dx(a):
    return np.trapezoid(a > 0.0, dx=2) * a[0]


def trapezoid_of_mask_mask_x(a):
    return np.trapezoid(a > 0.0, x=a > 1.5) + a[1]  # np.diff of Bools is !=, a Bool times a Bool an and


def trapezoid_of_mask_rows(m):
    return np.sum(np.trapezoid(m > 0.0, axis=0) * m[0])


def trapezoid_of_ints(k):
    return np.trapezoid(k)  # int64 pairs, exact beyond 2 ** 53, then a float


@pytest.mark.parametrize("f, a", [
    (trapezoid_of_mask, np.array([1.0, 2.0, 3.0])),
    (trapezoid_of_mask, np.array([1.0, -2.0, 3.0, 4.0])),
    (trapezoid_of_mask_int_dx, np.array([1.0, 2.0, -3.0, 4.0, 5.0])),
    (trapezoid_of_mask_mask_x, np.array([1.0, 2.0, 3.0, -1.0, 2.0])),
    (trapezoid_of_mask_rows, np.array([[1.0, -2.0], [3.0, 4.0], [0.5, 0.7]])),
    (trapezoid_of_ints, np.array([2 ** 53 + 1, 1, 3])),
], ids=lambda v: getattr(v, "__name__", ""))
def test_trapezoid_in_numpys_dtypes(f, a):
    check_like_numpy(f, a)
    same_as_numpy(f, a)


def trapezoid_3d(y):
    return np.trapezoid(y)


def trapezoid_3d_axis0(y):
    return np.trapezoid(y, axis=0)


def trapezoid_3d_axis1(y):
    return np.trapezoid(y, dx=0.5, axis=1)


def trapezoid_3d_axis2_sum(y):
    return np.sum(np.trapezoid(y, axis=2) ** 2)


def trapezoid_3d_x(y, x):
    return np.trapezoid(y, x, axis=-2)


def trapezoid_3d_x_array(y, x):
    return np.trapezoid(y, x=x)


def trapezoid_3d_axis3(y):
    return np.trapezoid(y, axis=3)  # <- NumPy's IndexError


def trapezoid_3d_x_array_axis0(y, x):
    return np.trapezoid(y, x=x, axis=0)  # <- x's diff along its axis 0 does not broadcast


def test_trapezoid_of_a_3d_array():
    check_like_numpy(trapezoid_3d, Y3)
    check_like_numpy(trapezoid_3d_axis0, Y3)
    check_like_numpy(trapezoid_3d_axis1, Y3)
    check_like_numpy(trapezoid_3d_axis2_sum, Y3)
    check_like_numpy(trapezoid_3d_x, Y3, np.cumsum(RNG.uniform(0.5, 1.5, 3)))
    check_like_numpy(trapezoid_3d_x_array, Y3, RNG.normal(size=(3, 4)))
    check_like_numpy(trapezoid_3d_axis3, Y3)
    check_like_numpy(trapezoid_3d_x_array_axis0, Y3, RNG.normal(size=(3, 4)))


# ---------------------------------------------------------------- np.deg2rad and the like of Bools

def deg2rad_of_mask(a):
    return np.sum(np.deg2rad(a > 0.0)) * 1.0  # ERR


def radians_of_flag(a):
    return np.radians(a[0] > 0.0) * a[1]  # ERR


def rad2deg_of_mask(a):
    return np.sum(np.rad2deg(a > 0.0) * a)  # ERR


def degrees_of_true(a):
    return np.degrees(True) * a[0]  # ERR


def deg2rad_of_mask_as_floats(a):
    return np.sum(np.deg2rad((a > 0.0) * 1.0) * a)


@pytest.mark.parametrize("f", [deg2rad_of_mask, radians_of_flag, rad2deg_of_mask, degrees_of_true],
                         ids=lambda f: f.__name__)
def test_angles_of_bools_are_refused(f):
    """NumPy computes np.deg2rad of a Bool in float16 (deg2rad(True) is 0.0174560546875):
    refused, as np.sin of a Bool is, rather than a float64 differing from NumPy's."""
    a = np.array([1.0, -2.0, 3.0])
    assert np.deg2rad(np.array([True])).dtype == np.float16
    refused(f, (a,), "float16", cls=catad.CatadTypeError)


def test_angles_of_masks_made_numbers():
    check_like_numpy(deg2rad_of_mask_as_floats, np.array([1.0, -2.0, 3.0]))


# ---------------------------------------------------------------- np.append along an axis: np.concatenate's errors

def append_number_along_axis(a):
    return np.sum(np.append(a, np.sum(a), axis=-1))  # <- a number is 0-d: NumPy's ranks differ


def append_to_number_along_axis(a):
    return np.sum(np.append(a[0], a, axis=0))  # <- zero-dimensional arrays cannot be concatenated


def append_vector_to_matrix(m):
    return np.sum(np.append(m, m[0], axis=0))  # <- ranks 2 and 1


def append_axis_out_of_bounds(a):
    return np.sum(np.append(a, a, axis=1))  # <- NumPy's AxisError


def append_number_raveled(a):
    return np.sum(np.append(a, np.sum(a)) * a[0])  # axis None: both raveled, the number a vector of one


def append_rows(m):
    return np.sum(np.append(m, m[:1] * 2.0, axis=0) ** 2)


@pytest.mark.parametrize("f, a", [
    (append_number_along_axis, np.array([1.0, 2.0])),
    (append_to_number_along_axis, np.array([1.0, 2.0])),
    (append_vector_to_matrix, np.array([[1.0, 2.0], [0.5, 3.0]])),
    (append_axis_out_of_bounds, np.array([1.0, 2.0])),
], ids=lambda v: getattr(v, "__name__", ""))
def test_append_along_an_axis_raises_as_numpy(f, a):
    check_like_numpy(f, a, shapes=())  # (NumPy's messages name ranks, not shapes)


def test_append_still_joins():
    check_like_numpy(append_number_raveled, np.array([1.0, 2.0]))
    check_like_numpy(append_rows, np.array([[1.0, 2.0], [0.5, 3.0]]))


# ---------------------------------------------------------------- np.average: weights are not broadcast

def average_last_axis(a, w):
    return np.sum(np.average(a, axis=-1, weights=w))  # <-


def average_middle_axis(a, w):
    return np.sum(np.average(a, axis=1, weights=w))  # <-


def average_everything(a, w):
    return np.average(a, weights=w)  # <-


def average_of_number(a, w):
    return np.average(a[0, 0], weights=w)  # <-


A23 = np.array([[1.0, 2.0, 0.5], [0.3, 1.5, 2.5]])


@pytest.mark.parametrize("f, a, w", [
    (average_last_axis, A23, np.array([[0.5], [2.0]])),      # (2, 1): neither a's shape nor a.shape[-1]
    (average_last_axis, np.array([1.5]), np.array([0.5, 2.0])),  # a of one element, two weights
    (average_middle_axis, A23, 2.0),                            # a number: shape ()
    (average_middle_axis, A23, np.array([[[0.5]], [[2.0]], [[1.0]]])),  # (3, 1, 1)
], ids=["w_2x1", "w_longer", "w_number", "w_3x1x1"])
def test_average_weights_of_another_shape_raise_as_numpy(f, a, w):
    check_like_numpy(f, a, w, shapes=())  # (NumPy's message names no shape)


@pytest.mark.parametrize("f, a, w, cls", [
    (average_everything, A23, np.array([[0.5], [2.0]]), TypeError),  # shapes differ where it runs
    (average_everything, np.array([1.0, 2.0, 0.5]), np.array([0.5, 2.0]), TypeError),
    (average_of_number, A23, np.array([2.0]), catad.CatadTypeError),  # ranks differ: refused while compiling
], ids=["w_2x1", "w_shorter", "a_number"])
def test_average_weights_of_another_shape_without_axis_raise_type_error(f, a, w, cls):
    """NumPy's TypeError: a TypeError where the shapes differ at run time, a CatadTypeError where
    the ranks already do (as catad refuses weights of another rank without an axis)."""
    with pytest.raises(TypeError, match="Axis must be specified"):
        f(a, w)
    with pytest.raises(catad.CatadError, match="Axis must be specified") as info:
        catad.value_and_grad(f, argnums=(0, 1))(a, w)
    assert isinstance(info.value, cls) and "test_numpy_semantics_19a.py:" in str(info.value)


def test_average_weights_of_as_shape_or_along_the_axis():
    check_like_numpy(average_last_axis, A23, np.array([[0.5, 1.0, 2.0], [1.5, 0.25, 1.0]]))
    check_like_numpy(average_last_axis, A23, np.array([0.5, 1.0, 2.0]))
    check_like_numpy(average_everything, A23, np.array([[0.5, 1.0, 2.0], [1.5, 0.25, 1.0]]))


# ---------------------------------------------------------------- np.quantile of an Int q: the element itself

def quantile_at_int_0(a):
    return np.quantile(a, 0)  # NumPy's virtual index (n - 1) * 0 is an integer: no interpolation


def quantile_at_int_1(a):
    return np.quantile(a, 1)


def quantile_at_int_vector_rows(m):
    return np.quantile(m, np.array([0, 1]), axis=1)


def quantile_at_int_list(a):
    return np.sum(np.quantile(a, [1, 0]) * np.array([2.0, 3.0]))


def quantile_of_mask_at_int(a):
    return np.quantile(a > 0.0, 1)


def quantile_of_mask_at_float(a):
    return np.quantile(a > 0.0, 0.5) * 1.0  # ERR NumPy's TypeError (numpy boolean subtract)


def percentile_at_int_0(a):
    return np.percentile(a, 0)  # q / 100 is a float: NumPy interpolates


INF_LOW = np.array([2.0, -np.inf, 1.0])
INF_HIGH = np.array([2.0, np.inf, 1.0])


@pytest.mark.parametrize("f, a", [
    (quantile_at_int_0, INF_LOW),                         # -inf, where interpolating gives nan
    (quantile_at_int_1, INF_HIGH),                        # inf
    (quantile_at_int_vector_rows, np.array([[2.0, -np.inf, 1.0], [np.inf, 0.5, 3.0]])),
    (quantile_at_int_1, np.array([1.0, np.nan, 3.0])),    # a NaN in the lane: nan
    (quantile_at_int_1, np.array([2 ** 53 + 1, 5, -3])),  # an Int, exact beyond 2 ** 53
    (quantile_of_mask_at_int, np.array([1.0, -2.0, 3.0])),  # a Bool, as NumPy's
], ids=["q0_-inf", "q1_inf", "rows", "nan", "ints", "mask"])
def test_quantile_at_an_int_takes_the_element(f, a):
    with np.errstate(all="ignore"):
        want = f(a)
    got = catad.vjp(f, a)[0]
    assert np.asarray(got).dtype.kind == np.asarray(want).dtype.kind, (got, want)
    same_as_numpy(f, a)


def test_quantile_at_an_int_derivatives():
    check_like_numpy(quantile_at_int_0, np.array([2.0, 0.5, 1.0]))
    check_like_numpy(quantile_at_int_vector_rows, np.array([[2.0, 0.3, 1.0], [0.7, 0.5, 3.0]]))
    check_like_numpy(quantile_at_int_list, np.array([2.0, 0.5, 1.0, 4.0]))


def test_quantile_of_bools_interpolated_is_refused():
    a = np.array([1.0, -2.0, 3.0])
    with pytest.raises(TypeError, match="boolean subtract"):
        quantile_of_mask_at_float(a)
    refused(quantile_of_mask_at_float, (a,), "boolean subtract", cls=catad.CatadTypeError)


def test_percentile_at_an_int_still_interpolates():
    same_as_numpy(percentile_at_int_0, INF_LOW)  # nan in NumPy too


# ---------------------------------------------------------------- scipy.special.logsumexp of no elements

def lse(a):
    return logsumexp(a)


def lse_rows(m):
    return logsumexp(m, axis=1)


def lse_columns_sum(m):
    return np.sum(logsumexp(m, axis=0) * 2.0)


def lse_kept(m):
    return logsumexp(m, axis=-1, keepdims=True)


def lse_weighted(a):
    return logsumexp(a, b=2.0)


def lse_plus_sum(a, x):
    return logsumexp(a) * x + np.sum(a) + x


def lse_of_empty_matrix(m):
    return logsumexp(m)  # <- this SciPy's IndexError (it indexes the shape with a tuple of axes)


def softmax_of_empty(a):
    return np.sum(softmax(a))  # <- NumPy's ValueError for the max, as SciPy's softmax raises


def _scipy_says_minus_inf():
    """This SciPy's logsumexp of no elements is -inf (1.15 and later; earlier ones raised)."""
    return np.isneginf(logsumexp(np.zeros(0)))


@pytest.mark.parametrize("f, a", [
    (lse, np.zeros(0)),
    (lse_rows, np.zeros((3, 0))),        # three lanes of nothing
    (lse_rows, np.zeros((0, 3))),        # no lanes
    (lse_columns_sum, np.zeros((0, 2))),
    (lse_kept, np.zeros((2, 0))),
    (lse_weighted, np.zeros(0)),
], ids=["vector", "rows_of_nothing", "no_rows", "columns", "keepdims", "b"])
def test_logsumexp_of_nothing_is_scipys(f, a):
    if not _scipy_says_minus_inf():
        pytest.skip("this SciPy raises for logsumexp of no elements")
    same_as_numpy(f, a)
    value, vjp_fn = catad.vjp(f, a)
    g = vjp_fn(np.ones(np.shape(value)))[0]
    assert np.shape(g) == a.shape  # an empty gradient, as central differences give
    _, tangent = catad.jvp(f, (a,), (np.zeros_like(a),))
    assert np.array_equal(tangent, np.zeros(np.shape(value)))  # a constant: no nan from log(0) * 0


def test_logsumexp_of_nothing_beside_other_arguments():
    if not _scipy_says_minus_inf():
        pytest.skip("this SciPy raises for logsumexp of no elements")
    a, x = np.zeros(0), 1.5
    value, (ga, gx) = catad.value_and_grad(lse_plus_sum, argnums=(0, 1))(a, x)
    assert value == lse_plus_sum(a, x) == -np.inf
    assert ga.shape == (0,) and gx == -np.inf  # d/dx (lse * x + x) = lse + 1


def test_logsumexp_and_softmax_of_nothing_raise_as_scipy():
    check_like_numpy(lse_of_empty_matrix, np.zeros((2, 0)), shapes=())
    check_like_numpy(softmax_of_empty, np.zeros(0), shapes=())


def test_logsumexp_of_something_unchanged():
    check_like_numpy(lse_rows, np.array([[1.0, 2.0, -0.5], [0.3, 0.1, 2.0]]))
    check_like_numpy(lse, np.array([1.0, 2.0, -0.5]))


def log_partition(w, X):
    z = X @ w
    return 2.0 * logsumexp(z) + logsumexp(-z) - np.mean(z)


def test_logsumexp_over_the_rows_still_splits():
    """The guard of the max (-inf where there are no rows) is still a maximum over the rows
    for catad.distributed (the analysis needs no Dask)."""
    rng = np.random.default_rng(12)
    d = catad.explain(log_partition, rng.normal(size=3), rng.normal(size=(37, 3)), data=1)
    assert "vmax" in d.stage("per-chunk").text
