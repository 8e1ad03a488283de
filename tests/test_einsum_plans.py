"""runtime.contract's einsum plans (catad/backend/einsum_plans.py) against np.einsum itself.

A plan replaces np.einsum's Python driver by matmuls and c_einsum calls chosen at the first
call of a spec with given shapes; it must give einsum's value (up to the rounding of another
summation order), shape and dtype for any spec: random specs of two to four operands, with
axes of size 0 and 1, indices summed in one operand only, repeated indices, broadcast axes
of size 1, scalar results, and non-float64 operands (which keep np.einsum)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from catad.backend import einsum_plans, runtime

LETTERS = "abcde"


@st.composite
def einsums(draw):
    """A spec over up to five letters, operands drawn as letter strings, the result any subset
    of the letters used, and each letter's size (0 to 4); an operand's axis may be 1 where the
    letter is longer (einsum broadcasts it)."""
    n_ops = draw(st.integers(2, 4))
    specs = [draw(st.text(LETTERS, min_size=0, max_size=3)) for _ in range(n_ops)]
    used = sorted(set("".join(specs)))
    out = "".join(draw(st.permutations(used))[:draw(st.integers(0, len(used)))])
    size = {c: draw(st.integers(0, 4)) for c in used}
    # an axis is 1 now and then (broadcast), except a repeated letter's (a diagonal: one size)
    shapes = [tuple(1 if s.count(c) == 1 and draw(st.integers(0, 5)) == 0 else size[c] for c in s)
              for s in specs]
    return ",".join(specs) + "->" + out, shapes



def _operands_and_einsum(spec: str, shapes: list, seed: int):
    """Random operands of these shapes and np.einsum's value of them (None where NumPy raises
    ValueError: sizes that do not broadcast)."""
    rng = np.random.default_rng(seed)
    ops = [rng.standard_normal(s) for s in shapes]
    try:
        return ops, np.einsum(spec, *ops)
    except ValueError:
        return ops, None

@settings(max_examples=400, deadline=None)
@given(einsums(), st.integers(0, 2**32 - 1))
def test_a_plan_gives_einsums_value(case, seed):
    spec, shapes = case
    ops, want = _operands_and_einsum(spec, shapes, seed)
    if want is None:
        return  # not an einsum NumPy computes (sizes that do not broadcast)
    for small in (einsum_plans.SMALL, 0):  # the small einsum's single pass, and the plan for large ones
        saved, einsum_plans.SMALL = einsum_plans.SMALL, small
        einsum_plans.plan.cache_clear()
        try:
            got = runtime.contract(spec, *ops)
        finally:
            einsum_plans.SMALL = saved
            einsum_plans.plan.cache_clear()
        assert got.shape == want.shape and got.dtype == want.dtype, (spec, shapes)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * max(1.0, float(np.abs(want).max(initial=0))))


def test_a_small_einsum_is_one_pass_but_a_matmul_stays_numpys():
    """One c_einsum pass for a small product; a small matrix product stays np.matmul, whose
    bits a user's a @ b has (np.linalg.matrix_power: the same products in the same order)."""
    assert einsum_plans.plan("cd,bcd,abd->abc", ((2, 1), (10, 2, 1), (10, 10, 1))).func is einsum_plans._c_einsum
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((3, 5)), rng.standard_normal((5, 4))
    assert einsum_plans._uses_matmul(einsum_plans.plan("ij,jk->ik", ((3, 5), (5, 4))))
    assert np.array_equal(runtime.contract("ij,jk->ik", a, b), a @ b)


