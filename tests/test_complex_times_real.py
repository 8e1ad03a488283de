"""A real number times a complex one is the complex product with the real one's imaginary part 0,
as NumPy and Python compute it: 1j * -0.0 is -0.0 + 0.0j (np.angle(-1 + 1j * -0.0) is pi, not
-pi) and 1j * inf is nan + inf j; catad scaled both parts. Values against the function itself.
Found by the fuzzN differential fuzzer."""
import numpy as np
import pytest

import catad


def angle(a, b):
    return np.angle(a + 1j * b) * 1.0 + np.copysign(1.0, np.imag(a + b * 1j))


def scaled(a, b):
    z = (a + 2.0j) * b
    return np.real(z) + np.imag(z) * 0.5


@pytest.mark.parametrize("a, b", [(-1.0, -0.0), (-1.0, 0.0), (1.0, -0.0), (-1.0, 2.0), (0.5, -3.0)], ids=str)
def test_angle_and_sign(a, b):
    assert catad.value_and_grad(angle)(a, b)[0] == angle(a, b)


@pytest.mark.parametrize("a, b", [(1.0, np.inf), (np.inf, 2.0), (1.0, -0.0), (-2.0, 3.0)], ids=str)
def test_products_with_infinities(a, b):
    with np.errstate(all="ignore"):
        expected = scaled(a, b)
        got = catad.value_and_grad(scaled)(a, b)[0]
    assert got == expected or np.isnan(got) and np.isnan(expected)
