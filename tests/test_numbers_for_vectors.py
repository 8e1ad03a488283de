"""A number where NumPy or SciPy wants a vector: np.polyval's p, np.correlate's a and v, np.interp's xp
and fp, scipy.integrate.simpson's y and x. NumPy and SciPy raise (TypeError, ValueError, IndexError);
catad read the number as a vector of one element, as it rightly does for np.convolve and the
np.polynomial functions, and returned a value: np.polyval(1.0, x) gave 1.0 for every x. Now it
refuses, naming the library's error. Found by differential testing (session 18)."""
import numpy as np
import pytest
import scipy.integrate

import catad
from located import agrees


def polyval_number(x): return np.sum(np.polyval(1.0, x))
def correlate_number_a(x): return np.sum(np.correlate(2.0, x))
def correlate_number_v(x): return np.sum(np.correlate(x, 2.0))
def interp_number_xp(x): return np.sum(np.interp(x, 1.0, 2.0))
def interp_number_fp(x): return np.sum(np.interp(x, np.array([0.0, 1.0]), 2.0))
def simpson_number_y(x): return scipy.integrate.simpson(x[0])
def simpson_number_x(x): return scipy.integrate.simpson(x, x=2.0)


def polyval_list(x): return np.sum(np.polyval([1.0, 2.0], x))
def power_series_number(x): return np.sum(np.polynomial.polynomial.polyval(x, 2.0))
def convolve_number(x): return np.sum(np.convolve(2.0, x) * np.arange(3.0))
def convolve_number_v(x): return np.sum(np.convolve(x, 2.0) * np.arange(3.0))


X = np.array([0.5, 2.0, 3.0])


@pytest.mark.parametrize("f", [polyval_number, correlate_number_a, correlate_number_v, interp_number_xp,
                               interp_number_fp, simpson_number_y, simpson_number_x], ids=lambda f: f.__name__)
def test_a_number_for_a_vector_is_refused_where_the_library_raises(f):
    with pytest.raises((TypeError, ValueError, IndexError)) as raised:
        f(X)
    with pytest.raises(catad.CatadTypeError, match="must be a vector, got a number") as e:
        catad.grad(f)(X)
    assert type(raised.value).__name__ in str(e.value)


@pytest.mark.parametrize("f", [polyval_list, power_series_number, convolve_number, convolve_number_v],
                         ids=lambda f: f.__name__)
def test_a_number_where_the_library_takes_one(f):
    agrees(f, X)
