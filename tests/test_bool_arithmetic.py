"""A Bool (a mask or a flag) in arithmetic with numbers is the number 1 or 0, as NumPy and
Python take it: `(a < b) * 1.0`, `x * (a > 0)`, `1.0 - (a[0] > b[0])`, `mask + 2` (an Int
array). Values against the function itself, gradients against central differences. Bool with
Bool stays refused unless it is & | ^: NumPy's + of masks is a logical or, Python's of flags
an Int sum."""
import numpy as np
import pytest

import catad
from catad import CatadTypeError
from located import agrees

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
    return x * np.sum((a > 0) + (b > 0))


def test_bool_plus_bool_is_refused():
    with pytest.raises(CatadTypeError):
        catad.grad(masks_added)(1.5, A, B)
