"""Two silent wrong answers a review found on main, both older than its list() and reduce:

- An item of a list that holds arrays ([r for r in m], [m[0], m[1]], rows appended) was taken for
  a list, so items[0] + items[1] concatenated (a value of 2.7 where Python's arrays add to 9.0).
  catad does not tell a list of arrays from a list of lists, so + and * of such an item (where
  the two differ) are refused now.
- A slice of a list holding Python's own numbers ([x, 0.0][1:]) lost their kind: x / r[0] gave inf
  where Python raises ZeroDivisionError.

Oracle: the user's function itself. Every test fails on main."""
import numpy as np
import pytest

import catad
from located import refused

M = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def rows_of_a_comprehension(x, m):
    items = [r for r in m * x]
    acc = items[0] + items[1]  # ERR
    return acc[0] + acc[1]


def rows_of_a_display(x, m):
    items = [m[0] * x, m[1] * x]
    acc = items[0] * 2  # ERR
    return acc[0]


def rows_appended_in_a_loop(x, m):
    items = []
    for k in range(2):
        items.append(m[k] * x)
    acc = items[0]
    for it in items[1:]:
        acc = acc + it  # ERR
    return acc[0] + acc[1]


@pytest.mark.parametrize("f", [rows_of_a_comprehension, rows_of_a_display, rows_appended_in_a_loop])
def test_adding_rows_of_a_list_refused(f):
    refused(f, (0.9, M), "an item of a list that holds lists or arrays")


def sliced(x):
    items = [x, 0.0]
    r = items[1:]
    return x / r[0]


def sliced_all_python(x):
    items = [x, 0.0, 2.0]
    return x / items[:2][1]


@pytest.mark.parametrize("f", [sliced, sliced_all_python])
def test_a_slice_keeps_pythons_numbers(f):
    with pytest.raises(ZeroDivisionError):
        f(0.9)
    with pytest.raises(ZeroDivisionError):
        catad.grad(f)(0.9)
