"""scipy.special's entr, rel_entr and kl_div (catad/primitives/special.py, their registry rows).

Values against SciPy itself (the user's function run as Python runs it) at ordinary points and
at every pair of edges (+-0, negatives, +-inf, nan, subnormals, 1e+-300), arrays mixing them,
broadcasting, and element by element; infinities, nan and the sign of a zero as SciPy's. SciPy
takes its logarithms from the C library and catad from NumPy, which differ by up to an ulp:
entr and rel_entr agree to 4 ulps (measured: 2), kl_div to 2 ulps of the largest of the terms
it sums, x log(x / y), x and y (it cancels where x is near y; measured: 0.55).

Derivatives: against central differences where the functions are smooth, forward (jvp) and
reverse (grad); against the partials the registry documents at the edges (nondiff_note):
entr' = -log(x) - 1, inf at 0, 0 below 0; where x == 0 and y >= 0 the partial in x of
rel_entr and kl_div is -inf and in y 0 and 1; 0 where the value is constantly inf; nan where an
argument is nan. The log ratio in the partials keeps SciPy's branches (log1p near x == y, the
logs apart where x / y overflows), so it is accurate there (against mpmath). A hessian against
the second derivatives.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import catad
from located import agrees

scipy = pytest.importorskip("scipy")
from scipy import special  # noqa: E402
from scipy.special import entr, kl_div, rel_entr  # noqa: E402

EPS = np.finfo(float).eps
EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, 1e300, 1e-300, -1e300, 5e-324, -5e-324, 1e308,
                  np.inf, -np.inf, np.nan])


def quiet(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*args)


def value(f, *args):
    """catad's value of f: its compiled forward program (jvp with zero tangents)."""
    tangents = tuple(np.zeros_like(a) if isinstance(a, np.ndarray) else 0.0 for a in args)
    return catad.jvp(f, args, tangents)[0]


def same_edges(got, want):
    """nan, the infinities and the zeros (with their signs) where SciPy has them."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    for special_value in (np.inf, -np.inf, 0.0):
        np.testing.assert_array_equal(got == special_value, want == special_value)
    zero = want == 0.0
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]))


def same_values(got, want, ulps=4):
    """SciPy's edges, and its finite values to `ulps` ulps."""
    same_edges(got, want)
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    ok = np.isfinite(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=ulps * EPS, atol=0)


def same_kl_div(got, x, y):
    """SciPy's kl_div: its edges, and its finite values to 2 ulps of the largest term summed."""
    want = quiet(special.kl_div, x, y)
    same_edges(got, want)
    x, y, got = np.broadcast_arrays(x, y, np.asarray(got, dtype=float))
    ok = np.isfinite(want)
    with np.errstate(all="ignore"):
        scale = np.fmax.reduce([np.abs(x * np.log(x / y)), np.abs(x), np.abs(y)])  # (nan at x = y = 0)
    assert np.all(np.abs(got[ok] - want[ok]) <= 2 * EPS * scale[ok])


def f_entr(x): return entr(x)
def f_rel_entr(x, y): return rel_entr(x, y)
def f_kl_div(x, y): return kl_div(x, y)
def f_entr_as_attribute(x): return special.entr(x)


# ---------------------------------------------------------------- values

def test_entr_values_at_the_edges_and_ordinary_points():
    same_values(value(f_entr, EDGES), quiet(special.entr, EDGES))
    same_values(value(f_entr_as_attribute, EDGES[:12].reshape(3, 4)), quiet(special.entr, EDGES[:12].reshape(3, 4)))
    for v in EDGES:  # a scalar
        same_values(value(f_entr, float(v)), quiet(special.entr, v))
    x = np.random.default_rng(1).uniform(0.0, 5.0, 50)
    same_values(value(f_entr, x), special.entr(x))
    assert math.copysign(1.0, value(f_entr, 1.0)) == -1.0  # -1 * log(1) = -0.0, as SciPy's


