"""A variable assigned in one branch of an if only is bound where that branch ran: reading it
is Python's UnboundLocalError where it did not, and its value where it did (it was refused
while compiling). The check goes before the statement that reads it; a read it cannot go before
(in a conditional expression or a comprehension) stays refused. Each function is called itself:
catad raises what it raises, else gives its value and gradient."""
import numpy as np
import pytest

import catad
from located import agrees, raises_like_python, outcome as python


def one_branch(x, v):
    if x > 0:
        y = x * 2.0
    return y + x


def array_in_one_branch(x, v):
    if x > 0:
        y = v * x
    else:
        z = 1.0
    return np.sum(y)


def two_ifs(x, v):
    if x > 0:
        y = x * 2.0
    if x > 1:
        y = x * 3.0
    return y + x


def read_under_the_same_test(x, v):
    if x > 0:
        y = x * 2.0
    if x > 0:
        return y * y
    return x


def nested(x, v):
    if x > 0:
        if x > 1:
            y = x ** 2
    else:
        y = -x
    return y


def pythons_float(x, v):
    if x > 0:
        y = 1.0
    return 1.0 / (y - 1.0) + x


def a_tuple(x, v):
    if x > 0:
        y = (x, 2.0 * x)
    a, b = y
    return a * b


def read_by_a_nested_function(x, v):
    if x > 0:
        y = x * 2.0

    def g(z):
        return z * y
    return g(x)


def read_by_a_while_loop(x, v):
    if x > 0:
        y = x * 2.0
    while x < 10.0:
        x = x * 2.0 + y
    return x


def augmented(x, v):
    if x > 0:
        y = x * 2.0
    y += 1.0
    return y


FUNCTIONS = [one_branch, array_in_one_branch, two_ifs, read_under_the_same_test, nested, pythons_float, a_tuple,
             read_by_a_nested_function, read_by_a_while_loop, augmented]



@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.5, 2.0, -1.0, 1.5])
def test_as_python(f, x):
    v = np.array([1.0, 2.0])
    want = python(f, x, v)
    if isinstance(want, tuple):
        if want[0] is UnboundLocalError or want[0] is NameError:
            with pytest.raises(want[0], match=want[1]) as got:
                catad.grad(f)(x, v)
            assert type(got.value).__mro__[2] is want[0]  # (NameError for a nested function's free variable)
        else:
            with pytest.raises(want[0]):
                catad.grad(f)(x, v)
        return
    agrees(f, x, v)


def test_the_error_is_pythons():
    assert python(one_branch, -1.0, None) == (UnboundLocalError, "cannot access local variable 'y' where it is "
                                                                 "not associated with a value")
    with pytest.raises(UnboundLocalError) as e:
        catad.grad(one_branch)(-1.0, None)
    assert "test_maybe_bound.py" in str(e.value) and isinstance(e.value, catad.CatadError)


def read_in_a_conditional_expression(x):
    if x > 0.0:
        y = x * 2.0
    return y if x > 1.0 else 0.0


def test_a_read_the_check_cannot_precede_is_refused():
    with pytest.raises(catad.CatadError, match="only one branch"):
        catad.grad(read_in_a_conditional_expression)(2.0)


def carried_by_a_loop(x, v):
    s = 0.0
    for e in v:
        if e > x:
            t = e * x
        s = s + t
    return s


def test_a_variable_a_loop_would_carry_unbound_is_refused():
    with pytest.raises(catad.CatadError, match="before it is assigned"):
        catad.grad(carried_by_a_loop)(0.5, np.array([1.0, 2.0]))


# ---------------------------------------------------------------- the loop variable after the loop

def last_item(x, v):
    for e in v:
        x = x + e
    return x * e


def last_item_of_a_pass(x, v):
    for e in v:
        pass
    return e * x


def last_item_of_a_list(x, v):
    for e in [x, 3.0]:
        pass
    return e * x


def last_item_of_a_slice(x, v):
    s = 0.0
    for e in v[:2]:
        s += e * x
    return s + e


def last_index(x, v):
    s = x
    for i in range(len(v)):
        s = s * 1.5 + v[i]
    return s * i


def last_index_of_a_stepped_range(x, v):
    s = x
    for i in range(1, len(v) + 1, 2):
        s = s + x * i
    return s + i


LOOPS = [last_item, last_item_of_a_pass, last_item_of_a_list, last_item_of_a_slice, last_index,
         last_index_of_a_stepped_range]


