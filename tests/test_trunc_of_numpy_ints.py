"""math.trunc of NumPy's ints and bools, and round() of NumPy's bools, raise TypeError in Python
(np.int64 and np.bool_ define no __trunc__, np.bool_ no __round__); of Python's ints and bools
they are the int. catad gave the int for both: now it raises where the number is NumPy's,
surely (an element's comparison) or where its mark says (a count a loop adds NumPy's bools to
is Python's 0 only where the loop ran no iteration). Each function is called itself."""
import math

import numpy as np
import pytest

import catad
from located import raises_like_python, outcome as python


def trunc_of_a_count(v, x):
    c = 0
    for e in v:
        c += e > 0.0
    return math.trunc(c) * x


def trunc_of_a_length(v, x):
    return math.trunc(len(v)) * x


def round_of_an_elements_comparison(v, x):
    return round(v[0] > 0.0) * x


def round_of_a_python_comparison(v, x):
    return round(x > 0.0) * x


def trunc_of_an_elements_comparison(v, x):
    return math.trunc(v[0] > 0.0) * x


def trunc_in_a_branch_not_taken(v, x):
    if x > 100.0:
        return math.trunc(v[0] > 0.0) * x
    return x


FUNCTIONS = [trunc_of_a_count, trunc_of_a_length, round_of_an_elements_comparison, round_of_a_python_comparison,
             trunc_of_an_elements_comparison, trunc_in_a_branch_not_taken]



@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [np.array([1.0, -2.0]), np.array([-1.0]), np.array([])], ids=["two", "one", "empty"])
def test_as_python(f, v):
    want = python(f, v, 1.5)
    if raises_like_python(want, f, v, 1.5, argnums=1):
        return
    assert catad.value_and_grad(f, argnums=1)(v, 1.5) == (want, want / 1.5)


def test_the_cases_raise_in_python():
    assert python(trunc_of_a_count, np.array([1.0]), 1.5)[0] is TypeError
    assert python(trunc_of_a_count, np.array([]), 1.5) == 0.0
    assert python(round_of_an_elements_comparison, np.array([1.0]), 1.5)[0] is TypeError
    assert python(trunc_in_a_branch_not_taken, np.array([1.0]), 1.5) == 1.5
