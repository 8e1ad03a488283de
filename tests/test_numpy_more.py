"""More of NumPy's elementwise functions: np.floor, np.ceil, np.trunc, np.rint, np.round/np.around
(decimals, NumPy's rint(a * 10**d) / 10**d), np.fmod, np.mod/np.remainder, np.floor_divide,
np.fmax/np.fmin (NaN-ignoring), np.sinc, np.positive, np.float_power, np.isnan/np.isinf/
np.isfinite (Bool results) and np.nan_to_num. Values (and dtypes) against NumPy itself on
ordinary and edge inputs (NaN, inf, halves, signed zeros, Ints, empty and length-1 arrays),
gradients against central differences forward and reverse, zero derivatives of the
piecewise-constant functions at their jumps, and located refusals."""
import warnings

import numpy as np
import pytest

import catad
from catad import CatadTypeError, UnsupportedSyntax
from located import agrees, marked_line, refused

V = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.0, -0.0, 3.7, -3.7, np.nan, np.inf, -np.inf, 1e300, 0.125])
W = np.array([2.0, -2.0, 0.0, 3.0, np.nan, 0.5, 1.0, -1.0, 2.5, 0.3, 1.0, 2.0, 1.0, 7.0, -np.inf])
I = np.array([5, -5, 7, 0, -3, 2, 9])
J = np.array([3, 3, -2, 4, 5, 5, -4])

ELEMENTWISE = {
    "floor": lambda v, w: np.floor(v), "ceil": lambda v, w: np.ceil(v), "trunc": lambda v, w: np.trunc(v),
    "rint": lambda v, w: np.rint(v), "round": lambda v, w: np.round(v), "around2": lambda v, w: np.around(v, 2),
    "round_neg": lambda v, w: np.round(v * 1.0, decimals=-1), "round20": lambda v, w: np.round(v, 20),
    "fmod": lambda v, w: np.fmod(v, w), "mod": lambda v, w: np.mod(v, w), "remainder": lambda v, w: np.remainder(v, w),
    "floor_divide": lambda v, w: np.floor_divide(v, w), "fmax": lambda v, w: np.fmax(v, w),
    "fmin": lambda v, w: np.fmin(v, w), "sinc": lambda v, w: np.sinc(v), "positive": lambda v, w: np.positive(v),
    "float_power": lambda v, w: np.float_power(v, w), "isnan": lambda v, w: np.isnan(v),
    "isinf": lambda v, w: np.isinf(v), "isfinite": lambda v, w: np.isfinite(v),
    "nan_to_num": lambda v, w: np.nan_to_num(v),
    "nan_to_num_fills": lambda v, w: np.nan_to_num(v, nan=1.5, posinf=2, neginf=-3.0),
}


def same(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    return got.dtype == expected.dtype and got.shape == expected.shape and np.array_equal(got, expected, equal_nan=True)


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
@pytest.mark.parametrize("case", ["floats", "ints", "scalars", "length1", "empty", "broadcast"])
def test_values_are_numpy_s(name, case):
    f = ELEMENTWISE[name]
    a, b = {"floats": (V, W), "ints": (I, J), "scalars": (V[8], W[9]), "length1": (V[:1], W[:1]),
            "empty": (V[:0], W[:0]), "broadcast": (V, W[3])}[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            expected = f(a, b)
        got = catad.vjp(f, a, b)[0]
    assert same(got, expected), (got, expected)


def test_halves_round_to_even():
    v = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.25, 0.35, 1.005, 2.675])
    for f in (lambda v: np.round(v), lambda v: np.round(v, 1), lambda v: np.around(v, 2)):
        assert same(catad.vjp(f, v)[0], f(v))


X = np.array([0.33, -1.27, 2.61, -0.07])
Y = np.array([0.7, 1.9, -0.45, 0.8])


def rounding(x, v):
    return np.sum(np.floor(v * x) + np.ceil(v) * x + np.trunc(v) + np.rint(v) * v + np.round(v, 1) * x
                  + np.around(v) + np.round(v * x, decimals=-1))


def remainders(x, v, w):
    return np.sum(np.fmod(v * x, w) + np.mod(v, w * x) + np.remainder(w, v) * x + np.floor_divide(v, w) * x)


def nan_ignoring(x, v, w):
    return np.sum(np.fmax(v * x, w) - np.fmin(v, w * x) + np.fmax(x, v))


def sincs(x, v):
    return np.sum(np.sinc(v * x)) + np.sinc(x - 1.5) * x


def powers(x, v):
    return np.sum(np.positive(v) * x + np.float_power(np.abs(v), x)) + np.float_power(x, 2)


