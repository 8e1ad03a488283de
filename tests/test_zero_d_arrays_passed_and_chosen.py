"""np.where of numbers gives an array of no axes, which an augmented assignment changes in place
(tests/test_zero_d_arrays_in_place.py). Two ways it reached a name that catad took for a number
of its own: passed to the user's function, whose `b *= 0.5` halves the caller's array, and
chosen by max() or min(), which give that array itself. catad rebound the name, so s + h(s) was
3.0 where Python gives 2.0 (loop fuzzer, seed 91252). A parameter given such an array is marked
so (common.ZERO_D), as is the result of max() or min() of one: the augmented assignment is
refused, as for any array that may share its memory."""
from __future__ import annotations

import numpy as np
import pytest

import catad
from located import agrees


def halve(b):
    b *= 0.5
    return b


def passed(x):
    s = np.where(x > 10.0, 1.0, x)
    t = halve(s)  # halves s too
    return s + t


def halve_in_a_loop(b, n):
    for _ in range(n):
        b *= 0.5
    return b


def passed_to_a_loop(x):
    s = np.where(x > 10.0, 1.0, x)
    t = halve_in_a_loop(s, 2)  # quarters s too (loop fuzzer, seed 101669)
    return s + t


def chosen(x):
    s = np.where(x > 10.0, 1.0, x)
    t = min(s, 5.0)  # s itself
    t *= 0.5
    return s + t


def passed_a_number(x):
    s = np.where(x > 10.0, 1.0, x)
    return halve(s * 1.0) + s  # s * 1.0 is NumPy's float64: halve rebinds its b


def chosen_then_read(x):
    s = max(np.where(x > 10.0, 1.0, x), 0.5)
    return np.sin(s) + s


@pytest.mark.parametrize("f, python", [(passed, 2.0), (passed_to_a_loop, 1.0), (chosen, 2.0)])
def test_writing_into_it_is_refused(f, python):
    assert f(2.0) == python  # (catad's rebinding gave 3.0, 2.5 and 3.0)
    with pytest.raises(catad.CatadError, match="changes the array"):
        catad.value_and_grad(f)(2.0)


@pytest.mark.parametrize("f", [passed_a_number, chosen_then_read])
def test_reading_it_is_computed(f):
    for x in (2.0, 0.25, 12.0):
        agrees(f, x)
