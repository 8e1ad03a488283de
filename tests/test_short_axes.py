"""The runtime's fast paths for GMM-like programs at small dimension (issue 17, d = 2): a
scatter of in-range indices as one ravel_multi_index and bincount, a check that passes
everywhere as one ndarray.all, and spread, which copies an operand broadcast along a short
trailing run of axes so that NumPy's loop runs over long contiguous rows. Each must give the
general path's values bit for bit (or its error)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import catad
from catad.backend import einsum_plans, runtime


def general_scatter(shape, index, val):
    """runtime.scatter with its in-range fast path refused (the general path's result)."""
    saved = runtime._scatter_in_range
    runtime._scatter_in_range = lambda *a: None
    try:
        return runtime.scatter(shape, index, val)
    finally:
        runtime._scatter_in_range = saved


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(0, 2))
def test_a_scatter_of_in_range_indices_is_the_general_ones(seed, m, extra):
    """Repeated indices add up, in the general path's order (the same bits); indices broadcast
    against each other; axes after the indexed ones are kept whole."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(1, 5, m + extra))
    # index arrays of broadcastable shapes (size 1 along some axes)
    bshape = tuple(int(n) for n in rng.integers(1, 4, 2))
    index = tuple(rng.integers(0, shape[k], tuple(n if rng.integers(2) else 1 for n in bshape)) for k in range(m))
    val = rng.standard_normal(np.broadcast_shapes(*(i.shape for i in index)) + shape[m:])
    assert runtime._scatter_in_range(shape, index, val) is not None
    np.testing.assert_array_equal(runtime.scatter(shape, index, val), general_scatter(shape, index, val))


def test_a_scatter_with_an_index_out_of_range_or_negative_takes_the_general_path():
    val = np.array([1.0, 2.0])
    assert runtime._scatter_in_range((3,), (np.array([0, 3]),), val) is None
    assert runtime._scatter_in_range((3, 2), (np.array([0, -1]), np.array([1, 1])), val) is None
    # a negative index wraps (the general path), one past the end is refused there
    np.testing.assert_array_equal(runtime.scatter((3, 2), (np.array([0, -1]), np.array([1, 1])), val),
                                  [[0, 1], [0, 0], [0, 2]])
    with pytest.raises(AssertionError, match="out of range"):
        runtime.scatter((3, 2), (np.array([0, 3]), np.array([1, 1])), val)


def test_a_failed_check_still_raises_and_a_passed_one_does_not():
    class Site:
        def error(self, data):
            return ValueError(f"bad at {data}")
    ok = np.ones((3, 2), bool)
    runtime.check_ok(ok, None, (3, 2), Site(), ())
    bad = ok.copy()
    bad[1, 0] = False
    with pytest.raises(ValueError, match=r"bad at \(\S*2\)?,\)"):
        runtime.check_ok(bad, None, (3, 2), Site(), (np.arange(6).reshape(3, 2),))
    runtime.check_ok(bad, None, (0, 2), Site(), ())  # no lanes: nothing evaluated
    runtime.check_ok(bad, bad.copy(), (3, 2), Site(), ())  # the failing lane is masked out
    runtime.check_ok(ok, bad.copy(), (3, 2), Site(), ())  # every lane passes, masked or not
    keep = ok.copy()
    keep[2, 1] = False  # masks out another lane than the failing one
    with pytest.raises(ValueError, match=r"bad at \(\S*2\)?,\)"):
        runtime.check_ok(bad, keep, (3, 2), Site(), (np.arange(6).reshape(3, 2),))
    big = np.ones((3000, 2), bool)
    big[1500, 1] = False
    runtime.check_ok(big, big.copy(), (3000, 2), Site(), ())  # large: the masked test alone
    with pytest.raises(ValueError):
        runtime.check_ok(big, np.ones((3000, 2), bool), (3000, 2), Site(), ((),))
    runtime.check_ok(np.True_, None, (), Site(), ())
    with pytest.raises(ValueError):
        runtime.check_ok(np.False_, None, (), Site(), ((),))


@st.composite
def broadcasts(draw):
    """A target shape of 1 to 4 axes (sizes 1 to 5) and an operand broadcast to it: each axis
    of the target kept or made 1."""
    shape = tuple(draw(st.lists(st.integers(1, 5), min_size=1, max_size=4)))
    x = tuple(n if draw(st.booleans()) else 1 for n in shape)
    return shape, x


@settings(max_examples=300, deadline=None)
@given(broadcasts(), st.integers(0, 2**32 - 1), st.sampled_from([np.float64, np.int64, np.bool_]))
def test_spread_is_the_broadcast_made_contiguous_where_the_run_is_short(case, seed, dtype):
    """Any size (LEAST 0 here): spread(x, shape) is x itself, or an array equal to
    np.broadcast_to(x, shape) of x's dtype; an operation with it gives the same bits."""
    shape, xshape = case
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(xshape) * 3).astype(dtype)
    y = (rng.standard_normal(shape) * 3).astype(dtype)
    least, einsum_plans.LEAST = einsum_plans.LEAST, 0
    runtime._SPREADS.clear()  # decisions are kept per pair of shapes
    try:
        s = runtime.spread(x, shape)
    finally:
        einsum_plans.LEAST = least
        runtime._SPREADS.clear()
    assert s is x or (s.dtype == x.dtype and s.flags.c_contiguous and np.broadcast_shapes(s.shape, shape) == shape)
    np.testing.assert_array_equal(np.broadcast_to(s, shape), np.broadcast_to(x, shape))
    np.testing.assert_array_equal(y * s, y * x)


