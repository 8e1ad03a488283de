"""Where a number is Python's and where NumPy's, as Python decides it: a Python number divides
by zero with Python's ZeroDivisionError, a NumPy one gives inf or nan. Each function is called
itself and through catad: the same value, or the same error."""
import numpy as np
import pytest

import catad
from catad.errors import ZeroDivisionError_


def _python(fn, *args):
    try:
        with np.errstate(all="ignore"):
            return fn(*args), None
    except ZeroDivisionError as e:
        return None, e


def same_as_python(fn, *args, argnums=0):
    """catad's value of fn at args is Python's, or catad raises the ZeroDivisionError Python
    raises (by value_and_grad and by jvp)."""
    want, error = _python(fn, *args)
    if error is not None:
        with pytest.raises(ZeroDivisionError_, match=str(error)):
            catad.value_and_grad(fn, argnums)(*args)
        tangents = tuple(np.ones_like(a) if k == argnums else np.zeros_like(a) for k, a in enumerate(args))
        with pytest.raises(ZeroDivisionError_, match=str(error)):
            catad.jvp(fn, args, tangents)
        return
    with np.errstate(all="ignore"):
        value = catad.value_and_grad(fn, argnums)(*args)[0]
    np.testing.assert_equal(value, want)


# ------------------------------------------------ a loop's NumPy number made Python's in the loop

def numpy_then_python(y, x):
    s = np.sin(y)  # NumPy's float64
    for i in range(2):
        t = s / 0.0  # inf in the first iteration; the second divides Python's x: ZeroDivisionError
        s = x
    return t


def made_python_by_another_state(y, x):
    s = np.sin(y)
    t = np.sin(y)
    for i in range(3):
        r = t / 0.0  # t is Python's in the third iteration only
        t = s
        s = x
    return r


def python_after_the_loop(y, x):
    s = np.sin(y)
    for i in range(2):
        s = x
    return s / 0.0


def first_assigned_in_the_loop(y, x):
    for i in range(2):
        s = x * 0.0
    return y / s


def max_with_a_python_number(v, x):
    s = v[0]
    for e in v:
        s = max(s, x)  # Python's x where it is the greater
    return 1.0 / s


def over_elements(v, x):
    s = np.sin(x)
    for e in v:
        s = x * 0.0  # Python's where v has an element
    return 1.0 / s


def with_while(y, x):
    s = np.sin(y)
    t = 0.0
    i = 0
    while i < 2:
        t = s / 0.0
        s = x
        i += 1
    return t


def with_break(v, x):
    s = v[0]
    r = 0.0
    for e in v:
        r = r + 1.0 / s
        if e > 5.0:
            break
        s = x
    return r


def nested(v, x):
    s = v[0]
    for e in v:
        for f in v:
            s = s + 1.0 / (s - s)
            s = x
    return s


@pytest.mark.parametrize("fn, args", [
    (numpy_then_python, (0.5, 2.0)),
    (made_python_by_another_state, (0.5, 2.0)),
    (python_after_the_loop, (0.5, 2.0)),
    (first_assigned_in_the_loop, (0.5, 2.0)),
    (max_with_a_python_number, (np.array([-1.0, -2.0]), 0.0)),
    (max_with_a_python_number, (np.array([1.0, -2.0]), 0.0)),
    (over_elements, (np.array([]), 0.5)),
    (over_elements, (np.array([1.0]), 0.5)),
    (with_while, (0.5, 2.0)),
    (with_break, (np.array([6.0, 1.0]), 0.0)),
    (with_break, (np.array([1.0, 1.0]), 0.0)),
    (nested, (np.array([1.0, 2.0]), 1.0)),
], ids=lambda a: getattr(a, "__name__", None))
def test_a_loop_state_made_python_s_divides_as_python_s(fn, args):
    same_as_python(fn, *args, argnums=1)


# ------------------------------------------------ a comparison of Python's numbers is Python's bool

def bool_divided(x):
    return x + (x < 0.1) / 0.0


def bool_floor_divided(x):
    return x + (x < 0.1) // 0.0


def bool_int_floor_divided(x):
    return x + (x < 0.1) // 0


def modulo_by_bool(x):
    return x + 1.0 % (x > 0.1)


def divided_by_bool(x):
    return x / (x > 0.1)


def divmod_by_bool(x):
    return x + divmod(1.0, x > 0.1)[0]


def bool_to_negative_power(x):
    return x + (x > 0.1) ** -1 + (x > 0.1) ** -1.0


def bool_times_zero_divided(x):
    return x * ((x < 0.1) * 0.0) / 0.0


def negated(x):
    return x + (not x > 0.1) / 0.0


def negated_numpy_s(v):
    return v[0] + (not v[0] > 0.1) / 0.0  # `not` gives Python's bool, whatever it negates


def both(x):
    return x + (x < 0.1 and x > -1.0) / 0.0


def either(x):
    return x + (x > 0.1 or x < -1.0) / 0.0