@pytest.mark.parametrize("spec, shapes", [
    ("cd,bcd,abd->abc", [(10, 9), (25, 10, 9), (1000, 25, 9)]),  # GMM's Q x, batched over the components
    ("cd,bcd,abc->abd", [(2, 1), (10, 2, 1), (1000, 10, 2)]),  # its transpose; d = 2: sums of length 1
    ("cd,abd,abc->bcd", [(10, 9), (1000, 25, 9), (1000, 25, 10)]),  # a sum over the points
    ("cd,bd,abc->bcd", [(10, 9), (25, 9), (1000, 25, 10)]),  # an index summed in one operand only
    ("bc,bc,abc,abc->bc", [(25, 10), (25, 10), (1000, 25, 10), (1000, 25, 10)]),  # small ones first
    ("ab,bc,ca->", [(3, 4), (4, 5), (5, 3)]),  # a scalar result
])
def test_gmm_contractions(spec, shapes):
    rng = np.random.default_rng(0)
    ops = [rng.standard_normal(s) for s in shapes]
    np.testing.assert_allclose(runtime.contract(spec, *ops), np.einsum(spec, *ops), rtol=1e-12, atol=1e-12)


def test_the_plans_steps_are_matmuls_where_something_is_summed():
    """What the plan is for: GMM's batched Q x is a matmul, not np.einsum's driver; its
    products of length-1 sums are c_einsum calls."""
    steps = einsum_plans.plan("cd,bcd,abd->abc", ((10, 9), (25, 10, 9), (1000, 25, 9))).args[0]
    assert [s.func.__name__ for _, s in steps] == ["_c_einsum_step", "_swap"]
    assert steps[1][1].args[0].func is einsum_plans._matmul_into


@pytest.mark.parametrize("spec, shapes", [
    ("bcd,abd->abc", [(25, 10, 9), (1000, 25, 9)]),  # GMM's Q x at d = 10: batched over b, the middle axis
    ("bcd,abc->abd", [(25, 10, 9), (1000, 25, 10)]),  # its transpose
    ("bcd,abd->abc", [(3, 1, 1), (4, 3, 1)]),  # d = 1: sums of one term
    ("bcd,abd->abc", [(3, 2, 5), (0, 3, 5)]),  # no points: an empty result
    ("bcd,abd->acb", [(3, 2, 5), (4, 3, 5)]),  # the result's last axis the batch's
])
def test_a_batched_matmul_writes_its_result_in_the_results_order(spec, shapes):
    """A matmul batched over an axis that is not the result's first writes through a
    transposed view of a C-ordered result (_matmul_into): the same products as np.matmul's
    own result, bit for bit, and a result whose later elementwise passes are contiguous;
    an inf or NaN in an operand reaches the terms it is in."""
    rng = np.random.default_rng(9)
    ops = [rng.standard_normal(s) for s in shapes]
    if ops[1].size:
        ops[1][0, 1, 0] = np.inf
        ops[1][-1, 0, -1] = np.nan
    with np.errstate(all="ignore"):
        got = runtime.contract(spec, *ops)
        want = np.einsum(spec, *ops)
    assert got.shape == want.shape and got.flags.c_contiguous
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    if spec == "bcd,abd->abc":  # the plain batched matmul over b, (b, a, d) @ (b, d, c): the same bits
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(got, np.matmul(ops[1].transpose(1, 0, 2), ops[0].transpose(0, 2, 1)).transpose(1, 0, 2))


def test_a_matmuls_small_operand_is_c_ordered_and_a_large_one_left_as_it_is():
    """GMM's per-component L, transposed for the matmul, is copied C-ordered (OpenBLAS
    multiplies by a small transposed matrix at half the speed); operands of like sizes, or the
    large one, are passed as they are (a copy of a large one costs more than it saves)."""
    rng = np.random.default_rng(3)
    y = rng.standard_normal((1000, 25, 10))[:, :, 1:].transpose(1, 0, 2)  # (25, 1000, 9), strided
    lt = rng.standard_normal((25, 10, 9)).transpose(0, 2, 1)  # (25, 9, 10), F-ordered per batch
    a, b = einsum_plans._operands(y, lt)
    assert a is y and b.flags.c_contiguous and np.array_equal(b, lt)
    b2, a2 = einsum_plans._operands(lt, y)
    assert a2 is y and b2.flags.c_contiguous
    empty = np.empty((25, 0, 10)).transpose(0, 2, 1)  # no columns: an empty copy, the same shape
    e, a3 = einsum_plans._operands(empty, y)
    assert a3 is y and e.shape == empty.shape and e.flags.c_contiguous
    big = rng.standard_normal((25, 9, 1000)).transpose(0, 2, 1)
    assert all(x is y0 for x, y0 in zip(einsum_plans._operands(y, big), (y, big)))
    np.testing.assert_array_equal(runtime.contract("bcd,abd->abc", lt.transpose(0, 2, 1), y.transpose(1, 0, 2)),
                                  np.matmul(y, np.ascontiguousarray(lt)).transpose(1, 0, 2))


