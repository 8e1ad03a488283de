"""isinstance(x, cls) and np.isscalar(x), known while compiling from the classes x's value can have
when the function runs (a Float: float or np.float64; an Int: int or np.int64; an array: ndarray;
a list, tuple, dict, str or None argument: itself); an `if` on one compiles only the arm Python
runs; refused where Python's and NumPy's numbers answer differently."""
import numbers

import numpy as np
import pytest

import catad
from catad import UnsupportedSyntax
from located import agrees, refused


def dispatch(x, s):
    if isinstance(x, np.ndarray):
        base = np.sum(x ** 2) + x.shape[0]  # x.shape of a number would not compile
    elif isinstance(x, (list, tuple)):
        base = sum(v ** 2 for v in x)
    else:
        base = x ** 2
    scale = s if isinstance(s, (int, float, np.integer, np.floating)) else 1.0
    k = 2.0 if np.isscalar(s) and isinstance(s, numbers.Real) and not isinstance(s, bool) else 3.0
    return base * scale * k + (1.0 if isinstance(x, float) else 0.0)


@pytest.mark.parametrize("x, s", [(np.array([1.0, 2.0]), 1.5), (2.0, 3.0), (np.array([1.0]), 2),
                                  (np.float64(0.5), np.float64(2.0))])
def test_arrays_and_numbers(x, s):
    agrees(dispatch, x, s)


@pytest.mark.parametrize("x", [[1.0, 2.0], (1.0, 3.0)])
def test_lists_and_tuples(x):
    value, grad = catad.value_and_grad(dispatch)(x, 0.5)
    assert value == dispatch(x, 0.5)
    assert type(grad) is type(x) and list(grad) == [2 * v * 0.5 * 2.0 for v in x]


def options(x, opts=None):
    if isinstance(opts, dict):
        return x * opts["scale"]
    return x


def test_none_and_dicts():
    assert catad.grad(options)(2.0) == 1.0
    assert catad.grad(options)(2.0, {"scale": 3.0}) == 3.0


def python_or_numpy(x, n):
    return x * 2.0 if isinstance(n, int) else x  # ERR


def classes_computed(x, kinds):
    return x if isinstance(x, kinds[0]) else 2.0 * x  # ERR


def test_refusals():
    refused(python_or_numpy, (1.0, 3), "isinstance(n, int)", "Python or a NumPy number",
            "isinstance(n, (int, np.integer))", cls=UnsupportedSyntax)
    refused(classes_computed, (1.0, (1.0,)), "class or a tuple of classes", cls=UnsupportedSyntax)
