"""abs() of Python's bool is its int (abs(True) is 1, so x / abs(x > 5.0) raises ZeroDivisionError
where it is False); of NumPy's bools, and np.abs of any, the bools themselves (np.True_ + np.True_
is True); math.fabs of a bool is its float. catad refused them (abs: expects a Float or an Int,
got Bool). Each function is called itself."""
import math

import numpy as np
import pytest

import catad
from located import agrees, outcome, raises_like_python


def python_s(x, v):
    return abs(x > 0.0) * x + abs(x > 1.0) * 2.0


def numpy_s(x, v):
    return (abs(v[0] > 0.0) + abs(v[1] > 0.0)) * x


def arrays(x, v):
    return np.sum(abs(v > 0.0) * v) + np.sum(np.abs(v > 1.5) * v) * x


def fabs(x, v):
    return math.fabs(x > 0.0) * x


def divided_by_python_s(x, v):
    return x / (abs(x > 5.0) + 0)


def divided_by_numpy_s(x, v):
    return x / (abs(v[0] > 5.0) + 0)


V = np.array([1.0, 2.0])


@pytest.mark.parametrize("f", [python_s, numpy_s, arrays, fabs], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.5, 1.5, -0.5])
def test_as_python(f, x):
    agrees(f, x, V)


def test_python_s_zero_raises_numpy_s_gives_inf():
    assert raises_like_python(outcome(divided_by_python_s, 0.5, V), divided_by_python_s, 0.5, V)
    with np.errstate(divide="ignore"):
        assert catad.value_and_grad(divided_by_numpy_s)(0.5, V)[0] == divided_by_numpy_s(0.5, V) == np.inf


def test_np_fabs_of_bools_refused():
    """np.fabs of bools is NumPy's float16."""
    def f(x, v):
        return np.sum(np.fabs(v > 0.0)) * x
    with pytest.raises(catad.CatadError, match="float16"):
        catad.grad(f)(0.5, V)
