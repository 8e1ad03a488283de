"""A list's rows are lists or arrays as the list was made, and catad now follows which: + of two
rows concatenates lists and adds arrays, * repeats a list and multiplies an array. Lists of arrays
(displays of rows, comprehensions, list(m), appends in and out of loops, slices, conditionals
whose arms agree) and lists of lists (nested displays, [list(r) for r in m], lists a function of
yours returns, appended displays) each keep their kind; where catad cannot tell (a user function's
list of arrays, arms of a conditional expression that differ), + and * of a row stay refused
(test_list_rows_and_kinds.py), as is what is made of such a row (a review found those taken for
one kind or the other), sum() of lists, and xs[i] += ... of a list's array (NumPy changes the array
in place, which another name may share: catad gave the value before the change). All the values
here were refused before. Also: len() of a list of arrays of
different shapes (or of matrices) is its count, where catad stacked it into one array first (a
ShapeError, or a refusal), and np.array of a list of numbers held as its values (L[0] + L[1] of a
list of lists argument) is the array of them, where it was refused.

Oracle: the user's function itself (values) and central differences (gradients)."""
import numpy as np
import pytest

import catad
from located import agrees, refused

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


# Where catad cannot tell a list's rows (an item assigned, arms that differ), what is made of them
# is not known either: a comprehension over them, a list or tuple of them, a function's argument.
# A review found each one taken for arrays or for lists (silent wrong values); + and * of them are
# refused, as sum() of lists is (Python's 0 + a list raises TypeError).

def arms_that_differ(x, m):
    if x > 0:
        rows = [[x, 1.0], [2.0, x]]
    else:
        rows = [m[0], m[1]]
    again = [r for r in rows]
    z = again[0] + again[1]  # ERR
    return len(z) * x + sum(z)


def appended_array_beside_lists(x, m):
    rows = [[x, 1.0]]
    rows.append(m[0])
    again = [r for r in rows]
    z = again[0] + again[0]  # ERR
    return len(z) * x + sum(z)


def rows_put_in_a_new_list(x, m):
    rows = [m[0] * x, m[1]] if x < 0 else [[x, 1.0], [2.0, x]]
    t = (rows[0], rows[1])
    again = [t[0], t[1]]
    z = again[0] + again[1]  # ERR
    return len(z) * x + np.sum(z)


def rows_appended_in_a_loop(x, m):
    rows = [m[0] * x, m[1]] if x < 0 else [[x, 1.0], [2.0, x]]
    again = []
    for r in rows:
        again.append(r)
    z = again[0] + again[1]  # ERR
    return len(z) * x + np.sum(z)


def same(r):
    return r


def through_a_function(x, m):
    rows = [m[0] * x, m[1]] if x < 0 else [[x, 1.0], [2.0, x]]
    z = same(rows[0]) + same(rows[1])  # ERR
    return np.sum(z) + len(z) * x


@pytest.mark.parametrize("f", [arms_that_differ, appended_array_beside_lists,
                               rows_put_in_a_new_list, rows_appended_in_a_loop, through_a_function],
                         ids=lambda f: f.__name__)
def test_rows_of_an_unknown_kind_refused(f):
    refused(f, (0.7, M), "an item of a list that holds lists or arrays")


def row_grown_in_place(x, m):
    rows = [[x, 1.0], [2.0, x]]
    rows[0] *= 2  # ERR
    return sum(rows[0]) + len(rows[0])


def sum_of_lists(x, m):
    rows = [[x, 1.0], [2.0, x]]
    return np.sum(sum(rows))  # ERR


def sum_of_a_generator_of_lists(x, m):
    rows = [[x, 1.0], [2.0, x]]
    return np.sum(sum(r + r for r in rows))  # ERR


def test_row_of_lists_grown_in_place_refused():
    refused(row_grown_in_place, (0.7, M), "longer in place")


@pytest.mark.parametrize("f", [sum_of_lists, sum_of_a_generator_of_lists], ids=lambda f: f.__name__)
def test_sum_of_lists_refused(f):
    with pytest.raises(TypeError):
        f(0.7, M)
    refused(f, (0.7, M), "0 + a list raises TypeError")


def python_floats_of_rows(x, m):
    rows = [r for r in [[x, 1.0], [2.0, x]]]
    return x / (rows[0][1] - rows[0][1])  # Python's floats: ZeroDivisionError


def test_rows_keep_pythons_floats():
    with pytest.raises(ZeroDivisionError):
        python_floats_of_rows(0.7, M)
    with pytest.raises(ZeroDivisionError):
        catad.grad(python_floats_of_rows)(0.7, M)


def items_assigned(x, m):
    rows = [[x, 1.0], [2.0, x]]
    rows[0] = [3.0, x]  # a list for a list: still a list of lists
    again = [r[:] for r in rows]
    arrays = [m[0] * x, m[1]]
    arrays[0] = m[2] * x  # an array for an array
    arrays[1] = arrays[0] + arrays[1]
    z = again[0] + again[1]
    return len(z) * x + sum(z) + np.sum(arrays[0] * arrays[1])


def test_items_assigned_keep_the_kind():
    agrees(items_assigned, 0.7, M)


def array_changed_in_place(x, m):
    a = m[0] * x
    rows = [a, m[1] * 1.0]
    rows[0] += rows[1]  # ERR
    return np.sum(a)


def test_an_array_of_a_list_changed_in_place_refused():
    # Python changes the array itself, which `a` (or an argument, for a view of it) sees too
    refused(array_changed_in_place, (0.7, M), "in place")