def numpy_s_and_python_s(v):
    return v[0] + (v[0] < 0.1 and v.size > 5) / 0.0  # NumPy's where v[0] < 0.1 fails, else Python's


def numpy_s_or_python_s(v):
    return v[0] + (v[0] > 0.1 or v.size > 5) / 0.0


def chained(x):
    return x + (0.0 <= x < 0.1) / 0.0 + (-1.0 < x * 2.0 < 0.1) / 0.0


def chained_python_s_then_numpy_s(v):
    return v[0] + (0.0 <= v.size < v[0]) / 0.0


def chained_numpy_s_then_python_s(v):
    return v[0] + (v[0] <= v.size * 1.0 + 0.0 < 3.0) / 0.0


def numpy_s_comparison(v):
    return v[0] + (v[0] < 0.1) / 0.0


def equal(x):
    return x + (x == 1.0) / 0.0


def length_compared(v):
    return v[0] + (len(v) > 1) / 0.0


def sum_compared(v):
    return 1.0 + (sum(v) < 3) / 0.0  # Python's 0 < 3 where v is empty


def is_none(x):
    return x + (x is None) / 0.0


def is_a_float(x):
    return x + isinstance(x, float) / 0.0


def chosen(x):
    return x + (x < 0.1 if x > 0 else x > 5.0) / 0.0


def assigned_first(x):
    b = x < 0.1
    return x + b / 0.0


def a_flag_or_an_element(v, x):
    f = False
    for e in v:
        f = f or e > x  # Python's False until an element is greater
    return x + f / 0.0


def a_flag_or_a_python_s(v, x):
    f = False
    for e in v:
        f = f or x > 1.0
    return x + f / 0.0


@pytest.mark.parametrize("fn, args", [
    (bool_divided, (0.0,)), (bool_divided, (np.float64(0.0),)), (bool_floor_divided, (0.0,)),
    (bool_int_floor_divided, (0.0,)), (modulo_by_bool, (0.0,)), (divided_by_bool, (0.0,)), (divmod_by_bool, (0.0,)),
    (bool_to_negative_power, (0.0,)), (bool_times_zero_divided, (0.0,)), (negated, (0.0,)),
    (negated_numpy_s, (np.array([0.0]),)), (both, (0.0,)), (either, (0.0,)),
    (numpy_s_and_python_s, (np.array([0.0]),)), (numpy_s_and_python_s, (np.array([1.0]),)),
    (numpy_s_or_python_s, (np.array([0.0]),)), (numpy_s_or_python_s, (np.array([1.0]),)),
    (chained, (0.0,)), (chained, (0.5,)),
    (chained_python_s_then_numpy_s, (np.array([2.0]),)), (chained_python_s_then_numpy_s, (np.array([0.5]),)),
    (chained_numpy_s_then_python_s, (np.array([2.0]),)), (chained_numpy_s_then_python_s, (np.array([0.5]),)),
    (numpy_s_comparison, (np.array([0.0]),)), (equal, (1.0,)), (length_compared, (np.array([0.0]),)),
    (sum_compared, (np.array([]),)), (sum_compared, (np.array([1.0]),)), (is_none, (1.0,)), (is_a_float, (1.0,)),
    (chosen, (0.0,)), (chosen, (1.0,)), (assigned_first, (0.0,)),
], ids=lambda a: getattr(a, "__name__", None))
def test_a_comparison_of_python_s_numbers_is_python_s_bool(fn, args):
    same_as_python(fn, *args)


@pytest.mark.parametrize("fn, args", [
    (a_flag_or_an_element, (np.array([1.0]), 0.0)), (a_flag_or_an_element, (np.array([]), 0.0)),
    (a_flag_or_a_python_s, (np.array([1.0]), 2.0)), (a_flag_or_a_python_s, (np.array([]), 2.0)),
], ids=lambda a: getattr(a, "__name__", None))
def test_a_loop_s_flag_is_python_s_or_numpy_s_bool(fn, args):
    same_as_python(fn, *args, argnums=1)


# ------------------------------------------------ Python's sum: 0 + e_0 + e_1 + ...

def sum_of_a_constant(v, x):
    return x / sum(0.5 for e in v)  # Python's int 0 for an empty v


def sum_of_python_s_zeros(v, x):
    return x / sum(0.0 * x for e in v)  # Python's 0.0 for any v


def sum_of_a_list_comprehension(v, x):
    return x / sum([x * 0.0 for e in v])


def sum_of_ints(v, x):
    return x / sum(1 for e in v)


def sum_over_a_range(v, x):
    return x / sum(0.0 * i for i in range(len(v))) + x / sum(i for i in range(len(v)))


def sum_over_two_clauses(v, x):
    return x / sum(0.0 * x for e in v for f in v)


def filtered_sum_of_python_s(v, x):
    return x / sum(0.5 for e in v if e > 0)  # Python's: 0.5 + ..., or 0 where none passes


