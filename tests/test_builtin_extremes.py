"""Python's max and min of floats: np.max's value, except where there is a NaN. Python's max
keeps its first element and takes each one greater, so a NaN after the first is passed over
(nothing compares greater than a NaN), where np.max gives nan; a NaN first is kept (found by
differential testing, trial 6: max(x) of [1, nan, 0.5] was nan, and its gradient pointed at the
NaN; catad then refused a NaN, and now computes Python's)."""
import itertools

import numpy as np
import pytest

import catad
from located import agrees, refused


def extremes(x):
    return max(x) + 2.0 * min(x)


def of_a_generator(x):
    return max(v * v for v in x) - min(x[i] for i in range(len(x)))


def of_a_list(x):
    return max([v * 2.0 for v in x])


def of_rows(m):
    return sum(max(m[i]) for i in range(m.shape[0]))


@pytest.mark.parametrize("fn", [extremes, of_a_generator, of_a_list], ids=lambda f: f.__name__)
def test_a_nan_after_the_first_is_passed_over(fn):
    x = np.array([1.0, np.nan, 0.5])
    assert np.isfinite(fn(x))  # Python passes over the NaN
    agrees(fn, x)
    agrees(fn, np.array([-0.5, np.nan, np.nan, 2.0, 1.5]))


@pytest.mark.parametrize("fn", [extremes, of_a_generator, of_a_list], ids=lambda f: f.__name__)
def test_a_nan_first_is_kept(fn):
    x = np.array([np.nan, 1.0, 0.5])
    value, _ = catad.value_and_grad(fn)(x)
    assert np.isnan(value) and np.isnan(fn(x))


def test_signed_zeros_and_every_place_of_a_nan():
    """Python's max and min of every vector of up to three of nan, -0.0, 0.0, 1.0, 2.0 and -inf,
    bit for bit (the first of equal values, and of -0.0 and 0.0)."""
    values = [np.nan, -0.0, 0.0, 1.0, 2.0, -np.inf]
    for n in (1, 2, 3):
        for combo in itertools.product(values, repeat=n):
            x = np.array(combo)
            for fn in (extremes, of_a_list):
                got, want = catad.value_and_grad(fn)(x)[0], fn(x)
                assert np.isnan(got) and np.isnan(want) or got == want and np.signbit(got) == np.signbit(want), \
                    (fn.__name__, combo, got, want)


def test_the_rows_of_a_matrix_each():
    m = np.array([[1.0, 2.0], [3.0, -1.0]])
    agrees(of_rows, m)
    m[1, 1] = np.nan
    agrees(of_rows, m)  # (the NaN after the first is passed over)
    m[1, 0] = np.nan
    assert np.isnan(catad.value_and_grad(of_rows)(m)[0]) and np.isnan(of_rows(m))


def test_an_empty_sequence_raises_value_error():
    with pytest.raises(ValueError):
        extremes(np.zeros(0))
    with pytest.raises(ValueError):
        catad.grad(extremes)(np.zeros(0))


def exp_of_min_of_bool(x):
    return x * np.exp(min(2, True))  # ERR


def max_of_bool_in_tuple(x, flag):
    return x + max((0.5, flag > 0.0))  # ERR


@pytest.mark.parametrize("fn, args", [(exp_of_min_of_bool, (1.0,)), (max_of_bool_in_tuple, (1.0, 1.0))],
                         ids=lambda a: getattr(a, "__name__", ""))
def test_a_bool_beside_a_number_is_refused(fn, args):
    """Python's min(2, True) is True, the bool itself, and NumPy's exp of a bool is a float16
    (2.719 here; catad gave exp(1) = 2.718281828...: found by tests/test_frontend_fuzz.py). Which
    one is chosen, the bool or the number, is known only at run time: refused."""
    refused(fn, args, "of a bool and a number", "int(b)")


def unused_extremes(x, v, n):
    s = max(v) / x
    t = min(np.arange(n))
    return x


@pytest.mark.parametrize("v, n", [(np.array([]), 2), (np.array([1.0]), 0)], ids=["no floats", "no ints"])
def test_an_unused_extreme_of_nothing_raises_as_python(v, n):
    """Python's ValueError even where the extreme is not used: min(np.arange(0)) of Ints, unused,
    gave a value (the max of floats raised through NaN's test, which it no longer needs)."""
    with pytest.raises(ValueError, match=r"\(\) arg is an empty sequence"):
        unused_extremes(1.0, v, n)
    with pytest.raises(ValueError, match=r"\(\) arg is an empty sequence"):
        catad.grad(unused_extremes)(1.0, v, n)