def nan_filled(x, v):
    # the default fills are +-1.8e308: summed with small terms they would hide them
    return np.sum(np.nan_to_num(v * x, nan=x, posinf=2 * x, neginf=-x)) + np.sum(np.nan_to_num(-v * x)[[0, 1, 4]])


def masked(x, v):
    return np.sum(np.where(np.isnan(v) | np.isinf(v), 0.0, v * x)) + np.sum(np.isfinite(v) * x)


@pytest.mark.parametrize("f, args, argnums", [
    (rounding, (1.5, X), (0, 1)),
    (remainders, (1.5, X, Y), (0, 1, 2)),
    (nan_ignoring, (1.5, X, np.array([np.nan, 0.3, np.nan, -2.0])), (0, 1)),
    (sincs, (1.5, X), (0, 1)),
    (powers, (1.5, X), (0, 1)),
    (nan_filled, (1.5, np.array([np.nan, 1.0, np.inf, -np.inf, 0.5])), 0),
    (masked, (1.5, np.array([np.nan, 1.0, np.inf, -np.inf, 0.5])), 0),
], ids=lambda a: getattr(a, "__name__", ""))
def test_gradients_are_central_differences(f, args, argnums):
    agrees(f, *args, argnums=argnums)


def jumps(v):
    return np.sum(np.floor(v) + np.ceil(v) + np.trunc(v) + np.rint(v) + np.round(v, 1) + np.floor_divide(v, 1.0))


def test_piecewise_constant_functions_have_zero_derivative_at_their_jumps():
    v = np.array([1.0, -2.0, 0.5, 2.5, 0.15, 0.0])
    g = catad.grad(jumps)(v)
    assert np.array_equal(g, np.zeros(6))
    _, t = catad.jvp(jumps, (v,), (np.ones(6),))
    assert t == 0.0


def fmod_partials(x, y):
    return np.fmod(x, y)


def test_fmod_partials_are_one_and_minus_trunc():
    for x, y in [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-1.0, 3.0)]:
        gx, gy = catad.grad(fmod_partials, (0, 1))(x, y)
        assert (gx, gy) == (1.0, -np.trunc(x / y))


def round_by_variable(v, k):
    return np.round(v, k)  # ERR


def nan_by_array(v):
    return np.nan_to_num(v, nan=v)  # ERR


def positive_of_mask(v):
    return np.positive(v > 0)  # ERR


def test_refusals_are_located():
    refused(round_by_variable, (X, 2), "decimals", "integer constant")
    refused(nan_by_array, (X,), "np.nan_to_num", "not an array")
    refused(positive_of_mask, (X,), "np.positive", "Bool", cls=CatadTypeError)


def int_round_negative(v):
    return np.round(v, -1)  # ERR


def test_integers_to_negative_decimals_are_refused():
    refused(int_round_negative, (I,), "negative decimals", cls=UnsupportedSyntax)


# ---------------------------------------------------------------- scipy.special and scipy.stats.norm.ppf

sp = pytest.importorskip("scipy.special")
stats = pytest.importorskip("scipy.stats")
mpmath = pytest.importorskip("mpmath")


def gammas(v):
    return sp.gamma(v)


def betas(a, b):
    return sp.beta(a, b)


def erfinvs(v):
    return sp.erfinv(v)


def ndtris(v):
    return sp.ndtri(v)


RNG = np.random.default_rng(2026)


def _mp(fn, *xs):
    with mpmath.workdps(40):
        return float(fn(*(mpmath.mpf(float(x)) for x in xs)))


def _close_to(got, exact):
    """Within 1e-13 of the exact value (SciPy's own Cephes code is no closer for a large B(a, b),
    whose log is -370: exp of it carries 370 ulps of the log's rounding)."""
    np.testing.assert_allclose(got, exact, rtol=1e-13, atol=0)


def test_gamma_and_beta_are_the_exact_values():
    x = np.concatenate([RNG.uniform(-30, 30, 60), RNG.uniform(0, 171, 20), RNG.uniform(-60, -33, 10)])
    x = x[np.abs(x - np.round(x)) > 1e-3]
    _close_to(catad.vjp(gammas, x)[0], [_mp(mpmath.gamma, v) for v in x])
    a, b = RNG.uniform(-8, 8, 60), RNG.uniform(-8, 8, 60)
    a, b = np.concatenate([a, RNG.uniform(0, 300, 20)]), np.concatenate([b, RNG.uniform(0, 300, 20)])
    ok = (np.abs(a - np.round(a)) > 1e-3) & (np.abs(b - np.round(b)) > 1e-3) & (np.abs(a + b - np.round(a + b)) > 1e-3)
    _close_to(catad.vjp(betas, a[ok], b[ok])[0], [_mp(mpmath.beta, p, q) for p, q in zip(a[ok], b[ok])])


