"""np.array of a list display whose items are of different ranks (np.array([a, b]) of a
matrix and a vector, or of a number and a vector): NumPy's ValueError where the call runs
(catad raised IndexError from inside its front end), and nothing where it does not."""
import numpy as np
import pytest

import catad
from catad import ShapeError


def stacked(a, b):
    return np.sum(np.array([a, b]))


def stacked_if(a, b, c):
    if c > 0:
        return np.sum(np.array([a, b]))
    return np.sum(a * a)


@pytest.mark.parametrize("a,b", [(np.ones((2, 3)), np.ones(3)), (np.ones(3), 1.5), (1.5, np.ones((1, 3)))],
                         ids=["matrix-vector", "vector-number", "number-matrix"])
def test_items_of_two_ranks_are_numpy_s_value_error(a, b):
    with pytest.raises(ValueError) as numpy_error:
        stacked(a, b)
    with pytest.raises(ShapeError) as ours:
        catad.value_and_grad(stacked)(a, b)
    assert str(numpy_error.value).startswith(str(ours.value).split(": ", 1)[1])
    value, g = catad.value_and_grad(stacked_if)(a, b, -1.0)
    assert value == stacked_if(a, b, -1.0)
    np.testing.assert_allclose(g, 2 * np.asarray(a))
