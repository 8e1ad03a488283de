"""`a[i] = e`: Python evaluates e before the subscript i, so where both raise, e's error is the
one raised (math.log's ValueError, not the IndexError of a mask read out of bounds). catad
computed the subscript first (fuzzer seeds 3260202, 3260283). Each function is called itself."""
import math

import numpy as np
import pytest

from located import agrees, outcome, raises_like_python


def by_a_mask(x, v, m):
    w = v * 1.0
    w[w >= m[-1, 3]] = math.log(x - 0.5)
    return np.sum(w)


def by_an_index(x, v, m):
    w = v * 1.0
    w[int(m[-1, 3])] = math.log(x - 0.5)
    return np.sum(w)


def of_a_tuple_target(x, v, m):
    w = v * 1.0
    w[int(m[-1, 3])], y = math.log(x - 0.5), x
    return np.sum(w) + y


def of_a_value_that_reads_out_of_bounds(x, v, m):
    w = v * 1.0
    w[int(m[-1, 3])] = 2.0 * x + v[5]
    return np.sum(w)


def of_an_index_only(x, v, m):
    w = v * 1.0
    w[int(m[-1, 3])] = 2.0 * x
    return np.sum(w)


@pytest.mark.parametrize("f", [by_a_mask, by_an_index, of_a_tuple_target, of_a_value_that_reads_out_of_bounds,
                               of_an_index_only], ids=lambda f: f.__name__)
def test_the_error_is_pythons(f):
    args = (-1.0, np.array([1.0, 2.0]), np.array([[1.0, 2.0]]))
    assert raises_like_python(outcome(f, *args), f, *args)


@pytest.mark.parametrize("f", [by_a_mask, by_an_index, of_a_tuple_target], ids=lambda f: f.__name__)
def test_values_where_nothing_raises(f):
    agrees(f, 2.0, np.array([1.0, 2.0, 0.5, -1.0]), np.array([[0.0, 1.0, 2.0, 1.5]]))
