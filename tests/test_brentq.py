"""scipy.optimize.brentq of a lambda, a def written in the function or a module-level function
(catad/frontend/roots.py): the value is SciPy's root of the user's own function, bit for bit;
the derivative is the implicit function theorem's, dx*/dt = -(dg/dt) / (dg/dx), forward and
reverse, checked against central differences and against the closed form where there is one;
SciPy's errors are SciPy's."""
import math

import numpy as np
import pytest
import scipy.optimize
from scipy.optimize import brentq

import catad
from catad import UnsupportedSyntax
from catad.frontend import compile_function
from backend_programs import central_difference as central
from located import hessian_by_differences, marked_line

RNG = np.random.default_rng(1605)


def agrees(f, *args, argnums=0, rtol=1e-6):
    """The value is f's own (SciPy's root, exactly); the gradient (reverse) and jvp (forward)
    agree with central differences."""
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    value, grad = catad.value_and_grad(f, argnums)(*args)
    assert value == f(*args)
    grads = (grad,) if isinstance(argnums, int) else grad
    for k, g in zip(nums, grads):
        expected = central(f, args, k)
        np.testing.assert_allclose(g, expected, rtol=rtol, atol=1e-8)
        tangent = RNG.normal(size=np.shape(args[k]))
        tangents = tuple(tangent if j == k else np.zeros(np.shape(a)) if np.ndim(a) else 0.0
                         for j, a in enumerate(args))
        _, out = catad.jvp(f, args, tangents)
        assert out == pytest.approx(float(np.sum(np.asarray(g) * tangent)), rel=1e-12, abs=1e-14)
    return value, grad


def cubic_root(a):
    return scipy.optimize.brentq(lambda x: x ** 3 + a * x - 1.0, 0.0, 2.0, xtol=1e-15)


def test_the_root_of_a_lambda_and_its_implicit_derivative():
    for a in (0.5, 1.3, 2.0):
        x, g = agrees(cubic_root, a)
        assert g == pytest.approx(-x / (3 * x * x + a), rel=1e-12)  # -(dg/da) / (dg/dx)


def kepler(E, M, e):
    return E - e * math.sin(E) - M


def eccentric_anomaly(M, e):
    return brentq(kepler, 0.0, 2 * math.pi, args=(M, e), xtol=1e-14)


def test_a_module_level_function_with_args():
    E, (gM, ge) = agrees(eccentric_anomaly, 1.0, 0.3, argnums=(0, 1))
    assert gM == pytest.approx(1.0 / (1.0 - 0.3 * math.cos(E)), rel=1e-12)
    assert ge == pytest.approx(math.sin(E) / (1.0 - 0.3 * math.cos(E)), rel=1e-12)


def closure_over_arrays(w, v, c):
    def g(x):
        return np.sum(w * np.tanh(x * v)) - c
    r = scipy.optimize.brentq(g, -10.0, 10.0, xtol=1e-14)
    return r * r + np.sum(w)


def largest(w):
    return scipy.optimize.brentq(lambda x: np.max(w * x) - 1.0, 0.01, 100.0, xtol=1e-14)


def test_a_def_reading_arrays_of_the_function():
    w, v = np.abs(RNG.normal(size=4)) + 0.1, np.abs(RNG.normal(size=4)) + 0.1
    agrees(closure_over_arrays, w, v, 0.3, argnums=(0, 1, 2))
    _, g = agrees(largest, np.array([0.5, 2.0, 1.0]))
    np.testing.assert_allclose(g, [0.0, -0.25, 0.0], rtol=1e-12)  # x = 1 / max(w): only the largest counts


def piecewise(a):
    g = lambda x, k: (x - a) ** 2 - k if x > 0 else x - 1.0
    return brentq(g, 1.5, 5.0, args=(0.25,))


def late_binding(a):
    g = lambda x: x - a  # reads a when brentq calls it, as Python's closures do
    a = a * 3.0
    return brentq(g, -10.0, 10.0)


def test_a_conditional_body_and_late_binding():
    agrees(piecewise, 1.5)
    assert catad.grad(late_binding)(1.2) == pytest.approx(3.0)
    assert catad.value_and_grad(late_binding)(1.2)[0] == late_binding(1.2)


def roots_in_a_loop(ps):
    s = 0.0
    for p in ps:
        s = s + brentq(lambda x: math.exp(x) - p, -5.0, 5.0)
    return s


def roots_in_a_comprehension(ps):
    return sum(brentq(lambda x: x * x - p, 0.0, 10.0) for p in ps)


def test_roots_in_loops_and_comprehensions():
    ps = np.array([1.0, 2.0, 3.0])
    _, g = agrees(roots_in_a_loop, ps)
    np.testing.assert_allclose(g, 1.0 / ps, rtol=1e-10)  # x = log p
    _, g = agrees(roots_in_a_comprehension, ps)
    np.testing.assert_allclose(g, 0.5 / np.sqrt(ps), rtol=1e-10)  # x = sqrt p


