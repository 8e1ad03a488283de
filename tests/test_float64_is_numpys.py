"""np.float64(x) is NumPy's number whatever x is: np.float64(x) / 0.0 is inf (or nan), never
Python's ZeroDivisionError. np.float64 of a Float kept x's own term, and with it x's mark of a
Python number where a test holds (0.25 if c else t), so catad raised where NumPy gives inf (found
by differential testing, session 28, seeds 3101978 and 3102566)."""
import numpy as np
import pytest

import catad


def of_a_conditional(x, v):
    x = np.sum(v)
    y = np.float64((0.25 if len(v) >= 3 else x)) / 0.0
    return np.where(np.isinf(y), 1.0, 0.0) * x + x


def of_a_python_float(x, v):
    return np.float64(x) / 0.0 + x


def python_float_stays_python(x, v):
    y = np.float64(x) * 2.0  # (np.float64 of x makes a new number: x itself stays Python's)
    return x / (len(v) - 2) + y


@pytest.mark.parametrize("f", [of_a_conditional, of_a_python_float], ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [[-2.11, 2.201, -0.185], [1.5, 2.0]], ids=len)
def test_numpy_division_by_zero(f, v):
    v = np.array(v)
    with np.errstate(all="ignore"):
        expected = f(-2.306, v)
        value = catad.value_and_grad(f)(-2.306, v)[0]
    assert value == expected or np.isnan(value) and np.isnan(expected)


def test_the_argument_stays_python_s():
    v = np.array([1.0, 2.0])
    with pytest.raises(ZeroDivisionError):
        python_float_stays_python(1.5, v)
    with pytest.raises(catad.CatadError, match="float division by zero"):
        catad.value_and_grad(python_float_stays_python)(1.5, v)
