"""round(b, n) of NumPy's bool raises Python's TypeError (numpy.bool has no __round__), as round(b)
did already; catad gave a number (found by differential fuzzing, session 35). Of Python's bool it
is the int."""
import numpy as np
import pytest

import catad


def numpy_bool(x):
    return x[0] + round(x[0] > 0, 1)


def python_bool(x):
    return x[0] + round(len(x) > 0, 1) + round(True, 2)


def test_of_numpy_bool_raises_as_python():
    x = np.array([0.5])
    with pytest.raises(TypeError, match="doesn't define __round__"):
        numpy_bool(x)
    with pytest.raises(TypeError, match="doesn't define __round__"):
        catad.value_and_grad(numpy_bool)(x)


def test_of_python_bool_is_the_int():
    x = np.array([0.5])
    assert catad.value_and_grad(python_bool)(x) == (python_bool(x), pytest.approx(np.array([1.0])))
