"""What a tuple, list or dict is crosses a call of your own function in both directions: a list
held as an array stays a list (Python's + concatenates it, len counts its items), and the
Python numbers among its items (or a tuple's, or a dict's) stay Python's, whose arithmetic
raises where NumPy's gives inf or nan. Before, both were lost at the call: catad computed
sum(t + t) of a list argument elementwise, and returned nan where Python raises
ZeroDivisionError for k(x)[1] / 0 with k returning (x, abs(x)). Each is held against Python's
own call."""
import math

import numpy as np
import pytest

import catad
from catad.errors import ZeroDivisionError_
from catad.frontend import compile_function
from catad.lang.terms import Call, Term
from located import agrees, refused


def pair(a):
    return a, abs(a)


def pair_list(a):
    return [a, abs(a)]


def nested(a):
    return ((a, abs(a)), a)


def repeated(a):
    return [abs(a) for _ in range(3)]


def named(a):
    return {"p": a, "q": abs(a)}


def item_of_result(x):
    return np.sin(pair(x)[1] / 0)


def unpacked_result(x):
    p, q = pair(x)
    return np.sin(q / 0) + p


def named_result(x):
    t = pair(x)
    return np.sin(t[1] / 0)


def list_result_read_twice(x):
    t = pair_list(x)
    first = np.sin(t[1] / 0)  # raises here
    p, q = t
    return first + np.sin(q / 0) + p


def nested_item_of_result(x):
    return np.sin(nested(x)[0][1] / 0)


def nested_unpacked(x):
    (p, q), r = nested(x)
    return np.sin(q / 0) + p + r


def comprehension_result(x):
    return np.sin(sum(repeated(x)) / 0)


def dict_result(x):
    return np.sin(named(x)["q"] / 0)


def second(t):
    return t[1] / 0


def unpacks(t):
    a, b = t
    return b / 0


def sums(t):
    return sum(t) / 0


def keyed(d):
    return d["q"] / 0


def tuple_argument(x):
    return np.sin(second((x, abs(x))))


def list_argument(x):
    return np.sin(unpacks([x, abs(x)]))


def comprehension_argument(x):
    return np.sin(sums([abs(x) for _ in range(3)]))


def dict_argument(x):
    return np.sin(keyed({"p": x, "q": abs(x)}))


def unpacked_display(x):
    p, q = [x, abs(x)]
    return np.sin(q / 0) + p


def looped_over(x):
    s = 0.0
    for v in pair(x):
        s = s + 1.0 / (v - 1.5)
    return np.sin(s)


def starred(x):
    a, *rest = pair(x)
    return np.sin(rest[0] / 0) + a


def sliced(x):
    return np.sin(pair(x)[1:][0] / 0)


def largest(x):
    return np.sin(max(pair_list(x)) / 0)


@pytest.mark.parametrize("fn", [
    looped_over, starred, sliced, largest, item_of_result, unpacked_result, named_result, list_result_read_twice,
    nested_item_of_result, nested_unpacked, comprehension_result, dict_result, tuple_argument, list_argument,
    comprehension_argument, dict_argument, unpacked_display,
], ids=lambda f: f.__name__)
def test_python_s_numbers_stay_python_s_across_a_call(fn):
    with pytest.raises(ZeroDivisionError) as python:
        fn(1.5)
    with pytest.raises(ZeroDivisionError_) as ours:
        catad.value_and_grad(fn)(1.5)
    assert str(python.value) in str(ours.value)


def numpy_items(x):
    return np.sin(pair(np.float64(x))[1] / 0) + pair_list(x)[0]


def test_numpy_s_numbers_stay_numpy_s_across_a_call():
    with np.errstate(all="ignore"):
        want = numpy_items(1.5)
    assert np.isnan(want) and np.isnan(catad.value_and_grad(numpy_items)(1.5)[0])


def concatenated(t):
    return sum(t + t) + len(t + t)


def passes_a_list(x):
    return concatenated([x, x * 2.0])


def passes_a_comprehension(x):
    return concatenated([x * v for v in np.ones(3)])


def given_back(t):
    return t


def list_returned(x):
    t = given_back([x, x * 2.0])
    return sum(t + t) * len(t + t)


def list_of_arrays(x):
    rows = given_back([x, x * 2.0])
    return np.sum(np.array(rows + rows)) * len(rows + rows)


