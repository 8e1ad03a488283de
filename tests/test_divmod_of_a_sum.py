"""divmod(a, b) where b is Python's number only where a condition holds (sum(e for e in v if
p(e)) is Python's int 0 where nothing passes, NumPy's float elsewhere): Python's divmod raises
ZeroDivisionError('float divmod()') where both are Python's and b is 0, and NumPy's gives inf
and nan elsewhere. Where b was an expression (not a name), divmod shared it in a variable
without its mark and checked nothing: catad returned inf or nan (found by differential testing,
session 28); a named b raised floor division's message, not divmod's."""
import numpy as np
import pytest

import catad
from located import raises_as_python


def inline_quotient(x, v):
    return divmod(x, sum(e for e in v if e > 1e9))[0] + x


def inline_remainder(x, v):
    return divmod(x, (sum(e for e in v if e > 1e9)))[1] + x


def named(x, v):
    z = sum(e for e in v if e > 1e9)
    q, r = divmod(x, z)
    return q + r * x


def constant_over_sum(x, v):
    return -(divmod(0.5, sum(e for e in v if e > 1e9))[0]) + x


FS = [inline_quotient, inline_remainder, named, constant_over_sum]


@pytest.mark.parametrize("f", FS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [[], [1.0, 2.0]], ids=len)
def test_nothing_passes_raises_as_python(f, v):
    raises_as_python(f, 1.5, np.array(v))
    with pytest.raises(catad.CatadError, match=r"float divmod\(\)"):
        catad.jvp(f, (1.5, np.array(v)), (1.0, np.zeros(len(v))))


@pytest.mark.parametrize("f", FS, ids=lambda f: f.__name__)
def test_something_passes_is_numpy(f):
    v = np.array([1.0, 3e9, 2.0, 4e9])
    value, grad = catad.value_and_grad(f)(1.5, v)
    assert value == f(1.5, v)
    _, t = catad.jvp(f, (1.5, v), (1.0, np.zeros(4)))
    assert t == grad
