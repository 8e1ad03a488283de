"""sum(iterable, start) and sum(iterable, start=...): start + the items (a tuple's or a list
display's added to start one by one, in Python's order; an array's, a list's or a generator's
summed first, in NumPy's order as sum(xs) is: docs/subset.rst), held against Python's values and
central differences, and Python's errors."""
import numpy as np
import pytest

import catad
from located import agrees, raises_as_python


def display(x, v):
    return sum([x, 2.0, x * x], 1.0)


def generator(x, v):
    return sum((e * x for e in v), 0.5)


def array_keyword(x, v):
    return sum(v * x, start=2.0)


def arrays_from_zeros(x, v):
    return np.sum(sum([v * x, v, v * v], np.zeros(3)) ** 2)


def filtered_from_a_float(x, v):
    return sum((e * x for e in v if e > 1.5), x) * 3.0


def tuple_from_x(x, v):
    return sum((x, x * v[0]), start=x * x)


@pytest.mark.parametrize("f", [display, generator, array_keyword, arrays_from_zeros, filtered_from_a_float,
                               tuple_from_x], ids=lambda f: f.__name__)
def test_values_as_python(f):
    agrees(f, 1.5, np.array([1.0, 2.0, 3.0]), argnums=(0, 1))


def nothing_passes(x, v):
    return x / sum((e for e in v if e > 1e9), 0.0)


def over_a_python_start(x, v):
    return sum((x, x * x), x) / 0.0


@pytest.mark.parametrize("f", [nothing_passes, over_a_python_start], ids=lambda f: f.__name__)
def test_python_numbers_raise_as_python(f):
    raises_as_python(f, 1.5, np.array([1.0, 2.0, 3.0]))


def test_no_pass_sums_to_start():
    value, grad = catad.value_and_grad(filtered_from_a_float)(1.5, np.array([0.5, 1.0]))
    assert (value, grad) == (4.5, 3.0)
