"""A number that max(), min() or a conditional expression chooses at run time between one of
Python's own numbers and one of NumPy's, by a test holding a computed array (np.sum(w * 2.0)):
Python's 0.0 divides with ZeroDivisionError, NumPy's gives inf. catad kept the kind only where
the test could be read again where the number is used; with an array built in it, the number was
taken for NumPy's, and 1.0 / min(np.sum(w * 2.0) - 2.0, 0.0) gave inf where Python raises (the
loop fuzzer's seed 60168). Now the test's operands are computed before the statement (where they
can be: not in a comprehension or a branch), so the check reads them; where they cannot, the kind
is undecided (through loops, branches and calls), and a check that holds or fails by the kind
refuses at run time where Python's number would fail it.

A call of the user's own function whose body runs a check (math.sqrt of a negative number) is
such a check too: np.where(c, h(x), y) evaluates h(x) whichever c is, as Python does, where
catad ran it only where c held (the loop fuzzer's seed 60139)."""
import math

import numpy as np
import pytest

import catad
from catad.errors import DomainError, ZeroDivisionError_
from located import agrees


def min_of_a_sum(w):
    s = -0.5 + min(np.sum(w * 2.0), 0.5)
    return w[0] * (s / s)


def max_of_a_sum(w):
    s = max(np.sum(w * 2.0) - 2.0, 0.0)
    return 1.0 / s + w[0]


def conditional_on_a_sum(w):
    s = 0.0 if np.sum(w * 2.0) > 1.0 else np.sum(w) * 2.0
    return 1.0 / s + w[0]


def min_in_a_comprehension(w):
    return sum(1.0 / max(np.sum(w * r) - 2.0, 0.0) for r in [1.0, 2.0])


def reciprocal(s):
    return 1.0 / s


def chosen_in_a_comprehension_then_passed(w):
    return sum(reciprocal(max(np.sum(w * q), 0.0)) for q in [1.0, 2.0])


def chosen_in_a_branch_then_a_loop_s_state(w):
    s = 1.0
    for r in w:
        s = max(np.sum(w * r) - 2.0, 0.0) if w[0] > np.sum(w * 0.5) else s * 2.0
    return 1.0 / s


@pytest.mark.parametrize("f, w", [(min_of_a_sum, [1.0]), (max_of_a_sum, [0.5]), (conditional_on_a_sum, [1.0])],
                         ids=lambda f: getattr(f, "__name__", ""))
def test_python_s_zero_raises_where_python_raises(f, w):
    w = np.array(w)
    with pytest.raises(ZeroDivisionError):
        f(w)
    with pytest.raises(ZeroDivisionError_, match="float division by zero"):
        catad.value_and_grad(f)(w)


@pytest.mark.parametrize("f, w", [(min_of_a_sum, [0.1, 0.05]), (max_of_a_sum, [3.0, 0.2]),
                                  (conditional_on_a_sum, [0.1, 0.05]),
                                  (min_in_a_comprehension, [3.0, 0.2])], ids=lambda f: getattr(f, "__name__", ""))
def test_elsewhere_the_value_and_derivatives_are_python_s(f, w):
    agrees(f, np.array(w))


def test_numpy_s_zero_chosen_gives_inf_as_numpy_does():
    w = np.array([1.0, 0.0])  # max(np.float64(0.0), 0.0) is the first: NumPy's
    with np.errstate(divide="ignore"):
        assert max_of_a_sum(w) == np.inf
        assert catad.value_and_grad(max_of_a_sum)(w)[0] == np.inf


def test_in_a_comprehension_where_python_s_would_raise_it_is_refused_at_run_time():
    w = np.array([1.0])
    with pytest.raises(ZeroDivisionError):
        min_in_a_comprehension(w)
    with pytest.raises(catad.CatadError, match="cannot tell whether Python raises here") as info:
        catad.value_and_grad(min_in_a_comprehension)(w)
    assert not isinstance(info.value, ZeroDivisionError_)


