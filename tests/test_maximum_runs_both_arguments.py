"""np.maximum and np.minimum of two numbers evaluate both: NumPy's call evaluates its arguments
first, so an index out of bounds in the second raises IndexError whatever the first is. catad
chose NaN from the first without evaluating the second, whose bounds check then never ran where
it stays beside the index (after another check in the statement, here the one of Python's
1.0 ** 2): the function returned a value where Python raises (the loop fuzzer's seed 72073)."""
import numpy as np
import pytest

import catad
from catad.errors import BoundsError
from located import agrees


def nan_first(v, m):
    s = np.maximum(np.sqrt(-1.0 ** 2 + 0.5) * np.sum(m), v[1])
    return np.sum(m) + s * 0.0


def nan_first_minimum(v, m):
    s = np.minimum(np.sqrt(-1.0 ** 2 + 0.5) * np.sum(m), v[1])
    return np.sum(m)


def second_read(v, m):
    return np.maximum(np.sum(m) * (1.0 ** 2), v[1]) + np.minimum(v[0] ** 2, v[1] * 2.0)


@pytest.mark.parametrize("f", [nan_first, nan_first_minimum], ids=lambda f: f.__name__)
def test_the_second_argument_s_index_is_checked_whatever_the_first(f):
    v, m = np.array([0.87]), np.ones((3, 2))
    with pytest.raises(IndexError), np.errstate(invalid="ignore"):
        f(v, m)
    with pytest.raises(BoundsError, match="index 1 is out of bounds"):
        catad.value_and_grad(f, argnums=1)(v, m)


def test_in_bounds_the_value_and_derivatives_are_numpy_s():
    v, m = np.array([0.87, 2.5]), np.array([[0.3, -1.2], [0.4, 0.1]])
    agrees(second_read, v, m, argnums=(0, 1))
