"""np.linalg.norm with ord, axis and keepdims (catad/frontend/numpy_norms.py): every order NumPy
takes for vectors and matrices, along every axis and pair of axes of vectors, matrices and a
rank-3 array (empty and length-1 ones too), against NumPy's values and errors; gradients against
central differences in both modes; ord=0 refused where it is written."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import catad
from backend_programs import load_source
from located import agrees, refused
from test_special_functions import same_values, value

ORDERS = ["None", "1", "2", "np.inf", "-np.inf", "3", "0.5", "-1", "-2", "'fro'", "'nuc'", "'f'", "7"]
SHAPES = [(5,), (1,), (0,), (3, 4), (1, 3), (0, 3), (2, 3, 4)]


def _axes(r):
    out = [None] + list(range(-r, r))
    if r >= 2:
        out += [(0, 1), (1, 0), (-1, 0)]
    if r == 3:
        out += [(0, 2), (2, 1), (0, 1, 2)]
    return out


def _function(tmp_path, order, axis, keep):
    """A module-level function with the options as literals (catad reads the source)."""
    src = (f"import numpy as np\n\ndef f(x):\n    return np.linalg.norm(x, {order}, {axis!r}, {keep})\n\n"
           f"def g(x):\n    return np.sum(np.linalg.norm(x, {order}, {axis!r}, {keep}) ** 2)\n")
    key = (order, axis, keep)
    if key not in _MODULES:
        f = load_source(src, tmp_path)
        _MODULES[key] = sys.modules[f.__module__]
    return _MODULES[key]


_MODULES = {}


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_values_and_errors_are_numpys(shape, tmp_path):
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape)
    for axis in _axes(len(shape)):
        for order in ORDERS:
            for keep in (False, True):
                m = _function(tmp_path, order, axis, keep)
                try:
                    want = m.f(x)
                except ValueError as e:  # NumPy's: catad raises a ValueError with its words
                    if order == "0":
                        continue
                    with pytest.raises(ValueError) as info:
                        value(m.f, x)
                    assert str(e).split(":")[0] in str(info.value) or "zero-size" in str(e), (str(e), str(info.value))
                    continue
                same_values(value(m.f, x), want, rtol=1e-12)


def test_gradients_forward_and_reverse(tmp_path):
    rng = np.random.default_rng(3)
    for shape in [(5,), (1,), (3, 4), (2, 3, 4)]:
        x = rng.standard_normal(shape)
        for axis in _axes(len(shape)):
            for order in ORDERS:
                m = _function(tmp_path, order, axis, False)
                try:
                    m.f(x)
                except ValueError:
                    continue
                agrees(m.g, x)


def norm_count(x):
    return np.linalg.norm(x, 0)  # ERR


def norm_ord_variable(x, p):
    return np.linalg.norm(x, p)  # ERR


def test_refusals(tmp_path):
    refused(norm_count, (np.ones(3),), "ord=0", "np.sum(x != 0)")
    refused(norm_ord_variable, (np.ones(3), 3.0), "must be a constant")


def test_trial_idioms():
    """The trial's function: 1-, Frobenius, inf- and column norms together."""
    def linalg_norms(x):
        m = np.outer(x, x[:3])
        return (np.linalg.norm(x, 1) + np.linalg.norm(m, 'fro') + np.linalg.norm(x, np.inf)
                + np.linalg.norm(m, axis=0).sum() + np.linalg.norm(m, 2) + np.linalg.norm(m, 'nuc'))
    agrees(linalg_norms, np.array([0.3, -1.2, 0.8, 2.0, -0.4]))
    with pytest.raises(catad.ShapeError, match="Invalid norm order 'fro' for vectors"):
        catad.grad(lambda v: np.linalg.norm(v, 'fro', axis=0))(np.ones(3))