def test_erfinv_and_ndtri_are_the_exact_values():
    x = np.concatenate([RNG.uniform(-1, 1, 60), 1 - 10.0 ** RNG.uniform(-15, 0, 20), 10.0 ** RNG.uniform(-300, 0, 20)])
    _close_to(catad.vjp(erfinvs, x)[0], [_mp(mpmath.erfinv, v) for v in x])
    p = np.concatenate([RNG.uniform(0, 1, 60), 10.0 ** RNG.uniform(-300, 0, 20), 1 - 10.0 ** RNG.uniform(-15, 0, 20)])
    with mpmath.workdps(340):  # 2p - 1 keeps a p of 1e-300
        exact = [float(mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(float(q)) - 1)) for q in p]
    _close_to(catad.vjp(ndtris, p)[0], exact)


EDGES = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 0.25, 0.75, -2.0, -3.0, 2.0, 1e-320, -1e-320, 172.0, -171.9, -200.5,
                  np.nan, np.inf, -np.inf])


@pytest.mark.parametrize("f, ref", [(gammas, "gamma"), (erfinvs, "erfinv"), (ndtris, "ndtri")],
                         ids=["gamma", "erfinv", "ndtri"])
def test_edges_are_scipy_s(f, ref):
    with np.errstate(all="ignore"):
        expected = getattr(sp, ref)(EDGES)
    got = catad.vjp(f, EDGES)[0]
    special = ~np.isfinite(expected) | (expected == 0)
    assert same(got[special], expected[special])  # inf, nan and signed zeros exactly
    _close_to(got[~special], expected[~special])


def test_beta_edges_are_scipy_s():
    e = np.array([0.0, -1.0, -2.0, -0.5, 0.5, 3.0, np.nan, np.inf, -np.inf, 1e7])
    a, b = np.meshgrid(e, e)
    with np.errstate(all="ignore"):
        expected = sp.beta(a.ravel(), b.ravel())
    got = catad.vjp(betas, a.ravel(), b.ravel())[0]
    special = ~np.isfinite(expected) | (expected == 0)
    assert same(got[special], expected[special])
    _close_to(got[~special], expected[~special])


def scipy_more(x, v):
    return np.sum(sp.gamma(v * x) + sp.beta(v, x) + sp.erfinv(v / 3.0) * x + sp.ndtri(v / 3.0)
                  + sp.log1p(v * x) + sp.expm1(v) * x + sp.softplus(v * x)) + sp.gamma(x)


def norm_quantiles(q, m, s):
    return np.sum(stats.norm.ppf(q, m, s) + stats.norm.ppf(q, loc=m) * s + stats.norm.ppf(q, scale=s)
                  + stats.norm.ppf(q))


def test_scipy_gradients_are_central_differences():
    v = np.array([0.3, 1.7, 2.4, 0.9])
    agrees(scipy_more, 1.3, v, argnums=(0, 1))
    agrees(norm_quantiles, np.array([0.01, 0.4, 0.77, 0.999]), 0.5, 2.0, argnums=(0, 1, 2))


def log1p_expm1_softplus(v):
    return sp.log1p(v), sp.expm1(v), sp.softplus(v)


def norm_ppf_cases(q, m, s):
    return stats.norm.ppf(q, m, s), stats.norm.ppf(q), stats.norm.ppf(q, loc=m), stats.norm.ppf(q, scale=s)


def test_one_primitive_functions_and_norm_ppf_are_scipy_s():
    v = np.array([-800.0, -1.0, -1e-20, 0.0, 1e-20, 0.5, 30.0, 800.0, np.nan, np.inf, -np.inf])
    with np.errstate(all="ignore"):
        for got, expected in zip(catad.vjp(log1p_expm1_softplus, v)[0], log1p_expm1_softplus(v)):
            assert same(got, expected)
    q = np.array([0.0, 1.0, 0.3, 0.5, 1.2, -0.1, 1e-300, np.nan, 0.999])
    for m, s in [(1.0, 2.0), (np.inf, 2.0), (1.0, -1.0), (1.0, 0.0), (np.nan, 1.0), (-2.0, np.inf)]:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = norm_ppf_cases(q, m, s)
        for got, e in zip(catad.vjp(norm_ppf_cases, q, m, s)[0], expected):
            special = ~np.isfinite(e)
            assert same(got[special], e[special]), (m, s, got, e)
            _close_to(got[~special], e[~special])


