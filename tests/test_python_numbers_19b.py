"""Where a number is Python's and where NumPy's, as Python decides it: a Python number divides
by zero with Python's ZeroDivisionError, a NumPy one gives inf or nan. Each function is called
itself and through catad: the same value, or the same error."""
import numpy as np
import pytest

import catad
from catad.errors import ZeroDivisionError_


def _python(fn, *args):
    try:
        with np.errstate(all="ignore"):
            return fn(*args), None
    except ZeroDivisionError as e:
        return None, e


def same_as_python(fn, *args, argnums=0):
    """catad's value of fn at args is Python's, or catad raises the ZeroDivisionError Python
    raises (by value_and_grad and by jvp)."""
    want, error = _python(fn, *args)
    if error is not None:
        with pytest.raises(ZeroDivisionError_, match=str(error)):
            catad.value_and_grad(fn, argnums)(*args)
        tangents = tuple(np.ones_like(a) if k == argnums else np.zeros_like(a) for k, a in enumerate(args))
        with pytest.raises(ZeroDivisionError_, match=str(error)):
            catad.jvp(fn, args, tangents)
        return
    with np.errstate(all="ignore"):
        value = catad.value_and_grad(fn, argnums)(*args)[0]
    np.testing.assert_equal(value, want)


# ------------------------------------------------ a loop's NumPy number made Python's in the loop

def numpy_then_python(y, x):
    s = np.sin(y)  # NumPy's float64
    for i in range(2):
        t = s / 0.0  # inf in the first iteration; the second divides Python's x: ZeroDivisionError
        s = x
    return t


def made_python_by_another_state(y, x):
    s = np.sin(y)
    t = np.sin(y)
    for i in range(3):
        r = t / 0.0  # t is Python's in the third iteration only
        t = s
        s = x
    return r


def python_after_the_loop(y, x):
    s = np.sin(y)
    for i in range(2):
        s = x
    return s / 0.0


def first_assigned_in_the_loop(y, x):
    for i in range(2):
        s = x * 0.0
    return y / s


def max_with_a_python_number(v, x):
    s = v[0]
    for e in v:
        s = max(s, x)  # Python's x where it is the greater
    return 1.0 / s


def over_elements(v, x):
    s = np.sin(x)
    for e in v:
        s = x * 0.0  # Python's where v has an element
    return 1.0 / s


def with_while(y, x):
    s = np.sin(y)
    t = 0.0
    i = 0
    while i < 2:
        t = s / 0.0
        s = x
        i += 1
    return t


def with_break(v, x):
    s = v[0]
    r = 0.0
    for e in v:
        r = r + 1.0 / s
        if e > 5.0:
            break
        s = x
    return r


def nested(v, x):
    s = v[0]
    for e in v:
        for f in v:
            s = s + 1.0 / (s - s)
            s = x
    return s


@pytest.mark.parametrize("fn, args", [
    (numpy_then_python, (0.5, 2.0)),
    (made_python_by_another_state, (0.5, 2.0)),
    (python_after_the_loop, (0.5, 2.0)),
    (first_assigned_in_the_loop, (0.5, 2.0)),
    (max_with_a_python_number, (np.array([-1.0, -2.0]), 0.0)),
    (max_with_a_python_number, (np.array([1.0, -2.0]), 0.0)),
    (over_elements, (np.array([]), 0.5)),
    (over_elements, (np.array([1.0]), 0.5)),
    (with_while, (0.5, 2.0)),
    (with_break, (np.array([6.0, 1.0]), 0.0)),
    (with_break, (np.array([1.0, 1.0]), 0.0)),
    (nested, (np.array([1.0, 2.0]), 1.0)),
], ids=lambda a: getattr(a, "__name__", None))
def test_a_loop_state_made_python_s_divides_as_python_s(fn, args):
    same_as_python(fn, *args, argnums=1)
