"""A Bool (a mask or a flag) in arithmetic with numbers is the number 1 or 0, as NumPy and
Python take it: `(a < b) * 1.0`, `x * (a > 0)`, `1.0 - (a[0] > b[0])`, `mask + 2` (an Int
array). Values against the function itself, gradients against central differences. Bool with
Bool is as NumPy and Python have it: NumPy's + and * of masks are a logical or and and, Python's
of flags an Int sum and product."""
import numpy as np
import pytest

import catad
from catad import CatadTypeError
from located import agrees, refused

A = np.array([0.5, -1.0, 2.0, -0.25])
B = np.array([1.0, -2.0, 0.0, 0.5])


def mask_as_float(x, a, b):
    return x * np.sum((a < b) * 1.0)


def masked_values(x, a, b):
    return np.sum((a > 0) * a * x) + np.sum(x * a * (a > b) + (a <= b) / 2.0)


def mask_as_int(x, a, b):
    return x * float(np.sum((a > 0) + 2)) + x * float(np.sum((a > 0) * 3)) + np.sum((a > 0) ** 2 * x)


def flags(x, a, b):
    return x * (1.0 - (a[0] > b[0])) + (x > 0) * x + np.sum(a - (a > 0)) * x


@pytest.mark.parametrize("f", [mask_as_float, masked_values, mask_as_int, flags])
def test_bools_beside_numbers_are_one_and_zero(f):
    agrees(f, 1.5, A, B, argnums=(0, 1, 2))
    agrees(f, -0.5, A, B, argnums=(0, 1))


def int_result(a, b):
    return (a > b) + 2


def test_a_mask_plus_an_int_is_an_int_array():
    assert catad.to_core(int_result, A, B).main.result_type == catad.to_core(lambda v: v, np.arange(3)).main.result_type


def masks_added(x, a, b):
    return x * np.sum((a > 0) + (b > 0.25)) + np.sum(((a > 0) * (b < 0.75)) * a * x)


def masks_in_place(x, a, b):
    m = (a > 0).copy()
    m += b > 0.25
    k = (a < 1.0).copy()
    k *= b < 0.75
    return np.sum(np.where(m, x * a, 0.0)) + np.sum(k * b) * x


def masks_and_flags(x, a, b):
    return np.sum(((a > 0) + (x > 0)) * a) * x + np.sum((a > 0) * (a[0] > 0) * b * x) + \
        np.sum(((a > 0) / (b > -5.0)) * 0.5 * x) * (a[1] > 0)


@pytest.mark.parametrize("f", [masks_added, masks_in_place, masks_and_flags])
def test_masks_added_and_multiplied_are_or_and_and(f):
    """NumPy's + and * of bool arrays are logical or and and (True + True is True); its / of
    them divides floats."""
    agrees(f, 1.5, A, B, argnums=(0, 1, 2))
    agrees(f, -0.5, A, B, argnums=(0, 1))


def count_flags(x, y):
    n = (x > 0) + (y > 0) + (x > y)
    return n * x + ((x > 0) * (y > 0)) * y - (x < 0) * 2 + (x > 1.0) / (y > 0)


def test_python_bools_are_ints():
    """Python's True + True is 2 and True / False raises; the same with NumPy's floats is NumPy's
    bools: logical or, and a division by zero giving inf."""
    for x, y in [(1.5, 0.5), (2.0, 3.0), (-1.0, 0.5)]:
        assert catad.value_and_grad(count_flags, argnums=(0, 1))(x, y) == \
            (count_flags(x, y), catad.grad(count_flags, argnums=(0, 1))(x, y))
        agrees(count_flags, x, y, argnums=(0, 1))
        agrees(count_flags, np.float64(x), np.float64(y), argnums=(0, 1))
    assert catad.grad(count_flags)(1.5, 0.5) == 3.0  # n is 3
    assert catad.grad(count_flags)(np.float64(1.5), np.float64(0.5)) == 1.0  # n is True
    with pytest.raises(ZeroDivisionError):
        count_flags(2.0, -1.0)
    with pytest.raises(ZeroDivisionError):
        catad.grad(count_flags)(2.0, -1.0)
    assert catad.value_and_grad(count_flags)(np.float64(2.0), np.float64(-1.0))[0] == np.inf