def no_sign_change(a):
    return brentq(lambda x: x * x + a, 0.0, 1.0)


def too_few_iterations(a):
    return brentq(lambda x: x ** 3 - a, 0.0, 10.0, maxiter=2)


def test_scipy_s_errors_are_scipy_s():
    for f, cls in ((no_sign_change, ValueError), (too_few_iterations, RuntimeError)):
        with pytest.raises(cls) as python:
            f(1.0)
        with pytest.raises(cls) as ours:
            catad.grad(f)(1.0)
        assert str(ours.value) == str(python.value)


def with_a_loop(a):
    def g(x):
        s = 0.0
        for k in range(3):
            s = s + x ** k
        return s - a
    return brentq(g, 0.0, 10.0)  # ERR


def full_output(a):
    return brentq(lambda x: x - a, -1.0, 1.0, full_output=True)  # ERR


def test_located_refusals():
    for fn, words in ((with_a_loop, ["derivative of its function in x", "a loop"]),
                      (full_output, ["full_output=True", "RootResults"])):
        with pytest.raises(UnsupportedSyntax) as info:
            compile_function(fn, (1.0,))
        e = info.value
        assert e.loc.file == __file__ and e.loc.line == marked_line(fn), str(e)
        for w in words:
            assert w in str(e), (w, str(e))


# ---------------------------------------------------------------- higher derivatives (issue 17)
# Two Newton steps from SciPy's root, the second with its slope differentiated, are exact to the
# third derivative (catad/frontend/roots.py); the fourth is refused.

def _implicit_derivatives(x, a, order):
    """d^k x / da^k of the root of x^3 + a x - 1 = 0, by SymPy's implicit differentiation."""
    import sympy
    A = sympy.Symbol("a")
    X = sympy.Function("x")(A)
    d = sympy.solve(sympy.diff(X ** 3 + A * X - 1, A), sympy.diff(X, A))[0]
    out = [d]
    for _ in range(order - 1):
        out.append(sympy.diff(out[-1], A).subs(sympy.diff(X, A), d))
    return [float(e.subs(X, x).subs(A, a)) for e in out]


def test_second_and_third_derivatives_of_a_root_equal_sympy():
    for a in (0.5, 1.3):
        x = cubic_root(a)
        want = _implicit_derivatives(x, a, 3)
        g = catad.grad(cubic_root)
        got = [g(a), catad.grad(g)(a), catad.grad(catad.grad(g))(a)]
        assert got == pytest.approx(want, rel=1e-10)
        assert catad.hessian(cubic_root)(a) == pytest.approx(want[1], rel=1e-10)
        assert catad.hvp(cubic_root, (a,), (1.0,)) == pytest.approx(want[1], rel=1e-10)
        # forward over forward: the second derivative by jvp of jvp's tangent
        assert catad.jacfwd(catad.jacfwd(cubic_root))(a) == pytest.approx(want[1], rel=1e-10)


def test_a_fourth_derivative_of_a_root_is_refused_at_the_function():
    g3 = catad.grad(catad.grad(catad.grad(cubic_root)))
    with pytest.raises(catad.CatadError, match="brentq a fourth time") as err:
        catad.grad(g3)(1.3)
    first = cubic_root.__code__.co_firstlineno
    assert first <= err.value.loc.line <= first + 1


def root_of_a_vector(v):
    r = scipy.optimize.brentq(lambda x: x ** 3 + np.sum(v ** 2) * x - 1.0 - v[0], -5.0, 5.0, xtol=1e-15)
    return r * np.sum(v) + r ** 2


def test_hessians_through_roots_equal_central_differences_of_the_gradient():
    v = np.array([0.4, -0.3, 0.8])
    H = np.asarray(catad.hessian(root_of_a_vector)(v))
    fd = hessian_by_differences(root_of_a_vector, (v,), 0)
    np.testing.assert_allclose(H, fd, rtol=0, atol=1e-8 * max(1, np.max(np.abs(fd))))
    np.testing.assert_allclose(H, H.T, rtol=0, atol=1e-14)
    t = np.array([0.3, 0.1, -0.7])
    np.testing.assert_allclose(catad.hvp(root_of_a_vector, (v,), (t,)), H @ t, rtol=1e-12, atol=1e-14)
    # Kepler's equation, a module-level function with args: the Hessian in (M, e)
    args = (1.0, 0.3)
    hess = catad.hessian(eccentric_anomaly, argnums=(0, 1))(*args)
    for i in range(2):
        for j in range(2):
            # d/d args[i] of the gradient's entry j
            g = catad.grad(eccentric_anomaly, argnums=j)
            h = 1e-4

            def at(s):
                a = list(args)
                a[i] += s
                return g(*a)
            fd = (-at(2 * h) + 8 * at(h) - 8 * at(-h) + at(-2 * h)) / (12 * h)
            assert hess[j][i] == pytest.approx(fd, rel=1e-8, abs=1e-10)
    assert hess[0][1] == pytest.approx(hess[1][0], rel=1e-13)