@pytest.mark.parametrize("dtype", [np.int64, np.bool_, np.float32, np.complex128])
def test_other_dtypes_keep_einsums_rules(dtype):
    rng = np.random.default_rng(1)
    ops = [(rng.standard_normal(s) * 3).astype(dtype) for s in [(3, 4), (4, 5), (5, 2)]]
    got, want = runtime.contract("ab,bc,cd->ad", *ops), np.einsum("ab,bc,cd->ad", *ops)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("spec", ["ij,jk", "...j,jk->...k", "ij,jk->ik"])
def test_implicit_results_and_ellipses_keep_einsums_driver(spec):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    np.testing.assert_allclose(runtime.contract(spec, a, b), np.einsum(spec, a, b), rtol=1e-13)


@settings(max_examples=400, deadline=None)
@given(einsums(), st.integers(0, 2**32 - 1))
def test_an_unrolled_plan_gives_einsums_value(case, seed):
    """_short's plan (a sum of at most SHORT terms, or a product sliced along a short last
    axis) at any size: the plans chosen for large results, taken here for small ones too."""
    spec, shapes = case
    ops, want = _operands_and_einsum(spec, shapes, seed)
    if want is None:
        assert einsum_plans._short(spec, tuple(shapes), least=0) is None  # einsum's own error
        return
    unrolled = einsum_plans._short(spec, tuple(shapes), least=0)
    if unrolled is not None:
        got = unrolled(ops)
        assert got.shape == want.shape and got.dtype == want.dtype, (spec, shapes)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * max(1.0, float(np.abs(want).max(initial=0))))


# GMM's contractions at d = 2 (1000 points, 10 components), where NumPy's loops along the
# last axis of length 2 are slow: unrolled sums and sliced products
SHORT_CASES = [
    ("abc,abc->ab", [(1000, 10, 2), (1000, 10, 2)]),  # a sum of two terms
    ("cd,bcd,abd->abc", [(2, 1), (10, 2, 1), (1000, 10, 1)]),  # a product; the big operand lacks c
    ("cd,abd,bcd->abc", [(2, 1), (1000, 10, 1), (10, 2, 1)]),
    ("bca,bc->ab", [(10, 3, 1000), (10, 3)]),  # letters out of the result's order: transposed
    ("ab,b->ab", [(4096, 3), (1,)]),  # an axis of size 1 broadcast: read at 0
]


@pytest.mark.parametrize("spec, shapes", SHORT_CASES)
def test_short_axes_are_unrolled(spec, shapes):
    rng = np.random.default_rng(3)
    ops = [rng.standard_normal(s) for s in shapes]
    planned = einsum_plans.plan(spec, tuple(shapes))
    assert planned.func is einsum_plans._unrolled, spec
    got = runtime.contract(spec, *ops)
    assert got.shape == np.einsum(spec, *ops).shape
    np.testing.assert_allclose(got, np.einsum(spec, *ops), rtol=1e-13, atol=1e-13)


