"""Hessians of a product of a reduction along an axis, np.prod(np.sum(a, axis=1)): the gradient's
forward program makes a vector whose elements are all one run-time tangent (the zero tangent, or
the tangent a loop computed), build(n, \\i. t). The code generator refused it ("a vector of tuples
or of zero tangents as an array ... please report it") where a run-time value was wanted (an
index update's value) and where it is densified; it is now n copies of t (runtime.rt_repeat: the
zero tangent of a vector where t is the zero tangent). Found by differential testing (session 17).

Checked against second central differences of the function itself, and against fourth-order
differences of catad's gradient."""
import numpy as np
import pytest

import catad
from located import hessian_by_differences, second_differences


def prod_of_row_sums(a):
    return np.prod(np.sum(a, axis=1))


def prod_of_column_means(a):
    return np.prod(np.mean(a, axis=0)) * 2.0


def prod_of_shifted_row_norms(a):
    return np.prod(np.sum(a * a, axis=1) + 1.0)


def prod_of_sine_row_sums(a):
    return np.prod(np.sin(a).sum(axis=1))


def cumprod_of_row_sums(a):
    return np.sum(np.cumprod(np.sum(a, axis=1)))


FUNCTIONS = [prod_of_row_sums, prod_of_column_means, prod_of_shifted_row_norms, prod_of_sine_row_sums,
             cumprod_of_row_sums]


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(3, 2), (2, 4)])
def test_the_hessian_is_the_function_s_second_differences(f, shape):
    a = np.random.default_rng(sum(shape)).uniform(-1.2, 1.2, shape)
    h = catad.hessian(f)(a)
    assert h.shape == shape + shape
    np.testing.assert_allclose(h, second_differences(f, a), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(h, hessian_by_differences(f, (a,), 0), rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_hvp_is_the_hessian_times_the_tangent(f):
    rng = np.random.default_rng(5)
    a, v = rng.uniform(-1.2, 1.2, (3, 2)), rng.normal(size=(3, 2))
    h = catad.hessian(f)(a)
    np.testing.assert_allclose(catad.hvp(f, (a,), (v,)), np.tensordot(h, v, 2), rtol=1e-10, atol=1e-12)
