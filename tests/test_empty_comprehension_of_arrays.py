"""A list comprehension of arrays written straight into a NumPy reduction along an axis is checked
not to be empty, as a list variable is (frontend.lists.nonempty_list): NumPy makes an empty list
the array of shape (0,), and reduces it along axis 0 to one number, where catad's list keeps its
elements' axes. Unchecked, np.sum([r * 2.0 for r in m], axis=0)[0] of an empty m gave 0.0 where
NumPy's 0.0 cannot be indexed. (np.array of a comprehension is not checked: np.sum of it, of no
rows, is NumPy's 0.0, tests/test_empty_builds.py.)"""
from __future__ import annotations

import numpy as np
import pytest

import catad


def first_of_the_row_sum(m):
    s = np.sum([r * 2.0 for r in m], axis=0)
    return s[0] + np.sum(m)


def mean_of_rows(m):
    return np.sum(np.mean([r * r for r in m], axis=0, keepdims=True))


def max_of_rows(m):
    return np.sum(np.max([r * r for r in m], axis=0))


def summed_whole(m):  # every axis: NumPy's 0.0 for an empty list, as catad's
    return np.sum([r * 3.0 for r in m])


CHECKED = [first_of_the_row_sum, mean_of_rows, max_of_rows]


@pytest.mark.parametrize("f", CHECKED)
def test_an_empty_one_is_refused_where_numpy_has_no_axes_for_it(f):
    with pytest.raises(catad.CatadError, match="empty list of arrays"):
        catad.value_and_grad(f)(np.zeros((0, 3)))


@pytest.mark.parametrize("f", CHECKED + [summed_whole])
def test_a_full_one_is_computed_as_numpy_does(f):
    m = np.linspace(-1.0, 2.0, 6).reshape(2, 3)
    value, g = catad.value_and_grad(f)(m)
    assert value == pytest.approx(f(m), rel=1e-14)
    step, fd = 1e-6, np.zeros(6)
    for k in range(6):
        e = np.zeros(6)
        e[k] = step
        fd[k] = (f(m + e.reshape(2, 3)) - f(m - e.reshape(2, 3))) / (2 * step)
    np.testing.assert_allclose(g.ravel(), fd, rtol=1e-6, atol=1e-8)


def test_the_sum_over_every_axis_of_an_empty_one_is_numpys():
    value, g = catad.value_and_grad(summed_whole)(np.zeros((0, 3)))
    assert value == summed_whole(np.zeros((0, 3))) == 0.0 and g.shape == (0, 3)