# ---------------------------------------------------------------- reductions

MN = np.array([[1.0, np.nan, -2.0, 0.0], [np.nan, np.nan, np.nan, np.nan], [3.0, 0.5, np.inf, -1.0]])
MI = np.array([[0, 2, 3], [0, 0, 0]])
MB = np.array([[True, False], [False, False]])

REDUCTIONS = {
    "any": lambda a: np.any(a), "any0": lambda a: np.any(a, axis=0), "all1k": lambda a: np.all(a, axis=-1, keepdims=True),
    "all": lambda a: np.all(a), "count_nonzero": lambda a: np.count_nonzero(a),
    "count_nonzero0": lambda a: np.count_nonzero(a, axis=0), "nansum": lambda a: np.nansum(a),
    "nansum0": lambda a: np.nansum(a, axis=0), "nanmean_last": lambda a: np.nanmean(a, axis=-1),
    "nanmean": lambda a: np.nanmean(a), "nanmean_k": lambda a: np.nanmean(a, axis=0, keepdims=True),
    "nanmax_last": lambda a: np.nanmax(a, axis=-1), "nanmin0k": lambda a: np.nanmin(a, axis=0, keepdims=True),
    "nanmax": lambda a: np.nanmax(a), "ptp": lambda a: np.ptp(a), "ptp_last": lambda a: np.ptp(a, axis=-1),
    "average": lambda a: np.average(a), "average0": lambda a: np.average(a, axis=0),
    "average_w": lambda a: np.average(a, axis=-1, weights=np.arange(1.0, np.shape(a)[-1] + 1)),
    "average_wk": lambda a: np.average(a, axis=-1, weights=np.arange(1.0, np.shape(a)[-1] + 1), keepdims=True),
    "average_full": lambda a: np.average(a, weights=a * 0 + 2.0),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("case", ["nans", "ints", "bools", "row", "length1", "empty_rows", "empty_columns"])
def test_reductions_are_numpy_s(name, case):
    f = REDUCTIONS[name]
    a = {"nans": MN, "ints": MI, "bools": MB, "row": MN[0], "length1": MN[2:, :1], "empty_rows": MN[:0],
         "empty_columns": MN[:, :0]}[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                expected = f(a)
            except (ValueError, TypeError, ZeroDivisionError) as e:
                expected = e
        if isinstance(expected, Exception):  # NumPy's error, located, or a refusal
            with pytest.raises(catad.CatadError) as info:
                catad.vjp(f, a)
            if isinstance(expected, ValueError) and "zero-size" in str(expected) and "fm" in str(expected):
                assert str(expected) in str(info.value)
            return
        got = catad.vjp(f, a)[0]
    assert same(got, expected), (got, expected)


def weights_sum_to_zero(v, w):
    return np.average(v, weights=w)  # ERR


def weights_too_short(m, w):
    return np.average(m, axis=1, weights=w)  # ERR


def nanmax_of_nothing(m):
    return np.nanmax(m, axis=0)  # ERR


def test_reduction_errors_are_numpy_s_and_located():
    from catad.frontend import compile_function
    for f, args, message in [(weights_sum_to_zero, (X, np.array([1.0, -1.0, 2.0, -2.0])),
                               "Weights sum to zero, can't be normalized"),
                              (weights_too_short, (MN, np.ones(3)), "weights"),
                              (nanmax_of_nothing, (MN[:0],), "zero-size array to reduction operation fmax")]:
        prog = compile_function(f, args)
        assert prog is not None
        with pytest.raises(Exception) as python:
            f(*args)
        with pytest.raises(catad.CatadError) as info:
            catad.vjp(f, *args)
        assert message in str(python.value) and str(python.value) in str(info.value)  # NumPy's own words
        assert isinstance(info.value, type(python.value))  # except ZeroDivisionError/ValueError still catches it
        assert f":{marked_line(f)}:" in str(info.value)


def reduced(x, m, w):
    return (np.nansum(m * x) + np.nanmean(m, axis=0)[1] * x + np.sum(np.nanmax(m * x, axis=1))
            + np.nanmin(m) * x + np.sum(np.ptp(m, axis=0)) * x + np.average(m * x, axis=1, weights=w)[0]
            + np.average(m, weights=m * m + 1.0) * x + np.sum(np.where(np.any(m > 0.5, axis=1), 1.0, 2.0)) * x
            + x * np.count_nonzero(m > 0) + np.nansum(np.average(m, axis=0, keepdims=True)) * x)


def test_reduction_gradients_are_central_differences():
    m = np.array([[0.3, np.nan, -1.2], [2.2, 0.9, np.nan], [-0.4, 1.7, 0.6]])
    agrees(reduced, 1.3, np.nan_to_num(m, nan=0.1), np.array([0.5, 1.5, 2.0]), argnums=(0, 1, 2))
    agrees(lambda x, w: np.nansum(m * x) + np.nanmean(m * x) + np.nanmax(m * x) + np.sum(np.average(np.nan_to_num(m) * x, axis=0))
           + np.sum(np.nanmin(m * w, axis=0)), 1.3, 0.7, argnums=(0, 1))


# ---------------------------------------------------------------- flips and rank padding

T3 = np.arange(24.0).reshape(2, 3, 4) - 7.5
SHAPES = {
    "flip": lambda a: np.flip(a), "flip0": lambda a: np.flip(a, 0), "flip_last": lambda a: np.flip(a, axis=-1),
    "flip_tuple": lambda a: np.flip(a, (0, -1)), "fliplr": lambda a: np.fliplr(a), "flipud": lambda a: np.flipud(a),
    "rot90": lambda a: np.rot90(a), "rot90_2": lambda a: np.rot90(a, 2), "rot90_3": lambda a: np.rot90(a, k=3),
    "rot90_back": lambda a: np.rot90(a, -1, axes=(1, 0)), "rot90_02": lambda a: np.rot90(a, 1, (0, 2)),
    "atleast_1d": lambda a: np.atleast_1d(a), "atleast_2d": lambda a: np.atleast_2d(a),
    "atleast_2d_two": lambda a: np.atleast_2d(a, a * 2),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize("a", [T3, T3[0], MN[0], MN[:0, :0], T3[:, :0], np.array([3, 4]), MB],
                         ids=["rank3", "matrix", "vector", "empty", "empty3", "ints", "bools"])
def test_flips_are_numpy_s(name, a):
    f = SHAPES[name]
    try:
        expected = f(a)
    except ValueError as e:  # NumPy's ValueError, located, with its message
        with pytest.raises(catad.ShapeError) as info:
            catad.vjp(f, a)
        assert str(e) in str(info.value)
        return
    got = catad.vjp(f, a)[0]
    for g, e in zip(got, expected) if isinstance(expected, tuple) else [(got, expected)]:
        assert same(g, e)


def test_numbers_are_padded():
    for f in (SHAPES["atleast_1d"], SHAPES["atleast_2d"]):
        assert same(catad.vjp(f, 2.5)[0], f(2.5))


def flipped_weights(x, m):
    w = np.arange(m.size, dtype=float).reshape(m.shape)
    return (np.sum(np.flip(m * x) * w) + np.sum(np.rot90(m) * np.rot90(w) * x) + np.sum(np.fliplr(m) * w)
            + np.sum(np.flipud(m) * w * x) + np.sum(np.rot90(m, 3) * np.rot90(w)) + np.sum(np.atleast_2d(m[0]) * x)
            + np.sum(np.atleast_1d(x) * m[:, 0]))


def test_flip_gradients_are_central_differences():
    agrees(flipped_weights, 1.3, T3[0] / 7.0, argnums=(0, 1))


# ---------------------------------------------------------------- joins, spacings, products, conversions

JOINS = {
    "append": lambda a: np.append(a, a), "append_number": lambda a: np.append(a, 2.5),
    "append0": lambda a: np.append(a, a, axis=0), "append_last": lambda a: np.append(a, a * 2, axis=-1),
    "append_list": lambda a: np.append([1, 2], a), "kron": lambda a: np.kron(a, a * 2 + 1),
    "float64": lambda a: np.float64(a), "logspace": lambda a: np.logspace(0.5, 2.0, 5) * np.size(a),
    "logspace_base": lambda a: np.logspace(1.0, 3, num=4, base=2.0, endpoint=False),
}


@pytest.mark.parametrize("name", sorted(JOINS))
@pytest.mark.parametrize("a", [T3[0], MN[0], MN[:0, 0], MI, MN[:, :0]], ids=["matrix", "nans", "empty", "ints",
                                                                          "empty2"])
def test_joins_are_numpy_s(name, a):
    f = JOINS[name]
    try:
        expected = f(a)
    except ValueError as e:
        with pytest.raises(catad.CatadError):
            catad.vjp(f, a)
        return
    assert same(catad.vjp(f, a)[0], expected)


def chain(a, b, c):
    return np.linalg.multi_dot([a, b, c])


def test_multi_dot_is_numpy_s():
    m = T3[0] / 5.0
    for args in [(m, m.T, m), (m[0], m.T, m[:, 1]), (T3[1, 0], m.T, m)]:
        np.testing.assert_allclose(catad.vjp(chain, *args)[0], chain(*args), rtol=1e-14)


def joined(x, m, v):
    return (np.sum(np.append(m * x, v) * np.arange(m.size + v.size)) + np.sum(np.kron(m, m * x) * 0.5)
            + np.sum(np.append(m, m * x, axis=1) ** 2) + np.sum(np.logspace(x, 2.0, 4, base=x))
            + np.linalg.multi_dot([v, m.T, m, v]) * x + np.sum(np.kron(v, v * x)) + np.float64(x) * x)


def test_join_gradients_are_central_differences():
    agrees(joined, 1.3, T3[0, :2, :3] / 7.0, np.array([0.5, -1.0, 2.0]), argnums=(0, 1, 2))


def three(a):
    return np.linalg.multi_dot([a])  # ERR


def test_multi_dot_of_one_array_is_numpy_s_error():
    refused(three, (T3[0],), "Expecting at least two arrays.", cls=CatadTypeError)


TD = [
    (lambda a, b: np.tensordot(a, b), (T3 / 5, T3[0] / 3)), (lambda a, b: np.tensordot(a, b, 1), (T3, T3[0].T)),
    (lambda a, b: np.tensordot(a, b, axes=0), (T3[0], MN[0])),
    (lambda a, b: np.tensordot(a, b, axes=([1, 0], [0, 1])), (T3, np.ones((3, 2, 5)))),
    (lambda a, b: np.tensordot(a, b, axes=(2, 0)), (T3, MN[0])), (lambda a, b: np.tensordot(a, b, axes=1), (MN[0], MN[2])),
    (lambda a, b: np.tensordot(a, b, axes=2), (T3[0], T3[1])), (lambda a, b: np.tensordot(a, b), (MI, MI * 1.5)),
    (lambda a, b: np.select([a > 0, a < -1], [a, a * 2], default=b[0]), (MN[0], MN[2])),
    (lambda a, b: np.select([a > 0, a < -1], [a, 2]), (MN[2], MN[2])),
    (lambda a, b: np.select([a > 0], [b]), (T3[0], MN[0])),
    (lambda a, b: np.select([a > 0, b > 0], [a, b], 0.5), (MN[:0, 0], MN[:0, 0])),
]


@pytest.mark.parametrize("k", range(len(TD)))
def test_tensordot_and_select_are_numpy_s(k):
    f, args = TD[k]
    expected = f(*args)
    got = catad.vjp(f, *args)[0]
    assert np.shape(got) == np.shape(expected) and np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-14)


def contracted(x, t, m):
    return (np.sum(np.tensordot(t * x, m) * np.arange(2.0)) + np.sum(np.tensordot(t, m, axes=([2, 1], [1, 0])) ** 2)
            + np.sum(np.select([t > 0, t < -0.5], [t * x, t * t], default=x)))


def tensordot_mismatch(a, b):
    return np.tensordot(a, b, axes=3)  # ERR


def test_tensordot_gradients_and_errors():
    agrees(contracted, 1.3, T3 / 9.0 - 0.3, T3[0, :3, :4] / 4.0, argnums=(0, 1, 2))
    refused(tensordot_mismatch, (T3, T3[0]), "shape-mismatch for sum", cls=CatadTypeError)


TAKES = [
    (lambda a, i: np.take(a, i), (T3, np.array([0, 5, -1, 23]))),
    (lambda a, i: np.take(a, i, axis=1), (T3, np.array([[0, 2], [-1, 1]]))),
    (lambda a, i: np.take(a, i, axis=-1), (T3, np.array([3, 0]))),
    (lambda a, i: np.take(a, i[0], axis=0), (T3, np.array([1]))),
    (lambda a, i: np.take(a, [2, 0], axis=1), (MI, 0)),
    (lambda a, i: np.take(a, i, axis=0), (T3[0], np.array([], dtype=int))),
]


@pytest.mark.parametrize("k", range(len(TAKES)))
def test_take_is_numpy_s(k):
    f, args = TAKES[k]
    assert same(catad.vjp(f, *args)[0], f(*args))


def take_too_far(a, i):
    return np.take(a, i, axis=1)  # ERR


def taken(x, t):
    return np.sum(np.take(t * x, [0, -1, 3]) * np.arange(3.0)) + np.sum(np.take(t, np.array([[2, 0], [1, 1]]), axis=-1) ** 2)


def test_take_gradients_and_errors():
    agrees(taken, 1.3, T3 / 9.0, argnums=(0, 1))
    with pytest.raises(catad.BoundsError, match="index -4 is out of bounds for axis 1 with size 3") as info:
        catad.vjp(take_too_far, T3, np.array([-4]))
    assert f":{marked_line(take_too_far)}:" in str(info.value)


# ---------------------------------------------------------------- np.gradient, np.cov, np.corrcoef

CM = np.array([[1.0, 2.0, 4.0, 3.5], [0.5, -1.0, 2.0, 8.0], [3.0, 3.0, 3.0, 3.0]])
CV = np.array([1.0, 4.0, 9.0, 7.0, 2.0])
STATS = [
    (lambda a: np.gradient(a), CV), (lambda a: np.gradient(a, 0.5), CV), (lambda a: np.gradient(a, axis=1), T3),
    (lambda a: np.gradient(a, 2.0, axis=-1), CM), (lambda a: np.gradient(a), CM), (lambda a: np.gradient(a), MI[0]),
    (lambda a: np.gradient(a), CV[:2]), (lambda a: np.gradient(a), np.array([1.0, np.nan, np.inf, 2.0])),
    (lambda a: np.cov(a), CM), (lambda a: np.cov(a, rowvar=False), CM), (lambda a: np.cov(a, bias=True), CM),
    (lambda a: np.cov(a, ddof=0), CM), (lambda a: np.cov(a), CV), (lambda a: np.cov(a), CV[:1]),
    (lambda a: np.cov(a, ddof=5), CM), (lambda a: np.cov(a), MI), (lambda a: np.corrcoef(a), CM),
    (lambda a: np.corrcoef(a, rowvar=False), CM), (lambda a: np.corrcoef(a), CV), (lambda a: np.cov(a), MN),
]


@pytest.mark.parametrize("k", range(len(STATS)))
def test_gradient_cov_corrcoef_are_numpy_s(k):
    f, a = STATS[k]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = f(a)
        got = catad.vjp(f, a)[0]
    for g, e in zip(got, expected) if isinstance(expected, tuple) else [(got, expected)]:
        assert np.shape(g) == np.shape(e) and np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_allclose(g, e, rtol=1e-14, atol=1e-15)


def too_short(v):
    return np.gradient(v)  # ERR


def test_gradient_of_one_element_is_numpy_s_error():
    with pytest.raises(catad.ShapeError, match=r"at least \(edge_order \+ 1\) elements") as info:
        catad.vjp(too_short, CV[:1])
    assert f":{marked_line(too_short)}:" in str(info.value)


def statistics(x, m):
    return (np.sum(np.gradient(m * x, 0.5, axis=1) * np.arange(4.0)) + np.sum(np.gradient(m[0], x) ** 2)
            + np.sum(np.cov(m * x) * np.arange(9.0).reshape(3, 3)) + np.sum(np.corrcoef(m, rowvar=False) ** 2)
            + np.cov(m[1], bias=True) * x + np.sum(np.gradient(m)[0]))


def test_statistics_gradients_are_central_differences():
    agrees(statistics, 1.3, CM + np.array([[0.0], [0.0], [0.01]]) * np.arange(4.0), argnums=(0, 1))


MP = np.array([[1.0, 0.5, -0.2], [0.3, 0.9, 0.1], [-0.4, 0.2, 1.1]])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 7, 13, -1, -2, -5])
@pytest.mark.parametrize("a", [MP, np.array([[1, 2], [3, 4]])], ids=["floats", "ints"])
def test_matrix_power_is_numpy_s(n, a):
    f = lambda a: np.linalg.matrix_power(a, n)
    got, expected = catad.vjp(f, a)[0], f(a)
    assert np.asarray(got).dtype == expected.dtype
    if n >= 0:  # the same products in the same order
        assert np.array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-13)