@pytest.mark.parametrize("xshape, shape, copied", [
    ((1000, 1, 2), (1000, 10, 2), (1000, 10, 2)),  # GMM's x - mu: a middle axis repeated
    ((1000, 10, 1), (1000, 10, 2), (1000, 10, 2)),  # a scalar per point and component, over d = 2
    ((1, 10, 1), (1000, 10, 2), (1000, 10, 2)),  # filled along d, then repeated along the points
    ((1, 10, 2), (1000, 10, 2), (1000, 10, 2)),  # a run of 20: repeated
    ((1, 25, 2), (1000, 25, 2), None),  # a run of 50: NumPy's loop is long enough
    ((1000, 1, 1), (1000, 10, 2), None),  # broadcast along a run of 20
    ((1000, 25, 1), (1000, 25, 10), None),  # d = 10: copies of c cost more than they save
    ((1000, 1, 10), (1000, 25, 10), (1000, 25, 10)),  # x - mu at d = 10: a run of 10, repeated
    ((1000, 1, 40), (1000, 25, 40), None),  # a run of 40: NumPy's loop is long enough
    ((10, 1, 2), (10, 10, 2), None),  # fewer than LEAST elements
    ((1, 10), (1000, 10), None),  # two loops whatever the broadcast
    ((3000, 1), (3000, 2), (3000, 2)),  # copies side by side along a short last axis
])
def test_spread_copies_only_short_runs(xshape, shape, copied):
    x = np.random.default_rng(0).standard_normal(xshape)
    s = runtime.spread(x, shape)
    if copied is None:
        assert s is x
    else:
        assert s.shape == copied and s.flags.c_contiguous
        np.testing.assert_array_equal(np.broadcast_to(s, shape), np.broadcast_to(x, shape))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.sampled_from(["max", "min"]))
def test_a_max_of_short_rows_is_numpys(seed, n, kind):
    """vreduce's max (min) of rows of at most _SHORT_ROWS as the element at the argmax: np.max's
    value, its sign of zero and its NaN, with infinities, ties and zeros of both signs."""
    rng = np.random.default_rng(seed)
    x = rng.choice([-0.0, 0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan], size=(3000 // n + 1, n),
                   p=[.1, .1, .2, .2, .3, .04, .04, .02])
    if rng.integers(2):
        x = x[:, ::-1]  # not contiguous: take_along_axis
    want = (np.max if kind == "max" else np.min)(x, axis=1)
    got = runtime.vreduce(kind, x, 1)
    np.testing.assert_array_equal(got, want)
    assert (np.signbit(got) == np.signbit(want))[~np.isnan(want)].all()


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 3000), st.lists(st.integers(1, 12), min_size=1, max_size=3))
def test_a_sum_over_the_first_axis_is_numpys_bit_for_bit(seed, n, rest):
    """runtime.sum0 against x.sum(axis=0): values of wide exponents (any other order of the
    additions would show), signed zeros, infinities and NaNs; views that are not contiguous."""
    rng = np.random.default_rng(seed)
    shape = (n, *rest)
    x = rng.standard_normal(shape) * np.exp(rng.uniform(-30, 30, shape))
    special = rng.random(shape)
    x[special < 0.01] = -0.0
    x[special > 0.999] = np.inf
    if rng.integers(4) == 0:
        x[:, ...] = -0.0  # every sum -0.0: NumPy's sign
    if rng.integers(4) == 0:
        x = x[::-1]  # a view of negative stride
    np.testing.assert_array_equal(runtime.sum0(x), x.sum(axis=0))
    assert (np.signbit(runtime.sum0(x)) == np.signbit(x.sum(axis=0))).all()


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.sampled_from(["max", "min"]), st.booleans(),
       st.booleans())
