"""The arguments of a library call are evaluated left to right, and the first that raises is what
Python raises. catad lowered an argument that subscripts a local value (v[0], to make a list
given to NumPy an array) before the others, so its bounds check ran first:
np.where(1.0 / len(v) > x, np.cos(x), v[0]) of an empty v raised BoundsError where Python
raises ZeroDivisionError. Found by the loop fuzzer (session 20, seeds 33946 and 34125)."""
import numpy as np
import pytest

import catad
from located import agrees


def divides_then_reads(v, x):
    return np.where(1.0 / len(v) > x, np.cos(x), v[0])


def reads_then_divides(v, x):
    return np.where(v[0] > x, 1.0 / len(v), np.cos(x))


def divides_then_reads_in_loop(v, x):
    k = 0
    while k < 2:
        k += 1
        x += np.where(1.0 / len(v) > x, np.cos(x), v[0]) + np.maximum(x * x, v[-1])
    return x


def first_raised(f, *args):
    try:
        f(*args)
    except Exception as e:
        return e
    raise AssertionError("no error")


@pytest.mark.parametrize("f", [divides_then_reads, reads_then_divides, divides_then_reads_in_loop],
                         ids=lambda f: f.__name__)
def test_the_first_argument_that_raises(f):
    v = np.array([])
    want = type(first_raised(f, v, 0.25))
    for call in (lambda: catad.value_and_grad(f, argnums=1)(v, 0.25), lambda: catad.jvp(f, (v, 0.25), (v, 1.0))):
        got = first_raised(call)
        assert isinstance(got, catad.CatadError) and isinstance(got, want), (want, got)


@pytest.mark.parametrize("f", [divides_then_reads, reads_then_divides, divides_then_reads_in_loop],
                         ids=lambda f: f.__name__)
def test_values(f):
    agrees(f, np.array([0.3, -0.8, 1.1]), 0.25, argnums=(0, 1))
