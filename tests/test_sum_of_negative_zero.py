"""NumPy's sum adds from 0.0, so the sum (and mean) of -0.0 is 0.0 and 1.0 / np.sum(x) is inf:
a number summed (np.sum(x), np.mean(x), np.sum(v[0])) was x itself, and a sum of a one-element
array made of a number (np.sum(np.amax(v, axis=0, keepdims=True))) x times 1, both -0.0. Also
np.sum and np.prod of a bool number are NumPy's int. Found by the fuzzN differential fuzzer."""
import numpy as np
import pytest

import catad


def summed(x):
    return 1.0 / np.sum(x)


def averaged(x):
    return 1.0 / np.mean(x * 1.0)


def element(v):
    return 1.0 / np.sum(v[0])


def kept(v):
    return 1.0 / np.sum(np.round(np.amax(v, axis=0, keepdims=True), 0))


@pytest.mark.parametrize("f, arg", [(summed, -0.0), (summed, np.float64(-0.0)), (averaged, np.float64(-0.0)),
                                    (element, np.array([-0.0, 1.0])), (kept, np.array([-0.3, -1.0]))],
                         ids=lambda v: getattr(v, "__name__", repr(v)))
def test_a_sum_of_negative_zero_is_positive_zero(f, arg):
    with np.errstate(all="ignore"):
        assert catad.value_and_grad(f)(arg)[0] == f(arg) == np.inf


def flags(x):
    b = x > 0
    return np.sum(b) * x + np.prod(b) * x + np.mean(b) * x + np.max(b) * x


def test_sum_of_a_bool_number_is_an_int():
    assert catad.value_and_grad(flags)(1.5) == (flags(1.5), 4.0)
    assert catad.value_and_grad(flags)(-1.5) == (flags(-1.5), 0.0)
