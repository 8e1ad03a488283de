"""Linear maps: the reference semantics against each other and against the laws of
notes Fig. 4-5, on randomly generated linear-map values."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import catad.linearmaps as L
from catad.errors import CatadTypeError
from catad.lang.evaluate import eval_term
from catad.lang.terms import Const, Var
from catad.lang.types import Float, Int, LinMap, Tuple as TupleT, Vec

N = 3
VF = Vec(Float)
PAIR = TupleT((Float, VF))
TYPES = [Float, VF, PAIR]


def template(t):
    if t == Float:
        return 0.0
    if t == VF:
        return np.zeros(N)
    return tuple(template(s) for s in t.items)


def c(x, t=Float):
    return Const(x, t)


@st.composite
def maps(draw, src, tgt, depth=3):
    """A random linear-map value src -o tgt."""
    floats = st.floats(-2, 2, allow_nan=False)
    options = ["zero", "plus", "compose", "transpose"]
    if src == tgt:
        options += ["one", "scale"]
    if src == tgt == VF:
        options.append("scalevec")
    if isinstance(tgt, TupleT):
        options.append("vcat")
    if isinstance(src, TupleT):
        options.append("hcat")
    if tgt == VF:
        options += ["vcatv", "broadcast" if src == Float else "vcatv"]
    if src == VF:
        options += ["hcatv"]
        if tgt == Float:
            options += ["index", "sum"]
    if src == Float and tgt == VF:
        options.append("update")
    if depth <= 0:
        leafy = [o for o in options if o in ("zero", "one", "scale", "scalevec", "index", "sum", "broadcast", "update")]
        options = leafy or ["zero"]
    kind = draw(st.sampled_from(options))
    sub = lambda s, t: maps(s, t, depth - 1)  # noqa: E731
    if kind == "zero":
        return L.Zero(src, tgt)
    if kind == "one":
        return L.One(src)
    if kind == "scale":
        return L.Scale(c(draw(floats)), src)
    if kind == "scalevec":
        return L.ScaleVec(c(np.array(draw(st.lists(floats, min_size=N, max_size=N))), VF))
    if kind == "plus":
        return L.Plus(draw(sub(src, tgt)), draw(sub(src, tgt)))
    if kind == "compose":
        mid = draw(st.sampled_from(TYPES))
        return L.Compose(draw(sub(mid, tgt)), draw(sub(src, mid)))
    if kind == "transpose":
        return L.Transpose(draw(sub(tgt, src)))
    if kind == "vcat":
        return L.VCat(tuple(draw(sub(src, t)) for t in tgt.items))
    if kind == "hcat":
        return L.HCat(tuple(draw(sub(s, tgt)) for s in src.items))
    if kind == "vcatv":
        return L.VCatV(c(tuple(draw(sub(src, Float)) for _ in range(N)), Vec(LinMap(src, Float))))
    if kind == "hcatv":
        return L.HCatV(c(tuple(draw(sub(Float, tgt)) for _ in range(N)), Vec(LinMap(Float, tgt))))
    if kind == "index":
        return L.Index(c(draw(st.integers(0, N - 1)), Int), c(N, Int), VF)
    if kind == "update":
        return L.IndexUpdate(c(draw(st.integers(0, N - 1)), Int), c(N, Int), VF)
    if kind == "sum":
        return L.Sum(c(N, Int), VF)
    if kind == "broadcast":
        return L.Broadcast(c(N, Int), VF)
    raise AssertionError(kind)


@st.composite
def typed_maps(draw):
    src, tgt = draw(st.sampled_from(TYPES)), draw(st.sampled_from(TYPES))
    return draw(maps(src, tgt)), src, tgt


def matrix_by_reverse(m, src, tgt):
    n_tgt = L.tangent_size(template(tgt))
    rows = []
    for i in range(n_tgt):
        e = np.zeros(n_tgt)
        e[i] = 1.0
        rows.append(L.flatten(L.apply_reverse(m, L.unflatten(e, template(tgt))), template(src)))
    return np.array(rows).reshape(n_tgt, L.tangent_size(template(src)))


@settings(max_examples=300, deadline=None)
@given(typed_maps())
def test_forward_and_reverse_give_the_same_matrix(case):
    m, src, tgt = case
    forward = L.to_matrix(m, template(src), template(tgt))
    np.testing.assert_allclose(matrix_by_reverse(m, src, tgt), forward, atol=1e-12)


@settings(max_examples=300, deadline=None)
@given(typed_maps())
def test_transpose_laws_give_the_transposed_matrix(case):
    m, src, tgt = case
    mt = L.transpose(m)
    assert mt.type == LinMap(tgt, src)
    np.testing.assert_allclose(L.to_matrix(mt, template(tgt), template(src)),
                               L.to_matrix(m, template(src), template(tgt)).T, atol=1e-12)
    np.testing.assert_allclose(L.to_matrix(L.transpose(mt), template(src), template(tgt)),
                               L.to_matrix(m, template(src), template(tgt)), atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(typed_maps(), st.integers(0, 2**32 - 1))
def test_dot_product_identity_and_linearity(case, seed):
    m, src, tgt = case
    rng = np.random.default_rng(seed)
    ns, nt = L.tangent_size(template(src)), L.tangent_size(template(tgt))
    x, y, r = rng.normal(size=ns), rng.normal(size=ns), rng.normal(size=nt)
    X, Y, R = (L.unflatten(x, template(src)), L.unflatten(y, template(src)), L.unflatten(r, template(tgt)))
    jx = L.flatten(L.apply(m, X), template(tgt))
    jtr = L.flatten(L.apply_reverse(m, R), template(src))
    assert r @ jx == pytest.approx(jtr @ x, abs=1e-9)
    combined = L.flatten(L.apply(m, L.unflatten(2.0 * x - 3.0 * y, template(src))), template(tgt))
    jy = L.flatten(L.apply(m, Y), template(tgt))
    np.testing.assert_allclose(combined, 2.0 * jx - 3.0 * jy, atol=1e-9)


def test_shared_chains_are_linear_not_exponential():
    # D_k = (S(1/2) |><| S(1/2)) o (D_{k-1} x D_{k-1}): 2^200 paths through one shared node each
    d = L.One(Float)
    half = L.HCat((L.Scale(c(0.5), Float),) * 2)
    for _ in range(200):
        d = L.Compose(half, L.VCat((d, d)))
    assert L.apply(d, 1.0) == pytest.approx(1.0)
    assert L.apply_reverse(d, 1.0) == pytest.approx(1.0)


def test_ten_thousand_deep_chain_has_no_recursion_limit():
    d = L.One(Float)
    for k in range(10_000):
        d = L.Compose(L.Scale(c(1.0 + 1e-5), Float), d)
    expected = (1.0 + 1e-5) ** 10_000
    assert L.apply(d, 1.0) == pytest.approx(expected)
    assert L.apply_reverse(d, 1.0) == pytest.approx(expected)
    assert L.transpose(d).type == LinMap(Float, Float)


def test_index_cotangents_are_sparse_updates():
    n = 100_000
    dv = L.One(VF)
    m = L.Compose(L.Index(c(7, Int), c(n, Int), VF), dv)
    ct = L.apply_reverse(m, 2.0)
    assert isinstance(ct, L.OneHot) and (ct.i, ct.value, ct.n) == (7, 2.0, n)
    acc = L.Acc()
    for i in range(5):
        acc.add(L.OneHot(i, 1.0, n))
    v = acc.value()
    assert v.shape == (n,) and v[:6].tolist() == [1, 1, 1, 1, 1, 0]


def test_symbolic_maps_evaluate_their_coefficients():
    x = Var("x", Float)
    m = L.Compose(L.HCat((L.Scale(x, Float), L.Scale(x, Float))), L.VCat((L.One(Float), L.One(Float))))
    assert str(m) == "lmCompose(lmHCat(lmScale(x), lmScale(x)), lmVCat(lmOne(), lmOne()))"
    value = eval_term(m, {x: 3.0})
    assert str(value) == "lmCompose(lmHCat(lmScale(3.0), lmScale(3.0)), lmVCat(lmOne(), lmOne()))"
    assert L.apply(value, 1.0) == 6.0


def test_ill_typed_maps_are_rejected():
    with pytest.raises(CatadTypeError):
        L.Compose(L.One(Float), L.One(VF))
    with pytest.raises(CatadTypeError):
        L.Plus(L.One(Float), L.Zero(Float, VF))
    with pytest.raises(CatadTypeError):
        L.Scale(c(np.ones(2), VF), VF)
