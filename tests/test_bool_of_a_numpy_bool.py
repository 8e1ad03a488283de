"""bool(c) of NumPy's bool c is Python's bool, a value of its own: c stays NumPy's. Marks of the kind
of number go by the term's identity, and bool() marked c itself, so `b = bool(c)` made a later
c + c Python's 1 + 1 = 2 where NumPy's True + True is True (found by differential fuzzing,
session 35)."""
import numpy as np
import pytest

import catad


def bool_kept_aside(x):
    c = x[0] > 0.5
    b = bool(c)
    return (c + c) * 1.0 + 0.0 * b


def bool_added_to_its_bool(x):
    c = x[0] > 0.5
    return (bool(c) + c) * 1.0 + bool(x[1] > 0) * x[1]


def bool_of_python_bools_and_numbers(x):
    c = len(x) > 1
    return (bool(c) + c) * x[0] + bool(x[0]) * x[1] + bool(len(x)) * 2.0


@pytest.mark.parametrize("f", [bool_kept_aside, bool_added_to_its_bool, bool_of_python_bools_and_numbers],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [[1.0, 2.0], [0.0, -1.0], [0.75, 0.25]], ids=str)
def test_as_python_computes_it(f, x):
    x = np.array(x)
    value, grad = catad.value_and_grad(f)(x)
    assert value == f(x)
    h = 1e-6
    np.testing.assert_allclose(grad, [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(2)], atol=1e-8)