@pytest.mark.parametrize("f, ref", [(f_rel_entr, special.rel_entr), (f_kl_div, special.kl_div)])
def test_binary_values_at_every_pair_of_edges(f, ref):
    def check(got, a, b):
        same_values(got, quiet(ref, a, b)) if f is f_rel_entr else same_kl_div(got, a, b)
    x, y = np.meshgrid(EDGES, EDGES, indexing="ij")
    check(value(f, x, y), x, y)
    for a in EDGES:  # scalars: the registry's scalar implementation
        for b in EDGES:
            check(value(f, float(a), float(b)), a, b)
    assert math.copysign(1.0, value(f_kl_div, 0.0, -0.0)) == -1.0  # kl_div(0, y) = y, also -0.0


def test_binary_values_with_broadcasting():
    m = np.array([[0.0, 0.5, -1.0], [2.0, np.nan, 1e-300]])
    row = np.array([0.0, 0.25, 3.0])
    same_values(value(f_rel_entr, m, row), quiet(special.rel_entr, m, row))
    same_values(value(f_rel_entr, 2.0, EDGES), quiet(special.rel_entr, 2.0, EDGES))
    same_values(value(f_rel_entr, EDGES, 0.0), quiet(special.rel_entr, EDGES, 0.0))
    same_kl_div(value(f_kl_div, m, row), m, row)
    same_kl_div(value(f_kl_div, EDGES, 0.5), EDGES, 0.5)


def test_rel_entr_in_scipy_s_three_branches():
    """log1p((x - y) / y) where x / y is in (1/2, 2), log(x / y) where that neither underflows nor
    overflows, log(x) - log(y) beyond: 1e300 against 1e-300 is finite, as SciPy's."""
    rng = np.random.default_rng(2)
    x = np.concatenate([rng.uniform(0.0, 3.0, 2000), np.exp(rng.uniform(-700.0, 700.0, 2000))])
    y = np.concatenate([rng.uniform(0.0, 3.0, 2000), np.exp(rng.uniform(-700.0, 700.0, 2000))])
    same_values(value(f_rel_entr, x, y), special.rel_entr(x, y))
    same_kl_div(value(f_kl_div, x, y), x, y)
    assert value(f_rel_entr, 1e300, 1e-300) == pytest.approx(1e300 * 1381.5510557964274, rel=4 * EPS)


def loop_rel_entr(x, y):
    s = 0.0
    for i in range(len(x)):
        s += rel_entr(x[i], y[i]) + kl_div(x[i], y[i]) + entr(x[i])
    return s


def whole_rel_entr(x, y):
    return np.sum(rel_entr(x, y) + kl_div(x, y) + entr(x))


def test_element_by_element_and_whole_array_agree():
    """The scalar implementation (a loop) and the whole-array form: SciPy's sum, to 4 ulps of each
    of the 12 terms and the rounding of summing them in another order."""
    x = np.array([0.3, 0.0, 2.0, 1e-3])
    y = np.array([0.6, 2.0, 1.5, 5.0])
    terms = np.concatenate([special.rel_entr(x, y), special.kl_div(x, y), special.entr(x)])
    bound = 16 * EPS * np.sum(np.abs(terms))
    for f in (loop_rel_entr, whole_rel_entr):
        assert abs(value(f, x, y) - np.sum(terms)) <= bound, f.__name__


# ---------------------------------------------------------------- gradients where smooth

P = np.array([0.2, 0.45, 1.0, 2.5, 7.0])
Q = np.array([0.3, 0.5, 4.0, 0.01, 7.0 * (1 + 1e-3)])  # ratios in each of SciPy's branches
W = np.array([1.0, -2.0, 0.5, 3.0, 1.5])


def sum_entr(x): return np.sum(entr(x) * W)
def sum_rel_entr(x, y): return np.sum(rel_entr(x, y) * W)
def sum_kl_div(x, y): return np.sum(kl_div(x, y) * W)
def scalar_rel_entr(x, y): return rel_entr(x, y) * 3.0


