"""A list's rows are lists or arrays as the list was made, and catad now follows which: + of two
rows concatenates lists and adds arrays, * repeats a list and multiplies an array. Lists of arrays
(displays of rows, comprehensions, list(m), appends in and out of loops, slices, conditionals
whose arms agree) and lists of lists (nested displays, [list(r) for r in m], lists a function of
yours returns, appended displays) each keep their kind; where catad cannot tell (a user function's
list of arrays, arms of a conditional expression that differ), + and * of a row stay refused
(test_list_rows_and_kinds.py). All were refused before. Also: len() of a list of arrays of
different shapes (or of matrices) is its count, where catad stacked it into one array first (a
ShapeError, or a refusal), and np.array of a list of numbers held as its values (L[0] + L[1] of a
list of lists argument) is the array of them, where it was refused.

Oracle: the user's function itself (values) and central differences (gradients)."""
import numpy as np
import pytest

import catad
from located import agrees

M = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def display_of_arrays(x, m):
    items = [m[0] * x, m[1]]
    a, b = items
    return np.sum(items[0] + items[1]) + np.sum(items[1] * 2) + np.sum(a * b)


def comprehension_of_arrays(x, m):
    items = [np.sin(r * x) for r in m]
    return np.sum(items[0] * items[2] + items[1])


def list_of_a_matrix(x, m):
    items = list(m * x)
    return np.sum(items[0] * items[2])


def appended_arrays(x, m):
    items = []
    for r in m:
        if r[0] > 2.0:
            items.append(r * x)
    items.append(m[0])
    return np.sum(items[0] * items[1] + items[2])


def extended_by_rows(x, m):
    items = []
    items.extend(m * x)
    return np.sum(items[0] + items[1])


def concatenated_and_repeated(x, m):
    items = [m[0] * x, m[1]] + [m[2]]
    twice = [m[0] * x] * 3
    return np.sum(items[2] * items[0]) + np.sum(twice[2] + twice[1])


def sliced_and_looped(x, m):
    items = [r * x for r in m][1:]
    acc = items[0]
    for it in items[1:]:
        acc = acc + it
    out = 0.0
    for k, r in enumerate(items):
        out = out + np.sum(r * r) * k
    return np.sum(acc) + out + np.sum([r + r for r in items][1])


def both_arms_arrays(x, m):
    if x > 0:
        items = [m[0] * x, m[1]]
    else:
        items = [m[1], m[2] * x]
    return np.sum(items[0] + items[1])


def nested_display(x, m):
    rows = [[x, 1.0], [2.0, x]]
    return sum(rows[0] + rows[1]) + sum(rows[1] * 2)


def lists_of_rows(x, m):
    rows = [list(r * x) for r in m]
    return sum(rows[0] + rows[2])


def mk(r):
    return list(r)


def lists_a_function_makes(x, m):
    rows = [mk(r * x) for r in m]
    first = []
    first.append(mk(m[0] * x))
    return sum(rows[0] + rows[1]) + sum(first[0] + first[0])


def appended_displays(x, m):
    rows = [[x * 1.0, 2.0]]
    rows.append([3.0, x])
    more = []
    more.append([x, 1.0])
    return sum(rows[0] + rows[1]) + sum(more[0] + more[0])


def both_arms_lists(x, m):
    rows = [[x, 1.0], [2.0, x]]
    if x > 0:
        rows = [[x, 3.0], [2.0, x]]
    return sum(rows[0] + rows[1])


def list_of_a_list(x, m):
    rows = list([[x, 1.0], [2.0, x]])
    copies = [r[::-1] for r in rows]
    return sum(rows[0] + rows[1]) + sum(copies[0] + copies[1])


def add(items):
    return items[0] + items[1]


def through_functions_of_yours(x, m):
    a = add([m[0] * x, m[1]])
    b = add([[x, 1.0], [2.0, x]])
    g = lambda items: items[0] * 2
    return np.sum(a) + sum(b) + sum(g([[x, 1.0], [2.0, x]])) + np.sum(g([m[0] * x, m[1]]))


def made_by_a_function_of_yours(x, m):
    items = _pair_of_rows(m, x)
    return np.sum(items[0] + items[1])


def _pair_of_rows(m, x):
    return [m[0] * x, m[1]]


def conditional_of_one_kind(x, m):
    items = [m[0] * x, m[1]] if x > 0 else [m[1], m[0] * x]
    return np.sum(items[0] + items[1])


@pytest.mark.parametrize("f", [through_functions_of_yours, made_by_a_function_of_yours, conditional_of_one_kind,
                               display_of_arrays, comprehension_of_arrays, list_of_a_matrix, appended_arrays,
                               extended_by_rows, concatenated_and_repeated, sliced_and_looped, both_arms_arrays,
                               nested_display, lists_of_rows, lists_a_function_makes, appended_displays,
                               both_arms_lists, list_of_a_list], ids=lambda f: f.__name__)
def test_rows_as_python_has_them(f):
    agrees(f, 0.9, M)


def layers(x, ws, bs):
    h = x * np.ones(3)
    for k in range(len(ws)):
        h = np.tanh(ws[k] @ h + bs[k])
    return np.sum(h)


def lengths(x, items):
    return x * len(items) + np.sum(items[0]) * x


def concatenated_argument(x, rows):
    return np.sum(np.array(rows[0] + rows[1])) * x + np.sum(np.array(rows[0] * 2)) * x


def in_x(f, x, *rest, h=1e-6):
    """catad's value and derivative in x (the first argument; the others lists) are f's own
    value and its central difference."""
    value, grad = catad.value_and_grad(f)(x, *rest)
    assert value == pytest.approx(f(x, *rest), rel=1e-12)
    assert grad == pytest.approx((f(x + h, *rest) - f(x - h, *rest)) / (2 * h), rel=1e-6)


def test_len_of_a_list_of_matrices():
    rng = np.random.default_rng(3)
    ws = [rng.normal(size=(3, 3)), rng.normal(size=(2, 3))]
    bs = [rng.normal(size=3), rng.normal(size=2)]
    in_x(layers, 0.7, ws, bs)


@pytest.mark.parametrize("items", [[np.ones(2), np.ones(3)], [np.ones((2, 2)), np.ones(3)]], ids=["vectors", "matrix"])
def test_len_of_a_list_of_arrays_of_different_shapes(items):
    in_x(lengths, 1.5, items)


@pytest.mark.parametrize("rows", [[[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0]]], ids=["square", "ragged"])
def test_array_of_a_concatenated_list_argument(rows):
    in_x(concatenated_argument, 1.5, rows)
