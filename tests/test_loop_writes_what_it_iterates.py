"""A for loop whose body writes into the vector it iterates over: Python's iterator reads a[k]
when it gets to step k, so later steps see the writes. catad folded over the values the
vector had before the loop, and returned 6 for f below where Python gives 14 (and the
gradient [1, 1, 1] for [1, 0, 1]). Such a loop now runs over the indices (e = a[k] at each
step); what catad cannot run so (a view iterated, the vector also rebound or grown in the
body) is refused."""
from __future__ import annotations

import numpy as np
import pytest

import catad


def write_ahead(w):
    a = 1.0 * w
    s = 0.0
    for e in a:
        s = s + e
        a[1] = 10.0
    return s


def scale_in_place(w):
    a = w * 1.0
    s = 0.0
    for e in a:
        s = s + e * e
        a *= 2.0
    return s


def add_in_place(w):
    a = w + 0.0
    s = 0.0
    for e in a:
        s = s + np.sin(e)
        a += 1.0
    return s


def enumerate_writes_next(w):
    a = w * 1.0
    s = 0.0
    for i, e in enumerate(a):
        s = s + e * (i + 1)
        if i + 1 < len(a):
            a[i + 1] = a[i + 1] + e
    return s


def enumerate_from(w):
    a = w * 1.0
    s = 0.0
    for i, e in enumerate(a, 2):
        s = s + e * i
        a[-1] = e * 3.0
    return s


def zip_writes_second(w):
    a = w * 1.0
    b = w * 2.0
    s = 0.0
    for x, y in zip(a, b):
        s = s + x * y
        b[-1] = x + y
    return s


def prefix_sums(w):
    a = w * 1.0
    for i, e in enumerate(a):
        if i > 0:
            a[i] = a[i - 1] + e
    t = 0.0
    for e in a:
        t = t + e * e
    return t


def untouched(w):
    a = w * 1.0
    s = 0.0
    for e in a:
        s = s + e
    a[0] = 5.0
    return s + a[0]


CASES = [write_ahead, scale_in_place, add_in_place, enumerate_writes_next, enumerate_from, zip_writes_second,
         prefix_sums, untouched]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("w", [np.array([1.0, 2.0, 3.0]), np.array([0.5]), np.array([-1.0, 0.25, 2.0, 1.5]),
                               np.array([])], ids=len)
def test_value_and_gradient_are_pythons(f, w):
    try:
        f(w.copy())
    except IndexError:
        with pytest.raises(IndexError):
            catad.value_and_grad(f)(w.copy())
        return
    value, g = catad.value_and_grad(f)(w.copy())
    assert value == pytest.approx(f(w.copy()), rel=1e-12)
    h = 1e-6
    fd = [(f(w + h * e) - f(w - h * e)) / (2 * h) for e in np.eye(len(w))]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_write_ahead_exactly():
    value, g = catad.value_and_grad(write_ahead)(np.array([1.0, 2.0, 3.0]))
    assert value == 14.0
    assert g.tolist() == [1.0, 0.0, 1.0]


def view_iterated(w):
    a = w * 1.0
    s = 0.0
    for e in a[::-1]:
        s = s + e
        a[0] = 7.0
    return s


def rebound_in_body(w):
    a = w * 1.0
    s = 0.0
    for e in a:
        s = s + e
        a[0] = 1.0
        a = a * 2.0
    return s


@pytest.mark.parametrize("f", [view_iterated, rebound_in_body], ids=lambda f: f.__name__)
def test_refused_where_not_run_as_python(f):
    with pytest.raises(catad.CatadError, match="which the loop iterates over") as e:
        catad.grad(f)(np.array([1.0, 2.0, 3.0]))
    assert "test_loop_writes_what_it_iterates.py" in str(e.value)