def test_a_max_and_its_argmax_together_are_each_alone(seed, n, kind, masked, empty_lane):
    """vreduce2 (a program's max and argmax of the same rows: backend/reductions.py pairs them)
    gives what vreduce gives for each: np.max's value, sign of zero and NaN, argmax's first
    index, a ragged mask's lanes left out, a lane with nothing to reduce raising where it is
    active and discarded (NaN, index 0) where it is not."""
    rng = np.random.default_rng(seed)
    x = rng.choice([-0.0, 0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan], size=(3000 // n + 1, n),
                   p=[.1, .1, .2, .2, .3, .04, .04, .02])
    if rng.integers(2):
        x = x[:, ::-1]
    mask = rng.random(x.shape) < 0.8 if masked else None
    if masked and empty_lane:
        mask[1] = False
    active = mask.any(axis=1) if masked else True  # a lane with nothing to reduce: not taken
    got = runtime.vreduce2(kind, x, 1, mask, active)
    want = runtime.vreduce(kind, x, 1, mask, active), runtime.vreduce("arg" + kind, x, 1, mask, active)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype
    assert (np.signbit(got[0]) == np.signbit(want[0]))[~np.isnan(want[0])].all()
    if masked and not mask.any(axis=1).all():
        with pytest.raises(catad.ShapeError):
            runtime.vreduce2(kind, x, 1, mask, True, ("f.py", 3, 4))


def rows_logsumexp(x):
    m = np.max(x, axis=1)
    return np.sum(m + np.log(np.sum(np.exp(x - m[:, None]), axis=1)))


def test_the_gradient_of_a_max_reads_its_rows_once():
    x = np.random.default_rng(3).standard_normal((1000, 10))
    x[5, 2] = x[5, 7] = 4.0  # a tie: the first largest takes the derivative, as JAX's
    x[9] = -0.0
    b = catad.pipeline.bind(rows_logsumexp, (x,))
    source = b.pipeline.code("reverse").source
    assert "vreduce2('max'" in source and "vreduce('argmax'" not in source, source
    g = catad.grad(rows_logsumexp)(x)
    h = 1e-6
    for i, j in [(0, 0), (5, 2), (5, 7), (9, 3), (999, 9)]:
        e = np.zeros_like(x)
        e[i, j] = h
        assert g[i, j] == pytest.approx((rows_logsumexp(x + e) - rows_logsumexp(x - e)) / (2 * h), abs=1e-6) \
            or (i, j) in [(5, 2), (5, 7)]
    assert catad.value_and_grad(rows_logsumexp)(x)[0] == pytest.approx(rows_logsumexp(x), rel=1e-13)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(2, 3))
def test_a_sum_of_short_rows_is_numpys_up_to_rounding(seed, n, ndim):
    """sum_rows: rows of at most _SHORT_ROWS summed by einsum's loop equal NumPy's sums up to
    rounding, its infinities and NaNs, and its -0.0 (a zero in the result is NumPy's own)."""
    rng = np.random.default_rng(seed)
    shape = (3000 // n + 1, n) if ndim == 2 else (3, 1000 // n + 1, n)
    x = rng.choice([-0.0, 1e-3, 1.0, -1.0, 2.5e10, np.inf, -np.inf, np.nan], size=shape,
                   p=[.3, .1, .2, .2, .16, .015, .015, .01])
    if rng.integers(2):
        x[:7] = -0.0  # whole rows of -0.0
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, for both
        want = x.sum(axis=-1)
        got = runtime.sum_rows(x, ndim - 1)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    assert (np.signbit(got) == np.signbit(want))[want == 0].all()
    with np.errstate(invalid="ignore"):
        for axis in range(ndim - 1):  # not the last axis: NumPy's own
            np.testing.assert_array_equal(runtime.sum_rows(x, axis), x.sum(axis=axis))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.sampled_from(["same", "x row", "i row", "scalar i"]),
       st.sampled_from([np.int64, np.int32]), st.booleans())
