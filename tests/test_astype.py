"""a.astype(dtype) of float, int and bool (NumPy's and Python's names): a new array converted as
NumPy casts it (numbers to bools by != 0, bools to 1 and 0, floats to ints toward 0). Values and
dtypes against the function itself, gradients against central differences; a float that has no
int64 (NaN, an infinity, past 2**63), whose NumPy cast is undefined, is refused at run time."""
import warnings

import numpy as np
import pytest

import catad
from catad import RangeError
from located import agrees, refused

X = np.array([0.1, -1.4, 0.7, 2.9, 0.0])


def masks_as_numbers(x):
    m = (x > 0.5).astype(float)
    k = (x > 0.2).astype(int)
    return np.sum(m * x) + np.sum(k) * x[0] + np.sum((x < 1.0).astype(np.float64) * x ** 2)


def truncated(x):
    i = (x * 3.0).astype(int)  # toward 0: -4.2 is -4
    return np.sum(i * x) + np.sum(i.astype(float) ** 2) * x[1]


def indices(x):
    i = np.floor(np.abs(x) * 1.5).astype(np.int64)
    return np.sum(x[i] * x)


def nonzero(x):
    b = (x * 2.0).astype(bool)
    return np.sum(np.where(b, x.astype("float64") ** 2, 1.0)) + np.sum(x.astype(dtype=float))


@pytest.mark.parametrize("f", [masks_as_numbers, truncated, indices, nonzero], ids=lambda f: f.__name__)
def test_values_and_gradients(f):
    agrees(f, X)
    agrees(f, X[::-1] * 0.9)


def converted(x):
    return (x.astype(int), x.astype(bool), (x > 0).astype(int), (x > 0).astype(float), x.astype(int).astype(float))


def test_values_and_dtypes():
    out, _ = catad.vjp(converted, X)
    for got, want in zip(out, converted(X)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def to_int(x):
    return np.sum(x.astype(int) * 1.5)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e19])
def test_a_float_without_an_int64_is_refused(bad):
    x = np.array([1.5, bad])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        to_int(x)  # NumPy gives a value: the C cast's, undefined
    with pytest.raises(RangeError, match="astype"):
        catad.grad(to_int)(x)


def to_float32(x):
    return np.sum(x.astype(np.float32))  # ERR


def with_copy(x):
    return np.sum(x.astype(float, copy=False))  # ERR


def test_other_dtypes_and_arguments_are_refused():
    refused(to_float32, (X,), "float, int or bool")
    refused(with_copy, (X,), "dtype alone")


def dtype_names(x):
    return np.sum(np.zeros(5, dtype="float64") + x) + np.sum(np.ones(5, dtype="f8") * x.astype("f8")) + \
        np.sum(np.array([1, 2, 3], dtype="int64")) * x[0] + np.sum(np.full(5, 2, dtype="float") * x)


def test_dtype_names_are_read_by_every_dtype_argument():
    """dtype="float64" (and "float", "f8", "int64", "int", "i8", "bool") is NumPy's float64 wherever
    a dtype is taken; np.zeros(3, dtype="float64") was refused while .astype("float64") was not."""
    agrees(dtype_names, X)
