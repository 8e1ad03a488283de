"""An if statement whose branches compute nothing kept (if m[1, len(a3)] > x: mm8 = np.copy(m),
mm8 never read) still evaluates its test, and the test's bounds check raises IndexError where
Python's does. The rewriting rule if-same (if c then e else e = e) dropped the test with its check,
so catad.grad returned a value where the function raises (the loop fuzzer's seed 71935); the rule
now holds only where c runs no check."""
import numpy as np
import pytest

import catad
from catad.errors import BoundsError
from located import agrees


def unread_branch_in_a_loop(m, x):
    for k in range(3):
        a = np.sum(m, axis=0)
        if np.sum(m) > -1.0:
            if m[1, len(a)] > x:
                unused = np.copy(m)
    return x * 2.0 + np.sum(m)


def unread_branch(v, x):
    if v[2] > x:
        unused = x * 3.0
    return x * x


@pytest.mark.parametrize("f, args", [(unread_branch_in_a_loop, (np.array([[0.0, -0.57], [1.77, -1.0]]), -0.83)),
                                     (unread_branch, (np.array([1.0, 2.0]), 0.5))], ids=["in a loop", "alone"])
def test_the_test_s_check_raises_in_every_transformation(f, args):
    with pytest.raises(IndexError):
        f(*args)
    for call in (lambda: catad.grad(f, argnums=1)(*args), lambda: catad.value_and_grad(f, argnums=(0, 1))(*args),
                 lambda: catad.jvp(f, args, (np.zeros_like(args[0]), 1.0))):
        with pytest.raises(BoundsError, match="out of bounds"):
            call()


def test_in_bounds_it_computes():
    agrees(unread_branch, np.array([1.0, 2.0, 0.25]), 0.5, argnums=1)
