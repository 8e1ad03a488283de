"""A range's loop variable after the loop is one of Python's ints, as it is in the loop: i * 0.0
is Python's 0.0, so (i * 0.0) ** -1 and 1.0 / (i * 0.0) raise ZeroDivisionError, and i ** -1 is
Python's float where NumPy refuses integers to negative powers. catad took it for one of NumPy's
numbers after the loop (fuzzer seed 3331379): inf and a gradient of 0.0 where Python raises. Each
function is called itself."""
import numpy as np
import pytest

from located import agrees, outcome, raises_like_python


def after_range(x, v):
    for i in range(len(v)):
        x = x * 1.5
    return x + (i * 0.0) ** -1


def after_constant_range(x, v):
    for i in range(2):
        pass
    return x + 1.0 / (i * 0.0)


def after_range_that_may_be_empty(x, v):
    i = 3
    for i in range(len(v) - 1):
        x = x * 1.5
    return x * i + (i * 0.0) ** -1 if i == 0 else x * i


def before_kept(x, v):
    i = 1
    for i in range(len(v) - 2):
        pass
    return x + i ** -1  # Python's 1.0 (NumPy refuses integers to negative powers); 0 ** -1 raises


def after_a_break(x, v):
    for i in range(len(v)):
        if x > 100.0:
            break
    return x / (i * 0.0)


def last_of_range(x, v):
    for i in range(1, len(v) + 2, 2):
        x = x * 1.25
    return x * i + 1.0 / (i - 2.0)


V = np.array([1.0, 2.0])


@pytest.mark.parametrize("f, args", [
    (after_range, (0.5, V)), (after_constant_range, (0.5, V)), (after_range_that_may_be_empty, (0.5, V)),
    (after_a_break, (0.5, V)), (before_kept, (0.5, np.ones(3)))], ids=lambda a: a.__name__ if callable(a) else None)
def test_pythons_zero_division(f, args):
    assert raises_like_python(outcome(f, *args), f, *args)


@pytest.mark.parametrize("f, args", [
    (after_range_that_may_be_empty, (0.5, np.ones(1))), (after_range_that_may_be_empty, (0.5, np.ones(3))),
    (before_kept, (0.5, V)), (last_of_range, (0.5, np.ones(3)))],
    ids=lambda a: a.__name__ if callable(a) else None)
def test_values(f, args):
    agrees(f, *args)