def test_a_short_sum_that_is_a_matmul_stays_one():
    """'cd,bcd,abc->abd' at d = 2 is 10 matrix-vector products of 1000 x 2: BLAS beats the
    unrolled terms (14 us against 26), so its plan keeps the matmul."""
    assert einsum_plans._uses_matmul(einsum_plans.plan("cd,bcd,abc->abd", ((2, 1), (10, 2, 1), (1000, 10, 2))))


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("spec, shapes", SHORT_CASES[1:3])
@pytest.mark.parametrize("terms", [einsum_plans.MASKED_TERMS, 0])  # sliced, and the product by the mask
def test_an_unrolled_plan_keeps_the_masks_selection(spec, shapes, bad, terms, monkeypatch):
    """A ragged build's mask (a Bool operand, `where`) discards its lanes whatever their values:
    an inf or NaN in a masked lane never reaches the result, in a kept lane it does."""
    monkeypatch.setattr(einsum_plans, "MASKED_TERMS", terms)
    rng = np.random.default_rng(4)
    ops = [rng.standard_normal(s) for s in shapes]
    mask = np.array([[False], [True]])
    big = 1 if shapes[1][0] == 1000 else 2
    small = 3 - big
    ops[small][3, 0, 0] = bad  # component 3, c = 0: masked out
    ops[big][7, 3, 0] = bad  # point 7, component 3: its product with the mask's True lane is kept
    with np.errstate(all="ignore"):  # as in the generated code: the masked 0 * inf is NaN first
        got = runtime.contract(spec, mask, *ops[1:], where=(0,))
    specs, out = spec.split("->")
    every = "abcd"
    product = np.einsum(",".join(specs.split(",")[1:]) + "->" + every, *ops[1:])
    want = np.einsum(every + "->" + out, np.where(np.einsum(specs.split(",")[0] + "->" + every[2:], mask)[None, None], product, 0.0))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)
    assert np.isfinite(got[:, 3, 0]).all() and not np.isfinite(got[7, 3, 1])


@settings(max_examples=400, deadline=None)
@given(einsums(), st.integers(0, 2**32 - 1))
def test_a_factored_plan_gives_einsums_value(case, seed):
    """_factored's plan (the operands without a summed index multiplying the sum of the
    others' product) at any size: LEAST 0 here, as the Hypothesis shapes are small."""
    spec, shapes = case
    rng = np.random.default_rng(seed)
    ops = [rng.standard_normal(s) for s in shapes]
    try:
        want = np.einsum(spec, *ops)
    except ValueError:
        return
    least, einsum_plans.LEAST = einsum_plans.LEAST, 0
    try:
        factored = einsum_plans._factored(spec, tuple(shapes))
    finally:
        einsum_plans.LEAST = least
    if factored is not None:
        got = factored(ops)
        assert got.shape == want.shape and got.dtype == want.dtype, (spec, shapes)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * max(1.0, float(np.abs(want).max(initial=0))))


