"""A Python list stays a list, and its Python numbers stay Python's, through an item assignment, a
loop that carries it and an if that joins it. Each of these made catad forget one or the other:
a list forgotten is a NumPy array, whose + adds where a list's joins (lst + [3.0] had two
elements, not three); a Python float forgotten is NumPy's, whose 1.0 / 0.0 is inf where Python's
raises ZeroDivisionError. Both were wrong values, returned silently (session 21)."""
import numpy as np
import pytest

import catad
from located import agrees


def assigned_then_joined(x):
    lst = [x, 2.0]
    lst[0] = 5.0
    y = lst + [3.0]
    return x * len(y) + y[2]


def rebound_in_a_loop(x):
    lst = [x, 2.0]
    for i in range(2):
        lst = lst
    y = lst + [3.0]
    return x * len(y) + y[0]


def assigned_in_a_loop(x):
    lst = [x, 2.0]
    for i in range(2):
        lst[i] = lst[i] * 2.0
    y = lst + [3.0]
    return x * len(y) + y[0]


def assigned_in_an_if(x):
    lst = [x, 2.0]
    if x > 0:
        lst[0] = 1.0
    y = lst + [3.0]
    return x * len(y) + y[0]


def made_in_a_loop(x):
    for i in range(3):
        c = [x, x * i]
    return np.sum(np.array(c + c))


@pytest.mark.parametrize("f", [assigned_then_joined, rebound_in_a_loop, assigned_in_a_loop, assigned_in_an_if,
                               made_in_a_loop], ids=lambda f: f.__name__)
def test_a_list_stays_a_list(f):
    agrees(f, 0.5)


def item_assigned(x, v):
    lst = [1.0, 2.0]
    lst[0] = 0.0
    return x + 1.0 / lst[0]


def item_assigned_into_numpy_items(x, v):
    lst = [v[0], v[1]]
    lst[0] = 0.0
    return x + 1.0 / lst[0]


def last_item_assigned_an_int(x, v):
    lst = [1.0, v[1]]
    lst[-1] = 0
    return x + 1.0 / lst[1]


def item_added_to(x, v):
    lst = [0.0, v[1]]
    lst.append(v[0])
    lst[0] += 0.0
    return x + 1.0 / lst[0]


def slice_assigned(x, v):
    lst = [1.0, 2.0]
    lst[:] = [0.0, 0.0]
    return x + 1.0 / lst[1]


def assigned_in_a_loop_py(x, v):
    lst = [x, 2.0]
    for i in range(2):
        lst[i] = 0.0
    return x + 1.0 / lst[1]


def assigned_in_an_if_py(x, v):
    lst = [x, 2.0]
    if x > 0:
        lst[1] = 0.0
    return x + 1.0 / lst[1]


def appended_in_an_if(x, v):
    lst = [0.0, 2.0]
    if x > 0:
        lst.append(1.0)
    return x + 1.0 / lst[0]


def appended_in_a_loop(x, v):
    lst = [0.0, 2.0]
    for i in range(2):
        lst.append(2.0)
    return x + 1.0 / lst[0]


PYTHON_ZEROS = [item_assigned, item_assigned_into_numpy_items, last_item_assigned_an_int, item_added_to,
                slice_assigned, assigned_in_a_loop_py, assigned_in_an_if_py, appended_in_an_if, appended_in_a_loop]


def raises_as_python(f, v):
    """f(0.5, v) raises ZeroDivisionError, and so does catad, with a CatadError that is one."""
    with pytest.raises(ZeroDivisionError):
        f(0.5, v)
    with pytest.raises(ZeroDivisionError) as info:
        catad.value_and_grad(f)(0.5, v)
    assert isinstance(info.value, catad.CatadError)


@pytest.mark.parametrize("f", PYTHON_ZEROS, ids=lambda f: f.__name__)
def test_python_s_zero_still_raises(f):
    raises_as_python(f, np.array([0.0, 2.0]))


def numpy_item_stays_numpy(x, v):
    lst = [1.0, 2.0]
    lst[0] = v[0]
    return x + 1.0 / lst[0]


def test_numpy_s_zero_is_inf():
    v = np.array([0.0, 2.0])
    with np.errstate(divide="ignore"):
        assert numpy_item_stays_numpy(0.5, v) == np.inf
        assert catad.value_and_grad(numpy_item_stays_numpy)(0.5, v) == (np.inf, 1.0)


