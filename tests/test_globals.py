"""Globals and closure variables are read when the compiled function is called (issue 13).

Each test changes what a function reads between calls (rebinds a global or a closure
variable, changes an array in place, rebinds a function) and checks catad's value and
gradient against the Python function itself after every change.
"""
import math
import types

import numpy as np
import pytest

import catad
from located import count_lowerings

SCALE = 2.0
N = 3
W = np.array([1.0, -2.0, 0.5])
T = (1.5, np.array([1.0, 2.0]), 2)
OFFSET = 0.5
CFG = types.ModuleType("catad_test_cfg")
CFG.rate = 2.0
CFG.weights = np.array([1.0, 2.0])


def numeric_grad(fn, x, h=1e-6):
    if np.ndim(x) == 0:
        return (fn(x + h) - fn(x - h)) / (2 * h)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (fn(x + e) - fn(x - e)) / (2 * h)
    return g


def check(fn, x):
    """catad's value and gradient of fn at x against fn itself and central differences."""
    value, g = catad.value_and_grad(fn)(x)
    np.testing.assert_allclose(value, fn(x), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g, numeric_grad(fn, x), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(catad.grad(fn)(x), g, rtol=1e-12, atol=0)


@pytest.fixture
def set_global(monkeypatch):
    """Rebind a global of this module for one test (undone afterwards)."""
    return lambda name, value: monkeypatch.setitem(globals(), name, value)


@pytest.fixture
def lowerings(monkeypatch):
    """How many times the front end lowered each function (a compile), by function name;
    the functions these tests count start with nothing compiled."""
    for fn in (spread, weighted):
        catad.pipeline._CACHE.pop(fn, None)
    return count_lowerings(monkeypatch)


# ---------------------------------------------------------------- module globals

def scaled(x):
    return SCALE * x * x + math.sin(x)


def test_a_float_global_rebound(set_global):
    check(scaled, 1.5)
    set_global("SCALE", 5.0)
    check(scaled, 1.5)
    assert catad.grad(scaled)(1.5) == pytest.approx(2 * 5.0 * 1.5 + math.cos(1.5), rel=1e-14)
    set_global("SCALE", -0.25)
    check(scaled, 1.5)


def first_squares(v):
    return sum(v[i] * v[i] * (i + 1) for i in range(N)) + float(N) * v[0]


def test_an_int_global_used_as_a_size(set_global):
    v = np.linspace(0.5, 2.0, 6)
    check(first_squares, v)
    set_global("N", 5)
    check(first_squares, v)
    set_global("N", 1)
    check(first_squares, v)


def weighted(v):
    return np.dot(W, v) ** 2 + np.sum(W * np.sin(v))


def test_an_array_global_rebound_with_the_same_and_a_new_length(set_global):
    check(weighted, np.array([0.5, 1.0, -1.5]))
    set_global("W", np.array([3.0, 0.25, -1.0]))
    check(weighted, np.array([0.5, 1.0, -1.5]))
    set_global("W", np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    check(weighted, np.linspace(-1.0, 1.0, 5))


def test_an_array_global_changed_in_place(set_global):
    set_global("W", np.array([1.0, -2.0, 0.5]))
    v = np.array([0.5, 1.0, -1.5])
    check(weighted, v)
    W[0] = 10.0
    check(weighted, v)
    W[:] = [0.0, 1.0, 0.0]
    check(weighted, v)
    np.testing.assert_allclose(catad.grad(weighted)(v), 2 * v[1] * W + W * np.cos(v), rtol=1e-14)


def from_tuple(x):
    return T[0] * x + np.sum(T[1]) * x * x + sum(x ** (k + 3) for k in range(T[2]))


def test_a_tuple_global_rebound(set_global):
    check(from_tuple, 0.75)
    set_global("T", (2.5, np.array([1.0, 2.0, 3.0]), 4))
    check(from_tuple, 0.75)
    set_global("T", (-1.0, np.array([0.5]), 0))
    check(from_tuple, 0.75)


def spread(x):
    return np.sum(SCALE * W) * x * x + x


def test_a_global_changing_type_compiles_again(set_global, lowerings):
    set_global("W", np.array([1.0, -2.0, 0.5]))
    check(spread, 1.5)
    set_global("SCALE", 3)  # an int: compiled in as a constant, checked at each call
    check(spread, 1.5)
    assert lowerings["spread"] == 2
    set_global("SCALE", np.array([1.0, 2.0, 3.0]))  # an array: np.sum(SCALE * W) is a dot product
    check(spread, 1.5)
    assert lowerings["spread"] == 3
    set_global("SCALE", 0.5)  # a float again: compiled for that before
    check(spread, 1.5)
    assert lowerings["spread"] == 3


def test_a_new_array_length_does_not_compile_again(set_global, lowerings):
    for n in (3, 5, 8, 2):
        set_global("W", np.linspace(-1.0, 2.0, n))
        check(weighted, np.linspace(0.1, 0.9, n))
    assert lowerings["weighted"] == 1
    set_global("W", np.array([1, 2, 3]))  # a new dtype compiles again
    check(weighted, np.array([0.5, -0.5, 2.0]))
    assert lowerings["weighted"] == 2


# ---------------------------------------------------------------- closures

def make_scaled(c):
    def f(x):
        return c * x * x

    def set_c(value):
        nonlocal c
        c = value
    return f, set_c


def test_a_closure_variable_rebound_with_nonlocal():
    f, set_c = make_scaled(1.0)
    check(f, 2.0)
    assert catad.grad(f)(2.0) == 4.0
    set_c(5.0)
    check(f, 2.0)
    assert catad.grad(f)(2.0) == 20.0  # it was 4.0: the first value stayed compiled in


def make_weighted():
    w = np.array([1.0, 2.0])

    def f(v):
        return np.sum(w * v * v)

    def set_w(value):
        nonlocal w
        w = value
    return f, set_w, lambda: w


def test_a_closure_array_rebound_and_changed_in_place():
    f, set_w, get_w = make_weighted()
    check(f, np.array([0.5, -1.0]))
    get_w()[1] = -3.0
    check(f, np.array([0.5, -1.0]))
    set_w(np.array([1.0, 2.0, 3.0]))
    check(f, np.array([0.5, -1.0, 2.0]))
    np.testing.assert_allclose(catad.grad(f)(np.ones(3)), [2.0, 4.0, 6.0], rtol=1e-14)


# ---------------------------------------------------------------- functions and attributes

def square(x):
    return x * x


def cube(x):
    return x * x * x


HELPER = square


def calls_helper(x):
    return HELPER(x) + x


def test_a_global_function_rebound(set_global):
    check(calls_helper, 1.5)
    set_global("HELPER", cube)
    check(calls_helper, 1.5)
    assert catad.grad(calls_helper)(1.5) == pytest.approx(3 * 1.5 ** 2 + 1.0, rel=1e-14)


def shifted(x):
    return OFFSET * x + np.sin(x)


def calls_shifted(x):
    return shifted(x) ** 2


def test_a_callee_that_reads_a_global(set_global):
    check(calls_shifted, 0.8)
    set_global("OFFSET", 4.0)
    check(calls_shifted, 0.8)
    set_global("OFFSET", -1.5)
    check(calls_shifted, 0.8)


def from_attributes(x):
    return CFG.rate * x + np.sum(CFG.weights) * x * x


def test_attributes_of_a_module(monkeypatch):
    check(from_attributes, 1.25)
    monkeypatch.setattr(CFG, "rate", 7.0)  # a float through an attribute: a constant, checked
    check(from_attributes, 1.25)
    monkeypatch.setattr(CFG, "weights", np.array([1.0, 2.0, 3.0]))
    check(from_attributes, 1.25)
    CFG.weights[0] = -10.0  # an array through an attribute is read at each call
    check(from_attributes, 1.25)


# ---------------------------------------------------------------- the API around them

def two_args(x, y):
    return SCALE * x * y + np.dot(W, W) * y * y


def test_hidden_arguments_do_not_change_arity_or_argnums(set_global):
    set_global("W", np.array([1.0, 2.0]))
    for scale in (2.0, -3.0):
        set_global("SCALE", scale)
        x, y = 0.5, 1.5
        gx, gy = catad.grad(two_args, argnums=(0, 1))(x, y)
        assert (gx, gy) == pytest.approx((scale * y, scale * x + 2 * 5.0 * y), rel=1e-14)
        assert catad.grad(two_args, argnums=-1)(x, y) == pytest.approx(gy, rel=1e-14)
        value, vjp_fn = catad.vjp(two_args, x, y)
        assert value == pytest.approx(two_args(x, y), rel=1e-14)
        assert vjp_fn(1.0) == pytest.approx((gx, gy), rel=1e-14)  # one cotangent per user argument
        assert catad.jvp(two_args, (x, y), (1.0, 0.0)) == pytest.approx((value, gx), rel=1e-14)
        assert catad.jacobian(two_args, argnums=1)(x, y) == pytest.approx(gy, rel=1e-14)
        out, lm = catad.linearize(two_args, x, y)
        assert lm.T(1.0) == pytest.approx((gx, gy), rel=1e-14)
        np.testing.assert_allclose(lm.to_matrix(), [[gx, gy]], rtol=1e-14)
        with pytest.raises(catad.ArgumentError, match="out of range"):
            catad.grad(two_args, argnums=2)(x, y)


def test_the_value_read_is_the_one_at_the_call(set_global):
    """vjp and linearize give the derivative at the point: the globals as they read them."""
    set_global("SCALE", 2.0)
    _, vjp_fn = catad.vjp(scaled, 1.0)
    _, lm = catad.linearize(scaled, 1.0)
    set_global("SCALE", 10.0)
    assert vjp_fn(1.0)[0] == pytest.approx(4.0 + math.cos(1.0), rel=1e-14)
    assert lm(1.0) == pytest.approx(4.0 + math.cos(1.0), rel=1e-14)
    assert catad.grad(scaled)(1.0) == pytest.approx(20.0 + math.cos(1.0), rel=1e-14)


def test_explain_shows_the_hidden_parameters(set_global):
    set_global("SCALE", 3.0)
    d = catad.explain(scaled, 1.0)
    assert "fun scaled(x : Float, SCALE : Float)" in d.stage("core").text
    assert "def rev_scaled(x, SCALE, dr):" in d.stage("code").text
    assert catad.eval_cl(catad.to_cl(scaled, 1.0), 1.0, *catad.hidden_args(scaled, 1.0)) == scaled(1.0)
    expr, (x,) = catad.to_sympy(scaled, 1.0)
    assert float(expr.subs(x, 1.0)) == pytest.approx(scaled(1.0), rel=1e-14)
    set_global("SCALE", 4.0)
    expr, (x,) = catad.to_sympy(scaled, 1.0)
    assert float(expr.subs(x, 1.0)) == pytest.approx(scaled(1.0), rel=1e-14)
