"""math.isnan, math.isinf and math.isfinite of a number: Python's bools (True / 0 raises, as in
Python), tested as np.isnan and friends are; math.copysign of numbers, Python's float; math.prod of a tuple or
list of numbers (a shape), Python's left-to-right product; of an array, each refused as the TypeError Python raises. Before, refused as unsupported functions."""
import math

import numpy as np
import pytest

import catad
from catad.errors import CatadTypeError, ZeroDivisionError_
from located import agrees, refused


def overflowed(x):
    if not math.isfinite(x * 1e308 * 10.0):
        return x * 2.0 + math.isinf(-x * 1e308 * 10.0)
    return x


def classified(x):
    return (math.isnan(x - x) + math.isinf(x) + math.isfinite(3)) * x


def signs(x):
    return math.copysign(x * x, -x) + math.copysign(2.0, -0.0) * x + math.copysign(x, 1)


def products(x):
    return math.prod([x, 2.0, x]) + math.prod((x, True, 3)) + math.prod(()) * x


def per_element(m):
    return np.sum(m) / math.prod(m.shape) * math.prod(m.shape[1:])


def test_products_of_shapes():
    agrees(per_element, np.linspace(0.5, 2.0, 6).reshape(2, 3))


@pytest.mark.parametrize("fn, x", [(overflowed, 1.5), (overflowed, 1e-320), (classified, 1.5),
                                   (classified, 1e-320), (signs, 1.5), (signs, -0.5), (products, 1.5),
                                   (products, -0.5)])
def test_math_number_tests(fn, x):
    with np.errstate(over="ignore"):
        agrees(fn, x)


def over_zero(x):
    return math.isnan(x) / 0


def signed_over_zero(x):
    return math.copysign(0.0, x) / 0


def product_over_zero(x):
    return math.prod((x, abs(x))) / 0


@pytest.mark.parametrize("fn", [over_zero, signed_over_zero, product_over_zero], ids=lambda f: f.__name__)
def test_their_results_are_python_s(fn):
    with pytest.raises(ZeroDivisionError):
        fn(1.5)
    with pytest.raises(ZeroDivisionError_):
        catad.value_and_grad(fn)(1.5)


def of_an_array(v):
    return math.isnan(v) * 1.0  # ERR


def sign_of_an_array(v):
    return np.sum(math.copysign(v, -1.0))  # ERR


def product_of_an_array(v):
    return math.prod(v)  # ERR


def test_a_product_of_an_array_is_refused():
    """(Python multiplies its elements one by one: catad refuses, naming np.prod.)"""
    refused(product_of_an_array, (np.ones(2),), "math.prod() takes a tuple", "np.prod(a)", cls=CatadTypeError)


@pytest.mark.parametrize("fn, words", [(of_an_array, ["math.isnan() takes a number", "np.isnan(x)"]),
                                       (sign_of_an_array, ["math.copysign() takes numbers", "np.copysign"])],
                         ids=lambda p: getattr(p, "__name__", ""))
def test_of_an_array_is_refused(fn, words):
    with pytest.raises(TypeError):
        fn(np.ones(2))
    refused(fn, (np.ones(2),), *words, cls=CatadTypeError)
