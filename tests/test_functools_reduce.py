"""functools.reduce(f, xs[, init]) as the whole value of an assignment or a return (catad/frontend/
iterators.reduce_statement: the loop Python's reduce runs), and the operator module's arithmetic
(operator.mul, ... : idioms.h_operator_fn) as the function given to it or to map. Python's
TypeError for an empty iterable without an initial value; a reduce inside an expression is
refused, located. Oracle: the user's function itself (located.agrees). catad refused reduce and
operator's functions on main."""
import functools
import math
import operator
from functools import reduce

import numpy as np
import pytest

import catad
from located import agrees, refused


def with_an_initial_value(x):
    return functools.reduce(lambda a, b: a * 0.5 + b, x, 1.0)


def of_a_list_without_one(x):
    r = reduce(lambda a, b: a * b, [t + 1.0 for t in x])
    return r


def of_an_operator(x):
    t = reduce(operator.mul, x, 1.0)
    return t


def in_a_loop(x):
    s = 0.0
    for k in range(3):
        t = reduce(lambda a, b: max(a, b * k), x, -10.0)
        s = s + t
    return s


def operators_mapped(a, b):
    return sum(map(operator.mul, a, b)) + operator.truediv(a[0], 2) + operator.pow(b[1], 2) - operator.sub(a[1], b[0])


X = np.array([0.3, -0.7, 1.1, 0.4, -1.6])


@pytest.mark.parametrize("f", [with_an_initial_value, of_a_list_without_one, of_an_operator, in_a_loop])
@pytest.mark.parametrize("x", [X, X[:1]])
def test_reduce(f, x):
    agrees(f, x)


def test_operators():
    agrees(operators_mapped, X, X[::-1].copy(), argnums=(0, 1))


def of_nothing(x):
    return reduce(lambda a, b: a + b, x[:0])


def test_of_nothing_raises_pythons_error():
    with pytest.raises(TypeError, match="reduce\\(\\) of empty iterable with no initial value"):
        of_nothing(X)
    with pytest.raises(TypeError, match="reduce\\(\\) of empty iterable with no initial value"):
        catad.grad(of_nothing)(X)


def inside_an_expression(x):
    return reduce(operator.add, x) + 1.0  # ERR


def test_inside_an_expression_refused():
    refused(inside_an_expression, (X,), "functools.reduce is supported as the whole value of an assignment")


def init_after_the_items(x):
    return reduce(lambda a, b: a + b, [math.sqrt(x[0] - 5.0)], 1.0 / (x[0] - x[0]))


def test_the_iterable_is_evaluated_before_the_initial_value():
    """Python evaluates reduce's arguments in order: the list's ValueError first (catad raised the
    initial value's ZeroDivisionError)."""
    with pytest.raises(ValueError):
        init_after_the_items(X)
    with pytest.raises(ValueError):
        catad.grad(init_after_the_items)(X)


def len_redefined(x):
    len = lambda a: 0  # noqa: E731
    return reduce(lambda a, b: a + b, x)  # ERR


def test_without_an_initial_value_where_len_is_redefined():
    refused(len_redefined, (X,), "where len means something else")
