"""Two silent wrong answers a review found on main, both older than its list() and reduce:

- An item of a list that holds arrays ([r for r in m], [m[0], m[1]], rows appended) was taken for
  a list, so items[0] + items[1] concatenated (a value of 2.7 where Python's arrays add to 9.0).
  + and * of such an item were refused then; now a list remembers how it was made (of arrays or of
  lists: test_list_row_kinds.py), and these add as Python adds. Where catad does not know (a list
  chosen by a conditional expression between a list of lists and one of arrays), + and * of an
  item are still refused.
- A slice of a list holding Python's own numbers ([x, 0.0][1:]) lost their kind: x / r[0] gave inf
  where Python raises ZeroDivisionError.

Oracle: the user's function itself."""
import numpy as np
import pytest

import catad
from located import agrees, refused

M = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def rows_of_a_comprehension(x, m):
    items = [r for r in m * x]
    acc = items[0] + items[1]
    return acc[0] + acc[1]


def rows_of_a_display(x, m):
    items = [m[0] * x, m[1] * x]
    acc = items[0] * 2
    return acc[0]


def rows_appended_in_a_loop(x, m):
    items = []
    for k in range(2):
        items.append(m[k] * x)
    acc = items[0]
    for it in items[1:]:
        acc = acc + it
    return acc[0] + acc[1]


@pytest.mark.parametrize("f", [rows_of_a_comprehension, rows_of_a_display, rows_appended_in_a_loop])
def test_adding_rows_of_a_list_of_arrays(f):
    agrees(f, 0.9, M)


def rows_of_either_kind(x, m):
    items = [[x, 1.0], [2.0, x]] if x > 0 else [m[1], m[0] * x]
    return np.sum(np.array(items[0] + items[1]))  # ERR


def test_adding_rows_of_a_list_of_either_kind_refused():
    refused(rows_of_either_kind, (0.9, M), "an item of a list that holds lists or arrays")


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
