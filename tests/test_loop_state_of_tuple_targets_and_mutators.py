"""A loop's state holds every array its body changes: one assigned into through a tuple of targets
(`m[t], v[t] = a, b`, the swap `a[j], a[j + 1] = a[j + 1], a[j]`) and one a method changes in place
(`a.sort()`). Both were left out, so the loop's changes were dropped: after it the arrays held
their old values, silently (a Kalman filter storing two outputs per step, a bubble sort, a DFT
storing re and im: the real-code trial of session 36). A slice of a list assigned a list of
another length (Python's insertion `l[i:i] = [v]`) is refused, where the update's check of the
lengths sat inside the values written, which an empty slice never reads."""
import numpy as np
import pytest

import catad
from located import agrees


def two_outputs_per_step(x):
    m = np.zeros(len(x))
    v = np.zeros(len(x))
    for t in range(len(x)):
        m[t], v[t] = np.sin(x[t]), x[t] ** 2
    return np.sum(m * v)


def kalman(x):
    n = len(x)
    means, variances = np.zeros(n), np.zeros(n)
    mu, var = 0.0, 1.0
    for t in range(n):
        gain = var / (var + 0.5)
        mu, var = mu + gain * (x[t] - mu), (1.0 - gain) * var + 0.1
        means[t], variances[t] = mu, var
    return np.sum(means ** 2) + np.sum(variances)


def swap_in_a_loop(x):
    a = x.copy()
    for _ in range(1):
        a[0], a[1] = a[1], a[0]
    return a[0] + 2.0 * a[1]


def swap_in_a_while_loop(x):
    a = x.copy()
    k = 0
    while k < 1:
        a[0], a[1] = a[1], a[0]
        k += 1
    return a[0] + 2.0 * a[1]


def bubble_sort(x):
    a = x.copy()
    for i in range(len(a)):
        for j in range(len(a) - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
    return np.sum(a * np.arange(1.0, len(a) + 1.0))


def two_arrays_crossed(x):
    a, b = x.copy(), x * 2.0
    for _ in range(1):
        a[0], b[1] = b[1], a[0]
    return a[0] + 3.0 * b[1]


def sort_in_a_loop(x):
    a = x * 1.0
    for _ in range(1):
        a.sort()
    return np.sum(a * np.arange(1.0, len(a) + 1.0))


def sort_in_a_while_loop(x):
    a = x * 1.0
    k = 0
    while k < 2:
        a.sort()
        k += 1
    return np.sum(a * np.arange(1.0, len(a) + 1.0))


def dft(x):
    n = len(x)
    re, im = np.zeros(n), np.zeros(n)
    for k in range(n):
        angles = 2.0 * np.pi * k * np.arange(n) / n
        re[k], im[k] = np.sum(x * np.cos(angles)), -np.sum(x * np.sin(angles))
    return np.sum(re ** 2 + im ** 2)


CASES = [two_outputs_per_step, kalman, swap_in_a_loop, swap_in_a_while_loop, bubble_sort, two_arrays_crossed,
         sort_in_a_loop, sort_in_a_while_loop, dft]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_the_loops_changes_are_kept(f):
    x = np.array([0.3, -1.0, 2.0, 0.7])
    value, grad = catad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-13)
    agrees(f, x)


def insert_by_an_empty_slice(x):
    lst = [1.0, 2.0]
    lst[1:1] = [x]
    return lst[0] + 10.0 * lst[1] + 100.0 * lst[-1]


def insert_in_a_loop(x):
    lst = [1.0, 2.0]
    for k in range(2):
        lst[1:1] = [x * (k + 1)]
    return sum(e * (i + 1) for i, e in enumerate(lst))


def same_length(x):
    lst = [1.0, 2.0, 3.0]
    lst[1:2] = [x]
    return lst[0] + 10.0 * lst[1] + 100.0 * lst[-1]


@pytest.mark.parametrize("f", [insert_by_an_empty_slice, insert_in_a_loop], ids=lambda f: f.__name__)
def test_a_slice_of_a_list_assigned_another_length_is_refused(f):
    with pytest.raises(catad.CatadError, match="changes the list's length"):
        catad.value_and_grad(f)(0.5)


def test_a_slice_of_a_list_assigned_its_length_is_written():
    assert catad.value_and_grad(same_length)(0.5) == (same_length(0.5), 10.0)
