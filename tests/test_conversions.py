"""Floats made Ints as Python makes them: int(x) and math.trunc toward 0, math.floor, math.ceil,
round (halves to even) of a Float computed at run time, usable as sizes and indices; NaN is
Python's ValueError, an infinity its OverflowError, beyond int64 a located RangeError (Python's
int grows); math.log(x, base); np.mean/var/std/max/min/argmax of Bool arrays as NumPy computes
them."""
import math

import numpy as np
import pytest

import catad
from catad import CatadTypeError, DomainError, RangeError
from catad.errors import ZeroDivisionError_
from located import agrees


def binning(x, n):
    k = int(x[0] * n)
    j = math.floor(x[1] * 3.7)
    c = math.ceil(-x[1] * 2.2)
    r = round(x[0] * 5)
    t = math.trunc(-x[0] * 4.9)
    return x[0] * k + x[1] * j + c * x[2] + r * x[0] + t * x[1] + np.sum(x[: r + 3] ** 2)


POINTS = [[0.31, 0.72, 1.5], [0.47, 0.55, 2.5], [-0.35, -0.8, 0.1], [0.13, 0.27, 0.3], [0.71, 1.7, -0.2]]


@pytest.mark.parametrize("x", POINTS)
def test_values_and_derivatives(x):
    agrees(binning, np.array(x), 10)


def halves(x):
    return sum(round(x[i] * 0.5) * 1.0 for i in range(len(x))) * x[0]


def test_round_halves_to_even_as_python():
    x = np.array([1.0, 3.0, 5.0, -1.0, -3.0, 6.0])  # x / 2 = 0.5, 1.5, 2.5, -0.5, -1.5, 3
    value, _ = catad.value_and_grad(halves)(x)
    assert value == halves(x) == (0 + 2 + 2 - 0 - 2 + 3) * 1.0


@pytest.mark.parametrize("bad, cls, python_cls, words", [
    (np.nan, DomainError, ValueError, "cannot convert float NaN to integer"),
    (np.inf, RangeError, OverflowError, "cannot convert float infinity to integer"),
    (-np.inf, RangeError, OverflowError, "cannot convert float infinity to integer"),
    (1e30, RangeError, None, "int() of 1e+31 is outside the 64-bit range"),
])
def test_what_python_raises(bad, cls, python_cls, words):
    x = np.array([bad, 0.5, 0.1])
    if python_cls is not None:
        with pytest.raises(python_cls, match=words):
            binning(x, 10)
    with pytest.raises(cls) as info:
        catad.grad(binning)(x, 10)
    assert words in str(info.value) and info.value.loc.line == binning.__code__.co_firstlineno + 1


def logs(x):
    return math.log(x[0], 2) + math.log(x[1], x[0]) + math.log(x[1], 10.0)


def test_log_with_a_base():
    agrees(logs, np.array([3.0, 5.0]))
    for bad, cls, python_cls in ((np.array([1.0, 5.0]), ZeroDivisionError_, ZeroDivisionError),
                                 (np.array([-1.0, 5.0]), DomainError, ValueError),
                                 (np.array([3.0, 0.0]), DomainError, ValueError)):
        with pytest.raises(python_cls) as python:
            logs(bad)
        with pytest.raises(cls) as ours:
            catad.grad(logs)(bad)
        assert str(python.value) in str(ours.value)


def bools(x):
    m = x > 0.5
    a = np.mean(m) * x[0] + np.var(m) * x[1] + m.std() * x[2]
    b = (1.0 if np.max(m) else 0.0) + (1.0 if m.min() else 0.0) + np.argmax(m) * x[0]
    c = np.sum(np.mean(np.stack([m, m]), axis=0) * x) + np.sum(np.max(np.stack([m, ~m]), axis=1) * 1.0)
    return a + b + c


@pytest.mark.parametrize("x", [[0.1, 0.7, 0.9], [0.1, 0.2, 0.3], [0.6, 0.7, 0.9]])
def test_reductions_of_bools(x):
    agrees(bools, np.array(x))


def of_an_array(x):
    return int(np.ones(2) * x)


def test_int_of_an_array_is_refused():
    with pytest.raises(CatadTypeError, match="takes a number here"):
        catad.grad(of_an_array)(1.0)
