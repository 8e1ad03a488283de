"""An if whose condition is decided while compiling (a default argument, a global bool: catad
compiles again when it changes) lowers only the arm Python runs: `if verbose: print(...)` with
verbose False, common in real code, was refused for the print Python never reaches (the real-code
trial of session 36). A print Python runs is still refused."""
import numpy as np
import pytest

import catad
from located import agrees

VERBOSE = False


def with_a_default(x, verbose=False):
    s = np.sum(x ** 2)
    if verbose:
        print("loss", s)
    return s


def with_a_global(x):
    s = np.sum(x ** 2)
    if VERBOSE:
        print("loss", s)
    else:
        s = s * 2.0
    return s


def in_a_loop(x, verbose=False):
    s = 0.0
    for i in range(len(x)):
        s += x[i] ** 2
        if verbose and i % 10 == 0:
            print(i, s)
    return s


def else_arm(x, quiet=True):
    s = np.sum(np.sin(x))
    if quiet:
        s = s + 1.0
    else:
        print(s)
    return s


@pytest.mark.parametrize("f", [with_a_default, with_a_global, in_a_loop, else_arm], ids=lambda f: f.__name__)
def test_the_arm_never_run_is_not_compiled(f):
    agrees(f, np.array([1.0, 2.0, -0.5]))


def test_a_print_python_runs_is_refused():
    global VERBOSE
    x = np.array([1.0, 2.0])
    with pytest.raises(catad.UnsupportedSyntax, match="print"):
        catad.grad(with_a_default)(x, True)
    VERBOSE = True
    try:
        with pytest.raises(catad.UnsupportedSyntax, match="print"):
            catad.grad(with_a_global)(x)
    finally:
        VERBOSE = False
    assert catad.grad(with_a_global)(x).tolist() == [4.0, 8.0]
