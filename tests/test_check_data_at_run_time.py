"""A check's data (what its message shows) may be a value a loop holds at run time (the second
derivative of a loop whose state int() reads): code generation lifted it as an array and failed
with an AttributeError, which hessian reported as catad's own error (found by differential
testing, session 27's fuzzer, seed 3003089). It is shown as it is."""
import numpy as np
import pytest

import catad


def loop_then_where(x, v, m):
    tp4 = (x, x ** (-2))
    s5 = 0.0
    acc9 = 1.0
    for i10, e11 in enumerate(v):
        acc9 = acc9 + s5 * int(acc9)
    out18 = np.square(m.sum(axis=0))
    return 0.5 * acc9 + np.sum(out18) + x * x + (np.prod(np.tanh(m)) if len(out18) >= 3 else
                                                 np.where(0 <= tp4[1], tp4[0], v[-1]))


@pytest.mark.parametrize("x", [-0.36, 1.5])
def test_hessian(x):
    args = (x, np.array([-2.04, 0.002]), np.array([[-0.889, -0.963, 1.515]]))
    assert catad.hessian(loop_then_where)(*args) == 2.0
    assert catad.grad(loop_then_where)(*args) == 2 * x  # (m has 3 columns: the prod, constant in x)
