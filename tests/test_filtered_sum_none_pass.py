"""sum(e for e in v if p(e)) of NumPy's numbers is Python's int 0 where no element passes (Python's
sum starts from 0), so 1.0 / it and it ** -0.5 raise ZeroDivisionError there. Where none passes
is a count bound before the statement; it was not made in a conditional expression nor after
something in the statement that may raise (np.min of m[:, ::-1]), and the sum was then Python's
only for an empty v: v = [0.0, 3.0] gave inf where Python raises (found by differential testing,
session 28). The count raises nothing, so it is made there too."""
import numpy as np
import pytest

import catad
from located import raises_as_python


def after_a_check(x, v, m):
    return np.min(m[:, ::-1]) * x / (sum(e for e in v if e > 1e9) ** -0.5)


def in_a_branch(x, v, m):
    if 1.0 < m.mean():
        x = np.where(np.min(m[:, ::-1]) >= 0.5, m[-1, -1], x) / (sum(e for e in v if e > 1e9) ** -0.5)
    return x


def in_a_conditional_expression(x, v, m):
    return (1.0 / sum(e for e in v if e > 1e9)) if x > 0.0 else x


def both_sides(x, v, m):
    return np.min(m) + (x / sum(e for e in v if e > 1e9) if x > 0.0 else x / sum(e for e in v if e < -1e9))


FS = [after_a_check, in_a_branch, in_a_conditional_expression, both_sides]
M = np.array([[2.0, 1.0], [-0.5, 0.0], [2.0, 2.0]])


@pytest.mark.parametrize("f", FS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [[], [0.0, 3.0, 0.5]], ids=len)
def test_none_passes_raises_as_python(f, v):
    raises_as_python(f, 1.5, np.array(v), M)


@pytest.mark.parametrize("f", FS, ids=lambda f: f.__name__)
def test_some_pass_is_numpy(f):
    v = np.array([1.0, 3e9, -2e9, 4e9])
    value, grad = catad.value_and_grad(f)(1.5, v, M)
    assert value == f(1.5, v, M)
    _, t = catad.jvp(f, (1.5, v, M), (1.0, np.zeros(4), np.zeros((3, 2))))
    assert t == grad


def index_first(x, v, m):
    return v[10] + x / sum(e for e in v if e > 1e9)


def test_the_earlier_error_is_raised_first():
    v = np.array([0.0, 3.0])
    with pytest.raises(IndexError):
        index_first(1.5, v, M)
    with pytest.raises(catad.CatadError, match="out of bounds"):
        catad.value_and_grad(index_first)(1.5, v, M)


def in_a_comprehension(x, v, m):
    a3 = np.array([x / (1.0 + (sum(e for e in v if e > 1e9) ** -1)) for i2 in range(len(v))])
    return np.sum(a3)


@pytest.mark.parametrize("v", [[2.0, 2.0, 0.0, -0.5], [0.5]], ids=len)
def test_in_a_comprehension_none_passes_raises_as_python(v):
    with pytest.raises(ZeroDivisionError):
        in_a_comprehension(0.5, np.array(v), M)
    with pytest.raises(catad.CatadError, match="cannot be raised to a negative power"):
        catad.value_and_grad(in_a_comprehension)(0.5, np.array(v), M)


def filter_reads_an_element(x, v, m):
    s = sum(e for e in v if e > m[0, -1])  # the count's filter may raise (m empty), as the sum's
    return x / s


def element_may_raise(x, v, m):
    s = sum(np.arctan(m[1, 0]) for e in v if e > np.mean(m, axis=0)[-1])  # m[1, 0]: only where one passes
    return x / s


def index_first_then_filtered(x, v, m):
    return v[10] + 1.0 / sum(e for e in v if e > m[0, -1])


@pytest.mark.parametrize("f", [filter_reads_an_element, element_may_raise], ids=lambda f: f.__name__)
def test_a_count_that_may_raise(f):
    v = np.array([3.0, -0.5, -0.5])
    raises_as_python(f, 1.5, v, np.array([[-0.5, 0.0, 0.5, 3.0]]))  # none passes
    with np.errstate(all="ignore"), pytest.raises((IndexError, ZeroDivisionError)) as python:
        f(1.5, v, np.zeros((0, 4)))  # m[0, -1] of no row; a NaN mean, which none passes
    with pytest.raises(type(python.value)) as ours:
        catad.value_and_grad(f)(1.5, v, np.zeros((0, 4)))
    assert isinstance(ours.value, catad.CatadError) and str(python.value) in str(ours.value)
    m = np.array([[-0.5, 0.0, 0.5, -3.0], [1.0, 1.0, 1.0, 1.0]])
    assert catad.value_and_grad(f)(1.5, v, m)[0] == f(1.5, v, m)


def test_the_statements_first_error_is_raised_first():
    v = np.array([3.0, -0.5])
    for m in (np.zeros((0, 2)), np.array([[1.0, 5.0]])):
        with pytest.raises(IndexError, match="index 10"):
            index_first_then_filtered(1.5, v, m)
        with pytest.raises(catad.CatadError, match="index 10"):
            catad.value_and_grad(index_first_then_filtered)(1.5, v, m)
