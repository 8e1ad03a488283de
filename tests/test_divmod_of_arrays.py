"""divmod() of arrays and np.divmod: NumPy's (np.floor_divide(a, b), np.mod(a, b)), which np.divmod
equals, also at inf, nan and zeros; np.divmod of Python's numbers is NumPy's too (np.divmod(1.0,
0.0) is (inf, nan), where Python's divmod raises). Both were refused. Each function is called
itself."""
import math

import numpy as np
import pytest

import catad
from located import agrees

VALS = np.array([-math.inf, -2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 1.5, math.inf, math.nan])
A, B = np.repeat(VALS, len(VALS)), np.tile(VALS, len(VALS))


def builtin_of_arrays(a, b):
    q, r = divmod(a, b)
    return q * 1.0 + r * 0.0, r * 1.0


def np_divmod(a, b):
    return np.divmod(a, b)


def np_divmod_of_an_element(a, v):
    return np.divmod(a, v[0])


def np_divmod_of_numbers(x, y):
    return np.divmod(x * 1.0, y * 1.0)


def loss(a, b):
    q, r = np.divmod(a * 3.0, b)
    return np.sum(q * a + r * r)


def same(actual, expected) -> bool:
    a, e = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    return a.shape == e.shape and bool(np.all((a == e) & (np.signbit(a) == np.signbit(e)) |
                                              np.isnan(a) & np.isnan(e)))


@pytest.mark.parametrize("f, args", [(builtin_of_arrays, (A, B)), (np_divmod, (A, B)),
                                     (np_divmod_of_an_element, (VALS, np.array([-2.5]))),
                                     (np_divmod_of_an_element, (VALS, np.array([0.0]))),
                                     (np_divmod_of_numbers, (1.0, 0.0)), (np_divmod_of_numbers, (-7.5, 2.0))],
                         ids=lambda a: a.__name__ if callable(a) else None)
def test_values_are_numpys(f, args):
    with np.errstate(all="ignore"):
        want = f(*args)
    got, _ = catad.vjp(f, *args)
    assert len(got) == 2 and all(same(g, w) for g, w in zip(got, want)), (got, want)


def test_gradients():
    agrees(loss, np.array([0.7, 1.9, -2.2]), np.array([1.3, -0.8, 0.9]), argnums=(0, 1))


def test_ints():
    a, b = np.array([-7, 3, 8]), np.array([2, -4, 3])
    got, _ = catad.vjp(np_divmod, a, b)
    want = np.divmod(a, b)
    assert all(g.dtype == w.dtype and (g == w).all() for g, w in zip(got, want))