def test_gradients_against_central_differences():
    agrees(sum_entr, P)
    for f in (sum_rel_entr, sum_kl_div):
        agrees(f, P, Q, argnums=0)
        agrees(f, P, Q, argnums=1)
        agrees(f, P, Q, argnums=(0, 1))
    agrees(scalar_rel_entr, 0.7, 1.9, argnums=(0, 1))


def log_ratio(x, y):
    """log(x / y) to 40 digits, rounded once."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(40):
        return np.array([float(mpmath.log(mpmath.mpf(a) / mpmath.mpf(b))) for a, b in zip(np.atleast_1d(x),
                                                                                           np.atleast_1d(y))])


def test_gradients_are_the_partials():
    """To 4 ulps: the partial's own rounding (the log ratio's to 2 or 3 ulps) and the weight's."""
    np.testing.assert_allclose(catad.grad(sum_entr)(P), W * (-np.log(P) - 1.0), rtol=4 * EPS)
    gx, gy = catad.grad(sum_rel_entr, argnums=(0, 1))(P, Q)
    np.testing.assert_allclose(gx, W * (log_ratio(P, Q) + 1.0), rtol=4 * EPS)
    np.testing.assert_allclose(gy, W * (-P / Q), rtol=4 * EPS)
    gx, gy = catad.grad(sum_kl_div, argnums=(0, 1))(P, Q)
    np.testing.assert_allclose(gx, W * log_ratio(P, Q), rtol=4 * EPS)
    np.testing.assert_allclose(gy, W * ((Q - P) / Q), rtol=4 * EPS)


def test_log_ratio_accurate_near_equal_and_far_apart_arguments():
    """kl_div's partial in x is log(x / y): near x == y as log1p((x - y) / y) (log of the rounded
    ratio would be 1e-6 off at 1 + 1e-10), far apart as log(x) - log(y) (x / y overflows)."""
    for x, y in [(1.0 + 1e-10, 1.0), (3.0, 3.0 * (1 - 1e-12)), (1e300, 1e-300), (1e-300, 1e300), (0.3, 0.7)]:
        gx, gy = catad.grad(f_kl_div, argnums=(0, 1))(x, y)
        want = log_ratio(x, y)[0]
        assert gx == pytest.approx(want, rel=4 * EPS), (x, y)
        assert gy == (y - x) / y, (x, y)  # y - x exact where x is near y
        rx, _ = catad.grad(f_rel_entr, argnums=(0, 1))(x, y)
        assert rx == pytest.approx(want + 1.0, rel=4 * EPS), (x, y)


# ---------------------------------------------------------------- partials at the edges

INF, NAN = math.inf, math.nan
ENTR_EDGES = [(0.0, INF), (-0.0, INF), (-1.0, 0.0), (-INF, 0.0), (INF, -INF), (NAN, NAN), (1.0, -1.0)]
# (x, y, rel_entr's partials, kl_div's partials)
BINARY_EDGES = [
    (0.0, 1.0, (-INF, 0.0), (-INF, 1.0)),     # x == 0 < y: the function is 0 (y) along x == 0
    (0.0, 0.0, (-INF, 0.0), (-INF, 1.0)),     # the same limit at the corner
    (0.0, INF, (-INF, 0.0), (-INF, 1.0)),
    (0.0, -1.0, (0.0, 0.0), (0.0, 0.0)),      # constantly inf: y < 0
    (-1.0, 2.0, (0.0, 0.0), (0.0, 0.0)),      # x < 0
    (2.0, 0.0, (0.0, 0.0), (0.0, 0.0)),       # y == 0 < x
    (-INF, -INF, (0.0, 0.0), (0.0, 0.0)),
    (NAN, 1.0, (NAN, NAN), (NAN, NAN)),
    (0.0, NAN, (NAN, NAN), (NAN, NAN)),
    (-1.0, NAN, (NAN, NAN), (NAN, NAN)),
    (NAN, -1.0, (NAN, NAN), (NAN, NAN)),
]


def same(got, want):
    return (math.isnan(got) and math.isnan(want)) or got == want