def not_square(a):
    return np.linalg.matrix_power(a, 3)  # ERR


def powers_of_matrices(x, a):
    return (np.sum(np.linalg.matrix_power(a * x, 5) * np.arange(9.0).reshape(3, 3))
            + np.sum(np.linalg.matrix_power(a, -2)) + np.trace(np.linalg.matrix_power(a, 0)) * x)


def test_matrix_power_gradients_and_errors():
    agrees(powers_of_matrices, 1.1, MP, argnums=(0, 1))
    with pytest.raises(catad.LinAlgError, match="Last 2 dimensions of the array must be square") as info:
        catad.vjp(not_square, MP[:2])
    assert f":{marked_line(not_square)}:" in str(info.value)


ALONG = [
    (lambda a, i: np.take_along_axis(a, i, axis=1), (CM, np.argsort(CM, axis=1))),
    (lambda a, i: np.take_along_axis(a, i, axis=0), (CM, np.array([[1, 0, 2, 1]]))),
    (lambda a, i: np.take_along_axis(a, i, axis=-1), (T3, np.array([[[0, -1]]]))),
    (lambda a, i: np.take_along_axis(a, i, None), (CM, np.array([5, 0, -2]))),
    (lambda a, i: np.take_along_axis(a, i, axis=1), (CM, np.zeros((3, 0), dtype=int))),
    (lambda a, i: np.take_along_axis(a, i, axis=1), (MI, np.array([[2], [1]]))),
]


