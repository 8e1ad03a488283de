"""x ** 0.5 where x is -inf or -0.0: C's pow (Python's floats, NumPy's scalars, math.pow, and
NumPy's power ufunc of an exponent array) gives inf and 0.0; NumPy's power ufunc of an exponent
that is one value for the whole result (`v ** 0.5`, `np.power(x, 0.5)`, `v ** np.array([0.5])`)
computes np.sqrt, which gives nan and -0.0. catad computed np.sqrt's for all of them (and refused
Python's (-inf) ** 0.5 as a complex number). Each function is called itself, and the values are
compared bit for bit: nan with nan, and the sign of a zero."""
import math

import numpy as np
import pytest

import catad
from located import agrees


def same(actual, expected) -> bool:
    a, e = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    return a.shape == e.shape and bool(np.all((a == e) & (np.signbit(a) == np.signbit(e)) |
                                              np.isnan(a) & np.isnan(e)))


def check(f, *args):
    """catad's value of f at args, by its reverse and its forward program, is f's own, bit for bit."""
    with np.errstate(all="ignore"):
        want = f(*args)
    got, _ = catad.vjp(f, *args)
    assert same(got, want), (got, want)
    tangents = tuple(np.zeros(np.shape(a)) if np.ndim(a) else 0.0 for a in args)
    got, _ = catad.jvp(f, args, tangents)
    assert same(got, want), (got, want)


def of_python_float(x):
    return (x * -0.0) ** 0.5, (x * -math.inf) ** 0.5, math.atan2((x * -0.0) ** 0.5, -1.0)


def of_numpy_scalar(v):
    return v[0] ** 0.5, 1.0 / (v[1] ** 0.5), np.sum(v[:1]) ** 0.5


def of_math_pow(x):
    return math.pow(x * -0.0, 0.5), math.pow(x * -math.inf, 0.5)


def of_array(v):
    return v ** 0.5


def of_np_power(v):
    return np.power(v, 0.5)


def of_np_power_of_a_scalar(v):
    return np.power(v[0], 0.5), np.power(v[1], 0.5)


def of_float_power(v):
    return np.float_power(v, 0.5)


def of_a_scalar_exponent(v, p):
    return v ** p


def of_a_scalar_exponent_numbers(v, p):
    return v[0] ** p, np.power(v[1], p)


def of_an_exponent_array(v, w):
    return v ** w


def of_one_exponent_broadcast(m):
    return m ** np.array([0.5]), m ** np.array([[0.5]])


def of_an_exponent_of_the_result_shape(v):
    return v[:1] ** np.array([0.5])


def of_elements(v):
    return np.array([e ** 0.5 for e in v])


def of_elements_by_np_power(v):
    return np.array([np.power(e, 0.5) for e in v])


def of_exponents(v, ps):
    return np.array([np.sum(1.0 / (v ** p)) for p in ps])


def of_elements_and_exponents(v, ps):
    return np.array([[e ** p for e in v] for p in ps])


def in_place(v):
    w = v * 1.0
    w **= 0.5
    return w


SPECIAL = np.array([-np.inf, -0.0, 4.0, np.inf, 0.0, -4.0])


@pytest.mark.parametrize("f, args", [
    (of_python_float, (1.0,)),
    (of_numpy_scalar, (np.array([-np.inf, -0.0]),)),
    (of_math_pow, (1.0,)),
    (of_array, (SPECIAL,)),
    (of_np_power, (SPECIAL,)),
    (of_np_power_of_a_scalar, (np.array([-np.inf, -0.0]),)),
    (of_float_power, (SPECIAL,)),
    (of_a_scalar_exponent, (SPECIAL, 0.5)),
    (of_a_scalar_exponent, (SPECIAL, 1.5)),
    (of_a_scalar_exponent_numbers, (np.array([-np.inf, -0.0]), 0.5)),
    (of_an_exponent_array, (SPECIAL, np.full(6, 0.5))),
    (of_an_exponent_array, (SPECIAL, np.array([0.5]))),
    (of_an_exponent_array, (SPECIAL[:1], np.array([0.5]))),
    (of_an_exponent_array, (SPECIAL[:2], np.array([0.5, 2.0]))),
    (of_one_exponent_broadcast, (SPECIAL.reshape(2, 3),)),
    (of_one_exponent_broadcast, (SPECIAL[:1].reshape(1, 1),)),
    (of_an_exponent_of_the_result_shape, (SPECIAL,)),
    (of_elements, (SPECIAL,)),
    (of_elements_by_np_power, (SPECIAL,)),
    (of_exponents, (np.array([-np.inf, -0.0, 2.0]), np.array([0.5, 1.5, 0.5]))),
    (of_elements_and_exponents, (np.array([-np.inf, -0.0, 2.0]), np.array([0.5, 1.5]))),
    (in_place, (SPECIAL,)),
], ids=lambda a: a.__name__ if callable(a) else None)
def test_values_are_those_of_the_function(f, args):
    check(f, *args)


def test_the_python_error_of_a_negative_float_to_a_fractional_power_remains():
    with pytest.raises(catad.DomainError, match="complex number"):
        catad.grad(lambda x: (x * -2.0) ** 0.5)(1.0)


def sum_of_powers(v, p):
    return np.sum(v ** p) + np.sum(np.power(v, p * 0.5))


def sum_of_powers_by_loop(v, ps):
    return sum(np.sum(v ** p) for p in ps)


@pytest.mark.parametrize("p", [0.5, 1.5, 0.25])
def test_gradients_of_a_scalar_exponent(p):
    agrees(sum_of_powers, np.array([0.5, 2.0, 3.0]), p, argnums=(0, 1))


def test_gradients_of_exponents_in_a_loop():
    agrees(sum_of_powers_by_loop, np.array([0.5, 2.0, 3.0]), np.array([0.5, 1.5, 0.5]), argnums=(0, 1))


def named_as_the_runtime(v, p):
    np_power = v * 2.0
    power = np_power + 1.0
    return np.sum(power ** p) + np.sum(np_power ** p) + np.sum(v[0] ** p)


def test_names_of_the_runtime_are_the_functions_own():
    agrees(named_as_the_runtime, np.array([0.5, 2.0, 3.0]), 0.5, argnums=(0, 1))


def of_infinite_and_nan_exponents(x, a):
    return (x * 0.0) ** -a, (x * -0.0) ** -a, (x * -2.5) ** (a - a)


def test_pythons_powers_of_an_infinite_or_nan_exponent():
    """Python's 0.0 ** -inf is inf and (-2.5) ** nan is nan: catad raised ZeroDivisionError and
    refused the latter as a complex number."""
    check(of_infinite_and_nan_exponents, 1.0, math.inf)


def test_pythons_zero_to_a_negative_power_raises():
    with pytest.raises(ZeroDivisionError, match="negative power"):
        catad.grad(lambda x, a: (x * 0.0) ** -a, argnums=0)(1.0, 2.0)