def test_a_kind_passed_to_the_user_s_function_is_undecided_there_too():
    agrees(chosen_in_a_comprehension_then_passed, np.array([3.0]))
    w = np.array([-1.0])
    with pytest.raises(ZeroDivisionError):
        chosen_in_a_comprehension_then_passed(w)
    with pytest.raises(catad.CatadError, match="cannot tell whether Python raises here"):
        catad.value_and_grad(chosen_in_a_comprehension_then_passed)(w)


def test_a_loop_s_state_and_an_if_s_join_keep_the_kind_undecided():
    """The state of a loop (and the join of an if statement's branches) whose kind is undecided
    somewhere is undecided throughout, not a Bool the loop carries (which would read the mark
    as a value)."""
    agrees(chosen_in_a_branch_then_a_loop_s_state, np.array([3.0]))
    agrees(chosen_in_a_branch_then_a_loop_s_state, np.array([-1.0]))
    w = np.array([1.0])
    with pytest.raises(ZeroDivisionError):
        chosen_in_a_branch_then_a_loop_s_state(w)
    with pytest.raises(catad.CatadError, match="cannot tell whether Python raises here"):
        catad.value_and_grad(chosen_in_a_branch_then_a_loop_s_state)(w)


def square_root(a):
    return np.where(a > math.sqrt(a), a, 2.0 * a)


def where_of_a_call(x, v):
    return np.where(x > v[3], square_root(x), np.sum(v))


def test_np_where_runs_a_call_of_the_user_s_function_whichever_is_chosen():
    v = np.array([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ValueError, match="math domain error"):
        where_of_a_call(-0.5, v)
    with pytest.raises(DomainError, match="math domain error"):
        catad.value_and_grad(where_of_a_call)(-0.5, v)
    agrees(where_of_a_call, 5.0, v)
    agrees(where_of_a_call, 0.5, v)


def max_of_a_list_of_both(u, t):
    return 1.0 / (max([e for e in u] + [0.0]) - t)


def sum_of_a_list_of_both(u):
    return 1.0 / sum([e for e in u] + [0.0])


def test_max_min_and_sum_of_a_list_holding_both_kinds():
    """max([e for e in u] + [0.0]) is Python's 0.0 where it is the largest, NumPy's elsewhere, and
    sum() of the list Python's where u is empty: catad took both for NumPy's, and gave inf where
    Python raises ZeroDivisionError (the loop fuzzer's seed 65371). Now a check that depends on
    the kind refuses at run time where Python's number would fail it."""
    for f, args in [(max_of_a_list_of_both, (np.array([-0.5]), 0.0)), (sum_of_a_list_of_both, (np.array([]),))]:
        with pytest.raises(ZeroDivisionError):
            f(*args)
        with pytest.raises(catad.CatadError, match="cannot tell whether Python raises here"):
            catad.value_and_grad(f)(*args)
    agrees(max_of_a_list_of_both, np.array([0.5, 2.0]), 0.3)
    agrees(sum_of_a_list_of_both, np.array([1.0, 0.5]))


def total(u):
    return sum(e for e in u)


def mean_of(v):
    return total(v) / len(v)


def positive_part(u):
    s = 0.0
    for e in u:
        if e > 0:
            s = s + e
    return s


def inverse_of_the_positive_part(u):
    return 1.0 / positive_part(u) + u[0]


def test_the_result_of_a_function_python_s_only_where_a_condition_holds():
    """total(v) is Python's int 0 where v is empty, positive_part(u) Python's 0.0 where no element
    is positive: the caller took the result of such a call for NumPy's, so mean_of(empty) gave nan
    where Python raises ZeroDivisionError (the loop fuzzer's seed 65646). The call's kind is now
    undecided in the caller."""
    for f, u in [(mean_of, np.array([])), (inverse_of_the_positive_part, np.array([-1.0]))]:
        with pytest.raises(ZeroDivisionError):
            f(u)
        with pytest.raises(catad.CatadError, match="cannot tell whether Python raises here"):
            catad.value_and_grad(f)(u)
    agrees(mean_of, np.array([1.0, 2.5]))
    agrees(inverse_of_the_positive_part, np.array([1.0, -2.0, 0.5]))