def test_a_one_hot_is_the_where_it_replaces(seed, n, layout, itype, outside):
    """one_hot(x, i, iota) is np.where(iota == i, x, 0) (the derivative of a max at its argmax,
    backend/control.one_hot): x's NaN and inf where selected only, no lane selected for an
    index outside [0, n) (negative ones included), broadcast x and i, other index dtypes."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 400))
    x = rng.choice([1.5, -2.0, -0.0, np.inf, np.nan], size=(m, 1))
    i = rng.integers(-2 if outside else 0, n + 2 if outside else n, size=(m, 1)).astype(itype)
    if layout == "x row":
        x = x[:1]
    elif layout == "i row":
        i = i[:1]
    elif layout == "scalar i":
        i = int(i[0, 0])
    iota = np.arange(n).reshape(1, -1)
    want = np.where(iota == i, x, 0)
    got = runtime.one_hot(x, i, iota)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert (np.signbit(got) == np.signbit(want)).all()


def test_gmms_derivative_programs_take_the_fast_paths():
    """GMM's hvp program (issue 17): the overflow tests of math.exp as check_range, the max of
    each logsumexp row read in one pass (Python's max is the element at the row's argmax: one
    argmax, then a gather), their sums as sum_rows, the one-hot of the argmax as one_hot."""
    import sys
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent.parent / "benchmarks"))
    from adbench import gmm
    rng = np.random.default_rng(0)
    n, k, d = 3000, 4, 2
    args = (rng.standard_normal(k), rng.standard_normal((k, d)), rng.standard_normal((k, d)),
            rng.standard_normal((k, d * (d - 1) // 2)), rng.standard_normal((n, d)), (1.0, 0))
    g = catad.grad(gmm.gmm_objective, argnums=(0, 1, 2, 3))
    b = catad.pipeline.bind(g, args)
    source = b.pipeline.code("forward", None, tangent_only=True, zero=(4, 5)).source
    for name in ("check_range(", "sum_rows(", "one_hot("):
        assert name in source, name
    assert source.count("vreduce('argmax', t") == 1 and "vreduce('max'" not in source


def lse_by_max(x):
    m = np.max(x, axis=1)
    return np.sum(m + np.log(np.sum(np.exp(x - m[:, None]), axis=1)))


def lse_by_max_again(x):
    m = np.max(x, axis=1)
    return np.sum(m + np.log(np.sum(np.exp(x - m[:, None]), axis=1)))


def test_a_sum_of_a_scaled_array_is_the_scale_times_the_sum_where_the_scale_is_finite(monkeypatch):
    """sum_j k_i * a_ij (k_i a cotangent per row, a the exp of the row) is k_i times a's row sum
    (contractions.scaled_sum, the sum made once for both) where k is finite, and the sum of the
    products where it is not: an infinite cotangent times a 0 term is NaN there, as without the
    rewrite (lse_by_max_again is compiled without it)."""
    from catad.backend import contractions
    x = np.random.default_rng(8).standard_normal((3000, 4))
    x[5, 1] = -1000.0  # exp(x - max) is 0 there
    source = catad.pipeline.bind(lse_by_max, (x,)).pipeline.code("reverse").source
    assert "all_finite(" in source, source
    monkeypatch.setattr(contractions, "scaled_sum", lambda *args: None)
    assert "all_finite(" not in catad.pipeline.bind(lse_by_max_again, (x,)).pipeline.code("reverse").source
    for ct in (1.0, -2.5, 0.0, np.inf, -np.inf, np.nan):
        with np.errstate(all="ignore"):
            got, = catad.vjp(lse_by_max, x)[1](ct)
            want, = catad.vjp(lse_by_max_again, x)[1](ct)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
        if np.isinf(ct):
            assert np.isnan(got[5]).any()  # inf * 0 in the row with a 0 term
