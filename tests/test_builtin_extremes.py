"""Python's max and min of floats: np.max's value, except where there is a NaN. Python's max
keeps its first element and takes each one greater, so a NaN after the first is passed over
(nothing compares greater than a NaN), where np.max gives nan: catad refuses there, by a test
of the result, rather than give nan for Python's number (found by differential testing, trial
6: max(x) of [1, nan, 0.5] was nan, and its gradient pointed at the NaN)."""
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
def test_a_nan_is_refused(fn):
    x = np.array([1.0, np.nan, 0.5])
    assert np.isfinite(fn(x))  # Python passes over the NaN
    with pytest.raises(catad.CatadError, match="holding a NaN"):
        catad.value_and_grad(fn)(x)


@pytest.mark.parametrize("fn", [extremes, of_a_generator, of_a_list], ids=lambda f: f.__name__)
def test_without_nan_it_is_python_s_extreme(fn):
    agrees(fn, np.array([1.0, 3.0, -2.0]))
    agrees(fn, np.array([0.25]))


def test_the_rows_of_a_matrix_are_tested_each():
    m = np.array([[1.0, 2.0], [3.0, -1.0]])
    agrees(of_rows, m)
    m[1, 1] = np.nan
    with pytest.raises(catad.CatadError, match="holding a NaN"):
        catad.grad(of_rows)(m)


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
    """Python's ValueError, with its message, even where the extreme is not used: min(np.arange(0))
    of Ints, unused, gave a value (its reduction is not a check, and was dropped as dead code)."""
    with pytest.raises(ValueError, match=r"\(\) arg is an empty sequence"):
        unused_extremes(1.0, v, n)
    with pytest.raises(ValueError, match=r"\(\) arg is an empty sequence"):
        catad.grad(unused_extremes)(1.0, v, n)
