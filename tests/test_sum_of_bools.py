"""sum() of bools counts them, as Python adds them to its int 0: sum(e > 0 for e in x), sum of a
list comprehension of them, sum(x > 0) of a bool array. NumPy's bools add as NumPy's int (np.int64),
Python's as Python's int, and the count of nothing is Python's 0 (1.0 / it raises). catad refused
them with its own typing message, "sums a Vec of Floats, Ints or Vecs of them, got Vec Bool" (the
third most common refusal the differential fuzzer of session 35 met)."""
import numpy as np
import pytest

import catad
from located import raises_as_python


def generator(x):
    return sum(e > 0 for e in x) * x[-1]


def comprehension(x):
    return sum([e > 0 for e in x]) + x[-1]


def mask(x):
    return x[-1] * sum(x > 0)


def python_bools(x):
    return sum(k > 0 for k in range(len(x))) * x[-1]


def divided_by_numpy_count(x):
    return x[-1] / sum(x > 0.25)  # np.int64(0): inf, as NumPy's


def divided_by_count(x):
    n = sum(e > 10.0 for e in x)
    return 1.0 / n


FS = [generator, comprehension, mask, python_bools, divided_by_numpy_count]


@pytest.mark.parametrize("f", FS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [[0.5], [0.5, -2.0], [-0.5, -2.0, 0.125]], ids=str)
def test_counts_as_python(f, x):
    x = np.array(x)
    with np.errstate(divide="ignore"):
        want = f(x)
    value, grad = catad.value_and_grad(f)(x)
    assert value == want
    if np.isfinite(want):
        h = 1e-6
        np.testing.assert_allclose(grad, [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))],
                                   rtol=1e-6, atol=1e-9)


def test_the_count_of_nothing_is_python_zero():
    raises_as_python(divided_by_count, np.array([]))
    x = np.array([0.5, -2.0])  # NumPy's np.int64(0): inf
    with np.errstate(divide="ignore"):
        assert catad.value_and_grad(divided_by_count)(x)[0] == divided_by_count(x) == np.inf
