"""np.clip(a, None, None): NumPy 2.1 and later give a copy of a; catad refused it, saying NumPy
raises ValueError, as NumPy before 2.1 did (it still does with such a NumPy: asked of NumPy
itself, special_calls._CLIPS_TO_NOTHING). Found by differential testing (session 18)."""
import numpy as np
import pytest

import catad
from catad.frontend.special_calls import _CLIPS_TO_NOTHING
from located import agrees


def clipped_by_nothing(a):
    return np.sum(np.clip(a, None, None) * a)


def a_copy_written_into(a):
    b = np.clip(a, None, None)
    b[0] = 5.0
    return np.sum(a * b)


def a_number(a):
    return np.clip(3, None, None) * a[0]


@pytest.mark.parametrize("f", [clipped_by_nothing, a_copy_written_into, a_number], ids=lambda f: f.__name__)
def test_no_bounds(f):
    a = np.array([1.0, -2.0, 3.0])
    if _CLIPS_TO_NOTHING:
        agrees(f, a)
    else:
        with pytest.raises(ValueError):
            f(a.copy())
        with pytest.raises(catad.CatadError, match="needs a_min or a_max"):
            catad.grad(f)(a)
