"""zip of a list (or tuple) of numbers and an array, in a comprehension or a for loop (enumerate
of it too), runs over both as Python's zip does, stopping at the shorter; the list's Python floats
stay Python's (1.0 / (w - 1.0) raises ZeroDivisionError for w = 1.0). It was refused ("zip in a
comprehension needs arrays", "zip of a tuple and an array is not supported in a for loop"), the
most common refusal of a corpus of realistic functions. Oracle: the function itself and central
differences."""
import numpy as np
import pytest

import catad


def weighted(ws, xs):
    return sum(w * x for w, x in zip(ws, xs))


def looped(ws, xs):
    s = 0.0
    for w, x in zip(ws, xs):
        s = s + w * x
    return s


def counted(ws, xs):
    s = 0.0
    for i, (w, x) in enumerate(zip(ws, xs)):
        s = s + w * x * i
    return s


def nodes_of_a_local_list(xs, ys):
    nodes = [0.0, 1.0, 2.0]
    total = 0.0
    for xi, yi in zip(nodes, ys):
        total = total + yi * xi
    return total * xs[0]


def kinds(ws, xs):
    return sum(x * (w / (w - 1.0)) for w, x in zip(ws, xs))


def looped_kinds(ws, xs):
    s = 0.0
    for w, x in zip(ws, xs):
        s = s + x * (w / (w - 1.0))
    return s


def in_xs(f, ws, xs, h=1e-6):
    value, grad = catad.value_and_grad(f, 1)(ws, xs)
    assert value == pytest.approx(f(ws, xs), rel=1e-12)
    for k in range(len(xs)):
        e = np.zeros(len(xs))
        e[k] = h
        assert grad[k] == pytest.approx((f(ws, xs + e) - f(ws, xs - e)) / (2 * h), rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("f, ws, xs", [
    (weighted, [1.0, 2.0], np.array([3.0, 4.0])), (looped, [1.0, 2.0], np.array([3.0, 4.0, 5.0])),
    (counted, (1.0, 2.0), np.array([3.0, 4.0])), (kinds, [2.0, 3.0], np.array([3.0, 4.0])),
    (looped_kinds, [2.0, 1.0], np.array([3.0])), (weighted, [1.0, 2.0, 5.0], np.array([3.0]))],
    ids=lambda a: a.__name__ if callable(a) else None)
def test_values_and_gradients(f, ws, xs):
    in_xs(f, ws, xs)


def test_a_local_list_beside_a_list_argument():
    xs, ys = np.array([1.5]), [3.0, 4.0, 5.0]
    value, grad = catad.value_and_grad(nodes_of_a_local_list)(xs, ys)
    assert value == nodes_of_a_local_list(xs, ys)
    np.testing.assert_allclose(grad, [14.0])


@pytest.mark.parametrize("f", [kinds, looped_kinds], ids=lambda f: f.__name__)
def test_pythons_floats_raise(f):
    ws, xs = [2.0, 1.0], np.array([3.0, 4.0])
    with pytest.raises(ZeroDivisionError):
        f(ws, xs)
    with pytest.raises(ZeroDivisionError):
        catad.grad(f, 1)(ws, xs)
