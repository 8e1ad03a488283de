"""Derivatives that crashed with a raw traceback from catad's generated code (differential testing,
trial 6): each now gives the derivative, checked against central differences of catad.grad (or of
the function) and against the other modes."""
import numpy as np
import pytest

import catad
from backend_programs import central_difference


def _second(f, x, tol=1e-5):
    """jacrev(grad f), the rows of vjp(grad f), hessian (forward over reverse) and hvp agree with
    one another and with central differences of catad.grad."""
    g = catad.grad(f)
    ref = central_difference(g, (x,), 0)
    h = catad.hessian(f)(x)
    np.testing.assert_allclose(h, ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(catad.jacrev(g)(x), h, rtol=1e-12, atol=1e-12)
    _, pull = catad.vjp(g, x)
    for k in range(x.shape[0]):
        e = np.eye(x.shape[0])[k]
        np.testing.assert_allclose(pull(e)[0], h[k], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(catad.hvp(f, (x,), (e,)), h[:, k], rtol=1e-12, atol=1e-12)
    v = np.linspace(0.5, 1.5, x.shape[0])
    np.testing.assert_allclose(catad.grad(lambda z: g(z) @ v)(x), h @ v, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- reverse over reverse, nested loops

def nested_for(x):
    out = np.zeros(2)
    for i in range(2):
        for j in range(2):
            out[i] += x[j]
    return np.sum(out * out)


def nested_break(x):
    s = 0.0
    for i in range(3):
        for j in range(3):
            if x[j] > 1.5:
                break
            s = s + x[i] * x[j] ** 2
    return s


def nested_return(x):
    s = 1.0
    for i in range(3):
        for j in range(3):
            s = s * (1.0 + 0.1 * x[i] * x[j])
            if s > 50.0:
                return s
    return s


@pytest.mark.parametrize("f", [nested_for, nested_break, nested_return])
def test_reverse_over_reverse_nested_loops(f):
    _second(f, np.array([0.5, -1.25, 2.0])[:2] if f is nested_for else np.array([0.5, -1.25, 2.0]))


# ---------------------------------------------------------------- second derivatives, nested while loops

def nested_while(x):
    s = x
    i = 0
    while i < 2:
        j = 0
        while j < 2:
            s = s * x
            j += 1
        i += 1
    return s


def nested_while_vec(x):
    s = x
    i = 0
    while i < 2:
        j = 0
        while j < i + 2:
            s = s * x + 0.1 * np.sin(s)
            j += 1
        i += 1
    return np.sum(s)


def test_second_derivatives_nested_while():
    """The mask of an if in a build that is compiled again as a loop (the attempt Unvectorisable)
    was left pushed: the loop's lines read a name of the dropped attempt (NameError)."""
    g = catad.grad(nested_while)
    exact = 20 * 0.7 ** 3
    assert np.isclose(catad.hessian(nested_while)(0.7), exact, rtol=1e-12)
    assert np.isclose(catad.hvp(nested_while, (0.7,), (1.0,)), exact, rtol=1e-12)
    assert np.isclose(catad.grad(g)(0.7), exact, rtol=1e-12)
    assert np.isclose(catad.jvp(g, (0.7,), (1.0,))[1], exact, rtol=1e-12)
    assert np.isclose(central_difference(g, (0.7,), 0), exact, rtol=1e-6)
    _second(nested_while_vec, np.array([0.5, -0.75, 0.9]))


# ---------------------------------------------------------------- a loop growing an array

def grow(x):
    acc = np.zeros(0)
    for v in x:
        acc = np.append(acc, v ** 2)
    return np.sum(acc * acc)


def grow_mixed(x):
    acc = np.zeros(1)
    for v in x:
        acc = np.append(acc, np.sin(v) * acc[-1] + v)
    return np.sum(acc ** 3)


@pytest.mark.parametrize("f", [grow, grow_mixed])
def test_forward_over_reverse_growing_loop(f):
    """The variant that keeps the loop's states as lists read a cotangent out of range in the
    branch not taken of np.append's reverse (an IndexError, refused as reverse over reverse)."""
    x = np.array([0.5, -1.25, 2.0])
    g = catad.grad(f)
    ref = central_difference(g, (x,), 0)
    h = catad.hessian(f)(x)
    np.testing.assert_allclose(h, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(catad.jacfwd(g)(x), h, rtol=1e-12, atol=1e-12)
    v = np.array([0.3, -0.2, 1.1])
    np.testing.assert_allclose(catad.hvp(f, (x,), (v,)), h @ v, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(catad.jvp(g, (x,), (v,))[1], h @ v, rtol=1e-12, atol=1e-12)


def test_reverse_over_reverse_growing_loop_refused_at_def():
    """Reverse over reverse through a loop whose state changes shape is refused (docs/design.md),
    at the def of the function, not with a TypeError from a run-time tangent's len()."""
    x = np.array([0.5, -1.25, 2.0])
    for run in (lambda: catad.jacrev(catad.grad(grow))(x), lambda: catad.vjp(catad.grad(grow), x)[1](x)):
        with pytest.raises(catad.CatadError, match="differentiated twice in reverse mode") as e:
            run()
        assert e.value.loc is not None and e.value.loc.line == grow.__code__.co_firstlineno


# ---------------------------------------------------------------- np.prod along an axis, twice

def prod_axis(M):
    return np.sum(np.prod(M, axis=1))


def prod_axis0(M):
    return np.sum(np.prod(M, axis=0))


@pytest.mark.parametrize("f", [prod_axis, prod_axis0])
def test_hessian_prod_along_axis(f):
    """An index update of a vector of zero tangents (a row's cotangent known to be zero) was kept
    as an update, which no array could hold: refused as a code-generation limitation."""
    x = np.array([0.5, -1.25, 2.0])
    M = np.outer(x, x) + 0.1
    g = catad.grad(f)
    ref = central_difference(g, (M,), 0)
    h = catad.hessian(f)(M)
    np.testing.assert_allclose(h, ref, rtol=1e-5, atol=1e-5)
    V = np.arange(9.0).reshape(3, 3) / 9.0
    hv = np.einsum("ijkl,kl->ij", h, V)
    np.testing.assert_allclose(catad.hvp(f, (M,), (V,)), hv, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(catad.jvp(g, (M,), (V,))[1], hv, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- branches whose arrays differ in length

def branch_len(x, c):
    if c > 0:
        y = x[1:]
    else:
        y = x
    return np.sum(y)


def branch_len_ternary(x, c):
    y = x[1:] if c > 0 else x
    return np.sum(y)


def branch_len_weighted(x, c):
    # the branch not taken multiplies the cotangent by an array of the other length
    if c > 0:
        y = np.sin(x[1:]) * x[1:]
    else:
        y = np.cos(x) * x
    return np.sum(y * y)


def shrink(x):
    y = x
    while y.shape[0] > 1:
        y = y[1:] * 2.0
    return y[0]


def shrink_sum(x):
    y = x
    while y.shape[0] > 2:
        y = y[1:] * np.sin(y[:-1])
    return np.sum(y ** 2)


@pytest.mark.parametrize("f", [branch_len, branch_len_ternary, branch_len_weighted])
@pytest.mark.parametrize("c", [1.0, -1.0])
def test_grad_branches_of_different_lengths(f, c):
    """The reverse program computed both branches with the cotangent of the one taken, and added
    them: operands could not be broadcast together. It runs its variant with Python if statements."""
    x = np.array([0.5, -1.25, 2.0, 0.75])
    ref = central_difference(f, (x, c), 0)
    np.testing.assert_allclose(catad.grad(f)(x, c), ref, rtol=1e-6, atol=1e-8)
    value, g = catad.value_and_grad(f)(x, c)
    assert value == catad.jvp(f, (x, c), (x, 0.0))[0]  # catad's value (as the primal program's)
    assert np.isclose(value, f(x, c), rtol=1e-15, atol=0)
    np.testing.assert_allclose(g, ref, rtol=1e-6, atol=1e-8)
    _, pull = catad.vjp(f, x, c)
    np.testing.assert_allclose(pull(1.0)[0], ref, rtol=1e-6, atol=1e-8)
    v = np.array([0.3, -0.2, 1.1, 0.5])
    np.testing.assert_allclose(catad.jvp(lambda z: f(z, c), (x,), (v,))[1], ref @ v, rtol=1e-6, atol=1e-8)


def test_second_derivatives_branches_of_different_lengths():
    x = np.array([0.5, -1.25, 2.0, 0.75])
    for c in (1.0, -1.0):
        _second(lambda z: branch_len_weighted(z, c), x)


@pytest.mark.parametrize("f", [shrink, shrink_sum])
def test_grad_while_loop_shrinking(f):
    x = np.array([0.5, -1.25, 2.0, 0.75])
    ref = central_difference(f, (x,), 0)
    np.testing.assert_allclose(catad.grad(f)(x), ref, rtol=1e-6, atol=1e-8)
    # the equivalent for loop, which worked, agrees
    by_for = shrink_by_for if f is shrink else shrink_sum_by_for
    np.testing.assert_allclose(catad.grad(f)(x), catad.grad(by_for)(x), rtol=1e-12, atol=1e-12)


def shrink_by_for(x):
    y = x
    for _ in range(x.shape[0] - 1):
        y = y[1:] * 2.0
    return y[0]


def shrink_sum_by_for(x):
    y = x
    for _ in range(x.shape[0] - 2):
        y = y[1:] * np.sin(y[:-1])
    return np.sum(y ** 2)


def test_hessian_while_loop_shrinking():
    x = np.array([0.5, -1.25, 2.0, 0.75])
    g = catad.grad(shrink_sum)
    ref = central_difference(g, (x,), 0)
    np.testing.assert_allclose(catad.hessian(shrink_sum)(x), ref, rtol=1e-5, atol=1e-5)
    v = np.array([0.3, -0.2, 1.1, 0.5])
    np.testing.assert_allclose(catad.hvp(shrink_sum, (x,), (v,)), ref @ v, rtol=1e-5, atol=1e-5)
