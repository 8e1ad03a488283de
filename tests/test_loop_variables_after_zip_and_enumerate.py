"""The loop variables of `for i, e in enumerate(v)` and `for a, b in zip(v, w)` after the loop: the
last count and items where the loop ran, Python's UnboundLocalError where it ran no iteration (18
of the fuzzer's refusals: "only supported after a range(...) loop"). Their kinds are Python's and
NumPy's as in the loop (the count Python's int, an array's item NumPy's number). Each function is
called itself."""
import numpy as np
import pytest

from located import agrees, outcome, raises_like_python, refused


def counted(x, v):
    s = 0.0
    for i, e in enumerate(v):
        s += e * x
    return s + i * x + e


def counted_from_one(x, v):
    for i, e in enumerate(v, 1):
        pass
    return i * x + e


def zipped(x, v, w):
    s = 0.0
    for a, b in zip(v, w):
        s += a * b * x
    return s + a * x + b


def of_a_list(x, v):
    items = [x, 2.0 * x, v[0]]
    for i, e in enumerate(items):
        pass
    return i * e


def kinds(x, v):
    for i, e in enumerate(v):
        pass
    return x * (e / (e - e)) + x / (i - i)  # NumPy's nan or inf; Python's ZeroDivisionError


def of_rows(x, m):
    for r in m:
        pass
    return np.sum(r * x)  # ERR


@pytest.mark.parametrize("f, args", [
    (counted, (1.5, np.array([1.0, 2.0, 3.0]))), (counted_from_one, (1.5, np.array([2.0, 5.0]))),
    (zipped, (1.5, np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0]))), (of_a_list, (1.5, np.array([0.5])))],
    ids=lambda a: a.__name__ if callable(a) else None)
def test_values(f, args):
    agrees(f, *args)


@pytest.mark.parametrize("f, args", [
    (counted, (1.5, np.array([]))), (zipped, (1.5, np.array([]), np.array([1.0]))),
    (kinds, (1.5, np.array([1.0, 2.0])))], ids=lambda a: a.__name__ if callable(a) else None)
def test_pythons_errors(f, args):
    assert raises_like_python(outcome(f, *args), f, *args)


def test_rows_after_a_loop_that_may_run_no_iteration_are_refused():
    refused(of_rows, (1.5, np.ones((2, 3))), "loop variable", "after the loop")
