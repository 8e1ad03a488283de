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


def undecided(x):
    s = sum([e for e in x] + [0.0])  # Python's 0.0 for an empty x, else NumPy's
    return s * round(s > 0)


def test_of_a_bool_of_undecided_kind_is_refused():
    """Python's bool has __round__, NumPy's does not: where the kind is decided by a test catad
    cannot read again, the check that holds where Python's does was no answer (catad gave a
    number where Python raised, fuzzer seed 1003465)."""
    x = np.array([2.0, -0.425, 1.0])
    with pytest.raises(TypeError, match="doesn't define __round__"):
        undecided(x)
    with pytest.raises(catad.CatadError, match="round\\(\\) of a number that is Python's or NumPy's"):
        catad.value_and_grad(undecided)(x)