def with_a_list(a):
    return {"l": [a, abs(a)], "s": a}


def list_in_a_dict_result(x):
    d = with_a_list(x)
    return np.sin(sum(d["l"] + d["l"]) + len(d["l"] + d["l"]))


def appended(x):
    out = []
    for i in range(3):
        out.append(x * i)
    return out


def appended_list_returned(x):
    t = appended(x)
    return np.sin(sum(t + t) * len(t + t))


def concatenated_in_a_loop(x):
    s = 0.0
    for i in range(3):
        s = s + sum(appended(x) + [1.0])
    return s


@pytest.mark.parametrize("fn, arg", [
    (list_in_a_dict_result, 1.5), (appended_list_returned, 1.5), (concatenated_in_a_loop, 1.5),
    (passes_a_list, 1.5), (passes_a_comprehension, 1.5), (list_returned, 1.5),
    (list_of_arrays, np.array([0.5, -1.25])),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_list_stays_a_list_across_a_call(fn, arg):
    agrees(fn, arg)


def list_or_array(a, flag):
    if flag > 0:
        return [a, a]
    return np.array([a, a])  # ERR


def returns_both(x, flag):
    return np.sum(list_or_array(x, flag))


def test_a_list_at_one_return_and_an_array_at_another_is_refused():
    refused(returns_both, (1.5, 1.0), "returns a list here and an array", where=list_or_array)


def either(a, flag):
    if flag > 0:
        return (abs(a), a)
    return (np.float64(a), a)


def undecided_item(x, flag):
    return np.sin(either(x, flag)[0] / 0)


def decided_item(x, flag):
    return either(x, flag)[1] * 2.0


def test_an_item_python_s_at_one_return_only_is_refused_where_it_matters():
    with pytest.raises(catad.CatadError, match="cannot tell whether Python raises") as ours:
        catad.value_and_grad(undecided_item)(1.5, -1.0)
    assert ours.value.loc.line == undecided_item.__code__.co_firstlineno + 1
    agrees(decided_item, 1.5, 1.0)


def two_arrays(x):
    return np.sin(x), np.cos(x)


def loops_over_two_arrays(x):
    s = 0.0
    for v in two_arrays(x):
        s = s + np.sum(v * v)
    return s


def test_a_loop_over_a_call_s_tuple_result_calls_it_once():
    x = np.array([0.3, -1.2, 2.0])
    agrees(loops_over_two_arrays, x)
    program = compile_function(loops_over_two_arrays, (x,))
    main = program.defs[-1]
    calls, stack = 0, [main.body]  # (every occurrence: a term reached twice counts twice)
    while stack:
        t = stack.pop()
        calls += isinstance(t, Call) and t.fn == program.defs[0].name
        stack.extend(c for c in t.children() if isinstance(c, Term))
    assert calls == 1, main


def never_loops(a, b):
    for i in range(2, 0):  # runs nothing: its return is never taken
        if i < 1:
            return b, np.cos(a)
    for i in range(-1):
        a = a * 2.0
    return a, math.exp(b)


def after_a_loop_that_never_runs(x):
    p, q = never_loops(x, x)
    return np.sin(never_loops(q, x)[0] / 0) + p


def test_a_return_in_a_loop_over_an_empty_range_is_never_taken():
    """The items are Python's at the only return taken (a loop over range(2, 0) was lowered as a
    fold, whose return made them Python's or NumPy's by a test catad could not read: refused)."""
    with pytest.raises(ZeroDivisionError):
        after_a_loop_that_never_runs(1.5)
    with pytest.raises(ZeroDivisionError_):
        catad.value_and_grad(after_a_loop_that_never_runs)(1.5)
    agrees(product_of_items, 0.75)


def product_of_items(x):
    p, q = never_loops(x, x * x)
    return p * q


def appends_in_no_step(x):
    lst = []
    for i in range(1, 1):  # (a loop without a return is lowered: its append gives lst's type)
        lst.append(np.tanh(x))
    return np.sum(np.array(lst)) + x


def test_a_loop_over_an_empty_range_without_a_return_still_types_its_list():
    agrees(appends_in_no_step, 0.3)  # (refused, fuzzer seed 106072: "the list 'lst' is empty here")


def ratio_of_items(t):
    return t[1] / t[0]


def sum_in_a_tuple(x):
    s = sum(x)  # NumPy's number, or Python's 0 where x is empty
    return ratio_of_items((s, 1.0)) + np.sum(x)


@pytest.mark.parametrize("x", [np.array([0.5, 1.0]), np.array([0.5, -0.5])], ids=["sum", "zero sum"])
def test_an_item_python_s_where_a_condition_holds_passes_the_condition(x):
    """NumPy's 1.0 / 0.0 is inf where sum(x) adds something; Python raises where there is nothing
    to add (sum of nothing is Python's 0): the callee is told which, as for a number argument."""
    with np.errstate(divide="ignore"):
        want = sum_in_a_tuple(x)
    assert catad.value_and_grad(sum_in_a_tuple)(x)[0] == want
    with pytest.raises(ZeroDivisionError):
        sum_in_a_tuple(np.array([]))
    with pytest.raises(ZeroDivisionError_):
        catad.value_and_grad(sum_in_a_tuple)(np.array([]))


def chosen(x):
    return np.where(x > 0, x, 2.0 * x)  # an array of no axes, not a number


def chosen_and_x(x):
    return np.where(x > 0, x, 2.0 * x), x


def aliased_result(x):
    a = chosen(x)
    b = a
    a += 1.0  # ERR (NumPy changes the array b names too: 7.5; catad gave 4.5)
    return b * 3.0


def aliased_item(x):
    a, c = chosen_and_x(x)
    b = a
    a += 1.0  # ERR
    return b * 3.0 + c


@pytest.mark.parametrize("fn", [aliased_result, aliased_item], ids=lambda f: f.__name__)
def test_an_array_of_no_axes_returned_is_one_in_the_caller(fn):
    assert fn(1.5) == 7.5 + 1.5 * (fn is aliased_item)
    refused(fn, (1.5,), "changes the array 'a'")


def doubled_list(t):
    return sum(t + t) * len(t + t)


def gradient_of_a_list_function(x):
    l = [x, 2.0 * x]
    return np.sum(catad.grad(doubled_list)(l)) * x  # (catad.grad(doubled_list)(l) is [8.0, 8.0])


def over_its_second(a, b):
    return b / 0 + a


def gradient_of_a_python_number_function(x):
    return catad.grad(over_its_second)(x, abs(x))


def test_a_transformation_inside_is_told_what_its_arguments_are():
    """catad.grad(f)(l) compiled inside a function: l is a list there too (12.0 where Python gives
    24.0), and abs(x) Python's number (catad.grad raises ZeroDivisionError, the compiled call gave 1.0)."""
    agrees(gradient_of_a_list_function, 1.5)
    with pytest.raises(ZeroDivisionError):
        gradient_of_a_python_number_function(1.5)
    with pytest.raises(ZeroDivisionError_):
        catad.value_and_grad(gradient_of_a_python_number_function)(1.5)


def counted_in_a_tuple(x, v):
    t = (0.0, x)
    for e in v:
        t = (t[0] + 1.0, t[1] * e)  # t[0] stays Python's float
    return np.sin(t[0] / 0) + t[1]


def list_in_a_tuple_state(x, v):
    t = (0.0, [x, 2.0 * x])
    for e in v:
        t = (t[0] + e, t[1])
    return sum(t[1] + t[1]) * len(t[1] + t[1]) + t[0]


def test_a_tuple_loop_state_keeps_its_items_kinds():
    """A loop's tuple state keeps its items' kinds, as a name does: t[0] / 0 gave nan where Python
    raises, and + of the list item was elementwise (18.0 where Python gives 36.0)."""
    v = np.array([0.5, 1.5, 2.0])
    with pytest.raises(ZeroDivisionError):
        counted_in_a_tuple(1.5, v)
    with pytest.raises(ZeroDivisionError_):
        catad.value_and_grad(counted_in_a_tuple)(1.5, v)
    agrees(list_in_a_tuple_state, 1.5, v)
    agrees(list_in_a_tuple_state, 1.5, v, argnums=1)


def list_then_array_in_a_tuple_state(x, v):
    t = (0.0, [x, 2.0 * x])
    for e in v:  # ERR
        t = (t[0] + e, np.array(t[1]) * e)
    return np.sum(t[1]) + t[0]


def test_a_tuple_state_item_a_list_before_the_loop_and_an_array_after_is_refused():
    refused(list_then_array_in_a_tuple_state, (1.5, np.array([0.5, 2.0])), "a list before the loop and an array")
