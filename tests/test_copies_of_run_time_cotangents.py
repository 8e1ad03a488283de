"""Reverse mode through a comprehension whose elements read a matrix, when a later loop that may
break reads those elements: the loop's cotangent of them is a run-time tangent (known only when
the reverse loop has run), and each element's cotangent of the matrix is that tangent spread
over the matrix's rows and columns, a vector of vectors of copies of it. Reading one row of
that (the sum's cotangent, row by row) made it an array, which a run-time tangent has no shape
for: catad refused such functions as a limitation of its code generator (the fuzzer's seed
3260719). A row of copies of one run-time tangent is that vector of copies itself
(gathers.index).

The oracle is the user's function itself: central differences (tests/located.agrees), and
second differences of catad's gradient for the Hessian."""
import numpy as np
import pytest

import catad
from located import agrees, hessian_by_differences


def breaks_on_a_product(v, m):
    rows = [np.sum(m * v[i]) for i in range(len(v))]
    acc = 0.0
    for k in range(3):
        acc = acc + v[0] * acc + 0.5
        if rows[-1] <= acc:
            break
    return acc * rows[1]


def breaks_on_a_sum(v, m):
    rows = [np.sum(m - m) + v[i] * np.sum(np.sin(m)) for i in range(len(v))]
    acc = 0.0
    for k in range(3):
        acc = acc * v[1] + rows[k]
        if acc > 2.0:
            break
    return acc * rows[0]


def appended_in_a_loop(x, v, m):
    rows = []
    for i in range(len(v)):
        rows.append(np.sum(m - m) / (1.0 + v[i] * v[i]) + np.sum(m) * x)
    acc = 0
    for k in range(m.shape[0]):
        acc = acc + (np.mean(v) - 1)
        if rows[-1] <= acc:
            return acc
    return x + acc * rows[1]


V = np.array([0.3, -0.7, 1.1, 0.4])
M = np.array([[0.2, -0.4, 0.9], [-1.3, 0.6, 0.25]])


@pytest.mark.parametrize("f", [breaks_on_a_product, breaks_on_a_sum])
@pytest.mark.parametrize("v", [V, np.array([2.5, 0.5, -1.0]), np.array([-0.2, 1.5, 0.4])])
def test_gradient_in_both_arguments(f, v):
    agrees(f, v, M, argnums=(0, 1))


@pytest.mark.parametrize("x", [-1.0, 0.7])
@pytest.mark.parametrize("v", [V, np.array([-1.0, 0.5, 0.0, 3.0, 2.0])])
def test_a_return_inside_the_loop(x, v):
    agrees(appended_in_a_loop, x, v, M, argnums=(0, 1, 2))


@pytest.mark.parametrize("f", [breaks_on_a_product, breaks_on_a_sum])
@pytest.mark.parametrize("k", [0, 1])
def test_hessian(f, k):
    args = (V, M)
    np.testing.assert_allclose(catad.hessian(f, argnums=k)(*args), hessian_by_differences(f, args, k),
                               rtol=1e-6, atol=1e-6)
