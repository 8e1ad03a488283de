"""A number that is one of Python's own on one branch and one of NumPy's on the other (s = 0.0,
then s = s + x[i] only where x[i] > 0) divides as the number it is at run time: Python's
ZeroDivisionError where no NumPy element reached it, NumPy's inf where one did. This holds for if
statements, conditional expressions, loops whose body changes the number's kind on some
iterations only (a Bool the loop carries says where it is still Python's), nested loops, loops
with break and continue, while loops, and loops after loops. Each function is called itself:
catad raises where it raises, and otherwise gives its value, its gradient (central differences)
and its jvp."""
import numpy as np
import pytest

import catad
from catad.errors import ZeroDivisionError_
from catad.pipeline import pipeline
from located import agrees


def if_statement(x):
    s = 0.0
    if x[0] > 0:
        s = x[1]
    return 1.0 / s + x[0]


def conditional_expression(x):
    s = 0.0 if x[0] <= 0 else x[1]
    return 1.0 / s + x[0]


def sum_of_positives(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s = s + x[i]
    return 1.0 / s


def last_positive(x):
    s = 0.0
    for i in range(2):
        if x[i] > 0:
            s = x[i] * 2.0
    return 1.0 / s


def break_before_update(x):
    s = 0.0
    for v in x:
        if v > 5:
            break
        s = s + v
    return 1.0 / s


def while_then_loop(x):
    s = 0.0
    i = 0
    while i < x.shape[0] and x[i] < 0:
        i += 1
    for j in range(i, x.shape[0]):
        s = s + x[j] if x[j] > 2 else s
    return 2.0 / s + x[0]


def nested_with_branch(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(x.shape[0]):
            if x[i] * x[j] > 4:
                s = s + x[i] * x[j]
    return s ** -1.0


def two_states(x):
    s, t = 0.0, 1.0
    for v in x:
        if v > 0:
            s = s + v
        else:
            t = t * 2.0
    return 1.0 / s + 1.0 / (t - 2.0)


def with_continue(x):
    s = 0.0
    for v in x:
        if v > 0:
            s = s + v
            continue
        s = s * 1.0
    return 1.0 / s


def modulo(x):
    s = 0
    for v in x:
        if v > 0:
            s = s + v
    return 3.0 % s


def loop_after_loop(x):
    s = 0.0
    for v in x:
        if v > 1:
            s = s + v
    for v in x:
        if v < -1:
            s = s - v
    return 1.0 / s


def nested_sum(x, m):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(m):
            s = s + x[i] * j
    return 1.0 / s


def _reciprocal(s):
    return 1.0 / s


def passed_on(x):
    s = 0.0
    for v in x:
        if v > 0:
            s = s + v
    return _reciprocal(s) + _reciprocal(x[0] * 0.5 + 7.0)


FUNCTIONS = [if_statement, conditional_expression, sum_of_positives, last_positive, break_before_update,
             while_then_loop, nested_with_branch, two_states, with_continue, modulo, loop_after_loop, passed_on]
INPUTS = [[-1.0, -2.0], [6.0, 1.0], [1.0, 3.0], [3.0, -1.0], [-1.0, 0.5], [-3.0, 2.5], [2.5, 0.0], []]


def _python(fn, *args):
    try:
        return fn(*args), None
    except (ZeroDivisionError, IndexError) as e:
        return None, e


@pytest.mark.parametrize("fn", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", INPUTS, ids=str)
def test_as_python_divides(fn, x):
    x = np.array(x)
    want, error = _python(fn, x)
    if isinstance(error, IndexError):  # x[0] of nothing
        with pytest.raises(IndexError):
            catad.value_and_grad(fn)(x)
        return
    if error is not None:
        with pytest.raises(ZeroDivisionError_, match=str(error)):
            catad.value_and_grad(fn)(x)
        with pytest.raises(ZeroDivisionError_):
            catad.jvp(fn, (x,), (np.ones_like(x),))
        return
    with np.errstate(all="ignore"):
        value = catad.value_and_grad(fn)(x)[0]
    np.testing.assert_equal(value, want)
    if np.isfinite(want) and x.size and np.all(np.abs(np.abs(x)[:, None] - [0, 1, 2, 5]) > 1e-3):
        agrees(fn, x)  # away from the branches' thresholds: central differences hold


@pytest.mark.parametrize("m", [0, 3])
def test_inner_loop_of_no_iteration(m):
    """The sum stays Python's 0.0 where the inner loop runs no iteration (m = 0), and the outer
    loop is still vectorised: where the number stays Python's reads only m."""
    x = np.array([0.5, 1.5])
    if m == 0:
        with pytest.raises(ZeroDivisionError_, match="float division by zero"):
            catad.grad(nested_sum)(x, m)
    else:
        agrees(nested_sum, x, m)
    notes = pipeline(nested_sum, x, m).loop_notes
    assert len(notes) == 2 and all("is vectorised: no Python loop" in n for n in notes), notes


def test_branch_flag_is_carried():
    """Where the kind changes on data, the loop carries a Bool: the loop is not vectorised for
    nothing, and both branches' values come out right (above); here: the flag is a state."""
    notes = pipeline(sum_of_positives, np.array([1.0, -2.0])).loop_notes
    assert any("python s" in n for n in notes), notes


def reciprocal_of_the_sum_so_far(x):
    s = 0.0
    r = 0.0
    for v in x:
        r = r + 1.0 / s  # Python's 0.0 in the first iteration: Python raises there
        s = s + v
    return r + s


def sum_then_reciprocal(x):
    s = 0.0
    for v in x:
        s = s + v
    return x[0] / s + 1.0 / (s + 1.0)


@pytest.mark.parametrize("x", [[2.0, 1.0], [], [0.5]], ids=str)
def test_the_first_iteration_sees_python_s_number(x):
    """The state is Python's 0.0 in the first iteration and NumPy's after it: its flag is read
    by the body's check, so the loop carries it; a loop whose body reads no flag does not."""
    x = np.array(x)
    want, error = _python(reciprocal_of_the_sum_so_far, x)
    if error is not None:
        with pytest.raises(ZeroDivisionError_, match="float division by zero"):
            catad.grad(reciprocal_of_the_sum_so_far)(x)
    else:
        assert catad.value_and_grad(reciprocal_of_the_sum_so_far)(x)[0] == want
    notes = pipeline(reciprocal_of_the_sum_so_far, np.array([2.0, 1.0])).loop_notes
    assert len(notes) == 1 and "a check in its body reads the loop's state" in notes[0], notes
    notes = pipeline(sum_then_reciprocal, np.array([2.0, 1.0])).loop_notes
    assert len(notes) == 1 and "is vectorised: no Python loop" in notes[0], notes


def builtin_results(x):
    a = 1.0 / max(x[0], 0.0)  # Python's 0.0 where x[0] <= 0 (max gives its first argument unless the second is greater)
    b = 2.0 / min(1.0, abs(x[0] - 1.0))  # abs of NumPy's number is NumPy's
    c = 3.0 / abs(float(len(x)) - 2.0)  # abs of Python's number is Python's
    return a + b + c


@pytest.mark.parametrize("x", [[-1.0], [0.0], [1.0], [2.0], [3.0, 1.0], [0.5, 2.0]], ids=str)
def test_builtin_max_min_abs_keep_the_kind_of_what_they_give(x):
    x = np.array(x)
    want, error = _python(builtin_results, x)
    if error is not None:
        with pytest.raises(ZeroDivisionError_, match=str(error)):
            catad.value_and_grad(builtin_results)(x)
        return
    with np.errstate(all="ignore"):
        assert catad.value_and_grad(builtin_results)(x)[0] == want


def unused_branch_value(x):
    if x.size == 0:
        y = x[-1]  # raises in Python; y is never read
    return 2.0 * x.size + x.sum()


def unused_loop_state(x):
    s = 1.0
    if x.size == 0:
        for i in range(2):
            if x[-1] <= x[0]:
                break
            s = 0
            s += 1.0
    return 2.0 * x.size + x.sum()


@pytest.mark.parametrize("fn", [unused_branch_value, unused_loop_state])
def test_an_if_whose_assignments_are_not_read_still_runs_its_checks(fn):
    """An if statement whose arms assign only names never read after it (or read as different
    types after each arm) was left out whole, with its checks: Python raises IndexError there."""
    with pytest.raises(IndexError, match="index -1 is out of bounds for axis 0 with size 0"):
        fn(np.array([]))
    with pytest.raises(IndexError, match="index -1 is out of bounds for axis 0 with size 0"):
        catad.value_and_grad(fn)(np.array([]))
    x = np.array([1.0, 2.0])
    assert catad.value_and_grad(fn)(x)[0] == fn(x)


def _ratio(a, b):
    return a / b + 1.0


def literal_arguments(x):
    return _ratio(0, 1) / (2.0 - len(x)) + _ratio(x[0], 0) * 0.0


@pytest.mark.parametrize("x", [[1.0, 2.0], [1.0]], ids=str)
def test_a_callee_specialised_to_python_s_ints_keeps_them_python_s(x):
    """_ratio(0, 1) is compiled for the constants 0 and 1, Python's ints: its result is
    Python's 1.0, and 1.0 / 0.0 raises; _ratio(x[0], 0) divides NumPy's number by 0: inf."""
    x = np.array(x)
    want, error = _python(literal_arguments, x)
    if error is not None:
        with pytest.raises(ZeroDivisionError_, match=str(error)):
            catad.value_and_grad(literal_arguments)(x)
        return
    with np.errstate(all="ignore"):
        np.testing.assert_equal(catad.value_and_grad(literal_arguments)(x)[0], want)


def rounds_in_the_branch_not_taken(x):
    t = 2
    for i in range(len(x)):
        if x[0] <= x[0]:
            t = t + 1
        else:
            t = round(i ** -1.0 * np.inf) + t  # never runs: round(inf) raises OverflowError
    return t * x[0]


def test_an_overflow_in_the_branch_not_taken_is_not_raised():
    """Both branches computed at once: int() of the untaken branch's inf raised OverflowError
    from inside catad's run time; the variant running only the branch taken gives Python's value."""
    x = np.array([2.0])
    value, g = catad.value_and_grad(rounds_in_the_branch_not_taken)(x)
    assert value == rounds_in_the_branch_not_taken(x) and g.tolist() == [3.0]