def list_then_array(x, n):
    lst = [x, 2.0]
    for i in range(n):
        lst = np.array(lst) * 2.0
    return np.sum(lst + lst)


def test_a_list_that_a_loop_may_make_an_array_is_refused():
    with pytest.raises(catad.CatadError, match="a list before the loop and an array after its body"):
        catad.grad(list_then_array)(0.5, 2)


def list_or_array(x, c):
    if c > 0:
        y = [x, 1.0]
    else:
        y = np.array([x, 1.0])
    return x * len(y + [2.0])


def list_or_array_unread(x, c):
    if c > 0:
        y = [x, 1.0]
    else:
        y = np.array([x, 1.0])
    return x * 2.0


def test_a_list_after_one_branch_and_an_array_after_the_other_is_refused_where_read():
    """len(y + [2.0]) is 3 for the list and 2 for the array: catad took it for a list after both
    branches (1.5 where Python gives 1.0 for c <= 0)."""
    for c in (1.0, -1.0):
        with pytest.raises(catad.CatadError, match="a list after one branch of the if statement"):
            catad.value_and_grad(list_or_array)(0.5, c)
        assert catad.value_and_grad(list_or_array_unread)(0.5, c) == (1.0, 2.0)


def max_of_joined(x, v):
    return max([x for e in v] + [0.5]) / len(v)


def joined_displays(x, v):
    a = [v[0], 0.0] + [x]
    return 1.0 / a[1] + x


def joined_display_after(x, v):
    a = [v[0]] + [0.0, x]
    return 1.0 / a[1] + x


@pytest.mark.parametrize("f", [max_of_joined, joined_displays, joined_display_after], ids=lambda f: f.__name__)
def test_joined_lists_keep_python_s_numbers(f):
    """xs + ys made a list none of whose numbers were Python's: max([x for e in v] + [0.5]) / len(v)
    of an empty v was inf where Python raises (the loop fuzzer, seed 40524)."""
    raises_as_python(f, np.array([]) if f is max_of_joined else np.array([0.0, 2.0]))


def joined_numpy_item(x, v):
    a = [1.0, 0.0] + [v[1]]
    return 1.0 / a[2] + x


def test_joined_lists_keep_numpy_s_numbers():
    v = np.array([0.0, 0.0])
    with np.errstate(divide="ignore"):
        assert joined_numpy_item(0.5, v) == np.inf
        assert catad.value_and_grad(joined_numpy_item)(0.5, v) == (np.inf, 1.0)


# A list of a length known only at run time holds NumPy's numbers in one part and Python's in
# another: [e for e in v] + [c] holds v's NumPy floats, then Python's float c. Where its Python
# numbers are is known by their place (from its start or its end), not by position alone: an
# item read at a place known only at run time is Python's where that place is one of theirs.
# catad took all its items for NumPy's: 1.0 / a[-1] of a Python 0.0 was inf where Python raises
# ZeroDivisionError (session 22). Each function divides by c (a Python float) read from such a list.

def last_of_comprehension_then_display(x, v, c, k):
    a = [e for e in v] + [c]
    return x * (1.0 / a[-1])


def at_len(x, v, c, k):
    a = [e for e in v] + [c]
    return x * (1.0 / a[len(v)])


def at_run_time_index(x, v, c, k):
    a = [e for e in v] + [c, 1.0]
    return x * (1.0 / a[k])


def first_of_display_then_comprehension(x, v, c, k):
    a = [c] + [e for e in v]
    return x * (1.0 / a[0])


def appended_to_comprehension(x, v, c, k):
    a = [e for e in v]
    a.append(c)
    return x * (1.0 / a[-1])


def looped_over(x, v, c, k):
    a = [e for e in v] + [c]
    s = x
    for e in a:
        s = s + x / e
    return s


def enumerated(x, v, c, k):
    a = [e for e in v] + [c]
    s = x
    for j, e in enumerate(a):
        s = s + j * x / e
    return s


def comprehension_over(x, v, c, k):
    a = [e for e in v] + [c]
    return sum([x / e for e in a])


