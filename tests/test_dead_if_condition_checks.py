"""An if statement whose arms change nothing read later still evaluates its condition, whose
checks raise as Python does: with `0.1 ** 2 > w[7]` (a power before the index keeps the index's
check inside the condition) the whole statement was dropped and catad returned a value where
Python raises IndexError (or ValueError for operands of two shapes). Found by the fuzzL
differential fuzzer."""
import numpy as np
import pytest

import catad
from catad import BoundsError, ShapeError


def index_in_condition(w, v):
    if 0.1 ** 2 > w[7]:
        pass
    return np.sum(w)


def shapes_in_condition(w, v):
    if 0.1 ** 2 > np.sum(w + v):
        a = 3.0
    return np.sum(w)


@pytest.mark.parametrize("f, error, catad_error", [(index_in_condition, IndexError, BoundsError),
                                                   (shapes_in_condition, ValueError, ShapeError)])
def test_the_condition_raises(f, error, catad_error):
    w, v = np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0])
    with pytest.raises(error):
        f(w, v)
    with pytest.raises(catad_error):
        catad.grad(f)(w, v)


def test_without_an_error_nothing_changes():
    w = np.arange(8.0)
    assert catad.value_and_grad(index_in_condition)(w, w) == (28.0, pytest.approx(np.ones(8)))
