"""A list whose items are Python's numbers or NumPy's by a test of each one's values (min(x, e) of
Python's x and NumPy's e, x if x < e else e), made by a comprehension, appends in a loop or
outside one, or a display; or appends of both kinds in one loop ([x] then e, or x and e each
iteration). catad took such items for NumPy's: 1.0 / (L[0] * 0) gave inf where Python raises
ZeroDivisionError (the fuzzer's seed 3230994). Now an item's kind is undecided where catad
cannot tell it: what depends on it is refused when the function runs, where the two kinds would
differ, and the value is given where they would not. Each function is called itself."""
import numpy as np
import pytest

import catad
from located import agrees, outcome


def comprehension(x, v, d):
    L = [min(x, e) for e in v]
    return 1.0 / (L[0] * d) * x


def appended_in_a_loop(x, v, d):
    L = []
    for e in v:
        L.append(min(x, e))
    return 1.0 / (L[0] * d) * x


def chosen_by_a_conditional(x, v, d):
    L = []
    for e in v:
        L.append(x if x < e else e)
    return 1.0 / (L[0] * d) * x


def both_kinds_appended(x, v, d):
    L = []
    for e in v:
        L.append(x)
        L.append(e)
    return 1.0 / (L[0] * d) * x


def display(x, v, d):
    L = [min(x, v[0]), 2.0]
    return 1.0 / (L[0] * d) * x


def appended_outside_a_loop(x, v, d):
    L = [1.0]
    L.append(min(x, v[0]))
    return 1.0 / (L[1] * d) * x


def extreme_of_a_generator(x, v, d):
    return 1.0 / (max(min(x, e) for e in v) * d) * x


def python_s_first_then_numpy_s(x, v, d):
    L = [x]
    for e in v:
        L.append(e)
    return 1.0 / (L[0] * d) * x + 1.0 / (L[1] * d)


FUNCTIONS = [comprehension, appended_in_a_loop, chosen_by_a_conditional, both_kinds_appended, display,
             appended_outside_a_loop, extreme_of_a_generator]
V = np.array([1.765, 0.157, -0.217, 0.42])


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_refused_where_python_raises(f):
    """x = -2.215 is chosen (Python's float): 1.0 / 0.0 raises in Python, where NumPy's would be inf."""
    assert isinstance(outcome(f, -2.215, V, 0), tuple)
    with pytest.raises(catad.CatadError, match="cannot tell whether Python raises"):
        catad.value_and_grad(f)(-2.215, V, 0)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [-2.215, 0.3, 2.0])
def test_values_where_neither_kind_raises(f, x):
    agrees(f, x, V, 2)


def test_known_places_keep_their_kinds():
    """[x] then NumPy's appended in a loop: L[0] is Python's (ZeroDivisionError), L[1] NumPy's (inf)."""
    f = python_s_first_then_numpy_s
    assert outcome(f, 0.5, V, 0)[0] is ZeroDivisionError
    with pytest.raises(ZeroDivisionError):
        catad.value_and_grad(f)(0.5, V, 0)
    agrees(f, 0.5, V, 2)