@pytest.mark.parametrize("x, d", ENTR_EDGES)
def test_entr_derivative_at_the_edges(x, d):
    g = catad.grad(f_entr)(x)
    _, t = catad.jvp(f_entr, (x,), (1.0,))
    assert same(g, d) and same(t, d), (g, t)


@pytest.mark.parametrize("x, y, rel, kl", BINARY_EDGES)
def test_binary_partials_at_the_edges(x, y, rel, kl):
    for f, want in ((f_rel_entr, rel), (f_kl_div, kl)):
        got = catad.grad(f, argnums=(0, 1))(x, y)
        assert all(same(g, w) for g, w in zip(got, want)), (f.__name__, got, want)
        for k in (0, 1):
            _, t = catad.jvp(f, (x, y), (1.0, 0.0) if k == 0 else (0.0, 1.0))
            assert same(t, want[k]), (f.__name__, k, t)


def test_edges_in_arrays_with_ordinary_points():
    x = np.array([0.0, 0.5, -1.0, 0.0, 2.0, np.nan])
    y = np.array([1.0, 0.25, 1.0, 0.0, 0.0, 1.0])
    gx, gy = catad.grad(lambda a, b: np.sum(rel_entr(a, b)), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx, [-np.inf, math.log(2.0) + 1.0, 0.0, -np.inf, 0.0, np.nan])
    np.testing.assert_array_equal(gy, [0.0, -2.0, 0.0, 0.0, 0.0, np.nan])
    gx, gy = catad.grad(lambda a, b: np.sum(kl_div(a, b)), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx, [-np.inf, math.log(2.0), 0.0, -np.inf, 0.0, np.nan])
    np.testing.assert_array_equal(gy, [1.0, -1.0, 0.0, 1.0, 0.0, np.nan])
    g = catad.grad(lambda a: np.sum(entr(a)))(x)
    np.testing.assert_array_equal(g, [np.inf, -math.log(0.5) - 1.0, 0.0, np.inf, -math.log(2.0) - 1.0, np.nan])


def kl_divergence(p, q):
    return np.sum(rel_entr(p, q / np.sum(q)))


def test_kl_divergence_of_a_distribution_with_zeros():
    """The gradient in q of sum(rel_entr(p, q / sum q)) is finite where p has zeros (the partial
    in y is 0 there) and that of central differences."""
    p = np.array([0.5, 0.0, 0.3, 0.2])
    q = np.array([1.0, 2.0, 0.5, 1.5])
    value, g = catad.value_and_grad(kl_divergence, argnums=1)(p, q)
    assert value == pytest.approx(kl_divergence(p, q), rel=4 * EPS)
    assert np.all(np.isfinite(g))
    agrees(kl_divergence, p, q, argnums=1)


# ---------------------------------------------------------------- second derivatives

def entropies(v):
    x, y = v[0], v[1]
    return entr(x) + 2.0 * rel_entr(x, y) + 3.0 * kl_div(y, x)


def test_hessian_at_a_smooth_point():
    """d2 entr = -1/x; d2 rel_entr(x, y) = [[1/x, -1/y], [-1/y, x/y^2]] (kl_div's the same)."""
    x, y = 0.7, 1.9
    h = catad.hessian(entropies)(np.array([x, y]))
    want = (np.array([[-1.0 / x, 0.0], [0.0, 0.0]])
            + 2.0 * np.array([[1.0 / x, -1.0 / y], [-1.0 / y, x / y ** 2]])
            + 3.0 * np.array([[y / x ** 2, -1.0 / x], [-1.0 / x, 1.0 / y]]))
    np.testing.assert_allclose(h, want, rtol=1e-14)


# ---------------------------------------------------------------- names

def test_names_as_users_write_them():
    from catad.frontend.calls import display, supported_names, supported_table
    names = supported_names()
    rows = {name: what for name, _, what in supported_table()}
    for n, prim in (("entr", "entr"), ("rel_entr", "rel_entr"), ("kl_div", "kl_div")):
        assert f"scipy.special.{n}" in names
        assert rows[f"scipy.special.{n}"].startswith(f"primitive ``{prim}``: ")
    assert display(special.kl_div) == "scipy.special.kl_div"
