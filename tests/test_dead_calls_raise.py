"""A call of a function of yours whose result is never used still raises where Python raises:
its checks are in its own body. An if whose arms assign nothing read later was kept only where
a check shows in the arms themselves, so `if x < 0.25: s = h(v, x)` with h reading v[1] of a
one-element v returned a value where Python raises IndexError (the loop fuzzer, seed 46852)."""
import numpy as np
import pytest

import catad
from located import agrees


def h(u, t):
    return u[1] * t


def called_in_an_if(x, v):
    if x < 0.25:
        s = h(v, x)
    return x * 2.0


def called_in_both_arms(x, v):
    if x < 0.25:
        s = h(v, x)
    else:
        s = h(v, -x)
    return x * 2.0


@pytest.mark.parametrize("f", [called_in_an_if, called_in_both_arms], ids=lambda f: f.__name__)
def test_a_dead_call_in_an_if_raises_as_python(f):
    v = np.array([1.0])
    with pytest.raises(IndexError):
        f(-1.5, v)
    with pytest.raises(IndexError) as info:
        catad.value_and_grad(f)(-1.5, v)
    assert isinstance(info.value, catad.CatadError)
    agrees(f, -1.5, np.array([1.0, 2.0]))
