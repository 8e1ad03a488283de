"""A list of Python's floats and ints ([x, 2], [x] then .append(len(m))) is held as a vector of
floats; its int items were marked as not Python's numbers, so L[1] / 0, 1.0 / (L[1] - 2) and a
loop over the list dividing by an item gave NumPy's inf where Python raises ZeroDivisionError
(found by differential testing, session 28). An int item is Python's number too, read as its float
(2 // 3 is 0, 2.0 // 3 is 0.0: the same value); the error is Python's ZeroDivisionError, its
message the float's."""
import numpy as np
import pytest

import catad
from catad.errors import ZeroDivisionError_
from located import agrees


def display_item(x, v, m):
    L = [x, len(m)]
    return L[1] / 0 + x


def display_constant(x, v, m):
    L = [x, 2]
    return 1.0 / (L[1] - 2) + x


def floor_of_item(x, v, m):
    L = [x, 2]
    return L[1] // 0 + x


def looped(x, v, m):
    L = [x, 2]
    s = 0.0
    for a in L:
        s = s + 1.0 / (a - 2)
    return s + x


def appended(x, v, m):
    L = [x]
    L.append(len(m))
    return L[1] / 0 + x


def concatenated(x, v, m):
    L = [x]
    L += [len(m)]
    return L[1] / 0.0 + x


def summed(x, v, m):
    L = [x, 2.0, len(m)]
    return sum(L) / 0.0


def grown_in_a_loop(x, v, m):
    L = [x]
    for a in v:
        L.append(len(m))
    return L[-1] / (L[1] - 2) + x


RAISING = [display_item, display_constant, floor_of_item, looped, appended, concatenated, summed, grown_in_a_loop]
ARGS = (1.5, np.ones(3), np.ones((2, 2)))


@pytest.mark.parametrize("f", RAISING, ids=lambda f: f.__name__)
def test_raises_as_python(f):
    with pytest.raises(ZeroDivisionError):
        f(*ARGS)
    with pytest.raises(ZeroDivisionError_):
        catad.value_and_grad(f)(*ARGS)
    with pytest.raises(ZeroDivisionError_):
        catad.jvp(f, ARGS, (1.0, np.zeros(3), np.zeros((2, 2))))


def items_computed(x, v, m):
    L = [x, len(m), 3]
    s = 0.0
    for a in L:
        s = s * x + a / 4 + a // 2 + a % 3
    return s + sum(L) + L[1] ** 2 / x


def test_values_as_python():
    agrees(items_computed, *ARGS)