@pytest.mark.parametrize("k", range(len(ALONG)))
def test_take_along_axis_is_numpy_s(k):
    f, args = ALONG[k]
    assert same(catad.vjp(f, *args)[0], f(*args))


def along_mismatch(a, i):
    return np.take_along_axis(a, i, axis=1)  # ERR


def sorted_rows(x, m):
    return np.sum(np.take_along_axis(m * x, np.argsort(m, axis=1, kind="stable"), axis=1) * np.arange(4.0))


def test_take_along_axis_gradients_and_errors():
    agrees(sorted_rows, 1.3, CM + np.array([[0.0], [0.0], [0.01]]) * np.arange(4.0), argnums=(0, 1))
    with pytest.raises(catad.BoundsError, match="shape mismatch: indexing arrays could not be broadcast") as info:
        catad.vjp(along_mismatch, CM, np.zeros((2, 1), dtype=int))
    assert f":{marked_line(along_mismatch)}:" in str(info.value)


BROADCASTS = [
    (lambda a, n: np.broadcast_to(a, (2, 3)), (np.arange(3.0), 2)),
    (lambda a, n: np.broadcast_to(a, (n, 2, 3)), (np.array([[1.0], [2.0]]), 4)),
    (lambda a, n: np.broadcast_to(a, n), (2.5, 3)), (lambda a, n: np.broadcast_to(a, (n, 3)), (np.array([1, 2, 3]), 0)),
    (lambda a, n: np.broadcast_to(a, (2, 4)), (np.arange(3.0), 2)),
    (lambda a, n: np.broadcast_to(a, (3,)), (np.ones((2, 3)), 2)),
    (lambda a, n: np.broadcast_to(a, (n, 3)), (2.5, -1)),
    (lambda a, n: np.broadcast_to(a, (n, 0)), (np.array([1, 2]), 3)),
]


