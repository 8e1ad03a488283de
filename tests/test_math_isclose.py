"""math.isclose(a, b, rel_tol=..., abs_tol=...) of numbers: Python's bool, as Python computes it
(equal numbers close, infinities close only to themselves, NaN to nothing), and Python's
ValueError for a negative tolerance, on a grid of special values against Python itself. catad
refused math.isclose on main."""
import itertools
import math

import numpy as np
import pytest

import catad


def scaled_where_close(x, y, r, a):
    return x * (1.0 if math.isclose(x, y, rel_tol=r, abs_tol=a) else 2.0)


def by_default(x, y):
    return 3.0 * x if math.isclose(x, y) else x


VALUES = [0.0, -0.0, 1.0, 1.0 + 1e-10, 1.0 + 1e-8, math.inf, -math.inf, math.nan, 1e-300, -1e-300, 2.0]
TOLERANCES = [(1e-9, 0.0), (1e-6, 1e-12), (0.0, 0.0), (0.5, 2.0), (-1.0, 0.0), (0.0, -1e-9)]


@pytest.mark.parametrize("r, a", TOLERANCES)
def test_against_python(r, a):
    for x, y in itertools.product(VALUES, VALUES):
        try:
            want = scaled_where_close(x, y, r, a)
        except ValueError as e:
            with pytest.raises(ValueError, match=str(e)):
                catad.value_and_grad(scaled_where_close)(x, y, r, a)
            continue
        got, grad = catad.value_and_grad(scaled_where_close)(x, y, r, a)
        assert got == want or math.isnan(got) and math.isnan(want), (x, y, r, a)


def test_defaults_and_gradient():
    assert catad.value_and_grad(by_default, argnums=(0, 1))(1.0, 1.0 + 1e-12) == (3.0, (3.0, 0.0))
    assert catad.value_and_grad(by_default, argnums=(0, 1))(1.0, 1.0 + 1e-6) == (1.0, (1.0, 0.0))


def of_arrays(x):
    return 1.0 if math.isclose(x, x) else 0.0


def test_arrays_are_refused():
    with pytest.raises(catad.CatadTypeError, match="math.isclose"):
        catad.grad(of_arrays)(np.ones(2))