@pytest.mark.parametrize("f", LOOPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [np.array([1.0, 2.0]), np.array([]), np.array([-3.0])], ids=["two", "empty", "one"])
def test_the_loop_variable_after_the_loop(f, v):
    """Its last item where the loop ran (it was refused), Python's UnboundLocalError where it ran
    no iteration."""
    want = python(f, 0.5, v)
    if isinstance(want, tuple):
        assert want[0] is UnboundLocalError
        with pytest.raises(UnboundLocalError, match=want[1]):
            catad.grad(f)(0.5, v)
        return
    agrees(f, 0.5, v)


# ---------------------------------------------------------------- first assigned in a loop that may not run

def first_in_the_loop(x, v):
    for e in v:
        t = e * x
    return t


def two_first_in_a_range(x, v):
    for i in range(len(v)):
        t = v[i] * x
        u = t + 1.0
    return u * t


def pythons_number_first_in_the_loop(x, v):
    for e in v:
        t = x * 2.0
    return 1.0 / (t - t)


def an_array_first_in_the_loop(x, v):
    for e in v:
        w = v * x
    return np.sum(w)


FIRSTS = [first_in_the_loop, two_first_in_a_range, pythons_number_first_in_the_loop, an_array_first_in_the_loop]


@pytest.mark.parametrize("f", FIRSTS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [np.array([1.0, 2.0]), np.array([]), np.array([-3.0])], ids=["two", "empty", "one"])
def test_first_assigned_in_a_loop_that_may_not_run(f, v):
    """Carried by the loop (it was refused): its value where the loop ran, Python's
    UnboundLocalError where it ran no iteration; a Python number stays one."""
    want = python(f, 0.5, v)
    if raises_like_python(want, f, 0.5, v):
        return
    agrees(f, 0.5, v)


def assigned_in_a_branch_of_the_loop(x, v):
    for e in v:
        if e > 0:
            t = e * x
    return t


def test_assigned_on_some_paths_of_the_body_is_refused():
    with pytest.raises(catad.CatadError, match="may run zero times"):
        catad.grad(assigned_in_a_branch_of_the_loop)(0.5, np.array([1.0]))


def loop_variable_after_a_break(x, v):
    for e in v:
        if e < 0.0:
            break
    return x * e


@pytest.mark.parametrize("v", [np.array([1.0, 2.0]), np.array([]), np.array([-1.0, 5.0]), np.array([3.0, -2.0, 4.0])],
                         ids=["none", "empty", "first", "middle"])
def test_the_loop_variable_after_a_break(v):
    want = python(loop_variable_after_a_break, 0.5, v)
    if isinstance(want, tuple):
        with pytest.raises(UnboundLocalError, match=want[1]):
            catad.grad(loop_variable_after_a_break)(0.5, v)
        return
    agrees(loop_variable_after_a_break, 0.5, v)


def augmented_only(x, v):
    if x > 0:
        y = x * 2.0
    y += 1.0
    return x * 3.0


@pytest.mark.parametrize("x", [0.5, -1.0])
def test_an_augmented_assignment_reads_it(x):
    """(y += ... reads y: Python's UnboundLocalError where the branch did not run.)"""
    want = python(augmented_only, x, None)
    if raises_like_python(want, augmented_only, x, None):
        return
    assert catad.value_and_grad(augmented_only)(x, None) == (want, 3.0)


def index_after_a_float(v, n):
    i = 0.5
    for i in range(n):
        v = v * 2.0
    return v[0] + i


def index_after_an_earlier_loop(v, n):
    for i in range(2):
        v = v * 2.0
    for i in range(n):
        v = v * 2.0
    return v[0] + i


def test_a_loop_variable_bound_before_is_not_unbound():
    """Bound before the loop to what catad does not join with an int (a float): refused where read,
    never Python's UnboundLocalError where the range is empty (Python keeps what it was); bound to an
    int (an earlier loop's last index), joined."""
    v = np.array([1.0, 2.0])
    assert not isinstance(python(index_after_a_float, v, 0), tuple)
    with pytest.raises(catad.CatadError, match="what it was before the loop"):
        catad.grad(index_after_a_float)(v, 0)
    for n in (0, 3):
        assert catad.value_and_grad(index_after_an_earlier_loop)(v, n)[0] == python(index_after_an_earlier_loop, v, n)