@pytest.mark.parametrize("k", range(len(BROADCASTS)))
def test_broadcast_to_is_numpy_s(k):
    f, args = BROADCASTS[k]
    try:
        expected = f(*args)
    except ValueError as e:  # the same message, as a catad.ShapeError (a ValueError)
        with pytest.raises(catad.ShapeError) as info:
            catad.vjp(f, *args)
        assert str(e) in str(info.value)
        return
    assert same(catad.vjp(f, *args)[0], expected)


def broadcast_weights(x, v):
    return np.sum(np.broadcast_to(v * x, (3, v.size)) * np.arange(3.0 * v.size).reshape(3, -1))


def test_broadcast_to_gradients():
    agrees(broadcast_weights, 1.3, np.array([0.5, -1.0, 2.0]), argnums=(0, 1))


def _sinc(x):
    return np.sinc(x)


def test_sinc_s_second_derivative_at_and_near_zero():
    """sinc''(0) = -pi^2 / 3 (the constant 1 at 0 had none: 0), and near 0 the derivatives of
    sin(pi x) / (pi x) cancel (-4.7 at 1e-8): there they are the Taylor series', and the value
    NumPy's own (found by differential testing, trial 6)."""
    for x in (0.0, 1e-12, 1e-8, 1e-5, -2e-3):
        value, slope = catad.value_and_grad(_sinc)(x)
        assert value == np.sinc(x)
        y = np.pi * x
        assert slope == pytest.approx(np.pi * (-y / 3 + y ** 3 / 30), rel=1e-9, abs=1e-300)
        assert catad.hessian(_sinc)(x) == pytest.approx(np.pi ** 2 * (-1 / 3 + y * y / 10), rel=1e-9)
    for x in (0.0, 1e-8, 0.25):  # third derivative: pi^3 (y / 5 - ...) near 0
        third = catad.grad(catad.grad(catad.grad(_sinc)))(x)
        y = np.pi * x
        want = np.pi ** 3 * (y / 5 - y ** 3 / 42) if x < 1e-3 else float(
            np.gradient([catad.hessian(_sinc)(x + d) for d in (-1e-4, 0.0, 1e-4)], 1e-4)[1])
        assert third == pytest.approx(want, rel=1e-6, abs=1e-12)
