"""scipy.stats' distributions (catad/frontend/scipy_stats.py's table): every row's every method
against SciPy itself on ordinary and extreme arguments (outside the support, at its ends, +-inf,
nan, invalid parameters, with and without loc and scale), gradients against central differences
in both modes (in x, and in the shapes, loc and scale), SciPy's argument binding (by position and
keyword), broadcasting, empty and length-1 arrays, and the methods catad cannot compute refused
where they are called."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import catad
from located import agrees, refused

scipy = pytest.importorskip("scipy")
from scipy import stats  # noqa: E402
from test_special_functions import quiet, same_values, value  # noqa: E402

from catad.frontend.scipy_stats import DISTRIBUTIONS  # noqa: E402

# every method is called through one of these (module-level: catad reads their source); METH is
# read at each call, and a new method is a new compile (the callee is a guard)
METH = None


def f0(x): return METH(x)
def f1(x, a): return METH(x, a)
def f2(x, a, b): return METH(x, a, b)
def f3(x, a, b, c): return METH(x, a, b, c)
def f4(x, a, b, c, d): return METH(x, a, b, c, d)


CALLS = [f0, f1, f2, f3, f4]

# shape values, valid and not (SciPy's nan), at its edges
SHAPES = {"a": [0.5, 1.0, 2.5, -1.0], "b": [0.7, 3.0], "df": [0.5, 4.0, np.inf, 0.0], "s": [0.6, -1.0],
          "c": [0.5, 1.0, 2.3], "mu": [0.0, 2.5, -1.0], "n": [5.0, 3.5, 0.0], "p": [0.0, 0.3, 1.0, 1.2]}
CONTINUOUS_X = np.array([-np.inf, -3.0, -0.0, 0.0, 1e-3, 0.3, 0.5, 0.9, 1.0, 1.7, 40.0, 800.0, np.inf, np.nan])
DISCRETE_K = np.array([-1.0, 0.0, 1.0, 2.0, 2.5, 3.0, 5.0, 7.0, np.nan, np.inf])
CASES = [(dist, kind) for dist, d in DISTRIBUTIONS.items() for kind in d.methods]


def _use(dist, kind):
    globals()["METH"] = getattr(getattr(stats, dist), kind)
    return METH


@pytest.mark.parametrize("dist,kind", CASES, ids=[f"{d}.{k}" for d, k in CASES])
def test_values_are_scipys(dist, kind):
    d = DISTRIBUTIONS[dist]
    meth = _use(dist, kind)
    x = DISCRETE_K if d.discrete else CONTINUOUS_X
    extras = ([], [1.0]) if d.discrete else ([], [0.3], [0.3, 1.7], [0.3, -1.0], [0.3, 0.0])
    for extra in extras:
        f = CALLS[len(d.shapes) + len(extra)]
        for sh in itertools.product(*[SHAPES[s] for s in d.shapes]):
            args = (x,) + tuple(sh) + tuple(extra)
            same_values(value(f, *args), quiet(meth, *args), rtol=1e-12)


# a point inside each support, and the shapes' values, for the derivatives
INSIDE = {"beta": np.array([0.15, 0.4, 0.85]), "uniform": np.array([0.15, 0.4, 0.85])}
POINT = {"a": 2.5, "b": 3.0, "df": 4.5, "s": 0.7, "c": 1.7, "mu": 2.5, "n": 3.5, "p": 0.35}


def x0(v, sh): return np.sum(METH(v, -0.05, 1.1))
def x1(v, sh): return np.sum(METH(v, sh[0], -0.05, 1.1))
def x2(v, sh): return np.sum(METH(v, sh[0], sh[1], -0.05, 1.1))
def p0(p, x): return np.sum(METH(x, loc=p[0], scale=np.exp(p[1])))
def p1(p, x): return np.sum(METH(x, p[0], loc=p[1], scale=np.exp(p[2])))
def p2(p, x): return np.sum(METH(x, p[0], p[1], loc=p[2], scale=np.exp(p[3])))
def k1(p, k): return np.sum(METH(k, p[0]))
def k2(p, k): return np.sum(METH(k, p[0], p[1]))
def kbinom(p, k): return np.sum(METH(k, 6, p[0]))  # n is an integer: not varied


@pytest.mark.parametrize("dist,kind", CASES, ids=[f"{d}.{k}" for d, k in CASES])
def test_gradients(dist, kind):
    """In x (forward and reverse) and in every float parameter at once: the shapes, loc, and the
    scale through its log; a discrete distribution's in its shapes."""
    d = DISTRIBUTIONS[dist]
    _use(dist, kind)
    shapes = np.array([POINT[s] for s in d.shapes])
    if d.discrete:
        k = np.array([0.0, 1.0, 3.0, 4.0]) + (dist == "geom")
        if dist == "binom":
            agrees(kbinom, shapes[1:], k)
        else:
            agrees([k1, k2][len(shapes) - 1], shapes, k)
        return
    x = INSIDE.get(dist, np.array([0.35, 1.2, 2.6]))
    agrees([x0, x1, x2][len(shapes)], x, shapes)
    agrees([p0, p1, p2][len(shapes)], np.concatenate([shapes, [-0.05, 0.1]]), x)