@pytest.mark.parametrize("spec, shapes", [
    ("bc,bc,abc,abc->bc", [(10, 2), (10, 2), (1000, 10, 2), (1000, 10, 2)]),  # GMM d = 2
    ("cd,bd,abc->bcd", [(10, 9), (25, 9), (1000, 25, 10)]),  # GMM d = 10: a sum over the points
    ("ab,ba,a->a", [(3000, 2), (2, 3000), (1,)]),  # a factor of size 1 broadcast; transposed
])
def test_factors_without_a_summed_index_multiply_the_sum(spec, shapes):
    rng = np.random.default_rng(5)
    ops = [rng.standard_normal(s) for s in shapes]
    planned = einsum_plans.plan(spec, tuple(shapes))
    assert planned.func is einsum_plans._times_outer, spec
    np.testing.assert_allclose(runtime.contract(spec, *ops), np.einsum(spec, *ops), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bad", [np.inf, np.nan])
@pytest.mark.parametrize("terms", [einsum_plans.MASKED_TERMS, 0])  # sliced, and the product by the mask
def test_a_factored_plan_keeps_the_masks_selection(bad, terms, monkeypatch):
    """GMM's 'cd,bd,abc->bcd': the mask (c, d) is a factor outside the sum over the points; a
    masked lane's inf or NaN in the sum stays out of the result."""
    monkeypatch.setattr(einsum_plans, "MASKED_TERMS", terms)
    rng = np.random.default_rng(6)
    mask = np.array([[False, True, True], [True, False, True]])
    b, t = rng.standard_normal((10, 3)), rng.standard_normal((1000, 10, 2))
    t[5, 4, 0] = bad  # lanes (b=4, c=0, d): masked for d=0 only
    with np.errstate(all="ignore"):
        got = runtime.contract("cd,bd,abc->bcd", mask, b, t, where=(0,))
    want = np.where(mask[None], np.einsum("bd,abc->bcd", b, t), 0.0)
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
    np.testing.assert_allclose(got[np.isfinite(want)], want[np.isfinite(want)], rtol=1e-12)
    assert got[4, 0, 0] == 0 and not np.isfinite(got[4, 0, 1])


@pytest.mark.parametrize("terms", [einsum_plans.MASKED_TERMS, 0])  # sliced, and the product by the mask
def test_a_masked_contraction_of_finite_operands_is_its_einsum_when_it_overflows(terms, monkeypatch):
    """With every operand besides the mask finite (tested instead of the result when they are
    smaller), the masked terms are exact zeros: a result that overflowed to inf is the einsum
    of the kept terms, as the selection would give; a non-finite operand still selects."""
    monkeypatch.setattr(einsum_plans, "MASKED_TERMS", terms)
    rng = np.random.default_rng(7)
    mask = np.array([[False], [True]])
    b, c = rng.standard_normal((10, 2, 1)), rng.standard_normal((1000, 10, 1))
    b[3] = 1e200
    c[7, 3] = 1e200  # b * c: inf in the kept lane (c = 1) of point 7, component 3
    with np.errstate(all="ignore"):
        got = runtime.contract("cd,bcd,abd->abc", mask, b, c, where=(0,))
        want = np.where(mask[None, None, :, 0], np.einsum("bcd,abd->abc", b, c), 0.0)
    np.testing.assert_array_equal(got, want)
    assert got[7, 3, 1] == np.inf and got[7, 3, 0] == 0
    c[7, 3] = np.inf  # now an operand is not finite: the masked lane's 0 * inf is selected away
    with np.errstate(all="ignore"):
        got = runtime.contract("cd,bcd,abd->abc", mask, b, c, where=(0,))
    assert got[7, 3, 0] == 0 and got[7, 3, 1] == np.inf


@st.composite
def masked_einsums(draw):
    """An einsum (see einsums) with a Bool mask over some of its letters put in at a random
    place: at most 3 axes, each of its letter's size or 1, and mostly few True entries (the
    ragged triangle's), sometimes many (the general path's)."""
    spec, shapes = draw(einsums())
    inputs, out = spec.split("->")
    specs = inputs.split(",")
    used = sorted(set(inputs.replace(",", "")))
    size = {}
    for s, sh in zip(specs, shapes):
        for c, n in zip(s, sh):
            size[c] = n if size.get(c, 1) == 1 else size[c]
    letters = "".join(draw(st.permutations(used))[:draw(st.integers(0, min(3, len(used))))])
    mshape = tuple(size[c] if draw(st.integers(0, 3)) else 1 for c in letters)
    n = int(np.prod(mshape, dtype=np.int64))
    hits = draw(st.sets(st.integers(0, max(n - 1, 0)), max_size=min(n, draw(st.sampled_from([2, 4, 4, 9])))))
    mask = np.zeros(n, dtype=bool)
    mask[sorted(hits)] = True
    w = draw(st.integers(0, len(specs)))
    specs.insert(w, letters)
    shapes.insert(w, mshape)
    return ",".join(specs) + "->" + out, shapes, w, mask.reshape(mshape)


def _selected(spec: str, ops: list, w: int) -> np.ndarray:
    """The masked einsum's meaning: the product of the other operands over every letter, the
    terms where the mask is False replaced by 0 (whatever they hold), then summed."""
    inputs, out = spec.split("->")
    specs = inputs.split(",")
    every = "".join(sorted(set(inputs.replace(",", ""))))
    others = [k for k in range(len(ops)) if k != w]
    product = np.einsum(",".join(specs[k] for k in others) + "->" + "".join(c for c in every if any(c in specs[k] for k in others)),
                        *(ops[k] for k in others))
    own = "".join(c for c in every if any(c in specs[k] for k in others))
    product = product.reshape([product.shape[own.index(c)] if c in own else 1 for c in every])
    mask = np.einsum(specs[w] + "->" + "".join(c for c in every if c in specs[w]), ops[w])
    mask = mask.reshape([mask.shape["".join(c for c in every if c in specs[w]).index(c)] if c in specs[w] else 1
                         for c in every])
    return np.einsum(every + "->" + out, np.where(mask, product, 0.0))


def _discarded(spec: str, ops: list, w: int, k: int) -> np.ndarray:
    """The elements of operand k that no term the mask keeps reads (their values must not
    matter): the number of kept terms reading each is 0."""
    inputs, _ = spec.split("->")
    specs = inputs.split(",")
    ones = [ops[w].astype(np.float64) if j == w else np.ones(np.shape(o)) for j, o in enumerate(ops)]
    count = np.einsum(inputs + "->" + specs[k], *ones)
    # an axis of size 1 (broadcast) is read along the whole letter
    count = count.sum(axis=tuple(a for a, n in enumerate(ops[k].shape) if n == 1), keepdims=True)
    return np.broadcast_to(count == 0, ops[k].shape)


@settings(max_examples=500, deadline=None)
@given(masked_einsums(), st.integers(0, 2**32 - 1), st.sampled_from([np.inf, -np.inf, np.nan]))
def test_a_masked_contraction_sums_the_selected_terms(case, seed, bad):
    """runtime.contract with a ragged mask (`where`): the einsum of the terms the mask keeps,
    by the sliced plan (einsum_plans.masked) where it applies and the product by the mask
    otherwise; an inf or NaN in lanes the mask discards never reaches the result (it is the
    result of finite values there); shapes that do not broadcast raise einsum's error."""
    spec, shapes, w, mask = case
    rng = np.random.default_rng(seed)
    ops = [rng.standard_normal(s) for s in shapes]
    ops[w] = mask
    try:
        want = _selected(spec, ops, w)
    except ValueError:
        with pytest.raises(ValueError):
            runtime.contract(spec, *ops, where=(w,))
        return
    for k, o in enumerate(ops):
        if k != w and len(set(spec.split("->")[0].split(",")[k])) == o.ndim:  # (no diagonal: einsum's
            o[_discarded(spec, ops, w, k) & (rng.integers(0, 2, o.shape) == 1)] = bad  # result has no repeat)
    with np.errstate(all="ignore"):
        got = runtime.contract(spec, *ops, where=(w,))
        sliced = einsum_plans.masked(spec, tuple(ops), w)
    for value in (got,) if sliced is None else (got, sliced):
        assert np.shape(value) == want.shape and np.asarray(value).dtype == want.dtype, (spec, shapes)
        np.testing.assert_allclose(value, want, rtol=1e-12, atol=1e-12 * max(1.0, float(np.abs(want).max(initial=0))))


@pytest.mark.parametrize("d", [1, 2, 3, 4])
@pytest.mark.parametrize("spec, shapes", [
    ("cd,bcd,abd->abc", lambda d, n: [(d, d - 1), (10, d, d - 1), (n, 10, d - 1)]),  # GMM's L x
    ("cd,abd,bcd->abc", lambda d, n: [(d, d - 1), (n, 10, d - 1), (10, d, d - 1)]),
    ("cd,bcd,abc->abd", lambda d, n: [(d, d - 1), (10, d, d - 1), (n, 10, d)]),  # its transpose
    ("cd,bd,abc->bcd", lambda d, n: [(d, d - 1), (10, d - 1), (n, 10, d)]),  # L's cotangent: a sum over points
    ("cd,abd,abc->bcd", lambda d, n: [(d, d - 1), (n, 10, d - 1), (n, 10, d)]),
    ("cd,bcd,bd->bc", lambda d, n: [(d, d - 1), (10, d, d - 1), (10, d - 1)]),
])
@pytest.mark.parametrize("n", [1000, 0])
def test_gmms_triangle_mask_takes_its_entries(spec, shapes, d, n):
    """GMM's ragged triangle (j < i < d, the mask (d, d - 1)) at d = 1 (a (1, 0) mask: nothing
    kept, zeros), 2, 3 (one and three entries: sliced) and 4 (six: the product by the mask),
    with and without points; an inf and a NaN in masked lanes stay out of the result."""
    shapes = shapes(d, n)
    mask = np.arange(d)[:, None] > np.arange(d - 1)[None, :]
    rng = np.random.default_rng(d)
    ops = [mask] + [rng.standard_normal(s) for s in shapes[1:]]
    want = _selected(spec, ops, 0)
    np.testing.assert_allclose(runtime.contract(spec, *ops, where=(0,)), want, rtol=1e-13, atol=1e-13)
    sliced = einsum_plans.masked(spec, tuple(ops), 0)
    assert (sliced is None) == (d == 4)
    for k, s in enumerate(spec.split("->")[0].split(",")[1:], 1):  # c = 0 is masked out in every row
        if "c" in s and ops[k].size:
            ops[k][(slice(None),) * s.index("c") + (0,)] = np.inf if k == 1 else np.nan
    with np.errstate(all="ignore"):
        got = runtime.contract(spec, *ops, where=(0,))
        want = _selected(spec, ops, 0)
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_an_empty_sum_of_an_infinite_operand_is_zero():
    """A sum over an axis of length 0 has no terms: 0, as np.einsum's single pass gives, even
    times an inf or NaN operand (a pairwise plan's inf * 0 was NaN)."""
    for bad in (np.inf, np.nan):
        x, y, z = np.array([bad]), np.ones((2, 2, 1)), np.ones((1, 2, 0))
        got = runtime.contract("c,adc,cab->", x, y, z)  # (a matmul's plan: (a d) x (a b) summed over a)
        assert got == np.einsum("c,adc,cab->", x, y, z) == 0


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("spec", ["cd,bcd,abd->abc", "cd,abd,bcd->abc", "cd,abd,abc->bcd"])
def test_a_masked_contraction_of_a_strided_slice_keeps_the_selection(spec, bad):
    """GMM's d = 10 operands are slices whose rows are not adjacent ((1000, 25, 9) of a
    (1000, 25, 10) array): contract tests the result's finiteness rather than theirs (a
    ufunc's loops of 9 cost 5x a contiguous pass, runtime._cost); an inf or NaN in a masked
    lane (c = 0 is masked in every row) stays out of the result, one in a kept lane reaches it."""
    d, rng = 10, np.random.default_rng(8)
    mask = np.arange(d)[:, None] > np.arange(d - 1)[None, :]
    whole = {"bcd": rng.standard_normal((25, d, d - 1)), "abd": rng.standard_normal((1000, 25, d))[:, :, 1:],
             "abc": rng.standard_normal((1000, 25, d))}
    ops = [mask] + [whole[s] for s in spec.split("->")[0].split(",")[1:]]
    assert runtime._cost(whole["abd"]) > runtime._cost(whole["abc"]) == whole["abc"].size
    assert runtime._cost(whole["abc"].transpose(2, 0, 1)) == whole["abc"].size
    np.testing.assert_allclose(runtime.contract(spec, *ops, where=(0,)), _selected(spec, ops, 0), rtol=1e-12, atol=1e-12)
    specs = spec.split("->")[0].split(",")
    for k, s in enumerate(specs[1:], 1):
        if "c" in s:
            ops[k][(slice(None),) * s.index("c") + (0,)] = bad  # masked out: j < i never holds for i = 0
        if "d" in s and "c" not in s:
            ops[k][(5,) * s.index("d") + (3,)] = bad  # d = 3 is kept for every i > 3
    with np.errstate(all="ignore"):
        got = runtime.contract(spec, *ops, where=(0,))
        want = _selected(spec, ops, 0)
    assert got.shape == want.shape and not np.isfinite(want).all()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isfinite(got), np.isfinite(want))
    np.testing.assert_allclose(got[np.isfinite(want)], want[np.isfinite(want)], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("n", [65536, 65537, 65543, 250_000])
def test_finite_by_the_sum_of_squares_finds_every_inf_and_nan(n, bad):
    """runtime.finite of a large float64 array first tests x . x (runtime._squares_finite): an
    inf or NaN anywhere (BLAS's unrolled body and its remainder, C and F order) makes it
    False, as np.isfinite(x).all(); finite values whose squares overflow are still finite
    (the elements are then tested one by one); a strided view is tested by its elements."""
    rng = np.random.default_rng(10)
    x = rng.standard_normal(n)
    assert runtime.finite(x) and runtime._squares_finite(x)
    for at in (0, 1, n // 2, n - 7, n - 2, n - 1):
        y = x.copy()
        y[at] = bad
        assert not runtime.finite(y) and not runtime._squares_finite(y)
        assert not runtime.finite(y.reshape(-1, 1).T.copy().T)  # (n, 1) in F order too
    big = np.full((n // 8, 8), 1e200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the squares' overflow is catad's own: no warning
        assert runtime.finite(big)
    assert not runtime._squares_finite(big) and runtime.finite(big) and runtime.finite(np.asfortranarray(big))
    big[3, 5] = bad
    assert not runtime.finite(big) and not runtime.finite(np.asfortranarray(big))
    strided = rng.standard_normal((n, 3))[:, 1:]
    assert not runtime._squares_finite(strided) and runtime.finite(strided)
    strided[n // 3, 0] = bad
    assert not runtime.finite(strided)


def test_the_order_of_many_operands_is_searched_greedily(monkeypatch):
    """np.einsum_path's "optimal" search is exponential in the operands (27 s for 8): the gradient
    of np.sum(np.sin(s * s) * s * s), s = np.square(a[:, None]), makes a 9-operand einsum and
    took 24 s, its Hessian hung. Up to 5 operands the order is still the optimal one."""
    asked = []
    real = np.einsum_path

    def recording(spec, *ops, optimize, **kw):
        if isinstance(optimize, str):  # (plan's call gives the path found)
            asked.append((spec.count(",") + 1, optimize))
        return real(spec, *ops, optimize=optimize, **kw)
    monkeypatch.setattr(np, "einsum_path", recording)
    def chain(k):  # a @ b @ c ... as an einsum of k matrices (no operand has every index)
        letters = "abcdefghijk"
        return ",".join(letters[j:j + 2] for j in range(k)) + "->a" + letters[k]
    for k in (3, 5, 6, 9):
        einsum_plans.path.cache_clear()
        einsum_plans.path(chain(k), ((3, 3),) * k)
    assert asked == [(3, "optimal"), (5, "optimal"), (6, "greedy"), (9, "greedy")]
    ops = [np.random.default_rng(k).normal(size=(3, 3)) for k in range(9)]
    np.testing.assert_allclose(einsum_plans.run(chain(9), ops), np.linalg.multi_dot(ops), rtol=1e-10)