def sum_of_elements(v, x):
    return x / sum(e for e in v)  # NumPy's, except Python's 0 for an empty v


def sum_of_a_tuple(v, x):
    return x / sum((x * 0.0, 0.0))


def sum_of_a_list_display(v, x):
    return x / sum([x * 0.0, 0.0]) + x / sum([x > 1.0, x > 2.0])


def sum_over_a_tuple(v, x):
    return x / sum(e * 0.0 for e in (x, 1.0)) + x / sum(e * 0.0 for e in ())


def sum_of_a_number_python_s_somewhere(v, x):
    y = max(v[0], x)  # Python's x where v[0] <= x
    return x / sum(y * 0.0 for e in v)


@pytest.mark.parametrize("fn", [
    sum_of_a_constant, sum_of_python_s_zeros, sum_of_a_list_comprehension, sum_of_ints, sum_over_a_range,
    sum_over_two_clauses, filtered_sum_of_python_s, sum_of_elements, sum_of_a_tuple, sum_of_a_list_display,
    sum_over_a_tuple,
], ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [[], [1.0], [-1.0, -2.0]], ids=str)
def test_python_s_sum_is_python_s_where_what_it_adds_is(fn, v):
    same_as_python(fn, np.array(v), 0.5, argnums=1)


@pytest.mark.parametrize("v", [[1.0], [-1.0, -2.0]], ids=str)
def test_a_sum_of_a_number_python_s_where_a_condition_holds(v):
    same_as_python(sum_of_a_number_python_s_somewhere, np.array(v), 0.5, argnums=1)


def filtered_sum_of_elements(v, x):
    return x / sum(e for e in v if e > 0)


def test_a_filtered_sum_of_nothing_is_python_s_zero():
    same_as_python(filtered_sum_of_elements, np.array([]), 0.5, argnums=1)


def filtered_sum_bound(v, x):
    s = sum(e * x for e in np.sin(v) if e > 0.5)
    return x / s + x


def filtered_sum_power(v, x):
    s = sum(e for e in v if e > 0.5)
    return x / (s ** -1 + 1.0)


def filtered_sum_over_two_clauses(v, x):
    return x + 1.0 / sum(e * f for e in v for f in v if e > 0.5)


@pytest.mark.parametrize("fn", [filtered_sum_of_elements, filtered_sum_bound, filtered_sum_power,
                                filtered_sum_over_two_clauses], ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [[], [0.1, 0.2], [0.1, 1.0], [0.0, 2.0, -1.0]], ids=str)
def test_a_filtered_sum_where_nothing_passes_is_python_s_zero(fn, v):
    """Python's sum starts from its int 0: where no element passes the filter, that 0 is the sum,
    and x / 0 raises ZeroDivisionError. catad marked it so only where there was nothing to filter
    (an empty v): for v = [0.1, 0.2] it gave inf (the loop fuzzer, seed 43175)."""
    same_as_python(fn, np.array(v), 0.5, argnums=1)


# ------------------------------------------------ Python's max and min give one of what they compare

def max_of_a_generator(v, x):
    return x / max(x * 0.0 for e in v) + x / max(x * 0.0 for e in v for f in v)


def min_of_a_list_comprehension(v, x):
    return x / min([x * 0.0 for e in v]) + x / max(i * 0 for i in range(len(v)))


def max_of_a_tuple(v, x):
    return x / max((x * 0.0, -1.0)) + x / min([x * 0.0, 1.0])


def max_over_a_tuple(v, x):
    return x / max(e * 0.0 for e in (x, 1.0))


def max_of_numpy_s(v, x):
    return x / max((v[0] * 0.0 + 1.0, -1.0)) + x / max(e * 0.0 + 2.0 for e in v)


def max_with_a_nan(v, x):
    return max([x, v[0]]) + min((x, v[0]))  # Python's max passes over a NaN after the first


@pytest.mark.parametrize("fn", [max_of_a_generator, min_of_a_list_comprehension, max_of_a_tuple, max_over_a_tuple,
                                max_of_numpy_s], ids=lambda f: f.__name__)
def test_python_s_max_and_min_of_python_s_numbers_are_python_s(fn):
    same_as_python(fn, np.array([-1.0, 2.0]), 0.5, argnums=1)


def test_max_of_a_list_display_passes_over_a_nan_as_python_s_does():
    same_as_python(max_with_a_nan, np.array([np.nan]), 0.5, argnums=1)


# ------------------------------------------------ a Python number's .imag is Python's 0

def imaginary_part(v, x):
    return x + 1.0 / x.imag + 1.0 / (2 * len(v)).imag


def imaginary_part_of_numpy_s(v, x):
    return x + 1.0 / v[0].imag  # NumPy's 0.0: inf


@pytest.mark.parametrize("fn", [imaginary_part, imaginary_part_of_numpy_s], ids=lambda f: f.__name__)
def test_the_imaginary_part_is_of_the_number_s_kind(fn):
    same_as_python(fn, np.array([1.0]), 0.5, argnums=1)
