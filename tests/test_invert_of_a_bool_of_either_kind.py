"""~b of a bool Python's or NumPy's by a test at run time (s > 0.5 of s = max(x[0], 0.0)) is refused:
Python's ~False is the int -1, NumPy's ~np.False_ is True, and the two have different types. catad
took it for NumPy's: 1.0 where Python gives -1.0 (found by differential fuzzing, session 35)."""
import numpy as np
import pytest

import catad


def either_kind(x):
    s = max(x[0], 0.0)
    return s + ~(s > 0.5)


def numpy_bool(x):
    return x[0] + ~(x[0] > 0.5)


def python_bool(x):
    return x[0] * ~(len(x) > 1)


def test_a_bool_of_either_kind_is_refused():
    with pytest.raises(catad.CatadError, match="~ of a bool that is Python's or NumPy's"):
        catad.value_and_grad(either_kind)(np.array([-0.5, 1.0]))


@pytest.mark.parametrize("f", [numpy_bool, python_bool], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [[-0.5, 1.0], [1.0, 2.0]], ids=str)
def test_one_kind_computes_as_python(f, x):
    x = np.array(x)
    value, grad = catad.value_and_grad(f)(x)
    assert value == f(x)
    assert grad[0] == (-2.0 if f is python_bool else 1.0) and grad[1] == 0.0
