"""sum() of a list or vector whose length only the data decide (a filtered comprehension kept in a
variable, appends under an if, x[x > 0]) is Python's int 0 where it is empty: Python's sum starts
from 0. So 1.0 / it raises ZeroDivisionError there, where catad gave inf and a gradient (found by
differential fuzzing, session 35). Its length is read where the sum is used, as a vector's known
length is (sum(e for e in v if ...) was already right: a count bound before the statement)."""
import numpy as np
import pytest

import catad
from located import raises_as_python


def kept_in_a_variable(x):
    L = [e for e in x if e > 0]
    s = sum(L)
    return 1.0 / s


def appended_under_an_if(x):
    L = []
    for e in x:
        if e > 0.5:
            L.append(e * 2.0)
    return 3.0 / sum(L, 0.0)


def masked(x):
    m = x[x > 0]
    return 1.0 / sum(m)


def masked_inline(x):
    return 1.0 / sum(x[x > 0])


def in_a_branch(x):
    if x[0] > 0:
        L = [e for e in x if e > 1]
        s = sum(L)
    else:
        s = 2.0
    return 1.0 / s


def in_a_loop(x):
    acc = 1.0
    for k in range(2):
        L = [e for e in x if e > k]
        acc = acc + 1.0 / sum(L)
    return acc


def carried_out_of_a_loop(x):
    s = 1.0
    for k in range(2):
        L = [e for e in x if e > k]
        s = sum(L)
    return 1.0 / s


def to_a_negative_power(x):
    L = [e for e in x if e > 0]
    return sum(L) ** -1.0


def sorted_all(x):
    return 1.0 / sum(sorted(x))


def sorted_tail(x):
    return 1.0 / sum(sorted(x)[1:])


def sorted_head(x):
    # (the slice is checked before the statement's sum: its length cannot be read again where
    # the sum is used, so its kind is undecided: refused where Python's would raise)
    return 1.0 / sum(sorted(x)[:len(x) - 2])


FS = [kept_in_a_variable, appended_under_an_if, masked, masked_inline, in_a_branch, in_a_loop,
      carried_out_of_a_loop, to_a_negative_power, sorted_all, sorted_tail]


@pytest.mark.parametrize("f", FS, ids=lambda f: f.__name__)
def test_an_empty_sum_raises_as_python(f):
    x = np.array([0.5, -2.0]) if f is in_a_branch else np.array([]) if f in (sorted_all, sorted_tail) \
        else np.array([-1.0, -2.0])
    raises_as_python(f, x)
    if f is sorted_tail:
        raises_as_python(f, np.array([0.5]))


def test_an_empty_sum_of_undecided_kind_is_refused_where_python_raises():
    x = np.array([-1.0, -2.0])
    with pytest.raises(ZeroDivisionError):
        sorted_head(x)
    with pytest.raises(catad.CatadError, match="cannot tell whether Python raises here"):
        catad.value_and_grad(sorted_head)(x)
    x = np.array([3.0, 1.0, 2.0, 5.0])
    assert catad.value_and_grad(sorted_head)(x)[0] == sorted_head(x)


@pytest.mark.parametrize("f", FS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [[1.5, 2.5], [-0.5, 1.5], [2.0, 0.75, 3.0]], ids=str)
def test_a_sum_of_something_is_numpy(f, x):
    x = np.array(x)
    value, grad = catad.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-15, abs=0)  # (a loop's sum in NumPy's order: docs/subset.rst)
    h = 1e-6
    fd = [(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))]
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-8)


def test_a_branch_not_taken_does_not_raise():
    x = np.array([-1.0, -2.0])
    assert catad.value_and_grad(in_a_branch)(x) == (0.5, pytest.approx(np.zeros(2))) and in_a_branch(x) == 0.5
