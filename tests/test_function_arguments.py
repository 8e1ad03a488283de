"""A function passed to a function of yours (an ODE integrator's right-hand side): a module-level
function or a library's (np.sin, math.exp) to any function of yours, which is compiled for it and
calls it where it calls its parameter, and a def or lambda of the compiled function to another def
of it. Each was refused ("functions can be called but not used as values"). Rebinding the global
function makes the next call compile again. A def or lambda passed to a module-level function is
still refused, with its reason. Oracle: the function itself and central differences."""
import math

import numpy as np
import pytest

import catad
from benchmark_modules import bench_corpus
from located import agrees, refused

_rk4 = bench_corpus.idioms._rk4_integrate  # (the corpus's: one RK4 written once)


def _euler(rhs, y, h):
    for k in range(10):
        y = y + h * rhs(y)
    return y


def decay(s):
    return -0.5 * s


def _apply(g, x):
    return g(x) + g(2.0 * x)


def of_a_global(x, v):
    return _euler(decay, x, 0.1) + np.sum(_rk4(decay, v * x, 0.1, 5))


def of_library_functions(x, v):
    return np.sum(_euler(np.sin, v * x, 0.1)) + _apply(math.exp, x) + _apply(np.tanh, x)


def of_local_defs(x, v):
    def rhs(s):
        return -x * s

    def euler(g, y, h):
        for k in range(10):
            y = y + h * g(y)
        return y
    return euler(rhs, 1.0, 0.1) + euler(lambda s: s * s, x, 0.01) + euler(np.cos, x, 0.1)


@pytest.mark.parametrize("f", [of_a_global, of_library_functions, of_local_defs], ids=lambda f: f.__name__)
def test_values_and_derivatives(f):
    agrees(f, 0.7, np.array([1.0, 2.0]))


def _scaled(s):
    return 0.1 * s


def test_rebinding_the_global_function_compiles_again():
    global decay
    g = catad.grad(of_a_global)
    v = np.array([1.0, 2.0])
    first = g(0.7, v)
    saved = decay
    try:
        decay = _scaled
        again = g(0.7, v)
        expected = (of_a_global(0.7 + 1e-6, v) - of_a_global(0.7 - 1e-6, v)) / 2e-6
    finally:
        decay = saved
    assert again == pytest.approx(expected, rel=1e-6)
    assert again != pytest.approx(first, rel=1e-3)


def local_to_a_global(x, v):
    def rhs(s):
        return -x * s
    return _euler(rhs, 1.0, 0.1)  # ERR


def test_a_local_def_given_to_a_module_level_function_refused():
    refused(local_to_a_global, (0.7, np.array([1.0, 2.0])), "module-level function")


def _named_length(g, x):
    return len(g.__name__) * x


def name_of_a_function(x, v):
    return _named_length(np.sin, x) + len(np.__name__) * x


def test_the_length_of_a_name():
    # a string read while compiling: len() of it was 0 (its values: none), older than functions as arguments
    agrees(name_of_a_function, 0.7, np.array([1.0, 2.0]))
