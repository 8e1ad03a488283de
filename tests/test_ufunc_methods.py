"""ufunc methods (catad/frontend/ufunc_methods.py): np.add/multiply/maximum/minimum.accumulate and
np.add/multiply/maximum/minimum/logaddexp.reduce, with NumPy's default axis 0, against NumPy on
vectors and matrices (empty and length-1 too, NaNs), gradients in both modes, refusals located."""
from __future__ import annotations

import numpy as np
import pytest

import catad
from located import agrees, refused
from test_special_functions import same_values, value


def acc_add(x): return np.add.accumulate(x)
def acc_mul(x): return np.multiply.accumulate(x)
def acc_max(x): return np.maximum.accumulate(x)
def acc_min(x): return np.minimum.accumulate(x)
def acc_max_1(x): return np.maximum.accumulate(x, axis=1)
def acc_add_neg(x): return np.add.accumulate(x, -1)
def red_add(x): return np.add.reduce(x)
def red_mul(x): return np.multiply.reduce(x, 0)
def red_max(x): return np.maximum.reduce(x)
def red_min_1(x): return np.minimum.reduce(x, axis=-1, keepdims=True)
def red_add_all(x): return np.add.reduce(x, axis=None)
def red_lae(x): return np.logaddexp.reduce(x)
def red_lae_1(x): return np.logaddexp.reduce(x, axis=1, keepdims=True)
def red_lae_all(x): return np.logaddexp.reduce(x, axis=None)


VECTOR = [acc_add, acc_mul, acc_max, acc_min, acc_add_neg, red_add, red_mul, red_max, red_add_all, red_lae,
          red_lae_all]
MATRIX = VECTOR + [acc_max_1, red_min_1, red_lae_1]


def _numpy(f, x):
    try:
        return f(x)
    except ValueError as e:
        return e


@pytest.mark.parametrize("f", MATRIX, ids=[f.__name__ for f in MATRIX])
def test_values(f):
    rng = np.random.default_rng(5)
    shapes = [(6,), (1,), (0,), (3, 4), (1, 3), (0, 2), (2, 0)] if f in VECTOR else [(3, 4), (1, 3), (2, 1)]
    for shape in shapes:
        if len(shape) == 1 and f not in VECTOR:
            continue
        x = rng.standard_normal(shape)
        want = _numpy(f, x)
        if isinstance(want, ValueError):  # no identity: NumPy's ValueError, where it runs
            with pytest.raises(ValueError):
                value(f, x)
            continue
        same_values(value(f, x), want, rtol=1e-12)
    x = np.array([0.5, np.nan, -1.0, 2.0, -np.inf])  # NaNs propagate from either side, as NumPy's
    same_values(value(f, x), f(x), rtol=1e-12) if f in VECTOR else None


@pytest.mark.parametrize("f", MATRIX, ids=[f.__name__ for f in MATRIX])
def test_gradients(f):
    rng = np.random.default_rng(6)
    g = lambda x, w: np.sum(f(x) * w)  # every output element weighted
    shapes = [(6,), (1,), (3, 4)] if f in VECTOR else [(3, 4)]
    for shape in shapes:
        x = rng.standard_normal(shape)
        w = rng.standard_normal(np.shape(f(x)))
        agrees(g, x, w if np.ndim(w) else float(w))


def trial_max_accumulate(x):
    return np.sum(np.maximum.accumulate(x))


def trial_logaddexp_reduce(x):
    return np.logaddexp.reduce(x)


def test_trial_idioms():
    x = np.array([0.3, -1.2, 0.8, 2.0, -0.4])
    agrees(trial_max_accumulate, x)
    agrees(trial_logaddexp_reduce, x)
    assert value(trial_logaddexp_reduce, np.array([-np.inf, -np.inf])) == -np.inf


def acc_out(x):
    return np.add.accumulate(x, out=np.zeros(3))  # ERR


def acc_none(x):
    return np.add.accumulate(x, axis=None)  # ERR


def other_ufunc(x):
    return np.subtract.accumulate(x)  # ERR


def test_refusals():
    refused(acc_out, (np.ones(3),), "does not take keyword argument 'out'")
    refused(acc_none, (np.ones(3),), "axis=None")
    refused(other_ufunc, (np.ones(3),), "is not supported")
    with pytest.raises(catad.CatadError):
        catad.grad(red_max)(np.zeros(0))
