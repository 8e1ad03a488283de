"""Conditions test Python's truth (expressions.condition): a number's (x != 0, a NaN true, -0.0
false), a list's and a tuple's (not empty), and `a and b` tested tests each side's; held against
Python's values and central differences. An array's truth, and `and`/`or` as a value of other
operands than bools (Python's is one of its operands), stay refused."""
import numpy as np
import pytest

import catad
from located import agrees, refused


def count_tested(x, v):
    n = len(v)
    if n:
        return x * 2
    return x


def float_tested(x, v):
    return x * 3 if x else x - 1.0


def not_tested(x, v):
    k = len(v) - 3
    if not k:
        x = x * 5
    return x


def both_tested(x, v):
    n, k = len(v), len(v) - 3
    if n and k:
        return x * 2
    if n or k:
        return x * 7
    return x


def while_tested(x, v):
    k = len(v) + 1
    while k:
        x = x * 1.5
        k -= 1
    return x


def list_tested(x, v):
    xs = [x * a for a in v]
    return x * 2.0 if xs else x


def tuple_tested(x, v):
    t = ()
    u = (x, v)
    return x * (2.0 if u else 1.0) + (1.0 if t else 0.0)


def filter_tested(x, v):
    return sum(a * x for a in v if a)


def nan_tested(x, v):
    y = x * v[0]
    return x * 2 if y else x


def assert_tested(x, v):
    assert len(v), "empty"
    return x * 3


CASES = [count_tested, float_tested, not_tested, both_tested, while_tested, list_tested, tuple_tested,
         filter_tested, nan_tested]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [1.5, -2.0, 0.0, -0.0])
@pytest.mark.parametrize("v", [[], [2.0], [0.0, -0.0, 1.0], [0.0, 1.0, 2.0, 3.0]], ids=len)
def test_truth_as_python(f, x, v):
    v = np.array(v)
    if f is nan_tested and not len(v):
        return
    if x == 0.0 and f in (float_tested, nan_tested):  # x's truth jumps there: the branch taken's derivative
        value, grad = catad.value_and_grad(f)(x, v)
        assert value == f(x, v) and grad == 1.0
    else:
        value = agrees(f, x, v)[0]
    assert np.copysign(1.0, value) == np.copysign(1.0, f(x, v))  # -0.0 where Python's is


def while_an_int(x, n):
    s = 0.0
    while n:
        s += x * n
        n -= 1
    return s


@pytest.mark.parametrize("n", [0, 1, 3])
def test_while_an_int_argument(n):
    agrees(while_an_int, 0.5, n)


def test_nan_is_true():
    assert catad.value_and_grad(nan_tested)(1.5, np.array([np.nan])) == (3.0, 2.0)
    assert catad.value_and_grad(nan_tested)(1.5, np.array([0.0])) == (1.5, 1.0)
    value, grad = catad.value_and_grad(filter_tested)(1.5, np.array([0.0, np.nan, 2.0]))
    assert np.isnan(value) and np.isnan(grad)  # the NaN passes the filter, as in Python


def test_assert_tests_a_count():
    assert catad.grad(assert_tested)(1.5, np.ones(2)) == 3.0
    with pytest.raises(AssertionError):
        assert_tested(1.5, np.ones(0))
    with pytest.raises(catad.CatadError, match="empty"):
        catad.grad(assert_tested)(1.5, np.ones(0))


def array_tested(x, v):
    if v > 0.0:  # ERR
        return x
    return 0.0


def and_as_a_value(x, v):
    n = len(v)
    return (n and 2) * x  # ERR


def or_as_a_value(x, v):
    return (x or 1.0) * 2.0  # ERR


@pytest.mark.parametrize("f, words", [
    (array_tested, ["Vec Bool, not a Bool", "ValueError"]), (and_as_a_value, ["operand of 'and' is an Int"]),
    (or_as_a_value, ["operand of 'or' is a Float"])], ids=lambda c: getattr(c, "__name__", ""))
def test_refused(f, words):
    refused(f, (1.5, np.ones(3)), *words)
