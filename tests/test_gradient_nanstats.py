"""np.gradient with steps or coordinates, edge_order 1 and 2, along axes
(catad/frontend/numpy_gradient.py): values bit for bit NumPy's (uniform coordinates take NumPy's
uniform formulas), gradients in f and in the coordinates against central differences, forward
and reverse; NumPy's errors. np.nanvar and np.nanstd (catad/frontend/nan_statistics.py): values
against NumPy's, ddof, axes, keepdims, lanes of NaNs only; a NaN adds nothing to the gradient."""
from __future__ import annotations

import numpy as np
import pytest

import catad
from located import agrees, marked_line, refused

RNG = np.random.default_rng(1205)
X = np.sort(RNG.uniform(0, 3, 9))
F = np.sin(X) * 3
M = RNG.normal(size=(4, 9))


def g_coords(f, x):
    return np.gradient(f, x)


def g_coords2(f, x):
    return np.gradient(f, x, edge_order=2)


def g_step2(f):
    return np.gradient(f, 0.3, edge_order=2)


def g_default(f):
    return np.gradient(f)


def g_axis(m, x):
    return np.gradient(m, x, axis=1, edge_order=2)


def g_each(m, y, x):
    return np.gradient(m, y, x)


def g_mixed(m, x):
    return np.gradient(m, 0.5, x, edge_order=2)


def g_int(f):
    return np.gradient(f, np.array([0, 1, 3, 4]))


CASES = [(g_coords, (F, X)), (g_coords2, (F, X)), (g_step2, (F,)), (g_default, (F,)), (g_axis, (M, X)),
         (g_each, (M, np.arange(4.0) ** 2, X)), (g_mixed, (M, X)), (g_coords, (F, np.linspace(0, 1, 9))),
         (g_coords2, (F, np.arange(9.0) * 0.5)), (g_coords, (F[:2], X[:2])), (g_coords2, (F[:3], X[:3])),
         (g_int, (np.array([1.0, 2.0, 0.5, 4.0]),)), (g_default, (np.array([1, 4, 9]),))]


@pytest.mark.parametrize("fn,args", CASES)
def test_gradient_values_are_numpy_s(fn, args):
    got, _ = catad.vjp(fn, *args)
    want = fn(*args)
    if isinstance(want, tuple):
        assert len(got) == len(want) and all(np.array_equal(a, b) for a, b in zip(got, want))
    else:
        assert np.shape(got) == np.shape(want) and np.array_equal(got, want)


def weighted(fn):
    def f(*args):
        out = fn(*args)
        outs = out if isinstance(out, tuple) else (out,)
        return sum(np.sum(np.cos(np.arange(o.size).reshape(o.shape)) * o) for o in outs)
    return f


@pytest.mark.parametrize("fn,args", [c for c in CASES if c[0] not in (g_int,) and c[1][0].dtype == float])
def test_gradient_derivatives(fn, args):
    w = weighted(fn)
    for k in range(len(args)):
        agrees(w, *args, argnums=k)


def trapz_of_slope(p, t):  # the trial's idiom: the slope of a model on its time grid
    y = p[0] * np.exp(-p[1] * t)
    dy = np.gradient(y, t)
    return np.trapezoid(dy ** 2, t) + np.trapezoid(y)


def test_trial_idiom():
    agrees(trapz_of_slope, np.array([1.0, 0.5]), np.linspace(0, 1, 16))
    agrees(trapz_of_slope, np.array([1.0, 0.5]), np.sort(RNG.uniform(0, 1, 7)), argnums=1)


def too_short(f, x):
    return np.gradient(f, x, edge_order=2)  # ERR


def test_numpy_s_errors():
    with pytest.raises(ValueError, match="at least \\(edge_order \\+ 1\\)") as info:
        catad.grad(weighted(too_short))(np.ones(2), np.arange(2.0))
    with pytest.raises(ValueError, match="distances must match"):
        catad.grad(weighted(too_short))(np.ones(4), np.arange(3.0))
    with pytest.raises(ValueError, match="distances must match"):
        too_short(np.ones(4), np.arange(3.0))
    assert info.value.loc.line == marked_line(too_short)


def order3(f):
    return np.gradient(f, edge_order=3)  # ERR


def two_for_one(f, x):
    return np.gradient(f, x, x)  # ERR


def matrix_spacing(f, x):
    return np.gradient(f, x)  # ERR


def test_refusals():
    refused(order3, (F,), "'edge_order' greater than 2")
    refused(two_for_one, (F, X), "invalid number of arguments")
    refused(matrix_spacing, (F, M), "distances must be either scalars or 1d")


# ---------------------------------------------------------------- np.nanvar, np.nanstd

NAN = RNG.normal(size=(4, 5))
NAN[1, 2] = np.nan
NAN[3, :] = np.nan


def nstd(x):
    return np.nanstd(x)


def nvar0(x):
    return np.nanvar(x, axis=0, ddof=1)


def nstd1(x):
    return np.nanstd(x, axis=1, keepdims=True)


def nvar_f(x):
    return np.nanvar(x, ddof=2.5)


@pytest.mark.parametrize("fn", [nstd, nvar0, nstd1, nvar_f])
@pytest.mark.parametrize("x", [NAN, NAN[0], NAN[:, :1], np.array([np.nan, 1.0]), np.zeros((0, 3))])
def test_nan_statistics_values(fn, x):
    if fn is nvar0 and x.ndim == 1 or fn is nstd1 and x.ndim == 1:
        x = x[:, None]
    with _quiet():
        want = fn(x)
    got, _ = catad.vjp(fn, x)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)


class _quiet:
    def __enter__(self):
        import warnings
        self.w = warnings.catch_warnings()
        self.w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self.w.__exit__(*exc)


def nan_losses(x):
    y = np.where(x > 2.5, np.nan, x)
    return np.nanstd(y) + np.sum(np.nanvar(np.stack([y, 2 * y]), axis=1, ddof=1))


def test_nan_statistics_gradients():
    x = np.array([1.0, 2.0, 3.0, 4.0, 0.5])
    agrees(nan_losses, x)
    g = catad.grad(nan_losses)(x)
    assert g[2] == 0.0 and g[3] == 0.0  # the NaN lanes
    agrees(lambda x: np.nanstd(x, axis=0)[1] + np.nanvar(x, ddof=1), RNG.normal(size=(3, 4)))
