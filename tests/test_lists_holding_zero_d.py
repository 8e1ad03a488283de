"""A list holding an array of no axes (np.where of numbers) among its items: round() of such an
item raises TypeError in Python (ndarray has no __round__). catad's lists hold numbers, and an item
read back was taken for a number: round() gave a value (fuzzer seed 3245058, also on the main of
before this session). Now an item of such a list (a display, a comprehension, appends, an item
assigned, a helper's returned list) may be such an array: round() of it is refused, as round() of
np.where's result itself is. Each function is called itself."""
import math

import numpy as np
import pytest

import catad
from located import agrees, outcome


def helper_s_list(a, b):
    return [b, np.where(a > 0.0, 0.25, 0.25)]


def returned_by_a_helper(x, v):
    r = round(helper_s_list(v[0], v[0])[1], 2)
    return x * r


def display(x, v):
    l = [x, np.where(v[0] > 0.0, 0.25, 0.5)]
    return round(l[1]) * x


def comprehension(x, v):
    l = [np.where(e > 0.0, 0.25, 0.5) for e in v]
    return round(l[1]) * x


def appended(x, v):
    l = []
    for e in v:
        l.append(np.where(e > 0.0, 0.25, 0.5))
    return round(l[0]) * x


def in_a_loop_over_it(x, v):
    l = [x, np.where(v[0] > 0.0, 0.25, 0.5)]
    return sum(round(e) for e in l) * x


@pytest.mark.parametrize("f", [returned_by_a_helper, display, comprehension, appended, in_a_loop_over_it],
                         ids=lambda f: f.__name__)
def test_round_of_an_item_is_refused(f):
    v = np.array([-0.393, 2.396])
    assert outcome(f, 2.1, v)[0] is TypeError
    with pytest.raises(catad.CatadError, match="array of no axes"):
        catad.value_and_grad(f)(2.1, v)


def arithmetic_of_the_items(x, v):
    l = [x, np.where(v[0] > 0.0, 0.25, 0.5)]
    return (l[0] + l[1]) * x + sum(e * x for e in l)


def test_other_uses_of_the_items():
    agrees(arithmetic_of_the_items, 2.1, np.array([-0.393, 2.396]))


# An array of no axes on one branch of a conditional expression (fuzzer seed 3251967): math.trunc
# or round() of the result raises TypeError where that branch is taken; catad gave a number.

def truncated(a):
    return math.trunc(a) * 2.0


def either_branch_truncated(x, v):
    return truncated(np.sum(v) ** 2 if x <= v[-1] else np.where(v[0] > 0, x, x))


def either_branch_rounded(x, v):
    a = np.sum(v) ** 2 if x <= v[-1] else np.where(v[0] > 0, x, x)
    return round(a) * x


@pytest.mark.parametrize("f", [either_branch_truncated, either_branch_rounded], ids=lambda f: f.__name__)
def test_one_branch_s_array_of_no_axes(f):
    v = np.array([1.0, -1.0])
    assert outcome(f, 0.0, v)[0] is TypeError
    with pytest.raises(catad.CatadError, match="array of no axes"):
        catad.value_and_grad(f)(0.0, v)