# ---------------------------------------------------------------- SciPy's binding and broadcasting

def gamma_kw(theta, y):
    return -np.sum(stats.gamma.logpdf(np.abs(y) + 0.1, a=theta[0], scale=theta[1]))


def beta_positional(p, x):
    return np.sum(stats.beta.logpdf(x, p[0], p[1], 0.0, 1.0))


def weibull_mixed(p, x):
    return np.sum(stats.weibull_min.logsf(x, p[0], scale=p[1]))


def lognorm_x_kw(p, x):
    return np.sum(stats.lognorm.cdf(x=x, s=p[0], loc=0.1))


def poisson_loc(mu, k):
    return np.sum(stats.poisson.logpmf(k, mu, loc=1))


def test_arguments_by_position_and_keyword():
    y = np.array([-1.2, 0.3, 2.0])
    agrees(gamma_kw, np.array([0.5, 1.2]), y)
    agrees(beta_positional, np.array([2.0, 3.0]), np.array([0.2, 0.5, 0.7]))
    agrees(weibull_mixed, np.array([1.5, 2.0]), np.array([0.2, 1.0, 3.0]))
    agrees(lognorm_x_kw, np.array([0.8]), np.array([0.5, 1.0, 3.0]))
    agrees(poisson_loc, np.array([1.5, 3.0]), np.array([[1, 2], [3, 7]]))


def shape_broadcast(a, x):
    return stats.gamma.logpdf(x[:, None], a, scale=np.array([1.0, 2.0, 0.5]))


def binom_ints(p, k):
    return np.sum(stats.binom.pmf(k, 10, p))


def test_broadcasting_and_odd_shapes():
    """x (3, 1) against a (3,) and a scale (3,): SciPy's (3, 3); empty and length-1 arrays."""
    x, a = np.array([0.5, 1.0, 4.0]), np.array([0.5, 2.0, 3.0])
    same_values(value(shape_broadcast, a, x), shape_broadcast(a, x), rtol=1e-12)
    agrees(lambda a: np.sum(shape_broadcast(a, x)), a)
    for n in (0, 1):
        v = np.linspace(0.5, 1.5, n)
        same_values(value(lambda v: stats.expon.logcdf(v, 0.1, 2.0), v), stats.expon.logcdf(v, 0.1, 2.0))
        same_values(value(lambda v: stats.t.pdf(v, 3.0), v), stats.t.pdf(v, 3.0))
    same_values(value(lambda v: stats.cauchy.logsf(v), 0.7), stats.cauchy.logsf(0.7))  # a scalar
    agrees(binom_ints, np.array([0.2, 0.7]), np.array([[0], [3], [10], [11]]))


# ---------------------------------------------------------------- refusals

def gamma_cdf(x):
    return np.sum(stats.gamma.cdf(x, 2.0))  # ERR


def gamma_logpdf_extra(x):
    return np.sum(stats.gamma.logpdf(x, 2.0, 0.0, 1.0, 5.0))  # ERR


def expon_unknown_keyword(x):
    return np.sum(stats.expon.logpdf(x, lam=2.0))  # ERR


def gamma_no_shape(x):
    return np.sum(stats.gamma.logpdf(x))  # ERR


def test_refusals_are_located():
    x = np.array([0.5, 1.5])
    refused(gamma_cdf, (x,), "scipy.stats.gamma.cdf is not supported")
    refused(gamma_logpdf_extra, (x,), "takes at most 4 arguments")
    refused(expon_unknown_keyword, (x,), "does not take keyword argument 'lam'")
    refused(gamma_no_shape, (x,), "missing argument 'a'")


def test_names_are_listed():
    from catad.frontend.calls import supported_names
    names = supported_names()
    for n in ("scipy.stats.gamma.logpdf", "scipy.stats.weibull_min.logsf", "scipy.stats.binom.pmf",
              "scipy.stats.uniform.logcdf", "scipy.stats.laplace.logpdf"):
        assert n in names
    assert "scipy.stats.gamma.cdf" not in names
    assert catad.grad(lambda x: np.sum(stats.norm.logpdf(x)))(np.ones(2)).shape == (2,)
