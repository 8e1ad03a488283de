"""A product of two tangents is 0 wherever either factor is 0 (the second derivative's half of
JAX's `where` trap).

A gradient program scales the cotangent x of a branch value by the value's partial k
(tscale(k, x), 0 wherever x is 0, catad.tangents.times). Differentiated again, its partial in
k is the map dk |-> touter(x, dk): where x is 0 (the branch not taken), tscale(k, x) is 0 for
every k, so this map is 0 too, even where dk is NaN (the derivative of sqrt's partial at a
negative number). The reference semantics made touter zero-safe in x, and the generated code
in dk, so hessian (jacfwd of jacrev) and hvp gave NaN where jacrev of jacrev gave 0."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import catad
from catad.backend import runtime
from catad.primitives.registry import PRIMITIVES
from catad.tangents import ZERO

NAN, INF = math.nan, math.inf


def named_sqrt(a):
    t = np.sqrt(a)
    return np.sum(np.where(a > 0.0, t, 0.0))


def named_sqrt_times(a):
    t = np.sqrt(a)
    return np.sum(np.where(a > 0.0, t, 0.0) * a)


def named_sqrt_dot(a):
    t = np.sqrt(a)
    return np.dot(np.where(a > 0.0, t, 0.0), a)


def loop_sqrt(a):
    s = 0.0
    for x in a:
        t = np.sqrt(x)
        s = s + (t if x > 0 else 0.0)
    return s


def scalar_sqrt(a):
    t = np.sqrt(a[0])
    return np.where(a[0] > 0.0, t, 0.0) * a[1]


CASES = [named_sqrt, named_sqrt_times, named_sqrt_dot, loop_sqrt, scalar_sqrt]


def _central_hessian(f, a, h=1e-5):
    """The Hessian by central differences of catad's gradient (checked against f's own
    central differences in test_gradient_is_the_functions_own)."""
    g = catad.grad(f)
    cols = []
    for j in range(a.size):
        e = np.zeros_like(a)
        e[j] = h
        cols.append((g(a + e) - g(a - e)) / (2 * h))
    return np.array(cols).T


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_gradient_is_the_functions_own(f):
    a = np.array([-1.0, 4.0])
    h = 1e-6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fd = np.array([(f(a + h * e) - f(a - h * e)) / (2 * h) for e in np.eye(2)])
    np.testing.assert_allclose(catad.grad(f)(a), fd, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_hessian_at_an_untaken_branch_is_finite_and_agrees(f):
    a = np.array([-1.0, 4.0])
    expected = _central_hessian(f, a)
    assert np.isfinite(expected).all()
    for how in (catad.hessian(f), catad.jacfwd(catad.jacrev(f)), catad.jacrev(catad.jacrev(f)),
                catad.jacfwd(catad.jacfwd(f)), catad.jacrev(catad.jacfwd(f))):
        np.testing.assert_allclose(how(a), expected, rtol=1e-6, atol=1e-8)
    for v in np.eye(2):
        np.testing.assert_allclose(catad.hvp(f, (a,), (v,)), expected @ v, rtol=1e-6, atol=1e-8)


def test_named_sqrt_hessian_exactly():
    assert catad.hessian(named_sqrt)(np.array([-1.0, 4.0])).tolist() == [[0.0, 0.0], [0.0, -0.03125]]


# ---------------------------------------------------------------- the reference semantics

def test_touter_is_zero_where_either_factor_is():
    touter = PRIMITIVES["touter"].impl
    np.testing.assert_array_equal(touter(np.array([0.0, 2.0]), NAN), [0.0, NAN])
    assert touter(np.array([INF, 1.0]), 0.0) is ZERO or np.array_equal(touter(np.array([INF, 1.0]), 0.0), [0, 0])
    np.testing.assert_array_equal(touter(np.array([0.0, 2.0]), 3.0), [0.0, 6.0])


def test_tprod_is_zero_where_either_factor_is():
    tprod = PRIMITIVES["tprod"].impl
    np.testing.assert_array_equal(tprod(np.array([0.0, 2.0, INF]), np.array([NAN, 3.0, 0.0])), [0.0, 6.0, 0.0])
    np.testing.assert_array_equal(tprod(np.array([NAN, INF]), np.array([0.0, 1.0])), [0.0, INF])


def test_tdot_drops_the_products_with_a_zero_factor():
    tdot = PRIMITIVES["tdot"].impl
    assert tdot(np.array([0.0, 2.0, INF]), np.array([NAN, 3.0, 0.0])) == 6.0
    assert math.isnan(tdot(np.array([NAN, 1.0]), np.array([1.0, 1.0])))


def test_the_generated_codes_product_of_two_tangents():
    np.testing.assert_array_equal(runtime.tmul00(np.array([0.0, NAN, 2.0]), np.array([INF, 0.0, 3.0])),
                                  [0.0, 0.0, 6.0])
    assert runtime.tmul00(2.0, 3.0) == 6.0
