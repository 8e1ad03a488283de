"""Python's own numbers (a float or int argument, a literal, len(x), x.shape, x.size, x.ndim, a
range variable, float(x), math.* results, arithmetic of these) divide as Python divides: by zero is Python's ZeroDivisionError (a
catad.errors.ZeroDivisionError_ located at the operator), 0.0 ** -1 too, a negative number to a
fractional power (complex in Python) a located refusal, 10.0 ** 400 Python's OverflowError; the
same arithmetic on NumPy's scalars (np.float64 arguments, elements of arrays) keeps NumPy's inf and
nan. Each kind of argument compiles its own program."""
import math

import numpy as np
import pytest

import catad
from catad import DomainError, RangeError
from catad.errors import ZeroDivisionError_
from catad.lang.terms import subterms
from located import agrees


def divide(x, y):
    return x / y


def int_divide(x, n, m):
    return x * (n / m) + x * m ** n


def integer_ops(x, n):
    m = n - 3
    return x * (n // m) + x * (n % m) + x / (n - 3)


def literal_and_len(x):
    return x * (1.0 / (len([x, x]) - 2))


def power(x, y):
    return x ** y


def numpy_scalar(x, y):
    return np.float64(x) / y


def from_math(x):
    s = math.sin(x) - math.sin(x)
    return x / s


def quotient_remainder(x, a, b):
    q, r = divmod(a, b)
    return x * q + r


def shape_and_size(v):
    n, m = v.shape[0], v.size
    return v[0] * (1.0 / (n - m)) + v.ndim / (m - n)


def comprehension_variable(v):
    return sum(v[i] * (1.0 / i) for i in range(v.shape[0]))  # Python's ints: 1.0 / 0 raises


def loop_variable(v):
    s = 0.0
    for j in range(v.shape[0]):
        s = s + v[j] / (j - 1) + 1.0 / (j - 1)  # NumPy's element / 0 is inf, Python's 1.0 / 0 raises
    return s


def enumerated(v):
    s = sum(x * (1.0 / k) for k, x in enumerate(v, 1))
    for k, x in enumerate(v):
        s = s + x / (k + 1) + 1.0 / (k - 1)  # k == 1 raises
    return s


def loop_state(x, y):
    s = 1.0
    for i in range(3):
        s = s / y  # s stays Python's float: the first step divides by zero
    return x * s


def int_loop_state(x, n):
    t = 0
    for i in range(n):
        t = t + 1
    return x * (1.0 / (t - n))


def numpy_loop_state(v):
    s = 0.0
    for i in range(3):
        s = s + v[i]  # NumPy's element: s is NumPy's float after the first step
    return 1.0 / (s - s)


def element(v):
    return v[0] / (v[1] - v[1])  # NumPy's elements: inf


def raising(fn, *args):
    with pytest.raises(Exception) as python:
        fn(*args)
    with pytest.raises(catad.CatadError) as ours:
        catad.value_and_grad(fn)(*args)
    assert isinstance(ours.value, type(python.value)) and str(python.value) in str(ours.value)
    assert ours.value.loc.line > fn.__code__.co_firstlineno
    return ours.value


@pytest.mark.parametrize("fn, args, cls", [
    (divide, (1.0, 0.0), ZeroDivisionError_), (int_divide, (1.0, 1, 0), ZeroDivisionError_),
    (int_divide, (1.0, -2, 0), ZeroDivisionError_),
    (integer_ops, (1.0, 3), ZeroDivisionError_), (literal_and_len, (1.0,), ZeroDivisionError_),
    (power, (0.0, -1.0), ZeroDivisionError_),
    (power, (10.0, 400.0), RangeError), (from_math, (1.0,), ZeroDivisionError_),
    (quotient_remainder, (1.0, 7.5, 0.0), ZeroDivisionError_), (quotient_remainder, (1.0, 7, 0), ZeroDivisionError_),
    (shape_and_size, (np.ones(3),), ZeroDivisionError_), (comprehension_variable, (np.ones(3),), ZeroDivisionError_),
    (loop_variable, (np.ones(3),), ZeroDivisionError_), (enumerated, (np.ones(3),), ZeroDivisionError_),
    (loop_state, (1.0, 0.0), ZeroDivisionError_), (int_loop_state, (1.0, 3), ZeroDivisionError_),
], ids=lambda v: getattr(v, "__name__", ""))
def test_python_raises_so_does_catad(fn, args, cls):
    assert isinstance(raising(fn, *args), cls)


def test_a_fractional_power_of_a_negative_number_is_refused():
    assert isinstance(power(-8.0, 1 / 3), complex)
    with pytest.raises(DomainError, match="is a complex number in Python"):
        catad.grad(power)(-8.0, 1 / 3)


@pytest.mark.parametrize("fn, args", [
    (divide, (np.float64(1.0), 0.0)), (divide, (1.0, np.float64(0.0))), (numpy_scalar, (1.0, 0.0)),
    (element, (np.array([1.0, 2.0]),)), (numpy_loop_state, (np.ones(3),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_numpy_s_scalars_keep_inf(fn, args):
    with np.errstate(all="ignore"):
        want = fn(*args)
    assert np.isinf(want) and catad.value_and_grad(fn)(*args)[0] == want


@pytest.mark.parametrize("fn, args", [
    (divide, (1.0, 2.0)), (integer_ops, (1.5, 5)), (power, (2.0, 0.5)), (power, (-8.0, 2.0)),
    (quotient_remainder, (1.5, 7.5, 2.0)), (quotient_remainder, (1.5, -7, 2)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_derivatives_where_nothing_raises(fn, args):
    agrees(fn, *args)


def test_every_transformation_checks():
    for run in (lambda: catad.jvp(divide, (1.0, 0.0), (1.0, 1.0)), lambda: catad.vjp(divide, 1.0, 0.0)[1](1.0),
                lambda: catad.hessian(divide)(1.0, 0.0), lambda: catad.grad(catad.grad(divide))(1.0, 0.0)):
        with pytest.raises(ZeroDivisionError, match="float division by zero"):
            run()


def test_python_and_numpy_floats_compile_apart():
    g = catad.grad(divide)
    assert g(np.float64(1.0), 0.0) == np.inf
    with pytest.raises(ZeroDivisionError):
        g(1.0, 0.0)
    assert g(np.float64(1.0), 0.0) == np.inf


def infinite_starts(x):
    best = -np.inf
    for v in x:
        best = max(best, v)
    lo = math.inf  # Python's float, carried by the loop
    for v in x:
        lo = min(lo, v * 2)
    return best + lo


def test_a_loop_state_may_start_infinite():
    agrees(infinite_starts, np.array([0.5, -1.5, 2.0]))


def _inverse(t):
    return 1.0 / t


def through_a_helper(x):
    return _inverse(x) + _inverse(t=x)


def with_a_default(x, k=0.0):
    return x / k


EPS = 0.0


def with_a_global(x):
    return x / EPS


def with_item(v):
    return 1.0 / (v[0] - v[0]).item() + v[1]


@pytest.mark.parametrize("fn, args", [
    (with_a_default, (1.0,)), (with_a_global, (1.0,)), (with_item, (np.ones(2),)),
], ids=lambda v: getattr(v, "__name__", None))
def test_python_s_numbers_stay_python_s(fn, args):
    """Through a default, a global and .item() (found by differential testing, trial 5: they
    gave inf)."""
    assert isinstance(raising(fn, *args), ZeroDivisionError_)


def test_python_s_numbers_stay_python_s_in_your_functions():
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        through_a_helper(0.0)
    with pytest.raises(ZeroDivisionError_, match="float division by zero") as e:
        catad.value_and_grad(through_a_helper)(0.0)
    assert e.value.loc.line == _inverse.__code__.co_firstlineno + 1  # where Python raises: in _inverse


def test_a_global_that_becomes_numpy_s_compiles_again():
    global EPS
    g = catad.value_and_grad(with_a_global)
    try:
        EPS = np.float64(0.0)
        with np.errstate(divide="ignore"):
            assert g(1.0)[0] == with_a_global(1.0) == np.inf
        EPS = 0.0
        with pytest.raises(ZeroDivisionError):
            g(1.0)
    finally:
        EPS = 0.0


def test_numpy_s_scalars_through_a_helper_keep_inf():
    with np.errstate(divide="ignore"):
        assert catad.value_and_grad(through_a_helper)(np.float64(0.0))[0] == np.inf


def tuple_leaf(x, p):
    return x * (1.0 / p[0]) + p[1]


def dict_leaf(x, d):
    return x / d["eps"]


def unpacked_leaves(x, p):
    a, b = p
    return x * (a / b)


@pytest.mark.parametrize("fn, args", [
    (tuple_leaf, (1.0, (0.0, 2.0))), (tuple_leaf, (1.0, [0.0, 2.0])), (dict_leaf, (1.0, {"eps": 0.0})),
    (unpacked_leaves, (1.0, (1.0, 0.0))),
], ids=lambda v: getattr(v, "__name__", None))
def test_python_s_numbers_inside_tuples_lists_and_dicts(fn, args):
    assert isinstance(raising(fn, *args), ZeroDivisionError_)


def test_numpy_s_numbers_inside_a_tuple_keep_inf():
    with np.errstate(divide="ignore"):
        assert catad.value_and_grad(tuple_leaf)(1.0, (np.float64(0.0), 2.0))[0] == np.inf
    assert catad.grad(tuple_leaf, argnums=1)(1.0, (0.5, 2.0)) == (-4.0, 1.0)


def _plus_one(t):
    return t + 1.0


def result_of_a_helper(x):
    return 1.0 / (_plus_one(x) - _plus_one(x))


def test_your_function_s_python_result_stays_python_s():
    """_plus_one of a Python float is one: so the division raises (and helper(helper(x, x), 1.0)
    compiles helper once)."""
    assert isinstance(raising(result_of_a_helper, 1.0), ZeroDivisionError_)
    with np.errstate(divide="ignore"):
        assert catad.value_and_grad(result_of_a_helper)(np.float64(1.0))[0] == np.inf


def by_numpy_s_false(x, v):
    return sum(v[i] * (i // (x < v[0])) + (i % (x < v[0])) for i in range(len(v)))


def test_numpy_s_int_division_by_zero_is_zero_in_the_reference_too():
    """i // b and i % b of a NumPy Bool b (x < v[0] of a NumPy element) are NumPy's: 0 where b
    is False (with a warning). The reference evaluator's primitives raised ZeroDivisionError there
    (found by tests/test_frontend_fuzz.py), where Python's own ints raise by a check of their own."""
    from catad.lang.evaluate import Evaluator
    from catad.pipeline import pipeline
    v = np.array([0.5, 1.0, 2.0])
    with np.errstate(all="ignore"):
        want = by_numpy_s_false(1.0, v)
        p = pipeline(by_numpy_s_false, 1.0, v)
        assert Evaluator(p.core).call(p.core.entry, (1.0, v)) == want == 0.0
        assert catad.value_and_grad(by_numpy_s_false, argnums=1)(1.0, v)[0] == want


def mean_of(v):
    return sum(v) / len(v)


def reciprocal_of_sum(v):
    s = sum(v)
    return -s ** -1.0 + 1.0 / (-s)


def int_sum_modulo(x, v, n):
    return x * (sum(v) % n)


@pytest.mark.parametrize("fn, args", [
    (mean_of, (np.zeros(0),)), (reciprocal_of_sum, (np.zeros(0),)), (int_sum_modulo, (1.0, np.zeros(0, int), 0)),
], ids=lambda v: getattr(v, "__name__", None))
def test_the_sum_of_an_empty_array_is_python_s_int_zero(fn, args):
    """Python's sum of an empty array is its start, the int 0: dividing it by zero raises, where
    the sum of a non-empty array is NumPy's number, whose quotient by zero is inf (found by
    differential testing: sum(v) / len(v) of an empty v was nan)."""
    assert isinstance(raising(fn, *args), ZeroDivisionError_)


def test_the_sum_of_a_non_empty_array_is_numpy_s():
    with np.errstate(all="ignore"):
        for fn, args in [(reciprocal_of_sum, (np.zeros(2),)), (int_sum_modulo, (1.5, np.arange(3), 0))]:
            want = fn(*args)
            got = catad.value_and_grad(fn)(*args)[0]
            assert got == want or np.isnan(want) and np.isnan(got)
    agrees(mean_of, np.array([0.5, -1.0, 3.0]))
    agrees(reciprocal_of_sum, np.array([0.5, 2.0]))


def mean_by_comprehension(v):
    return sum(x * 2.0 for x in v) / len(v)


def mean_by_indices(v):
    return sum(v[i] for i in range(len(v))) / len(v)


def mean_by_loop(v):
    total = 0.0
    for x in v:
        total += x
    return total / len(v)


def norm_by_range_loop(v):
    total = 0.0
    for i in range(v.shape[0]):
        total = total + v[i] ** 2
    return math.sqrt(total) / v.shape[0]


def squares_of_row_sums(m):
    return sum(sum(m[i, j] for j in range(m.shape[1])) ** 2 for i in range(m.shape[0]))


@pytest.mark.parametrize("fn", [mean_by_comprehension, mean_by_indices, mean_by_loop, norm_by_range_loop],
                         ids=lambda v: v.__name__)
def test_a_sum_of_nothing_by_a_generator_or_a_loop_is_python_s(fn):
    """sum(e for x in v) of NumPy's elements, and a loop adding them to Python's 0.0, are Python's
    numbers only where v is empty: there the division by len(v) raises, as in Python."""
    assert isinstance(raising(fn, np.zeros(0)), ZeroDivisionError_)
    agrees(fn, np.array([0.5, -1.5, 2.0]))


def test_a_loop_of_numpy_s_elements_keeps_numpy_s_inf():
    def total_over_zero(v):
        t = 0.0
        for x in v:
            t = t + x
        return t / 0
    with np.errstate(divide="ignore"):
        assert catad.value_and_grad(total_over_zero)(np.ones(2))[0] == total_over_zero(np.ones(2)) == np.inf


def test_the_square_of_a_sum_of_nothing_needs_no_check():
    """A row's sum is Python's int 0 where the row is empty, whose square cannot raise: the
    program checks no power (a check of ** of a Python float would run on every row)."""
    from catad.pipeline import pipeline
    for m in (np.ones((3, 2)), np.ones((3, 0))):
        assert catad.value_and_grad(squares_of_row_sums)(m)[0] == squares_of_row_sums(m)
    p = pipeline(squares_of_row_sums, np.ones((3, 2)))
    assert [c for c in subterms(p.core.main.body) if getattr(c, "fn", None) == "check"] == []


def power_of_a_floor_quotient(x, n):
    s = 1.0
    if x > 2.0:
        s *= (1 // n) ** -1  # the power's checks read a quotient that carries its own check
    return s * x


@pytest.mark.parametrize("n", [1, 2, 0])
def test_power_of_a_checked_int_operand(n):
    """(1 // n) ** -1 of Python's ints: Python's value, and its errors (1 // 0, 0 ** -1), from a
    power whose operand holds the floor division's own check (it was an AssertionError from inside
    catad: the check copied the operand with its binding)."""
    try:
        want = power_of_a_floor_quotient(3.0, n)
    except ZeroDivisionError as e:
        with pytest.raises(ZeroDivisionError_, match=str(e).split(" (")[0]):
            catad.grad(power_of_a_floor_quotient)(3.0, n)
        return
    agrees(power_of_a_floor_quotient, 3.0, n)
    assert catad.value_and_grad(power_of_a_floor_quotient)(3.0, n)[0] == want


def branch_raises_first(x):
    return (x[0] if x.size > 5 else 1 % x.size) / x[-1]


def test_a_conditional_expression_s_check_runs_before_the_statement_s_later_ones():
    """Python evaluates the branch taken (1 % 0 raises) before x[-1]: the bounds check of x[-1]
    is not moved before the statement past a check that stays in a branch."""
    with pytest.raises(ZeroDivisionError, match="integer modulo by zero"):
        branch_raises_first(np.array([]))
    with pytest.raises(ZeroDivisionError_, match="integer modulo by zero"):
        catad.grad(branch_raises_first)(np.array([]))
    assert catad.value_and_grad(branch_raises_first)(np.array([2.0, 4.0]))[0] == branch_raises_first(np.array([2.0, 4.0]))
