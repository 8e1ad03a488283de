"""A loop state whose kind of number is undecided before the loop (max([e for e in x] + [0.0]),
Python's 0.0 for an empty x) stays undecided after a body that makes it NumPy's (s = s + e): where
the loop runs no iteration it is what it was. catad took it for NumPy's after the loop and gave
inf for an empty x, where Python raises ZeroDivisionError (found by differential fuzzing,
session 35). A check that depends on it refuses where Python's would fail; elsewhere it computes."""
import numpy as np
import pytest

import catad


def max_then_added(x, y):
    s = max([e for e in x] + [0.0])
    for e in x:
        s = s + e
    return y / s


def sum_then_multiplied(x, y):
    s = sum([e for e in x] + [0.0])
    for e in x:
        s = s * e
    return y / s + s


@pytest.mark.parametrize("f", [max_then_added, sum_then_multiplied], ids=lambda f: f.__name__)
def test_an_empty_loop_refuses_where_python_raises(f):
    x = np.array([])
    with pytest.raises(ZeroDivisionError):
        f(x, 1.0)
    with pytest.raises(catad.CatadError, match="cannot tell whether Python raises here"):
        catad.value_and_grad(f, argnums=(0, 1))(x, 1.0)


@pytest.mark.parametrize("f", [max_then_added, sum_then_multiplied], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [[0.5, 2.0], [-1.5, 3.0, 0.25]], ids=str)
def test_elsewhere_it_computes_as_python(f, x):
    x = np.array(x)
    value, (gx, gy) = catad.value_and_grad(f, argnums=(0, 1))(x, 1.5)
    assert value == pytest.approx(f(x, 1.5), rel=1e-15, abs=0)  # (a loop's sum in NumPy's order)
    h = 1e-6
    np.testing.assert_allclose(gx, [(f(x + h * e, 1.5) - f(x - h * e, 1.5)) / (2 * h) for e in np.eye(len(x))],
                               rtol=1e-6, atol=1e-9)
    assert gy == pytest.approx((f(x, 1.5 + h) - f(x, 1.5 - h)) / (2 * h), rel=1e-6)
