"""x[..., 0] and its kin: the Ellipsis stands for the full slices of the axes the other items
leave, as NumPy reads it (with None, slices, ints and an int variable beside it); two of them are
NumPy's IndexError. It was refused ("the constant Ellipsis is not supported"), common in machine
learning code. Oracle: the function itself and central differences."""
import numpy as np
import pytest

import catad
from located import agrees, refused

T = np.arange(24.0).reshape(2, 3, 4) / 10


def last_axis(x, t):
    return np.sum(t[..., 0] ** 2) * x + np.sum(t[..., 1:3] * x)


def first_axis(x, t):
    return np.sum(t[0, ...] * x) + np.sum(t[1, ..., 2] * x) + np.sum(t[...] * x)


def with_new_axes(x, t):
    k = 2
    return np.sum((t[..., k] * x)[..., None] * t[:, None, ..., 0, None])


def of_a_vector(x, t):
    v = t[0, 0] * x
    return np.sum(v[...] * v[..., ::-1]) + np.sum(v[..., 1:])


@pytest.mark.parametrize("f", [last_axis, first_axis, with_new_axes, of_a_vector], ids=lambda f: f.__name__)
def test_values_and_derivatives(f):
    agrees(f, 0.7, T)


def two(x, t):
    return np.sum(t[..., ...] * x)


def test_two_ellipses_are_numpys_index_error():
    with pytest.raises(IndexError):
        two(0.7, T)
    with pytest.raises(IndexError, match="single ellipsis"):
        catad.grad(two)(0.7, T)


def of_a_list(x, t):
    items = [x, 2.0]
    return np.sum(items[...])  # ERR


def test_an_ellipsis_of_a_list_refused():
    with pytest.raises(TypeError):
        of_a_list(0.7, T)
    refused(of_a_list, (0.7, T), "Ellipsis")
