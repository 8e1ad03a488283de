"""Python's math functions raise where NumPy's give nan or inf: math.log(0.0) is a ValueError
("math domain error"), math.exp(1000.0) an OverflowError ("math range error"). catad raises
the same (catad.DomainError, a ValueError; catad.RangeError, an OverflowError) with Python's
message at the call's line, in plain code, comprehensions and loops, and only where Python
evaluates the call; inside the domain values and gradients are Python's and central
differences."""
import math

import numpy as np
import pytest

import catad
from catad import DomainError, RangeError
from located import agrees, marked_line

# (function, a value inside, values outside) of each math function with a domain or a range
CASES = [
    (math.log, 0.5, [0.0, -1.0, -math.inf]), (math.log2, 3.0, [0.0, -2.0]), (math.log10, 7.0, [-0.5]),
    (math.log1p, -0.5, [-1.0, -3.0]), (math.sqrt, 2.0, [-1e-300, -4.0]), (math.acosh, 1.5, [0.999, -2.0]),
    (math.asin, 0.3, [1.0000001, -2.0]), (math.acos, -0.9, [1.5, -1.0000001]), (math.atanh, 0.5, [1.0, -1.0, 3.0]),
    (math.exp, 3.0, [710.0, 1000.0]), (math.expm1, -2.0, [710.0]), (math.sinh, 2.0, [711.0, -711.0]),
    (math.cosh, -2.0, [711.0, -711.0]), (math.lgamma, -2.5, [0.0, -1.0, -7.0]),
]

_FN = math.log  # the math function call_math calls: a global, so each change compiles again


def call_math(x):
    return _FN(x) * 2.0  # ERR


def calling(fn):
    global _FN
    _FN = fn
    return call_math


def python_error(f, x):
    with pytest.raises((ValueError, OverflowError)) as e:
        f(x)
    return e.value


@pytest.mark.parametrize("fn, good, bad", CASES, ids=[c[0].__name__ for c in CASES])
def test_outside_the_domain_raises_what_python_raises(fn, good, bad):
    f = calling(fn)
    agrees(f, good)
    for x in bad:
        expected = python_error(f, x)
        cls = RangeError if isinstance(expected, OverflowError) else DomainError
        for run in (catad.grad(f), lambda x: catad.jvp(f, (x,), (1.0,)), lambda x: catad.vjp(f, x)):
            with pytest.raises(cls) as ours:
                run(x)
            assert isinstance(ours.value, type(expected))
            assert str(expected) in str(ours.value)
            assert ours.value.loc.line == marked_line(f)


def test_nan_and_the_infinities_pass_through_as_in_python():
    for fn, x in [(math.log, math.nan), (math.sqrt, math.inf), (math.exp, math.inf), (math.exp, -math.inf),
                  (math.log, math.inf), (math.acos, math.nan)]:
        f = calling(fn)
        value = catad.value_and_grad(f)(x)[0]
        assert value == f(x) or (math.isnan(value) and math.isnan(f(x)))


def guarded(v):
    return sum(math.log(v[i]) if v[i] > 0 else 0.0 for i in range(len(v)))


def unguarded(v):
    return sum(math.log(v[i]) for i in range(len(v)))  # ERR


def in_a_loop(v):
    t = 0.0
    for e in v:
        t += math.sqrt(e)  # ERR
    return t


def of_an_int(n, x):
    return math.log(n) * x  # ERR


def test_only_where_python_evaluates_the_call():
    v = np.array([1.5, -2.0, 3.0])
    agrees(guarded, v)  # the negative element's log is never taken
    for f in (unguarded, in_a_loop):
        expected = python_error(f, v)
        with pytest.raises(DomainError, match=str(expected)) as ours:
            catad.grad(f)(v)
        assert ours.value.loc.line == marked_line(f)
        agrees(f, np.abs(v))
    with pytest.raises(DomainError) as ours:
        catad.grad(of_an_int, argnums=1)(0, 1.5)
    assert ours.value.loc.line == marked_line(of_an_int)
    assert catad.grad(of_an_int, argnums=1)(3, 1.5) == pytest.approx(math.log(3))


def numpy_log(v):
    return np.sum(np.log(v))


def test_numpy_s_functions_keep_numpy_s_nan():
    with np.errstate(all="ignore"):
        assert math.isnan(numpy_log(np.array([-1.0, 2.0])))
        assert math.isnan(catad.value_and_grad(numpy_log)(np.array([-1.0, 2.0]))[0])


def int_powers(x, v, e):
    return x * float(np.sum(v ** e))  # ERR


@pytest.mark.parametrize("v, e", [(np.array([2, 3]), 2), (np.array([3, 5]), np.array([40, 3])),
                                  (np.array([], dtype=np.int64), -1), (np.array([2, 3]), np.array([[1], [0]]))])
def test_int_arrays_to_int_powers_are_numpy_s_ints(v, e):
    value, g = catad.value_and_grad(int_powers)(1.5, v, e)
    assert value == int_powers(1.5, v, e)  # 3 ** 40 exactly: an Int power, not a float's
    assert g == float(np.sum(v ** e))


@pytest.mark.parametrize("v, e", [(np.array([2, 3]), -1), (np.array([2, 3]), np.array([1, -2]))])
def test_a_negative_power_of_an_int_array_is_numpy_s_value_error(v, e):
    expected = python_error(lambda x: int_powers(x, v, e), 1.5)
    with pytest.raises(DomainError, match=str(expected)) as ours:
        catad.grad(int_powers)(1.5, v, e)
    assert ours.value.loc.line == marked_line(int_powers)


def math_pow(x, y):
    return math.pow(x, y) * 2.0  # ERR


@pytest.mark.parametrize("x, y", [(-4.0, 0.5), (0.0, -1.0), (-0.0, -3.0), (10.0, 400.0), (-10.0, 401.0)])
def test_math_pow_raises_what_python_raises(x, y):
    """math.pow is C's pow with CPython's checks (NumPy's pow gives nan or inf): found by
    differential testing, trial 5."""
    with pytest.raises((ValueError, OverflowError)) as python:
        math_pow(x, y)
    cls = RangeError if isinstance(python.value, OverflowError) else DomainError
    for run in (catad.grad(math_pow), lambda x, y: catad.jvp(math_pow, (x, y), (1.0, 1.0))):
        with pytest.raises(cls) as ours:
            run(x, y)
        assert isinstance(ours.value, type(python.value)) and str(python.value) in str(ours.value)
        assert ours.value.loc.line == marked_line(math_pow)


@pytest.mark.parametrize("x, y", [(2.0, 3.0), (-2.0, 3.0), (0.5, -2.5), (3.0, 0.0)])
def test_math_pow_inside_its_domain(x, y):
    agrees(math_pow, x, y)
    assert catad.value_and_grad(math_pow, argnums=(0, 1))(x, y)[0] == math_pow(x, y)
