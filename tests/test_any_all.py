"""Python's builtin any() and all(): a bool of Python's, of the truth of each item (a number's:
nonzero, NaN too), of a generator (its filters kept), a list comprehension, an array, or a
tuple of numbers; any() of nothing is False, all() True. A generator whose items or filters may
raise is refused: Python's any stops at the first true item and never computes the rest. Each
function is called itself: catad gives its value and gradient, or raises what it raises."""
import math

import numpy as np
import pytest

import catad
from located import agrees, raises_like_python, outcome as python


def any_of_a_generator(v, x):
    return x * any(e > 0.5 for e in v)


def all_of_a_generator(v, x):
    return x * all(e > -1.0 for e in v)


def any_of_an_array(v, x):
    return x if any(v) else -x


def all_of_a_list_comprehension(v, x):
    return x if all([e != 0.0 for e in v]) else -x


def any_of_a_tuple(v, x):
    return x * any((x - x, 0.0, v[0] if len(v) else 0.0))


def all_filtered(v, x):
    return x * all(e for e in v if e > 0.0)


def any_of_two_clauses(v, x):
    return x * any(e > 0 for row in [v, v] for e in row)


def any_counted_then_divided(v, x):
    return x / (any(e > 10.0 for e in v) + 0)


def all_of_an_or(v, x):
    return x * all(np.isnan(e) or e < 5 for e in v)


def any_of_a_sine(v, x):
    return np.sin(x) * 2.0 if any(np.sin(e * x) > 0.5 for e in v) else x * x


FUNCTIONS = [any_of_a_generator, all_of_a_generator, any_of_an_array, all_of_a_list_comprehension, any_of_a_tuple,
             all_filtered, any_of_two_clauses, any_counted_then_divided, all_of_an_or, any_of_a_sine]
ARRAYS = [np.array([1.0, -2.0]), np.array([0.0, np.nan]), np.array([]), np.array([0.0, 0.0, 7.0])]



@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", ARRAYS, ids=["mixed", "zero-nan", "empty", "late"])
def test_as_python(f, v):
    want = python(f, v, 1.5)
    if raises_like_python(want, f, v, 1.5, argnums=1):
        return
    value = catad.value_and_grad(f, argnums=1)(v, 1.5)[0]
    assert value == want
    agrees(f, v, 1.5, argnums=1)


def test_the_result_is_pythons_bool():
    """(any(...) + 0 is Python's int: dividing by it raises ZeroDivisionError.)"""
    assert python(any_counted_then_divided, ARRAYS[0], 1.5)[0] is ZeroDivisionError
    with pytest.raises(ZeroDivisionError):
        catad.grad(any_counted_then_divided, argnums=1)(ARRAYS[0], 1.5)


def reciprocals(v, x):
    return x * any(1.0 / e > 0.5 for e in [x, 0.0])


def test_a_generator_that_may_raise_is_refused():
    assert python(reciprocals, ARRAYS[0], 1.5) == 1.5  # (Python never computes 1.0 / 0.0)
    with pytest.raises(catad.CatadError, match="stops at the first item") as e:
        catad.grad(reciprocals, argnums=1)(ARRAYS[0], 1.5)
    assert "test_any_all.py" in str(e.value)


def test_rows_of_a_matrix_are_refused():
    def rows(m):
        return 1.0 * any(m)
    with pytest.raises(catad.CatadError, match="truth of numbers"):
        catad.grad(rows)(np.ones((2, 2)))
