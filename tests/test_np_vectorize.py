"""np.vectorize(f)(x, ...) and vf = np.vectorize(f); vf(x, ...) (catad/frontend/vectorize.py): f
called on each element of the broadcast of its arguments, a lambda, a def of the function, a
function of yours or one catad knows; of numbers, NumPy's array of no axes; otypes=[float] makes
floats; NumPy's ValueError for an argument with no elements (without otypes). Oracle: the user's
function itself (located.agrees: value and central differences). catad refused np.vectorize on
main."""
import math

import numpy as np
import pytest

import catad
from located import agrees, refused


def piecewise(t):
    return t * t if t > 0 else -0.5 * t


def of_a_lambda(x):
    return np.sum(np.vectorize(lambda t: math.sin(t) * t)(x))


def of_a_function_assigned(x):
    vg = np.vectorize(piecewise)
    return np.sum(vg(x) * 2.0)


def of_two_broadcast(x, y):
    h = np.vectorize(lambda a, b: a * b if a > b else a + b)
    return np.sum(h(x, y[:, None]))


def of_a_number(x):
    return float(np.vectorize(piecewise)(x[0])) + np.sum(x)


def of_math_gamma_as_floats(x):
    return np.sum(np.vectorize(math.gamma, otypes=[float])(x + 3.0))


def of_ints(x):
    return np.sum(np.vectorize(lambda t: int(t > 0))(x) * x)


def of_a_nested_def(x):
    def soft(t, k=2.0):
        return math.log1p(math.exp(k * t)) / k
    return np.sum(np.vectorize(soft)(x))


X = np.array([0.3, -0.7, 1.1, 0.4])
Y = np.array([0.5, -1.2, 0.1])


@pytest.mark.parametrize("f", [of_a_lambda, of_a_function_assigned, of_a_number, of_math_gamma_as_floats, of_ints,
                               of_a_nested_def])
def test_of_one_argument(f):
    agrees(f, X)


def test_broadcast():
    agrees(of_two_broadcast, X, Y, argnums=(0, 1))


def of_nothing(x):
    return np.sum(np.vectorize(piecewise)(x[:0])) + x[0]


def test_of_nothing_raises_numpys_error():
    with pytest.raises(ValueError, match="cannot call `vectorize` on size 0 inputs unless `otypes` is set"):
        of_nothing(X)
    with pytest.raises(ValueError, match="cannot call `vectorize` on size 0 inputs unless `otypes` is set"):
        catad.grad(of_nothing)(X)


def kept_as_a_value(x):
    fs = (np.vectorize(piecewise), 1.0)  # ERR
    return np.sum(fs[0](x))


def with_a_signature(x):
    return np.sum(np.vectorize(np.sum, signature="(n)->()")(x))  # ERR


def test_refused():
    refused(kept_as_a_value, (X,), "np.vectorize(f) is supported where it is called at once")
    refused(with_a_signature, (X,), "signature=...) is not supported")
