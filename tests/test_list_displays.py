"""A list display of arrays is a Python list: catad makes it one array only where its arrays
are provably of one shape, as NumPy's np.array would; otherwise it keeps the list, whose
arrays may differ in length (found by differential testing, trial 6: [x[:1], x] was broadcast
into a 2 x n matrix, and [x, y] with y of length 1 gave a wrong sum). np.array of arrays of
different shapes raises NumPy's ValueError."""
import numpy as np
import pytest

import catad
from catad import ShapeError
from located import agrees

X = np.array([0.5, -1.25, 2.0])


def loop_over_parts(x):
    parts = [x[:1], x]
    total = 0.0
    for p in parts:
        total = total + np.sum(p) * len(p)
    return total


def indexed_parts(x):
    parts = [x[:1], x[1:]]
    return np.sum(parts[0]) + len(parts[0]) + 2.0 * np.sum(parts[1])


def two_arguments(x, y):
    parts = [x, y]
    return np.sum(parts[1] * parts[1]) + 2.0 * np.sum(parts[0])


def returned(x):
    return [x[:1], x * 2.0]


def stacked(x):
    return np.sum(np.array([x[:1], x]))


def stacked_equal(x):
    return np.sum(np.array([x, x * 2.0]) ** 2)


@pytest.mark.parametrize("fn", [loop_over_parts, indexed_parts], ids=lambda f: f.__name__)
def test_arrays_of_different_lengths_stay_a_list(fn):
    for x in (X, X[:1], np.linspace(-1.0, 1.0, 5)):
        agrees(fn, x)


@pytest.mark.parametrize("y", [np.array([0.25]), np.array([0.25, -2.0]), np.array([1.0, 2.0, 3.0])],
                         ids=lambda y: f"len{len(y)}")
def test_a_list_of_two_arguments_of_any_lengths(y):
    agrees(two_arguments, X, y, argnums=(0, 1))


def test_a_returned_list_keeps_its_arrays():
    out, tangent = catad.jvp(returned, (X,), (np.ones(3),))
    assert isinstance(out, list) and [a.tolist() for a in out] == [a.tolist() for a in returned(X)]
    assert [t.tolist() for t in tangent] == [[1.0], [2.0, 2.0, 2.0]]


def test_np_array_of_arrays_of_different_shapes_raises_numpy_s_error():
    with pytest.raises(ValueError) as numpy:
        stacked(X)
    with pytest.raises(ShapeError) as ours:
        catad.value_and_grad(stacked)(X)
    assert str(numpy.value).split(" The detected")[0] in str(ours.value)
    assert catad.value_and_grad(stacked)(X[:1])[0] == stacked(X[:1])  # one element: one shape


def test_np_array_of_arrays_of_one_shape_is_an_array():
    agrees(stacked_equal, X)
