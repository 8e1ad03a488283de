"""int() of an infinite float in the element of a filtered sum that no element passes: Python
never computes it; catad computed it for every element and its generated code raised
OverflowError (catad's own error). The value is never read; where it is read, Python's
OverflowError is raised as before."""
import math

import numpy as np
import pytest

import catad


def none_pass(x, v):
    return x / (sum(int(v[-1] / 0.0) for e in v if e > 100.0) + 1)


def none_pass_then_log(x, v):
    return x * math.log(sum(int(v[-1] / 0.0) for e in v if e <= x) + 0.0)


def some_pass(x, v):
    return x / (sum(int(v[-1] / 0.0) for e in v if e > 0.0) + 1)


@pytest.mark.parametrize("f", [none_pass, none_pass_then_log, some_pass], ids=lambda f: f.__name__)
def test_as_python(f):
    v = np.array([1.0, 2.0])
    try:
        with np.errstate(all="ignore"):
            want = f(0.5, v)
    except (ValueError, OverflowError) as e:
        with pytest.raises(type(e), match=str(e)):
            catad.grad(f)(0.5, v)
        return
    assert catad.value_and_grad(f)(0.5, v) == (want, 1.0)


def test_the_cases():
    v = np.array([1.0, 2.0])
    assert none_pass(0.5, v) == 0.5
    with pytest.raises(ValueError, match="math domain error"):
        none_pass_then_log(0.5, v)
    with pytest.raises(OverflowError), np.errstate(all="ignore"):
        some_pass(0.5, v)
