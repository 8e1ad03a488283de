"""math.fmod(x, y) of numbers: C's fmod as Python's float (the sign of x, x itself for an
infinite y), CPython's ValueError (math domain error) where that is NaN of operands that are not
(y == 0, x infinite), and its partials 1 and -trunc(x / y). Compared with the function itself
and central differences."""
import math

import numpy as np
import pytest

import catad
from located import agrees, raises_like_python, outcome as python


def scaled(x, y):
    return math.fmod(x, y) * 2.0 + x


def divided_by(x, y):
    return 1.0 / math.fmod(x, 1.0)


def of_an_int(x, y):
    return math.fmod(len([x]) + 4, y) + y


def summed(x, y):
    return sum(math.fmod(e, y) for e in [x, 2 * x, -x])


POINTS = [(5.5, 2.0), (-5.5, 2.0), (5.5, -2.0), (1.0, 0.0), (math.inf, 2.0), (3.0, math.inf), (math.nan, 0.0),
          (2.0, 1.0), (-0.0, 1.0), (7.3, 0.7)]
SMOOTH = {(5.5, 2.0), (-5.5, 2.0), (5.5, -2.0), (7.3, 0.7)}  # off every jump of each function's fmods



@pytest.mark.parametrize("f", [scaled, divided_by, of_an_int, summed], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x, y", POINTS)
def test_as_python(f, x, y):
    want = python(f, x, y)
    if raises_like_python(want, f, x, y):
        return
    value = catad.value_and_grad(f, argnums=(0, 1))(x, y)[0]
    assert value == want or (math.isnan(value) and math.isnan(want))
    assert math.isnan(want) or math.copysign(1.0, value) == math.copysign(1.0, want)
    if (x, y) in SMOOTH:
        agrees(f, x, y, argnums=(0, 1))


def test_the_partials():
    assert catad.grad(scaled, argnums=(0, 1))(5.5, 2.0) == (3.0, -4.0)
    assert catad.grad(scaled, argnums=(0, 1))(-5.5, 2.0) == (3.0, 4.0)


def test_an_array_is_refused():
    def of_array(v):
        return math.fmod(v, 2.0)
    with pytest.raises(catad.CatadError, match="np.fmod"):
        catad.grad(of_array)(np.ones(2))