def python_and(x, y):
    return 1.0 / ((x > 0) & (y > 0)) * x


def test_python_and_of_python_bools_is_python_bool():
    assert catad.grad(python_and)(1.0, 1.0) == 1.0
    with pytest.raises(ZeroDivisionError):
        python_and(1.0, -1.0)
    with pytest.raises(ZeroDivisionError):
        catad.grad(python_and)(1.0, -1.0)


def masks_subtracted(x, a, b):
    return x * np.sum((a > 0) - (b > 0))  # ERR


def mask_floor_divided(x, a, b):
    return x * np.sum((a > 0) // (b > 0))  # ERR


def flags_of_two_kinds(x, a, b):
    f = x > 0  # Python's bool
    g = x > 2.0 if x > 1.0 else a[1] > 0  # Python's bool where x > 1, NumPy's elsewhere
    return (f + g) * x  # ERR


def test_what_numpy_refuses_of_bools_is_refused():
    with pytest.raises(TypeError, match="boolean subtract"):
        masks_subtracted(1.5, A, B)
    refused(masks_subtracted, (1.5, A, B), "boolean subtract", cls=CatadTypeError)
    refused(mask_floor_divided, (1.5, A, B), "int8", cls=CatadTypeError)
    refused(flags_of_two_kinds, (1.5, A, B), "Python's", "NumPy's", cls=CatadTypeError)


def negated_flag(x):
    return -(x > 0) * x + (+(x > 1.0)) * x * x


def negated_mask(x, a):
    return np.sum(-(a > 0) * x)  # ERR


def test_a_python_bool_negated_is_an_int_numpys_is_refused():
    for x in (1.5, 0.5, -2.0):
        assert catad.value_and_grad(negated_flag)(x) == (negated_flag(x), -(x > 0) + 2 * x * (x > 1.0))
    with pytest.raises(TypeError, match="boolean negative"):
        negated_mask(1.5, A)
    refused(negated_mask, (1.5, A), "NumPy", cls=CatadTypeError)


def inverted_and_truths(x, a, k):
    p = x > 0.5  # Python's bool where x is Python's float: ~p is -1 or -2
    q = a[0] > 0.1  # NumPy's bool: ~q is its logical not
    n = len(a) - 1
    return ((~p) * x + (~q) * x + (~n) * x + np.sum((~k) * a) * x + bool(x) * x + bool(a[1]) * x + bool(q) * x
            + bool() * x + np.sum(np.where(k - 1, a, 0.0)) * x + np.sum(np.where(a - 0.95, 1.0, 2.0)) * x
            + (~(a > 0.5)).sum() * x)


@pytest.mark.parametrize("x", [0.7, 0.2, np.float64(0.7), np.float64(0.2)], ids=repr)
def test_invert_bool_and_truth_of_numbers(x):
    """~ of Python's bools and ints is -n - 1 (two's complement), of NumPy's bools a logical not;
    bool(x) and np.where's condition take a number as nonzero."""
    a, k = np.array([0.3, 0.95, 0.0]), np.array([1, 2, 0])
    value, g = catad.value_and_grad(inverted_and_truths)(x, a, k)
    assert value == inverted_and_truths(x, a, k)
    h = 1e-7
    assert g == pytest.approx((inverted_and_truths(x + h, a, k) - inverted_and_truths(x - h, a, k)) / (2 * h), rel=1e-6)
    zero = x * 0.0  # bool(0.0) is False
    assert catad.value_and_grad(inverted_and_truths)(zero, a, k)[0] == inverted_and_truths(zero, a, k)
