"""Python's int ** int is an int for a power >= 0 and a float for a negative one. catad typed every
power not a literal as a Float, so `v[2 ** i]` and `range(2 ** i)` were refused, and above 2**53,
where a float no longer holds every int, a Float quietly lost what Python's int keeps:
`k = 2 ** n; k + 1 - k` was 0.0 for n = 60, where Python gives 1. Now a power known >= 0 while
compiling (int_range's `nonneg`: a literal, a length, a range's or enumerate's variable counting
up from such a start, + * ** // % of these) gives an Int; any other stays a Float, and catad
refuses where it reaches 2**53 for a power >= 0. Found by the number-kind fuzzer (session 20)."""
import numpy as np
import pytest

import catad
from located import agrees


def index_by_power(x, v):
    s = x
    for i in range(3):
        s = s + v[2 ** i] * 2 ** i
    return s


def index_by_power_less_one(x, v):
    return sum(x * v[2 ** i - 1] for i in range(3))


def enumerate_power(x, v):
    s = x
    for i, e in enumerate(v[:3]):
        s = s + e * 3 ** i + x * ((3 ** i + 1) // 2)
    return s


def power_of_length(x, v):
    return x * 2 ** len(v) + x * 2 ** abs(len(v) - 9)


def shifted_range(x, n):
    s = x
    for i in range(1, n):
        s = s + 2 ** (i - 1) * x + (2 ** i) % 3
    return s


def counts_down(x, n):
    s = x
    for i in range(n, 0, -1):
        s = s + 2 ** i * x
    return s


def negative_powers(x, n):
    s = x
    for i in range(3):
        s = s + x * 2 ** -i
    return s


def range_of_power(x):
    s = x
    for i in range(3):
        for j in range(2 ** i):
            s = s * 1.01
    return s


@pytest.mark.parametrize("f, args", [
    (index_by_power, (0.5, np.linspace(1.0, 2.0, 8))),
    (index_by_power_less_one, (0.5, np.linspace(1.0, 2.0, 8))),
    (enumerate_power, (0.5, np.linspace(1.0, 2.0, 8))),
    (power_of_length, (0.5, np.linspace(1.0, 2.0, 8))),
    (shifted_range, (0.5, 6)),
    (counts_down, (0.5, 4)),
    (negative_powers, (0.5, 1)),
    (range_of_power, (0.5,)),
], ids=lambda a: getattr(a, "__name__", ""))
def test_powers_agree_with_python(f, args):
    agrees(f, *args, argnums=0)


def exact_difference(x, n):
    k = 2 ** n
    return x * float(k + 1 - k)


def odd_or_even(x, n):
    k = 2 ** n
    return x + (k + 1) % 2


@pytest.mark.parametrize("f", [exact_difference, odd_or_even], ids=lambda f: f.__name__)
def test_an_exponent_of_unknown_sign(f):
    for n in (5, 0, -1, -3):  # below 2**53, and Python's floats of negative powers
        value, grad = catad.value_and_grad(f)(0.5, n)
        assert value == f(0.5, n) and grad == 1.0
    with pytest.raises(catad.CatadError, match=r"int \*\* int reaches 1.15\d*e\+18 here"):
        catad.value_and_grad(f)(0.5, 60)  # Python's int is exact there, a float is not
