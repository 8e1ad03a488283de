"""A count a loop adds NumPy's bools to (`c = 0`, then `c += e > 0.0` for e in an array) is
Python's int 0 where the loop runs no iteration and NumPy's int64 after one that runs. Int
arithmetic of it (c - c, c * 0, -c, c ** 2, c ** -1) keeps that: Python's where both operands
are, so `x / (c - c)` raises ZeroDivisionError for an empty array (it gave inf) and is inf
otherwise, and `c ** -1` raises NumPy's ValueError where the loop ran (it gave 1 / c) and is
Python's float, or its ZeroDivisionError at 0, where it did not. Each function is called
itself: catad raises what it raises, and otherwise gives its value and gradient."""
import numpy as np
import pytest

import catad
from located import agrees, raises_like_python, outcome as python


def count_minus_itself(v, x):
    c = 0
    for e in v:
        c += e > 0.0
    return x / (c - c)


def count_times_zero(v, x):
    c = 0
    for e in v:
        c += e > 0.0
    return x / (c * 0)


def count_negated(v, x):
    c = 0
    for e in v:
        c += e > 0.0
    return x / (-c)


def count_squared(v, x):
    c = 0
    for e in v:
        c += e > 0.0
    return x / c ** 2


def count_inverse(v, x):
    c = 0
    for e in v:
        c += e > 0.0
    return x * c ** -1


def count_from_five_inverse(v, x):
    c = 5
    for e in v:
        c += e > 0.0
    return x * c ** -1


def count_to_a_variable_power(v, x, k):
    c = 0
    for e in v:
        c += e > 0.0
    return x * c ** k


FUNCTIONS = [count_minus_itself, count_times_zero, count_negated, count_squared, count_inverse,
             count_from_five_inverse]
ARRAYS = [np.array([1.0, -2.0, 3.0]), np.array([]), np.array([-1.0])]



@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", ARRAYS, ids=["three", "empty", "one"])
def test_as_python(f, v):
    want = python(f, v, 2.0)
    if raises_like_python(want, f, v, 2.0, argnums=1):
        return
    with np.errstate(all="ignore"):
        value, g = catad.value_and_grad(f, argnums=1)(v, 2.0)
    assert value == want
    if np.isfinite(want):
        agrees(f, v, 2.0, argnums=1)
    else:
        assert not np.isfinite(g)


def test_the_kinds_seen():
    """The cases above are the ones meant: Python's errors for the empty array, NumPy's values and
    its ValueError for the others."""
    empty, three = ARRAYS[1], ARRAYS[0]
    assert python(count_minus_itself, empty, 2.0) == (ZeroDivisionError, "float division by zero")
    assert python(count_minus_itself, three, 2.0) == np.inf
    assert python(count_inverse, three, 2.0)[0] is ValueError
    assert python(count_inverse, empty, 2.0)[0] is ZeroDivisionError
    assert python(count_from_five_inverse, empty, 2.0) == 0.4


def test_a_power_not_known_to_be_nonnegative_is_refused():
    with pytest.raises(catad.CatadError, match="Python's on some paths and NumPy's on others") as e:
        catad.grad(count_to_a_variable_power, argnums=1)(ARRAYS[0], 2.0, -1)
    assert "test_loop_count_kind.py" in str(e.value) and "float(n) ** k" in str(e.value)
