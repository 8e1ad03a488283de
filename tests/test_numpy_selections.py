"""np.argwhere, np.extract and np.delete, made of the positions of a mask's true elements (the
flatnonzero primitive): values, gradients and jvps against the function itself and central
differences, NumPy's errors, and the compiled programs against the reference semantics. catad
refused all three."""
import numpy as np
import pytest

import catad
from backend_programs import agree_at_two_points
from located import agrees, outcome, raises_like_python

V = np.array([0.9, -0.4, 1.7, 0.2, -1.3, 0.6])
M = np.array([[0.9, -0.4, 1.7], [0.2, -1.3, 0.6]])


def delete_one(v):
    return np.sum(np.delete(v, 1) ** 2) + np.sum(np.delete(v, -1) * v[1:])


def delete_several(v):
    return np.sum(np.delete(v, [0, 0, -1]) ** 2)


def delete_by_a_mask(v):
    return np.sum(np.delete(v, v > 0.5) ** 2)


def delete_a_column(m):
    return np.sum(np.delete(m, 1, axis=1) ** 2) + np.sum(np.delete(m, [2, -3], axis=-1) * 3.0)


def delete_from_the_raveled(m):
    return np.sum(np.delete(m, 4) ** 2)


def leave_one_out(v):
    s = 0.0
    for i in range(len(v)):
        s += np.mean(np.delete(v, i)) * v[i]
    return s


def extract(v):
    return np.sum(np.extract(v > 0.5, v) ** 2) + np.sum(np.extract([True, False, True], v))


def extract_of_a_matrix(m):
    return np.sum(np.extract(m > 0.5, m) * 3.0)


def argwhere(m):
    return np.sum(np.argwhere(m > 0.5) * 1.0) * m[0, 0] + np.sum(np.argwhere(m[0] > 0.0)) * m[1, 1]


CASES = [(delete_one, V), (delete_several, V), (delete_by_a_mask, V), (delete_a_column, M),
         (delete_from_the_raveled, M), (leave_one_out, V), (extract, V), (extract_of_a_matrix, M), (argwhere, M)]


@pytest.mark.parametrize("against", ["python", "vectorised", "loops"])
@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_against_python_and_the_reference(f, x, against):
    """The function itself and central differences; the compiled programs (whole-array or loops)
    against the reference semantics, at x and at -x (other selections)."""
    if against == "python":
        agrees(f, x)
    else:
        agree_at_two_points(f, x, -x, against == "vectorised", 17)


def delete_out_of_range(v):
    return np.sum(np.delete(v, 7))


def delete_by_a_short_mask(v):
    return np.sum(np.delete(v, np.array([True, False])))


def delete_along_a_missing_axis(m):
    return np.sum(np.delete(m, 0, axis=2))


def extract_past_the_end(v):
    return np.sum(np.extract(np.array([False] * 6 + [True]), v))


@pytest.mark.parametrize("f, x", [(delete_out_of_range, V), (delete_by_a_short_mask, V), (extract_past_the_end, V)],
                         ids=lambda a: getattr(a, "__name__", ""))
def test_raises_as_numpy(f, x):
    assert raises_like_python(outcome(f, x), f, x)


def test_an_axis_out_of_range_raises_an_index_error():
    """NumPy's AxisError is an IndexError (and a ValueError); catad's, as elsewhere, a BoundsError."""
    assert isinstance(outcome(delete_along_a_missing_axis, M), tuple)
    with pytest.raises(IndexError, match="axis 2 is out of bounds for array of dimension 2"):
        catad.grad(delete_along_a_missing_axis)(M)