def zipped(x, v, c, k):
    a = [e for e in v] + [c]
    s = x
    for e, w in zip(a, [2.0 * e for e in v] + [1.0]):
        s = s + x * w / e
    return s


LAID_OUT = [last_of_comprehension_then_display, at_len, at_run_time_index, first_of_display_then_comprehension,
            appended_to_comprehension, looped_over, enumerated, comprehension_over, zipped]


@pytest.mark.parametrize("f", LAID_OUT, ids=lambda f: f.__name__)
def test_python_s_numbers_by_their_place_raise_as_python(f):
    v = np.array([1.0, 2.0])
    with pytest.raises(ZeroDivisionError):
        f(0.5, v, 0.0, 2)
    with pytest.raises(ZeroDivisionError) as info:
        catad.value_and_grad(f)(0.5, v, 0.0, 2)
    assert isinstance(info.value, catad.CatadError)


@pytest.mark.parametrize("f", LAID_OUT, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1, 3])
def test_lists_laid_out_so_agree_where_nothing_raises(f, n):
    """With c not 0, values and derivatives are Python's (an empty v too, where Python's items
    are all there is)."""
    agrees(f, 0.5, np.linspace(0.5, 1.5, n), 2.0, n)


def numpy_zero_before_python_s(x, v, k):
    a = [e for e in v] + [2.0]
    s = x
    for e in a:
        s = s + 1.0 / e
    return s + x / a[k] + x / a[0]


def test_numpy_s_numbers_before_python_s_stay_numpy_s():
    """A NumPy zero before Python's 2.0: inf, as Python gives."""
    v = np.array([0.0, 2.0])
    with np.errstate(divide="ignore"):
        for k in (0, 1, -3):
            assert numpy_zero_before_python_s(0.5, v, k) == np.inf
            assert catad.value_and_grad(numpy_zero_before_python_s)(0.5, v, k)[0] == np.inf


def sliced_from(x, v, c, k):
    a = [e for e in v] + [c]
    s = x
    for e in a[1:]:
        s = s + x / e
    return s


def sliced_to(x, v, c, k):
    a = [c] + [e for e in v]
    return x / a[:2][0]


def sliced_from_run_time(x, v, c, k):
    a = [e for e in v] + [c]
    return x / a[k - 1:][-1]


@pytest.mark.parametrize("f", [sliced_from, sliced_to, sliced_from_run_time], ids=lambda f: f.__name__)
def test_a_slice_keeps_where_python_s_numbers_are(f):
    v = np.array([1.0, 2.0])
    with pytest.raises(ZeroDivisionError):
        f(0.5, v, 0.0, 2)
    with pytest.raises(ZeroDivisionError):
        catad.value_and_grad(f)(0.5, v, 0.0, 2)
    agrees(f, 0.5, v, 2.0, 2)


def both_kinds_in_the_middle(x, v, c, k):
    a = [e for e in v] + [c] + [e for e in v]
    return x / a[k]


def step_slice(x, v, c, k):
    a = [e for e in v] + [c]
    return x / a[::2][k - 1]


def not_named(x, v, c, k):
    return x / ([e for e in v] + [c])[k]


def test_an_item_of_a_list_not_named_is_refused():
    """(not_named's item at k would be Python's where k is the last place: a condition on k that
    cannot be read where the list is not named.)"""
    with pytest.raises(catad.CatadError, match="known only at run time"):
        catad.value_and_grad(not_named)(0.5, np.array([1.0, 2.0]), 0.0, 2)


@pytest.mark.parametrize("f", [both_kinds_in_the_middle, step_slice], ids=lambda f: f.__name__)
def test_python_s_numbers_at_places_not_followed_are_refused(f):
    """Python's c between two runs of NumPy's of lengths known only at run time: which an item
    read at k is, catad cannot tell while compiling (1.0 / a[2] raises for c = 0.0, 1.0 / a[1]
    of NumPy's 0.0 is inf). catad took them all for NumPy's; then refused them all while
    compiling; now refuses when the function runs, where Python's would raise (its kind is
    undecided), and gives the value where neither kind raises."""
    with pytest.raises(catad.CatadError, match="cannot tell whether Python raises"):
        catad.value_and_grad(f)(0.5, np.array([1.0, 2.0]), 0.0, 2)
    agrees(f, 0.5, np.array([1.0, 2.0]), 3.0, 2)
