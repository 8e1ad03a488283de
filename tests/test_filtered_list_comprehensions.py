"""A list comprehension with filters ([e for x in xs if c]) is e where the filters hold: a vector
whose length is known when the function runs (np.flatnonzero of the filters' build), its
elements computed only there, as Python computes them. catad refused every filtered list
comprehension. Each function is called itself: values, gradients and jvps against it and central
differences, Python's errors where it raises, the compiled programs against the reference
semantics. An element of a comprehension whose length is its own (a mask or a filter in it) is
refused (rows of different lengths)."""
import math

import numpy as np
import pytest

import catad
from backend_programs import agree_at_two_points
from located import agrees, outcome, raises_like_python, refused

V = np.array([0.9, -0.4, 0.5, 0.3, 1.7, -1.1])
M = np.array([[0.9, 0.1, 0.5], [0.2, 0.8, 0.1]])


def kept_squares(v):
    return np.sum(np.array([x ** 2 for x in v if x > 0.4]))


def python_floats_kept(v):
    w = [math.sqrt(x) for x in v if x > 0.0]
    return sum(w) + len(w)


def neighbours(v):
    return np.sum(np.array([v[i] * v[i + 1] for i in range(len(v)) if i < len(v) - 1]))


def reciprocals(v):
    return sum([1.0 / x for x in v if x != 0.0])


def indices_kept(v):
    ks = [k for k in range(len(v)) if v[k] > 0.4]
    return np.sum(v[np.array(ks)] * 2.0)


def two_filters(v):
    w = [x for x in v if x > 0.0 if 1.0 / x < 2.5]
    return np.sum(np.array(w) ** 3)


def zipped(v):
    return sum([x * y for x, y in zip(v, v[::-1]) if x > y])


def enumerated(v):
    return sum([k * x for k, x in enumerate(v) if k % 2 == 0])


def none_kept(v):
    w = [x for x in v if x > 100.0]
    return np.sum(np.array(w)) + len(w) + np.sum(v)


def flags_kept(v):
    w = [x > 0.45 for x in v if x > 0.0]
    return np.sum(v) * np.sum(np.array(w, dtype=float))


def in_a_loop(m):
    s = 0.0
    for r in m:
        w = [x * x for x in r if x > 0.3]
        s += sum(w)
    return s


CASES = [(kept_squares, V), (python_floats_kept, V), (neighbours, V), (reciprocals, V), (indices_kept, V),
         (two_filters, V), (zipped, V), (enumerated, V), (none_kept, V), (flags_kept, V), (in_a_loop, M)]


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_as_python(f, x):
    agrees(f, x)


@pytest.mark.parametrize("vectorise", [True, False], ids=["vectorised", "loops"])
@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_compiled_programs_agree_with_the_reference(f, x, vectorise):
    agree_at_two_points(f, x, x[::-1].copy() * 1.5, vectorise, 15)


def element_raises_where_kept(v):
    return sum([1.0 / (float(x) - 0.5) for x in v if x > 0.2])


def element_raises_only_where_dropped(v):
    return sum([1.0 / (float(x) - 0.5) for x in v if x > 0.6])


def second_filter_only_after_the_first(v):
    return sum([x for x in v if x != 0.5 if 1.0 / (float(x) - 0.5) > 0.0])


def index_out_of_range_where_kept(v):
    return sum([v[k + 4] for k in range(len(v)) if k > 0])


@pytest.mark.parametrize("f", [element_raises_where_kept, element_raises_only_where_dropped,
                               second_filter_only_after_the_first, index_out_of_range_where_kept],
                         ids=lambda f: f.__name__)
def test_raises_where_python_does(f):
    want = outcome(f, V)
    if not raises_like_python(want, f, V):
        assert catad.value_and_grad(f)(V)[0] == want


def test_raising_cases_raise():
    """(The cases above that raise in Python, so that the test above checks raising at all.)"""
    assert isinstance(outcome(element_raises_where_kept, V), tuple)
    assert isinstance(outcome(index_out_of_range_where_kept, V), tuple)
    assert not isinstance(outcome(element_raises_only_where_dropped, V), tuple)
    assert not isinstance(outcome(second_filter_only_after_the_first, V), tuple)


def ragged_rows(m):
    rows = [r[r > 0.3] for r in m]  # ERR
    return sum(np.sum(x) for x in rows)


def ragged_filtered_rows(m):
    rows = [[x for x in r if x > 0.3] for r in m]  # ERR
    return 0.0


def ragged_nonzero_rows(m):
    return np.sum([np.nonzero(r > 0.3)[0] for r in m][1] * 1.0)  # ERR


def ragged_tuples(m):
    t = [(r[r > 0.3], 1.0) for r in m]  # ERR
    return np.sum(t[0][0])


def test_rows_of_their_own_lengths_refused():
    refused(ragged_rows, (M,), "differ in length")
    refused(ragged_tuples, (M,), "differ in length")
    refused(ragged_filtered_rows, (M,), "differ in length")
    refused(ragged_nonzero_rows, (M,), "differ in length")


def reduced_rows(m):
    return sum(np.sum(r[r > 0.3]) for r in m) + sum(np.sum(np.array([x * x for x in r if x < 0.6])) for r in m)


def test_rows_reduced_each():
    agrees(reduced_rows, M)
